//! `raw_exec`: runs a command directly on the host, without isolation, as Nomad's raw_exec.
//!
//! Each task runs under its own supervisor process (`nomad executor`, see `crate::executor`)
//! that owns its output (rotated into `alloc/logs/<task>.{stdout,stderr}.N`), records its
//! exit status and outlives the agent. The task leads its own process group, so stopping it
//! (kill_signal, then SIGKILL after kill_timeout) and destroying it reach every descendant.
//! After an agent restart `recover` re-attaches through the handle's socket path.
//! Enabled only by `plugin "raw_exec" { config { enabled = true } }` or `-dev`.

use std::path::{Path, PathBuf};
use std::time::Duration;

use async_trait::async_trait;
use nix::sys::signal::Signal;

use super::supervised::SupervisedTasks;
use super::{
    Capabilities, Driver, DriverError, ExitResult, Fingerprint, FsIsolation, TaskConfig,
    TaskHandle, TaskRunState, TaskStatus,
};
use crate::executor::{LaunchSpec, LogTarget};

pub use super::supervised::SupervisedState as RawExecState;

pub const NAME: &str = "raw_exec";
const HANDLE_VERSION: u32 = 2;

pub struct RawExecDriver {
    enabled: bool,
    tasks: SupervisedTasks,
}

impl RawExecDriver {
    pub fn new(enabled: bool) -> Self {
        RawExecDriver {
            enabled,
            tasks: SupervisedTasks::default(),
        }
    }
}

/// The task's `user` as ids to switch to: none when unset or when it is the agent's own
/// user; a user that does not exist, or another user while the agent is not root (it
/// could not switch), is an error rather than silently running as the agent.
fn user_ids(user: &str) -> Result<(Option<u32>, Option<u32>), DriverError> {
    if user.is_empty() {
        return Ok((None, None));
    }
    let u = nix::unistd::User::from_name(user)
        .ok()
        .flatten()
        .ok_or_else(|| DriverError::InvalidConfig(format!("user {user:?} does not exist")))?;
    let me = nix::unistd::geteuid();
    if me.is_root() {
        return Ok((Some(u.uid.as_raw()), Some(u.gid.as_raw())));
    }
    if u.uid == me {
        return Ok((None, None));
    }
    Err(DriverError::InvalidConfig(format!(
        "cannot run the task as user {user:?}: the client is not running as root"
    )))
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
        let state = self
            .tasks
            .launch(&cfg.name, &bin.display().to_string(), &spec)
            .await?;
        Ok(TaskHandle {
            version: HANDLE_VERSION,
            driver: NAME.to_string(),
            driver_state: serde_json::to_value(&state).unwrap_or_default(),
            config: cfg,
        })
    }

    async fn recover(&self, handle: &TaskHandle) -> Result<(), DriverError> {
        self.tasks.recover(handle).await
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
        self.tasks.stop(handle.id(), signal, timeout).await
    }

    async fn destroy(&self, handle: &TaskHandle, force: bool) -> Result<(), DriverError> {
        self.tasks.destroy(handle.id(), force).await
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
        super::host_exec::exec_on_host(&handle.config, session).await
    }

    async fn stats(
        &self,
        handle: &TaskHandle,
    ) -> Result<super::stats::TaskResourceUsage, DriverError> {
        let pid = self.tasks.pid(handle.id())?;
        Ok(super::stats::process_group_usage(
            pid,
            crate::api::now_nanos(),
        ))
    }
}

#[cfg(test)]
#[path = "raw_exec_tests.rs"]
mod tests;
