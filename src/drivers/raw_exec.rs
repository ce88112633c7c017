//! `raw_exec`: runs a command directly on the host, without isolation, as Nomad's raw_exec.
//!
//! Each task is the leader of its own process group so that stopping it (kill_signal, then
//! SIGKILL after kill_timeout) and destroying it reach every descendant. Output goes through
//! an in-process log pump into the rotated `alloc/logs/<task>.{stdout,stderr}.N` files.
//! Enabled only by `plugin "raw_exec" { config { enabled = true } }` or `-dev`.

use std::os::unix::process::ExitStatusExt;
use std::path::{Path, PathBuf};
use std::process::{ExitStatus, Stdio};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use nix::sys::signal::{kill, killpg, Signal};
use nix::unistd::Pid;
use serde_json::json;
use tokio::process::Command;
use tokio::task::JoinHandle;

use super::logging::{pump, LogStream};
use super::task_store::{ExitCell, TaskStore};
use super::{
    parse_signal, Capabilities, Driver, DriverError, ExitResult, Fingerprint, FsIsolation,
    TaskConfig, TaskHandle, TaskRunState, TaskStatus,
};
use crate::api::now_nanos;

pub const NAME: &str = "raw_exec";
const HANDLE_VERSION: u32 = 1;

/// After the main process exits, how long the log pumps may keep draining output that
/// descendants still write before the exit is reported.
const PUMP_DRAIN_GRACE: Duration = Duration::from_secs(2);

pub struct RawExecDriver {
    enabled: bool,
    tasks: TaskStore<RawTask>,
}

struct RawTask {
    name: String,
    /// Also the process group id: the task leads its own group.
    pid: i32,
    started_at: i64,
    completed_at: Mutex<Option<i64>>,
    exit: ExitCell,
    /// Waits for the process, drains its output and records the exit; joined by `destroy`.
    supervisor: Mutex<Option<JoinHandle<()>>>,
}

impl RawTask {
    fn running(&self) -> bool {
        self.exit.get().is_none()
    }

    /// SIGKILL to the whole group; a group that is already gone is fine.
    fn kill_group(&self) {
        let _ = killpg(Pid::from_raw(self.pid), Signal::SIGKILL);
    }
}

impl RawExecDriver {
    pub fn new(enabled: bool) -> Self {
        RawExecDriver {
            enabled,
            tasks: TaskStore::default(),
        }
    }
}

/// Finds the binary as Nomad's executor does: `<task>/local/<bin>`, `<task>/<bin>`, an
/// absolute host path, then `$PATH`.
pub fn lookup_bin(task_dir: &Path, bin: &str) -> Result<PathBuf, DriverError> {
    let local = task_dir.join("local").join(bin);
    if local.exists() {
        return Ok(local);
    }
    let root = task_dir.join(bin);
    if root.exists() {
        return Ok(root);
    }
    let abs = Path::new(bin);
    if abs.is_absolute() && abs.exists() {
        return Ok(abs.to_path_buf());
    }
    if !bin.contains('/') {
        if let Some(path) = std::env::var_os("PATH") {
            for dir in std::env::split_paths(&path) {
                let candidate = dir.join(bin);
                if is_executable(&candidate) {
                    return Ok(candidate);
                }
            }
        }
    }
    Err(DriverError::BinaryNotFound(bin.to_string()))
}

fn is_executable(path: &Path) -> bool {
    use std::os::unix::fs::PermissionsExt;
    path.metadata()
        .map(|m| m.is_file() && m.permissions().mode() & 0o111 != 0)
        .unwrap_or(false)
}

/// Nomad's encoding: a signalled process reports `128 + signal` as its exit code.
pub(crate) fn exit_result_from(status: ExitStatus) -> ExitResult {
    match (status.code(), status.signal()) {
        (Some(code), _) => ExitResult {
            exit_code: code,
            ..Default::default()
        },
        (None, Some(sig)) => ExitResult {
            exit_code: 128 + sig,
            signal: sig,
            ..Default::default()
        },
        (None, None) => ExitResult {
            exit_code: 1,
            ..Default::default()
        },
    }
}

fn log_error(cfg: &TaskConfig, e: std::io::Error) -> DriverError {
    DriverError::Logs {
        path: cfg.log_spec().dir.display().to_string(),
        reason: e.to_string(),
    }
}

