//! CPU and NUMA fingerprint: the core topology Nomad's client scans from sysfs (nodes, their
//! distances, each core's socket, grade and speed), narrowed to the cores the agent may use,
//! with the attributes derived from it (`cpu.*`, `numa.node.count`, `numa.node<N>.cores`).
//!
//! ```text
//!  sysfs scan ──> broken? (no nodes, no speed) ──yes──> generic: one node, cpuinfo MHz
//!                      │ no                                   │
//!                      v                                      v
//!  usable cores = reservable_cores, else the agent's cpuset, minus reserved { cores }
//!                      │
//!                      v
//!  overrides: cpu_total_compute, reserved { cpu }
//! ```
//!
//! Every read tolerates a missing file: containers and VMs often hide cpufreq or the node
//! directory, and then the generic scan takes over, as Nomad's does.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use crate::api::{CpuCore, CpuTopology};
use crate::drivers::cgroups::{cpuset_list, parse_cpuset_list};

/// Where the scan reads from; tests point it at a fake tree.
#[derive(Debug, Clone)]
pub struct CpuSources {
    /// `/sys/devices/system`.
    pub sys_root: PathBuf,
    /// `/proc/cpuinfo`.
    pub cpuinfo: PathBuf,
    /// The effective cpuset of the agent's cgroup, when there is one.
    pub agent_cpuset: Option<PathBuf>,
}

impl CpuSources {
    pub fn host() -> Self {
        let agent_cpuset = if Path::new("/sys/fs/cgroup/cgroup.controllers").exists() {
            PathBuf::from("/sys/fs/cgroup/nomad.slice/cpuset.cpus.effective")
        } else {
            PathBuf::from("/sys/fs/cgroup/cpuset/nomad/cpuset.effective_cpus")
        };
        CpuSources {
            sys_root: PathBuf::from("/sys/devices/system"),
            cpuinfo: PathBuf::from("/proc/cpuinfo"),
            agent_cpuset: Some(agent_cpuset),
        }
    }
}

/// The parts of the client config that shape the topology.
#[derive(Debug, Clone, Default)]
pub struct CpuConfig {
    /// `reserved { cpu }` in MHz.
    pub reserved_mhz: u64,
    /// `cpu_total_compute`: overrides the detected total when non-zero.
    pub total_compute_mhz: u64,
    /// `reservable_cores`: replaces the agent's cpuset as the set of usable cores.
    pub reservable_cores: Option<Vec<u32>>,
    /// `reserved { cores }`: withheld from scheduling.
    pub reserved_cores: Vec<u32>,
}

/// The most core ids one range in a core list may name; more is a typo, not a machine.
const MAX_LIST_CORES: u32 = 1 << 16;

/// A core list as the agent config writes it ("0-3,6"), strictly: unlike a cpuset file
/// from the kernel, a config typo is an error.
pub fn parse_core_list(text: &str) -> Result<Vec<u32>, String> {
    let mut out = Vec::new();
    for part in text.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let id = |s: &str| {
            s.trim()
                .parse::<u32>()
                .map_err(|_| format!("invalid core id {s:?} in {text:?}"))
        };
        let (lo, hi) = match part.split_once('-') {
            Some((a, b)) => (id(a)?, id(b)?),
            None => (id(part)?, id(part)?),
        };
        if lo > hi || hi - lo >= MAX_LIST_CORES {
            return Err(format!("invalid core range {part:?} in {text:?}"));
        }
        out.extend(lo..=hi);
    }
    out.sort_unstable();
    out.dedup();
    Ok(out)
}

/// What the CPU fingerprint reports.
#[derive(Debug, Clone, PartialEq)]
pub struct CpuFingerprint {
    pub topology: CpuTopology,
    pub model: String,
    pub attributes: BTreeMap<String, String>,
}

impl CpuFingerprint {
    pub fn total_compute(&self) -> u64 {
        total_compute(&self.topology)
    }

    /// Cores the scheduler may hand out (not disabled).
    pub fn usable_cores(&self) -> Vec<u32> {
        usable_cores(&self.topology)
    }
}

fn read(path: &Path) -> Option<String> {
    std::fs::read_to_string(path).ok()
}

fn read_u64(path: &Path) -> Option<u64> {
    read(path)?.trim().parse().ok()
}

/// The first CPU's model name and MHz from /proc/cpuinfo, and how many processors it lists.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct CpuInfo {
    pub cores: u32,
    pub mhz: u64,
    pub model: String,
}

