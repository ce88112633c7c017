//! The extension point for drivers that isolate their tasks (the `exec` driver's
//! namespaces, chroot and cgroups). raw_exec sends no isolation and nothing here runs.
//!
//! A driver puts its settings into `LaunchSpec::isolation` as JSON with a `"kind"` field;
//! the supervisor then calls, for that kind:
//! - `prepare` before spawning: may add a `pre_exec` hook to the command (runs in the
//!   forked child before `exec`: unshare, pivot_root, joining the cgroup, ...);
//! - `after_start` with the task's pid, in the supervisor (e.g. move it into a cgroup);
//! - `cleanup` once the task is gone (e.g. remove the cgroup).
//!
//! A kind nobody registered fails the start with a clear error instead of running the task
//! without the isolation its driver asked for.

use std::io;
use std::process::Command;

use super::spec::LaunchSpec;

fn kind(spec: &LaunchSpec) -> Option<&str> {
    spec.isolation
        .as_ref()
        .map(|v| v["kind"].as_str().unwrap_or(""))
}

fn unsupported(kind: &str) -> io::Error {
    io::Error::new(
        io::ErrorKind::Unsupported,
        format!("executor: unsupported task isolation {kind:?}"),
    )
}

pub fn prepare(spec: &LaunchSpec, _cmd: &mut Command) -> io::Result<()> {
    match kind(spec) {
        None => Ok(()),
        Some(other) => Err(unsupported(other)),
    }
}

pub fn after_start(spec: &LaunchSpec, _pid: i32) -> io::Result<()> {
    match kind(spec) {
        None => Ok(()),
        Some(other) => Err(unsupported(other)),
    }
}

pub fn cleanup(spec: &LaunchSpec, _pid: i32) {
    match kind(spec) {
        None => {}
        Some(other) => eprintln!("executor: no cleanup for isolation {other:?}"),
    }
}
