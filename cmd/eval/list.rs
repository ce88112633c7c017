//! `nomad eval list [options]`: list evaluations, newest first.

use nomad::api::client::QueryOptions;

use super::status::eval_list;
use crate::meta::GlobalArgs;
use crate::output;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub global: GlobalArgs,
    /// Show full-length IDs.
    #[arg(long)]
    pub verbose: bool,
    /// Output the evaluations in their JSON format.
    #[arg(long)]
    pub json: bool,
    /// Only show evaluations for this job ID.
    #[arg(long = "job", value_name = "JOB_ID")]
    pub job: Option<String>,
    /// Only show evaluations with this status.
    #[arg(long = "status", value_name = "STATUS")]
    pub status: Option<String>,
}

pub async fn run(args: &Args, g: &GlobalArgs) -> anyhow::Result<i32> {
    let client = g.client()?;
    let mut q = QueryOptions::default();
    if let Some(job) = args.job.as_deref().filter(|j| !j.is_empty()) {
        q.params.push(("job".to_string(), job.to_string()));
    }
    if let Some(status) = args.status.as_deref().filter(|s| !s.is_empty()) {
        q.params.push(("status".to_string(), status.to_string()));
    }
    let (evals, _) = client
        .evaluations(Some(&q))
        .await
        .map_err(|e| anyhow::anyhow!("Error querying evaluations: {e}"))?;
    if args.json {
        output::out(output::json_pretty(&evals)?)?;
        return Ok(0);
    }
    if evals.is_empty() {
        output::out("No evals found")?;
        return Ok(0);
    }
    output::out(eval_list(&evals, args.verbose))?;
    Ok(0)
}
