//! `nomad job promote [options] <job id>`: promote the canaries of a job's latest deployment.

use nomad::api::client::QueryOptions;

use crate::deployment::actions::follow;
use crate::meta::{self, GlobalArgs};
use crate::output::{self, FULL_ID, SHORT_ID};

#[derive(Debug, Clone, Default, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub global: GlobalArgs,
    /// Task group to promote; may be given multiple times (default: all groups).
    #[arg(long = "group")]
    pub groups: Vec<String>,
    /// Return immediately instead of entering monitor mode.
    #[arg(long)]
    pub detach: bool,
    /// Display full information.
    #[arg(long)]
    pub verbose: bool,
    /// The job ID or prefix.
    pub job: String,
}

pub async fn run(a: &Args, g: &GlobalArgs) -> anyhow::Result<i32> {
    let client = g.client()?;
    let len = if a.verbose { FULL_ID } else { SHORT_ID };
    let (job_id, ns) = match meta::job_id_by_prefix(&client, g, a.job.trim()).await {
        Ok(v) => v,
        Err(e) => {
            output::err(e.to_string());
            return Ok(1);
        }
    };
    let q = QueryOptions::namespace(&ns);
    let d = match client.job_latest_deployment(&job_id, Some(&q)).await {
        Ok((Some(d), _)) => d,
        Ok((None, _)) => {
            output::err(format!("Job {job_id:?} has no deployment to promote"));
            return Ok(1);
        }
        Err(e) => {
            output::err(format!("Error retrieving deployment: {e}"));
            return Ok(1);
        }
    };
    match client.deployment_promote(&d.id, &a.groups).await {
        Ok((u, _)) => follow(&client, &u, a.detach, len, None).await,
        Err(e) => {
            output::err(format!(
                "Error promoting deployment {:?} for job {job_id:?}: {e}",
                d.id
            ));
            Ok(1)
        }
    }
}
