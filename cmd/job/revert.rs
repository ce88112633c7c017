//! `nomad job revert [options] <job> <version>`: register an earlier version again.

use crate::meta::{self, GlobalArgs};
use crate::monitor;
use crate::output::{self, FULL_ID, SHORT_ID};

#[derive(Debug, Clone, Default, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub global: GlobalArgs,
    /// Return immediately instead of entering monitor mode.
    #[arg(long)]
    pub detach: bool,
    /// Display full information.
    #[arg(long)]
    pub verbose: bool,
    /// The job ID or prefix.
    pub job: String,
    /// The version to revert to.
    pub version: String,
}

pub async fn run(a: &Args, g: &GlobalArgs) -> anyhow::Result<i32> {
    let client = g.client()?;
    let len = if a.verbose { FULL_ID } else { SHORT_ID };
    let Ok(version) = a.version.parse::<u64>() else {
        output::err(format!(
            "The job version to revert to must be an integer: {:?}",
            a.version
        ));
        return Ok(1);
    };
    let (job_id, ns) = match meta::job_id_by_prefix(&client, g, a.job.trim()).await {
        Ok(v) => v,
        Err(e) => {
            output::err(e.to_string());
            return Ok(1);
        }
    };
    let mut client = client;
    client.set_namespace(&ns);
    let resp = match client.job_revert(&job_id, version, None).await {
        Ok((r, _)) => r,
        Err(e) => {
            output::err(format!("Error retrieving job versions: {e}"));
            return Ok(1);
        }
    };
    if resp.eval_id.is_empty() {
        return Ok(0);
    }
    if a.detach {
        output::out(format!("Evaluation ID: {}", resp.eval_id))?;
        return Ok(0);
    }
    monitor::monitor(&client, &resp.eval_id, len).await
}