pub(crate) fn parse_cpuinfo(text: &str) -> CpuInfo {
    let mut info = CpuInfo::default();
    for line in text.lines() {
        let Some((k, v)) = line.split_once(':') else {
            continue;
        };
        let (k, v) = (k.trim(), v.trim());
        match k {
            "processor" => info.cores += 1,
            "model name" if info.model.is_empty() => info.model = v.to_string(),
            "cpu MHz" if info.mhz == 0 => {
                info.mhz = v.parse::<f64>().map(|f| f as u64).unwrap_or(0);
            }
            _ => {}
        }
    }
    info
}

fn total_compute(top: &CpuTopology) -> u64 {
    if top.override_total_compute > 0 {
        return top.override_total_compute;
    }
    top.cores.iter().map(CpuCore::mhz).sum()
}

fn usable_compute(top: &CpuTopology) -> u64 {
    let usable: u64 = if top.override_total_compute > 0 {
        top.override_total_compute
    } else {
        top.cores
            .iter()
            .filter(|c| !c.disable)
            .map(CpuCore::mhz)
            .sum()
    };
    usable.saturating_sub(top.override_withold_compute)
}

fn usable_cores(top: &CpuTopology) -> Vec<u32> {
    let mut cores: Vec<u32> = top
        .cores
        .iter()
        .filter(|c| !c.disable)
        .map(|c| c.id)
        .collect();
    cores.sort_unstable();
    cores
}

/// A core's (base, max) MHz from cpufreq: the ACPI nominal frequency under acpi-cpufreq,
/// else intel_pstate's base_frequency; max is cpuinfo_max_freq. 0 when unknown.
fn core_speeds(sys: &Path, core: u32) -> (u64, u64) {
    let cpu = sys.join(format!("cpu/cpu{core}"));
    let driver = read(&cpu.join("cpufreq/scaling_driver")).unwrap_or_default();
    let base = if driver.trim() == "acpi-cpufreq" {
        read_u64(&cpu.join("acpi_cppc/nominal_freq")).unwrap_or(0)
    } else {
        read_u64(&cpu.join("cpufreq/base_frequency")).unwrap_or(0) / 1000
    };
    let max = read_u64(&cpu.join("cpufreq/cpuinfo_max_freq")).unwrap_or(0) / 1000;
    (base, max)
}

/// The sysfs scan. Cores are indexed by id over the online set, as Nomad's are.
fn scan_sysfs(sys: &Path) -> CpuTopology {
    let mut top = CpuTopology::default();
    let nodes = read(&sys.join("node/online")).map(|s| parse_cpuset_list(&s));
    if let Some(nodes) = &nodes {
        top.nodes = nodes.clone();
        let mut rows = Vec::new();
        for node in nodes {
            let Some(text) = read(&sys.join(format!("node/node{node}/distance"))) else {
                break;
            };
            rows.push(
                text.split_whitespace()
                    .map(|c| c.parse::<u8>().unwrap_or(0))
                    .collect(),
            );
        }
        top.distances = Some(rows);
    }
    let Some(online) = read(&sys.join("cpu/online")).map(|s| parse_cpuset_list(&s)) else {
        return top;
    };
    let mut slots: Vec<Option<CpuCore>> = vec![None; online.len()];
    let mut place = |core: CpuCore| {
        if let Some(slot) = slots.get_mut(core.id as usize) {
            *slot = Some(core);
        }
    };
    match &nodes {
        None => {
            top.nodes = vec![0];
            for &id in &online {
                let (base, max) = core_speeds(sys, id);
                place(CpuCore {
                    id,
                    grade: true,
                    base_speed: base,
                    max_speed: max,
                    ..Default::default()
                });
            }
        }
        Some(nodes) => {
            for &node in nodes {
                let Some(list) = read(&sys.join(format!("node/node{node}/cpulist"))) else {
                    continue;
                };
                for id in parse_cpuset_list(&list) {
                    let topo = sys.join(format!("cpu/cpu{id}/topology"));
                    let socket = read_u64(&topo.join("physical_package_id")).unwrap_or(0);
                    let siblings = read(&topo.join("thread_siblings_list"))
                        .map(|s| parse_cpuset_list(&s).len())
                        .unwrap_or(0);
                    let (base, max) = core_speeds(sys, id);
                    place(CpuCore {
                        id,
                        node_id: node,
                        socket_id: u32::try_from(socket).unwrap_or(0),
                        // A core with hyperthread siblings is a performance core.
                        grade: siblings > 1,
                        base_speed: base,
                        max_speed: max,
                        ..Default::default()
                    });
                }
            }
        }
    }
    // A slot the node lists never filled keeps Go's zero value: core 0 of node 0.
    top.cores = slots.into_iter().map(Option::unwrap_or_default).collect();
    top
}

