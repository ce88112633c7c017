//! The node's own resource usage for `/v1/client/stats` (Nomad's `HostStats`): memory from
//! /proc/meminfo, per-core CPU from /proc/stat (percentages since the previous call; the
//! first call covers the time since boot), disks from statvfs of the mounted block devices
//! and of the alloc dir, uptime from /proc/uptime.

use std::path::Path;
use std::sync::{LazyLock, Mutex};

use serde::Serialize;
use serde_json::Value;

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct MemoryStats {
    pub total: u64,
    pub available: u64,
    pub used: u64,
    pub free: u64,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct CpuStats {
    #[serde(rename = "CPU")]
    pub cpu: String,
    #[serde(rename = "User")]
    pub user: f64,
    #[serde(rename = "System")]
    pub system: f64,
    #[serde(rename = "Idle")]
    pub idle: f64,
    #[serde(rename = "TotalPercent")]
    pub total_percent: f64,
    #[serde(rename = "TotalTicks")]
    pub total_ticks: f64,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct DiskStats {
    pub device: String,
    pub mountpoint: String,
    pub size: u64,
    pub used: u64,
    pub available: u64,
    pub used_percent: f64,
    pub inodes_used_percent: f64,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize)]
pub struct HostStats {
    #[serde(rename = "Memory")]
    pub memory: MemoryStats,
    #[serde(rename = "CPU")]
    pub cpu: Vec<CpuStats>,
    #[serde(rename = "DiskStats")]
    pub disk_stats: Vec<DiskStats>,
    #[serde(rename = "AllocDirStats")]
    pub alloc_dir_stats: DiskStats,
    #[serde(rename = "DeviceStats")]
    pub device_stats: Option<Vec<Value>>,
    #[serde(rename = "Uptime")]
    pub uptime: u64,
    #[serde(rename = "Timestamp")]
    pub timestamp: i64,
    #[serde(rename = "CPUTicksConsumed")]
    pub cpu_ticks_consumed: f64,
}

/// `/proc/meminfo` values are in kB.
pub fn parse_meminfo(text: &str) -> MemoryStats {
    let get = |key: &str| -> u64 {
        text.lines()
            .find_map(|l| l.strip_prefix(key))
            .and_then(|r| r.trim_start_matches(':').split_whitespace().next())
            .and_then(|v| v.parse::<u64>().ok())
            .map(|kb| kb * 1024)
            .unwrap_or(0)
    };
    let total = get("MemTotal");
    let free = get("MemFree");
    let available = get("MemAvailable");
    MemoryStats {
        total,
        available,
        used: total.saturating_sub(available),
        free,
    }
}

/// Per-core jiffies from `/proc/stat`: (name, user+nice, system+irq+softirq, idle+iowait,
/// total).
pub fn parse_proc_stat(text: &str) -> Vec<(String, u64, u64, u64, u64)> {
    text.lines()
        .filter(|l| l.starts_with("cpu") && l.as_bytes().get(3).is_some_and(u8::is_ascii_digit))
        .filter_map(|l| {
            let mut it = l.split_whitespace();
            let name = it.next()?.to_string();
            let v: Vec<u64> = it.filter_map(|x| x.parse().ok()).collect();
            let at = |i: usize| v.get(i).copied().unwrap_or(0);
            let user = at(0) + at(1);
            let system = at(2) + at(5) + at(6);
            let idle = at(3) + at(4);
            let total = user + system + idle + at(7);
            Some((name, user, system, idle, total))
        })
        .collect()
}

type CpuSample = Vec<(String, u64, u64, u64, u64)>;
static LAST_CPU: LazyLock<Mutex<CpuSample>> = LazyLock::new(|| Mutex::new(Vec::new()));

fn cpu_stats(core_mhz: f64) -> Vec<CpuStats> {
    let now = parse_proc_stat(&std::fs::read_to_string("/proc/stat").unwrap_or_default());
    let mut last = LAST_CPU.lock().unwrap_or_else(|e| e.into_inner());
    let out = now
        .iter()
        .map(|(name, u, s, i, t)| {
            let prev = last.iter().find(|p| &p.0 == name);
            let (du, ds, di, dt) = match prev {
                Some((_, pu, ps, pi, pt)) if t > pt => (
                    u.saturating_sub(*pu),
                    s.saturating_sub(*ps),
                    i.saturating_sub(*pi),
                    t - pt,
                ),
                _ => (*u, *s, *i, (*t).max(1)),
            };
            let pct = |d: u64| d as f64 / dt as f64 * 100.0;
            let total = 100.0 - pct(di);
            CpuStats {
                cpu: name.clone(),
                user: pct(du),
                system: pct(ds),
                idle: pct(di),
                total_percent: total,
                total_ticks: total / 100.0 * core_mhz,
            }
        })
        .collect();
    *last = now;
    out
}

fn statvfs(device: &str, mountpoint: &Path) -> Option<DiskStats> {
    let s = nix::sys::statvfs::statvfs(mountpoint).ok()?;
    let frag = s.fragment_size();
    let size = s.blocks() * frag;
    let free = s.blocks_free() * frag;
    let available = s.blocks_available() * frag;
    let used = size.saturating_sub(free);
    let pct = |a: u64, b: u64| {
        if b == 0 {
            0.0
        } else {
            a as f64 / b as f64 * 100.0
        }
    };
    let inodes = s.files();
    Some(DiskStats {
        device: device.to_string(),
        mountpoint: mountpoint.display().to_string(),
        size,
        used,
        available,
        used_percent: pct(used, used + available),
        inodes_used_percent: pct(inodes.saturating_sub(s.files_free()), inodes),
    })
}

fn disk_stats() -> Vec<DiskStats> {
    let mounts = std::fs::read_to_string("/proc/mounts").unwrap_or_default();
    mounts
        .lines()
        .filter_map(|l| {
            let mut it = l.split_whitespace();
            Some((it.next()?, it.next()?))
        })
        .filter(|(dev, _)| dev.starts_with("/dev/"))
        .filter_map(|(dev, mp)| statvfs(dev, Path::new(mp)))
        .collect()
}

fn uptime() -> u64 {
    std::fs::read_to_string("/proc/uptime")
        .ok()
        .and_then(|t| t.split_whitespace().next()?.parse::<f64>().ok())
        .map(|s| s as u64)
        .unwrap_or(0)
}

fn core_mhz() -> f64 {
    std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|t| {
            t.lines()
                .find(|l| l.starts_with("cpu MHz"))
                .and_then(|l| l.split(':').nth(1))
                .and_then(|v| v.trim().parse::<f64>().ok())
        })
        .unwrap_or(1000.0)
}

