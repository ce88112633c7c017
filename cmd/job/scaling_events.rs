//! `nomad job scaling-events [options] <job>`: the scaling events of a job's groups, newest
//! first.

use anyhow::anyhow;
use nomad::api::{JobScaleStatus, ScalingEvent};

use crate::meta::{self, GlobalArgs};
use crate::output::{self, format_list};

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub global: GlobalArgs,
    /// Also show each event's error flag, message and eval ID.
    #[arg(long)]
    pub verbose: bool,
    /// The job ID or prefix.
    pub job: Vec<String>,
}

pub async fn run(args: &Args, g: &GlobalArgs) -> anyhow::Result<i32> {
    if args.job.len() != 1 {
        return Err(anyhow!(
            "This command takes one argument: <job_id>\nFor additional help try 'nomad job scaling-events -help'"
        ));
    }
    let mut client = g.client()?;
    let (job_id, namespace) = meta::job_id_by_prefix(&client, g, args.job[0].trim()).await?;
    client.set_namespace(&namespace);
    let status = match client.job_scale_status(&job_id).await {
        Ok((s, _)) => s,
        Err(e) => {
            output::err(format!("Error listing scaling events: {e}"));
            return Ok(1);
        }
    };
    match events_table(&status, args.verbose) {
        Some(t) => output::out(t)?,
        None => output::out("No events found")?,
    }
    Ok(0)
}

/// Nomad's table of every group's events, newest first; `None` when there are none.
fn events_table(status: &JobScaleStatus, verbose: bool) -> Option<String> {
    let mut events: Vec<(&str, &ScalingEvent)> = status
        .task_groups
        .iter()
        .flat_map(|(g, s)| s.events.iter().flatten().map(move |e| (g.as_str(), e)))
        .collect();
    if status.task_groups.values().all(|s| s.events.is_none()) {
        return None;
    }
    events.sort_by_key(|(_, e)| std::cmp::Reverse(e.time));
    let mut header = "Task Group|Count|PrevCount".to_string();
    if verbose {
        header.push_str("|Error|Message|Eval ID");
    }
    header.push_str("|Date");
    let mut rows = vec![header];
    for (group, e) in events {
        let count = e.count.map(|c| c.to_string()).unwrap_or_default();
        let mut row = format!("{group}|{count}|{}", e.previous_count);
        if verbose {
            let eval = e.eval_id.clone().unwrap_or_default();
            row.push_str(&format!("|{}|{}|{eval}", e.error, e.message));
        }
        row.push_str(&format!("|{}", output::format_unix_nano(e.time as i64)));
        rows.push(row);
    }
    Some(format_list(&rows))
}

#[cfg(test)]
mod tests {
    use super::*;
    use nomad::api::TaskGroupScaleStatus;

    #[test]
    fn events_are_listed_newest_first_with_verbose_columns() {
        let mut status = JobScaleStatus::default();
        assert_eq!(events_table(&status, false), None);
        let event = |count, prev, time| ScalingEvent {
            count: Some(count),
            previous_count: prev,
            time,
            message: "submitted using the Nomad CLI".into(),
            ..Default::default()
        };
        status.task_groups.insert(
            "web".into(),
            TaskGroupScaleStatus {
                events: Some(vec![event(3, 1, 1_000_000_000), event(5, 3, 2_000_000_000)]),
                ..Default::default()
            },
        );
        let table = events_table(&status, true).expect("events");
        let lines: Vec<&str> = table.lines().collect();
        assert!(
            lines[0].starts_with("Task Group  Count  PrevCount  Error  Message"),
            "{table}"
        );
        assert!(
            lines[1].starts_with("web         5      3          false  submitted"),
            "{table}"
        );
        assert!(lines[2].starts_with("web         3      1"), "{table}");
    }
}
