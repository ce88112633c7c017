//! `nomad alloc exec [options] <allocation> <command> [<args>...]`: run a command inside a
//! running task over Nomad's exec websocket. With `-t` the local terminal is put in raw
//! mode, resizes are forwarded, and `~.` at the start of a line closes the session. The
//! exit code is the command's.

use std::io::{IsTerminal, Read, Write};
use std::os::fd::AsRawFd;

use anyhow::anyhow;
use futures::{SinkExt, StreamExt};
use nomad::api::exec::{ExecStreamingInput, ExecStreamingOutput};
use tokio::sync::mpsc;
use tokio_tungstenite::tungstenite::Message;

use super::target;
use crate::meta::GlobalArgs;
use crate::output;

#[derive(Debug, Clone, Default, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub global: GlobalArgs,
    /// Use a random allocation from the specified job ID or prefix.
    #[arg(long)]
    pub job: bool,
    /// With -job, only allocations of this task group.
    #[arg(long, default_value = "")]
    pub group: String,
    /// Pass stdin to the container (default true).
    #[arg(short = 'i', num_args = 0..=1, require_equals = true, default_missing_value = "true")]
    pub stdin: Option<bool>,
    /// Allocate a pseudo-tty (default: whether stdin is a terminal).
    #[arg(short = 't', num_args = 0..=1, require_equals = true, default_missing_value = "true")]
    pub tty: Option<bool>,
    /// Escape character for closing the session ("none" to disable).
    #[arg(short = 'e', default_value = "~")]
    pub escape: String,
    /// The task to exec into (optional when the group has one task).
    #[arg(long, default_value = "")]
    pub task: String,
    #[arg(long)]
    pub verbose: bool,
    /// The allocation ID or prefix (the job with -job).
    pub alloc: Option<String>,
    /// The command and its arguments.
    #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
    pub command: Vec<String>,
}

/// The command words as the user typed them: the argv normaliser doubles single dashes of
/// flags, which must not touch the command's own arguments (`ls -la`).
fn raw_command(parsed: &[String]) -> Vec<String> {
    let raw: Vec<String> = std::env::args().collect();
    if raw.len() >= parsed.len() {
        let tail = &raw[raw.len() - parsed.len()..];
        let matches = tail
            .iter()
            .zip(parsed)
            .all(|(r, p)| r == p || format!("-{r}") == *p);
        if matches {
            return tail.to_vec();
        }
    }
    parsed.to_vec()
}

pub async fn run(args: &Args, g: &GlobalArgs) -> anyhow::Result<i32> {
    let Some(arg) = args.alloc.as_deref() else {
        let what = if args.job {
            "A job ID"
        } else {
            "An allocation ID"
        };
        output::err(format!("{what} is required"));
        output::err("For additional help try 'nomad alloc exec -help'");
        return Ok(1);
    };
    if !args.job && arg.len() == 1 {
        output::err("Alloc ID must contain at least two characters");
        return Ok(1);
    }
    if args.command.is_empty() {
        output::err("A command is required");
        output::err("For additional help try 'nomad alloc exec -help'");
        return Ok(1);
    }
    let stdin_on = args.stdin.unwrap_or(true);
    let tty = args
        .tty
        .unwrap_or_else(|| std::io::stdin().is_terminal() && std::io::stdout().is_terminal());
    if tty && !stdin_on {
        output::err("-i must be enabled if running with tty");
        return Ok(1);
    }
    let escape = match args.escape.as_str() {
        "none" => None,
        e if e.len() == 1 => e.bytes().next(),
        _ => {
            output::err("-e requires 'none' or a single character");
            return Ok(1);
        }
    };
    let client = g.client()?;
    let alloc_id = if args.job {
        target::random_job_alloc(&client, g, arg, &args.group).await?
    } else {
        arg.to_string()
    };
    let alloc = target::resolve(&client, &alloc_id, args.verbose).await?;
    let task = target::task_of(&alloc, &args.task)?;
    let command = raw_command(&args.command);
    let socket = client
        .alloc_exec_socket(&alloc.id, &task, tty, &command)
        .await
        .map_err(|e| anyhow!("failed to exec into task: {e}"))?;
    let _raw = if tty { RawMode::enable() } else { None };
    match session(socket, stdin_on, tty, escape.filter(|_| tty)).await {
        Ok(code) => Ok(code),
        Err(e) => {
            drop(_raw);
            Err(anyhow!("failed to exec into task: {e}"))
        }
    }
}

