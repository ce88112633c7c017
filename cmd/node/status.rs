//! `nomad node status [options] [node]`: list client nodes, or show one node.

use anyhow::{anyhow, Context as _};
use nomad::api::client::{self, Client};
use nomad::api::{Allocation, Node, NodeListStub};
use serde_json::Value;

use crate::meta::{self, GlobalArgs};
use crate::output::{
    self, format_kv, format_list, ibytes, limit, pretty_time_diff, BYTES_PER_MB, FULL_ID, SHORT_ID,
};

#[derive(Debug, Clone, Default, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub global: GlobalArgs,
    /// Query the status of the local node.
    #[arg(long = "self")]
    pub self_: bool,
    /// Display short output. Used only when a single node is being queried.
    #[arg(long)]
    pub short: bool,
    /// Display full information.
    #[arg(long)]
    pub verbose: bool,
    /// Display a count of running allocations for each node.
    #[arg(long)]
    pub allocs: bool,
    /// Only print the node IDs.
    #[arg(long)]
    pub quiet: bool,
    /// Output the node in its JSON format.
    #[arg(long)]
    pub json: bool,
    /// Format and display the output using a Go template.
    #[arg(short = 't', value_name = "TEMPLATE")]
    pub template: Option<String>,
    /// Display each node's operating system name.
    #[arg(long)]
    pub os: bool,
    /// Display detailed resource usage statistics of the node.
    #[arg(long)]
    pub stats: bool,
    /// How many nodes to show per page.
    #[arg(long = "per-page", value_name = "N", default_value_t = 0)]
    pub per_page: u32,
    /// Where to start pagination.
    #[arg(long = "page-token", value_name = "TOKEN")]
    pub page_token: Option<String>,
    /// Only show results matching this filter expression (go-bexpr, e.g. `Status == "ready"`).
    #[arg(long, value_name = "EXPR")]
    pub filter: Option<String>,
    /// The node ID or prefix.
    pub node: Option<String>,
}

pub async fn run(args: &Args, g: &GlobalArgs) -> anyhow::Result<i32> {
    let length = if args.verbose { FULL_ID } else { SHORT_ID };
    let client = g.client()?;

    let node_id = match (&args.node, args.self_) {
        (Some(id), false) => id.clone(),
        (_, true) => local_node_id(&client).await?,
        (None, false) => return list(&client, args, length).await,
    };

    let nodes = meta::nodes_by_prefix(&client, &node_id).await?;
    if nodes.len() > 1 {
        return Err(anyhow!(
            "Prefix matched multiple nodes\n\n{}",
            stub_list(&nodes, args.verbose)
        ));
    }
    let (node, _) = client
        .node(&nodes[0].id, None)
        .await
        .context("Error querying node info")?;
    if output::wants_formatted(args.json, args.template.as_deref()) {
        return Ok(output::print_formatted(
            args.json,
            args.template.as_deref(),
            &node,
        )?);
    }
    format_node(&client, &node, args, length).await
}

