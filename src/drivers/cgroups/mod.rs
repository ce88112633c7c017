//! Linux cgroups for task processes: one cgroup per task, with CPU shares and memory limits,
//! resource usage, OOM detection and "kill everything inside" (Nomad's `cgroupslib`).
//!
//! The version is detected at runtime from what is mounted at `/sys/fs/cgroup`:
//!
//! ```text
//! v1: <mount>/<controller>/<parent>/<scope>   for cpu, cpuacct, memory, pids, cpuset, freezer
//! v2: <mount>/<parent>/<scope>                one unified directory
//! ```
//!
//! Nomad's layout is the default: parent `nomad` (v1) or `nomad.slice/share.slice` (v2) and
//! scope `<alloc_id>.<task>` (v2: `<alloc_id>.<task>.scope`). The parent is a parameter so a
//! caller (a test, an agent with `cgroup_parent`) can keep its cgroups apart.
//!
//! This module owns cgroup directories only: it never starts processes. Drivers (exec, and
//! later the per-task supervisor for raw_exec) create a [`Cgroup`], place processes in it
//! (`add_pid`, or from the child itself by writing `0` to each of [`Cgroup::procs_files`]),
//! and destroy it when the task is gone.

mod stats;
mod v1;
mod v2;

use std::io;
use std::path::{Path, PathBuf};
use std::time::Duration;

use nix::sys::signal::{kill, Signal};
use nix::unistd::Pid;
use serde::{Deserialize, Serialize};

pub use stats::CgroupStats;

/// Where cgroup filesystems are mounted on Linux.
pub const DEFAULT_MOUNT: &str = "/sys/fs/cgroup";
/// Nomad's `cgroup_parent` defaults.
pub const DEFAULT_PARENT_V1: &str = "nomad";
pub const DEFAULT_PARENT_V2: &str = "nomad.slice/share.slice";

/// Bounds of v1 `cpu.shares` (the kernel's, as Nomad clamps them).
pub const MIN_CPU_SHARES: u64 = 2;
pub const MAX_CPU_SHARES: u64 = 262_144;

const CGROUP2_SUPER_MAGIC: i64 = 0x6367_7270;

/// How long `destroy` keeps killing before it gives up on a cgroup that will not empty.
const DRAIN_TIMEOUT: Duration = Duration::from_secs(5);

#[derive(Debug, thiserror::Error)]
pub enum CgroupError {
    #[error("cgroups are not mounted at {0}")]
    NotMounted(String),
    #[error("cgroup v1 controller {0:?} is not mounted")]
    MissingController(&'static str),
    #[error("failed to create cgroup {path}: {source}")]
    Create { path: String, source: io::Error },
    #[error("failed to write {value:?} to {path}: {source}")]
    Write {
        path: String,
        value: String,
        source: io::Error,
    },
    #[error("failed to read {path}: {source}")]
    Read { path: String, source: io::Error },
    #[error("failed to remove cgroup {path}: {source}")]
    Remove { path: String, source: io::Error },
    #[error("cgroup {0} still has processes after being killed")]
    NotEmpty(String),
}

/// The cgroup version the host runs.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum CgroupMode {
    V1,
    V2,
}

impl CgroupMode {
    /// `"v1"` / `"v2"`, as Nomad's `os.cgroups.version` attribute says `1` / `2`.
    pub fn version(self) -> u8 {
        match self {
            CgroupMode::V1 => 1,
            CgroupMode::V2 => 2,
        }
    }

    /// Detects the mode from the filesystem mounted at `mount`: cgroup2 there is v2; a
    /// directory holding a mounted v1 `memory` hierarchy is v1; anything else is no cgroups.
    pub fn detect(mount: &Path) -> Result<CgroupMode, CgroupError> {
        match fs_type(mount) {
            Some(CGROUP2_SUPER_MAGIC) => Ok(CgroupMode::V2),
            Some(_) if v1::controller_mounted(mount, "memory") => Ok(CgroupMode::V1),
            _ => Err(CgroupError::NotMounted(mount.display().to_string())),
        }
    }
}

fn fs_type(path: &Path) -> Option<i64> {
    let c = std::ffi::CString::new(path.as_os_str().as_encoded_bytes()).ok()?;
    // SAFETY: statfs only writes into the zeroed struct we pass.
    let mut buf: libc::statfs = unsafe { std::mem::zeroed() };
    let rc = unsafe { libc::statfs(c.as_ptr(), &mut buf) };
    (rc == 0).then_some(buf.f_type as i64)
}

