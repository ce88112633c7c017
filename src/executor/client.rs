//! The agent's side of the supervisor: launch one, talk to it, find out how its task ended
//! when it is gone.

use std::io;
use std::path::{Path, PathBuf};
use std::process::Stdio;
use std::time::Duration;

use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::UnixStream;
use tokio::process::Command;

use super::spec::{self, ExitRecord, LaunchSpec, Ready, Request, Response};

/// How long a supervisor may take to start its task and report.
const READY_TIMEOUT: Duration = Duration::from_secs(20);
/// Status, signal and stop are answered at once; a supervisor slower than this is stuck.
const REQUEST_TIMEOUT: Duration = Duration::from_secs(5);

/// A started task, as the agent knows it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Launched {
    pub supervisor_pid: i32,
    pub pid: i32,
    pub started_at: i64,
    pub socket: PathBuf,
}

#[derive(Debug, thiserror::Error)]
pub enum LaunchError {
    #[error("failed to start the task executor {bin}: {source}")]
    Executor { bin: String, source: io::Error },
    /// The supervisor ran but could not start the task (bad binary, bad user ...).
    #[error("{0}")]
    Task(String),
}

/// Starts `nomad executor` for `spec` and waits until it has started the task.
pub async fn launch(bin: &Path, spec: &LaunchSpec) -> Result<Launched, LaunchError> {
    let executor_err = |source: io::Error| LaunchError::Executor {
        bin: bin.display().to_string(),
        source,
    };
    let log = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(spec.state_dir.join(spec::LOG_FILE))
        .map_err(executor_err)?;
    let mut child = Command::new(bin)
        .arg(super::SUBCOMMAND)
        .current_dir(&spec.state_dir)
        .env_clear()
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(log)
        .kill_on_drop(false)
        .spawn()
        .map_err(executor_err)?;
    let supervisor_pid = child.id().map(|p| p as i32).unwrap_or(0);
    let input = serde_json::to_vec(spec).map_err(|e| executor_err(io::Error::other(e)))?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin.write_all(&input).await.map_err(executor_err)?;
        // Dropping stdin closes it: the supervisor reads to EOF.
    }
    let stdout = child
        .stdout
        .take()
        .ok_or_else(|| executor_err(io::Error::other("no stdout pipe")))?;
    let mut line = String::new();
    let mut reader = BufReader::new(stdout);
    let read = tokio::time::timeout(READY_TIMEOUT, reader.read_line(&mut line));
    let n = match read.await {
        Ok(r) => r.map_err(executor_err)?,
        Err(_) => {
            let _ = child.start_kill();
            return Err(executor_err(io::Error::new(
                io::ErrorKind::TimedOut,
                "no answer from the executor",
            )));
        }
    };
    if n == 0 {
        let status = child.wait().await.map_err(executor_err)?;
        let log = std::fs::read_to_string(spec.state_dir.join(spec::LOG_FILE)).unwrap_or_default();
        return Err(executor_err(io::Error::other(format!(
            "executor exited ({status}) without starting the task: {}",
            log.trim()
        ))));
    }
    // The child handle is dropped: tokio reaps the supervisor when it exits.
    match serde_json::from_str::<Ready>(&line) {
        Ok(Ready::Started { pid, started_at }) => Ok(Launched {
            supervisor_pid,
            pid,
            started_at,
            socket: spec::socket_path(&spec.state_dir),
        }),
        Ok(Ready::Failed { error }) => Err(LaunchError::Task(error)),
        Err(e) => Err(executor_err(io::Error::other(format!(
            "unreadable answer {line:?}: {e}"
        )))),
    }
}

/// Connects to a socket whose path may be longer than `sun_path` allows, through the
/// directory's descriptor under /proc/self/fd.
async fn connect(socket: &Path) -> io::Result<UnixStream> {
    if socket.as_os_str().len() < 100 {
        return UnixStream::connect(socket).await;
    }
    let (dir, name) = match (socket.parent(), socket.file_name()) {
        (Some(d), Some(n)) => (d, n),
        _ => return Err(io::Error::other("bad socket path")),
    };
    let dir = std::fs::File::open(dir)?;
    use std::os::fd::AsRawFd;
    let short = format!(
        "/proc/self/fd/{}/{}",
        dir.as_raw_fd(),
        name.to_string_lossy()
    );
    let stream = UnixStream::connect(short).await;
    drop(dir);
    stream
}

/// One request and its answer. `Wait` has no timeout (it is answered at the task's exit).
pub async fn request(socket: &Path, req: &Request) -> io::Result<Response> {
    let exchange = async {
        let stream = connect(socket).await?;
        let (r, mut w) = stream.into_split();
        let mut line = serde_json::to_vec(req).map_err(io::Error::other)?;
        line.push(b'\n');
        w.write_all(&line).await?;
        let mut answer = String::new();
        if BufReader::new(r).read_line(&mut answer).await? == 0 {
            return Err(io::Error::new(
                io::ErrorKind::UnexpectedEof,
                "executor closed the connection",
            ));
        }
        let resp: Response = serde_json::from_str(&answer).map_err(io::Error::other)?;
        match &resp.error {
            Some(e) => Err(io::Error::other(e.clone())),
            None => Ok(resp),
        }
    };
    if *req == Request::Wait {
        return exchange.await;
    }
    tokio::time::timeout(REQUEST_TIMEOUT, exchange)
        .await
        .unwrap_or_else(|_| {
            Err(io::Error::new(
                io::ErrorKind::TimedOut,
                "executor did not answer",
            ))
        })
}

/// Whether a process with this pid exists (signal 0).
pub fn process_alive(pid: i32) -> bool {
    // SAFETY: signal 0 only checks for existence.
    pid > 0 && unsafe { libc::kill(pid, 0) } == 0
}

/// What became of a task whose supervisor no longer answers: its exit record, if the
/// supervisor wrote one for this task id.
pub fn recorded_exit(state_dir: &Path, task_id: &str) -> Option<ExitRecord> {
    spec::read_exit(state_dir, task_id)
}
