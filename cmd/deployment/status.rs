//! `nomad deployment list` and `nomad deployment status`, in Nomad's formats.

use nomad::api::{Deployment, DeploymentState};
use std::collections::BTreeMap;

use crate::meta::GlobalArgs;
use crate::output::{self, format_kv, format_list, limit, FULL_ID, SHORT_ID};

#[derive(Debug, Clone, Default, clap::Args)]
pub struct ListArgs {
    #[command(flatten)]
    pub global: GlobalArgs,
    /// Output the deployments in their JSON format.
    #[arg(long)]
    pub json: bool,
    /// Format and display the output using a Go template.
    #[arg(short = 't', value_name = "TEMPLATE")]
    pub template: Option<String>,
    /// Display full information.
    #[arg(long)]
    pub verbose: bool,
    /// Only show results matching this filter expression (go-bexpr, e.g. `Status == "ready"`).
    #[arg(long, value_name = "EXPR")]
    pub filter: Option<String>,
}

#[derive(Debug, Clone, Default, clap::Args)]
pub struct StatusArgs {
    #[command(flatten)]
    pub global: GlobalArgs,
    /// Output the deployment in its JSON format.
    #[arg(long)]
    pub json: bool,
    /// Format and display the output using a Go template.
    #[arg(short = 't', value_name = "TEMPLATE")]
    pub template: Option<String>,
    /// Display full information.
    #[arg(long)]
    pub verbose: bool,
    /// The deployment ID or prefix.
    pub deployment: String,
}

pub async fn list(args: &ListArgs) -> anyhow::Result<i32> {
    let client = args.global.client()?;
    let q = output::filter_query(args.filter.as_deref());
    let (mut list, _) = match client.deployments(Some(&q)).await {
        Ok(v) => v,
        Err(e) => {
            output::err(format!("Error retrieving deployments: {e}"));
            return Ok(1);
        }
    };
    if output::wants_formatted(args.json, args.template.as_deref()) {
        return Ok(output::print_formatted(
            args.json,
            args.template.as_deref(),
            &list,
        )?);
    }
    list.sort_by_key(|d| std::cmp::Reverse(d.create_index));
    let length = if args.verbose { FULL_ID } else { SHORT_ID };
    output::out(format_deployments(&list, length))?;
    Ok(0)
}

pub async fn status(args: &StatusArgs) -> anyhow::Result<i32> {
    let client = args.global.client()?;
    let length = if args.verbose { FULL_ID } else { SHORT_ID };
    let d = match super::by_prefix(&client, &args.deployment, length).await {
        Ok(d) => d,
        Err(e) => {
            output::err(e.to_string());
            return Ok(1);
        }
    };
    if output::wants_formatted(args.json, args.template.as_deref()) {
        return Ok(output::print_formatted(
            args.json,
            args.template.as_deref(),
            &d,
        )?);
    }
    output::out(format_deployment(&d, length))?;
    Ok(0)
}

/// Nomad's `formatDeployments`.
pub fn format_deployments(list: &[Deployment], length: usize) -> String {
    if list.is_empty() {
        return "No deployments found".to_string();
    }
    let mut rows = vec!["ID|Job ID|Job Version|Status|Description".to_string()];
    for d in list {
        rows.push(format!(
            "{}|{}|{}|{}|{}",
            limit(&d.id, length),
            d.job_id,
            d.job_version,
            d.status,
            d.status_description
        ));
    }
    format_list(&rows)
}

/// Nomad's `formatDeployment`.
pub fn format_deployment(d: &Deployment, length: usize) -> String {
    let mut base = format_kv(&[
        format!("ID|{}", limit(&d.id, length)),
        format!("Job ID|{}", d.job_id),
        format!("Job Version|{}", d.job_version),
        format!("Status|{}", d.status),
        format!("Description|{}", d.status_description),
    ]);
    if d.task_groups.is_empty() {
        return base;
    }
    base.push_str("\n\nDeployed\n");
    base.push_str(&format_groups(&d.task_groups));
    base
}

/// The deployment section of `nomad job status` (Nomad's `JobStatusCommand.formatDeployment`).
pub fn format_job_deployment(d: &Deployment, length: usize) -> String {
    let mut base = format_kv(&[
        format!("ID|{}", limit(&d.id, length)),
        format!("Status|{}", d.status),
        format!("Description|{}", d.status_description),
    ]);
    if !d.task_groups.is_empty() {
        base.push_str("\n\nDeployed\n");
        base.push_str(&format_groups(&d.task_groups));
    }
    base
}

/// Nomad's `formatDeploymentGroups`: optional columns appear when any group uses them.
pub fn format_groups(tgs: &BTreeMap<String, DeploymentState>) -> String {
    let autorevert = tgs.values().any(|s| s.auto_revert);
    let canaries = tgs.values().any(|s| s.desired_canaries > 0);
    let deadline = tgs.values().any(|s| s.progress_deadline != 0);
    let mut head = "Task Group|".to_string();
    if autorevert {
        head.push_str("Auto Revert|");
    }
    if canaries {
        head.push_str("Promoted|");
    }
    head.push_str("Desired|");
    if canaries {
        head.push_str("Canaries|");
    }
    head.push_str("Placed|Healthy|Unhealthy");
    if deadline {
        head.push_str("|Progress Deadline");
    }
    let mut rows = vec![head];
    for (name, s) in tgs {
        let mut row = format!("{name}|");
        if autorevert {
            row.push_str(&format!("{}|", s.auto_revert));
        }
        if canaries {
            if s.desired_canaries > 0 {
                row.push_str(&format!("{}|", s.promoted));
            } else {
                row.push_str("N/A|");
            }
        }
        row.push_str(&format!("{}|", s.desired_total));
        if canaries {
            row.push_str(&format!("{}|", s.desired_canaries));
        }
        row.push_str(&format!(
            "{}|{}|{}",
            s.placed_allocs, s.healthy_allocs, s.unhealthy_allocs
        ));
        if deadline {
            if s.require_progress_by.is_empty() || s.require_progress_by == nomad::api::ZERO_TIME {
                row.push_str("|N/A");
            } else {
                row.push_str(&format!(
                    "|{}",
                    output::format_rfc3339(&s.require_progress_by)
                ));
            }
        }
        rows.push(row);
    }
    format_list(&rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn groups_table_shows_canary_columns_only_when_used() {
        let mut tgs = BTreeMap::new();
        tgs.insert(
            "web".to_string(),
            DeploymentState {
                desired_total: 3,
                placed_allocs: 1,
                ..Default::default()
            },
        );
        let plain = format_groups(&tgs);
        assert!(
            plain.starts_with("Task Group  Desired  Placed  Healthy  Unhealthy"),
            "{plain}"
        );
        if let Some(s) = tgs.get_mut("web") {
            s.desired_canaries = 1;
        }
        let canary = format_groups(&tgs);
        assert!(canary.contains("Promoted  Desired  Canaries"), "{canary}");
        assert!(canary.contains("false"), "{canary}");
    }
}
