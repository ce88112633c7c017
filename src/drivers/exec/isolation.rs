//! The child side of an isolated task: what runs between fork and exec.
//!
//! [`IsolationSpec`] is plain data; [`IsolationSpec::prepare`] does everything that may
//! allocate or touch the host filesystem (mount points, C strings) in the parent, and
//! [`Prepared::enter`] runs in the forked child (pre_exec style) using raw syscalls only, so it
//! is safe after fork in a multi-threaded process. [`spawn`] is the exec driver's fork (a `clone` with new
//! namespaces); a separate supervisor process can call `prepare` + `spawn` the same way.
//!
//! Order in the child: signals reset, join cgroups, new session, make `/` private, bind the
//! task dir and chroot_env, mount /dev /proc /sys, pivot_root (or chroot), drop capabilities
//! from the bounding set, set groups/gid/uid, chdir, exec.

use std::ffi::CString;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd, RawFd};
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

/// One bind mount into the new root.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct BindMount {
    pub source: PathBuf,
    /// Absolute, as seen inside the new root.
    pub target: PathBuf,
    pub read_only: bool,
}

/// Everything the child needs; no references to driver state. Serialisable: the driver
/// builds it in the agent and the task's supervisor (`nomad executor`) spawns from it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct IsolationSpec {
    /// Host directory that becomes `/` (the task dir).
    pub root: PathBuf,
    pub mounts: Vec<BindMount>,
    pub pid_namespace: bool,
    pub ipc_namespace: bool,
    /// pivot_root when true, chroot otherwise (Nomad's `no_pivot_root`).
    pub pivot_root: bool,
    /// `cgroup.procs` files the child writes `0` to before anything else.
    pub cgroup_procs: Vec<PathBuf>,
    pub uid: u32,
    pub gid: u32,
    pub groups: Vec<u32>,
    /// Capability numbers kept in the bounding set; all others are dropped.
    pub capabilities: Vec<u32>,
    /// Inside the new root.
    pub cwd: PathBuf,
    /// Inside the new root; `args[0]` is passed as given.
    pub program: PathBuf,
    pub args: Vec<String>,
    pub env: Vec<(String, String)>,
}

/// Which step of the child's setup failed, reported back through the error pipe.
const STAGES: [&str; 16] = [
    "reset signals",
    "join cgroup",
    "setsid",
    "make / private",
    "bind task dir",
    "bind mount",
    "mount /dev",
    "populate /dev",
    "mount /proc",
    "mount /sys",
    "pivot_root",
    "drop capabilities",
    "set user",
    "chdir",
    "exec",
    "set up stdio",
];

#[derive(Debug, thiserror::Error)]
pub enum IsolationError {
    #[error("invalid path or string for the task: {0}")]
    Nul(String),
    #[error("failed to prepare {path}: {source}")]
    Prepare { path: String, source: io::Error },
    #[error("failed to create the task's process: {0}")]
    Clone(io::Error),
    #[error("failed to {stage} for the task: {source}")]
    Child {
        stage: &'static str,
        source: io::Error,
    },
}

fn cstr(p: &Path) -> Result<CString, IsolationError> {
    CString::new(p.as_os_str().as_encoded_bytes())
        .map_err(|_| IsolationError::Nul(p.display().to_string()))
}

fn cstring(s: &str) -> Result<CString, IsolationError> {
    CString::new(s).map_err(|_| IsolationError::Nul(s.to_string()))
}

/// Path inside the new root -> host path under `root`.
fn under(root: &Path, inside: &Path) -> PathBuf {
    root.join(inside.strip_prefix("/").unwrap_or(inside))
}

struct PreparedMount {
    source: CString,
    target: CString,
    read_only: bool,
}

