//! `exec`: runs a command isolated as Nomad's exec driver does: new PID, mount, IPC and UTS
//! namespaces, pivot_root into the task dir with the chroot_env bind-mounted read-only,
//! `/alloc` bound from the alloc dir, host volumes bound where `volume_mount` says, a private
//! /dev and /proc, a per-task cgroup with CPU shares, memory limits and (for
//! `resources { cores }`) a cpuset, and the task user (default `nobody`).
//!
//! Each task runs under its own supervisor (`nomad executor`, see `crate::executor`), as
//! raw_exec's do: this driver builds the isolation spec and creates the cgroup in the agent
//! (`launch.rs`), the supervisor forks the task into its namespaces, owns its output and
//! records its exit, and outlives the agent. The handle carries the supervisor's socket and
//! the cgroup, so `recover` re-attaches after an agent restart and stats, signal, exec and
//! stop keep working. Only healthy as root with cgroups mounted.

pub mod config;
mod enter;
pub mod isolation;
mod launch;

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::{Duration, Instant};

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

use super::cgroups::{Cgroup, CgroupRoot, CgroupStats};
use super::stats::{
    CpuStats, MemoryStats, ResourceUsage, TaskResourceUsage, MEASURED_MAX_USAGE, MEASURED_PERCENT,
    MEASURED_RSS, MEASURED_SWAP, MEASURED_SYSTEM_MODE, MEASURED_USAGE, MEASURED_USER_MODE,
};
use super::supervised::{SupervisedState, SupervisedTasks};
use super::{
    Capabilities, Driver, DriverError, ExitResult, Fingerprint, FsIsolation, HealthState,
    PluginConfig, TaskConfig, TaskHandle, TaskRunState, TaskStatus,
};
use crate::api::now_nanos;
use config::ExecPluginConfig;

pub const NAME: &str = "exec";
/// 2: supervised (the handle holds the supervisor's state and the cgroup).
const HANDLE_VERSION: u32 = 2;

/// Nomad's `drivers.DriverRequiresRootMessage`.
const REQUIRES_ROOT: &str = "Driver must run as root";
/// Nomad's `drivers.NoCgroupMountMessage`.
const NO_CGROUP_MOUNT: &str = "Failed to discover cgroup mount point";

/// What an exec task's handle records: the supervisor's state plus the task's cgroup.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExecState {
    #[serde(flatten)]
    pub supervised: SupervisedState,
    pub cgroup: Cgroup,
}

/// The previous CPU sample of a task's cgroup, for `Percent`.
#[derive(Clone, Copy)]
struct CpuSample {
    at: Instant,
    user_ns: u64,
    system_ns: u64,
    total_ns: u64,
}

pub struct ExecDriver {
    config: Result<ExecPluginConfig, DriverError>,
    tasks: SupervisedTasks,
    /// Task id -> its cgroup and last CPU sample (removed by `destroy`).
    cgroups: Mutex<HashMap<String, (Cgroup, Option<CpuSample>)>>,
}

impl ExecDriver {
    pub fn new(cfg: Option<&PluginConfig>) -> Self {
        ExecDriver {
            config: ExecPluginConfig::parse(cfg),
            tasks: SupervisedTasks::default(),
            cgroups: Mutex::new(HashMap::new()),
        }
    }

    fn cgroup_root(&self, cfg: &ExecPluginConfig) -> Result<CgroupRoot, DriverError> {
        let root = CgroupRoot::detect().map_err(|e| DriverError::StartFailed {
            message: e.to_string(),
            recoverable: false,
        })?;
        Ok(if cfg.cgroup_parent.is_empty() {
            root
        } else {
            root.with_parent(&cfg.cgroup_parent)
        })
    }

    fn lock_cgroups(
        &self,
    ) -> std::sync::MutexGuard<'_, HashMap<String, (Cgroup, Option<CpuSample>)>> {
        self.cgroups.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// The task's cgroup (for tests and the client's stats).
    pub fn cgroup(&self, handle: &TaskHandle) -> Result<Cgroup, DriverError> {
        self.lock_cgroups()
            .get(handle.id())
            .map(|(c, _)| c.clone())
            .ok_or(DriverError::TaskNotFound)
    }

