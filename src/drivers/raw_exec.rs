//! `raw_exec`: runs a command directly on the host, without isolation, as Nomad's raw_exec.
//!
//! Each task runs under its own supervisor process (`nomad executor`, see `crate::executor`)
//! that owns its output (rotated into `alloc/logs/<task>.{stdout,stderr}.N`), records its
//! exit status and outlives the agent. The task leads its own process group, so stopping it
//! (kill_signal, then SIGKILL after kill_timeout) and destroying it reach every descendant.
//! After an agent restart `recover` re-attaches through the handle's socket path.
//! Enabled only by `plugin "raw_exec" { config { enabled = true } }` or `-dev`.

use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use nix::sys::signal::Signal;
use serde::{Deserialize, Serialize};
use tokio::task::JoinHandle;

use super::task_store::{ExitCell, TaskStore};
use super::{
    parse_signal, Capabilities, Driver, DriverError, ExitResult, Fingerprint, FsIsolation,
    TaskConfig, TaskHandle, TaskRunState, TaskStatus,
};
use crate::executor::{self, client, ExitRecord, LaunchSpec, LogTarget, Request};

pub const NAME: &str = "raw_exec";
const HANDLE_VERSION: u32 = 2;

/// Beyond a stop's timeout, how long the supervisor may take to drain output and report.
const STOP_MARGIN: Duration = Duration::from_secs(3);
/// Between attempts to reach a supervisor that is alive but not answering.
const RETRY: Duration = Duration::from_millis(200);

pub struct RawExecDriver {
    enabled: bool,
    tasks: TaskStore<RawTask>,
}

/// What the handle records to find the task again after an agent restart.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RawExecState {
    /// Also the process group id: the task leads its own group.
    pub pid: i32,
    pub started_at: i64,
    pub supervisor_pid: i32,
    pub socket: PathBuf,
    /// Where the supervisor writes the exit record (the task dir).
    pub state_dir: PathBuf,
}

struct RawTask {
    name: String,
    id: String,
    state: RawExecState,
    completed_at: Mutex<Option<i64>>,
    exit: ExitCell,
    /// Waits on the supervisor for the exit; joined by `destroy`.
    waiter: Mutex<Option<JoinHandle<()>>>,
}

impl RawTask {
    fn running(&self) -> bool {
        self.exit.get().is_none()
    }

    fn finish(&self, rec: &ExitRecord) {
        *self.completed_at.lock().unwrap_or_else(|e| e.into_inner()) = Some(rec.completed_at);
        self.exit.set(exit_result_of(rec));
    }

    /// SIGKILL to the whole group, for when the supervisor cannot do it.
    fn kill_group(&self) {
        if self.state.pid > 1 {
            let _ = nix::sys::signal::killpg(
                nix::unistd::Pid::from_raw(self.state.pid),
                Signal::SIGKILL,
            );
        }
    }

    async fn request(&self, req: &Request) -> std::io::Result<executor::Response> {
        client::request(&self.state.socket, req).await
    }
}

fn exit_result_of(rec: &ExitRecord) -> ExitResult {
    ExitResult {
        exit_code: rec.exit_code,
        signal: rec.signal,
        oom_killed: false,
        err: rec.err.clone(),
    }
}

/// Follows the task to its exit: a `wait` on the socket, else the exit record, else (the
/// supervisor died without one) a lost task, whose group is killed.
async fn watch(task: Arc<RawTask>) {
    loop {
        let err = match task.request(&Request::Wait).await {
            Ok(resp) => match resp.exit {
                Some(rec) => return task.finish(&rec),
                None => "the executor answered a wait without an exit".to_string(),
            },
            Err(e) => e.to_string(),
        };
        if let Some(rec) = client::recorded_exit(&task.state.state_dir, &task.id) {
            return task.finish(&rec);
        }
        if client::process_alive(task.state.supervisor_pid) {
            tokio::time::sleep(RETRY).await;
            continue;
        }
        task.kill_group();
        let rec = ExitRecord {
            exit_code: 1,
            completed_at: crate::api::now_nanos(),
            err: Some(format!("executor for the task is gone: {err}")),
            ..Default::default()
        };
        return task.finish(&rec);
    }
}

impl RawExecDriver {
    pub fn new(enabled: bool) -> Self {
        RawExecDriver {
            enabled,
            tasks: TaskStore::default(),
        }
    }

    fn track(&self, id: &str, name: &str, state: RawExecState) -> Result<(), DriverError> {
        let task = Arc::new(RawTask {
            name: name.to_string(),
            id: id.to_string(),
            state,
            completed_at: Mutex::new(None),
            exit: ExitCell::default(),
            waiter: Mutex::new(None),
        });
        self.tasks.insert_new(id, task.clone())?;
        let waiter = tokio::spawn(watch(task.clone()));
        *task.waiter.lock().unwrap_or_else(|e| e.into_inner()) = Some(waiter);
        Ok(())
    }
}

fn user_ids(user: &str) -> Result<(Option<u32>, Option<u32>), DriverError> {
    if user.is_empty() || !nix::unistd::geteuid().is_root() {
        return Ok((None, None));
    }
    let u = nix::unistd::User::from_name(user)
        .ok()
        .flatten()
        .ok_or_else(|| DriverError::InvalidConfig(format!("user {user:?} does not exist")))?;
    Ok((Some(u.uid.as_raw()), Some(u.gid.as_raw())))
}

