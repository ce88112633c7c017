//! The supervisor's event loop: one thread, one `poll(2)` over the task's stdout/stderr
//! pipes, a pidfd for the task's exit, the control socket and its connections, and
//! (in the real process) a signalfd. No async runtime, one reusable read buffer.
//!
//! Lifecycle: spawn the task -> pump output into rotated log files and answer requests ->
//! on exit drain the pipes (up to `DRAIN_GRACE`), kill what is left of the process group,
//! write the exit record, answer every waiter, remove the socket and return.

use std::io::{self, Read, Write};
use std::os::fd::{AsRawFd, FromRawFd, OwnedFd, RawFd};
use std::os::unix::net::{UnixListener, UnixStream};
use std::os::unix::process::CommandExt;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use super::isolation::{self, Spawned};
use super::spec::{self, ExitRecord, LaunchSpec, Request, Response};
use crate::drivers::logging::FileRotator;

/// After the task's main process exits, how long output still written by descendants is
/// copied before the exit is reported.
pub const DRAIN_GRACE: Duration = Duration::from_secs(2);
/// A control client that does not read its answer within this time is dropped.
const WRITE_TIMEOUT: Duration = Duration::from_secs(1);
const READ_BUF: usize = 16 * 1024;
/// A request line longer than this is a protocol error.
const MAX_REQUEST: usize = 4096;
/// Control requests fault in code the idle loop does not use; the pages are dropped again
/// this long after a request, and at most this often.
const TRIM_DELAY: Duration = Duration::from_secs(1);

/// One output stream of the task and where it goes.
struct Output {
    pipe: Option<OwnedFd>,
    sink: Option<FileRotator>,
}

struct Conn {
    stream: UnixStream,
    buf: Vec<u8>,
    /// Sent a `wait`: answered when the task's exit is final.
    waiting: bool,
}

pub struct Supervisor {
    spec: LaunchSpec,
    /// The task's main process, our child; reaped with `waitpid`.
    pid: i32,
    started_at: i64,
    pidfd: OwnedFd,
    listener: UnixListener,
    conns: Vec<Conn>,
    outputs: [Output; 2],
    /// Set by an explicit stop: SIGKILL to the group when it passes.
    kill_at: Option<Instant>,
    /// The main process has been reaped: (exit code, signal, when).
    reaped: Option<(i32, i32, i64)>,
    drain_until: Option<Instant>,
    log_error: Option<String>,
    final_record: Option<ExitRecord>,
    /// Whether control requests are followed by a trim of the resident set (the re-executed
    /// binary only; see `keep_trimmed`).
    trim: bool,
    /// When the pages faulted in by the last requests are dropped.
    trim_at: Option<Instant>,
    last_trim: Option<Instant>,
}

fn now_nanos() -> i64 {
    crate::api::now_nanos()
}

pub(super) fn set_nonblocking(fd: RawFd) -> io::Result<()> {
    // SAFETY: fcntl on a descriptor we own; no memory is passed.
    let flags = unsafe { libc::fcntl(fd, libc::F_GETFL) };
    if flags < 0 || unsafe { libc::fcntl(fd, libc::F_SETFL, flags | libc::O_NONBLOCK) } < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(())
}

fn pidfd_open(pid: i32) -> io::Result<OwnedFd> {
    // SAFETY: a plain syscall; the returned descriptor is owned by us from here on.
    let fd = unsafe { libc::syscall(libc::SYS_pidfd_open, pid, 0) };
    if fd < 0 {
        return Err(io::Error::last_os_error());
    }
    Ok(unsafe { OwnedFd::from_raw_fd(fd as RawFd) })
}

/// `kill(-pgid, sig)`; a group that is already gone is fine.
fn kill_group(pgid: i32, sig: i32) {
    if pgid > 1 {
        // SAFETY: sending a signal has no memory effects.
        unsafe { libc::kill(-pgid, sig) };
    }
}

