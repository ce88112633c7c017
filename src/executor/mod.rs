//! The per-task supervisor (`nomad executor`, hidden): the `nomad` binary re-executed once
//! per task. It starts the task, owns its stdout/stderr and writes the rotated log files,
//! records the exit status in the task dir and answers a small control protocol on a unix
//! socket there. It runs in its own session and holds nothing of the agent's, so the agent
//! can die (even `kill -9`) and a new agent re-attaches through the socket, or reads the
//! exit record when the task ended meanwhile.
//!
//! Where Nomad runs two go-plugin processes per task (executor and logmon, ~15-20 MB), this
//! is one single-threaded process without an async runtime (see `supervisor.rs`).
//!
//! - `spec.rs`: launch spec, exit record, control protocol.
//! - `supervisor.rs`: the supervisor's poll loop.
//! - `trim.rs`: drops the startup pages of the (large) binary from the resident set.
//! - `isolation.rs`: how an isolated (exec driver) task is forked and cleaned up.
//! - `client.rs`: the agent's side: launch, requests, re-attach.

pub mod client;
pub mod isolation;
pub mod spec;
pub mod supervisor;
mod trim;

use std::io::{Read, Write};
use std::os::fd::{FromRawFd, OwnedFd};
use std::path::PathBuf;

pub use spec::{ExitRecord, LaunchSpec, LogTarget, Ready, Request, Response};

/// The subcommand the agent runs the supervisor as.
pub const SUBCOMMAND: &str = "executor";

/// The `nomad` binary to re-execute: this process's executable, or, for test and bench
/// binaries (which live in `target/<profile>/deps/`), the `nomad` built next to them.
pub fn binary() -> std::io::Result<PathBuf> {
    let exe = std::env::current_exe()?;
    if exe.file_name().is_some_and(|n| n == "nomad") {
        return Ok(exe);
    }
    let sibling = exe
        .parent()
        .and_then(|deps| deps.parent())
        .map(|dir| dir.join("nomad"));
    match sibling {
        Some(p) if p.is_file() => Ok(p),
        _ => Err(std::io::Error::new(
            std::io::ErrorKind::NotFound,
            format!(
                "the nomad binary to run the task executor from was not found next to {}",
                exe.display()
            ),
        )),
    }
}

/// Blocks the signals the supervisor handles itself and returns a signalfd for them.
/// The task gets an empty mask again (a `pre_exec` hook in `supervisor.rs`).
fn signal_fd() -> std::io::Result<OwnedFd> {
    // SAFETY: plain libc calls on a local sigset; the returned descriptor is ours.
    unsafe {
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        for sig in [libc::SIGTERM, libc::SIGHUP, libc::SIGINT, libc::SIGQUIT] {
            libc::sigaddset(&mut set, sig);
        }
        if libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut()) != 0 {
            return Err(std::io::Error::last_os_error());
        }
        let fd = libc::signalfd(-1, &set, libc::SFD_CLOEXEC | libc::SFD_NONBLOCK);
        if fd < 0 {
            return Err(std::io::Error::last_os_error());
        }
        Ok(OwnedFd::from_raw_fd(fd))
    }
}

/// Points `fd` (0 or 1) at /dev/null, so nothing ties the supervisor to the agent's pipes.
fn detach_fd(fd: i32) {
    if let Ok(null) = std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/null")
    {
        use std::os::fd::AsRawFd;
        // SAFETY: dup2 onto a standard descriptor of this process.
        unsafe { libc::dup2(null.as_raw_fd(), fd) };
    }
}

fn ready(r: &Ready) {
    if let Ok(mut line) = serde_json::to_vec(r) {
        line.push(b'\n');
        let _ = std::io::stdout().write_all(&line);
        let _ = std::io::stdout().flush();
    }
}

/// `nomad executor`: reads the launch spec (JSON) from stdin, starts the task, reports
/// `Ready` on stdout and supervises the task until it exits. Returns the process exit code.
pub fn main() -> i32 {
    // Our own session: no controlling terminal, no share in the agent's process group.
    // SAFETY: setsid has no memory effects; failing (already a leader) is harmless.
    unsafe { libc::setsid() };
    let signals = signal_fd();
    let mut input = Vec::new();
    let read = std::io::stdin().read_to_end(&mut input);
    detach_fd(0);
    let spec: LaunchSpec = match read
        .map_err(|e| e.to_string())
        .and_then(|_| serde_json::from_slice(&input).map_err(|e| e.to_string()))
    {
        Ok(s) => s,
        Err(e) => {
            ready(&Ready::Failed {
                error: format!("executor: invalid launch spec: {e}"),
            });
            return 1;
        }
    };
    drop(input);
    if let Err(e) = std::env::set_current_dir(&spec.state_dir) {
        ready(&Ready::Failed {
            error: format!("executor: {}: {e}", spec.state_dir.display()),
        });
        return 1;
    }
    let sup = match supervisor::Supervisor::start(spec) {
        Ok(s) => s,
        Err(e) => {
            ready(&Ready::Failed {
                error: e.to_string(),
            });
            return 1;
        }
    };
    ready(&Ready::Started {
        pid: sup.pid(),
        started_at: sup.started_at(),
    });
    detach_fd(1);
    trim::drop_startup_pages();
    if let Err(e) = &signals {
        eprintln!("executor: no signal handling: {e}");
    }
    sup.keep_trimmed().run(signals.as_ref().ok());
    0
}

#[cfg(test)]
mod tests;
