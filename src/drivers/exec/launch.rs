//! Turning a `TaskConfig` into a running isolated process: user, binary, env, mounts,
//! cgroup, stdio pipes, spawn.

use std::collections::BTreeMap;
use std::io;
use std::os::fd::{FromRawFd, OwnedFd};
use std::path::{Path, PathBuf};

use tokio::task::JoinHandle;

use super::config::{
    calculate_caps, isolation_mode, parse_id_ranges, ExecPluginConfig, ExecTaskConfig, MODE_PRIVATE,
};
use super::isolation::{self, BindMount, IsolationSpec, Stdio};
use crate::drivers::cgroups::{Cgroup, CgroupLimits, CgroupRoot};
use crate::drivers::logging::{pump, LogStream};
use crate::drivers::{DriverError, TaskConfig};

const DEFAULT_USER: &str = "nobody";
/// The chroot has no host environment; give tasks the usual search path.
const DEFAULT_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

/// Copies one of the task's output pipes into its rotated log files.
pub(super) type Pump = JoinHandle<io::Result<()>>;

pub(super) struct Launched {
    pub pid: i32,
    pub pidfd: OwnedFd,
    pub cgroup: Cgroup,
    pub pumps: Vec<Pump>,
}

fn failed(message: String) -> DriverError {
    DriverError::StartFailed {
        message,
        recoverable: false,
    }
}

struct User {
    name: String,
    uid: u32,
    gid: u32,
    groups: Vec<u32>,
    home: PathBuf,
}

fn lookup_user(name: &str, plugin: &ExecPluginConfig) -> Result<User, DriverError> {
    let user = nix::unistd::User::from_name(name)
        .map_err(|e| failed(format!("failed to look up user {name:?}: {e}")))?
        .ok_or_else(|| {
            failed(format!(
                "failed to look up user {name:?}: unknown user {name}"
            ))
        })?;
    let (uid, gid) = (user.uid.as_raw(), user.gid.as_raw());
    let denied = |ranges: &str, id: u32| {
        parse_id_ranges(ranges).map(|r| r.iter().any(|(lo, hi)| (*lo..=*hi).contains(&id)))
    };
    if denied(&plugin.denied_host_uids, uid)? {
        return Err(failed(format!(
            "failed host user validation: running as uid {uid} is disallowed"
        )));
    }
    if denied(&plugin.denied_host_gids, gid)? {
        return Err(failed(format!(
            "failed host user validation: running as gid {gid} is disallowed"
        )));
    }
    let cname = std::ffi::CString::new(name).map_err(|_| failed(format!("bad user {name:?}")))?;
    let groups = nix::unistd::getgrouplist(&cname, user.gid)
        .map(|g| g.into_iter().map(|g| g.as_raw()).collect())
        .unwrap_or_else(|_| vec![gid]);
    Ok(User {
        name: user.name,
        uid,
        gid,
        groups,
        home: user.dir,
    })
}

/// Maps a path inside the chroot to the host file that will be there.
fn host_path(cfg: &TaskConfig, mounts: &[BindMount], inside: &Path) -> PathBuf {
    for m in mounts {
        if let Ok(rest) = inside.strip_prefix(&m.target) {
            return m.source.join(rest);
        }
    }
    cfg.task_dir
        .join(inside.strip_prefix("/").unwrap_or(inside))
}

/// Nomad's `lookupTaskBin`: `local/<bin>`, `<bin>` at the task root, then (for a bare
/// name) `/usr/local/bin`, `/usr/bin`, `/bin` inside the chroot. Returns the path inside.
fn lookup_bin(cfg: &TaskConfig, mounts: &[BindMount], bin: &str) -> Result<PathBuf, DriverError> {
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
        .find(|inside| host_path(cfg, mounts, inside).is_file())
        .ok_or_else(|| DriverError::BinaryNotFound(bin.to_string()))
}

fn mounts(cfg: &TaskConfig, plugin: &ExecPluginConfig) -> Vec<BindMount> {
    let mut out: Vec<BindMount> = plugin
        .chroot_env
        .iter()
        .filter(|(src, _)| Path::new(src).exists())
        .map(|(src, dest)| BindMount {
            source: PathBuf::from(src),
            target: PathBuf::from(dest),
            read_only: true,
        })
        .collect();
    // Parents before children, so a nested target is mounted on top of its parent.
    out.sort_by(|a, b| a.target.cmp(&b.target));
    out.push(BindMount {
        source: cfg.alloc_dir.join("alloc"),
        target: PathBuf::from("/alloc"),
        read_only: false,
    });
    out
}

/// The task's env with paths as seen inside the chroot (Nomad's taskenv does this for
/// drivers with chroot isolation) and the user's identity.
fn task_env(cfg: &TaskConfig, user: &User) -> Vec<(String, String)> {
    let mut env: BTreeMap<String, String> = cfg.env.clone();
    for (key, inside) in [
        ("NOMAD_ALLOC_DIR", "/alloc"),
        ("NOMAD_TASK_DIR", "/local"),
        ("NOMAD_SECRETS_DIR", "/secrets"),
    ] {
        if env.contains_key(key) {
            env.insert(key.to_string(), inside.to_string());
        }
    }
    env.entry("PATH".to_string())
        .or_insert_with(|| DEFAULT_PATH.to_string());
    env.insert("USER".to_string(), user.name.clone());
    env.insert("LOGNAME".to_string(), user.name.clone());
    env.insert("HOME".to_string(), user.home.display().to_string());
    env.into_iter().collect()
}