/// One sample of the host's usage; `alloc_root` is the client's alloc dir.
pub fn collect(alloc_root: &Path, now: i64) -> HostStats {
    let cpu = cpu_stats(core_mhz());
    let mut alloc_dir_stats = statvfs("", alloc_root).unwrap_or_default();
    // Nomad leaves these empty for the alloc dir.
    alloc_dir_stats.mountpoint = String::new();
    HostStats {
        memory: parse_meminfo(&std::fs::read_to_string("/proc/meminfo").unwrap_or_default()),
        cpu_ticks_consumed: cpu.iter().map(|c| c.total_ticks).sum(),
        cpu,
        disk_stats: disk_stats(),
        alloc_dir_stats,
        device_stats: None,
        uptime: uptime(),
        timestamp: now,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_meminfo() {
        let m = parse_meminfo("MemTotal:  1000 kB\nMemFree:  200 kB\nMemAvailable:  600 kB\n");
        assert_eq!(m.total, 1024 * 1000);
        assert_eq!(m.free, 1024 * 200);
        assert_eq!(m.used, 1024 * 400);
    }

    #[test]
    fn parses_per_core_lines_only() {
        let cpus = parse_proc_stat("cpu  1 2 3 4 5 6 7 8\ncpu0 10 0 5 80 5 0 0 0\nintr 1\n");
        assert_eq!(cpus, vec![("cpu0".to_string(), 10, 5, 85, 100)]);
    }

    #[test]
    fn collects_the_shape_nomad_prints() {
        let dir = tempfile::tempdir().expect("tempdir");
        let s = collect(dir.path(), 9);
        assert!(s.memory.total > 0);
        assert!(!s.cpu.is_empty());
        assert!(s.alloc_dir_stats.size > 0);
        let v = serde_json::to_value(&s).expect("encodes");
        for key in [
            "AllocDirStats",
            "CPU",
            "CPUTicksConsumed",
            "DiskStats",
            "Memory",
            "Uptime",
        ] {
            assert!(v.get(key).is_some(), "missing {key}");
        }
        assert_eq!(v["Timestamp"], 9);
        assert!(v["CPU"][0]["TotalPercent"].is_number());
    }
}
