//! `exec`: runs a command isolated as Nomad's exec driver does: new PID, mount, IPC and UTS
//! namespaces, pivot_root into the task dir with the chroot_env bind-mounted read-only,
//! `/alloc` bound from the alloc dir, a private /dev and /proc, a per-task cgroup with CPU
//! shares and memory limits, and the task user (default `nobody`).
//!
//! The parent side (this file) builds an [`isolation::IsolationSpec`], creates the cgroup,
//! spawns, and supervises the process like raw_exec does (log pumps, exit cell). Only healthy
//! as root with cgroups mounted.

pub mod config;
pub mod isolation;
mod launch;

use std::os::fd::OwnedFd;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use nix::sys::signal::{kill, killpg, Signal};
use nix::unistd::Pid;
use serde_json::json;
use tokio::task::JoinHandle;

use super::cgroups::{Cgroup, CgroupRoot, CgroupStats};
use super::task_store::{ExitCell, TaskStore};
use super::{
    parse_signal, Capabilities, Driver, DriverError, ExitResult, Fingerprint, FsIsolation,
    HealthState, PluginConfig, TaskConfig, TaskHandle, TaskRunState, TaskStatus,
};
use crate::api::now_nanos;
use config::ExecPluginConfig;

pub const NAME: &str = "exec";
const HANDLE_VERSION: u32 = 1;

/// Nomad's `drivers.DriverRequiresRootMessage`.
const REQUIRES_ROOT: &str = "Driver must run as root";
/// Nomad's `drivers.NoCgroupMountMessage`.
const NO_CGROUP_MOUNT: &str = "Failed to discover cgroup mount point";

/// How long log pumps may drain output after the task's main process exited.
const PUMP_DRAIN_GRACE: Duration = Duration::from_secs(2);

pub struct ExecDriver {
    config: Result<ExecPluginConfig, DriverError>,
    tasks: TaskStore<ExecTask>,
}

struct ExecTask {
    name: String,
    pid: i32,
    cgroup: Cgroup,
    started_at: i64,
    completed_at: Mutex<Option<i64>>,
    exit: ExitCell,
    /// Waits for the process, drains output, records the exit; joined by `destroy`.
    supervisor: Mutex<Option<JoinHandle<()>>>,
}

impl ExecTask {
    fn running(&self) -> bool {
        self.exit.get().is_none()
    }

    /// SIGKILL to everything in the task's cgroup (and its process group).
    fn kill_all(&self) {
        let _ = killpg(Pid::from_raw(self.pid), Signal::SIGKILL);
        if let Err(e) = self.cgroup.kill_all() {
            tracing::warn!(task = %self.name, error = %e, "failed to kill task cgroup");
        }
    }
}

fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl ExecDriver {
    pub fn new(cfg: Option<&PluginConfig>) -> Self {
        ExecDriver {
            config: ExecPluginConfig::parse(cfg),
            tasks: TaskStore::default(),
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

    /// One resource-usage sample of the task's cgroup.
    pub async fn stats(&self, handle: &TaskHandle) -> Result<CgroupStats, DriverError> {
        let task = self.tasks.get(handle.id())?;
        task.cgroup
            .stats()
            .map_err(|e| DriverError::SignalFailed(format!("failed to read task stats: {e}")))
    }

    /// The task's cgroup (for tests and the client's stats).
    pub fn cgroup(&self, handle: &TaskHandle) -> Result<Cgroup, DriverError> {
        Ok(self.tasks.get(handle.id())?.cgroup.clone())
    }
}

/// Waits for `pid` (our child) through a pidfd, so no thread blocks per task.
async fn wait_pid(pid: i32, pidfd: OwnedFd) -> ExitResult {
    let fail = |e: String| ExitResult {
        exit_code: 1,
        err: Some(format!("executor: error waiting on process: {e}")),
        ..Default::default()
    };
    // SAFETY: we own the pidfd and it stays open for as long as it is registered.
    match unsafe { tokio::io::unix::AsyncFd::register(pidfd) } {
        Ok(fd) => {
            if let Err(e) = fd.readable().await {
                return fail(e.to_string());
            }
        }
        Err(e) => return fail(e.to_string()),
    }
    use nix::sys::wait::{waitpid, WaitStatus};
    loop {
        match waitpid(Pid::from_raw(pid), None) {
            Ok(WaitStatus::Exited(_, code)) => {
                return ExitResult {
                    exit_code: code,
                    ..Default::default()
                }
            }
            Ok(WaitStatus::Signaled(_, sig, _)) => {
                return ExitResult {
                    exit_code: 128 + sig as i32,
                    signal: sig as i32,
                    ..Default::default()
                }
            }
            Ok(_) => continue,
            Err(nix::errno::Errno::EINTR) => continue,
            Err(e) => return fail(e.to_string()),
        }
    }
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

    /// Host volume bind mounts into the chroot are not wired yet: refuse them clearly
    /// rather than run the task without its volume.
    fn supports_mounts(&self) -> bool {
        false
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
        let launched = launch::launch(&plugin, &root, &cfg).await?;
        let task = Arc::new(ExecTask {
            name: cfg.name.clone(),
            pid: launched.pid,
            cgroup: launched.cgroup,
            started_at: now_nanos(),
            completed_at: Mutex::new(None),
            exit: ExitCell::default(),
            supervisor: Mutex::new(None),
        });
        let supervised = task.clone();
        let (pid, pidfd, pumps) = (launched.pid, launched.pidfd, launched.pumps);
        let supervisor = tokio::spawn(async move {
            let mut result = wait_pid(pid, pidfd).await;
            // With the PID namespace's init gone the kernel kills the rest; with
            // pid_mode = "host" descendants may remain, and they go with the task.
            let _ = supervised.cgroup.kill_all();
            for p in pumps {
                let abort = p.abort_handle();
                match tokio::time::timeout(PUMP_DRAIN_GRACE, p).await {
                    Ok(Ok(Err(e))) if result.err.is_none() => {
                        result.err = Some(format!("failed to write task logs: {e}"));
                    }
                    Ok(_) => {}
                    Err(_) => abort.abort(),
                }
            }
            if supervised.cgroup.oom_killed() {
                result.oom_killed = true;
                result.err = Some("OOM Killed".to_string());
            }
            *lock(&supervised.completed_at) = Some(now_nanos());
            supervised.exit.set(result);
        });
        *lock(&task.supervisor) = Some(supervisor);
        let cgroup_paths = task.cgroup.paths();
        self.tasks.insert_new(&cfg.id, task)?;
        Ok(TaskHandle {
            version: HANDLE_VERSION,
            driver: NAME.to_string(),
            driver_state: json!({
                "pid": pid,
                "started_at": now_nanos(),
                "cgroup_paths": cgroup_paths,
            }),
            config: cfg,
        })
    }

    async fn wait(&self, handle: &TaskHandle) -> Result<ExitResult, DriverError> {
        let task = self.tasks.get(handle.id())?;
        Ok(task.exit.wait().await)
    }

    async fn stop(
        &self,
        handle: &TaskHandle,
        signal: &str,
        timeout: Duration,
    ) -> Result<(), DriverError> {
        let task = self.tasks.get(handle.id())?;
        if !task.running() {
            task.kill_all();
            return Ok(());
        }
        let sig = parse_signal(signal).unwrap_or_else(|e| {
            tracing::warn!(error = %e, "unknown kill signal, using SIGINT instead");
            Signal::SIGINT
        });
        if !timeout.is_zero() {
            let _ = kill(Pid::from_raw(task.pid), sig);
            if tokio::time::timeout(timeout, task.exit.wait())
                .await
                .is_ok()
            {
                task.kill_all();
                return Ok(());
            }
        }
        task.kill_all();
        Ok(())
    }

    async fn destroy(&self, handle: &TaskHandle, force: bool) -> Result<(), DriverError> {
        let task = self.tasks.get(handle.id())?;
        if task.running() && !force {
            return Err(DriverError::DestroyRunning);
        }
        task.kill_all();
        self.tasks.remove(handle.id());
        let supervisor = {
            let mut guard = lock(&task.supervisor);
            guard.take()
        };
        if let Some(s) = supervisor {
            let _ = s.await;
        }
        let cg = task.cgroup.clone();
        let destroyed = tokio::task::spawn_blocking(move || cg.destroy()).await;
        if let Ok(Err(e)) = destroyed {
            tracing::warn!(task = %task.name, error = %e, "failed to remove task cgroup");
        }
        Ok(())
    }

    async fn signal(&self, handle: &TaskHandle, signal: &str) -> Result<(), DriverError> {
        let task = self.tasks.get(handle.id())?;
        let sig = parse_signal(signal)?;
        kill(Pid::from_raw(task.pid), sig).map_err(|e| DriverError::SignalFailed(e.to_string()))
    }

    async fn inspect(&self, handle: &TaskHandle) -> Result<TaskStatus, DriverError> {
        let task = self.tasks.get(handle.id())?;
        let exit = task.exit.get();
        let completed_at = *lock(&task.completed_at);
        Ok(TaskStatus {
            id: handle.id().to_string(),
            name: task.name.clone(),
            state: if exit.is_some() {
                TaskRunState::Exited
            } else {
                TaskRunState::Running
            },
            started_at: task.started_at,
            completed_at,
            exit_result: exit,
            driver_attributes: [("pid".to_string(), task.pid.to_string())].into(),
        })
    }
}

#[cfg(test)]
mod tests;