/// The local terminal in raw mode until dropped.
struct RawMode {
    saved: nix::sys::termios::Termios,
}

impl RawMode {
    fn enable() -> Option<RawMode> {
        use nix::sys::termios;
        let stdin = std::io::stdin();
        let saved = termios::tcgetattr(&stdin).ok()?;
        let mut raw = saved.clone();
        termios::cfmakeraw(&mut raw);
        termios::tcsetattr(&stdin, termios::SetArg::TCSANOW, &raw).ok()?;
        Some(RawMode { saved })
    }
}

impl Drop for RawMode {
    fn drop(&mut self) {
        let _ = nix::sys::termios::tcsetattr(
            std::io::stdin(),
            nix::sys::termios::SetArg::TCSANOW,
            &self.saved,
        );
    }
}

fn terminal_size() -> Option<(u16, u16)> {
    let mut ws = libc::winsize {
        ws_row: 0,
        ws_col: 0,
        ws_xpixel: 0,
        ws_ypixel: 0,
    };
    // SAFETY: TIOCGWINSZ writes one winsize through the pointer.
    let rc = unsafe { libc::ioctl(std::io::stdout().as_raw_fd(), libc::TIOCGWINSZ, &mut ws) };
    (rc == 0 && ws.ws_row > 0).then_some((ws.ws_row, ws.ws_col))
}

/// What the stdin reader saw.
enum Input {
    Data(Vec<u8>),
    Eof,
    /// The escape sequence: close the session.
    Escape,
}

/// Finds `<escape>.` at the start of a line (after a newline or carriage return), as ssh and
/// Nomad's `escapingio` do; a doubled escape sends one.
pub struct EscapeFilter {
    escape: u8,
    line_start: bool,
    pending: bool,
}

impl EscapeFilter {
    pub fn new(escape: u8) -> Self {
        EscapeFilter {
            escape,
            line_start: true,
            pending: false,
        }
    }

    /// The bytes to send, and whether the close sequence was typed.
    pub fn feed(&mut self, input: &[u8]) -> (Vec<u8>, bool) {
        let mut out = Vec::with_capacity(input.len());
        for &b in input {
            if self.pending {
                self.pending = false;
                if b == b'.' {
                    return (out, true);
                }
                out.push(self.escape);
                if b == self.escape {
                    self.line_start = false;
                    continue;
                }
            } else if self.line_start && b == self.escape {
                self.pending = true;
                continue;
            }
            out.push(b);
            self.line_start = b == b'\n' || b == b'\r';
        }
        (out, false)
    }
}

/// Reads stdin on its own thread (a blocked read must not hold up the runtime's exit).
fn spawn_stdin(escape: Option<u8>) -> mpsc::Receiver<Input> {
    let (tx, rx) = mpsc::channel(16);
    std::thread::spawn(move || {
        let mut filter = escape.map(EscapeFilter::new);
        let mut stdin = std::io::stdin();
        let mut buf = [0u8; 2048];
        loop {
            let msg = match stdin.read(&mut buf) {
                Ok(0) | Err(_) => Input::Eof,
                Ok(n) => match filter.as_mut() {
                    Some(f) => match f.feed(&buf[..n]) {
                        (_, true) => Input::Escape,
                        (data, false) => Input::Data(data),
                    },
                    None => Input::Data(buf[..n].to_vec()),
                },
            };
            let last = !matches!(msg, Input::Data(_));
            if tx.blocking_send(msg).is_err() || last {
                return;
            }
        }
    });
    rx
}

fn frame(v: &ExecStreamingInput) -> Message {
    Message::Text(serde_json::to_string(v).unwrap_or_default().into())
}

