//! Resource usage of a cgroup, in the units Nomad's `TaskResourceUsage` is built from.

use std::path::Path;

use super::{keyed_value, read_error, Cgroup, CgroupError, Controller};

/// One sample of a cgroup's usage. CPU times are cumulative nanoseconds.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct CgroupStats {
    pub memory_rss_bytes: u64,
    pub memory_cache_bytes: u64,
    pub memory_swap_bytes: u64,
    pub memory_usage_bytes: u64,
    pub memory_max_usage_bytes: u64,
    pub cpu_user_ns: u64,
    pub cpu_system_ns: u64,
    pub cpu_total_ns: u64,
}

fn read(path: &Path) -> Result<String, CgroupError> {
    std::fs::read_to_string(path).map_err(|e| read_error(path, e))
}

fn read_u64(path: &Path) -> Result<u64, CgroupError> {
    Ok(read(path)?.trim().parse().unwrap_or(0))
}

pub(super) fn read_v1(cg: &Cgroup) -> Result<CgroupStats, CgroupError> {
    let mut s = CgroupStats::default();
    if let Some(mem) = cg.controller_dir(Controller::Memory) {
        let stat = read(&mem.join("memory.stat"))?;
        s.memory_rss_bytes = keyed_value(&stat, "rss").unwrap_or(0);
        s.memory_cache_bytes = keyed_value(&stat, "cache").unwrap_or(0);
        s.memory_swap_bytes = keyed_value(&stat, "swap").unwrap_or(0);
        s.memory_usage_bytes = read_u64(&mem.join("memory.usage_in_bytes"))?;
        s.memory_max_usage_bytes = read_u64(&mem.join("memory.max_usage_in_bytes"))?;
    }
    if let Some(acct) = cg.controller_dir(Controller::Cpuacct) {
        // cpuacct.stat is in USER_HZ ticks.
        // SAFETY: sysconf has no memory effects.
        let hz = unsafe { libc::sysconf(libc::_SC_CLK_TCK) }.max(1) as u64;
        let per_tick = 1_000_000_000 / hz;
        let stat = read(&acct.join("cpuacct.stat"))?;
        s.cpu_user_ns = keyed_value(&stat, "user").unwrap_or(0) * per_tick;
        s.cpu_system_ns = keyed_value(&stat, "system").unwrap_or(0) * per_tick;
        s.cpu_total_ns = read_u64(&acct.join("cpuacct.usage"))?;
    }
    Ok(s)
}

pub(super) fn read_v2(dir: &Path) -> Result<CgroupStats, CgroupError> {
    let stat = read(&dir.join("memory.stat"))?;
    let cpu = read(&dir.join("cpu.stat"))?;
    let usage = read_u64(&dir.join("memory.current"))?;
    Ok(CgroupStats {
        memory_rss_bytes: keyed_value(&stat, "anon").unwrap_or(0),
        memory_cache_bytes: keyed_value(&stat, "file").unwrap_or(0),
        memory_swap_bytes: read_u64(&dir.join("memory.swap.current")).unwrap_or(0),
        memory_usage_bytes: usage,
        // memory.peak exists from Linux 5.19.
        memory_max_usage_bytes: read_u64(&dir.join("memory.peak")).unwrap_or(usage),
        cpu_user_ns: keyed_value(&cpu, "user_usec").unwrap_or(0) * 1000,
        cpu_system_ns: keyed_value(&cpu, "system_usec").unwrap_or(0) * 1000,
        cpu_total_ns: keyed_value(&cpu, "usage_usec").unwrap_or(0) * 1000,
    })
}