#[async_trait]
impl Driver for RawExecDriver {
    fn name(&self) -> &'static str {
        NAME
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities {
            send_signals: true,
            exec: true,
            fs_isolation: FsIsolation::None,
        }
    }

    async fn fingerprint(&self) -> Fingerprint {
        if self.enabled {
            Fingerprint::healthy(NAME)
        } else {
            Fingerprint::undetected("disabled")
        }
    }

    async fn start(&self, cfg: TaskConfig) -> Result<TaskHandle, DriverError> {
        if !self.enabled {
            return Err(DriverError::Disabled(NAME.to_string()));
        }
        if self.tasks.contains(&cfg.id) {
            return Err(DriverError::AlreadyStarted(cfg.id.clone()));
        }
        let command = cfg.config_str("command")?.ok_or_else(|| {
            DriverError::InvalidConfig(
                "Missing required argument: The argument \"command\" is required".to_string(),
            )
        })?;
        let args = cfg.config_str_list("args")?;
        let bin = lookup_bin(&cfg.task_dir, &command)?;

        let mut cmd = Command::new(&bin);
        cmd.args(&args)
            .current_dir(&cfg.task_dir)
            .env_clear()
            .envs(&cfg.env)
            .stdin(Stdio::null())
            .process_group(0)
            .kill_on_drop(false);
        if !cfg.user.is_empty() && nix::unistd::geteuid().is_root() {
            let user = nix::unistd::User::from_name(&cfg.user)
                .ok()
                .flatten()
                .ok_or_else(|| {
                    DriverError::InvalidConfig(format!("user {:?} does not exist", cfg.user))
                })?;
            cmd.uid(user.uid.as_raw()).gid(user.gid.as_raw());
        }
        let rotators = if cfg.logs_disabled {
            cmd.stdout(Stdio::null()).stderr(Stdio::null());
            None
        } else {
            let spec = cfg.log_spec();
            let out = spec
                .rotator(LogStream::Stdout)
                .map_err(|e| log_error(&cfg, e))?;
            let err = spec
                .rotator(LogStream::Stderr)
                .map_err(|e| log_error(&cfg, e))?;
            cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
            Some((out, err))
        };

        let mut child = cmd.spawn().map_err(|e| DriverError::Spawn {
            command: bin.display().to_string(),
            reason: e.to_string(),
        })?;
        let pid = child
            .id()
            .map(|p| p as i32)
            .ok_or_else(|| DriverError::Spawn {
                command: bin.display().to_string(),
                reason: "process exited before its pid was read".to_string(),
            })?;

        let mut pumps = Vec::new();
        if let Some((out_rot, err_rot)) = rotators {
            if let Some(out) = child.stdout.take() {
                pumps.push(tokio::spawn(pump(out, out_rot)));
            }
            if let Some(err) = child.stderr.take() {
                pumps.push(tokio::spawn(pump(err, err_rot)));
            }
        }

        let task = Arc::new(RawTask {
            name: cfg.name.clone(),
            pid,
            started_at: now_nanos(),
            completed_at: Mutex::new(None),
            exit: ExitCell::default(),
            supervisor: Mutex::new(None),
        });
        let supervised = task.clone();
        let supervisor = tokio::spawn(async move {
            let mut result = match child.wait().await {
                Ok(status) => exit_result_from(status),
                Err(e) => ExitResult {
                    exit_code: 1,
                    err: Some(format!("executor: error waiting on process: {e}")),
                    ..Default::default()
                },
            };
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
            *supervised
                .completed_at
                .lock()
                .unwrap_or_else(|e| e.into_inner()) = Some(now_nanos());
            supervised.exit.set(result);
        });
        *task.supervisor.lock().unwrap_or_else(|e| e.into_inner()) = Some(supervisor);
        self.tasks.insert_new(&cfg.id, task)?;

        Ok(TaskHandle {
            version: HANDLE_VERSION,
            driver: NAME.to_string(),
            driver_state: json!({ "pid": pid, "started_at": now_nanos() }),
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
            task.kill_group();
            return Ok(());
        }
        // As Nomad's raw_exec does for signals it cannot parse: use SIGINT rather than
        // leave the task running.
        let sig = parse_signal(signal).unwrap_or_else(|e| {
            tracing::warn!(error = %e, "unknown kill signal, using SIGINT instead");
            Signal::SIGINT
        });
        if timeout.is_zero() {
            task.kill_group();
        } else {
            let _ = killpg(Pid::from_raw(task.pid), sig);
            if tokio::time::timeout(timeout, task.exit.wait())
                .await
                .is_err()
            {
                task.kill_group();
            }
        }
        // Descendants that ignored the signal or outlived the leader go with the group.
        task.kill_group();
        Ok(())
    }

    async fn destroy(&self, handle: &TaskHandle, force: bool) -> Result<(), DriverError> {
        let task = self.tasks.get(handle.id())?;
        if task.running() && !force {
            return Err(DriverError::DestroyRunning);
        }
        task.kill_group();
        self.tasks.remove(handle.id());
        let supervisor = task
            .supervisor
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .take();
        if let Some(s) = supervisor {
            // The group is dead, so the wait inside finishes promptly.
            let _ = s.await;
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
        let completed_at = *task.completed_at.lock().unwrap_or_else(|e| e.into_inner());
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

    async fn exec_streaming(
        &self,
        handle: &TaskHandle,
        session: super::exec_stream::ExecSession,
    ) -> Result<i32, DriverError> {
        let task = self.tasks.get(handle.id())?;
        if !task.running() {
            return Err(DriverError::TaskNotFound);
        }
        super::host_exec::exec_on_host(&handle.config, session).await
    }

    async fn stats(
        &self,
        handle: &TaskHandle,
    ) -> Result<super::stats::TaskResourceUsage, DriverError> {
        let task = self.tasks.get(handle.id())?;
        Ok(super::stats::process_group_usage(task.pid, now_nanos()))
    }
}

#[cfg(test)]
#[path = "raw_exec_tests.rs"]
mod tests;
