//! `nomad job plan [options] <path>`: a dry run of the scheduler for a job file.
//! Exit codes: 0 no allocations created or destroyed, 1 some would be, 255 error.

use std::path::PathBuf;

use clap::ArgAction;

use super::diff_format::{format_job_diff, go_quote};
use super::plan_format::{exit_code, format_dry_run, format_job_modify_index};
use super::JobFileArgs;
use crate::meta::GlobalArgs;
use crate::output;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub global: GlobalArgs,
    /// Determines whether the diff between the remote job and planned job is shown.
    /// Defaults to true.
    #[arg(long, action = ArgAction::Set, num_args = 0..=1, default_value_t = true,
          default_missing_value = "true", require_equals = true, value_name = "BOOL")]
    pub diff: bool,
    /// If set, any soft mandatory Sentinel policies will be overridden.
    #[arg(long = "policy-override")]
    pub policy_override: bool,
    /// Increase diff verbosity.
    #[arg(long)]
    pub verbose: bool,
    /// Output the plan response as JSON instead of the human text.
    #[arg(long = "json-output")]
    pub json_output: bool,
    /// If set, the passed Vault namespace is stored in the job before sending to the server.
    #[arg(long = "vault-namespace", value_name = "NAMESPACE")]
    pub vault_namespace: Option<String>,
    #[command(flatten)]
    pub file: JobFileArgs,
    /// The job file.
    pub path: PathBuf,
}

/// Errors exit 255, as Nomad's plan does.
const EXIT_ERROR: i32 = 255;

pub async fn run(args: &Args, g: &GlobalArgs) -> anyhow::Result<i32> {
    let mut job = match args.file.load(&args.path) {
        Ok(job) => job,
        Err(e) => {
            output::err(format!("Error getting job struct: {e:#}"));
            return Ok(EXIT_ERROR);
        }
    };
    if let Some(ns) = args.vault_namespace.as_deref().filter(|n| !n.is_empty()) {
        job.vault_namespace = ns.to_string();
    }
    let client = match g.client() {
        Ok(c) => c,
        Err(e) => {
            output::err(format!("{e:#}"));
            return Ok(EXIT_ERROR);
        }
    };
    let resp = match client.plan_job(&job, args.policy_override).await {
        Ok((resp, _)) => resp,
        Err(e) => {
            output::err(format!("Error during plan: {e}"));
            return Ok(EXIT_ERROR);
        }
    };
    if args.json_output {
        output::out(output::json_pretty(&resp)?)?;
        return Ok(exit_code(&resp));
    }
    if args.diff {
        if let Some(diff) = &resp.diff {
            output::out(format!("{}\n", format_job_diff(diff, args.verbose).trim()))?;
        }
    }
    output::out("Scheduler dry-run:")?;
    output::out(format_dry_run(&resp, &job.r#type, output::now_nanos()))?;
    output::out("")?;
    if !resp.warnings.is_empty() {
        output::out(format!("Job Warnings:\n{}\n", resp.warnings))?;
    }
    output::out(format_job_modify_index(
        resp.job_modify_index,
        &run_args(args, g),
        &args.path.display().to_string(),
    ))?;
    Ok(exit_code(&resp))
}

/// The flags `job run -check-index` needs to read the file the same way.
fn run_args(args: &Args, g: &GlobalArgs) -> String {
    let mut out = String::new();
    for v in &args.file.vars {
        out += &format!("-var={} ", go_quote(v));
    }
    for f in &args.file.var_files {
        out += &format!("-var-file={} ", go_quote(&f.display().to_string()));
    }
    if let Some(ns) = g.namespace.as_deref().filter(|n| !n.is_empty()) {
        out += &format!("-namespace={} ", go_quote(ns));
    }
    out
}
