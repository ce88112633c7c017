//! What the agent hands the supervisor (`LaunchSpec`), what the supervisor leaves behind
//! (`ExitRecord`), where those live in the task dir, and the control protocol: one JSON
//! object per line in each direction over the task's unix socket.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use super::isolation::Isolation;

/// Files the supervisor keeps in the task dir. Hidden, so they stay out of the task's way.
pub const SPEC_FILE: &str = ".nomad-executor.spec.json";
pub const SOCKET_FILE: &str = ".nomad-executor.sock";
pub const EXIT_FILE: &str = ".nomad-executor.exit.json";
/// The supervisor's own diagnostics (its stderr).
pub const LOG_FILE: &str = ".nomad-executor.log";

/// Everything the supervisor needs to start and watch one task. Paths are absolute.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct LaunchSpec {
    /// The driver's task id (`<alloc>/<task>/<random>`); recorded in the exit file so a
    /// later start attempt never mistakes an old record for its own.
    pub task_id: String,
    /// `argv[0]` is the resolved binary.
    pub argv: Vec<String>,
    /// The complete environment (nothing is inherited from the supervisor).
    pub env: Vec<(String, String)>,
    pub cwd: PathBuf,
    /// Where the socket, exit and log files go (the task dir).
    pub state_dir: PathBuf,
    /// Run as this user and group (already resolved by the agent).
    pub uid: Option<u32>,
    pub gid: Option<u32>,
    pub logs: LogTarget,
    /// Signal number and grace period used when the supervisor itself is told to stop
    /// (SIGTERM to the supervisor) without a control request.
    pub kill_signal: i32,
    pub kill_timeout_ms: u64,
    /// Driver-specific isolation (namespaces, chroot, cgroups); see `isolation.rs`.
    /// `None` for raw_exec.
    #[serde(default)]
    pub isolation: Option<Isolation>,
}

/// Where the task's stdout/stderr go: `<dir>/<task>.stdout.N`, rotated.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LogTarget {
    /// `None`: output is discarded (`logs { disabled = true }`).
    pub dir: Option<PathBuf>,
    pub task_name: String,
    pub max_files: u32,
    pub max_file_size_bytes: u64,
}

/// How the task ended, as the supervisor recorded it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExitRecord {
    pub task_id: String,
    pub pid: i32,
    pub exit_code: i32,
    pub signal: i32,
    /// Unix nanoseconds.
    pub started_at: i64,
    pub completed_at: i64,
    /// Set when the task could not be started or its logs could not be written.
    pub err: Option<String>,
    /// The kernel's OOM killer ended the task (isolated tasks, read from their cgroup).
    #[serde(default)]
    pub oom_killed: bool,
}

/// The supervisor's first (and only) line on its stdout, read by the agent at launch.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Ready {
    Started { pid: i32, started_at: i64 },
    Failed { error: String },
}

/// A control request.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "op", rename_all = "snake_case")]
pub enum Request {
    /// Answered at once.
    Status,
    /// Delivered to the task's main process.
    Signal { signal: i32 },
    /// `signal` to the process group, SIGKILL to the group after `timeout_ms` (0: at once).
    /// Answered once the signal is delivered; the supervisor enforces the timeout itself,
    /// so a stop survives the agent going away.
    Stop { signal: i32, timeout_ms: u64 },
    /// Answered when the task has exited (at once if it already has).
    Wait,
}

/// The answer to every request: the task's state at that moment.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Response {
    pub pid: i32,
    pub started_at: i64,
    /// Present once the task has exited and its output is drained.
    pub exit: Option<ExitRecord>,
    pub error: Option<String>,
}

pub fn socket_path(state_dir: &Path) -> PathBuf {
    state_dir.join(SOCKET_FILE)
}

pub fn exit_path(state_dir: &Path) -> PathBuf {
    state_dir.join(EXIT_FILE)
}

/// The exit record in `state_dir` if it belongs to `task_id`.
pub fn read_exit(state_dir: &Path, task_id: &str) -> Option<ExitRecord> {
    let bytes = std::fs::read(exit_path(state_dir)).ok()?;
    let rec: ExitRecord = serde_json::from_slice(&bytes).ok()?;
    (rec.task_id == task_id).then_some(rec)
}

/// Writes the exit record atomically (temp file + rename), so a reader never sees half.
pub fn write_exit(state_dir: &Path, rec: &ExitRecord) -> std::io::Result<()> {
    let tmp = state_dir.join(format!("{EXIT_FILE}.tmp"));
    let bytes = serde_json::to_vec(rec).map_err(std::io::Error::other)?;
    std::fs::write(&tmp, bytes)?;
    std::fs::rename(&tmp, exit_path(state_dir))
}
