//! cgroup v2: one unified directory; controllers are enabled top-down via subtree_control.

use std::path::Path;

use super::{create_dir, keyed_value, shares_to_weight, write_file, CgroupError, CgroupLimits};

const CONTROLLERS: [&str; 4] = ["cpu", "memory", "pids", "cpuset"];

pub(super) fn create(
    mount: &Path,
    parent: &str,
    dir: &Path,
    limits: &CgroupLimits,
) -> Result<(), CgroupError> {
    let mut level = mount.to_path_buf();
    enable_controllers(&level)?;
    for part in Path::new(parent).components() {
        level.push(part);
        create_dir(&level)?;
        enable_controllers(&level)?;
    }
    create_dir(dir)?;
    if limits.cpu_shares > 0 {
        let weight = shares_to_weight(limits.cpu_shares);
        write_file(&dir.join("cpu.weight"), &weight.to_string())?;
    }
    if let Some(hard) = limits.memory_hard_bytes {
        write_file(&dir.join("memory.max"), &hard.to_string())?;
        // As Nomad: no swapping beyond the hard limit (absent when swap accounting is off).
        if dir.join("memory.swap.max").exists() {
            write_file(&dir.join("memory.swap.max"), "0")?;
        }
    }
    if let Some(soft) = limits.memory_soft_bytes {
        write_file(&dir.join("memory.low"), &soft.to_string())?;
    }
    if let Some(cpus) = &limits.cpuset_cpus {
        write_file(&dir.join("cpuset.cpus"), cpus)?;
    }
    Ok(())
}

/// Lets the children of `dir` use every controller we need that `dir` itself has.
fn enable_controllers(dir: &Path) -> Result<(), CgroupError> {
    let available = std::fs::read_to_string(dir.join("cgroup.controllers"))
        .map_err(|e| super::read_error(&dir.join("cgroup.controllers"), e))?;
    let enabled = std::fs::read_to_string(dir.join("cgroup.subtree_control")).unwrap_or_default();
    for c in CONTROLLERS {
        let has = |text: &str| text.split_whitespace().any(|w| w == c);
        if has(&available) && !has(&enabled) {
            write_file(&dir.join("cgroup.subtree_control"), &format!("+{c}"))?;
        }
    }
    Ok(())
}

/// `oom_kill N` in memory.events.
pub(super) fn oom_killed(dir: &Path) -> bool {
    std::fs::read_to_string(dir.join("memory.events"))
        .ok()
        .and_then(|t| keyed_value(&t, "oom_kill"))
        .is_some_and(|n| n > 0)
}

/// `cgroup.kill` (Linux 5.14+) kills the whole subtree atomically; false when absent.
pub(super) fn kill(dir: &Path) -> bool {
    let file = dir.join("cgroup.kill");
    file.exists() && write_file(&file, "1").is_ok()
}