    /// One raw resource-usage sample of the task's cgroup.
    pub fn cgroup_stats(&self, handle: &TaskHandle) -> Result<CgroupStats, DriverError> {
        self.cgroup(handle)?
            .stats()
            .map_err(|e| DriverError::SignalFailed(format!("failed to read task stats: {e}")))
    }
}

/// Nomad's exec driver usage from its cgroup: memory from the memory controller, CPU
/// percentages from the cpuacct times since the previous sample (0 on the first).
fn usage(stats: &CgroupStats, prev: Option<CpuSample>, now: Instant) -> (ResourceUsage, CpuSample) {
    let sample = CpuSample {
        at: now,
        user_ns: stats.cpu_user_ns,
        system_ns: stats.cpu_system_ns,
        total_ns: stats.cpu_total_ns,
    };
    let pct = |d: u64, wall: f64| d as f64 / 1e9 / wall * 100.0;
    let (user, system, percent) = match prev {
        Some(p) => {
            let wall = now.duration_since(p.at).as_secs_f64();
            if wall > 0.0 {
                (
                    pct(stats.cpu_user_ns.saturating_sub(p.user_ns), wall),
                    pct(stats.cpu_system_ns.saturating_sub(p.system_ns), wall),
                    pct(stats.cpu_total_ns.saturating_sub(p.total_ns), wall),
                )
            } else {
                (0.0, 0.0, 0.0)
            }
        }
        None => (0.0, 0.0, 0.0),
    };
    let mhz = crate::drivers::stats::core_mhz();
    let usage = ResourceUsage {
        memory_stats: MemoryStats {
            rss: stats.memory_rss_bytes,
            cache: stats.memory_cache_bytes,
            swap: stats.memory_swap_bytes,
            usage: stats.memory_usage_bytes,
            max_usage: stats.memory_max_usage_bytes,
            measured: [
                MEASURED_RSS,
                "Cache",
                MEASURED_SWAP,
                MEASURED_USAGE,
                MEASURED_MAX_USAGE,
            ]
            .iter()
            .map(|s| s.to_string())
            .collect(),
            ..Default::default()
        },
        cpu_stats: CpuStats {
            system_mode: system,
            user_mode: user,
            total_ticks: percent / 100.0 * mhz,
            percent,
            measured: [MEASURED_SYSTEM_MODE, MEASURED_USER_MODE, MEASURED_PERCENT]
                .iter()
                .map(|s| s.to_string())
                .collect(),
            ..Default::default()
        },
        device_stats: None,
    };
    (usage, sample)
}

