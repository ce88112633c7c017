//! Interactive exec inside a running task (Nomad's `ExecTaskStreaming`): the channels a
//! driver reads input from and writes output to, independent of any wire protocol. The
//! HTTP layer turns websocket frames into [`ExecInput`] and [`ExecOutput`] back into frames.
//!
//! ```text
//!  websocket ─ stdin.data / stdin.close / tty_size ─> ExecInput ─> driver (pty or pipes)
//!  websocket <─ stdout.data / stderr.data / exited ─── ExecOutput <─ driver
//! ```

use std::future::Future;
use std::time::Duration;

use bytes::Bytes;
use tokio::sync::mpsc;

use super::{DriverError, ExecTaskResult, CHECK_BUF_SIZE};

/// One message from the user to the command.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExecInput {
    Stdin(Bytes),
    /// The user's stdin reached EOF.
    StdinClose,
    Resize {
        height: u16,
        width: u16,
    },
}

/// One chunk of the command's output.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ExecOutput {
    Stdout(Bytes),
    Stderr(Bytes),
}

/// What an exec asks for plus its two channels. The driver returns the command's exit code
/// once the command has exited and its output has been sent.
pub struct ExecSession {
    pub command: Vec<String>,
    pub tty: bool,
    pub input: mpsc::Receiver<ExecInput>,
    pub output: mpsc::Sender<ExecOutput>,
}

impl std::fmt::Debug for ExecSession {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("ExecSession")
            .field("command", &self.command)
            .field("tty", &self.tty)
            .finish()
    }
}

impl ExecSession {
    /// A session plus the caller's ends of its channels: (session, input sender, output
    /// receiver).
    pub fn new(
        command: Vec<String>,
        tty: bool,
    ) -> (
        ExecSession,
        mpsc::Sender<ExecInput>,
        mpsc::Receiver<ExecOutput>,
    ) {
        let (in_tx, in_rx) = mpsc::channel(64);
        let (out_tx, out_rx) = mpsc::channel(64);
        (
            ExecSession {
                command,
                tty,
                input: in_rx,
                output: out_tx,
            },
            in_tx,
            out_rx,
        )
    }
}

/// Appends `data` to `buf`, keeping only the last `CHECK_BUF_SIZE` bytes (Nomad's circular
/// check buffer).
pub fn keep_tail(buf: &mut Vec<u8>, data: &[u8]) {
    buf.extend_from_slice(data);
    if buf.len() > CHECK_BUF_SIZE {
        let excess = buf.len() - CHECK_BUF_SIZE;
        buf.drain(..excess);
    }
}

/// Runs `command` through `start` (a driver's `exec_streaming`) without input and collects
/// its output, stdout and stderr interleaved into `stdout` as they arrive. The input channel
/// stays open until the command ends: closing it would be a hang-up, which kills the command.
pub async fn run_to_completion<F, Fut>(
    command: Vec<String>,
    timeout: Duration,
    start: F,
) -> Result<ExecTaskResult, DriverError>
where
    F: FnOnce(ExecSession) -> Fut,
    Fut: Future<Output = Result<i32, DriverError>>,
{
    let (session, input, mut output) = ExecSession::new(command, false);
    let _ = input.send(ExecInput::StdinClose).await;
    let mut combined = Vec::new();
    let collect = async {
        while let Some(chunk) = output.recv().await {
            match chunk {
                ExecOutput::Stdout(b) | ExecOutput::Stderr(b) => keep_tail(&mut combined, &b),
            }
        }
    };
    let run = async { tokio::join!(start(session), collect).0 };
    let exit_code = tokio::time::timeout(timeout, run)
        .await
        .map_err(|_| DriverError::DeadlineExceeded)??;
    drop(input);
    Ok(ExecTaskResult {
        stdout: combined,
        stderr: Vec::new(),
        exit_code,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn keep_tail_keeps_the_last_check_buffer() {
        let mut buf = Vec::new();
        keep_tail(&mut buf, b"abc");
        assert_eq!(buf, b"abc");
        keep_tail(&mut buf, &vec![b'x'; CHECK_BUF_SIZE]);
        assert_eq!(buf.len(), CHECK_BUF_SIZE);
        keep_tail(&mut buf, b"end");
        assert!(buf.ends_with(b"xend") && buf.len() == CHECK_BUF_SIZE);
    }

    #[tokio::test]
    async fn run_to_completion_collects_both_streams_in_order() {
        let res = run_to_completion(vec!["cmd".into()], Duration::from_secs(5), |s| async move {
            assert_eq!(s.command, ["cmd"]);
            let mut input = s.input;
            assert_eq!(input.recv().await, Some(ExecInput::StdinClose));
            s.output
                .send(ExecOutput::Stdout(Bytes::from_static(b"out ")))
                .await
                .unwrap();
            s.output
                .send(ExecOutput::Stderr(Bytes::from_static(b"err")))
                .await
                .unwrap();
            Ok(3)
        })
        .await
        .unwrap();
        assert_eq!(res.stdout, b"out err");
        assert!(res.stderr.is_empty());
        assert_eq!(res.exit_code, 3);
    }

    #[tokio::test]
    async fn run_to_completion_times_out() {
        let res = run_to_completion(vec!["cmd".into()], Duration::from_millis(50), |_s| async {
            tokio::time::sleep(Duration::from_secs(30)).await;
            Ok(0)
        })
        .await;
        assert_eq!(res, Err(DriverError::DeadlineExceeded));
    }
}
