//! Task drivers: the `Driver` trait the task runner talks to, and the built-in drivers
//! (`raw_exec`, `mock_driver`). A driver owns the processes it starts; the client owns
//! nothing but `TaskHandle`s.
//!
//! The trait is shaped like Nomad's `DriverPlugin` so the later pieces slot in: a
//! `TaskHandle` is plain serialisable data (config + driver state), which is what
//! `recover(handle)` will take after a client restart, and `exec` will be one more method.
//! This module must not know about allocs, the server or the client's state.

pub mod cgroups;
pub mod docker;
pub mod duration;
pub mod events;
pub mod exec;
pub mod exec_stream;
pub mod host_exec;
pub mod logging;
pub mod mock;
mod mock_exec;
pub mod raw_exec;
mod signals;
pub mod stats;
pub mod supervised;
mod task_store;
#[cfg(test)]
pub(crate) mod testutil;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;
use std::time::Duration;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};
use serde_json::Value;

pub use duration::{format_go_duration, format_go_nanos, parse_go_duration};
pub use events::{DriverTaskEvent, TaskEventSink};
pub use logging::{LogSpec, LogStream};
pub use signals::{parse_signal, signal_name};

/// Nomad's `drivers.DriverHealthy`.
pub const DRIVER_HEALTHY: &str = "Healthy";

#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
pub enum DriverError {
    #[error("{0} is disabled")]
    Disabled(String),
    #[error("task not found for given id")]
    TaskNotFound,
    #[error("task with ID {0:?} already started")]
    AlreadyStarted(String),
    #[error("failed driver config validation: {0}")]
    InvalidConfig(String),
    #[error("binary {0:?} could not be found")]
    BinaryNotFound(String),
    #[error("failed to launch command {command:?}: {reason}")]
    Spawn { command: String, reason: String },
    /// A start error chosen by the task (mock's `start_error`) or reported by the runtime.
    #[error("{message}")]
    StartFailed { message: String, recoverable: bool },
    #[error("unknown signal {0:?}")]
    UnknownSignal(String),
    #[error("cannot destroy running task")]
    DestroyRunning,
    #[error("{0}")]
    SignalFailed(String),
    #[error("failed to set up task logs in {path}: {reason}")]
    Logs { path: String, reason: String },
    /// The driver does not offer this operation (exec, stats).
    #[error("{0} not supported by this driver")]
    Unsupported(&'static str),
    /// The task of a handle from an earlier agent process cannot be re-attached.
    #[error("failed to recover task: {0}")]
    Recover(String),
    /// A command run by `exec` outlived its timeout (Go's `context.DeadlineExceeded` text,
    /// which Nomad reports as the output of a timed-out script check).
    #[error("context deadline exceeded")]
    DeadlineExceeded,
}

impl DriverError {
    /// Whether the restart policy may retry after this start error (Nomad's
    /// `structs.IsRecoverable`): only errors explicitly marked recoverable are.
    pub fn is_recoverable(&self) -> bool {
        matches!(
            self,
            DriverError::StartFailed {
                recoverable: true,
                ..
            }
        )
    }
}

/// Nomad's `drivers.HealthState`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum HealthState {
    Undetected,
    Unhealthy,
    Healthy,
}

/// One fingerprint of a driver; the client turns it into an `api::DriverInfo` and
/// `driver.<name>` node attributes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Fingerprint {
    pub health: HealthState,
    pub health_description: String,
    /// Attributes as Nomad reports them in the driver info, e.g. `driver.raw_exec = "true"`.
    pub attributes: BTreeMap<String, String>,
}

impl Fingerprint {
    pub fn healthy(name: &str) -> Self {
        Fingerprint {
            health: HealthState::Healthy,
            health_description: DRIVER_HEALTHY.to_string(),
            attributes: BTreeMap::from([(format!("driver.{name}"), "true".to_string())]),
        }
    }

    pub fn undetected(description: &str) -> Self {
        Fingerprint {
            health: HealthState::Undetected,
            health_description: description.to_string(),
            attributes: BTreeMap::new(),
        }
    }
}

/// How much of the host a task sees; decides whether the client passes host paths and the
/// host environment (Nomad's `FSIsolation`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FsIsolation {
    None,
    Chroot,
    Image,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Capabilities {
    pub send_signals: bool,
    pub exec: bool,
    pub fs_isolation: FsIsolation,
}