#[async_trait]
impl Driver for ExecDriver {
    fn name(&self) -> &'static str {
        NAME
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities {
            send_signals: true,
            exec: true,
            fs_isolation: FsIsolation::Chroot,
        }
    }

    /// Host volumes are bind-mounted into the chroot (`read_only` honoured).
    fn supports_mounts(&self) -> bool {
        true
    }

    async fn fingerprint(&self) -> Fingerprint {
        if let Err(e) = &self.config {
            return Fingerprint {
                health: HealthState::Undetected,
                health_description: e.to_string(),
                attributes: Default::default(),
            };
        }
        if !nix::unistd::geteuid().is_root() {
            return Fingerprint::undetected(REQUIRES_ROOT);
        }
        match CgroupRoot::detect() {
            Ok(_) => Fingerprint::healthy(NAME),
            Err(_) => Fingerprint {
                health: HealthState::Unhealthy,
                health_description: NO_CGROUP_MOUNT.to_string(),
                attributes: Default::default(),
            },
        }
    }

    async fn start(&self, cfg: TaskConfig) -> Result<TaskHandle, DriverError> {
        let plugin = self.config.clone()?;
        if !nix::unistd::geteuid().is_root() {
            return Err(DriverError::StartFailed {
                message: REQUIRES_ROOT.to_string(),
                recoverable: false,
            });
        }
        if self.tasks.contains(&cfg.id) {
            return Err(DriverError::AlreadyStarted(cfg.id.clone()));
        }
        let root = self.cgroup_root(&plugin)?;
        let (spec, cgroup) = launch::launch_spec(&plugin, &root, &cfg)?;
        let command = spec.argv.first().cloned().unwrap_or_default();
        let supervised = match self.tasks.launch(&cfg.name, &command, &spec).await {
            Ok(s) => s,
            Err(e) => {
                let cg = cgroup.clone();
                let _ = tokio::task::spawn_blocking(move || cg.destroy()).await;
                return Err(e);
            }
        };
        self.lock_cgroups()
            .insert(cfg.id.clone(), (cgroup.clone(), None));
        let state = ExecState { supervised, cgroup };
        Ok(TaskHandle {
            version: HANDLE_VERSION,
            driver: NAME.to_string(),
            driver_state: serde_json::to_value(&state).unwrap_or_default(),
            config: cfg,
        })
    }

    async fn recover(&self, handle: &TaskHandle) -> Result<(), DriverError> {
        if handle.version != HANDLE_VERSION {
            return Err(DriverError::Recover(format!(
                "exec task handle version {} predates the task supervisor",
                handle.version
            )));
        }
        let state: ExecState = serde_json::from_value(handle.driver_state.clone())
            .map_err(|e| DriverError::Recover(format!("unreadable task handle: {e}")))?;
        self.tasks.recover(handle).await?;
        self.lock_cgroups()
            .entry(handle.id().to_string())
            .or_insert((state.cgroup, None));
        Ok(())
    }

    async fn wait(&self, handle: &TaskHandle) -> Result<ExitResult, DriverError> {
        self.tasks.wait(handle.id()).await
    }

    async fn stop(
        &self,
        handle: &TaskHandle,
        signal: &str,
        timeout: Duration,
    ) -> Result<(), DriverError> {
        self.tasks.stop(handle.id(), signal, timeout).await?;
        // The supervisor kills what is left in the cgroup once the main process is gone;
        // this covers a supervisor that could not be reached.
        if let Ok(cg) = self.cgroup(handle) {
            let _ = cg.kill_all();
        }
        Ok(())
    }

    async fn destroy(&self, handle: &TaskHandle, force: bool) -> Result<(), DriverError> {
        self.tasks.destroy(handle.id(), force).await?;
        let removed = self.lock_cgroups().remove(handle.id());
        if let Some((cg, _)) = removed {
            let destroyed = tokio::task::spawn_blocking(move || cg.destroy()).await;
            if let Ok(Err(e)) = destroyed {
                tracing::warn!(task = %handle.config.name, error = %e, "failed to remove task cgroup");
            }
        }
        Ok(())
    }

    async fn signal(&self, handle: &TaskHandle, signal: &str) -> Result<(), DriverError> {
        self.tasks.signal(handle.id(), signal).await
    }

    async fn inspect(&self, handle: &TaskHandle) -> Result<TaskStatus, DriverError> {
        self.tasks.inspect(handle.id())
    }

    async fn exec_streaming(
        &self,
        handle: &TaskHandle,
        session: super::exec_stream::ExecSession,
    ) -> Result<i32, DriverError> {
        if self.tasks.inspect(handle.id())?.state != TaskRunState::Running {
            return Err(DriverError::TaskNotFound);
        }
        let pid = self.tasks.pid(handle.id())?;
        let cgroup = self.cgroup(handle)?;
        let plugin = self.config.clone()?;
        enter::exec_in_task(&plugin, &handle.config, pid, &cgroup, session).await
    }

    async fn stats(&self, handle: &TaskHandle) -> Result<TaskResourceUsage, DriverError> {
        let pid = self.tasks.pid(handle.id())?;
        let (cg, prev) = self
            .lock_cgroups()
            .get(handle.id())
            .cloned()
            .ok_or(DriverError::TaskNotFound)?;
        let raw = tokio::task::spawn_blocking(move || cg.stats())
            .await
            .map_err(|e| DriverError::SignalFailed(e.to_string()))?
            .map_err(|e| DriverError::SignalFailed(format!("failed to read task stats: {e}")))?;
        let (total, sample) = usage(&raw, prev, Instant::now());
        if let Some(entry) = self.lock_cgroups().get_mut(handle.id()) {
            entry.1 = Some(sample);
        }
        let now = now_nanos();
        // Per process, as Nomad's executor lists them (the task leads its process group).
        let pids = super::stats::process_group_usage(pid, now).pids;
        Ok(TaskResourceUsage {
            resource_usage: total,
            timestamp: now,
            pids,
        })
    }
}

#[cfg(test)]
mod tests;
