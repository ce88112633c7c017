//! `nomad job scale [options] <job> [<group>] <count>`: change a group's count.

use anyhow::anyhow;
use nomad::api::JobScaleStatus;

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
    /// Scale only if the job's modify index matches (0: no check).
    #[arg(long = "check-index", value_name = "INDEX", default_value_t = 0)]
    pub check_index: u64,
    /// The job, optionally its group, and the new count.
    #[arg(num_args = 2..=3, value_names = ["JOB", "GROUP", "COUNT"])]
    pub args: Vec<String>,
}

pub async fn run(args: &Args, g: &GlobalArgs) -> anyhow::Result<i32> {
    let (job_prefix, group, count_text) = match args.args.as_slice() {
        [job, count] => (job.as_str(), None, count.as_str()),
        [job, group, count] => (job.as_str(), Some(group.clone()), count.as_str()),
        _ => {
            return Err(anyhow!(
                "Command requires at least two arguments and no more than three"
            ))
        }
    };
    let count: i64 = count_text
        .parse()
        .map_err(|e| anyhow!("Failed to convert count string to int: {e}"))?;
    let mut client = g.client()?;
    let (job_id, namespace) = meta::job_id_by_prefix(&client, g, job_prefix.trim()).await?;
    client.set_namespace(&namespace);
    let (status, _) = client
        .job_scale_status(&job_id)
        .await
        .map_err(|e| anyhow!("Error querying job: {e}"))?;
    let group = pick_group(&status, group)?;
    let (resp, _) = client
        .scale_job(
            &job_id,
            &group,
            count,
            "submitted using the Nomad CLI",
            args.check_index,
        )
        .await
        .map_err(|e| anyhow!("Error submitting scaling request: {e}"))?;
    if !resp.warnings.is_empty() {
        output::out(format!("Job Warnings:\n{}\n", resp.warnings))?;
    }
    let (job, _) = client
        .job(&job_id, None)
        .await
        .map_err(|e| anyhow!("Error looking up job: {e}"))?;
    let (periodic, parameterized) = (job.is_periodic(), job.is_parameterized());
    if args.detach || periodic || parameterized || super::is_multiregion(&job) {
        output::out("Job scale successful")?;
        if !periodic && !parameterized {
            output::out(format!("Evaluation ID: {}", resp.eval_id))?;
        }
        return Ok(0);
    }
    let length = if args.verbose { FULL_ID } else { SHORT_ID };
    monitor::monitor(&client, &resp.eval_id, length).await
}

/// Nomad's performGroupCheck: the group may be left out when the job has only one.
fn pick_group(status: &JobScaleStatus, group: Option<String>) -> anyhow::Result<String> {
    let groups = &status.task_groups;
    match group {
        None if groups.len() == 1 => Ok(groups.keys().next().cloned().unwrap_or_default()),
        None => Err(anyhow!("Group name required")),
        Some(g) if groups.contains_key(&g) => Ok(g),
        Some(g) => Err(anyhow!("Group {g} not found within job")),
    }
}
