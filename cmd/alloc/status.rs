//! `nomad alloc status [options] <allocation>`: one allocation, its tasks and their events.

use anyhow::Context as _;
use nomad::api::client::{self, QueryOptions};
use nomad::api::{Allocation, TaskEvent, TaskState};
use serde_json::Value;

use crate::meta::{self, AllocLookup, GlobalArgs};
use crate::monitor::format_alloc_metrics_with_scores;
use crate::output::{
    self, format_kv, format_list, format_list_with_spaces, ibytes, limit, pretty_time_diff,
    BYTES_PER_MB, FULL_ID, SHORT_ID,
};

#[derive(Debug, Clone, Default, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub global: GlobalArgs,
    /// Display short output. Shows only the most recent task event.
    #[arg(long)]
    pub short: bool,
    /// Show full information.
    #[arg(long)]
    pub verbose: bool,
    /// Output the allocation in its JSON format.
    #[arg(long)]
    pub json: bool,
    /// Format and display the output using a Go template.
    #[arg(short = 't', value_name = "TEMPLATE")]
    pub template: Option<String>,
    /// Display detailed resource usage statistics.
    #[arg(long)]
    pub stats: bool,
    /// The allocation ID or prefix; with -json and none, all allocations are listed.
    pub alloc: Option<String>,
}

pub async fn run(args: &Args, g: &GlobalArgs) -> anyhow::Result<i32> {
    let client = g.client()?;
    let Some(id) = args.alloc.as_deref() else {
        if args.json {
            let (allocs, _) = client
                .allocations(None)
                .await
                .context("Error querying allocations")?;
            output::out(output::json_pretty(&allocs)?)?;
            return Ok(0);
        }
        output::err("This command takes one of the following argument conditions:");
        output::err(" * A single <allocation>");
        output::err(" * No arguments, with output format specified");
        output::err("For additional help try 'nomad alloc status -help'");
        return Ok(1);
    };
    let length = if args.verbose { FULL_ID } else { SHORT_ID };
    let stub = match meta::alloc_by_prefix(&client, id).await? {
        AllocLookup::One(s) => s,
        AllocLookup::Many(stubs) => {
            let table = meta::alloc_stub_table(&stubs, args.verbose, length, &[]);
            output::out(format!("Prefix matched multiple allocations\n\n{table}"))?;
            return Ok(0);
        }
    };
    let (alloc, _) = client
        .allocation(&stub.id, Some(&QueryOptions::namespace(&stub.namespace)))
        .await
        .context("Error querying allocation")?;
    if output::wants_formatted(args.json, args.template.as_deref()) {
        return Ok(output::print_formatted(
            args.json,
            args.template.as_deref(),
            &alloc,
        )?);
    }

    if args.short {
        output::out(short_info(&alloc))?;
        output_short_tasks(&alloc)?;
    } else {
        output::out(basic_info(&client, &alloc, length, args.verbose).await)?;
        if let Some(addrs) = network_info(&alloc) {
            output::out("")?;
            output::out(addrs)?;
        }
        let stats = match client.allocation_stats(&alloc.id).await {
            Ok(s) => Some(s),
            Err(e) if client::is_missing_endpoint(&e) => None,
            Err(e) => {
                output::out("")?;
                output::err(format!("Couldn't retrieve stats: {e}"));
                None
            }
        };
        output_tasks(&alloc, stats.as_ref(), args.stats)?;
    }
    if args.verbose {
        output::out("\nPlacement Metrics")?;
        let metrics = alloc.metrics.clone().unwrap_or_default();
        output::out(format_alloc_metrics_with_scores(&metrics, "  "))?;
    }
    meta::print_ui_hint(
        &client,
        &format!("/allocations/{}", alloc.id),
        "View allocation details",
    )
    .await;
    Ok(0)
}

fn short_info(a: &Allocation) -> String {
    let now = output::now_nanos();
    let mut basic = vec![
        format!("ID|{}", a.id),
        format!("Name|{}", a.name),
        format!("Created|{}", pretty_time_diff(a.create_time, now)),
        format!("Modified|{}", pretty_time_diff(a.modify_time, now)),
    ];
    if let Some(d) = meta::max_run_deadline(a.job.as_deref(), &a.task_group, a.create_time) {
        basic.push(format!("Max Run Deadline|{}", pretty_time_diff(d, now)));
    }
    format_kv(&basic)
}