fn open_null() -> Result<OwnedFd, DriverError> {
    std::fs::File::open("/dev/null")
        .map(OwnedFd::from)
        .map_err(|e| failed(format!("failed to open /dev/null: {e}")))
}

fn log_pipe(cfg: &TaskConfig, stream: LogStream) -> Result<(OwnedFd, Option<Pump>), DriverError> {
    if cfg.logs_disabled {
        return Ok((open_null()?, None));
    }
    let logs_err = |e: io::Error| DriverError::Logs {
        path: cfg.log_spec().dir.display().to_string(),
        reason: e.to_string(),
    };
    let rotator = cfg.log_spec().rotator(stream).map_err(logs_err)?;
    let (read, write) =
        nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC).map_err(|e| logs_err(e.into()))?;
    let reader = tokio::net::unix::pipe::Receiver::from_owned_fd(read).map_err(logs_err)?;
    Ok((write, Some(tokio::spawn(pump(reader, rotator)))))
}

fn pidfd_open(pid: i32) -> io::Result<OwnedFd> {
    // SAFETY: pidfd_open takes a pid and flags and returns a new fd we own.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    // SAFETY: fd was just returned by the kernel and is owned by nobody else.
    Ok(unsafe { OwnedFd::from_raw_fd(fd as i32) })
}

pub(super) async fn launch(
    plugin: &ExecPluginConfig,
    root: &CgroupRoot,
    cfg: &TaskConfig,
) -> Result<Launched, DriverError> {
    let task = ExecTaskConfig::parse(cfg)?;
    let user_name = if cfg.user.is_empty() {
        DEFAULT_USER
    } else {
        cfg.user.as_str()
    };
    let user = lookup_user(user_name, plugin)?;
    let caps = calculate_caps(&plugin.allow_caps, &task.cap_add, &task.cap_drop)?;
    let mounts = mounts(cfg, plugin);
    let program = lookup_bin(cfg, &mounts, &task.command)?;

    let limits = CgroupLimits::from_resources(cfg.cpu_shares, 0, cfg.memory_mb, cfg.memory_max_mb);
    let scope = root.scope_name(&cfg.alloc_id, &cfg.name);
    let cgroup = Cgroup::create(root, &scope, &limits)
        .map_err(|e| failed(format!("failed to create cgroup for task: {e}")))?;
    // A previous attempt of this task may have left processes behind (Nomad's
    // cleanOldProcessesInCGroup).
    let _ = cgroup.kill_all();

    let mut argv = vec![program.display().to_string()];
    argv.extend(task.args.iter().cloned());
    let spec = IsolationSpec {
        root: cfg.task_dir.clone(),
        mounts,
        pid_namespace: isolation_mode(&plugin.default_pid_mode, &task.pid_mode) == MODE_PRIVATE,
        ipc_namespace: isolation_mode(&plugin.default_ipc_mode, &task.ipc_mode) == MODE_PRIVATE,
        pivot_root: !plugin.no_pivot_root,
        cgroup_procs: cgroup.procs_files(),
        uid: user.uid,
        gid: user.gid,
        groups: user.groups.clone(),
        capabilities: caps,
        cwd: task.work_dir.clone().unwrap_or_else(|| PathBuf::from("/")),
        program,
        args: argv,
        env: task_env(cfg, &user),
    };
    let started = start_process(cfg, &spec);
    match started {
        Ok((pid, pidfd, pumps)) => Ok(Launched {
            pid,
            pidfd,
            cgroup,
            pumps,
        }),
        Err(e) => {
            let _ = cgroup.destroy();
            Err(e)
        }
    }
}

type Started = (i32, OwnedFd, Vec<Pump>);

fn start_process(cfg: &TaskConfig, spec: &IsolationSpec) -> Result<Started, DriverError> {
    let prepared = spec
        .prepare()
        .map_err(|e| failed(format!("failed to prepare task: {e}")))?;
    let (stdout, out_pump) = log_pipe(cfg, LogStream::Stdout)?;
    let (stderr, err_pump) = log_pipe(cfg, LogStream::Stderr)?;
    let stdio = Stdio {
        stdin: open_null()?,
        stdout,
        stderr,
    };
    let pumps: Vec<_> = out_pump.into_iter().chain(err_pump).collect();
    let pid = isolation::spawn(&prepared, &stdio).map_err(|e| {
        for p in &pumps {
            p.abort();
        }
        DriverError::Spawn {
            command: spec.program.display().to_string(),
            reason: e.to_string(),
        }
    })?;
    // The write ends belong to the child now; the pumps see EOF when it is done.
    drop(stdio);
    let pidfd =
        pidfd_open(pid).map_err(|e| failed(format!("failed to watch task process: {e}")))?;
    Ok((pid, pidfd, pumps))
}
