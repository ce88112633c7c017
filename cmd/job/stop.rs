//! `nomad job stop [options] <job>`: deregister a job and monitor the resulting evaluation.

use anyhow::anyhow;
use nomad::api::client::QueryOptions;

use super::is_multiregion;
use crate::meta::{self, GlobalArgs};
use crate::monitor;
use crate::output::{self, FULL_ID, SHORT_ID};

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub global: GlobalArgs,
    /// Return immediately instead of entering monitor mode.
    #[arg(long)]
    pub detach: bool,
    /// Purge is used to stop the job and purge it from the system.
    #[arg(long)]
    pub purge: bool,
    /// Automatic yes to prompts.
    #[arg(long)]
    pub yes: bool,
    /// Stop a multi-region job in all its regions.
    #[arg(long = "global")]
    pub all_regions: bool,
    /// Display full information.
    #[arg(long)]
    pub verbose: bool,
    /// Override the priority of the evaluation that stops the job.
    #[arg(long = "eval-priority", value_name = "N", default_value_t = 0)]
    pub eval_priority: i32,
    /// Stop the allocations without waiting out their shutdown_delay.
    #[arg(long = "no-shutdown-delay")]
    pub no_shutdown_delay: bool,
    /// The job ID or prefix.
    pub job: String,
}

pub async fn run(args: &Args, g: &GlobalArgs) -> anyhow::Result<i32> {
    let length = if args.verbose { FULL_ID } else { SHORT_ID };
    let client = g.client()?;
    let prefix = args.job.trim();
    let job = meta::job_by_prefix(&client, g, prefix).await?;

    if prefix != job.id && !args.yes {
        let q = format!("Are you sure you want to stop job {:?}? [y/N]", job.id);
        if let Some(code) = output::confirm(&q, "Cancelling job stop")? {
            return Ok(code);
        }
    }
    if is_multiregion(&job) && !args.all_regions && !args.yes {
        let q = format!(
            "Are you sure you want to stop multi-region job {:?} in a single region? [y/N]",
            job.id
        );
        if let Some(code) = output::confirm(&q, "Cancelling job stop")? {
            return Ok(code);
        }
    }

    let mut q = QueryOptions::namespace(&job.namespace);
    if args.all_regions {
        q.params.push(("global".into(), "true".into()));
    }
    if args.eval_priority != 0 {
        q.params
            .push(("eval_priority".into(), args.eval_priority.to_string()));
    }
    if args.no_shutdown_delay {
        q.params.push(("no_shutdown_delay".into(), "true".into()));
    }
    let resp = match client.deregister_job(&job.id, args.purge, Some(&q)).await {
        Ok((r, _)) => r,
        Err(e) => return Err(anyhow!("Error deregistering job with id {prefix} err: {e}")),
    };
    if resp.eval_id.is_empty() {
        return Ok(0);
    }
    if args.detach {
        output::out(&resp.eval_id)?;
        return Ok(0);
    }
    monitor::monitor_expecting(&client, &resp.eval_id, length, Some(monitor::STOPPED_JOB)).await
}

#[cfg(test)]
mod tests {
    use crate::output::judge_answer;

    fn judge(answer: &str) -> Option<i32> {
        judge_answer(answer, "Cancelling job stop").0
    }

    #[test]
    fn only_an_exact_y_confirms() {
        assert_eq!(judge("y"), None);
        assert_eq!(judge(""), Some(0));
        assert_eq!(judge("No"), Some(0));
        assert_eq!(judge("yes"), Some(0));
        assert_eq!(judge("Y"), Some(1));
        assert_eq!(judge("maybe"), Some(1));
    }
}