/// The scan for hosts whose sysfs says too little: one node, every logical CPU at the
/// MHz /proc/cpuinfo gives.
fn scan_generic(top: &mut CpuTopology, info: &CpuInfo) {
    let count = if info.cores > 0 {
        info.cores
    } else {
        std::thread::available_parallelism()
            .map(|n| u32::try_from(n.get()).unwrap_or(1))
            .unwrap_or(1)
    };
    top.nodes = vec![0];
    top.distances = None;
    top.cores = (0..count)
        .map(|id| CpuCore {
            id,
            grade: true,
            base_speed: info.mhz,
            ..Default::default()
        })
        .collect();
}

/// Whether the sysfs scan found too little to schedule on (VMs without cpufreq, containers
/// hiding /sys/devices/system/node), so the generic scan must stand in.
fn broken(top: &CpuTopology) -> bool {
    top.nodes.is_empty()
        || top.distances.as_ref().is_none_or(Vec::is_empty)
        || top.cores.is_empty()
        || top.cores.iter().map(CpuCore::mhz).sum::<u64>() == 0
}

/// Scans the CPUs as Nomad's client does and derives the node attributes.
pub fn fingerprint(src: &CpuSources, cfg: &CpuConfig) -> CpuFingerprint {
    let info = parse_cpuinfo(&read(&src.cpuinfo).unwrap_or_default());
    let mut top = scan_sysfs(&src.sys_root);
    if broken(&top) {
        scan_generic(&mut top, &info);
    }
    // Only cores in `reservable_cores`, else in the agent's own cpuset, are ours to
    // schedule, and never the reserved ones.
    let allowed = match &cfg.reservable_cores {
        Some(cores) => cores.clone(),
        None => src
            .agent_cpuset
            .as_deref()
            .and_then(read)
            .map(|s| parse_cpuset_list(&s))
            .unwrap_or_default(),
    };
    for core in &mut top.cores {
        core.disable |= (!allowed.is_empty() && !allowed.contains(&core.id))
            || cfg.reserved_cores.contains(&core.id);
    }
    top.override_total_compute = cfg.total_compute_mhz;
    top.override_withold_compute = cfg.reserved_mhz;
    let attributes = attributes(&top);
    CpuFingerprint {
        topology: top,
        model: info.model,
        attributes,
    }
}

fn attributes(top: &CpuTopology) -> BTreeMap<String, String> {
    let mut attrs = BTreeMap::new();
    let mut put = |k: String, v: String| {
        attrs.insert(k, v);
    };
    // The speed of the last core of each grade, as Nomad reports it.
    let (mut performance, mut efficiency) = (0, 0);
    for core in &top.cores {
        if core.grade {
            performance = core.mhz();
        } else {
            efficiency = core.mhz();
        }
    }
    let p_cores = top.cores.iter().filter(|c| c.grade).count();
    let e_cores = top.cores.len() - p_cores;
    if efficiency > 0 {
        put("cpu.frequency.efficiency".into(), efficiency.to_string());
        put("cpu.frequency.performance".into(), performance.to_string());
    } else if performance > 0 {
        put("cpu.frequency".into(), performance.to_string());
    }
    if e_cores > 0 {
        put("cpu.numcores.efficiency".into(), e_cores.to_string());
        put("cpu.numcores.performance".into(), p_cores.to_string());
    }
    put("cpu.numcores".into(), top.cores.len().to_string());
    put(
        "cpu.reservablecores".into(),
        usable_cores(top).len().to_string(),
    );
    put("cpu.totalcompute".into(), total_compute(top).to_string());
    put("cpu.usablecompute".into(), usable_compute(top).to_string());
    put("numa.node.count".into(), top.nodes.len().to_string());
    for node in &top.nodes {
        let cores: Vec<u32> = top
            .cores
            .iter()
            .filter(|c| c.node_id == *node)
            .map(|c| c.id)
            .collect();
        put(
            format!("numa.node{node}.cores"),
            cpuset_list(&cores).unwrap_or_default(),
        );
    }
    attrs
}

#[cfg(test)]
#[path = "cpu_tests.rs"]
mod tests;
