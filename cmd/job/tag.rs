//! `nomad job tag apply|unset`: name job versions so the GC keeps them and `job revert`
//! accepts the name.

use clap::Subcommand;
use nomad::api::client::QueryOptions;

use crate::meta::{self, GlobalArgs};
use crate::output;

#[derive(Debug, Subcommand)]
pub enum TagCommand {
    /// Save a job version to prevent it from being garbage-collected and allow it to be
    /// diffed and reverted by name.
    Apply(ApplyArgs),
    /// Remove a tag from a job version.
    Unset(UnsetArgs),
}

#[derive(Debug, Clone, Default, clap::Args)]
pub struct ApplyArgs {
    #[command(flatten)]
    pub global: GlobalArgs,
    /// Specifies the name of the version to tag. This is a required field.
    #[arg(long, value_name = "version-name", default_value = "")]
    pub name: String,
    /// Specifies a description for the version. This is an optional field.
    #[arg(long, value_name = "description", default_value = "")]
    pub description: String,
    /// Specifies the version of the job to tag. If not provided, the latest version of the
    /// job will be tagged.
    #[arg(long, value_name = "version")]
    pub version: Option<String>,
    /// The job ID or prefix.
    pub job: String,
}

#[derive(Debug, Clone, Default, clap::Args)]
pub struct UnsetArgs {
    #[command(flatten)]
    pub global: GlobalArgs,
    /// The name of the tag to remove from the job version.
    #[arg(long, value_name = "tag", default_value = "")]
    pub name: String,
    /// The job ID or prefix.
    pub job: String,
}

pub async fn run(cmd: &TagCommand) -> anyhow::Result<i32> {
    match cmd {
        TagCommand::Apply(a) => apply(a, &a.global).await,
        TagCommand::Unset(a) => unset(a, &a.global).await,
    }
}

/// Nomad's checks before any request: a job and a tag name are required.
fn check_required(job: &str, name: &str, command: &str) -> Option<i32> {
    let problem = if job.is_empty() {
        "A job name is required"
    } else if name.is_empty() {
        "A version tag name is required"
    } else {
        return None;
    };
    output::err(problem);
    output::err(format!("For additional help try 'nomad {command} -help'"));
    Some(1)
}

pub async fn apply(a: &ApplyArgs, g: &GlobalArgs) -> anyhow::Result<i32> {
    if let Some(code) = check_required(&a.job, &a.name, "job tag apply") {
        return Ok(code);
    }
    let client = g.client()?;
    let (job_id, ns) = match meta::job_id_by_prefix(&client, g, a.job.trim()).await {
        Ok(v) => v,
        Err(e) => {
            output::err(format!("{e:#}"));
            return Ok(1);
        }
    };
    let q = QueryOptions::namespace(&ns);
    let version = match a.version.as_deref().filter(|v| !v.is_empty()) {
        Some(v) => match super::parse_go_uint(v) {
            Ok(n) => n,
            Err(e) => {
                output::err(format!("Error parsing version: {e}"));
                return Ok(1);
            }
        },
        None => match client.job(&job_id, Some(&q)).await {
            Ok((job, _)) => job.version,
            Err(e) => {
                output::err(format!("Error retrieving job versions: {e}"));
                return Ok(1);
            }
        },
    };
    if let Err(e) = client
        .tag_job_version(&job_id, version, &a.name, &a.description, Some(&q))
        .await
    {
        output::err(format!("Error tagging job version: {e}"));
        return Ok(1);
    }
    output::out(format!(
        "Job version {version} tagged with name \"{}\"",
        a.name
    ))?;
    Ok(0)
}

pub async fn unset(a: &UnsetArgs, g: &GlobalArgs) -> anyhow::Result<i32> {
    if let Some(code) = check_required(&a.job, &a.name, "job tag unset") {
        return Ok(code);
    }
    let client = g.client()?;
    let (job_id, ns) = match meta::job_id_by_prefix(&client, g, a.job.trim()).await {
        Ok(v) => v,
        Err(e) => {
            output::err(format!("{e:#}"));
            return Ok(1);
        }
    };
    let q = QueryOptions::namespace(&ns);
    if let Err(e) = client.untag_job_version(&job_id, &a.name, Some(&q)).await {
        // Nomad's wording, "tagging" included.
        output::err(format!("Error tagging job version: {e}"));
        return Ok(1);
    }
    output::out(format!("Tag \"{}\" removed from job \"{}\"", a.name, a.job))?;
    Ok(0)
}
