//! Tasks run under a `nomad executor` supervisor, tracked for a driver: launch, re-attach
//! after an agent restart, wait, stop, signal, destroy, inspect. raw_exec is a thin layer
//! over this; an isolating driver (exec) builds its `LaunchSpec` with `isolation` set and
//! uses the same calls.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use nix::sys::signal::Signal;
use serde::{Deserialize, Serialize};
use tokio::task::JoinHandle;

use super::task_store::{ExitCell, TaskStore};
use super::{parse_signal, DriverError, ExitResult, TaskHandle, TaskRunState, TaskStatus};
use crate::executor::{self, client, ExitRecord, LaunchSpec, Request};

/// Beyond a stop's timeout, how long the supervisor may take to drain output and report.
const STOP_MARGIN: Duration = Duration::from_secs(3);
/// Between attempts to reach a supervisor that is alive but not answering.
const RETRY: Duration = Duration::from_millis(200);

/// What a handle records to find the task again after an agent restart.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct SupervisedState {
    /// Also the process group id: the task leads its own group.
    pub pid: i32,
    pub started_at: i64,
    pub supervisor_pid: i32,
    pub socket: PathBuf,
    /// Where the supervisor writes the exit record (the task dir).
    pub state_dir: PathBuf,
}

struct Task {
    name: String,
    id: String,
    state: SupervisedState,
    completed_at: Mutex<Option<i64>>,
    exit: ExitCell,
    /// Waits on the supervisor for the exit; joined by `destroy`.
    waiter: Mutex<Option<JoinHandle<()>>>,
}

impl Task {
    fn running(&self) -> bool {
        self.exit.get().is_none()
    }

    fn finish(&self, rec: &ExitRecord) {
        *self.completed_at.lock().unwrap_or_else(|e| e.into_inner()) = Some(rec.completed_at);
        self.exit.set(ExitResult {
            exit_code: rec.exit_code,
            signal: rec.signal,
            oom_killed: rec.oom_killed,
            err: rec.err.clone(),
        });
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

/// Follows the task to its exit: a `wait` on the socket, else the exit record, else (the
/// supervisor died without one) a lost task, whose group is killed.
async fn watch(task: Arc<Task>) {
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

/// A driver's supervised tasks by task id.
#[derive(Default)]
pub struct SupervisedTasks {
    tasks: TaskStore<Task>,
}

impl SupervisedTasks {
    pub fn contains(&self, id: &str) -> bool {
        self.tasks.contains(id)
    }

    fn track(&self, id: &str, name: &str, state: SupervisedState) -> Result<(), DriverError> {
        let task = Arc::new(Task {
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

    /// Starts the task under a new supervisor. Errors name `command` (the task's binary).
    pub async fn launch(
        &self,
        name: &str,
        command: &str,
        spec: &LaunchSpec,
    ) -> Result<SupervisedState, DriverError> {
        if self.tasks.contains(&spec.task_id) {
            return Err(DriverError::AlreadyStarted(spec.task_id.clone()));
        }
        let spawn_err = |reason: String| DriverError::Spawn {
            command: command.to_string(),
            reason,
        };
        let exe = executor::binary().map_err(|e| spawn_err(e.to_string()))?;
        let launched = client::launch(&exe, spec)
            .await
            .map_err(|e| spawn_err(e.to_string()))?;
        let state = SupervisedState {
            pid: launched.pid,
            started_at: launched.started_at,
            supervisor_pid: launched.supervisor_pid,
            socket: launched.socket,
            state_dir: spec.state_dir.clone(),
        };
        self.track(&spec.task_id, name, state.clone())?;
        Ok(state)
    }

    /// Re-attaches to the task of `handle`, whose `driver_state` is a `SupervisedState`.
    pub async fn recover(&self, handle: &TaskHandle) -> Result<(), DriverError> {
        if self.tasks.contains(handle.id()) {
            return Ok(());
        }
        let state: SupervisedState = serde_json::from_value(handle.driver_state.clone())
            .map_err(|e| DriverError::Recover(format!("unreadable task handle: {e}")))?;
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

    pub async fn wait(&self, id: &str) -> Result<ExitResult, DriverError> {
        let task = self.tasks.get(id)?;
        Ok(task.exit.wait().await)
    }

    /// `signal` (unknown: SIGINT, as Nomad's drivers do), SIGKILL to the group after
    /// `timeout`; returns once the task is down (or killed outright when the supervisor
    /// cannot be reached).
    pub async fn stop(&self, id: &str, signal: &str, timeout: Duration) -> Result<(), DriverError> {
        let task = self.tasks.get(id)?;
        if !task.running() {
            return Ok(());
        }
        let sig = parse_signal(signal).unwrap_or_else(|e| {
            tracing::warn!(error = %e, "unknown kill signal, using SIGINT instead");
            Signal::SIGINT
        });
        let req = Request::Stop {
            signal: sig as i32,
            timeout_ms: timeout.as_millis().min(u64::MAX as u128) as u64,
        };
        // The supervisor enforces the timeout (and kills the group), even if the agent
        // goes away meanwhile.
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

    pub async fn destroy(&self, id: &str, force: bool) -> Result<(), DriverError> {
        let task = self.tasks.get(id)?;
        if task.running() {
            if !force {
                return Err(DriverError::DestroyRunning);
            }
            self.stop(id, "SIGKILL", Duration::ZERO).await?;
        }
        self.tasks.remove(id);
        let waiter = task.waiter.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(w) = waiter {
            if task.running() {
                w.abort();
            }
            let _ = w.await;
        }
        Ok(())
    }

    /// Delivers `signal` to the task's main process.
    pub async fn signal(&self, id: &str, signal: &str) -> Result<(), DriverError> {
        let task = self.tasks.get(id)?;
        let sig = parse_signal(signal)?;
        task.request(&Request::Signal { signal: sig as i32 })
            .await
            .map(|_| ())
            .map_err(|e| DriverError::SignalFailed(e.to_string()))
    }

    pub fn inspect(&self, id: &str) -> Result<TaskStatus, DriverError> {
        let task = self.tasks.get(id)?;
        let exit = task.exit.get();
        let completed_at = *task.completed_at.lock().unwrap_or_else(|e| e.into_inner());
        Ok(TaskStatus {
            id: id.to_string(),
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

    /// The task's main process id, e.g. for stats or exec in its environment.
    pub fn pid(&self, id: &str) -> Result<i32, DriverError> {
        Ok(self.tasks.get(id)?.state.pid)
    }
}