async fn list(client: &Client, args: &Args, length: usize) -> anyhow::Result<i32> {
    if args.quiet && (args.verbose || args.json) {
        return Err(anyhow!("-quiet cannot be used with -verbose or -json"));
    }
    let mut q = output::filter_query(args.filter.as_deref());
    if args.per_page > 0 {
        q.params
            .push(("per_page".into(), args.per_page.to_string()));
    }
    if let Some(t) = &args.page_token {
        q.params.push(("next_token".into(), t.clone()));
    }
    if args.os {
        q.params.push(("os".into(), "true".into()));
    }
    let (nodes, qmeta) = client
        .nodes(Some(&q))
        .await
        .context("Error querying node status")?;
    if output::wants_formatted(args.json, args.template.as_deref()) {
        return Ok(output::print_formatted(
            args.json,
            args.template.as_deref(),
            &nodes,
        )?);
    }
    if nodes.is_empty() {
        output::out("No nodes registered")?;
        return Ok(0);
    }
    if args.quiet {
        let ids: Vec<String> = nodes.iter().map(|n| n.id.clone()).collect();
        output::out(format_list(&ids))?;
        return Ok(0);
    }
    let mut header = "ID|Node Pool|DC|Name|Class|".to_string();
    if args.os {
        header.push_str("OS|");
    }
    if args.verbose {
        header.push_str("Address|Version|");
    }
    header.push_str("Drain|Eligibility|Status");
    if args.allocs {
        header.push_str("|Running Allocs");
    }
    let mut rows = vec![header];
    for n in &nodes {
        let mut row = format!(
            "{}|{}|{}|{}|{}",
            limit(&n.id, length),
            n.node_pool,
            n.datacenter,
            n.name,
            n.node_class
        );
        if args.os {
            let os = n.attributes.as_ref().and_then(|a| a.get("os.name"));
            row.push_str(&format!("|{}", os.map_or("", String::as_str)));
        }
        if args.verbose {
            row.push_str(&format!("|{}|{}", n.address, n.version));
        }
        row.push_str(&format!(
            "|{}|{}|{}",
            n.drain, n.scheduling_eligibility, n.status
        ));
        if args.allocs {
            let (allocs, _) = client
                .node_allocations(&n.id, None)
                .await
                .context("Error querying node allocations")?;
            let running = allocs
                .iter()
                .filter(|a| a.client_status == "running")
                .count();
            row.push_str(&format!("|{running}"));
        }
        rows.push(row);
    }
    output::out(format_list(&rows))?;
    output::pagination_hint(&qmeta.next_token)?;
    meta::print_ui_hint(client, "/clients", "View and manage Nomad clients").await;
    Ok(0)
}

/// The node ID of the agent we talk to (`getLocalNodeID`).
pub(crate) async fn local_node_id(client: &Client) -> anyhow::Result<String> {
    let me = client
        .agent_self()
        .await
        .context("Error querying agent info")?;
    let Some(stats) = me.get("stats").and_then(|s| s.get("client")) else {
        return Err(anyhow!("Nomad not running in client mode"));
    };
    stats
        .get("node_id")
        .and_then(Value::as_str)
        .map(str::to_string)
        .ok_or_else(|| anyhow!("Failed to determine node ID"))
}

pub(crate) fn stub_list(nodes: &[NodeListStub], verbose: bool) -> String {
    let length = if verbose { FULL_ID } else { SHORT_ID };
    let mut rows = vec!["ID|DC|Name|Class|Drain|Eligibility|Status".to_string()];
    for n in nodes {
        rows.push(format!(
            "{}|{}|{}|{}|{}|{}|{}",
            limit(&n.id, length),
            n.datacenter,
            n.name,
            n.node_class,
            n.drain,
            n.scheduling_eligibility,
            n.status
        ));
    }
    format_list(&rows)
}

fn object_keys(v: &Option<Value>) -> Vec<String> {
    let mut keys: Vec<String> = v
        .as_ref()
        .and_then(Value::as_object)
        .map(|o| o.keys().cloned().collect())
        .unwrap_or_default();
    keys.sort();
    keys
}

fn csi_volume_names(allocs: &[&Allocation]) -> Vec<String> {
    let mut names = Vec::new();
    for a in allocs {
        let tg = a
            .job
            .as_ref()
            .and_then(|j| j.lookup_task_group(&a.task_group));
        let vols = tg
            .and_then(|tg| tg.volumes.as_ref())
            .and_then(Value::as_object);
        for v in vols.into_iter().flat_map(|o| o.values()) {
            if v.get("Type").and_then(Value::as_str) == Some("csi") {
                if let Some(n) = v.get("Name").and_then(Value::as_str) {
                    names.push(n.to_string());
                }
            }
        }
    }
    names.sort();
    names
}

