//! Exec of a command on the host in a task's environment and directory (what raw_exec's
//! `ExecTaskStreaming` does): with `tty` the command gets a fresh pseudo-terminal as its
//! controlling terminal (stdout and stderr both arrive as stdout, as with a real terminal);
//! without, three pipes.
//!
//! The session ends when the command exits and its output has been read. If the caller
//! hangs up (the input channel closes without `StdinClose`), the command is killed.

use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::process::Stdio;
use std::time::Duration;

use bytes::Bytes;
use tokio::io::unix::AsyncFd;
use tokio::io::{AsyncRead, AsyncReadExt, AsyncWriteExt};
use tokio::process::{Child, Command};
use tokio::sync::mpsc;

use super::exec_stream::{ExecInput, ExecOutput, ExecSession};
use super::raw_exec::lookup_bin;
use super::{DriverError, TaskConfig};

/// After the command exits, how long output still buffered may take to arrive.
const DRAIN_GRACE: Duration = Duration::from_secs(2);
const READ_CHUNK: usize = 4096;

/// Runs `session.command` with the task's env, working dir and user; returns its exit code
/// (128 + signal when killed by one, as Nomad reports it).
pub async fn exec_on_host(cfg: &TaskConfig, session: ExecSession) -> Result<i32, DriverError> {
    let Some(program) = session.command.first() else {
        return Err(DriverError::InvalidConfig(
            "command is not present".to_string(),
        ));
    };
    let bin = lookup_bin(&cfg.task_dir, program)?;
    let mut cmd = Command::new(&bin);
    cmd.args(&session.command[1..])
        .current_dir(&cfg.task_dir)
        .env_clear()
        .envs(&cfg.env)
        .kill_on_drop(true);
    if !cfg.user.is_empty() && nix::unistd::geteuid().is_root() {
        let user = nix::unistd::User::from_name(&cfg.user)
            .ok()
            .flatten()
            .ok_or_else(|| {
                DriverError::InvalidConfig(format!("user {:?} does not exist", cfg.user))
            })?;
        cmd.uid(user.uid.as_raw()).gid(user.gid.as_raw());
    }
    let spawn_err = |e: io::Error| DriverError::Spawn {
        command: bin.display().to_string(),
        reason: e.to_string(),
    };
    if session.tty {
        run_tty(cmd, session).await.map_err(spawn_err)
    } else {
        run_pipes(cmd, session).await.map_err(spawn_err)
    }
}

fn exit_code(status: io::Result<std::process::ExitStatus>) -> i32 {
    match status {
        Ok(s) => {
            use std::os::unix::process::ExitStatusExt as _;
            s.code().or(s.signal().map(|sig| 128 + sig)).unwrap_or(1)
        }
        Err(_) => 1,
    }
}

async fn copy_out<R: AsyncRead + Unpin>(
    mut r: R,
    out: mpsc::Sender<ExecOutput>,
    wrap: fn(Bytes) -> ExecOutput,
) {
    let mut buf = vec![0u8; READ_CHUNK];
    loop {
        match r.read(&mut buf).await {
            Ok(0) | Err(_) => return,
            Ok(n) => {
                if out
                    .send(wrap(Bytes::copy_from_slice(&buf[..n])))
                    .await
                    .is_err()
                {
                    return;
                }
            }
        }
    }
}

/// Feeds input to the child until it exits; returns its exit code.
pub(super) async fn run_pipes(mut cmd: Command, mut s: ExecSession) -> io::Result<i32> {
    cmd.stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn()?;
    let mut readers = Vec::new();
    if let Some(o) = child.stdout.take() {
        readers.push(tokio::spawn(copy_out(
            o,
            s.output.clone(),
            ExecOutput::Stdout,
        )));
    }
    if let Some(e) = child.stderr.take() {
        readers.push(tokio::spawn(copy_out(
            e,
            s.output.clone(),
            ExecOutput::Stderr,
        )));
    }
    let mut stdin = child.stdin.take();
    let mut input_open = true;
    let status = loop {
        tokio::select! {
            msg = s.input.recv(), if input_open => match msg {
                Some(ExecInput::Stdin(data)) => {
                    if let Some(w) = stdin.as_mut() {
                        if w.write_all(&data).await.is_err() {
                            stdin = None;
                        }
                    }
                }
                Some(ExecInput::StdinClose) => stdin = None,
                Some(ExecInput::Resize { .. }) => {}
                None => {
                    input_open = false;
                    stdin = None;
                    let _ = child.start_kill();
                }
            },
            st = child.wait() => break st,
        }
    };
    for r in readers {
        let abort = r.abort_handle();
        if tokio::time::timeout(DRAIN_GRACE, r).await.is_err() {
            abort.abort();
        }
    }
    Ok(exit_code(status))
}

