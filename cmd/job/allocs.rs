//! `nomad job allocs [options] <job>`: the allocations of one job.

use anyhow::Context as _;
use nomad::api::client::QueryOptions;

use crate::meta::{self, GlobalArgs};
use crate::output::{self, FULL_ID, SHORT_ID};

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub global: GlobalArgs,
    /// Display all allocations matching the job ID, even those from an older instance of the
    /// job.
    #[arg(long)]
    pub all: bool,
    /// Display full information.
    #[arg(long)]
    pub verbose: bool,
    /// Output the allocations in a JSON format.
    #[arg(long)]
    pub json: bool,
    /// Format and display the output using a Go template.
    #[arg(short = 't', value_name = "TEMPLATE")]
    pub template: Option<String>,
    /// The job ID or prefix.
    pub job: String,
}

pub async fn run(args: &Args, g: &GlobalArgs) -> anyhow::Result<i32> {
    let client = g.client()?;
    let (id, ns) = meta::job_id_by_prefix(&client, g, args.job.trim()).await?;
    let q = QueryOptions::namespace(&ns);
    // The job only feeds the max-run-deadline column; its absence is not an error.
    let job = client.job(&id, Some(&q)).await.ok().map(|(j, _)| j);
    let (allocs, _) = client
        .job_allocations(&id, args.all, Some(&q))
        .await
        .context("Error retrieving allocations")?;
    if output::wants_formatted(args.json, args.template.as_deref()) {
        return Ok(output::print_formatted(
            args.json,
            args.template.as_deref(),
            &allocs,
        )?);
    }
    let length = if args.verbose { FULL_ID } else { SHORT_ID };
    let deadlines = meta::max_run_deadlines(job.as_ref(), &allocs, args.verbose);
    output::out(meta::alloc_stub_table(
        &allocs,
        args.verbose,
        length,
        &deadlines,
    ))?;
    Ok(0)
}
