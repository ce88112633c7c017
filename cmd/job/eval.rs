//! `nomad job eval [options] <job>`: create a new evaluation of a job, optionally forcing its
//! failed allocations to reschedule.

use anyhow::anyhow;

use crate::meta::{self, GlobalArgs};
use crate::monitor;
use crate::output::{self, limit, FULL_ID, SHORT_ID};

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub global: GlobalArgs,
    /// Force failed allocations to be rescheduled, even past their reschedule policy.
    #[arg(long = "force-reschedule")]
    pub force_reschedule: bool,
    /// Return immediately instead of entering monitor mode.
    #[arg(long)]
    pub detach: bool,
    /// Display full information.
    #[arg(long)]
    pub verbose: bool,
    /// The job ID or prefix.
    pub job: Vec<String>,
}

pub async fn run(args: &Args, g: &GlobalArgs) -> anyhow::Result<i32> {
    if args.job.len() != 1 {
        return Err(anyhow!(
            "This command takes one argument: <job>\nFor additional help try 'nomad job eval -help'"
        ));
    }
    let length = if args.verbose { FULL_ID } else { SHORT_ID };
    let mut client = g.client()?;
    let (job_id, namespace) = meta::job_id_by_prefix(&client, g, args.job[0].trim()).await?;
    client.set_namespace(&namespace);
    let (resp, _) = match client.evaluate_job(&job_id, args.force_reschedule).await {
        Ok(r) => r,
        Err(e) => {
            output::err(format!("Error evaluating job: {e}"));
            return Ok(1);
        }
    };
    if args.detach {
        output::out(format!(
            "Created eval ID: {:?} ",
            limit(&resp.eval_id, length)
        ))?;
        return Ok(0);
    }
    monitor::monitor(&client, &resp.eval_id, length).await
}