/// The parent's side of a pseudo-terminal, non-blocking and driven by tokio.
struct PtyMaster {
    fd: AsyncFd<OwnedFd>,
}

impl PtyMaster {
    fn new(fd: OwnedFd) -> io::Result<Self> {
        let raw = fd.as_raw_fd();
        // SAFETY: fcntl on a descriptor this function owns.
        let flags = unsafe { libc::fcntl(raw, libc::F_GETFL) };
        if flags < 0 || unsafe { libc::fcntl(raw, libc::F_SETFL, flags | libc::O_NONBLOCK) } < 0 {
            return Err(io::Error::last_os_error());
        }
        Ok(PtyMaster {
            // SAFETY: the OwnedFd stays open, and is the same descriptor, until the AsyncFd
            // holding it is dropped.
            fd: unsafe { AsyncFd::register(fd)? },
        })
    }

    /// Ok(0) once the terminal's other side is closed (Linux reports EIO for that).
    async fn read(&self, buf: &mut [u8]) -> io::Result<usize> {
        loop {
            let mut guard = self.fd.readable().await?;
            let res = guard.try_io(|fd| {
                // SAFETY: reads into a buffer of the given length.
                let n = unsafe { libc::read(fd.as_raw_fd(), buf.as_mut_ptr().cast(), buf.len()) };
                if n < 0 {
                    Err(io::Error::last_os_error())
                } else {
                    Ok(n as usize)
                }
            });
            match res {
                Ok(Err(e)) if e.raw_os_error() == Some(libc::EIO) => return Ok(0),
                Ok(r) => return r,
                Err(_would_block) => continue,
            }
        }
    }

    async fn write_all(&self, mut data: &[u8]) -> io::Result<()> {
        while !data.is_empty() {
            let mut guard = self.fd.writable().await?;
            let res = guard.try_io(|fd| {
                // SAFETY: writes from a buffer of the given length.
                let n = unsafe { libc::write(fd.as_raw_fd(), data.as_ptr().cast(), data.len()) };
                if n < 0 {
                    Err(io::Error::last_os_error())
                } else {
                    Ok(n as usize)
                }
            });
            match res {
                Ok(Ok(n)) => data = &data[n..],
                Ok(Err(e)) => return Err(e),
                Err(_would_block) => continue,
            }
        }
        Ok(())
    }

    fn resize(&self, height: u16, width: u16) {
        let ws = libc::winsize {
            ws_row: height,
            ws_col: width,
            ws_xpixel: 0,
            ws_ypixel: 0,
        };
        // SAFETY: TIOCSWINSZ reads one winsize from the pointer.
        unsafe {
            libc::ioctl(self.fd.get_ref().as_raw_fd(), libc::TIOCSWINSZ, &ws);
        }
    }
}

fn spawn_on_pty(mut cmd: Command) -> io::Result<(Child, PtyMaster)> {
    let pty = nix::pty::openpty(None, None).map_err(io::Error::from)?;
    let slave = pty.slave;
    cmd.stdin(Stdio::from(slave.try_clone()?))
        .stdout(Stdio::from(slave.try_clone()?))
        .stderr(Stdio::from(slave));
    // SAFETY: only async-signal-safe calls between fork and exec.
    unsafe {
        cmd.pre_exec(|| {
            if libc::setsid() < 0 {
                return Err(io::Error::last_os_error());
            }
            if libc::ioctl(0, libc::TIOCSCTTY, 0) < 0 {
                return Err(io::Error::last_os_error());
            }
            Ok(())
        });
    }
    let child = cmd.spawn()?;
    // The slave descriptors went into `cmd`; dropping it closes the parent's copies so the
    // master sees EOF once the command (and its children) exit.
    drop(cmd);
    Ok((child, PtyMaster::new(pty.master)?))
}

