//! `nomad job run [options] <path>`: submit a job and monitor its evaluation.

use std::path::PathBuf;

use anyhow::anyhow;
use nomad::api::client::RegisterOptions;

use super::{is_multiregion, is_parameterized, is_periodic, JobFileArgs, Recorded};
use crate::meta::{self, GlobalArgs};
use crate::monitor;
use crate::output::{self, FULL_ID, SHORT_ID};

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub global: GlobalArgs,
    /// Return immediately instead of entering monitor mode.
    #[arg(long)]
    pub detach: bool,
    /// Display full information.
    #[arg(long)]
    pub verbose: bool,
    /// Output the JSON that would be submitted to the HTTP API without submitting the job.
    #[arg(long)]
    pub output: bool,
    /// If set, the job is only registered or updated if the passed job modify index matches
    /// the server side version. A value of zero registers the job only if it does not exist.
    #[arg(long = "check-index", value_name = "INDEX")]
    pub check_index: Option<String>,
    /// Override the priority of the evaluation this registration creates.
    #[arg(long = "eval-priority", value_name = "N", default_value_t = 0)]
    pub eval_priority: i32,
    /// Keep the current counts of task groups the running job already has.
    #[arg(long = "preserve-counts")]
    pub preserve_counts: bool,
    /// Override soft-mandatory Sentinel policies (accepted; there are none here).
    #[arg(long = "policy-override")]
    pub policy_override: bool,
    #[command(flatten)]
    pub file: JobFileArgs,
    /// The job file.
    pub path: PathBuf,
}

pub async fn run(args: &Args, g: &GlobalArgs) -> anyhow::Result<i32> {
    let length = if args.verbose { FULL_ID } else { SHORT_ID };
    let (job, presence) = args
        .file
        .load_recording(&args.path)
        .map_err(|e| anyhow!("Error getting job struct: {e:#}"))?;

    let mut client = g.client()?;
    if !job.region.is_empty() {
        client.set_region(&job.region);
    }
    if !job.namespace.is_empty() {
        client.set_namespace(&job.namespace);
    }

    if args.output {
        // Nomad prints its api Job as parsed, before any defaults (`-json` jobs are read
        // into that shape already).
        let text = match &presence {
            Recorded::Hcl(presence) => nomad::jobspec::run_output(&job, presence),
            Recorded::Json(raw) => nomad::jobspec::run_output_json(raw),
        };
        output::out(text)?;
        return Ok(0);
    }

    let check_index = match args.check_index.as_deref() {
        None | Some("") => None,
        Some(s) => Some(
            s.parse::<u64>()
                .map_err(|e| anyhow!("Error parsing check-index value {s:?}: {e}"))?,
        ),
    };

    let opts = RegisterOptions {
        check_index,
        preserve_counts: args.preserve_counts,
        policy_override: args.policy_override,
        eval_priority: args.eval_priority,
    };
    let resp = match client.register_job(&job, &opts).await {
        Ok((resp, _)) => resp,
        Err(e) => {
            let text = e.to_string();
            if let Some(reason) = enforce_index_reason(&text) {
                output::err(reason);
                output::err("Job not updated");
                return Ok(1);
            }
            return Err(anyhow!("Error submitting job: {text}"));
        }
    };

    if !resp.warnings.is_empty() {
        output::out(output::format_warnings("Job", &resp.warnings))?;
    }

    let namespace = if job.namespace.is_empty() {
        g.namespace_or_default()
    } else {
        job.namespace.clone()
    };
    let ui_path = format!("/jobs/{}@{}", job.id, namespace);

    let (periodic, paramjob) = (is_periodic(&job), is_parameterized(&job));
    if args.detach || periodic || paramjob || is_multiregion(&job) {
        output::out("Job registration successful")?;
        if !paramjob && !periodic {
            output::out(format!("Evaluation ID: {}", resp.eval_id))?;
        }
        meta::print_ui_hint(&client, &ui_path, "View this job").await;
        return Ok(0);
    }

    if meta::print_ui_hint(&client, &ui_path, "View this job").await {
        output::err("");
    }
    monitor::monitor(&client, &resp.eval_id, length).await
}

/// The check-index conflict text inside the agent's error (Nomad prints only that part).
fn enforce_index_reason(err: &str) -> Option<String> {
    let start = err.find("Enforcing job modify index")?;
    let rest = &err[start..];
    let end = rest.rfind(')').unwrap_or(rest.len());
    Some(rest[..end].to_string())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn check_index_conflicts_print_only_the_reason() {
        let err = "Unexpected response code: 500 (Enforcing job modify index 5: job exists with conflicting job modify index: 7)";
        assert_eq!(
            enforce_index_reason(err).as_deref(),
            Some("Enforcing job modify index 5: job exists with conflicting job modify index: 7")
        );
        assert_eq!(
            enforce_index_reason("Unexpected response code: 500 (boom)"),
            None
        );
    }
}