async fn format_node(
    client: &Client,
    node: &Node,
    args: &Args,
    length: usize,
) -> anyhow::Result<i32> {
    let (allocs, _) = client
        .node_allocations(&node.id, None)
        .await
        .context("Error querying node allocations")?;
    let running: Vec<&Allocation> = allocs
        .iter()
        .filter(|a| a.client_status == "running")
        .collect();

    let mut basic = vec![
        format!("ID|{}", node.id),
        format!("Name|{}", node.name),
        format!("Node Pool|{}", node.node_pool),
        format!("Class|{}", node.node_class),
        format!("DC|{}", node.datacenter),
        format!("Drain|{}", node.drain),
        format!("Eligibility|{}", node.scheduling_eligibility),
        format!("Status|{}", node.status),
        format!(
            "CSI Controllers|{}",
            object_keys(&node.csi_controller_plugins).join(",")
        ),
        format!(
            "CSI Drivers|{}",
            object_keys(&node.csi_node_plugins).join(",")
        ),
    ];
    let host_volumes = object_keys(&node.host_volumes).join(",");
    let host_networks = object_keys(&node.host_networks).join(",");
    let csi_volumes = csi_volume_names(&running).join(",");

    if args.short {
        basic.push(format!("Host Volumes|{host_volumes}"));
        basic.push(format!("Host Networks|{host_networks}"));
        basic.push(format!("CSI Volumes|{csi_volumes}"));
        basic.push(format!("Drivers|{}", detected_drivers(node).join(",")));
        output::out(format_kv(&basic))?;
        output_allocs(node, &allocs, args.verbose, length)?;
        return Ok(0);
    }

    let mut stats_endpoint_missing = false;
    let host_stats = match client.node_stats(&node.id).await {
        Ok(s) => Some(s),
        // An agent without the stats endpoint simply has nothing to show.
        Err(e) if client::is_missing_endpoint(&e) => {
            stats_endpoint_missing = true;
            None
        }
        Err(e) => {
            output::out("")?;
            output::err(format!("error fetching node stats: {e}"));
            None
        }
    };
    if let Some(uptime) = host_stats
        .as_ref()
        .and_then(|s| s.get("Uptime"))
        .and_then(Value::as_i64)
    {
        basic.push(format!(
            "Uptime|{}",
            output::go_duration(uptime.saturating_mul(1_000_000_000))
        ));
    }
    if !args.verbose {
        basic.push(format!("Host Volumes|{host_volumes}"));
        basic.push(format!("Host Networks|{host_networks}"));
        basic.push(format!("CSI Volumes|{csi_volumes}"));
        basic.push(format!("Driver Status|{}", driver_status(node)));
    }
    output::out(format_kv(&basic))?;

    if args.verbose {
        output_host_volumes(node)?;
        output_drivers(node)?;
    }
    output_events(node, args.verbose)?;

    let (cpu_total, mem_total, disk_total) = node_totals(node);
    let (mut cpu, mut mem, mut disk) = (0i64, 0i64, 0i64);
    for a in &running {
        let r = a.comparable_resources();
        cpu += r.cpu;
        mem += r.memory_mb;
        disk += r.disk_mb;
    }
    output::out("\nAllocated Resources")?;
    output::out(format_list(&[
        "CPU|Memory|Disk|Alloc Count".to_string(),
        format!(
            "{cpu}/{cpu_total} MHz|{}/{}|{}/{}|{}",
            mb(mem),
            mb(mem_total),
            mb(disk),
            mb(disk_total),
            running.len()
        ),
    ]))?;

    if let Some(row) = actual_usage(client, &running).await {
        output::out("\nAllocation Resource Utilization")?;
        output::out(format_list(&[
            "CPU|Memory".to_string(),
            format!(
                "{}/{cpu_total} MHz|{}/{}",
                row.0,
                ibytes(row.1),
                mb(mem_total)
            ),
        ]))?;
    }

    match host_stats.as_ref() {
        Some(stats) => {
            output::out("\nHost Resource Utilization")?;
            output::out(format_list(&host_usage(stats, node)))?;
        }
        None if stats_endpoint_missing => {}
        None => {
            output::out("")?;
            output::err("error fetching node stats: actual resource usage not present");
        }
    }
    if let (Some(stats), true) = (host_stats.as_ref(), args.stats) {
        output::out(detailed_stats(stats))?;
    }

    output_allocs(node, &allocs, args.verbose, length)?;
    meta::print_ui_hint(
        client,
        &format!("/clients/{}", node.id),
        "View client details and metrics",
    )
    .await;
    Ok(0)
}