pub(super) async fn run_tty(cmd: Command, mut s: ExecSession) -> io::Result<i32> {
    let (mut child, master) = spawn_on_pty(cmd)?;
    let mut buf = vec![0u8; READ_CHUNK];
    let mut input_open = true;
    let mut output_open = true;
    let status = loop {
        tokio::select! {
            msg = s.input.recv(), if input_open => match msg {
                Some(ExecInput::Stdin(data)) => {
                    let _ = master.write_all(&data).await;
                }
                // A terminal has no half-close: EOF is the terminal's EOF character.
                Some(ExecInput::StdinClose) => {
                    let _ = master.write_all(&[4]).await;
                }
                Some(ExecInput::Resize { height, width }) => master.resize(height, width),
                None => {
                    input_open = false;
                    let _ = child.start_kill();
                }
            },
            n = master.read(&mut buf), if output_open => match n {
                Ok(0) | Err(_) => output_open = false,
                Ok(n) => {
                    let chunk = ExecOutput::Stdout(Bytes::copy_from_slice(&buf[..n]));
                    if s.output.send(chunk).await.is_err() {
                        output_open = false;
                    }
                }
            },
            st = child.wait() => break st,
        }
    };
    // Output written just before the exit is still in the terminal's buffer.
    let drain = async {
        if !output_open {
            return;
        }
        loop {
            match master.read(&mut buf).await {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    let chunk = ExecOutput::Stdout(Bytes::copy_from_slice(&buf[..n]));
                    if s.output.send(chunk).await.is_err() {
                        break;
                    }
                }
            }
        }
    };
    let _ = tokio::time::timeout(DRAIN_GRACE, drain).await;
    Ok(exit_code(status))
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn cfg(dir: &std::path::Path) -> TaskConfig {
        TaskConfig {
            task_dir: dir.to_path_buf(),
            env: BTreeMap::from([
                ("PATH".to_string(), "/usr/bin:/bin".to_string()),
                ("GREETING".to_string(), "hi".to_string()),
            ]),
            ..Default::default()
        }
    }

    async fn run(
        command: &[&str],
        tty: bool,
        input: Vec<ExecInput>,
    ) -> (Result<i32, DriverError>, Vec<u8>, Vec<u8>) {
        let dir = tempfile::tempdir().expect("tempdir");
        let (session, tx, mut rx) =
            ExecSession::new(command.iter().map(|s| s.to_string()).collect(), tty);
        for i in input {
            tx.send(i).await.expect("send");
        }
        let c = cfg(dir.path());
        let exec = tokio::spawn(async move { exec_on_host(&c, session).await });
        let (mut out, mut err) = (Vec::new(), Vec::new());
        while let Some(chunk) = rx.recv().await {
            match chunk {
                ExecOutput::Stdout(b) => out.extend_from_slice(&b),
                ExecOutput::Stderr(b) => err.extend_from_slice(&b),
            }
        }
        drop(tx);
        (exec.await.expect("join"), out, err)
    }

    #[tokio::test]
    async fn pipes_pass_stdin_env_and_exit_code() {
        let (code, out, err) = run(
            &[
                "sh",
                "-c",
                "read x; echo \"$GREETING $x\"; echo oops >&2; exit 3",
            ],
            false,
            vec![
                ExecInput::Stdin(Bytes::from_static(b"there\n")),
                ExecInput::StdinClose,
            ],
        )
        .await;
        assert_eq!(code, Ok(3));
        assert_eq!(String::from_utf8_lossy(&out), "hi there\n");
        assert_eq!(String::from_utf8_lossy(&err), "oops\n");
    }

    #[tokio::test]
    async fn tty_is_a_terminal_and_resizes() {
        let (code, out, _) = run(
            &["sh", "-c", "read go; test -t 0 && stty size"],
            true,
            // Input is applied in order: the size is set before the line is written.
            vec![
                ExecInput::Resize {
                    height: 33,
                    width: 101,
                },
                ExecInput::Stdin(Bytes::from_static(b"go\n")),
            ],
        )
        .await;
        assert_eq!(code, Ok(0));
        assert!(
            String::from_utf8_lossy(&out).contains("33 101"),
            "output: {:?}",
            String::from_utf8_lossy(&out)
        );
    }

    #[tokio::test]
    async fn missing_binary_is_reported() {
        let (code, _, _) = run(&["no-such-binary-xyz"], false, vec![]).await;
        assert_eq!(
            code,
            Err(DriverError::BinaryNotFound(
                "no-such-binary-xyz".to_string()
            ))
        );
    }
}
