//! Task resource usage as Nomad reports it (`TaskResourceUsage`, `ResourceUsage`,
//! `MemoryStats`, `CpuStats`), and a sampler for host processes that reads `/proc` the way
//! Nomad's executor does for raw_exec: every process of the task's process group is one
//! entry of `Pids`, the task's usage is their sum.
//!
//! CPU percentages need two samples: the first sample of a process reports 0%, later ones
//! the share of wall time spent since the previous sample (as Nomad's `CpuStats.Percent`).

use std::collections::{BTreeMap, HashMap};
use std::sync::{LazyLock, Mutex};
use std::time::Instant;

use serde::{Deserialize, Serialize};
use serde_json::Value;

pub const MEASURED_RSS: &str = "RSS";
pub const MEASURED_SWAP: &str = "Swap";
pub const MEASURED_USAGE: &str = "Usage";
pub const MEASURED_MAX_USAGE: &str = "Max Usage";
pub const MEASURED_SYSTEM_MODE: &str = "System Mode";
pub const MEASURED_USER_MODE: &str = "User Mode";
pub const MEASURED_PERCENT: &str = "Percent";
pub const MEASURED_TOTAL_TICKS: &str = "Total Ticks";

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct MemoryStats {
    #[serde(rename = "RSS")]
    pub rss: u64,
    pub cache: u64,
    pub swap: u64,
    pub mapped_file: u64,
    pub usage: u64,
    pub max_usage: u64,
    pub kernel_usage: u64,
    pub kernel_max_usage: u64,
    pub measured: Vec<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct CpuStats {
    pub system_mode: f64,
    pub user_mode: f64,
    pub total_ticks: f64,
    pub throttled_periods: u64,
    pub throttled_time: u64,
    pub percent: f64,
    pub measured: Vec<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct ResourceUsage {
    pub memory_stats: MemoryStats,
    pub cpu_stats: CpuStats,
    pub device_stats: Option<Vec<Value>>,
}

impl ResourceUsage {
    /// Adds `other`'s counters to these (Nomad's `ResourceUsage.Add`); `Measured` lists are
    /// taken from whichever side has them.
    pub fn add(&mut self, other: &ResourceUsage) {
        let m = &mut self.memory_stats;
        let o = &other.memory_stats;
        m.rss += o.rss;
        m.cache += o.cache;
        m.swap += o.swap;
        m.mapped_file += o.mapped_file;
        m.usage += o.usage;
        m.max_usage = m.max_usage.max(o.max_usage);
        m.kernel_usage += o.kernel_usage;
        m.kernel_max_usage = m.kernel_max_usage.max(o.kernel_max_usage);
        if m.measured.is_empty() {
            m.measured = o.measured.clone();
        }
        let c = &mut self.cpu_stats;
        let oc = &other.cpu_stats;
        c.system_mode += oc.system_mode;
        c.user_mode += oc.user_mode;
        c.total_ticks += oc.total_ticks;
        c.throttled_periods += oc.throttled_periods;
        c.throttled_time += oc.throttled_time;
        c.percent += oc.percent;
        if c.measured.is_empty() {
            c.measured = oc.measured.clone();
        }
    }
}

/// Nomad's `TaskResourceUsage`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct TaskResourceUsage {
    pub resource_usage: ResourceUsage,
    /// Unix nanoseconds.
    pub timestamp: i64,
    pub pids: Option<BTreeMap<String, ResourceUsage>>,
}

/// Nomad's `AllocResourceUsage`: the sum over the alloc's tasks plus each task's own.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct AllocResourceUsage {
    pub resource_usage: ResourceUsage,
    pub tasks: BTreeMap<String, TaskResourceUsage>,
    pub timestamp: i64,
}

impl AllocResourceUsage {
    pub fn from_tasks(tasks: BTreeMap<String, TaskResourceUsage>, now: i64) -> Self {
        let mut total = ResourceUsage {
            device_stats: Some(Vec::new()),
            ..Default::default()
        };
        for t in tasks.values() {
            total.add(&t.resource_usage);
        }
        AllocResourceUsage {
            resource_usage: total,
            tasks,
            timestamp: now,
        }
    }
}