/// `-stats`: Nomad's CPU, Memory and Disk Stats sections from the host stats.
fn detailed_stats(stats: &Value) -> String {
    let pct =
        |v: &Value, k: &str| format!("{}%", output::humanize_float(v[k].as_f64().unwrap_or(0.0)));
    let bytes = |v: &Value, k: &str| ibytes(v[k].as_u64().unwrap_or(0));
    let text = |v: &Value, k: &str| v[k].as_str().unwrap_or("").to_string();
    let empty = Vec::new();
    let cpus: Vec<String> = stats["CPU"]
        .as_array()
        .unwrap_or(&empty)
        .iter()
        .map(|c| {
            format_kv(&[
                format!("CPU|{}", text(c, "CPU")),
                format!("User|{}", pct(c, "User")),
                format!("System|{}", pct(c, "System")),
                format!("Idle|{}", pct(c, "Idle")),
            ])
        })
        .collect();
    let m = &stats["Memory"];
    let memory = format_kv(&[
        format!("Total|{}", bytes(m, "Total")),
        format!("Available|{}", bytes(m, "Available")),
        format!("Used|{}", bytes(m, "Used")),
        format!("Free|{}", bytes(m, "Free")),
    ]);
    let disks: Vec<String> = stats["DiskStats"]
        .as_array()
        .unwrap_or(&empty)
        .iter()
        .map(|d| {
            format_kv(&[
                format!("Device|{}", text(d, "Device")),
                format!("MountPoint|{}", text(d, "Mountpoint")),
                format!("Size|{}", bytes(d, "Size")),
                format!("Used|{}", bytes(d, "Used")),
                format!("Available|{}", bytes(d, "Available")),
                format!("Used Percent|{}", pct(d, "UsedPercent")),
                format!("Inodes Percent|{}", pct(d, "InodesUsedPercent")),
            ])
        })
        .collect();
    format!(
        "\nCPU Stats\n{}\n\nMemory Stats\n{memory}\n\nDisk Stats\n{}",
        cpus.join("\n\n"),
        disks.join("\n\n")
    )
}

fn mb(n: i64) -> String {
    ibytes((n.max(0) as u64) * BYTES_PER_MB)
}

/// What the node offers for scheduling: fingerprinted minus reserved.
fn node_totals(node: &Node) -> (i64, i64, i64) {
    let r = &node.node_resources;
    let res = &node.reserved_resources;
    (
        r.cpu.cpu_shares - res.cpu.cpu_shares,
        r.memory.memory_mb - res.memory.memory_mb,
        r.disk.disk_mb - res.disk.disk_mb,
    )
}

fn detected_drivers(node: &Node) -> Vec<String> {
    let mut drivers: Vec<String> = node
        .attributes
        .iter()
        .filter_map(|(k, v)| {
            let name = k.strip_prefix("driver.")?;
            (!name.contains('.') && v == "1").then(|| name.to_string())
        })
        .collect();
    drivers.sort();
    drivers
}

fn driver_status(node: &Node) -> String {
    let mut drivers: Vec<String> = node
        .drivers
        .iter()
        .filter(|(_, d)| d.detected)
        .map(|(name, d)| {
            if d.healthy {
                name.clone()
            } else {
                format!("{name} (unhealthy)")
            }
        })
        .collect();
    drivers.sort();
    drivers.join(",")
}

fn output_host_volumes(node: &Node) -> anyhow::Result<()> {
    let Some(vols) = node.host_volumes.as_ref().and_then(Value::as_object) else {
        return Ok(());
    };
    if vols.is_empty() {
        return Ok(());
    }
    let mut rows = vec!["Name|ReadOnly|Source".to_string()];
    let mut names: Vec<&String> = vols.keys().collect();
    names.sort();
    for name in names {
        let v = &vols[name];
        rows.push(format!(
            "{name}|{}|{}",
            v.get("ReadOnly").and_then(Value::as_bool).unwrap_or(false),
            v.get("Path").and_then(Value::as_str).unwrap_or("")
        ));
    }
    output::out("\nHost Volumes")?;
    output::out(format_list(&rows))?;
    Ok(())
}