/// [`IsolationSpec`] turned into C strings, with every mount point created.
pub struct Prepared {
    root: CString,
    mounts: Vec<PreparedMount>,
    dev: CString,
    dev_dirs: Vec<CString>,
    dev_nodes: Vec<(CString, CString)>,
    dev_links: Vec<(CString, CString)>,
    devpts: CString,
    shm: CString,
    mqueue: Option<CString>,
    proc_dir: CString,
    sys_dir: CString,
    pivot_root: bool,
    cgroup_procs: Vec<CString>,
    uid: u32,
    gid: u32,
    groups: Vec<libc::gid_t>,
    drop_caps: Vec<u32>,
    cwd: CString,
    program: CString,
    argv: Vec<CString>,
    envp: Vec<CString>,
    pid_namespace: bool,
    ipc_namespace: bool,
}

const DEV_NODES: [&str; 6] = ["null", "zero", "full", "random", "urandom", "tty"];
const DEV_LINKS: [(&str, &str); 5] = [
    ("/proc/self/fd", "fd"),
    ("/proc/self/fd/0", "stdin"),
    ("/proc/self/fd/1", "stdout"),
    ("/proc/self/fd/2", "stderr"),
    ("pts/ptmx", "ptmx"),
];

impl IsolationSpec {
    /// Creates the mount points under `root` and builds what the child needs.
    pub fn prepare(&self) -> Result<Prepared, IsolationError> {
        let mk = |p: &Path| {
            std::fs::create_dir_all(p).map_err(|source| IsolationError::Prepare {
                path: p.display().to_string(),
                source,
            })
        };
        let mut mounts = Vec::new();
        for m in &self.mounts {
            let target = under(&self.root, &m.target);
            if m.source.is_dir() {
                mk(&target)?;
            } else {
                if let Some(parent) = target.parent() {
                    mk(parent)?;
                }
                if !target.exists() {
                    std::fs::File::create(&target).map_err(|source| IsolationError::Prepare {
                        path: target.display().to_string(),
                        source,
                    })?;
                }
            }
            mounts.push(PreparedMount {
                source: cstr(&m.source)?,
                target: cstr(&target)?,
                read_only: m.read_only,
            });
        }
        let dev = self.root.join("dev");
        for d in ["dev", "proc", "sys"] {
            mk(&self.root.join(d))?;
        }
        let last_cap = std::fs::read_to_string("/proc/sys/kernel/cap_last_cap")
            .ok()
            .and_then(|s| s.trim().parse::<u32>().ok())
            .unwrap_or(40);
        let mut argv = vec![];
        for a in &self.args {
            argv.push(cstring(a)?);
        }
        let mut envp = vec![];
        for (k, v) in &self.env {
            envp.push(cstring(&format!("{k}={v}"))?);
        }
        Ok(Prepared {
            root: cstr(&self.root)?,
            mounts,
            dev: cstr(&dev)?,
            dev_dirs: ["pts", "shm", "mqueue"]
                .iter()
                .map(|d| cstr(&dev.join(d)))
                .collect::<Result<_, _>>()?,
            dev_nodes: DEV_NODES
                .iter()
                .map(|n| Ok((cstr(&Path::new("/dev").join(n))?, cstr(&dev.join(n))?)))
                .collect::<Result<_, IsolationError>>()?,
            dev_links: DEV_LINKS
                .iter()
                .map(|(to, name)| Ok((cstring(to)?, cstr(&dev.join(name))?)))
                .collect::<Result<_, IsolationError>>()?,
            devpts: cstr(&dev.join("pts"))?,
            shm: cstr(&dev.join("shm"))?,
            mqueue: if self.ipc_namespace {
                Some(cstr(&dev.join("mqueue"))?)
            } else {
                None
            },
            proc_dir: cstr(&self.root.join("proc"))?,
            sys_dir: cstr(&self.root.join("sys"))?,
            pivot_root: self.pivot_root,
            cgroup_procs: self
                .cgroup_procs
                .iter()
                .map(|p| cstr(p))
                .collect::<Result<_, _>>()?,
            uid: self.uid,
            gid: self.gid,
            groups: self.groups.clone(),
            drop_caps: (0..=last_cap)
                .filter(|c| !self.capabilities.contains(c))
                .collect(),
            cwd: cstr(&self.cwd)?,
            program: cstr(&self.program)?,
            argv,
            envp,
            pid_namespace: self.pid_namespace,
            ipc_namespace: self.ipc_namespace,
        })
    }
}

