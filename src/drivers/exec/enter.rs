//! `nomad alloc exec` into an exec task (Nomad's `ExecTaskStreaming` for exec): the command
//! joins the task's cgroup and its mount, UTS, IPC and PID namespaces, changes root into the
//! task's root, keeps only the task's capabilities and runs as the task's user with the
//! task's environment, as runc's `exec` does for a container.
//!
//! Joining a PID namespace only affects children, so the forked child (still in the agent's
//! PID namespace) enters the namespaces and forks once more; the grandchild execs the
//! command and the child waits for it and exits with its status (the agent's process
//! handle is the child; killing it takes the grandchild along via `PR_SET_PDEATHSIG`).
//! Everything between fork and exec is raw syscalls on descriptors and C strings prepared
//! beforehand: the agent is multi-threaded.

use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use tokio::process::Command;

use super::config::{calculate_caps, ExecPluginConfig, ExecTaskConfig};
use super::launch::{task_env, task_user};
use crate::drivers::cgroups::Cgroup;
use crate::drivers::exec_stream::ExecSession;
use crate::drivers::{host_exec, DriverError, TaskConfig};

/// The namespaces joined (those the task does not share with the agent). The task's root is
/// entered afterwards through a descriptor opened before the fork, which also covers
/// `no_pivot_root` tasks (chrooted inside the host's mount tree).
const NAMESPACES: [(&str, libc::c_int); 4] = [
    ("ipc", libc::CLONE_NEWIPC),
    ("uts", libc::CLONE_NEWUTS),
    ("pid", libc::CLONE_NEWPID),
    ("mnt", libc::CLONE_NEWNS),
];

fn exec_err(command: &str, e: impl std::fmt::Display) -> DriverError {
    DriverError::Spawn {
        command: command.to_string(),
        reason: e.to_string(),
    }
}

/// What the forked child needs, opened and converted before the fork.
struct Entry {
    /// (fd, CLONE_NEW* flag) of each namespace the task does not share with us.
    namespaces: Vec<(OwnedFd, libc::c_int)>,
    root: OwnedFd,
    cgroup_procs: Vec<OwnedFd>,
    cwd: CString,
    drop_caps: Vec<u32>,
    uid: u32,
    gid: u32,
    groups: Vec<libc::gid_t>,
}

fn open(path: &Path, flags: libc::c_int) -> io::Result<OwnedFd> {
    let mut o = std::fs::OpenOptions::new();
    use std::os::unix::fs::OpenOptionsExt;
    if flags & libc::O_WRONLY != 0 {
        o.write(true);
    } else {
        o.read(true);
    }
    o.custom_flags(flags & !libc::O_WRONLY)
        .open(path)
        .map(OwnedFd::from)
}

/// Finds `bin` as the task would see it: an absolute path, `local/<bin>`, `<bin>` at the
/// root, then `/usr/local/bin`, `/usr/bin`, `/bin`. Returns the path inside the task.
fn lookup_in_task(task_root: &Path, bin: &str) -> Result<PathBuf, DriverError> {
    let mut candidates = Vec::new();
    if bin.starts_with('/') {
        candidates.push(PathBuf::from(bin));
    } else {
        candidates.push(Path::new("/local").join(bin));
        candidates.push(Path::new("/").join(bin));
        if !bin.contains('/') {
            for dir in ["/usr/local/bin", "/usr/bin", "/bin"] {
                candidates.push(Path::new(dir).join(bin));
            }
        }
    }
    candidates
        .into_iter()
        .find(|inside| {
            task_root
                .join(inside.strip_prefix("/").unwrap_or(inside))
                .is_file()
        })
        .ok_or_else(|| DriverError::BinaryNotFound(bin.to_string()))
}