fn output_drivers(node: &Node) -> anyhow::Result<()> {
    let mut rows = vec!["Driver|Detected|Healthy|Message|Time".to_string()];
    for (name, d) in &node.drivers {
        rows.push(format!(
            "{name}|{}|{}|{}|{}",
            d.detected,
            d.healthy,
            d.health_description,
            output::format_rfc3339(&d.update_time)
        ));
    }
    output::out("\nDrivers")?;
    output::out(format_list(&rows))?;
    Ok(())
}

fn output_events(node: &Node, verbose: bool) -> anyhow::Result<()> {
    let mut rows = vec![if verbose {
        "Time|Subsystem|Message|Details"
    } else {
        "Time|Subsystem|Message"
    }
    .to_string()];
    for e in node.events.iter().rev() {
        let details = e.details.clone().unwrap_or_default();
        let subsystem = match details.get("driver") {
            Some(d) if !d.is_empty() => format!("Driver: {d}"),
            _ => e.subsystem.clone(),
        };
        let time = output::format_rfc3339(&e.timestamp);
        if verbose {
            let d: Vec<String> = details.iter().map(|(k, v)| format!("{k}: {v}")).collect();
            rows.push(format!("{time}|{subsystem}|{}|{}", e.message, d.join(", ")));
        } else {
            rows.push(format!("{time}|{subsystem}|{}", e.message));
        }
    }
    output::out("\nNode Events")?;
    output::out(format_list(&rows))?;
    Ok(())
}

/// Summed live usage of running allocs (CPU MHz, memory bytes); None if any stats call fails,
/// which hides the section as Nomad does.
async fn actual_usage(client: &Client, running: &[&Allocation]) -> Option<(f64, u64)> {
    let (mut cpu, mut mem) = (0f64, 0u64);
    for a in running {
        let stats = client.allocation_stats(&a.id).await.ok()?;
        let usage = stats.get("ResourceUsage")?;
        cpu += usage
            .pointer("/CpuStats/TotalTicks")
            .and_then(Value::as_f64)
            .unwrap_or(0.0);
        let m = usage.get("MemoryStats");
        let usage_b = m
            .and_then(|m| m.get("Usage"))
            .and_then(Value::as_u64)
            .unwrap_or(0);
        let rss = m
            .and_then(|m| m.get("RSS"))
            .and_then(Value::as_u64)
            .unwrap_or(0);
        mem += if usage_b > 0 { usage_b } else { rss };
    }
    Some((cpu.floor(), mem))
}

fn host_usage(stats: &Value, node: &Node) -> Vec<String> {
    let device = node
        .attributes
        .get("unique.storage.volume")
        .cloned()
        .unwrap_or_default();
    let disk = stats
        .get("DiskStats")
        .and_then(Value::as_array)
        .and_then(|d| {
            d.iter()
                .find(|d| d.get("Device").and_then(Value::as_str) == Some(device.as_str()))
        });
    let u = |v: Option<&Value>| v.and_then(Value::as_u64).unwrap_or(0);
    let cpu = stats
        .get("CPUTicksConsumed")
        .and_then(Value::as_f64)
        .unwrap_or(0.0)
        .floor();
    let mem_used = ibytes(u(stats.pointer("/Memory/Used")));
    let mem_total = ibytes(u(stats.pointer("/Memory/Total")));
    let shares = node.node_resources.cpu.cpu_shares;
    let row = match disk {
        Some(d) => format!(
            "{cpu}/{shares} MHz|{mem_used}/{mem_total}|{}/{}",
            ibytes(u(d.get("Used"))),
            ibytes(u(d.get("Size")))
        ),
        None => format!("{cpu}/{shares} MHz|{mem_used}/{mem_total}|({device})"),
    };
    vec!["CPU|Memory|Disk".to_string(), row]
}

