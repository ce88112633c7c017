//! `nomad deployment promote|fail|pause|resume|unblock`.

use nomad::api::DeploymentUpdateResponse;

use crate::meta::GlobalArgs;
use crate::monitor;
use crate::output::{self, FULL_ID, SHORT_ID};

#[derive(Debug, Clone, Default, clap::Args)]
pub struct IdArgs {
    #[command(flatten)]
    pub global: GlobalArgs,
    /// Return immediately instead of entering monitor mode.
    #[arg(long)]
    pub detach: bool,
    /// Display full information.
    #[arg(long)]
    pub verbose: bool,
    /// The deployment ID or prefix.
    pub deployment: String,
}

#[derive(Debug, Clone, Default, clap::Args)]
pub struct PromoteArgs {
    #[command(flatten)]
    pub global: GlobalArgs,
    /// Task group to promote; may be given multiple times (default: all groups).
    #[arg(long = "group")]
    pub groups: Vec<String>,
    /// Return immediately instead of entering monitor mode.
    #[arg(long)]
    pub detach: bool,
    /// Display full information.
    #[arg(long)]
    pub verbose: bool,
    /// The deployment ID or prefix.
    pub deployment: String,
}

fn length(verbose: bool) -> usize {
    if verbose {
        FULL_ID
    } else {
        SHORT_ID
    }
}

/// Print the eval ID (detached) or monitor it, as Nomad does after a deployment change.
pub async fn follow(
    client: &nomad::api::client::Client,
    u: &DeploymentUpdateResponse,
    detach: bool,
    length: usize,
    expected: Option<monitor::ExpectedEnd>,
) -> anyhow::Result<i32> {
    if u.eval_id.is_empty() {
        return Ok(0);
    }
    if detach {
        output::out(format!("Evaluation ID: {}", u.eval_id))?;
        return Ok(0);
    }
    output::out("")?;
    monitor::monitor_expecting(client, &u.eval_id, length, expected).await
}

pub async fn promote(a: &PromoteArgs) -> anyhow::Result<i32> {
    let client = a.global.client()?;
    let len = length(a.verbose);
    let d = match super::by_prefix(&client, &a.deployment, len).await {
        Ok(d) => d,
        Err(e) => {
            output::err(e.to_string());
            return Ok(1);
        }
    };
    match client.deployment_promote(&d.id, &a.groups).await {
        Ok((u, _)) => follow(&client, &u, a.detach, len, None).await,
        Err(e) => {
            output::err(format!("Error promoting deployment: {e}"));
            Ok(1)
        }
    }
}

pub async fn fail(a: &IdArgs) -> anyhow::Result<i32> {
    let client = a.global.client()?;
    let len = length(a.verbose);
    let d = match super::by_prefix(&client, &a.deployment, len).await {
        Ok(d) => d,
        Err(e) => {
            output::err(e.to_string());
            return Ok(1);
        }
    };
    match client.deployment_fail(&d.id).await {
        Ok((u, _)) => {
            match u.reverted_job_version {
                Some(v) => output::out(format!(
                    "Deployment {:?} failed. Auto-reverted to job version {v}.",
                    d.id
                ))?,
                None => output::out(format!("Deployment {:?} failed", d.id))?,
            }
            follow(&client, &u, a.detach, len, Some(monitor::FAILED_BY_USER)).await
        }
        Err(e) => {
            output::err(format!("Error failing deployment: {e}"));
            Ok(1)
        }
    }
}

pub async fn pause(a: &IdArgs, pause: bool) -> anyhow::Result<i32> {
    let client = a.global.client()?;
    let len = length(a.verbose);
    let d = match super::by_prefix(&client, &a.deployment, len).await {
        Ok(d) => d,
        Err(e) => {
            output::err(e.to_string());
            return Ok(1);
        }
    };
    match client.deployment_pause(&d.id, pause).await {
        Ok(_) if pause => {
            output::out(format!("Deployment {:?} paused", d.id))?;
            Ok(0)
        }
        Ok((u, _)) => {
            output::out(format!("Deployment {:?} resumed", d.id))?;
            follow(&client, &u, a.detach, len, None).await
        }
        Err(e) => {
            let verb = if pause { "pausing" } else { "resuming" };
            output::err(format!("Error {verb} deployment: {e}"));
            Ok(1)
        }
    }
}

pub async fn unblock(a: &IdArgs) -> anyhow::Result<i32> {
    let client = a.global.client()?;
    let len = length(a.verbose);
    let d = match super::by_prefix(&client, &a.deployment, len).await {
        Ok(d) => d,
        Err(e) => {
            output::err(e.to_string());
            return Ok(1);
        }
    };
    match client.deployment_unblock(&d.id).await {
        Ok((u, _)) => {
            output::out(format!("Deployment {:?} unblocked", d.id))?;
            follow(&client, &u, a.detach, len, None).await
        }
        Err(e) => {
            output::err(format!("Error unblocking deployment: {e}"));
            Ok(1)
        }
    }
}