async fn basic_info(
    client: &nomad::api::client::Client,
    a: &Allocation,
    length: usize,
    verbose: bool,
) -> String {
    let now = output::now_nanos();
    let when = |t: i64| {
        if verbose {
            output::format_unix_nano(t)
        } else {
            pretty_time_diff(t, now)
        }
    };
    let mut basic = vec![
        format!("ID|{}", a.id),
        format!("Eval ID|{}", limit(&a.eval_id, length)),
        format!("Name|{}", a.name),
        format!("Node ID|{}", limit(&a.node_id, length)),
        format!("Node Name|{}", a.node_name),
        format!("Job ID|{}", a.job_id),
        format!("Job Version|{}", a.job_version()),
        format!("Client Status|{}", a.client_status),
        format!("Client Description|{}", a.client_description),
        format!("Desired Status|{}", a.desired_status),
        format!("Desired Description|{}", a.desired_description),
        format!("Created|{}", when(a.create_time)),
        format!("Modified|{}", when(a.modify_time)),
    ];
    if let Some(d) = meta::max_run_deadline(a.job.as_deref(), &a.task_group, a.create_time) {
        basic.push(format!("Max Run Deadline|{}", when(d)));
    }
    if !a.deployment_id.is_empty() {
        let status = a.deployment_status.as_ref();
        let health = match status
            .and_then(|s| s.get("Healthy"))
            .and_then(Value::as_bool)
        {
            Some(true) => "healthy",
            Some(false) => "unhealthy",
            None => "unset",
        };
        basic.push(format!("Deployment ID|{}", limit(&a.deployment_id, length)));
        basic.push(format!("Deployment Health|{health}"));
        if status
            .and_then(|s| s.get("Canary"))
            .and_then(Value::as_bool)
            == Some(true)
        {
            basic.push("Canary|true".to_string());
        }
    }
    if !a.next_allocation.is_empty() {
        basic.push(format!(
            "Replacement Alloc ID|{}",
            limit(&a.next_allocation, length)
        ));
    }
    if !a.followup_eval_id.is_empty() {
        if let Ok((e, _)) = client.evaluation(&a.followup_eval_id, None).await {
            if e.wait_until != 0 && now <= e.wait_until {
                basic.push(format!(
                    "Reschedule Eligibility|{}",
                    pretty_time_diff(e.wait_until, now)
                ));
            }
        }
    }
    if verbose {
        let m = a.metrics.clone().unwrap_or_default();
        basic.push(format!("Evaluated Nodes|{}", m.nodes_evaluated));
        basic.push(format!("Filtered Nodes|{}", m.nodes_filtered));
        basic.push(format!("Exhausted Nodes|{}", m.nodes_exhausted));
        basic.push(format!(
            "Allocation Time|{}",
            output::go_duration(m.allocation_time)
        ));
        basic.push(format!("Failures|{}", m.coalesced_failures));
    }
    format_kv(&basic)
}

/// "Allocation Addresses" when the alloc's first shared network has ports.
fn network_info(a: &Allocation) -> Option<String> {
    let shared = &a.allocated_resources.as_ref()?.shared;
    let nw = shared.networks.first()?;
    if nw.dynamic_ports.is_empty() && nw.reserved_ports.is_empty() {
        return None;
    }
    let port = |label: &str, value: i32, to: i32, ip: &str| {
        let mut s = format!("{label}|yes|{ip}:{value}");
        if to > 0 {
            s.push_str(&format!(" -> {to}"));
        }
        s
    };
    let mut rows = vec!["Label|Dynamic|Address".to_string()];
    if !shared.ports.is_empty() {
        for p in &shared.ports {
            rows.push(port(&format!("*{}", p.label), p.value, p.to, &p.host_ip));
        }
    } else {
        for p in nw.dynamic_ports.iter().chain(&nw.reserved_ports) {
            rows.push(port(&p.label, p.value, p.to, &nw.ip));
        }
    }
    let mode = if nw.mode.is_empty() {
        String::new()
    } else {
        format!(" (mode = {:?})", nw.mode)
    };
    Some(format!(
        "Allocation Addresses{mode}:\n{}",
        format_list(&rows)
    ))
}

