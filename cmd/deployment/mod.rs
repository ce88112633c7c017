//! `nomad deployment ...`: interact with deployments.

pub mod actions;
pub mod monitor;
pub mod status;

use anyhow::{anyhow, Context as _};
use clap::Subcommand;
use nomad::api::client::{Client, QueryOptions};
use nomad::api::Deployment;

use crate::meta::sanitize_uuid_prefix;

#[derive(Debug, Subcommand)]
pub enum DeploymentCommand {
    /// List all deployments
    List(status::ListArgs),
    /// Display the status of a deployment
    Status(status::StatusArgs),
    /// Promote canaries in a deployment
    Promote(actions::PromoteArgs),
    /// Manually fail a deployment
    Fail(actions::IdArgs),
    /// Pause a deployment
    Pause(actions::IdArgs),
    /// Resume a paused deployment
    Resume(actions::IdArgs),
    /// Unblock a blocked deployment
    Unblock(actions::IdArgs),
}

pub async fn run(cmd: &DeploymentCommand) -> anyhow::Result<i32> {
    match cmd {
        DeploymentCommand::List(a) => status::list(a).await,
        DeploymentCommand::Status(a) => status::status(a).await,
        DeploymentCommand::Promote(a) => actions::promote(a).await,
        DeploymentCommand::Fail(a) => actions::fail(a).await,
        DeploymentCommand::Pause(a) => actions::pause(a, true).await,
        DeploymentCommand::Resume(a) => actions::pause(a, false).await,
        DeploymentCommand::Unblock(a) => actions::unblock(a).await,
    }
}

/// One deployment by ID prefix; an ambiguous prefix lists the matches as Nomad does.
pub async fn by_prefix(client: &Client, prefix: &str, length: usize) -> anyhow::Result<Deployment> {
    let q = QueryOptions::prefix(sanitize_uuid_prefix(prefix));
    let (mut list, _) = client
        .deployments(Some(&q))
        .await
        .context("Error retrieving deployment")?;
    if let Some(exact) = list.iter().position(|d| d.id == prefix) {
        return Ok(list.swap_remove(exact));
    }
    match list.len() {
        0 => Err(anyhow!(
            "No deployment(s) with prefix or id {prefix:?} found"
        )),
        1 => Ok(list.remove(0)),
        _ => Err(anyhow!(
            "Prefix matched multiple deployments\n\n{}",
            status::format_deployments(&list, length)
        )),
    }
}