/// Everything a driver needs to start one task. Config values are already interpolated.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct TaskConfig {
    /// Unique per start attempt: `<alloc_id>/<task>/<random>`, as Nomad builds it.
    pub id: String,
    pub name: String,
    pub alloc_id: String,
    pub job_name: String,
    pub task_group_name: String,
    /// The task's driver `config { }` block.
    pub config: BTreeMap<String, Value>,
    pub env: BTreeMap<String, String>,
    pub user: String,
    /// `<alloc_dir>/<task>`: the working directory.
    pub task_dir: PathBuf,
    /// `<alloc_dir>`, holding the shared `alloc/` directory.
    pub alloc_dir: PathBuf,
    pub log_max_files: u32,
    pub log_max_file_size_mb: u32,
    /// Skip writing logs (`logs { disabled = true }`).
    pub logs_disabled: bool,
    pub cpu_shares: i64,
    pub memory_mb: i64,
    pub memory_max_mb: i64,
    /// CPU cores reserved for the task (`resources { cores = N }`): the task is pinned to
    /// them with the cpuset cgroup controller.
    #[serde(default)]
    pub reserved_cores: Vec<u32>,
    /// Host paths to mount into the task (host volumes), for drivers that support mounts.
    #[serde(default)]
    pub mounts: Vec<MountConfig>,
    /// Where the driver sends task events about this task (see `events`); set by the task
    /// runner for every start and recover, never persisted.
    #[serde(skip)]
    pub events: TaskEventSink,
}

/// One mount of a host path into a task (Nomad's `drivers.MountConfig`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct MountConfig {
    /// Where the task sees it (absolute, or relative to the task's root).
    pub task_path: String,
    pub host_path: PathBuf,
    pub readonly: bool,
    /// `private` (default), `host-to-task` or `bidirectional`.
    pub propagation_mode: String,
}

impl TaskConfig {
    /// Emits a task event about this task to whoever runs it (Nomad's `EmitEvent` with the
    /// task's IDs filled in).
    pub fn emit_event<'a>(
        &self,
        message: &str,
        annotations: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) {
        self.events.send(DriverTaskEvent {
            task_id: self.id.clone(),
            alloc_id: self.alloc_id.clone(),
            task_name: self.name.clone(),
            timestamp: crate::api::now_nanos(),
            message: message.to_string(),
            annotations: annotations
                .into_iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
        });
    }

    pub fn log_spec(&self) -> LogSpec {
        LogSpec::new(
            self.alloc_dir.join("alloc").join("logs"),
            &self.name,
            self.log_max_files,
            self.log_max_file_size_mb,
        )
    }

    /// A string field of the driver config; `Ok(None)` when absent.
    pub fn config_str(&self, key: &str) -> Result<Option<String>, DriverError> {
        match self.config.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::String(s)) => Ok(Some(s.clone())),
            Some(Value::Number(n)) => Ok(Some(n.to_string())),
            Some(Value::Bool(b)) => Ok(Some(b.to_string())),
            Some(other) => Err(DriverError::InvalidConfig(format!(
                "{key:?} must be a string, got {other}"
            ))),
        }
    }

    pub fn config_i64(&self, key: &str) -> Result<Option<i64>, DriverError> {
        match self.config.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Number(n)) => n
                .as_i64()
                .or_else(|| n.as_f64().map(|f| f as i64))
                .map(Some)
                .ok_or_else(|| DriverError::InvalidConfig(format!("{key:?} must be a number"))),
            Some(Value::String(s)) => s.trim().parse().map(Some).map_err(|_| {
                DriverError::InvalidConfig(format!("{key:?} must be a number, got {s:?}"))
            }),
            Some(other) => Err(DriverError::InvalidConfig(format!(
                "{key:?} must be a number, got {other}"
            ))),
        }
    }

    pub fn config_bool(&self, key: &str) -> Result<Option<bool>, DriverError> {
        match self.config.get(key) {
            None | Some(Value::Null) => Ok(None),
            Some(Value::Bool(b)) => Ok(Some(*b)),
            Some(Value::String(s)) => s.trim().parse().map(Some).map_err(|_| {
                DriverError::InvalidConfig(format!("{key:?} must be a bool, got {s:?}"))
            }),
            Some(other) => Err(DriverError::InvalidConfig(format!(
                "{key:?} must be a bool, got {other}"
            ))),
        }
    }

    pub fn config_duration(&self, key: &str) -> Result<Duration, DriverError> {
        match self.config_str(key)? {
            None => Ok(Duration::ZERO),
            Some(s) => parse_go_duration(&s)
                .map_err(|_| DriverError::InvalidConfig(format!("{key} {s} not a valid duration"))),
        }
    }

    pub fn config_str_list(&self, key: &str) -> Result<Vec<String>, DriverError> {
        match self.config.get(key) {
            None | Some(Value::Null) => Ok(Vec::new()),
            Some(Value::Array(items)) => items
                .iter()
                .map(|v| match v {
                    Value::String(s) => Ok(s.clone()),
                    Value::Number(n) => Ok(n.to_string()),
                    Value::Bool(b) => Ok(b.to_string()),
                    other => Err(DriverError::InvalidConfig(format!(
                        "{key:?} must be a list of strings, got {other}"
                    ))),
                })
                .collect(),
            Some(other) => Err(DriverError::InvalidConfig(format!(
                "{key:?} must be a list of strings, got {other}"
            ))),
        }
    }
}