/// Task names in Nomad's display order: by name, then tasks with a lifecycle hook before
/// main tasks, non-sidecars before sidecars.
fn sorted_tasks(a: &Allocation) -> Vec<(String, Option<(String, bool)>)> {
    let tg = a
        .job
        .as_ref()
        .and_then(|j| j.lookup_task_group(&a.task_group));
    let lifecycle = |name: &str| -> Option<(String, bool)> {
        let lc = tg?
            .tasks
            .iter()
            .find(|t| t.name == name)?
            .lifecycle
            .as_ref()?;
        let hook = lc.get("Hook").and_then(Value::as_str).unwrap_or("");
        if hook.is_empty() {
            return None;
        }
        let sidecar = lc.get("Sidecar").and_then(Value::as_bool).unwrap_or(false);
        Some((hook.to_string(), sidecar))
    };
    let mut names: Vec<(String, Option<(String, bool)>)> = a
        .task_states
        .iter()
        .flatten()
        .map(|(n, _)| (n.clone(), lifecycle(n)))
        .collect();
    names.sort_by(|x, y| x.0.cmp(&y.0));
    // Stable: lifecycle tasks first, and among them non-sidecars first.
    names.sort_by_key(|(_, lc)| match lc {
        Some((_, false)) => 0,
        Some((_, true)) => 1,
        None => 2,
    });
    names
}

fn output_tasks(a: &Allocation, stats: Option<&Value>, detailed: bool) -> anyhow::Result<()> {
    let states = a.task_states.clone().unwrap_or_default();
    for (task, lc) in sorted_tasks(a) {
        let Some(state) = states.get(&task) else {
            continue;
        };
        let indicator = match &lc {
            Some((hook, true)) => format!(" ({hook} sidecar)"),
            Some((hook, false)) => format!(" ({hook})"),
            None => String::new(),
        };
        output::out(format!("\nTask {task:?}{indicator} is {:?}", state.state))?;
        output_task_resources(a, &task, stats)?;
        if let Some(usage) = stats.filter(|_| detailed).and_then(|s| {
            s.pointer(&format!(
                "/Tasks/{}/ResourceUsage",
                task.replace('~', "~0").replace('/', "~1")
            ))
        }) {
            output::out("")?;
            output::out(super::status_stats::verbose_resource_usage(usage))?;
        }
        output::out("")?;
        output_task_status(state)?;
    }
    Ok(())
}

fn output_task_resources(a: &Allocation, task: &str, stats: Option<&Value>) -> anyhow::Result<()> {
    let Some(ar) = a.allocated_resources.as_ref() else {
        return Ok(());
    };
    let Some(r) = ar.tasks.get(task) else {
        return Ok(());
    };
    output::out("Task Resources:")?;
    let mut addrs = Vec::new();
    for nw in r.networks.iter().flatten() {
        for p in nw.dynamic_ports.iter().chain(&nw.reserved_ports) {
            addrs.push(format!("{}: {}:{}\n", p.label, nw.ip, p.value));
        }
    }
    let cores = r.cpu.reserved_cores.as_ref().map_or(0, Vec::len);
    let cpu_header = if cores > 0 {
        format!("CPU ({cores} cores)")
    } else {
        "CPU".to_string()
    };
    let mut cpu = r.cpu.cpu_shares.to_string();
    let mut mem = ibytes(r.memory.memory_mb.max(0) as u64 * BYTES_PER_MB);
    let mem_max = if r.memory.memory_max_mb != 0 && r.memory.memory_max_mb != r.memory.memory_mb {
        format!(
            "Max: {}",
            ibytes(r.memory.memory_max_mb.max(0) as u64 * BYTES_PER_MB)
        )
    } else {
        String::new()
    };
    if let Some(usage) = stats
        .and_then(|s| s.get("Tasks"))
        .and_then(|t| t.get(task))
        .and_then(|t| t.get("ResourceUsage"))
    {
        if let Some(ticks) = usage
            .pointer("/CpuStats/TotalTicks")
            .and_then(Value::as_f64)
        {
            cpu = format!("{}/{cpu}", ticks.floor());
        }
        if let Some(ms) = usage.get("MemoryStats") {
            let mut used = ms.get("RSS").and_then(Value::as_u64).unwrap_or(0);
            let measured_rss = ms
                .get("Measured")
                .and_then(Value::as_array)
                .is_some_and(|m| m.iter().any(|v| v == "RSS"));
            if used == 0 && !measured_rss {
                used = ms.get("Usage").and_then(Value::as_u64).unwrap_or(0);
            }
            mem = format!("{}/{mem}", ibytes(used));
        }
    }
    let first = addrs.first().cloned().unwrap_or_default();
    let second = addrs.get(1).cloned().unwrap_or_default();
    let mut rows = vec![
        format!("{cpu_header}|Memory|Disk|Addresses"),
        format!(
            "{cpu} MHz|{mem}|{}|{first}",
            ibytes(ar.shared.disk_mb.max(0) as u64 * BYTES_PER_MB)
        ),
    ];
    if !mem_max.is_empty() || !second.is_empty() {
        rows.push(format!("|{mem_max}||{second}"));
    }
    for extra in addrs.iter().skip(2) {
        rows.push(format!("|||{extra}"));
    }
    output::out(format_list_with_spaces(&rows))?;
    Ok(())
}

