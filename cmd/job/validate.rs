//! `nomad job validate [options] <path>`: check a job file, on the agent when one answers and
//! locally otherwise.

use std::path::PathBuf;

use anyhow::anyhow;
use nomad::api::client::JobValidateResponse;

use super::JobFileArgs;
use crate::jobspec;
use crate::meta::GlobalArgs;
use crate::output;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub global: GlobalArgs,
    #[command(flatten)]
    pub file: JobFileArgs,
    /// The job file.
    pub path: PathBuf,
}

pub async fn run(args: &Args, g: &GlobalArgs) -> anyhow::Result<i32> {
    let job = args
        .file
        .load(&args.path)
        .map_err(|e| anyhow!("Error getting job struct: {e:#}"))?;
    let mut client = match g.client() {
        Ok(c) => c,
        Err(e) => {
            output::err(format!("{e:#}"));
            return Ok(255);
        }
    };
    if !job.region.is_empty() {
        client.set_region(&job.region);
    }
    let resp = match client.validate_job(&job).await {
        Ok(r) => r,
        Err(_) => validate_local(&job),
    };
    if !resp.driver_config_validated {
        output::out(
            "Driver configuration not validated since connection to Nomad agent couldn't be established.\n",
        )?;
    }
    if !resp.error.is_empty() {
        output::err("Job validation errors:");
        output::err(&resp.error);
        return Ok(1);
    }
    if !resp.warnings.is_empty() {
        output::out(output::format_warnings("Job", &resp.warnings))?;
    }
    output::out("Job validation successful")?;
    Ok(0)
}

/// What the agent would answer, computed here: canonicalize then validate.
fn validate_local(job: &nomad::api::Job) -> JobValidateResponse {
    let mut job = job.clone();
    jobspec::canonicalize(&mut job);
    match jobspec::validate(&job) {
        Ok(warnings) => JobValidateResponse {
            warnings: output::format_warning_list(&warnings),
            ..Default::default()
        },
        Err(e) => JobValidateResponse {
            error: e.to_string(),
            validation_errors: Some(vec![e.to_string()]),
            ..Default::default()
        },
    }
}