fn launch_spec(cfg: &TaskConfig, bin: &Path, args: Vec<String>) -> Result<LaunchSpec, DriverError> {
    let (uid, gid) = user_ids(&cfg.user)?;
    let log = cfg.log_spec();
    let mut argv = vec![bin.display().to_string()];
    argv.extend(args);
    Ok(LaunchSpec {
        task_id: cfg.id.clone(),
        argv,
        env: cfg
            .env
            .iter()
            .map(|(k, v)| (k.clone(), v.clone()))
            .collect(),
        cwd: cfg.task_dir.clone(),
        state_dir: cfg.task_dir.clone(),
        uid,
        gid,
        logs: LogTarget {
            dir: (!cfg.logs_disabled).then(|| log.dir.clone()),
            task_name: cfg.name.clone(),
            max_files: log.max_files,
            max_file_size_bytes: log.max_file_size_bytes,
        },
        kill_signal: Signal::SIGINT as i32,
        kill_timeout_ms: 5000,
        isolation: None,
    })
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
        let spec = launch_spec(&cfg, &bin, args)?;
        let spawn_err = |reason: String| DriverError::Spawn {
            command: bin.display().to_string(),
            reason,
        };
        let exe = executor::binary().map_err(|e| spawn_err(e.to_string()))?;
        let launched = client::launch(&exe, &spec)
            .await
            .map_err(|e| spawn_err(e.to_string()))?;
        let state = RawExecState {
            pid: launched.pid,
            started_at: launched.started_at,
            supervisor_pid: launched.supervisor_pid,
            socket: launched.socket,
            state_dir: spec.state_dir,
        };
        self.track(&cfg.id, &cfg.name, state.clone())?;
        Ok(TaskHandle {
            version: HANDLE_VERSION,
            driver: NAME.to_string(),
            driver_state: serde_json::to_value(&state).unwrap_or_default(),
            config: cfg,
        })
    }

    async fn recover(&self, handle: &TaskHandle) -> Result<(), DriverError> {
        if self.tasks.contains(handle.id()) {
            return Ok(());
        }
        let state: RawExecState = serde_json::from_value(handle.driver_state.clone())
            .map_err(|e| DriverError::Recover(format!("unreadable raw_exec handle: {e}")))?;
        // Either the supervisor answers, or it has left the exit record; `watch` handles
        // both, and a supervisor that vanished without one (the host rebooted) as well.
        let alive = match client::request(&state.socket, &Request::Status).await {
            Ok(resp) => resp.pid == state.pid,
            Err(_) => false,
        };
        if !alive
            && client::recorded_exit(&state.state_dir, handle.id()).is_none()
            && !client::process_alive(state.supervisor_pid)
        {
            return Err(DriverError::Recover(format!(
                "task process {} and its executor are gone and no exit status was recorded",
                state.pid
            )));
        }
        self.track(handle.id(), &handle.config.name, state)
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
            return Ok(());
        }
        // As Nomad's raw_exec does for signals it cannot parse: use SIGINT rather than
        // leave the task running.
        let sig = parse_signal(signal).unwrap_or_else(|e| {
            tracing::warn!(error = %e, "unknown kill signal, using SIGINT instead");
            Signal::SIGINT
        });
        let req = Request::Stop {
            signal: sig as i32,
            timeout_ms: timeout.as_millis().min(u64::MAX as u128) as u64,
        };
        // The supervisor enforces the timeout (and kills the group); waiting here keeps
        // the old contract: the task is down when stop returns, or as good as.
        match task.request(&req).await {
            Ok(_) => {
                if tokio::time::timeout(timeout + STOP_MARGIN, task.exit.wait())
                    .await
                    .is_err()
                {
                    task.kill_group();
                }
            }
            Err(e) => {
                tracing::warn!(task = %task.name, error = %e, "executor unreachable; killing the task group");
                task.kill_group();
            }
        }
        Ok(())
    }

    async fn destroy(&self, handle: &TaskHandle, force: bool) -> Result<(), DriverError> {
        let task = self.tasks.get(handle.id())?;
        if task.running() {
            if !force {
                return Err(DriverError::DestroyRunning);
            }
            self.stop(handle, "SIGKILL", Duration::ZERO).await?;
        }
        self.tasks.remove(handle.id());
        let waiter = task.waiter.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(w) = waiter {
            if task.running() {
                w.abort();
            }
            let _ = w.await;
        }
        Ok(())
    }

    async fn signal(&self, handle: &TaskHandle, signal: &str) -> Result<(), DriverError> {
        let task = self.tasks.get(handle.id())?;
        let sig = parse_signal(signal)?;
        task.request(&Request::Signal { signal: sig as i32 })
            .await
            .map(|_| ())
            .map_err(|e| DriverError::SignalFailed(e.to_string()))
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
            started_at: task.state.started_at,
            completed_at,
            exit_result: exit,
            driver_attributes: [("pid".to_string(), task.state.pid.to_string())].into(),
        })
    }
}

#[cfg(test)]
#[path = "raw_exec_tests.rs"]
mod tests;