fn output_task_status(state: &TaskState) -> anyhow::Result<()> {
    let basic = [
        format!(
            "Started At|{}",
            output::format_task_time(state.started_at.as_deref())
        ),
        format!(
            "Finished At|{}",
            output::format_task_time(state.finished_at.as_deref())
        ),
        format!("Total Restarts|{}", state.restarts),
        format!(
            "Last Restart|{}",
            output::format_task_time(state.last_restart.as_deref())
        ),
    ];
    output::out("Task Events:")?;
    output::out(format_kv(&basic))?;
    output::out("")?;
    output::out("Recent Events:")?;
    let mut rows = vec!["Time|Type|Description".to_string()];
    for e in state.events.iter().rev() {
        let msg = if e.display_message.is_empty() {
            display_message(e)
        } else {
            e.display_message.clone()
        };
        rows.push(format!(
            "{}|{}|{msg}",
            output::format_unix_nano(e.time),
            e.r#type
        ));
    }
    output::out(format_list(&rows))?;
    Ok(())
}

/// `alloc status -short`: one line per task with its last event.
fn output_short_tasks(a: &Allocation) -> anyhow::Result<()> {
    let mut rows = vec!["Name|State|Last Event|Time|Lifecycle".to_string()];
    let states = a.task_states.clone().unwrap_or_default();
    for (task, lc) in sorted_tasks(a) {
        let Some(state) = states.get(&task) else {
            continue;
        };
        let (last, time) = state
            .events
            .last()
            .map(|e| (e.r#type.clone(), output::format_unix_nano(e.time)))
            .unwrap_or_default();
        let lifecycle = match lc {
            Some((hook, true)) => format!("{hook} sidecar"),
            Some((hook, false)) => hook,
            None => "main".to_string(),
        };
        rows.push(format!("{task}|{}|{last}|{time}|{lifecycle}", state.state));
    }
    output::out("\nTasks")?;
    output::out(format_list(&rows))?;
    Ok(())
}

/// Nomad's `buildDisplayMessage`, for events from clients that leave DisplayMessage empty.
pub fn display_message(e: &TaskEvent) -> String {
    let or = |s: &str, default: &str| {
        if s.is_empty() {
            default.to_string()
        } else {
            s.to_string()
        }
    };
    match e.r#type.as_str() {
        "Task Setup" => e.message.clone(),
        "Started" => "Task started by client".into(),
        "Received" => "Task received by client".into(),
        "Failed Validation" => or(&e.validation_error, "Validation of task failed"),
        "Setup Failure" => or(&e.setup_error, "Task setup failed"),
        "Driver Failure" => or(&e.driver_error, "Failed to start task"),
        "Downloading Artifacts" => "Client is downloading artifacts".into(),
        "Failed Artifact Download" => or(&e.download_error, "Failed to download artifacts"),
        "Killing" => {
            if !e.kill_reason.is_empty() {
                format!("Killing task: {}", e.kill_reason)
            } else if e.kill_timeout != 0 {
                format!(
                    "Sent interrupt. Waiting {} before force killing",
                    output::go_duration(e.kill_timeout)
                )
            } else {
                "Sent interrupt".into()
            }
        }
        "Killed" => or(&e.kill_error, "Task successfully killed"),
        "Terminated" => {
            let mut parts = vec![format!("Exit Code: {}", e.exit_code)];
            if e.signal != 0 {
                parts.push(format!("Signal: {}", e.signal));
            }
            if !e.message.is_empty() {
                parts.push(format!("Exit Message: {:?}", e.message));
            }
            parts.join(", ")
        }
        "Restarting" => {
            let delay = format!("Task restarting in {}", output::go_duration(e.start_delay));
            if !e.restart_reason.is_empty() && e.restart_reason != "Restart within policy" {
                format!("{} - {delay}", e.restart_reason)
            } else {
                delay
            }
        }
        "Not Restarting" => or(&e.restart_reason, "Task exceeded restart policy"),
        "Sibling Task Failed" => {
            if e.failed_sibling.is_empty() {
                "Task's sibling failed".into()
            } else {
                format!("Task's sibling {:?} failed", e.failed_sibling)
            }
        }
        "Signaling" => match (e.task_signal.is_empty(), e.task_signal_reason.is_empty()) {
            (true, true) => "Task being sent a signal".into(),
            (true, false) => e.task_signal_reason.clone(),
            (false, true) => format!("Task being sent signal {}", e.task_signal),
            (false, false) => format!(
                "Task being sent signal {}: {}",
                e.task_signal, e.task_signal_reason
            ),
        },
        "Restart Signaled" => or(&e.restart_reason, "Task signaled to restart"),
        "Driver" => e.driver_message.clone(),
        "Leader Task Dead" => "Leader Task in Group dead".into(),
        "Reconnected" => "Client reconnected".into(),
        _ => e.message.clone(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use nomad::api::{
        AllocatedPortMapping, AllocatedResources, AllocatedSharedResources, AllocatedTaskResources,
        NetworkResource, Port,
    };

    fn sample_alloc() -> Allocation {
        let mut tasks = std::collections::BTreeMap::new();
        let mut tr = AllocatedTaskResources::default();
        tr.cpu.cpu_shares = 100;
        tr.memory.memory_mb = 64;
        tasks.insert("server".to_string(), tr);
        Allocation {
            allocated_resources: Some(AllocatedResources {
                shared: AllocatedSharedResources {
                    disk_mb: 300,
                    networks: vec![NetworkResource {
                        ip: "127.0.0.1".into(),
                        dynamic_ports: vec![Port {
                            label: "http".into(),
                            value: 26071,
                            ..Default::default()
                        }],
                        ..Default::default()
                    }],
                    ports: vec![AllocatedPortMapping {
                        host_ip: "127.0.0.1".into(),
                        label: "http".into(),
                        value: 26071,
                        to: 0,
                    }],
                },
                tasks,
                ..Default::default()
            }),
            ..Default::default()
        }
    }

    #[test]
    fn addresses_match_nomad_alloc_status_sample() {
        assert_eq!(
            network_info(&sample_alloc()).unwrap(),
            "Allocation Addresses:\nLabel  Dynamic  Address\n*http  yes      127.0.0.1:26071"
        );
    }

    #[test]
    fn event_messages() {
        let mut e = TaskEvent::new("Terminated", 0);
        e.exit_code = 1;
        e.message = "boom".into();
        assert_eq!(display_message(&e), "Exit Code: 1, Exit Message: \"boom\"");
        let mut e = TaskEvent::new("Restarting", 0);
        e.start_delay = 15_000_000_000;
        assert_eq!(display_message(&e), "Task restarting in 15s");
        assert_eq!(
            display_message(&TaskEvent::new("Started", 0)),
            "Task started by client"
        );
        let mut e = TaskEvent::new("Task Setup", 0);
        e.message = "Building Task Directory".into();
        assert_eq!(display_message(&e), "Building Task Directory");
    }
}