/// What a started task is, as data: enough for the driver to find (and later recover) it.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct TaskHandle {
    pub version: u32,
    pub driver: String,
    pub config: TaskConfig,
    /// Driver-specific state (pid, start time ...), what `recover` will read.
    pub driver_state: Value,
}

impl TaskHandle {
    pub fn id(&self) -> &str {
        &self.config.id
    }
}

/// How much of a command's output `exec` keeps: the last 4 KiB (Nomad's `CheckBufSize`).
pub const CHECK_BUF_SIZE: usize = 4 * 1024;

/// What a command run inside a task by `exec` produced (Nomad's `ExecTaskResult`); each
/// stream holds at most the last `CHECK_BUF_SIZE` bytes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ExecTaskResult {
    pub stdout: Vec<u8>,
    pub stderr: Vec<u8>,
    pub exit_code: i32,
}

/// How a task ended (Nomad's `drivers.ExitResult`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExitResult {
    pub exit_code: i32,
    pub signal: i32,
    pub oom_killed: bool,
    pub err: Option<String>,
}

impl ExitResult {
    pub fn successful(&self) -> bool {
        self.exit_code == 0 && self.signal == 0 && self.err.is_none()
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
pub enum TaskRunState {
    Running,
    Exited,
}

/// Nomad's `drivers.TaskStatus`, returned by `inspect`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TaskStatus {
    pub id: String,
    pub name: String,
    pub state: TaskRunState,
    /// Unix nanoseconds.
    pub started_at: i64,
    pub completed_at: Option<i64>,
    pub exit_result: Option<ExitResult>,
    pub driver_attributes: BTreeMap<String, String>,
}

#[async_trait]
pub trait Driver: Send + Sync + 'static {
    /// The plugin name tasks use in `driver = "..."`.
    fn name(&self) -> &'static str;
    fn capabilities(&self) -> Capabilities;
    async fn fingerprint(&self) -> Fingerprint;
    async fn start(&self, cfg: TaskConfig) -> Result<TaskHandle, DriverError>;
    /// Resolves when the task exits; any number of callers may wait on the same task.
    async fn wait(&self, handle: &TaskHandle) -> Result<ExitResult, DriverError>;
    /// Sends `signal` (empty: SIGINT) and, if the task is still running after `timeout`,
    /// SIGKILL. Returns once the kill has been delivered, not necessarily after the exit.
    async fn stop(
        &self,
        handle: &TaskHandle,
        signal: &str,
        timeout: Duration,
    ) -> Result<(), DriverError>;
    /// Forgets the task and frees what it held. A running task is refused unless `force`.
    async fn destroy(&self, handle: &TaskHandle, force: bool) -> Result<(), DriverError>;
    async fn signal(&self, handle: &TaskHandle, signal: &str) -> Result<(), DriverError>;
    async fn inspect(&self, handle: &TaskHandle) -> Result<TaskStatus, DriverError>;
    /// Whether the driver can mount host paths into tasks (Nomad's `MountConfigs`
    /// capability). Drivers without filesystem isolation cannot.
    fn supports_mounts(&self) -> bool {
        self.capabilities().fs_isolation != FsIsolation::None
    }
    /// Runs a command inside the running task, streaming its input and output; returns the
    /// command's exit code (Nomad's `ExecTaskStreaming`).
    async fn exec_streaming(
        &self,
        _handle: &TaskHandle,
        _session: exec_stream::ExecSession,
    ) -> Result<i32, DriverError> {
        Err(DriverError::Unsupported("exec"))
    }
    /// Runs `command` inside the running task to completion (Nomad's `ExecTask`, what script
    /// checks use); `DeadlineExceeded` once `timeout` passes. The default runs it through
    /// `exec_streaming` with no input and, as Nomad's executor-based drivers do, collects
    /// stdout and stderr into one buffer, returned as `stdout`.
    async fn exec(
        &self,
        handle: &TaskHandle,
        command: Vec<String>,
        timeout: Duration,
    ) -> Result<ExecTaskResult, DriverError> {
        exec_stream::run_to_completion(command, timeout, |session| {
            self.exec_streaming(handle, session)
        })
        .await
    }
    /// One resource usage sample of the task (Nomad's `TaskStats`).
    async fn stats(&self, _handle: &TaskHandle) -> Result<stats::TaskResourceUsage, DriverError> {
        Err(DriverError::Unsupported("stats"))
    }
    /// Re-attaches to a task an earlier agent process started, from its handle (Nomad's
    /// `RecoverTask`). After `Ok`, `wait` reports its exit, also one that happened while
    /// the agent was down. Drivers whose tasks cannot outlive the agent keep this default.
    async fn recover(&self, handle: &TaskHandle) -> Result<(), DriverError> {
        Err(DriverError::Recover(format!(
            "driver {} cannot recover task {}",
            self.name(),
            handle.id()
        )))
    }
}