async fn session(
    socket: nomad::api::client::ExecSocket,
    stdin_on: bool,
    tty: bool,
    escape: Option<u8>,
) -> anyhow::Result<i32> {
    let (mut sink, mut stream) = socket.split();
    if tty {
        if let Some((h, w)) = terminal_size() {
            sink.send(frame(&ExecStreamingInput::resize(h, w))).await?;
        }
    }
    let mut input = if stdin_on {
        Some(spawn_stdin(escape))
    } else {
        sink.send(frame(&ExecStreamingInput::stdin_close())).await?;
        None
    };
    let mut winch = tokio::signal::unix::signal(tokio::signal::unix::SignalKind::window_change())?;
    let interrupted = tokio::signal::ctrl_c();
    tokio::pin!(interrupted);
    loop {
        tokio::select! {
            _ = &mut interrupted, if !tty => return Err(anyhow!("context canceled")),
            _ = winch.recv(), if tty => {
                if let Some((h, w)) = terminal_size() {
                    sink.send(frame(&ExecStreamingInput::resize(h, w))).await?;
                }
            }
            msg = async { match input.as_mut() { Some(rx) => rx.recv().await, None => None } }, if input.is_some() => {
                match msg {
                    Some(Input::Data(d)) => sink.send(frame(&ExecStreamingInput::stdin(&d))).await?,
                    Some(Input::Escape) => {
                        let mut e = std::io::stderr();
                        let _ = e.write_all(b"\r\nConnection closed\r\n");
                        return Err(anyhow!("context canceled"));
                    }
                    Some(Input::Eof) | None => {
                        input = None;
                        sink.send(frame(&ExecStreamingInput::stdin_close())).await?;
                    }
                }
            }
            msg = stream.next() => match msg {
                Some(Ok(Message::Text(t))) => {
                    if let Some(code) = output_frame(t.as_bytes())? {
                        return Ok(code);
                    }
                }
                Some(Ok(Message::Binary(b))) => {
                    if let Some(code) = output_frame(&b)? {
                        return Ok(code);
                    }
                }
                Some(Ok(Message::Close(frame))) => {
                    let reason = frame.map(|f| format!("close {} ({})", u16::from(f.code), f.reason));
                    return Err(anyhow!(
                        "websocket closed before receiving exit code: {}",
                        reason.unwrap_or_else(|| "close 1005".to_string())
                    ));
                }
                Some(Ok(_)) => {}
                Some(Err(e)) => return Err(e.into()),
                None => return Err(anyhow!("websocket closed before receiving exit code")),
            },
        }
    }
}

/// Writes one output frame; the exit code once the command has exited.
fn output_frame(text: &[u8]) -> anyhow::Result<Option<i32>> {
    let f: ExecStreamingOutput = serde_json::from_slice(text)?;
    if let Some(out) = f.stdout.filter(|o| !o.data.is_empty()) {
        let mut s = std::io::stdout().lock();
        s.write_all(&out.data)?;
        s.flush()?;
    }
    if let Some(err) = f.stderr.filter(|o| !o.data.is_empty()) {
        let mut s = std::io::stderr().lock();
        s.write_all(&err.data)?;
        s.flush()?;
    }
    if f.exited {
        return Ok(Some(f.result.map(|r| r.exit_code).unwrap_or(0)));
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::EscapeFilter;

    #[test]
    fn escape_closes_only_at_line_start() {
        let mut f = EscapeFilter::new(b'~');
        assert_eq!(f.feed(b"~."), (vec![], true));
        let mut f = EscapeFilter::new(b'~');
        assert_eq!(f.feed(b"a~.b"), (b"a~.b".to_vec(), false));
        assert_eq!(f.feed(b"\n~"), (b"\n".to_vec(), false));
        assert_eq!(f.feed(b"."), (vec![], true));
        let mut f = EscapeFilter::new(b'~');
        assert_eq!(f.feed(b"~~x"), (b"~x".to_vec(), false));
        assert_eq!(f.feed(b"\r~q"), (b"\r~q".to_vec(), false));
    }
}
