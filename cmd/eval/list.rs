//! `nomad eval list [options]`: evaluations, a page at a time.

use anyhow::Context as _;
use nomad::api::client::QueryOptions;

use crate::meta::GlobalArgs;
use crate::output;

#[derive(Debug, Clone, Default, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub global: GlobalArgs,
    /// Show full information.
    #[arg(long)]
    pub verbose: bool,
    /// Output the evaluations in their JSON format.
    #[arg(long)]
    pub json: bool,
    /// Format and display the output using a Go template.
    #[arg(short = 't', value_name = "TEMPLATE")]
    pub template: Option<String>,
    /// How many results to show per page.
    #[arg(long = "per-page", value_name = "N", default_value_t = 0)]
    pub per_page: u32,
    /// Where to start pagination.
    #[arg(long = "page-token", value_name = "TOKEN")]
    pub page_token: Option<String>,
    /// Only show evaluations for this job ID.
    #[arg(long, value_name = "JOB")]
    pub job: Option<String>,
    /// Only show evaluations with this status.
    #[arg(long, value_name = "STATUS")]
    pub status: Option<String>,
    /// Only show evaluations matching this filter expression (e.g. `JobID == "web"`).
    #[arg(long, value_name = "EXPR")]
    pub filter: Option<String>,
}

pub async fn run(args: &Args, g: &GlobalArgs) -> anyhow::Result<i32> {
    let client = g.client()?;
    let mut q = QueryOptions::default();
    if args.per_page > 0 {
        q.params
            .push(("per_page".into(), args.per_page.to_string()));
    }
    if let Some(t) = &args.page_token {
        q.params.push(("next_token".into(), t.clone()));
    }
    if let Some(j) = &args.job {
        q.params.push(("job".into(), j.clone()));
    }
    if let Some(s) = &args.status {
        q.params.push(("status".into(), s.clone()));
    }
    if let Some(f) = &args.filter {
        q.params.push(("filter".into(), f.clone()));
    }
    let (evals, meta) = client
        .evaluations(Some(&q))
        .await
        .context("Error querying evaluations")?;
    if output::wants_formatted(args.json, args.template.as_deref()) {
        return Ok(output::print_formatted(
            args.json,
            args.template.as_deref(),
            &evals,
        )?);
    }
    if evals.is_empty() {
        output::out("No evals found")?;
        return Ok(0);
    }
    output::out(super::status::eval_list(&evals, args.verbose))?;
    output::pagination_hint(&meta.next_token)?;
    Ok(0)
}
