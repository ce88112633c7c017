//! `nomad server join <addr>...`: ask the agent's server to join other servers.

use crate::meta::GlobalArgs;
use crate::output;

#[derive(Debug, Clone, Default, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub global: GlobalArgs,
    /// Addresses of the servers to join (host or host:port; the port defaults to 4648).
    pub addresses: Vec<String>,
}

pub async fn run(args: &Args, g: &GlobalArgs) -> anyhow::Result<i32> {
    if args.addresses.is_empty() {
        output::err("One or more node addresses must be given as arguments");
        output::err("For additional help try 'nomad server join -help'");
        return Ok(1);
    }
    let client = g.client()?;
    let resp = match client.agent_join(&args.addresses).await {
        Ok(r) => r,
        Err(e) => {
            output::err(format!("Error joining: failed joining: {e}"));
            return Ok(1);
        }
    };
    if !resp.error.is_empty() {
        output::err(format!("Error joining: failed joining: {}", resp.error));
        return Ok(1);
    }
    if !resp.warning.is_empty() {
        output::err(format!(
            "Joined {} servers successfully but got warning: {}",
            resp.num_joined, resp.warning
        ));
        return Ok(0);
    }
    output::out(format!("Joined {} servers successfully", resp.num_joined))?;
    Ok(0)
}