/// What `/proc/<pid>/stat` and `/proc/<pid>/status` say about one process.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ProcSample {
    pub pid: i32,
    pub pgrp: i32,
    /// Clock ticks since boot at which the process started: with the pid, its identity.
    pub start_time: u64,
    pub utime_ticks: u64,
    pub stime_ticks: u64,
    pub rss_pages: u64,
}

/// Parses `/proc/<pid>/stat`. The command name may hold spaces and parentheses, so fields
/// are counted after the last `)`.
pub fn parse_proc_stat(text: &str) -> Option<ProcSample> {
    let pid = text.split_whitespace().next()?.parse().ok()?;
    let rest = &text[text.rfind(')')? + 1..];
    // rest starts at field 3 (state); fields are 1-based in proc(5).
    let f: Vec<&str> = rest.split_whitespace().collect();
    let field = |n: usize| -> Option<u64> { f.get(n - 3)?.parse().ok() };
    Some(ProcSample {
        pid,
        pgrp: i32::try_from(field(5)?).ok()?,
        utime_ticks: field(14)?,
        stime_ticks: field(15)?,
        start_time: field(22)?,
        rss_pages: field(24)?,
    })
}

/// `VmSwap` of `/proc/<pid>/status`, in bytes.
pub fn parse_vm_swap(status: &str) -> u64 {
    status
        .lines()
        .find_map(|l| l.strip_prefix("VmSwap:"))
        .and_then(|v| v.split_whitespace().next()?.parse::<u64>().ok())
        .map(|kb| kb * 1024)
        .unwrap_or(0)
}

/// Every process whose process group is `pgrp`.
pub fn group_processes(pgrp: i32) -> Vec<ProcSample> {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return Vec::new();
    };
    entries
        .flatten()
        .filter(|e| {
            e.file_name()
                .to_str()
                .is_some_and(|n| n.parse::<i32>().is_ok())
        })
        .filter_map(|e| std::fs::read_to_string(e.path().join("stat")).ok())
        .filter_map(|t| parse_proc_stat(&t))
        .filter(|s| s.pgrp == pgrp)
        .collect()
}

fn clock_ticks() -> f64 {
    // SAFETY: sysconf has no preconditions.
    let t = unsafe { libc::sysconf(libc::_SC_CLK_TCK) };
    if t > 0 {
        t as f64
    } else {
        100.0
    }
}

fn page_size() -> u64 {
    // SAFETY: sysconf has no preconditions.
    let p = unsafe { libc::sysconf(libc::_SC_PAGESIZE) };
    u64::try_from(p).ok().filter(|p| *p > 0).unwrap_or(4096)
}

/// MHz of one core, to turn a CPU percentage into Nomad's `TotalTicks`.
pub(crate) fn core_mhz() -> f64 {
    static MHZ: LazyLock<f64> = LazyLock::new(|| {
        std::fs::read_to_string("/proc/cpuinfo")
            .ok()
            .and_then(|t| {
                t.lines()
                    .find(|l| l.starts_with("cpu MHz"))
                    .and_then(|l| l.split(':').nth(1))
                    .and_then(|v| v.trim().parse::<f64>().ok())
            })
            .unwrap_or(1000.0)
    });
    *MHZ
}

/// The previous CPU sample of each live process, keyed by (pid, start time).
type CpuHistory = HashMap<(i32, u64), (Instant, u64, u64)>;
static HISTORY: LazyLock<Mutex<CpuHistory>> = LazyLock::new(|| Mutex::new(HashMap::new()));

fn cpu_stats(s: &ProcSample, now: Instant, history: &mut CpuHistory) -> CpuStats {
    let key = (s.pid, s.start_time);
    let prev = history.insert(key, (now, s.utime_ticks, s.stime_ticks));
    let (user, system) = match prev {
        Some((at, u, st)) => {
            let wall = now.duration_since(at).as_secs_f64();
            if wall <= 0.0 {
                (0.0, 0.0)
            } else {
                let ticks = clock_ticks();
                let pct = |d: u64| (d as f64 / ticks) / wall * 100.0;
                (
                    pct(s.utime_ticks.saturating_sub(u)),
                    pct(s.stime_ticks.saturating_sub(st)),
                )
            }
        }
        None => (0.0, 0.0),
    };
    let percent = user + system;
    CpuStats {
        system_mode: system,
        user_mode: user,
        total_ticks: percent / 100.0 * core_mhz(),
        throttled_periods: 0,
        throttled_time: 0,
        percent,
        measured: vec![
            MEASURED_SYSTEM_MODE.to_string(),
            MEASURED_USER_MODE.to_string(),
            MEASURED_PERCENT.to_string(),
        ],
    }
}