/// The hierarchy new cgroups go under: mount point, version, parent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CgroupRoot {
    pub mount: PathBuf,
    pub mode: CgroupMode,
    /// Relative to the mount (v2) or to each controller's mount (v1), e.g. `nomad`.
    pub parent: String,
}

impl CgroupRoot {
    /// The host's cgroups with Nomad's default parent for the detected version.
    pub fn detect() -> Result<CgroupRoot, CgroupError> {
        let mount = PathBuf::from(DEFAULT_MOUNT);
        let mode = CgroupMode::detect(&mount)?;
        let parent = match mode {
            CgroupMode::V1 => DEFAULT_PARENT_V1,
            CgroupMode::V2 => DEFAULT_PARENT_V2,
        };
        Ok(CgroupRoot {
            mount,
            mode,
            parent: parent.to_string(),
        })
    }

    pub fn with_parent(mut self, parent: &str) -> Self {
        self.parent = parent.trim_matches('/').to_string();
        self
    }

    /// Nomad's scope name for a task's cgroup.
    pub fn scope_name(&self, alloc_id: &str, task: &str) -> String {
        let task = task.replace('/', "_");
        match self.mode {
            CgroupMode::V1 => format!("{alloc_id}.{task}"),
            CgroupMode::V2 => format!("{alloc_id}.{task}.scope"),
        }
    }

    /// The directories a cgroup named `scope` has (one per controller in v1).
    fn dirs(&self, scope: &str) -> Result<Vec<(Controller, PathBuf)>, CgroupError> {
        match self.mode {
            CgroupMode::V1 => v1::dirs(&self.mount, &self.parent, scope),
            CgroupMode::V2 => Ok(vec![(
                Controller::Unified,
                self.mount.join(&self.parent).join(scope),
            )]),
        }
    }
}

/// Which hierarchy a directory belongs to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub(crate) enum Controller {
    Unified,
    Cpu,
    Cpuacct,
    Memory,
    Pids,
    Cpuset,
    Freezer,
}

/// Resource limits of one task, from its `resources` block.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CgroupLimits {
    /// `cpu.shares` (v1); v2 converts it to `cpu.weight`. 0 means the kernel default.
    pub cpu_shares: u64,
    /// Hard limit in bytes (`memory.limit_in_bytes` / `memory.max`).
    pub memory_hard_bytes: Option<u64>,
    /// Soft limit in bytes (`memory.soft_limit_in_bytes` / `memory.low`).
    pub memory_soft_bytes: Option<u64>,
    /// `cpuset.cpus` for a task with reserved cores (`resources { cores = N }`), e.g.
    /// `"0-1"`; `None` inherits the parent's set.
    pub cpuset_cpus: Option<String>,
}

impl CgroupLimits {
    /// Nomad's `memoryLimits`: `memory` is the hard limit unless `memory_max` is set, in
    /// which case `memory_max` is hard and `memory` the reservation; `memory_max = -1` means
    /// no hard limit. `total_compute` (MHz) rescales shares that would exceed the kernel's
    /// maximum, as Nomad's `clampCpuShares` does.
    pub fn from_resources(
        cpu_mhz: i64,
        total_compute: u64,
        memory_mb: i64,
        memory_max_mb: i64,
    ) -> Self {
        let mb = |m: i64| (m > 0).then(|| m as u64 * 1024 * 1024);
        let (hard, soft) = match memory_max_mb {
            -1 => (None, mb(memory_mb)),
            m if m > 0 => (mb(m), mb(memory_mb)),
            _ => (mb(memory_mb), None),
        };
        CgroupLimits {
            cpu_shares: clamp_cpu_shares(cpu_mhz, total_compute),
            memory_hard_bytes: hard,
            memory_soft_bytes: soft,
            cpuset_cpus: None,
        }
    }
}

/// Cores as the kernel's list format (`0-2,5`); `None` for no cores.
pub fn cpuset_list(cores: &[u32]) -> Option<String> {
    let mut sorted = cores.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let mut parts: Vec<String> = Vec::new();
    let mut i = 0;
    while i < sorted.len() {
        let start = sorted[i];
        let mut end = start;
        while i + 1 < sorted.len() && sorted[i + 1] == end + 1 {
            i += 1;
            end = sorted[i];
        }
        parts.push(if start == end {
            start.to_string()
        } else {
            format!("{start}-{end}")
        });
        i += 1;
    }
    (!parts.is_empty()).then(|| parts.join(","))
}

