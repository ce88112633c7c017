//! How the supervisor starts an isolated task (the `exec` driver's namespaces, chroot and
//! cgroup). raw_exec sends no isolation and the supervisor spawns a plain process group.
//!
//! The driver does everything that needs the agent's knowledge in the agent (user lookup,
//! capabilities, mounts, creating the cgroup with its limits) and hands the result over as
//! data in `LaunchSpec::isolation`. The supervisor only:
//! - creates the mount points and forks the task into new namespaces from that spec
//!   ([`spawn`]: `clone`, setup in the child, `execve`), with the task's stdout/stderr on
//!   pipes it reads itself;
//! - once the task's main process is gone, kills what is left in its cgroup (with
//!   `pid_mode = "host"` descendants outlive it) and reads whether the OOM killer hit it
//!   ([`after_exit`]).
//!
//! The cgroup itself is removed by the driver when it destroys the task: it may have to
//! read the final stats first, and after an agent restart the handle still names it.

use std::io;
use std::os::fd::{AsRawFd, OwnedFd};

use serde::{Deserialize, Serialize};

use crate::drivers::cgroups::Cgroup;
use crate::drivers::exec::isolation::{self as exec_iso, IsolationSpec, Stdio};

/// A driver's isolation for one task, tagged by `kind` on the wire.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Isolation {
    /// Nomad's exec driver: namespaces + pivot_root into the task dir + a cgroup the child
    /// joins before it execs.
    Exec {
        spec: Box<IsolationSpec>,
        cgroup: Cgroup,
    },
}

/// The task's main process and the supervisor's ends of its output pipes.
pub struct Spawned {
    pub pid: i32,
    pub stdout: Option<OwnedFd>,
    pub stderr: Option<OwnedFd>,
}

fn null() -> io::Result<OwnedFd> {
    std::fs::OpenOptions::new()
        .read(true)
        .write(true)
        .open("/dev/null")
        .map(OwnedFd::from)
}

/// (supervisor's read end, task's write end); the read end is non-blocking.
fn pipe() -> io::Result<(OwnedFd, OwnedFd)> {
    let (r, w) = nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC).map_err(io::Error::from)?;
    super::supervisor::set_nonblocking(r.as_raw_fd())?;
    Ok((r, w))
}

/// Forks the task as `iso` says. `capture`: whether stdout/stderr are piped to us (else
/// /dev/null).
pub fn spawn(iso: &Isolation, capture: bool) -> io::Result<Spawned> {
    match iso {
        Isolation::Exec { spec, .. } => {
            let prepared = spec.prepare().map_err(io::Error::other)?;
            let (out_r, out_w) = if capture {
                let (r, w) = pipe()?;
                (Some(r), w)
            } else {
                (None, null()?)
            };
            let (err_r, err_w) = if capture {
                let (r, w) = pipe()?;
                (Some(r), w)
            } else {
                (None, null()?)
            };
            let stdio = Stdio {
                stdin: null()?,
                stdout: out_w,
                stderr: err_w,
            };
            let pid = exec_iso::spawn(&prepared, &stdio).map_err(io::Error::other)?;
            // The write ends belong to the task now: EOF on ours once it (and its
            // descendants) are done.
            drop(stdio);
            Ok(Spawned {
                pid,
                stdout: out_r,
                stderr: err_r,
            })
        }
    }
}

/// After the main process was reaped: kill what is left of the task and say whether the
/// OOM killer ended it.
pub fn after_exit(iso: &Isolation) -> bool {
    match iso {
        Isolation::Exec { cgroup, .. } => {
            if let Err(e) = cgroup.kill_all() {
                eprintln!("executor: failed to kill the task's cgroup: {e}");
            }
            cgroup.oom_killed()
        }
    }
}