fn prepare(
    plugin: &ExecPluginConfig,
    cfg: &TaskConfig,
    pid: i32,
    cgroup: &Cgroup,
) -> io::Result<Entry> {
    let proc_dir = PathBuf::from(format!("/proc/{pid}"));
    let mut namespaces = Vec::new();
    for (name, flag) in NAMESPACES {
        let theirs = proc_dir.join("ns").join(name);
        let ours = Path::new("/proc/self/ns").join(name);
        let same = match (std::fs::metadata(&theirs), std::fs::metadata(&ours)) {
            (Ok(a), Ok(b)) => a.ino() == b.ino() && a.dev() == b.dev(),
            (Err(e), _) => return Err(e),
            _ => false,
        };
        if !same {
            namespaces.push((open(&theirs, libc::O_CLOEXEC)?, flag));
        }
    }
    let root = open(&proc_dir.join("root"), libc::O_DIRECTORY | libc::O_CLOEXEC)?;
    let cgroup_procs = cgroup
        .procs_files()
        .iter()
        .map(|p| open(p, libc::O_WRONLY | libc::O_CLOEXEC))
        .collect::<io::Result<Vec<_>>>()?;
    let task = ExecTaskConfig::parse(cfg).map_err(io::Error::other)?;
    let user = task_user(cfg, plugin).map_err(io::Error::other)?;
    let caps = calculate_caps(&plugin.allow_caps, &task.cap_add, &task.cap_drop)
        .map_err(io::Error::other)?;
    let last_cap = std::fs::read_to_string("/proc/sys/kernel/cap_last_cap")
        .ok()
        .and_then(|s| s.trim().parse::<u32>().ok())
        .unwrap_or(40);
    let cwd = task.work_dir.unwrap_or_else(|| PathBuf::from("/"));
    Ok(Entry {
        namespaces,
        root,
        cgroup_procs,
        cwd: CString::new(cwd.as_os_str().as_encoded_bytes()).map_err(io::Error::other)?,
        drop_caps: (0..=last_cap).filter(|c| !caps.contains(c)).collect(),
        uid: user.uid,
        gid: user.gid,
        groups: user.groups,
    })
}

fn last_errno() -> io::Error {
    io::Error::last_os_error()
}

impl Entry {
    /// In the forked child: join, fork again, and return only in the grandchild.
    ///
    /// # Safety
    /// Only in a freshly forked child; raw syscalls only.
    unsafe fn enter(&self) -> io::Result<()> {
        for fd in &self.cgroup_procs {
            if libc::write(fd.as_raw_fd(), b"0".as_ptr().cast(), 1) < 0 {
                return Err(last_errno());
            }
        }
        for (fd, flag) in &self.namespaces {
            if libc::setns(fd.as_raw_fd(), *flag) < 0 {
                return Err(last_errno());
            }
        }
        if libc::fchdir(self.root.as_raw_fd()) < 0 || libc::chroot(c".".as_ptr()) < 0 {
            return Err(last_errno());
        }
        let child = libc::fork();
        if child < 0 {
            return Err(last_errno());
        }
        if child > 0 {
            // The intermediate: mirror the grandchild's end.
            let mut status = 0;
            loop {
                let rc = libc::waitpid(child, &mut status, 0);
                if rc == child {
                    break;
                }
                if rc < 0 && *libc::__errno_location() != libc::EINTR {
                    libc::_exit(1);
                }
            }
            if libc::WIFEXITED(status) {
                libc::_exit(libc::WEXITSTATUS(status));
            }
            libc::_exit(128 + libc::WTERMSIG(status));
        }
        if libc::prctl(
            libc::PR_SET_PDEATHSIG,
            libc::SIGKILL as libc::c_ulong,
            0,
            0,
            0,
        ) < 0
        {
            return Err(last_errno());
        }
        for cap in &self.drop_caps {
            let rc = libc::prctl(libc::PR_CAPBSET_DROP, *cap as libc::c_ulong, 0, 0, 0);
            if rc < 0 && *libc::__errno_location() != libc::EINVAL {
                return Err(last_errno());
            }
        }
        if libc::setgroups(self.groups.len(), self.groups.as_ptr()) < 0
            || libc::setgid(self.gid) < 0
            || libc::setuid(self.uid) < 0
        {
            return Err(last_errno());
        }
        if libc::chdir(self.cwd.as_ptr()) < 0 {
            return Err(last_errno());
        }
        Ok(())
    }
}

/// Runs `session.command` inside the exec task whose main process is `pid`.
pub(super) async fn exec_in_task(
    plugin: &ExecPluginConfig,
    cfg: &TaskConfig,
    pid: i32,
    cgroup: &Cgroup,
    session: ExecSession,
) -> Result<i32, DriverError> {
    let Some(program) = session.command.first().cloned() else {
        return Err(DriverError::InvalidConfig(
            "command is not present".to_string(),
        ));
    };
    let task_root = PathBuf::from(format!("/proc/{pid}/root"));
    let bin = lookup_in_task(&task_root, &program)?;
    let user = task_user(cfg, plugin)?;
    let env = task_env(cfg, &user);
    let entry = prepare(plugin, cfg, pid, cgroup).map_err(|e| exec_err(&program, e))?;
    let mut cmd = Command::new(&bin);
    cmd.args(&session.command[1..])
        .env_clear()
        .envs(env)
        .kill_on_drop(true);
    // SAFETY: `enter` makes raw syscalls only, on descriptors and strings prepared above,
    // which the closure owns.
    unsafe {
        cmd.pre_exec(move || entry.enter());
    }
    let result = if session.tty {
        host_exec::run_tty(cmd, session).await
    } else {
        host_exec::run_pipes(cmd, session).await
    };
    result.map_err(|e| exec_err(&program, e))
}