/// Parses the kernel's list format (`0-2,5`) into cores; bad parts are skipped.
pub fn parse_cpuset_list(text: &str) -> Vec<u32> {
    let mut out = Vec::new();
    for part in text
        .trim()
        .split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
    {
        match part.split_once('-') {
            Some((a, b)) => {
                if let (Ok(a), Ok(b)) = (a.parse::<u32>(), b.parse::<u32>()) {
                    out.extend(a..=b);
                }
            }
            None => out.extend(part.parse::<u32>().ok()),
        }
    }
    out
}

pub fn clamp_cpu_shares(cpu_mhz: i64, total_compute: u64) -> u64 {
    let shares = cpu_mhz.max(0) as u64;
    if shares < MIN_CPU_SHARES {
        return MIN_CPU_SHARES;
    }
    if total_compute >= MAX_CPU_SHARES {
        return ((shares as f64 / total_compute as f64) * MAX_CPU_SHARES as f64) as u64;
    }
    shares
}

/// runc's mapping of v1 shares [2, 262144] onto v2 weight [1, 10000].
pub fn shares_to_weight(shares: u64) -> u64 {
    if shares == 0 {
        return 100;
    }
    let s = shares.clamp(MIN_CPU_SHARES, MAX_CPU_SHARES);
    1 + ((s - 2) * 9999) / 262_142
}

/// One task's cgroup. Dropping it does not remove anything: call [`Cgroup::destroy`].
/// Serialisable so a task handle (and the task's supervisor) can find it again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Cgroup {
    mode: CgroupMode,
    dirs: Vec<(Controller, PathBuf)>,
}

impl Cgroup {
    /// Creates (or reuses) the cgroup `scope` under `root` and writes `limits`.
    pub fn create(
        root: &CgroupRoot,
        scope: &str,
        limits: &CgroupLimits,
    ) -> Result<Cgroup, CgroupError> {
        let cg = Cgroup::open(root, scope)?;
        match cg.mode {
            CgroupMode::V1 => v1::create(&root.mount, &root.parent, &cg.dirs, limits)?,
            CgroupMode::V2 => v2::create(&root.mount, &root.parent, cg.unified(), limits)?,
        }
        Ok(cg)
    }

    /// A handle on an existing cgroup (after a restart), without touching it.
    pub fn open(root: &CgroupRoot, scope: &str) -> Result<Cgroup, CgroupError> {
        Ok(Cgroup {
            mode: root.mode,
            dirs: root.dirs(scope)?,
        })
    }

    pub fn mode(&self) -> CgroupMode {
        self.mode
    }

    /// The cgroup's directories: one for v2, one per controller for v1.
    pub fn paths(&self) -> Vec<PathBuf> {
        self.dirs.iter().map(|(_, p)| p.clone()).collect()
    }

    pub fn exists(&self) -> bool {
        self.dirs.iter().all(|(_, p)| p.is_dir())
    }

    /// The `cgroup.procs` files a process must write `0` to in order to join; for code that
    /// places a forked child from inside it, before exec.
    pub fn procs_files(&self) -> Vec<PathBuf> {
        self.dirs
            .iter()
            .map(|(_, p)| p.join("cgroup.procs"))
            .collect()
    }

    fn dir(&self, c: Controller) -> Option<&Path> {
        self.dirs
            .iter()
            .find(|(k, _)| *k == c)
            .map(|(_, p)| p.as_path())
    }

    fn unified(&self) -> &Path {
        self.dirs
            .first()
            .map(|(_, p)| p.as_path())
            .unwrap_or(Path::new("/"))
    }

    /// The directory holding a controller's files (the unified one in v2).
    pub(crate) fn controller_dir(&self, c: Controller) -> Option<&Path> {
        match self.mode {
            CgroupMode::V2 => Some(self.unified()),
            CgroupMode::V1 => self.dir(c),
        }
    }

    pub fn add_pid(&self, pid: i32) -> Result<(), CgroupError> {
        for file in self.procs_files() {
            write_file(&file, &pid.to_string())?;
        }
        Ok(())
    }