/// A failed step in the child: index into `STAGES` and errno.
#[derive(Debug, Clone, Copy)]
pub struct ChildFailure {
    pub stage: u32,
    pub errno: i32,
}

fn check(stage: u32, rc: libc::c_int) -> Result<(), ChildFailure> {
    if rc < 0 {
        Err(ChildFailure {
            stage,
            errno: io::Error::last_os_error().raw_os_error().unwrap_or(0),
        })
    } else {
        Ok(())
    }
}

/// Thin wrapper so call sites read like the mount(8) they do.
unsafe fn mount(
    src: *const libc::c_char,
    target: *const libc::c_char,
    fstype: &[u8],
    flags: libc::c_ulong,
    data: &[u8],
) -> libc::c_int {
    let data_ptr = if data.is_empty() {
        std::ptr::null()
    } else {
        data.as_ptr().cast()
    };
    libc::mount(src, target, fstype.as_ptr().cast(), flags, data_ptr)
}

const NONE: &[u8] = b"none\0";

impl Prepared {
    /// Runs in the forked child: sets up isolation, then returns so the caller can exec.
    /// Only raw syscalls; nothing allocates.
    ///
    /// # Safety
    /// Must run in a freshly forked/cloned child (with new mount namespace when mounting),
    /// never in the parent: it remounts `/`, changes root and drops privileges.
    pub unsafe fn enter(&self) -> Result<(), ChildFailure> {
        let null = std::ptr::null::<libc::c_char>();
        // Rust ignores SIGPIPE and the parent may block signals; the task gets defaults.
        let mut set: libc::sigset_t = std::mem::zeroed();
        libc::sigemptyset(&mut set);
        check(
            0,
            libc::sigprocmask(libc::SIG_SETMASK, &set, std::ptr::null_mut()),
        )?;
        for sig in 1..32 {
            if sig != libc::SIGKILL && sig != libc::SIGSTOP {
                libc::signal(sig, libc::SIG_DFL);
            }
        }
        for procs in &self.cgroup_procs {
            let fd = libc::open(procs.as_ptr(), libc::O_WRONLY | libc::O_CLOEXEC);
            check(1, fd)?;
            let rc = libc::write(fd, b"0".as_ptr().cast(), 1);
            libc::close(fd);
            check(1, rc as libc::c_int)?;
        }
        check(2, libc::setsid())?;
        check(
            3,
            mount(
                null,
                c"/".as_ptr(),
                NONE,
                libc::MS_REC | libc::MS_PRIVATE,
                b"",
            ),
        )?;
        let root = self.root.as_ptr();
        check(
            4,
            mount(root, root, NONE, libc::MS_BIND | libc::MS_REC, b""),
        )?;
        for m in &self.mounts {
            let t = m.target.as_ptr();
            check(
                5,
                mount(
                    m.source.as_ptr(),
                    t,
                    NONE,
                    libc::MS_BIND | libc::MS_REC,
                    b"",
                ),
            )?;
            if m.read_only {
                let flags = libc::MS_BIND | libc::MS_REMOUNT | libc::MS_RDONLY;
                check(5, mount(null, t, NONE, flags, b""))?;
            }
        }
        self.mount_dev()?;
        let nosuid = libc::MS_NOSUID | libc::MS_NOEXEC | libc::MS_NODEV;
        check(
            8,
            mount(
                c"proc".as_ptr(),
                self.proc_dir.as_ptr(),
                b"proc\0",
                nosuid,
                b"",
            ),
        )?;
        let sys_flags = nosuid | libc::MS_RDONLY;
        check(
            9,
            mount(
                c"sysfs".as_ptr(),
                self.sys_dir.as_ptr(),
                b"sysfs\0",
                sys_flags,
                b"",
            ),
        )?;
        self.change_root()?;
        for cap in &self.drop_caps {
            // EINVAL: the kernel does not know this capability; nothing to drop.
            let rc = libc::prctl(libc::PR_CAPBSET_DROP, *cap as libc::c_ulong, 0, 0, 0);
            if rc < 0 && io::Error::last_os_error().raw_os_error() != Some(libc::EINVAL) {
                check(11, rc)?;
            }
        }
        check(12, libc::setgroups(self.groups.len(), self.groups.as_ptr()))?;
        check(12, libc::setgid(self.gid))?;
        check(12, libc::setuid(self.uid))?;
        check(13, libc::chdir(self.cwd.as_ptr()))?;
        Ok(())
    }

