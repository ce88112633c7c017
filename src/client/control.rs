//! What the client's interactive endpoints (exec, stats, signal, restart) reach of the alloc
//! and task runners, and those operations with Nomad's errors.
//!
//! ```text
//!  ClientHandle ─ AllocIndex: alloc id -> AllocControl ─ task name -> TaskControl
//!                                                        ├─ state (watch of TaskState)
//!                                                        ├─ driver + live TaskHandle
//!                                                        └─ note(event) / restart()
//! ```
//! The alloc watcher keeps the index in line with its runners; each alloc runner fills its
//! task table once its tasks are set up. Nothing here owns a runner.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, RwLock};

use tokio::sync::watch;

use crate::api::{now_nanos, TaskEvent, TaskState, TASK_STATE_DEAD, TASK_STATE_PENDING};
use crate::drivers::exec_stream::ExecSession;
use crate::drivers::stats::{AllocResourceUsage, TaskResourceUsage};
use crate::drivers::{Driver, DriverError, TaskHandle};

pub const TASK_RESTART_SIGNAL: &str = "Restart Signaled";
pub const TASK_SIGNALING: &str = "Signaling";

/// Why an operation failed; the texts are Nomad's, `status` the HTTP code it answers with.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ClientOpError {
    #[error("Unknown allocation {0:?}")]
    UnknownAlloc(String),
    #[error("unknown task name {0:?}")]
    UnknownTask(String),
    #[error("task {0:?} not started yet.")]
    NotStarted(String),
    #[error("task {0:?} is not running.")]
    NotRunning(String),
    #[error("Task not running")]
    TaskNotRunning,
    #[error("Task not found")]
    TaskNotFound,
    #[error("task name cannot be set when restarting all tasks")]
    TaskAndAll,
    #[error("{0}")]
    BadRequest(String),
    #[error("{0}")]
    Driver(String),
}

impl ClientOpError {
    pub fn status(&self) -> u16 {
        match self {
            ClientOpError::UnknownAlloc(_)
            | ClientOpError::NotStarted(_)
            | ClientOpError::NotRunning(_) => 404,
            ClientOpError::UnknownTask(_)
            | ClientOpError::TaskAndAll
            | ClientOpError::BadRequest(_) => 400,
            ClientOpError::TaskNotRunning
            | ClientOpError::TaskNotFound
            | ClientOpError::Driver(_) => 500,
        }
    }
}

impl From<DriverError> for ClientOpError {
    fn from(e: DriverError) -> Self {
        ClientOpError::Driver(e.to_string())
    }
}

type NoteFn = Arc<dyn Fn(TaskEvent) + Send + Sync>;
type RestartFn = Arc<dyn Fn() + Send + Sync>;

/// One task as the endpoints see it.
#[derive(Clone)]
pub struct TaskControl {
    pub name: String,
    pub state: watch::Receiver<TaskState>,
    pub driver: Option<Arc<dyn Driver>>,
    pub handle: Arc<std::sync::Mutex<Option<TaskHandle>>>,
    /// Append an event to the task's state.
    pub note: NoteFn,
    /// Ask the task runner for a user restart.
    pub restart: RestartFn,
}

impl TaskControl {
    pub fn state(&self) -> TaskState {
        self.state.borrow().clone()
    }

    /// The driver and live handle of a running task.
    pub fn running(&self) -> Option<(Arc<dyn Driver>, TaskHandle)> {
        let handle = self
            .handle
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()?;
        Some((self.driver.clone()?, handle))
    }

    pub fn is_running(&self) -> bool {
        let s = self.state();
        s.state != TASK_STATE_DEAD && s.state != TASK_STATE_PENDING && self.running().is_some()
    }
}

/// One alloc as the endpoints see it.
#[derive(Clone)]
pub struct AllocControl {
    pub alloc_id: String,
    pub alloc_dir: PathBuf,
    pub tasks: Arc<RwLock<BTreeMap<String, TaskControl>>>,
    /// Latest result per Nomad service check (empty once the alloc stopped).
    pub checks: super::checks::SharedResults,
    /// Restart every task, dead ones included, in lifecycle order (the alloc runner's
    /// `RestartAll`).
    pub restart_all: Arc<dyn Fn() + Send + Sync>,
}

/// The client's live allocs, by ID.
pub type AllocIndex = Arc<RwLock<BTreeMap<String, AllocControl>>>;

fn event(kind: &str) -> TaskEvent {
    TaskEvent::new(kind, now_nanos())
}

/// Nomad's "Restart Signaled" event with its display message.
pub fn restart_signaled(reason: &str) -> TaskEvent {
    let mut e = event(TASK_RESTART_SIGNAL);
    e.restart_reason = reason.to_string();
    e.details
        .insert("restart_reason".into(), reason.to_string());
    e.display_message = reason.to_string();
    e
}

