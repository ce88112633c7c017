//! `nomad alloc checks [-verbose] [-json] <alloc>`: the latest Nomad service check results
//! of an allocation, as the node running it reports them.

use anyhow::anyhow;
use chrono::{Local, TimeZone};
use nomad::api::client::QueryOptions;
use nomad::api::AllocCheckStatus;

use super::target;
use crate::meta::GlobalArgs;
use crate::output;

#[derive(Debug, Clone, Default, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub global: GlobalArgs,
    /// Show full information.
    #[arg(long)]
    pub verbose: bool,
    /// Output the latest health check status information in a JSON format.
    #[arg(long)]
    pub json: bool,
    /// Format and display the output using a Go template.
    #[arg(short = 't', value_name = "TEMPLATE")]
    pub template: Option<String>,
    /// `<allocation>`
    pub alloc: Vec<String>,
}

pub async fn run(args: &Args, g: &GlobalArgs) -> anyhow::Result<i32> {
    let id = match args.alloc.as_slice() {
        [id] => id,
        [] => {
            output::err("An allocation ID is required");
            output::err("For additional help try 'nomad alloc checks -help'");
            return Ok(1);
        }
        _ => {
            output::err("This command takes one argument (allocation ID)");
            output::err("For additional help try 'nomad alloc checks -help'");
            return Ok(1);
        }
    };
    let client = g.client()?;
    let alloc = target::resolve(&client, id, args.verbose).await?;
    let results = client
        .allocation_checks(&alloc.id, Some(&QueryOptions::namespace(&alloc.namespace)))
        .await
        .map_err(|e| anyhow!("Error querying allocation checks: {e}"))?;
    let checks: std::collections::BTreeMap<String, AllocCheckStatus> = results
        .into_iter()
        .map(|(k, v)| (k, AllocCheckStatus::from(v)))
        .collect();
    if output::wants_formatted(args.json, args.template.as_deref()) {
        return Ok(output::print_formatted(
            args.json,
            args.template.as_deref(),
            &checks,
        )?);
    }
    let mut text = format!("Status of {} Nomad Service Checks\n", checks.len());
    for c in checks.values() {
        text.push('\n');
        text.push_str(&format_check(c));
        text.push('\n');
    }
    output::out(text)?;
    Ok(0)
}

/// One check as Nomad's `formatList` of its fields.
fn format_check(c: &AllocCheckStatus) -> String {
    let task = if c.task.is_empty() {
        "(group)"
    } else {
        &c.task
    };
    let mut rows = vec![
        format!("ID|=|{}", c.id),
        format!("Name|=|{}", c.check),
        format!("Group|=|{}", c.group),
        format!("Task|=|{task}"),
        format!("Service|=|{}", c.service),
        format!("Status|=|{}", c.status),
    ];
    if c.status_code > 0 {
        rows.push(format!("StatusCode|=|{}", c.status_code));
    }
    let when = Local
        .timestamp_opt(c.timestamp, 0)
        .single()
        .map(output::format_time)
        .unwrap_or_default();
    rows.push(format!("Mode|=|{}", c.mode));
    rows.push(format!("Timestamp|=|{when}"));
    rows.push(format!("Output|=|{}", c.output));
    output::format_list(&rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn group_check_lists_fields_in_nomads_order() {
        let c = AllocCheckStatus {
            id: "e8d4".into(),
            check: "alive".into(),
            group: "web.web[0]".into(),
            mode: "healthiness".into(),
            output: "nomad: http ok".into(),
            service: "web".into(),
            task: String::new(),
            status: "success".into(),
            status_code: 200,
            timestamp: 0,
        };
        let text = format_check(&c);
        let keys: Vec<&str> = text
            .lines()
            .map(|l| l.split_whitespace().next().unwrap_or(""))
            .collect();
        assert_eq!(
            keys,
            [
                "ID",
                "Name",
                "Group",
                "Task",
                "Service",
                "Status",
                "StatusCode",
                "Mode",
                "Timestamp",
                "Output"
            ]
        );
        assert!(text.contains("Task        =  (group)"), "{text}");
        assert!(text.contains("StatusCode  =  200"), "{text}");
    }
}