    unsafe fn mount_dev(&self) -> Result<(), ChildFailure> {
        let tmpfs_flags = libc::MS_NOSUID | libc::MS_STRICTATIME;
        check(
            6,
            mount(
                c"tmpfs".as_ptr(),
                self.dev.as_ptr(),
                b"tmpfs\0",
                tmpfs_flags,
                b"mode=755\0",
            ),
        )?;
        for d in &self.dev_dirs {
            check(7, libc::mkdir(d.as_ptr(), 0o755))?;
        }
        for (host, inside) in &self.dev_nodes {
            let fd = libc::open(
                inside.as_ptr(),
                libc::O_CREAT | libc::O_WRONLY | libc::O_CLOEXEC,
                0o666,
            );
            check(7, fd)?;
            libc::close(fd);
            check(
                7,
                mount(host.as_ptr(), inside.as_ptr(), NONE, libc::MS_BIND, b""),
            )?;
        }
        for (to, name) in &self.dev_links {
            check(7, libc::symlink(to.as_ptr(), name.as_ptr()))?;
        }
        let pts_flags = libc::MS_NOSUID | libc::MS_NOEXEC;
        let pts_opts = b"newinstance,ptmxmode=0666,mode=0620\0";
        check(
            6,
            mount(
                c"devpts".as_ptr(),
                self.devpts.as_ptr(),
                b"devpts\0",
                pts_flags,
                pts_opts,
            ),
        )?;
        let def = libc::MS_NOSUID | libc::MS_NOEXEC | libc::MS_NODEV;
        check(
            6,
            mount(
                c"shm".as_ptr(),
                self.shm.as_ptr(),
                b"tmpfs\0",
                def,
                b"mode=1777\0",
            ),
        )?;
        if let Some(mq) = &self.mqueue {
            check(
                6,
                mount(c"mqueue".as_ptr(), mq.as_ptr(), b"mqueue\0", def, b""),
            )?;
        }
        Ok(())
    }

    unsafe fn change_root(&self) -> Result<(), ChildFailure> {
        check(10, libc::chdir(self.root.as_ptr()))?;
        if !self.pivot_root {
            check(10, libc::chroot(c".".as_ptr()))?;
            return check(10, libc::chdir(c"/".as_ptr()));
        }
        let old_root = libc::open(
            c"/".as_ptr(),
            libc::O_DIRECTORY | libc::O_RDONLY | libc::O_CLOEXEC,
        );
        check(10, old_root)?;
        // pivot_root(".", ".") stacks the old root on top of the new one; detaching it from
        // there leaves only the new root (runc's approach, no put_old directory needed).
        check(
            10,
            libc::syscall(libc::SYS_pivot_root, c".".as_ptr(), c".".as_ptr()) as libc::c_int,
        )?;
        check(10, libc::fchdir(old_root))?;
        let slave = libc::MS_SLAVE | libc::MS_REC;
        check(10, mount(null_ptr(), c".".as_ptr(), NONE, slave, b""))?;
        check(10, libc::umount2(c".".as_ptr(), libc::MNT_DETACH))?;
        libc::close(old_root);
        check(10, libc::chdir(c"/".as_ptr()))
    }

    fn clone_flags(&self) -> libc::c_long {
        let mut flags = libc::CLONE_NEWNS | libc::CLONE_NEWUTS;
        if self.pid_namespace {
            flags |= libc::CLONE_NEWPID;
        }
        if self.ipc_namespace {
            flags |= libc::CLONE_NEWIPC;
        }
        (flags | libc::SIGCHLD) as libc::c_long
    }
}

fn null_ptr() -> *const libc::c_char {
    std::ptr::null()
}

/// stdin, stdout, stderr for the task.
pub struct Stdio {
    pub stdin: OwnedFd,
    pub stdout: OwnedFd,
    pub stderr: OwnedFd,
}