fn output_allocs(
    node: &Node,
    allocs: &[Allocation],
    verbose: bool,
    length: usize,
) -> anyhow::Result<()> {
    output::out("\nAllocations")?;
    output::out(alloc_table(allocs, verbose, length))?;
    if verbose {
        let attrs: Vec<String> = node
            .attributes
            .iter()
            .map(|(k, v)| format!("{k}|{v}"))
            .collect();
        output::out("\nAttributes")?;
        output::out(format_kv(&attrs))?;
        let meta: Vec<String> = node
            .meta
            .iter()
            .filter(|(k, _)| !k.is_empty())
            .map(|(k, v)| format!("{k}|{v}"))
            .collect();
        output::out("\nMeta")?;
        output::out(format_kv(&meta))?;
    }
    Ok(())
}

/// Nomad's `formatAllocList` (full allocations, as the node endpoint returns them).
pub fn alloc_table(allocs: &[Allocation], verbose: bool, length: usize) -> String {
    if allocs.is_empty() {
        return "No allocations placed".to_string();
    }
    let now = output::now_nanos();
    let deadlines: Vec<String> = allocs
        .iter()
        .map(
            |a| match meta::max_run_deadline(a.job.as_deref(), &a.task_group, a.create_time) {
                Some(d) if verbose => output::format_unix_nano(d),
                Some(d) => pretty_time_diff(d, now),
                None => String::new(),
            },
        )
        .collect();
    let show_deadline = deadlines.iter().any(|d| !d.is_empty());
    let mut header = if verbose {
        "ID|Eval ID|Node ID|Task Group|Version|Desired|Status|Created|Modified"
    } else {
        "ID|Node ID|Task Group|Version|Desired|Status|Created|Modified"
    }
    .to_string();
    if show_deadline {
        header.push_str("|Max Run Deadline");
    }
    let mut rows = vec![header];
    for (a, deadline) in allocs.iter().zip(&deadlines) {
        let mut row = if verbose {
            format!(
                "{}|{}|{}|{}|{}|{}|{}|{}|{}",
                limit(&a.id, length),
                limit(&a.eval_id, length),
                limit(&a.node_id, length),
                a.task_group,
                a.job_version(),
                a.desired_status,
                a.client_status,
                output::format_unix_nano(a.create_time),
                output::format_unix_nano(a.modify_time)
            )
        } else {
            format!(
                "{}|{}|{}|{}|{}|{}|{}|{}",
                limit(&a.id, length),
                limit(&a.node_id, length),
                a.task_group,
                a.job_version(),
                a.desired_status,
                a.client_status,
                pretty_time_diff(a.create_time, now),
                pretty_time_diff(a.modify_time, now)
            )
        };
        if show_deadline {
            row.push('|');
            row.push_str(deadline);
        }
        rows.push(row);
    }
    format_list(&rows)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drivers_table_and_status_from_node() {
        let mut node = Node::default();
        for (name, detected, healthy) in [
            ("docker", true, true),
            ("qemu", false, false),
            ("exec", true, false),
        ] {
            node.drivers.insert(
                name.into(),
                nomad::api::DriverInfo {
                    detected,
                    healthy,
                    ..Default::default()
                },
            );
            node.attributes.insert(
                format!("driver.{name}"),
                if detected { "1" } else { "0" }.into(),
            );
        }
        node.attributes
            .insert("driver.docker.version".into(), "1".into());
        assert_eq!(driver_status(&node), "docker,exec (unhealthy)");
        assert_eq!(detected_drivers(&node), ["docker", "exec"]);
    }

    #[test]
    fn host_usage_falls_back_to_device_name_without_disk_stats() {
        let mut node = Node::default();
        node.node_resources.cpu.cpu_shares = 4890;
        node.attributes
            .insert("unique.storage.volume".into(), "/dev/vda1".into());
        let stats = serde_json::json!({
            "CPUTicksConsumed": 1581.7,
            "Memory": {"Used": 222298112u64, "Total": 25275990016u64},
        });
        assert_eq!(
            host_usage(&stats, &node)[1],
            "1581/4890 MHz|212 MiB/24 GiB|(/dev/vda1)"
        );
    }
}
