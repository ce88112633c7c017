//! cgroup v1: one directory per controller hierarchy.

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use super::{create_dir, fs_type, keyed_value, write_file, CgroupError, CgroupLimits, Controller};

const CGROUP_SUPER_MAGIC: i64 = 0x0027_e0eb;

/// Controllers a task cgroup must have; cpuset and freezer are used when mounted.
const REQUIRED: [(Controller, &str); 4] = [
    (Controller::Cpu, "cpu"),
    (Controller::Cpuacct, "cpuacct"),
    (Controller::Memory, "memory"),
    (Controller::Pids, "pids"),
];
const OPTIONAL: [(Controller, &str); 2] = [
    (Controller::Cpuset, "cpuset"),
    (Controller::Freezer, "freezer"),
];

pub(super) fn controller_mounted(mount: &Path, name: &str) -> bool {
    fs_type(&mount.join(name)) == Some(CGROUP_SUPER_MAGIC)
}

pub(super) fn dirs(
    mount: &Path,
    parent: &str,
    scope: &str,
) -> Result<Vec<(Controller, PathBuf)>, CgroupError> {
    let mut out = Vec::new();
    for (c, name) in REQUIRED {
        if !controller_mounted(mount, name) {
            return Err(CgroupError::MissingController(name));
        }
        out.push((c, mount.join(name).join(parent).join(scope)));
    }
    for (c, name) in OPTIONAL {
        if controller_mounted(mount, name) {
            out.push((c, mount.join(name).join(parent).join(scope)));
        }
    }
    Ok(out)
}

pub(super) fn create(
    mount: &Path,
    parent: &str,
    dirs: &[(Controller, PathBuf)],
    limits: &CgroupLimits,
) -> Result<(), CgroupError> {
    if limits.cpuset_cpus.is_some() && !dirs.iter().any(|(c, _)| *c == Controller::Cpuset) {
        return Err(CgroupError::MissingController("cpuset"));
    }
    for (c, dir) in dirs {
        if *c == Controller::Cpuset {
            create_cpuset(&mount.join("cpuset"), parent, dir)?;
        } else {
            create_dir(dir)?;
        }
    }
    for (c, dir) in dirs {
        match c {
            Controller::Cpu if limits.cpu_shares > 0 => {
                write_file(&dir.join("cpu.shares"), &limits.cpu_shares.to_string())?;
            }
            Controller::Memory => write_memory(dir, limits)?,
            Controller::Cpuset => {
                if let Some(cpus) = &limits.cpuset_cpus {
                    write_file(&dir.join("cpuset.cpus"), cpus)?;
                }
            }
            _ => {}
        }
    }
    Ok(())
}

fn write_memory(dir: &Path, limits: &CgroupLimits) -> Result<(), CgroupError> {
    if let Some(hard) = limits.memory_hard_bytes {
        write_file(&dir.join("memory.limit_in_bytes"), &hard.to_string())?;
    }
    if let Some(soft) = limits.memory_soft_bytes {
        write_file(&dir.join("memory.soft_limit_in_bytes"), &soft.to_string())?;
    }
    // Nomad disables swapping for tasks where the kernel lets it; some kernels refuse.
    let _ = write_file(&dir.join("memory.swappiness"), "0");
    Ok(())
}

/// A v1 cpuset cgroup accepts no process until `cpuset.cpus` and `cpuset.mems` are set, and a
/// new directory starts empty: fill each level from the one above, root down.
fn create_cpuset(hierarchy: &Path, parent: &str, dir: &Path) -> Result<(), CgroupError> {
    let mut level = hierarchy.to_path_buf();
    let rel = dir.strip_prefix(hierarchy).unwrap_or(Path::new(parent));
    for part in rel.components() {
        let above = level.clone();
        level.push(part);
        create_dir(&level)?;
        for file in ["cpuset.cpus", "cpuset.mems"] {
            let current = std::fs::read_to_string(level.join(file)).unwrap_or_default();
            if current.trim().is_empty() {
                let inherited = std::fs::read_to_string(above.join(file))
                    .map_err(|e| super::read_error(&above.join(file), e))?;
                write_file(&level.join(file), inherited.trim())?;
            }
        }
    }
    Ok(())
}

/// `oom_kill N` in memory.oom_control counts OOM kills in this cgroup (Linux 4.13+).
pub(super) fn oom_killed(memory_dir: &Path) -> bool {
    std::fs::read_to_string(memory_dir.join("memory.oom_control"))
        .ok()
        .and_then(|t| keyed_value(&t, "oom_kill"))
        .is_some_and(|n| n > 0)
}

/// Freezes or thaws the cgroup; best effort, waiting briefly for the kernel to settle.
pub(super) fn freeze(freezer_dir: &Path, frozen: bool) {
    let want = if frozen { "FROZEN" } else { "THAWED" };
    let state = freezer_dir.join("freezer.state");
    if write_file(&state, want).is_err() {
        return;
    }
    let deadline = Instant::now() + Duration::from_millis(200);
    while Instant::now() < deadline {
        match std::fs::read_to_string(&state) {
            Ok(s) if s.trim() == want => return,
            Ok(_) => std::thread::sleep(Duration::from_millis(1)),
            Err(_) => return,
        }
    }
}
