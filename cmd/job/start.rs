//! `nomad job start [options] <job>`: start a stopped job again by registering its latest
//! version with `Stop` cleared (Nomad 1.9+).

use anyhow::anyhow;
use nomad::api::client::RegisterOptions;
use nomad::api::cron::PeriodicSpec;

use super::{is_multiregion, is_parameterized, is_periodic};
use crate::meta::{self, GlobalArgs};
use crate::monitor;
use crate::output::{self, FULL_ID, SHORT_ID};

#[derive(Debug, Clone, Default, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub global: GlobalArgs,
    /// Return immediately instead of entering monitor mode. After the job start command is
    /// submitted, a new evaluation ID is printed to the screen, which can be used to examine
    /// the evaluation using the eval-status command.
    #[arg(long)]
    pub detach: bool,
    /// Display full information.
    #[arg(long)]
    pub verbose: bool,
    /// The job ID or prefix.
    pub job: String,
}

pub async fn run(args: &Args, g: &GlobalArgs) -> anyhow::Result<i32> {
    let length = if args.verbose { FULL_ID } else { SHORT_ID };
    let client = g.client()?;
    let mut job = match meta::job_by_prefix(&client, g, args.job.trim()).await {
        Ok(j) => j,
        Err(e) => {
            output::err(format!("{e:#}"));
            return Ok(1);
        }
    };
    if !job.stop {
        output::err(format!("Job {:?} has not been stopped", job.name));
        return Ok(1);
    }
    job.stop = false;
    // The new version is a fresh one: the tag stays on the version it named (a tag name is
    // on one version only), as `job revert` does.
    job.version_tag = None;
    let resp = match client.register_job(&job, &RegisterOptions::default()).await {
        Ok((r, _)) => r,
        Err(e) => return Err(anyhow!("Error submitting job: {e}")),
    };

    let (periodic, paramjob) = (is_periodic(&job), is_parameterized(&job));
    if args.detach || periodic || paramjob || is_multiregion(&job) {
        output::out("Job start successful")?;
        if periodic && !paramjob {
            print_next_launch(&job)?;
        } else if !paramjob {
            output::out(format!("Evaluation ID: {}", resp.eval_id))?;
        }
        return Ok(0);
    }
    monitor::monitor(&client, &resp.eval_id, length).await
}

/// "Approximate next launch time: <time> (<duration> from now)" for a periodic job.
fn print_next_launch(job: &nomad::api::Job) -> std::io::Result<()> {
    let Some(spec) = PeriodicSpec::from_job(job).ok().flatten() else {
        return Ok(());
    };
    let now = output::now_nanos();
    match spec.next_after(now) {
        Some(next) => {
            // Rounded to the second, as Nomad's formatTimeDifference.
            let secs = (next - now + 500_000_000) / 1_000_000_000;
            output::out(format!(
                "Approximate next launch time: {} ({} from now)",
                output::format_unix_nano(next),
                output::go_duration(secs * 1_000_000_000)
            ))
        }
        None => {
            output::err("Error determining next launch time: no next launch");
            Ok(())
        }
    }
}
