//! `nomad job inspect [options] <job>`: the registered job as `{"Job": ...}` JSON.

use anyhow::Context as _;
use nomad::api::client::QueryOptions;
use serde::Serialize;

use crate::meta::{self, GlobalArgs};
use crate::output;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub global: GlobalArgs,
    /// Output the job in its JSON format (the bare job, without the {"Job": ...} wrapper).
    #[arg(long)]
    pub json: bool,
    /// The job ID or prefix; with -json and no job, all jobs are listed.
    pub job: Option<String>,
}

#[derive(Serialize)]
#[serde(rename_all = "PascalCase")]
struct Wrapper {
    job: nomad::api::Job,
}

pub async fn run(args: &Args, g: &GlobalArgs) -> anyhow::Result<i32> {
    let client = g.client()?;
    let Some(prefix) = args.job.as_deref().map(str::trim) else {
        if args.json {
            let (jobs, _) = client.jobs(None).await.context("Error querying jobs")?;
            output::out(output::json_pretty(&jobs)?)?;
            return Ok(0);
        }
        output::err("This command takes one argument: <job>");
        output::err("For additional help try 'nomad job inspect -help'");
        return Ok(1);
    };
    let (id, ns) = meta::job_id_by_prefix(&client, g, prefix).await?;
    let (job, _) = client
        .job(&id, Some(&QueryOptions::namespace(&ns)))
        .await
        .context("Error inspecting job")?;
    let text = if args.json {
        output::json_pretty(&job)?
    } else {
        output::json_pretty(&Wrapper { job })?
    };
    output::out(text)?;
    Ok(0)
}
