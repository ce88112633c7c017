//! `nomad server force-leave [-prune] <node>`: eject a failed server from the membership.

use crate::meta::GlobalArgs;
use crate::output;

#[derive(Debug, Clone, Default, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub global: GlobalArgs,
    /// Removes failed or left server from the member list immediately. If member is actually
    /// still alive, it will eventually rejoin the cluster again.
    #[arg(long)]
    pub prune: bool,
    /// The server to eject (its member name or advertised RPC address).
    pub node: String,
}

pub async fn run(args: &Args, g: &GlobalArgs) -> anyhow::Result<i32> {
    let client = g.client()?;
    if let Err(e) = client.agent_force_leave(&args.node, args.prune).await {
        output::err(format!("Error force-leaving server {}: {e}", args.node));
        return Ok(1);
    }
    Ok(0)
}