/// Binds the control socket by its name relative to the (current) state dir: socket paths
/// are limited to 108 bytes, task dirs are not.
fn bind_socket(spec: &LaunchSpec) -> io::Result<UnixListener> {
    let path = spec::socket_path(&spec.state_dir);
    match std::fs::remove_file(&path) {
        Ok(()) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(e),
    }
    let listener = if path.as_os_str().len() < 100 {
        UnixListener::bind(&path)?
    } else {
        let dir = std::fs::File::open(&spec.state_dir)?;
        let short = format!("/proc/self/fd/{}/{}", dir.as_raw_fd(), spec::SOCKET_FILE);
        UnixListener::bind(short)?
    };
    listener.set_nonblocking(true)?;
    Ok(listener)
}

/// Starts the task: isolated as its driver asked, or as a plain process group (raw_exec).
fn spawn_task(spec: &LaunchSpec) -> io::Result<Spawned> {
    if let Some(iso) = &spec.isolation {
        return isolation::spawn(iso, spec.logs.dir.is_some());
    }
    let (bin, args) = spec
        .argv
        .split_first()
        .ok_or_else(|| io::Error::new(io::ErrorKind::InvalidInput, "empty argv"))?;
    let mut cmd = Command::new(bin);
    cmd.args(args)
        .current_dir(&spec.cwd)
        .env_clear()
        .envs(spec.env.iter().map(|(k, v)| (k, v)))
        .stdin(Stdio::null())
        .process_group(0);
    if spec.logs.dir.is_some() {
        cmd.stdout(Stdio::piped()).stderr(Stdio::piped());
    } else {
        cmd.stdout(Stdio::null()).stderr(Stdio::null());
    }
    if let Some(gid) = spec.gid {
        cmd.gid(gid);
    }
    if let Some(uid) = spec.uid {
        cmd.uid(uid);
    }
    // The supervisor blocks the signals it reads from its signalfd, and whoever started the
    // agent may have ignored some (`nohup`: SIGHUP; a shell's `&`: SIGINT): the task starts
    // with default dispositions and an empty mask.
    // SAFETY: only async-signal-safe calls between fork and exec.
    unsafe {
        cmd.pre_exec(|| {
            for sig in 1..32 {
                if sig != libc::SIGKILL && sig != libc::SIGSTOP {
                    libc::signal(sig, libc::SIG_DFL);
                }
            }
            let mut set: libc::sigset_t = std::mem::zeroed();
            libc::sigemptyset(&mut set);
            if libc::pthread_sigmask(libc::SIG_SETMASK, &set, std::ptr::null_mut()) != 0 {
                return Err(io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let mut child = cmd.spawn()?;
    let pipe = |fd: Option<OwnedFd>| -> io::Result<Option<OwnedFd>> {
        if let Some(fd) = &fd {
            set_nonblocking(fd.as_raw_fd())?;
        }
        Ok(fd)
    };
    // The `Child` is dropped (that neither kills nor waits): the pid is reaped with
    // `waitpid` like an isolated task's.
    Ok(Spawned {
        pid: child.id() as i32,
        stdout: pipe(child.stdout.take().map(OwnedFd::from))?,
        stderr: pipe(child.stderr.take().map(OwnedFd::from))?,
    })
}

fn open_sink(spec: &LaunchSpec, stream: &str) -> io::Result<Option<FileRotator>> {
    let Some(dir) = &spec.logs.dir else {
        return Ok(None);
    };
    FileRotator::open(
        dir,
        &format!("{}.{stream}", spec.logs.task_name),
        spec.logs.max_files,
        spec.logs.max_file_size_bytes,
    )
    .map(Some)
}

impl Supervisor {
    /// Opens the log files and the socket, then starts the task. The previous attempt's exit
    /// record is removed first, so a record present later is always this attempt's.
    pub fn start(spec: LaunchSpec) -> io::Result<Supervisor> {
        match std::fs::remove_file(spec::exit_path(&spec.state_dir)) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
        let out_sink = open_sink(&spec, "stdout")?;
        let err_sink = open_sink(&spec, "stderr")?;
        let listener = bind_socket(&spec)?;
        let Spawned {
            pid,
            stdout,
            stderr,
        } = spawn_task(&spec)?;
        let started_at = now_nanos();
        let pidfd = pidfd_open(pid)?;
        Ok(Supervisor {
            spec,
            pid,
            started_at,
            pidfd,
            listener,
            conns: Vec::new(),
            outputs: [
                Output {
                    pipe: stdout,
                    sink: out_sink,
                },
                Output {
                    pipe: stderr,
                    sink: err_sink,
                },
            ],
            kill_at: None,
            reaped: None,
            drain_until: None,
            log_error: None,
            final_record: None,
            trim: false,
            trim_at: None,
            last_trim: None,
        })
    }

    /// Drops the pages a control request faulted in once it is served (see `trim.rs`), so
    /// an idle supervisor stays small after the agent attached, stopped or signalled it.
    pub fn keep_trimmed(mut self) -> Supervisor {
        self.trim = true;
        self.last_trim = Some(Instant::now());
        self
    }

    pub fn pid(&self) -> i32 {
        self.pid
    }

    pub fn started_at(&self) -> i64 {
        self.started_at
    }

    /// Runs until the task has exited and every waiter was answered; returns the record.
    /// `signals`: a signalfd; SIGTERM on it stops the task with the spec's kill signal.
    pub fn run(mut self, signals: Option<&OwnedFd>) -> ExitRecord {
        let mut buf = vec![0u8; READ_BUF];
        while self.final_record.is_none() {
            self.poll_once(&mut buf, signals);
            self.check_timers();
            self.maybe_finish();
        }
        let record = self.final_record.clone().unwrap_or_default();
        self.answer_waiters();
        let _ = std::fs::remove_file(spec::socket_path(&self.spec.state_dir));
        record
    }

    fn timeout_ms(&self) -> i32 {
        let next = [self.kill_at, self.drain_until, self.trim_at]
            .into_iter()
            .flatten()
            .min();
        match next {
            None => -1,
            Some(t) => t
                .saturating_duration_since(Instant::now())
                .as_millis()
                .clamp(1, i32::MAX as u128) as i32,
        }
    }

    fn poll_once(&mut self, buf: &mut [u8], signals: Option<&OwnedFd>) {
        // Fixed slots first, then one per connection.
        let mut fds: Vec<libc::pollfd> = Vec::with_capacity(5 + self.conns.len());
        let mut push = |fd: Option<RawFd>| {
            fds.push(libc::pollfd {
                fd: fd.unwrap_or(-1),
                events: libc::POLLIN,
                revents: 0,
            })
        };
        push(self.outputs[0].pipe.as_ref().map(|f| f.as_raw_fd()));
        push(self.outputs[1].pipe.as_ref().map(|f| f.as_raw_fd()));
        push((self.reaped.is_none()).then(|| self.pidfd.as_raw_fd()));
        push(Some(self.listener.as_raw_fd()));
        push(signals.map(|f| f.as_raw_fd()));
        for c in &self.conns {
            push(Some(c.stream.as_raw_fd()));
        }
        // SAFETY: `fds` is a valid array of pollfd for its length.
        let n = unsafe {
            libc::poll(
                fds.as_mut_ptr(),
                fds.len() as libc::nfds_t,
                self.timeout_ms(),
            )
        };
        if n <= 0 {
            return;
        }
        let ready = |i: usize| fds[i].fd >= 0 && fds[i].revents != 0;
        // Before `accept` adds connections that have no slot in `fds`.
        let readable: Vec<usize> = (0..self.conns.len()).filter(|i| ready(5 + i)).collect();
        for i in 0..2 {
            if ready(i) {
                self.pump(i, buf);
            }
        }
        if ready(2) {
            self.reap();
        }
        if ready(3) {
            self.accept();
        }
        if ready(4) {
            if let Some(sfd) = signals {
                self.on_signal(sfd);
            }
        }
        self.serve(&readable, buf);
    }

    /// Copies what is in the pipe into the log; EOF or a read error closes it.
    fn pump(&mut self, i: usize, buf: &mut [u8]) {
        let out = &mut self.outputs[i];
        let Some(fd) = &out.pipe else { return };
        // SAFETY: reading into our own buffer from a descriptor we own.
        let n = unsafe { libc::read(fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
        if n == 0 {
            out.pipe = None;
            return;
        }
        if n < 0 {
            let e = io::Error::last_os_error();
            if e.kind() != io::ErrorKind::WouldBlock && e.kind() != io::ErrorKind::Interrupted {
                out.pipe = None;
            }
            return;
        }
        if let Some(sink) = &mut out.sink {
            if let Err(e) = sink
                .write_all(&buf[..n as usize])
                .and_then(|_| sink.flush())
            {
                if self.log_error.is_none() {
                    self.log_error = Some(format!("failed to write task logs: {e}"));
                }
                // Keep draining the pipe so the task never blocks on a full pipe.
                out.sink = None;
            }
        }
    }

    fn reap(&mut self) {
        let mut status = 0;
        // SAFETY: waitpid on our own child, writing into a local.
        let rc = unsafe { libc::waitpid(self.pid, &mut status, libc::WNOHANG) };
        let (code, sig) = match rc {
            0 => return,
            rc if rc < 0 => {
                let e = io::Error::last_os_error();
                if e.kind() == io::ErrorKind::Interrupted {
                    return;
                }
                self.log_error
                    .get_or_insert(format!("executor: error waiting on process: {e}"));
                (1, 0)
            }
            _ if libc::WIFEXITED(status) => (libc::WEXITSTATUS(status), 0),
            _ if libc::WIFSIGNALED(status) => {
                let s = libc::WTERMSIG(status);
                (128 + s, s)
            }
            // Stopped or continued: not an exit.
            _ => return,
        };
        self.reaped = Some((code, sig, now_nanos()));
        self.drain_until = Some(Instant::now() + DRAIN_GRACE);
        self.kill_at = None;
    }

    fn check_timers(&mut self) {
        let now = Instant::now();
        if self.kill_at.is_some_and(|t| t <= now) {
            self.kill_at = None;
            kill_group(self.pid, libc::SIGKILL);
        }
        if self.trim_at.is_some_and(|t| t <= now) {
            self.trim_at = None;
            self.last_trim = Some(now);
            super::trim::drop_startup_pages();
        }
    }

    fn maybe_finish(&mut self) {
        let Some((exit_code, signal, completed_at)) = self.reaped else {
            return;
        };
        let drained = self.outputs.iter().all(|o| o.pipe.is_none());
        if !drained && self.drain_until.is_some_and(|t| t > Instant::now()) {
            return;
        }
        // Whatever outlived the main process goes with it.
        kill_group(self.pid, libc::SIGKILL);
        let oom_killed = self
            .spec
            .isolation
            .as_ref()
            .is_some_and(isolation::after_exit);
        let err = match (&self.log_error, oom_killed) {
            (Some(e), _) => Some(e.clone()),
            (None, true) => Some("OOM Killed".to_string()),
            (None, false) => None,
        };
        let record = ExitRecord {
            task_id: self.spec.task_id.clone(),
            pid: self.pid,
            exit_code,
            signal,
            started_at: self.started_at,
            completed_at,
            err,
            oom_killed,
        };
        if let Err(e) = spec::write_exit(&self.spec.state_dir, &record) {
            eprintln!("executor: failed to record exit status: {e}");
        }
        self.final_record = Some(record);
    }

    fn accept(&mut self) {
        while let Ok((stream, _)) = self.listener.accept() {
            if stream.set_nonblocking(true).is_err() {
                continue;
            }
            self.conns.push(Conn {
                stream,
                buf: Vec::new(),
                waiting: false,
            });
        }
    }

    fn on_signal(&mut self, sfd: &OwnedFd) {
        let mut info = [0u8; std::mem::size_of::<libc::signalfd_siginfo>()];
        // SAFETY: reading one siginfo record into a buffer of exactly its size.
        let n = unsafe { libc::read(sfd.as_raw_fd(), info.as_mut_ptr().cast(), info.len()) };
        if n != info.len() as isize {
            return;
        }
        let signo = u32::from_ne_bytes([info[0], info[1], info[2], info[3]]) as i32;
        if signo == libc::SIGTERM {
            self.stop(self.spec.kill_signal, self.spec.kill_timeout_ms);
        }
        // SIGHUP, SIGINT, SIGQUIT: the agent's terminal or session going away is no reason
        // for the task to stop.
    }

    fn stop(&mut self, signal: i32, timeout_ms: u64) {
        if self.reaped.is_some() {
            return;
        }
        if timeout_ms == 0 {
            kill_group(self.pid, libc::SIGKILL);
            return;
        }
        kill_group(self.pid, signal);
        let deadline = Instant::now() + Duration::from_millis(timeout_ms);
        self.kill_at = Some(self.kill_at.map_or(deadline, |t| t.min(deadline)));
    }

    fn response(&self) -> Response {
        Response {
            pid: self.pid,
            started_at: self.started_at,
            exit: self.final_record.clone(),
            error: None,
        }
    }

    fn serve(&mut self, readable: &[usize], buf: &mut [u8]) {
        let mut dead = Vec::new();
        for &i in readable {
            let mut lines = Vec::new();
            let c = &mut self.conns[i];
            match c.stream.read(buf) {
                Ok(0) => dead.push(i),
                Ok(n) => {
                    c.buf.extend_from_slice(&buf[..n]);
                    while let Some(nl) = c.buf.iter().position(|b| *b == b'\n') {
                        let line: Vec<u8> = c.buf.drain(..=nl).collect();
                        lines.push(line);
                    }
                    if c.buf.len() > MAX_REQUEST {
                        dead.push(i);
                        continue;
                    }
                }
                Err(e) if e.kind() == io::ErrorKind::WouldBlock => {}
                Err(_) => dead.push(i),
            }
            for line in lines {
                if !self.handle(i, &line) {
                    dead.push(i);
                }
                self.schedule_trim();
            }
        }
        dead.sort_unstable();
        dead.dedup();
        for i in dead.into_iter().rev() {
            self.conns.swap_remove(i);
        }
    }

    fn schedule_trim(&mut self) {
        if !self.trim || self.trim_at.is_some() {
            return;
        }
        let now = Instant::now();
        let earliest = self.last_trim.map_or(now, |t| t + TRIM_DELAY);
        self.trim_at = Some(earliest.max(now + TRIM_DELAY));
    }

    /// Handles one request line; false drops the connection.
    fn handle(&mut self, i: usize, line: &[u8]) -> bool {
        let req: Request = match serde_json::from_slice(line) {
            Ok(r) => r,
            Err(e) => {
                let resp = Response {
                    error: Some(format!("bad request: {e}")),
                    ..self.response()
                };
                return reply(&mut self.conns[i].stream, &resp);
            }
        };
        let mut resp = self.response();
        match req {
            Request::Status => {}
            Request::Signal { signal } => {
                // SAFETY: sending a signal has no memory effects.
                if self.reaped.is_none() && unsafe { libc::kill(self.pid, signal) } != 0 {
                    resp.error = Some(io::Error::last_os_error().to_string());
                }
            }
            Request::Stop { signal, timeout_ms } => self.stop(signal, timeout_ms),
            Request::Wait => {
                if self.final_record.is_none() {
                    self.conns[i].waiting = true;
                    return true;
                }
            }
        }
        reply(&mut self.conns[i].stream, &resp)
    }

    fn answer_waiters(&mut self) {
        let resp = self.response();
        for c in self.conns.iter_mut().filter(|c| c.waiting) {
            reply(&mut c.stream, &resp);
        }
    }
}

/// Writes one response line; false when the client is gone or does not read.
fn reply(stream: &mut UnixStream, resp: &Response) -> bool {
    let Ok(mut line) = serde_json::to_vec(resp) else {
        return false;
    };
    line.push(b'\n');
    if stream.set_nonblocking(false).is_err()
        || stream.set_write_timeout(Some(WRITE_TIMEOUT)).is_err()
    {
        return false;
    }
    let ok = stream.write_all(&line).is_ok();
    ok && stream.set_nonblocking(true).is_ok()
}
