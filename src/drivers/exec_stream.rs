//! Interactive exec inside a running task (Nomad's `ExecTaskStreaming`): the channels a
//! driver reads input from and writes output to, independent of any wire protocol. The
//! HTTP layer turns websocket frames into [`ExecInput`] and [`ExecOutput`] back into frames.
//!
//! ```text
//!  websocket ─ stdin.data / stdin.close / tty_size ─> ExecInput ─> driver (pty or pipes)
//!  websocket <─ stdout.data / stderr.data / exited ─── ExecOutput <─ driver
//! ```

use bytes::Bytes;
use tokio::sync::mpsc;

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