/// Nomad's "Signaling" event (`SetSignalText`): only the detail is set, so it displays as
/// "Task being sent a signal".
pub fn signaling(signal: &str) -> TaskEvent {
    let mut e = event(TASK_SIGNALING);
    e.details.insert("signal".into(), signal.to_string());
    e.display_message = "Task being sent a signal".to_string();
    e
}

impl AllocControl {
    fn tasks(&self) -> BTreeMap<String, TaskControl> {
        self.tasks.read().unwrap_or_else(|e| e.into_inner()).clone()
    }

    fn task(&self, name: &str) -> Option<TaskControl> {
        self.tasks
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(name)
            .cloned()
    }

    /// Nomad's `RestartAllocation`: one task, all tasks, or (neither) the running ones.
    pub fn restart(&self, task: &str, all_tasks: bool) -> Result<(), ClientOpError> {
        if all_tasks && !task.is_empty() {
            return Err(ClientOpError::TaskAndAll);
        }
        if !task.is_empty() {
            let t = self.task(task).ok_or_else(|| {
                ClientOpError::Driver(format!("Could not find task runner for task: {task}"))
            })?;
            if !t.is_running() {
                return Err(ClientOpError::TaskNotRunning);
            }
            (t.note)(restart_signaled("User requested task to restart"));
            (t.restart)();
            return Ok(());
        }
        if all_tasks {
            (self.restart_all)();
            return Ok(());
        }
        for t in self.tasks().values().filter(|t| t.is_running()) {
            (t.note)(restart_signaled("User requested running tasks to restart"));
            (t.restart)();
        }
        Ok(())
    }

    /// The latest result of every Nomad service check, by check ID.
    pub fn checks(&self) -> crate::api::AllocCheckResults {
        self.checks
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }

    /// Nomad's alloc runner `Signal`: one task, or every task when `task` is empty.
    pub async fn signal(&self, task: &str, signal: &str) -> Result<(), ClientOpError> {
        let targets: Vec<TaskControl> = if task.is_empty() {
            self.tasks().into_values().collect()
        } else {
            vec![self.task(task).ok_or(ClientOpError::TaskNotFound)?]
        };
        let mut errors = Vec::new();
        for t in targets {
            let Some((driver, handle)) = t.running() else {
                if !task.is_empty() {
                    return Err(ClientOpError::TaskNotRunning);
                }
                continue;
            };
            (t.note)(signaling(signal));
            if let Err(e) = driver.signal(&handle, signal).await {
                if !task.is_empty() {
                    return Err(e.into());
                }
                errors.push(format!("Failed to signal task: {}, err: {e}", t.name));
            }
        }
        if errors.is_empty() {
            Ok(())
        } else {
            Err(ClientOpError::Driver(errors.join("\n")))
        }
    }

    /// Stats of every running task (or just `task`), summed for the alloc.
    pub async fn stats(&self, task: &str) -> Result<AllocResourceUsage, ClientOpError> {
        let mut out: BTreeMap<String, TaskResourceUsage> = BTreeMap::new();
        let tasks = self.tasks();
        if !task.is_empty() && !tasks.contains_key(task) {
            return Err(ClientOpError::UnknownTask(task.to_string()));
        }
        for (name, t) in tasks {
            if !task.is_empty() && name != task {
                continue;
            }
            let Some((driver, handle)) = t.running() else {
                continue;
            };
            match driver.stats(&handle).await {
                Ok(u) => {
                    out.insert(name, u);
                }
                Err(DriverError::Unsupported(_)) => {}
                Err(e) => tracing::debug!(task = %name, error = %e, "task stats failed"),
            }
        }
        Ok(AllocResourceUsage::from_tasks(out, now_nanos()))
    }

    /// Runs `session` in `task` (Nomad's `Allocations.Exec` checks, then the driver).
    pub async fn exec(&self, task: &str, session: ExecSession) -> Result<i32, ClientOpError> {
        if session.command.is_empty() {
            return Err(ClientOpError::BadRequest(
                "command is not present".to_string(),
            ));
        }
        let t = self
            .task(task)
            .ok_or_else(|| ClientOpError::UnknownTask(task.to_string()))?;
        let state = t.state();
        if state.state == TASK_STATE_PENDING && state.started_at.is_none() {
            return Err(ClientOpError::NotStarted(task.to_string()));
        }
        let Some((driver, handle)) = t.running().filter(|_| state.state != TASK_STATE_DEAD) else {
            return Err(ClientOpError::NotRunning(task.to_string()));
        };
        if !driver.capabilities().exec {
            return Err(ClientOpError::BadRequest(
                "task does not support exec".to_string(),
            ));
        }
        Ok(driver.exec_streaming(&handle, session).await?)
    }
}
