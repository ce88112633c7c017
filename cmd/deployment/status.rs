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
    /// Enter monitor mode to poll for updates to the deployment status.
    #[arg(long)]
    pub monitor: bool,
    /// How long to wait before polling an update, used in conjunction with monitor mode.
    #[arg(long, value_name = "DURATION", default_value = "2s")]
    pub wait: String,
    /// The deployment ID or prefix; without one, all deployments are listed.
    pub deployment: Option<String>,
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
    if args.monitor && output::wants_formatted(args.json, args.template.as_deref()) {
        output::err("The monitor flag cannot be used with the '-json' or '-t' flags");
        return Ok(1);
    }
    let wait = match nomad::api::duration::parse_go_duration(&args.wait) {
        Ok(ns) if ns > 0 => std::time::Duration::from_nanos(ns as u64),
        Ok(_) => std::time::Duration::from_secs(2),
        Err(e) => {
            output::err(format!("invalid value {:?} for flag -wait: {e}", args.wait));
            return Ok(1);
        }
    };
    let client = args.global.client()?;
    let length = if args.verbose { FULL_ID } else { SHORT_ID };
    let Some(prefix) = args.deployment.as_deref() else {
        return match client.deployments(None).await {
            Ok((mut list, _)) => {
                list.sort_by_key(|d| std::cmp::Reverse(d.create_index));
                output::out(format_deployments(&list, length))?;
                Ok(0)
            }
            Err(e) => {
                output::err(format!("Error retrieving deployments: {e}"));
                Ok(1)
            }
        };
    };
    let d = match super::by_prefix(&client, prefix, length).await {
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
    if args.monitor {
        // The index the deployment is at now: the monitor's first query waits for a change.
        let index = match client.deployment(&d.id, None).await {
            Ok((_, meta)) => meta.last_index,
            Err(e) => {
                output::err(format!("Error retrieving deployment: {e}"));
                0
            }
        };
        output::out(format!(
            "{}: Monitoring deployment {:?}",
            output::format_time(chrono::Local::now()),
            output::limit(&d.id, length)
        ))?;
        let monitor = super::monitor::Monitor {
            client: &client,
            length,
            verbose: args.verbose,
            wait,
            prefix: "",
        };
        // Nomad exits 0 whatever the deployment's outcome; the status is only printed.
        monitor.run(&d.id, index).await?;
        return Ok(0);
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
