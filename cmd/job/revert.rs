//! `nomad job revert [options] <job> <version>`: register an earlier version again.

use anyhow::anyhow;
use nomad::api::client::Client;

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
    /// The version number or version tag name to revert to.
    pub version: String,
}

pub async fn run(a: &Args, g: &GlobalArgs) -> anyhow::Result<i32> {
    let client = g.client()?;
    let len = if a.verbose { FULL_ID } else { SHORT_ID };
    // Not a number: a version tag name, looked up by the job as given (as Nomad does).
    let version = match a.version.parse::<u64>() {
        Ok(v) => v,
        Err(_) => match version_by_tag(&client, a.job.trim(), &a.version).await {
            Ok(v) => v,
            Err(e) => {
                output::err(format!("Error retrieving job versions: {e}"));
                return Ok(1);
            }
        },
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

/// The number of the job version tagged `tag` (Nomad's `Jobs.VersionByTag`).
async fn version_by_tag(client: &Client, job_id: &str, tag: &str) -> anyhow::Result<u64> {
    let (versions, _) = client.job_versions(job_id, None).await?;
    versions
        .iter()
        .find(|v| v.version_tag.as_ref().is_some_and(|t| t.name == tag))
        .map(|v| v.version)
        .ok_or_else(|| anyhow!("version tag {tag} not found for job {job_id}"))
}
