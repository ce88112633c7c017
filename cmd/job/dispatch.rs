//! `nomad job dispatch [options] <parameterized job> [input source]`: launch an instance of a
//! parameterized job, with meta and a payload from a file or stdin (`-`).

use std::io::Read as _;

use anyhow::anyhow;
use nomad::api::client::QueryOptions;
use nomad::api::JobDispatchRequest;

use crate::meta::{job_list_table, GlobalArgs};
use crate::monitor;
use crate::output::{self, format_kv, limit, FULL_ID, SHORT_ID};

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub global: GlobalArgs,
    /// Meta key/value pair (key=value) for the dispatched job; may be given multiple times.
    #[arg(long = "meta", value_name = "KEY=VALUE")]
    pub meta: Vec<String>,
    /// Return immediately instead of entering monitor mode.
    #[arg(long)]
    pub detach: bool,
    /// Display full information.
    #[arg(long)]
    pub verbose: bool,
    /// A token that makes a retried dispatch return the job the first attempt created.
    #[arg(long = "idempotency-token", value_name = "TOKEN")]
    pub idempotency_token: Option<String>,
    /// A prefix for the dispatched job's ID, after "/dispatch-".
    #[arg(long = "id-prefix-template", value_name = "PREFIX")]
    pub id_prefix_template: Option<String>,
    /// The priority of the dispatched job; the parameterized job's by default.
    #[arg(long, value_name = "N")]
    pub priority: Option<i32>,
    /// The parameterized job.
    pub job: String,
    /// A file with the payload, or "-" for stdin.
    pub input: Option<String>,
}

pub async fn run(args: &Args, g: &GlobalArgs) -> anyhow::Result<i32> {
    let length = if args.verbose { FULL_ID } else { SHORT_ID };
    let payload = match args.input.as_deref() {
        None => Vec::new(),
        Some("-") => {
            let mut buf = Vec::new();
            std::io::stdin()
                .read_to_end(&mut buf)
                .map_err(|e| anyhow!("Error reading input data: {e}"))?;
            buf
        }
        Some(path) => std::fs::read(path).map_err(|e| anyhow!("Error reading input data: {e}"))?,
    };
    let mut meta = std::collections::BTreeMap::new();
    for m in &args.meta {
        let (k, v) = m
            .split_once('=')
            .ok_or_else(|| anyhow!("Error parsing meta value: {m}"))?;
        meta.insert(k.to_string(), v.to_string());
    }
    let mut client = g.client()?;
    let (job_id, namespace) = parameterized_job(&client, g, args.job.trim()).await?;
    client.set_namespace(&namespace);
    let req = JobDispatchRequest {
        job_id,
        payload,
        meta: Some(meta),
        id_prefix_template: args.id_prefix_template.clone().unwrap_or_default(),
        priority: args.priority.unwrap_or(0),
    };
    let token = args.idempotency_token.as_deref().unwrap_or("");
    let (resp, _) = client
        .dispatch_job(&req, token)
        .await
        .map_err(|e| anyhow!("Failed to dispatch job: {e}"))?;
    let mut rows = vec![format!("Dispatched Job ID|{}", resp.dispatched_job_id)];
    let eval_created = !resp.eval_id.is_empty();
    if eval_created {
        rows.push(format!("Evaluation ID|{}", limit(&resp.eval_id, length)));
    }
    output::out(format_kv(&rows))?;
    if args.detach || !eval_created {
        return Ok(0);
    }
    output::out("")?;
    monitor::monitor(&client, &resp.eval_id, length).await
}

/// The parameterized job (not a dispatched child) a prefix names, and its namespace.
async fn parameterized_job(
    client: &nomad::api::client::Client,
    g: &GlobalArgs,
    prefix: &str,
) -> anyhow::Result<(String, String)> {
    let (jobs, _) = client
        .jobs(Some(&QueryOptions::prefix(prefix)))
        .await
        .map_err(|e| anyhow!("Error querying job prefix {prefix:?}: {e}"))?;
    let matches: Vec<_> = jobs
        .into_iter()
        .filter(|j| j.parent_id.is_empty() && j.parameterized_job)
        .collect();
    let Some(first) = matches.iter().find(|j| j.id == prefix).or(matches.first()) else {
        return Err(anyhow!(
            "No parameterized job(s) with prefix or ID {prefix:?} found"
        ));
    };
    if matches.len() > 1 && first.id != prefix {
        return Err(anyhow!(
            "Prefix {prefix:?} matched multiple jobs\n\n{}",
            job_list_table(&matches, g.all_namespaces())
        ));
    }
    let ns = if first.namespace.is_empty() {
        g.namespace_or_default()
    } else {
        first.namespace.clone()
    };
    Ok((first.id.clone(), ns))
}
