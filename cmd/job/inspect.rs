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
    /// Format and display the output using a Go template.
    #[arg(short = 't', value_name = "TEMPLATE")]
    pub template: Option<String>,
    /// Display the job at this version instead of the latest.
    #[arg(long, value_name = "N")]
    pub version: Option<u64>,
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
        if output::wants_formatted(args.json, args.template.as_deref()) {
            let (jobs, _) = client.jobs(None).await.context("Error querying jobs")?;
            return Ok(output::print_formatted(
                args.json,
                args.template.as_deref(),
                &jobs,
            )?);
        }
        output::err("This command takes one argument: <job>");
        output::err("For additional help try 'nomad job inspect -help'");
        return Ok(1);
    };
    let (id, ns) = meta::job_id_by_prefix(&client, g, prefix).await?;
    let q = QueryOptions::namespace(&ns);
    let job = match args.version {
        None => client.job(&id, Some(&q)).await.map(|(j, _)| Some(j)),
        Some(v) => client
            .job_versions(&id, Some(&q))
            .await
            .map(|(all, _)| all.into_iter().find(|j| j.version == v)),
    };
    let job = match job {
        Ok(j) => j,
        Err(e) => {
            output::err(format!("Error inspecting job: {e}"));
            return Ok(1);
        }
    };
    let Some(job) = job else {
        output::err(format!(
            "Error inspecting job: job {id:?} with version {} couldn't be found",
            args.version.unwrap_or_default()
        ));
        return Ok(1);
    };
    // `-t` runs over the bare job, like -json.
    if output::wants_formatted(args.json, args.template.as_deref()) {
        return Ok(output::print_formatted(
            args.json,
            args.template.as_deref(),
            &job,
        )?);
    }
    let text = if args.json {
        output::json_pretty(&job)?
    } else {
        output::json_pretty(&Wrapper { job })?
    };
    output::out(text)?;
    Ok(0)
}