/// The usage of the process group led by `pgrp`, per pid and summed.
pub fn process_group_usage(pgrp: i32, now_nanos: i64) -> TaskResourceUsage {
    let procs = group_processes(pgrp);
    let now = Instant::now();
    let mut history = HISTORY.lock().unwrap_or_else(|e| e.into_inner());
    let mut pids = BTreeMap::new();
    let mut total = ResourceUsage::default();
    for p in &procs {
        let swap = std::fs::read_to_string(format!("/proc/{}/status", p.pid))
            .map(|s| parse_vm_swap(&s))
            .unwrap_or(0);
        let usage = ResourceUsage {
            memory_stats: MemoryStats {
                rss: p.rss_pages * page_size(),
                swap,
                measured: vec![MEASURED_RSS.to_string(), MEASURED_SWAP.to_string()],
                ..Default::default()
            },
            cpu_stats: cpu_stats(p, now, &mut history),
            device_stats: None,
        };
        total.add(&usage);
        pids.insert(p.pid.to_string(), usage);
    }
    // Forget processes that are gone (of any task: the history is shared).
    let live: std::collections::HashSet<(i32, u64)> =
        procs.iter().map(|p| (p.pid, p.start_time)).collect();
    history.retain(|k, _| {
        live.contains(k) || std::path::Path::new(&format!("/proc/{}", k.0)).exists()
    });
    TaskResourceUsage {
        resource_usage: total,
        timestamp: now_nanos,
        pids: Some(pids),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_proc_stat_with_odd_command_names() {
        let text = "4242 (my (odd) cmd) S 1 4242 4242 0 -1 4194560 100 0 0 0 7 3 0 0 20 0 1 0 555 12345678 321 18446744073709551615";
        let s = parse_proc_stat(text).expect("parses");
        assert_eq!(s.pid, 4242);
        assert_eq!(s.pgrp, 4242);
        assert_eq!((s.utime_ticks, s.stime_ticks), (7, 3));
        assert_eq!(s.start_time, 555);
        assert_eq!(s.rss_pages, 321);
        assert_eq!(parse_proc_stat("garbage"), None);
    }

    #[test]
    fn parses_vm_swap_in_bytes() {
        assert_eq!(
            parse_vm_swap("Name:\tsh\nVmSwap:\t      12 kB\n"),
            12 * 1024
        );
        assert_eq!(parse_vm_swap("Name:\tsh\n"), 0);
    }

    #[test]
    fn own_process_group_has_memory_and_encodes_like_nomad() {
        let me = nix::unistd::getpgrp().as_raw();
        let usage = process_group_usage(me, 7);
        assert!(usage.resource_usage.memory_stats.rss > 0);
        let pids = usage.pids.as_ref().expect("pids");
        assert!(pids.contains_key(&std::process::id().to_string()) || !pids.is_empty());
        let v = serde_json::to_value(&usage).expect("encodes");
        assert_eq!(v["Timestamp"], 7);
        assert_eq!(
            v["ResourceUsage"]["MemoryStats"]["Measured"],
            serde_json::json!(["RSS", "Swap"])
        );
        assert!(v["ResourceUsage"]["CpuStats"]["Percent"].is_number());
        assert!(v["ResourceUsage"]["DeviceStats"].is_null());
    }

    #[test]
    fn alloc_usage_sums_tasks() {
        let mut t = TaskResourceUsage::default();
        t.resource_usage.memory_stats.rss = 10;
        t.resource_usage.cpu_stats.percent = 1.5;
        let tasks = BTreeMap::from([("a".to_string(), t.clone()), ("b".to_string(), t)]);
        let a = AllocResourceUsage::from_tasks(tasks, 1);
        assert_eq!(a.resource_usage.memory_stats.rss, 20);
        assert_eq!(a.resource_usage.cpu_stats.percent, 3.0);
        let v = serde_json::to_value(&a).expect("encodes");
        assert_eq!(v["ResourceUsage"]["DeviceStats"], serde_json::json!([]));
    }
}
