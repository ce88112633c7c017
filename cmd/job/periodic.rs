//! `nomad job periodic force [options] <job>`: launch a periodic job now.

use anyhow::anyhow;
use clap::Subcommand;
use nomad::api::client::QueryOptions;

use crate::meta::{job_list_table, GlobalArgs};
use crate::monitor;
use crate::output::{self, FULL_ID, SHORT_ID};

#[derive(Debug, Subcommand)]
pub enum PeriodicCommand {
    /// Force the launch of a periodic job
    Force(ForceArgs),
}

#[derive(Debug, clap::Args)]
pub struct ForceArgs {
    #[command(flatten)]
    pub global: GlobalArgs,
    /// Return immediately instead of entering monitor mode.
    #[arg(long)]
    pub detach: bool,
    /// Display full information.
    #[arg(long)]
    pub verbose: bool,
    /// The periodic job.
    pub job: String,
}

pub async fn run(cmd: &PeriodicCommand) -> anyhow::Result<i32> {
    match cmd {
        PeriodicCommand::Force(a) => force(a, &a.global).await,
    }
}

async fn force(args: &ForceArgs, g: &GlobalArgs) -> anyhow::Result<i32> {
    let length = if args.verbose { FULL_ID } else { SHORT_ID };
    let mut client = g.client()?;
    let prefix = args.job.trim();
    let (jobs, _) = client
        .jobs(Some(&QueryOptions::prefix(prefix)))
        .await
        .map_err(|e| anyhow!("Error querying job prefix {prefix:?}: {e}"))?;
    let matches: Vec<_> = jobs.into_iter().filter(|j| j.periodic).collect();
    let Some(job) = matches.iter().find(|j| j.id == prefix).or(matches.first()) else {
        return Err(anyhow!(
            "No periodic job(s) with prefix or ID {prefix:?} found"
        ));
    };
    if matches.len() > 1 && job.id != prefix {
        return Err(anyhow!(
            "Prefix {prefix:?} matched multiple jobs\n\n{}",
            job_list_table(&matches, g.all_namespaces())
        ));
    }
    if !job.namespace.is_empty() {
        client.set_namespace(&job.namespace);
    }
    let (resp, _) = client
        .force_periodic(&job.id)
        .await
        .map_err(|e| anyhow!("Error forcing periodic job {:?}: {e}", job.id))?;
    if args.detach {
        output::out("Force periodic successful")?;
        output::out(format!("Evaluation ID: {}", resp.eval_id))?;
        return Ok(0);
    }
    monitor::monitor(&client, &resp.eval_id, length).await
}
