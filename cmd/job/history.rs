//! `nomad job history [options] <job>`: the job's versions, newest first.

use nomad::api::client::QueryOptions;
use nomad::api::Job;

use crate::meta::{self, GlobalArgs};
use crate::output::{self, format_kv};

#[derive(Debug, Clone, Default, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub global: GlobalArgs,
    /// Display the difference between each version of the job and the previous one.
    #[arg(short = 'p')]
    pub diff: bool,
    /// Display the full job definition for each version.
    #[arg(long)]
    pub full: bool,
    /// Output the job versions in their JSON format.
    #[arg(long)]
    pub json: bool,
    /// Format and display the output using a Go template.
    #[arg(short = 't', value_name = "TEMPLATE")]
    pub template: Option<String>,
    /// Display only the history for the given version.
    #[arg(long)]
    pub version: Option<String>,
    /// The job ID or prefix.
    pub job: String,
}

pub async fn run(a: &Args, g: &GlobalArgs) -> anyhow::Result<i32> {
    let client = g.client()?;
    let (job_id, ns) = match meta::job_id_by_prefix(&client, g, a.job.trim()).await {
        Ok(v) => v,
        Err(e) => {
            output::err(e.to_string());
            return Ok(1);
        }
    };
    let versions = match client
        .job_versions(&job_id, Some(&QueryOptions::namespace(&ns)))
        .await
    {
        Ok((v, _)) => v,
        Err(e) => {
            output::err(format!("Error retrieving job versions: {e}"));
            return Ok(1);
        }
    };
    let selected: Vec<&Job> = match &a.version {
        Some(v) => {
            let Ok(n) = v.parse::<u64>() else {
                output::err(format!("Error parsing version value {v:?}: invalid syntax"));
                return Ok(1);
            };
            match versions.iter().find(|j| j.version == n) {
                Some(j) => vec![j],
                None => {
                    output::err(format!("Could not find job version {n}"));
                    return Ok(1);
                }
            }
        }
        None => versions.iter().collect(),
    };
    if output::wants_formatted(a.json, a.template.as_deref()) {
        return Ok(output::print_formatted(
            a.json,
            a.template.as_deref(),
            &selected,
        )?);
    }
    let blocks: Vec<String> = selected
        .iter()
        .map(|j| format_version(j, a.full))
        .collect::<anyhow::Result<_>>()?;
    output::out(blocks.join("\n\n"))?;
    Ok(0)
}

/// Nomad's `formatJobVersion` (without diffs, which this build does not compute).
fn format_version(job: &Job, full: bool) -> anyhow::Result<String> {
    let mut rows = vec![
        format!("Version|{}", job.version),
        format!("Stable|{}", job.stable),
        format!("Submit Date|{}", output::format_unix_nano(job.submit_time)),
    ];
    if let Some(tag) = &job.version_tag {
        rows.push(format!("Tag Name|{}", tag.name));
        if !tag.description.is_empty() {
            rows.push(format!("Tag Description|{}", tag.description));
        }
    }
    if full {
        rows.push(format!("Full|JSON Job:\n{}", output::json_pretty(job)?));
    }
    Ok(format_kv(&rows))
}
