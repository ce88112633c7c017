//! `nomad job deployments [options] <job>`: a job's deployments, or its latest one.

use anyhow::anyhow;
use nomad::api::client::QueryOptions;

use crate::deployment::status::{format_deployment, format_deployments};
use crate::meta::{self, GlobalArgs};
use crate::output::{self, FULL_ID, SHORT_ID};

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub global: GlobalArgs,
    /// Only show the latest deployment.
    #[arg(long)]
    pub latest: bool,
    /// Also show deployments of earlier jobs registered with the same ID.
    #[arg(long)]
    pub all: bool,
    /// Output the deployments in their JSON format.
    #[arg(long)]
    pub json: bool,
    /// Format and display the output using a Go template.
    #[arg(short = 't', value_name = "TEMPLATE")]
    pub template: Option<String>,
    /// Display full information.
    #[arg(long)]
    pub verbose: bool,
    /// The job ID or prefix.
    pub job: Vec<String>,
}

pub async fn run(args: &Args, g: &GlobalArgs) -> anyhow::Result<i32> {
    if args.job.len() != 1 {
        return Err(anyhow!(
            "This command takes one argument: <job>\nFor additional help try 'nomad job deployments -help'"
        ));
    }
    let length = if args.verbose { FULL_ID } else { SHORT_ID };
    let client = g.client()?;
    let (job_id, namespace) = meta::job_id_by_prefix(&client, g, args.job[0].trim()).await?;
    let mut q = QueryOptions::namespace(&namespace);
    if args.latest {
        let d = match client.job_latest_deployment(&job_id, Some(&q)).await {
            Ok((d, _)) => d,
            Err(e) => {
                output::err(format!("Error retrieving deployments: {e}"));
                return Ok(1);
            }
        };
        if output::wants_formatted(args.json, args.template.as_deref()) {
            return Ok(output::print_formatted(
                args.json,
                args.template.as_deref(),
                &d,
            )?);
        }
        match d {
            Some(d) => output::out(format_deployment(&d, length))?,
            None => output::out("No deployments found")?,
        }
        return Ok(0);
    }
    if args.all {
        q.params.push(("all".into(), "true".into()));
    }
    let list = match client.job_deployments(&job_id, Some(&q)).await {
        Ok((l, _)) => l,
        Err(e) => {
            output::err(format!("Error retrieving deployments: {e}"));
            return Ok(1);
        }
    };
    if output::wants_formatted(args.json, args.template.as_deref()) {
        return Ok(output::print_formatted(
            args.json,
            args.template.as_deref(),
            &list,
        )?);
    }
    output::out(format_deployments(&list, length))?;
    Ok(0)
}