/// Forks the task into new namespaces, sets it up and execs it. Returns its pid (in the
/// caller's namespace) once exec succeeded; a setup failure is reported with its stage.
pub fn spawn(p: &Prepared, stdio: &Stdio) -> Result<i32, IsolationError> {
    // The argv/envp pointer arrays are built here, before the clone, so the child does not
    // allocate.
    let (err_read, err_write) = nix::unistd::pipe2(nix::fcntl::OFlag::O_CLOEXEC)
        .map_err(|e| IsolationError::Clone(e.into()))?;
    let fds = [
        stdio.stdin.as_raw_fd(),
        stdio.stdout.as_raw_fd(),
        stdio.stderr.as_raw_fd(),
    ];
    let mut argv: Vec<*const libc::c_char> = p.argv.iter().map(|a| a.as_ptr()).collect();
    argv.push(std::ptr::null());
    let mut envp: Vec<*const libc::c_char> = p.envp.iter().map(|e| e.as_ptr()).collect();
    envp.push(std::ptr::null());
    // SAFETY: clone without CLONE_VM and a null stack behaves like fork: the child gets a
    // copy of this thread and continues here. It only makes raw syscalls before execve or
    // _exit.
    let pid = unsafe {
        libc::syscall(
            libc::SYS_clone,
            p.clone_flags(),
            0usize,
            0usize,
            0usize,
            0usize,
        )
    };
    if pid < 0 {
        return Err(IsolationError::Clone(io::Error::last_os_error()));
    }
    if pid == 0 {
        // SAFETY: we are the child.
        unsafe { child_main(p, fds, err_write.as_raw_fd(), &argv, &envp) }
    }
    drop(err_write);
    let mut buf = [0u8; 8];
    let n = read_full(&err_read, &mut buf);
    if n == 8 {
        let stage = u32::from_ne_bytes([buf[0], buf[1], buf[2], buf[3]]);
        let errno = i32::from_ne_bytes([buf[4], buf[5], buf[6], buf[7]]);
        // The child has exited; reap it so it does not linger as a zombie.
        let _ = nix::sys::wait::waitpid(nix::unistd::Pid::from_raw(pid as i32), None);
        return Err(IsolationError::Child {
            stage: STAGES.get(stage as usize).copied().unwrap_or("set up"),
            source: io::Error::from_raw_os_error(errno),
        });
    }
    Ok(pid as i32)
}

fn read_full(fd: &OwnedFd, buf: &mut [u8]) -> usize {
    let mut got = 0;
    while got < buf.len() {
        // SAFETY: reading into our own buffer.
        let n = unsafe {
            libc::read(
                fd.as_raw_fd(),
                buf[got..].as_mut_ptr().cast(),
                buf.len() - got,
            )
        };
        if n < 0 && io::Error::last_os_error().kind() == io::ErrorKind::Interrupted {
            continue;
        }
        if n <= 0 {
            break;
        }
        got += n as usize;
    }
    got
}

unsafe fn child_main(
    p: &Prepared,
    fds: [RawFd; 3],
    err_fd: RawFd,
    argv: &[*const libc::c_char],
    envp: &[*const libc::c_char],
) -> ! {
    let fail = |f: ChildFailure| -> ! {
        let mut buf = [0u8; 8];
        buf[..4].copy_from_slice(&f.stage.to_ne_bytes());
        buf[4..].copy_from_slice(&f.errno.to_ne_bytes());
        libc::write(err_fd, buf.as_ptr().cast(), 8);
        libc::_exit(127)
    };
    for (target, fd) in fds.iter().enumerate() {
        if libc::dup2(*fd, target as RawFd) < 0 {
            fail(ChildFailure {
                stage: 15,
                errno: io::Error::last_os_error().raw_os_error().unwrap_or(0),
            });
        }
    }
    if let Err(f) = p.enter() {
        fail(f);
    }
    libc::execve(p.program.as_ptr(), argv.as_ptr(), envp.as_ptr());
    fail(ChildFailure {
        stage: 14,
        errno: io::Error::last_os_error().raw_os_error().unwrap_or(0),
    })
}
