//! Turning a `TaskConfig` into the supervisor's launch spec for an isolated task: user,
//! binary, env, mounts (chroot_env, /alloc, host volumes), and the task's cgroup, created
//! here with its limits so the child only has to join it.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use nix::sys::signal::Signal;

use super::config::{
    calculate_caps, isolation_mode, parse_id_ranges, ExecPluginConfig, ExecTaskConfig, MODE_PRIVATE,
};
use super::isolation::{BindMount, IsolationSpec};
use crate::drivers::cgroups::{Cgroup, CgroupLimits, CgroupRoot};
use crate::drivers::{DriverError, TaskConfig};
use crate::executor::isolation::Isolation;
use crate::executor::{LaunchSpec, LogTarget};

const DEFAULT_USER: &str = "nobody";
/// The chroot has no host environment; give tasks the usual search path.
const DEFAULT_PATH: &str = "/usr/local/bin:/usr/bin:/bin";

fn failed(message: String) -> DriverError {
    DriverError::StartFailed {
        message,
        recoverable: false,
    }
}

pub(super) struct User {
    pub name: String,
    pub uid: u32,
    pub gid: u32,
    pub groups: Vec<u32>,
    pub home: PathBuf,
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

/// The task's user (default `nobody`), checked against the plugin's denied ids.
pub(super) fn task_user(cfg: &TaskConfig, plugin: &ExecPluginConfig) -> Result<User, DriverError> {
    let name = if cfg.user.is_empty() {
        DEFAULT_USER
    } else {
        cfg.user.as_str()
    };
    lookup_user(name, plugin)
}

/// The task's secrets dir (0700, made by the client as root) becomes the task user's, so a
/// task running as `nobody` can read and write its secrets while other users still cannot
/// (Nomad mounts a tmpfs there for the same purpose).
fn give_secrets_to(cfg: &TaskConfig, user: &User) -> Result<(), DriverError> {
    let secrets = cfg.task_dir.join("secrets");
    if !secrets.is_dir() || !nix::unistd::geteuid().is_root() {
        return Ok(());
    }
    nix::unistd::chown(
        &secrets,
        Some(nix::unistd::Uid::from_raw(user.uid)),
        Some(nix::unistd::Gid::from_raw(user.gid)),
    )
    .map_err(|e| {
        failed(format!(
            "failed to hand {} to the task user: {e}",
            secrets.display()
        ))
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
    // Host volumes (`volume_mount`) last, parents first, so they may sit inside the above.
    let mut volumes: Vec<BindMount> = cfg
        .mounts
        .iter()
        .map(|m| BindMount {
            source: m.host_path.clone(),
            target: Path::new("/").join(&m.task_path),
            read_only: m.readonly,
        })
        .collect();
    volumes.sort_by(|a, b| a.target.cmp(&b.target));
    out.extend(volumes);
    out
}

/// The task's env with paths as seen inside the chroot (Nomad's taskenv does this for
/// drivers with chroot isolation) and the user's identity.
pub(super) fn task_env(cfg: &TaskConfig, user: &User) -> Vec<(String, String)> {
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

/// The supervisor's spec for the task and the cgroup it will join (already created, with
/// its limits). On error nothing is left behind.
pub(super) fn launch_spec(
    plugin: &ExecPluginConfig,
    root: &CgroupRoot,
    cfg: &TaskConfig,
) -> Result<(LaunchSpec, Cgroup), DriverError> {
    let task = ExecTaskConfig::parse(cfg)?;
    let user = task_user(cfg, plugin)?;
    give_secrets_to(cfg, &user)?;
    let caps = calculate_caps(&plugin.allow_caps, &task.cap_add, &task.cap_drop)?;
    for m in &cfg.mounts {
        if !m.host_path.exists() {
            return Err(failed(format!(
                "host volume path {} for {} does not exist",
                m.host_path.display(),
                m.task_path
            )));
        }
    }
    let mounts = mounts(cfg, plugin);
    let program = lookup_bin(cfg, &mounts, &task.command)?;

    let mut limits =
        CgroupLimits::from_resources(cfg.cpu_shares, 0, cfg.memory_mb, cfg.memory_max_mb);
    limits.cpuset_cpus = crate::drivers::cgroups::cpuset_list(&cfg.reserved_cores);
    let scope = root.scope_name(&cfg.alloc_id, &cfg.name);
    let cgroup = Cgroup::create(root, &scope, &limits)
        .map_err(|e| failed(format!("failed to create cgroup for task: {e}")))?;
    // A previous attempt of this task may have left processes behind (Nomad's
    // cleanOldProcessesInCGroup).
    let _ = cgroup.kill_all();

    let mut argv = vec![program.display().to_string()];
    argv.extend(task.args.iter().cloned());
    let env = task_env(cfg, &user);
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
        args: argv.clone(),
        env: env.clone(),
    };
    let log = cfg.log_spec();
    let launch = LaunchSpec {
        task_id: cfg.id.clone(),
        argv,
        env,
        cwd: cfg.task_dir.clone(),
        state_dir: cfg.task_dir.clone(),
        // The child switches user itself, after the mounts.
        uid: None,
        gid: None,
        logs: LogTarget {
            dir: (!cfg.logs_disabled).then(|| log.dir.clone()),
            task_name: cfg.name.clone(),
            max_files: log.max_files,
            max_file_size_bytes: log.max_file_size_bytes,
        },
        kill_signal: Signal::SIGINT as i32,
        kill_timeout_ms: 5000,
        isolation: Some(Isolation::Exec {
            spec: Box::new(spec),
            cgroup: cgroup.clone(),
        }),
    };
    Ok((launch, cgroup))
}