    /// Processes in the cgroup (read from the memory hierarchy in v1).
    pub fn pids(&self) -> Result<Vec<i32>, CgroupError> {
        let dir = self
            .controller_dir(Controller::Memory)
            .unwrap_or(self.unified());
        let path = dir.join("cgroup.procs");
        let text = match std::fs::read_to_string(&path) {
            Ok(t) => t,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(read_error(&path, e)),
        };
        let mut pids: Vec<i32> = text
            .split_whitespace()
            .filter_map(|t| t.parse().ok())
            .collect();
        pids.sort_unstable();
        pids.dedup();
        Ok(pids)
    }

    pub fn stats(&self) -> Result<CgroupStats, CgroupError> {
        match self.mode {
            CgroupMode::V1 => stats::read_v1(self),
            CgroupMode::V2 => stats::read_v2(self.unified()),
        }
    }

    /// Whether the kernel's OOM killer has killed a process of this cgroup.
    pub fn oom_killed(&self) -> bool {
        match self.mode {
            CgroupMode::V1 => self.dir(Controller::Memory).is_some_and(v1::oom_killed),
            CgroupMode::V2 => v2::oom_killed(self.unified()),
        }
    }

    /// Sends SIGKILL to every process in the cgroup, once. Freezes first where it can (v1
    /// freezer, v2 `cgroup.kill`) so that nothing forks past the kill.
    pub fn kill_all(&self) -> Result<(), CgroupError> {
        if self.mode == CgroupMode::V2 && v2::kill(self.unified()) {
            return Ok(());
        }
        let freezer = self.dir(Controller::Freezer);
        if let Some(f) = freezer {
            v1::freeze(f, true);
        }
        for pid in self.pids()? {
            let _ = kill(Pid::from_raw(pid), Signal::SIGKILL);
        }
        if let Some(f) = freezer {
            v1::freeze(f, false);
        }
        Ok(())
    }

    /// Kills what is left and removes the cgroup's directories. Blocks (up to a few seconds)
    /// until the kernel has emptied it; a cgroup already gone is fine.
    pub fn destroy(&self) -> Result<(), CgroupError> {
        let deadline = std::time::Instant::now() + DRAIN_TIMEOUT;
        loop {
            if self.pids()?.is_empty() {
                break;
            }
            self.kill_all()?;
            if std::time::Instant::now() >= deadline {
                return Err(CgroupError::NotEmpty(self.unified().display().to_string()));
            }
            // The kernel removes killed processes asynchronously; there is no event to wait on
            // for v1, so poll briefly.
            std::thread::sleep(Duration::from_millis(5));
        }
        for (_, dir) in &self.dirs {
            remove_dir(dir, deadline)?;
        }
        Ok(())
    }
}

/// rmdir that tolerates a missing directory and retries EBUSY while zombies are reaped.
fn remove_dir(dir: &Path, deadline: std::time::Instant) -> Result<(), CgroupError> {
    loop {
        match std::fs::remove_dir(dir) {
            Ok(()) => return Ok(()),
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(()),
            Err(e)
                if e.raw_os_error() == Some(libc::EBUSY)
                    && std::time::Instant::now() < deadline =>
            {
                std::thread::sleep(Duration::from_millis(5));
            }
            Err(e) => {
                return Err(CgroupError::Remove {
                    path: dir.display().to_string(),
                    source: e,
                })
            }
        }
    }
}

pub(crate) fn write_file(path: &Path, value: &str) -> Result<(), CgroupError> {
    std::fs::write(path, value).map_err(|source| CgroupError::Write {
        path: path.display().to_string(),
        value: value.to_string(),
        source,
    })
}

pub(crate) fn read_error(path: &Path, source: io::Error) -> CgroupError {
    CgroupError::Read {
        path: path.display().to_string(),
        source,
    }
}

pub(crate) fn create_dir(path: &Path) -> Result<(), CgroupError> {
    std::fs::create_dir_all(path).map_err(|source| CgroupError::Create {
        path: path.display().to_string(),
        source,
    })
}

/// `key value` lines (memory.stat, cpu.stat, memory.events) -> value of `key`.
pub(crate) fn keyed_value(text: &str, key: &str) -> Option<u64> {
    text.lines().find_map(|l| {
        let mut it = l.split_whitespace();
        (it.next() == Some(key)).then(|| it.next()?.parse().ok())?
    })
}

#[cfg(test)]
pub(crate) mod tests;