/// A plugin's `config { }` block from the agent config, e.g. `{"enabled": true}`.
pub type PluginConfig = BTreeMap<String, Value>;

/// Which drivers the agent configured: plugin name -> its config. Dev mode adds `raw_exec`
/// (enabled) and `mock_driver`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct DriverConfig {
    pub plugins: BTreeMap<String, PluginConfig>,
    pub dev_mode: bool,
}

impl DriverConfig {
    pub fn dev() -> Self {
        DriverConfig {
            plugins: BTreeMap::new(),
            dev_mode: true,
        }
    }

    fn plugin_bool(&self, plugin: &str, key: &str) -> Option<bool> {
        match self.plugins.get(plugin)?.get(key)? {
            Value::Bool(b) => Some(*b),
            Value::String(s) => s.parse().ok(),
            _ => None,
        }
    }
}

/// The drivers this client offers, by name.
#[derive(Clone, Default)]
pub struct DriverRegistry {
    drivers: BTreeMap<String, Arc<dyn Driver>>,
}

impl std::fmt::Debug for DriverRegistry {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.drivers.keys()).finish()
    }
}

impl DriverRegistry {
    /// Built-in drivers per the agent's config. raw_exec is always registered (so it shows
    /// up as undetected/"disabled" like Nomad's) but only healthy when enabled; the mock
    /// driver exists only in dev mode or when configured.
    pub fn from_config(cfg: &DriverConfig) -> Self {
        let mut reg = DriverRegistry::default();
        let raw_exec_enabled = cfg
            .plugin_bool(raw_exec::NAME, "enabled")
            .unwrap_or(cfg.dev_mode);
        reg.insert(Arc::new(raw_exec::RawExecDriver::new(raw_exec_enabled)));
        // Always registered: it fingerprints as undetected when no daemon answers.
        reg.insert(Arc::new(docker::DockerDriver::new(
            cfg.plugins.get(docker::NAME),
        )));
        // Always registered: undetected unless root with cgroups, as Nomad's.
        reg.insert(Arc::new(exec::ExecDriver::new(cfg.plugins.get(exec::NAME))));
        if cfg.dev_mode || cfg.plugins.contains_key(mock::NAME) {
            reg.insert(Arc::new(mock::MockDriver::new()));
        }
        reg
    }

    pub fn insert(&mut self, driver: Arc<dyn Driver>) {
        self.drivers.insert(driver.name().to_string(), driver);
    }

    pub fn get(&self, name: &str) -> Option<Arc<dyn Driver>> {
        self.drivers.get(name).cloned()
    }

    pub fn iter(&self) -> impl Iterator<Item = (&str, &Arc<dyn Driver>)> {
        self.drivers.iter().map(|(k, v)| (k.as_str(), v))
    }
}
