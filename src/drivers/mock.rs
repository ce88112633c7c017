//! `mock_driver`: a fake task driven entirely by its config, as Nomad's drivers/mock. Tests
//! and benchmarks use it, so a task is one tokio task and a few small file writes.
//!
//! Task config keys (Nomad's names): `run_for`, `exit_code`, `exit_signal`, `exit_err_msg`,
//! `signal_error`, `start_error`, `start_error_recoverable`, `start_block_for`, `kill_after`,
//! `stdout_string`, `stdout_repeat`, `stdout_repeat_duration`, and the `stderr_*` trio.

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use serde_json::json;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::logging::{FileRotator, LogStream};
use super::task_store::{ExitCell, TaskStore};
use super::{
    Capabilities, Driver, DriverError, ExitResult, Fingerprint, FsIsolation, TaskConfig,
    TaskHandle, TaskRunState, TaskStatus,
};
use crate::api::now_nanos;

pub const NAME: &str = "mock_driver";
const HANDLE_VERSION: u32 = 1;

/// What one mock task does, parsed from its config.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MockCommand {
    pub run_for: Duration,
    pub exit_code: i32,
    pub exit_signal: i32,
    pub exit_err_msg: Option<String>,
    pub signal_error: Option<String>,
    pub stdout: Output,
    pub stderr: Output,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct Output {
    pub string: String,
    pub repeat: u64,
    pub repeat_every: Duration,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct MockTaskConfig {
    pub command: MockCommand,
    pub start_error: Option<String>,
    pub start_error_recoverable: bool,
    pub start_block_for: Duration,
    pub kill_after: Duration,
}

impl MockTaskConfig {
    pub fn parse(cfg: &TaskConfig) -> Result<Self, DriverError> {
        let output = |prefix: &str| -> Result<Output, DriverError> {
            Ok(Output {
                string: cfg
                    .config_str(&format!("{prefix}_string"))?
                    .unwrap_or_default(),
                repeat: cfg
                    .config_i64(&format!("{prefix}_repeat"))?
                    .unwrap_or(0)
                    .max(0) as u64,
                repeat_every: cfg.config_duration(&format!("{prefix}_repeat_duration"))?,
            })
        };
        Ok(MockTaskConfig {
            command: MockCommand {
                run_for: cfg.config_duration("run_for")?,
                exit_code: cfg.config_i64("exit_code")?.unwrap_or(0) as i32,
                exit_signal: cfg.config_i64("exit_signal")?.unwrap_or(0) as i32,
                exit_err_msg: cfg.config_str("exit_err_msg")?.filter(|s| !s.is_empty()),
                signal_error: cfg.config_str("signal_error")?.filter(|s| !s.is_empty()),
                stdout: output("stdout")?,
                stderr: output("stderr")?,
            },
            start_error: cfg.config_str("start_error")?.filter(|s| !s.is_empty()),
            start_error_recoverable: cfg.config_bool("start_error_recoverable")?.unwrap_or(false),
            start_block_for: cfg.config_duration("start_block_for")?,
            kill_after: cfg.config_duration("kill_after")?,
        })
    }
}

pub struct MockDriver {
    tasks: TaskStore<MockTask>,
}

struct MockTask {
    name: String,
    command: MockCommand,
    kill_after: Duration,
    kill: CancellationToken,
    started_at: i64,
    completed_at: Mutex<Option<i64>>,
    exit: ExitCell,
    runner: Mutex<Option<JoinHandle<()>>>,
}

impl MockDriver {
    pub fn new() -> Self {
        MockDriver {
            tasks: TaskStore::default(),
        }
    }
}

impl Default for MockDriver {
    fn default() -> Self {
        Self::new()
    }
}

/// One output stream's schedule: write now, then `repeat` more times every `repeat_every`.
struct Writer {
    out: Output,
    file: Option<FileRotator>,
    written: u64,
}

impl Writer {
    fn write_once(&mut self) -> Result<(), String> {
        if let Some(f) = self.file.as_mut() {
            f.write_all(self.out.string.as_bytes())
                .and_then(|_| f.flush())
                .map_err(|e| format!("failed to write to {}: {e}", "task log"))?;
        }
        Ok(())
    }

    fn more(&self) -> bool {
        !self.out.string.is_empty() && self.written < self.out.repeat
    }
}

async fn run(
    command: MockCommand,
    stdout: Option<FileRotator>,
    stderr: Option<FileRotator>,
    kill: CancellationToken,
) -> ExitResult {
    let mut writers = [
        Writer {
            out: command.stdout.clone(),
            file: stdout,
            written: 0,
        },
        Writer {
            out: command.stderr.clone(),
            file: stderr,
            written: 0,
        },
    ];
    for w in writers.iter_mut().filter(|w| !w.out.string.is_empty()) {
        if let Err(e) = w.write_once() {
            return ExitResult {
                err: Some(e),
                ..Default::default()
            };
        }
    }
    let deadline = tokio::time::sleep(command.run_for);
    tokio::pin!(deadline);
    let [out, err] = &mut writers;
    let mut next_out = tokio::time::Instant::now() + out.out.repeat_every;
    let mut next_err = tokio::time::Instant::now() + err.out.repeat_every;
    loop {
        tokio::select! {
            _ = &mut deadline => break,
            _ = kill.cancelled() => break,
            _ = tokio::time::sleep_until(next_out), if out.more() => {
                out.written += 1;
                next_out += out.out.repeat_every;
                if let Err(e) = out.write_once() {
                    return ExitResult { err: Some(e), ..Default::default() };
                }
            }
            _ = tokio::time::sleep_until(next_err), if err.more() => {
                err.written += 1;
                next_err += err.out.repeat_every;
                if let Err(e) = err.write_once() {
                    return ExitResult { err: Some(e), ..Default::default() };
                }
            }
        }
    }
    ExitResult {
        exit_code: command.exit_code,
        signal: command.exit_signal,
        oom_killed: false,
        err: command.exit_err_msg,
    }
}

#[async_trait]
impl Driver for MockDriver {
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

    /// Like Nomad's mock driver, mounts are accepted (and not performed).
    fn supports_mounts(&self) -> bool {
        true
    }

    async fn fingerprint(&self) -> Fingerprint {
        Fingerprint::healthy(NAME)
    }

    async fn start(&self, cfg: TaskConfig) -> Result<TaskHandle, DriverError> {
        let parsed = MockTaskConfig::parse(&cfg)?;
        if !parsed.start_block_for.is_zero() {
            tokio::time::sleep(parsed.start_block_for).await;
        }
        if let Some(message) = parsed.start_error {
            return Err(DriverError::StartFailed {
                message,
                recoverable: parsed.start_error_recoverable,
            });
        }
        if self.tasks.contains(&cfg.id) {
            return Err(DriverError::AlreadyStarted(cfg.id.clone()));
        }
        let (stdout, stderr) = if cfg.logs_disabled {
            (None, None)
        } else {
            let spec = cfg.log_spec();
            let open = |s| {
                spec.rotator(s).map_err(|e| DriverError::Logs {
                    path: spec.dir.display().to_string(),
                    reason: e.to_string(),
                })
            };
            (
                Some(open(LogStream::Stdout)?),
                Some(open(LogStream::Stderr)?),
            )
        };
        let task = Arc::new(MockTask {
            name: cfg.name.clone(),
            command: parsed.command.clone(),
            kill_after: parsed.kill_after,
            kill: CancellationToken::new(),
            started_at: now_nanos(),
            completed_at: Mutex::new(None),
            exit: ExitCell::default(),
            runner: Mutex::new(None),
        });
        let t = task.clone();
        let runner = tokio::spawn(async move {
            let result = run(t.command.clone(), stdout, stderr, t.kill.clone()).await;
            *t.completed_at.lock().unwrap_or_else(|e| e.into_inner()) = Some(now_nanos());
            t.exit.set(result);
        });
        *task.runner.lock().unwrap_or_else(|e| e.into_inner()) = Some(runner);
        self.tasks.insert_new(&cfg.id, task.clone())?;
        Ok(TaskHandle {
            version: HANDLE_VERSION,
            driver: NAME.to_string(),
            driver_state: json!({ "started_at": task.started_at }),
            config: cfg,
        })
    }

    async fn wait(&self, handle: &TaskHandle) -> Result<ExitResult, DriverError> {
        Ok(self.tasks.get(handle.id())?.exit.wait().await)
    }

    /// As Nomad's mock: the signal and timeout are ignored; the task gets `kill_after` to
    /// exit on its own, then it is killed.
    async fn stop(
        &self,
        handle: &TaskHandle,
        _signal: &str,
        _timeout: Duration,
    ) -> Result<(), DriverError> {
        let task = self.tasks.get(handle.id())?;
        if tokio::time::timeout(task.kill_after, task.exit.wait())
            .await
            .is_err()
        {
            task.kill.cancel();
        }
        Ok(())
    }

    async fn destroy(&self, handle: &TaskHandle, force: bool) -> Result<(), DriverError> {
        let task = self.tasks.get(handle.id())?;
        if task.exit.get().is_none() && !force {
            return Err(DriverError::DestroyRunning);
        }
        task.kill.cancel();
        self.tasks.remove(handle.id());
        let runner = task.runner.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(r) = runner {
            let _ = r.await;
        }
        Ok(())
    }

    async fn signal(&self, handle: &TaskHandle, _signal: &str) -> Result<(), DriverError> {
        let task = self.tasks.get(handle.id())?;
        match &task.command.signal_error {
            Some(msg) => Err(DriverError::SignalFailed(msg.clone())),
            None => Ok(()),
        }
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
            driver_attributes: Default::default(),
        })
    }

    async fn exec_streaming(
        &self,
        handle: &TaskHandle,
        session: super::exec_stream::ExecSession,
    ) -> Result<i32, DriverError> {
        self.tasks.get(handle.id())?;
        super::mock_exec::run_exec(&handle.config, session).await
    }

    async fn stats(
        &self,
        handle: &TaskHandle,
    ) -> Result<super::stats::TaskResourceUsage, DriverError> {
        self.tasks.get(handle.id())?;
        Ok(super::mock_exec::stats(now_nanos()))
    }
}

#[cfg(test)]
#[path = "mock_tests.rs"]
mod tests;
