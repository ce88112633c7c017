//! `nomad alloc logs [options] <allocation> [<task>]`: stream a task's stdout/stderr.

use std::time::Duration;

use anyhow::{anyhow, Context as _};
use nomad::api::client::{Client, LogStream, LogsRequest, Origin, QueryOptions};
use nomad::api::Allocation;

use crate::meta::{self, AllocLookup, GlobalArgs};
use crate::output::{self, format_list, FULL_ID, SHORT_ID};

/// Lines shown by `-tail` without `-n`/`-c`.
const DEFAULT_TAIL_LINES: i64 = 10;
/// Nomad's guess of bytes per line, to turn `-n` into an offset from the end.
const BYTES_PER_LINE: i64 = 120;

#[derive(Debug, Clone, Default, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub global: GlobalArgs,
    /// Causes the output to not stop, and instead continuously output new lines.
    #[arg(short = 'f')]
    pub follow: bool,
    /// Display stderr logs.
    #[arg(long)]
    pub stderr: bool,
    /// Display stdout logs (the default).
    #[arg(long)]
    pub stdout: bool,
    /// Show the logs contents with offsets relative to the end of the logs.
    #[arg(long)]
    pub tail: bool,
    /// Sets the tail location in best-efforted number of lines relative to the end.
    #[arg(short = 'n', value_name = "LINES", allow_negative_numbers = true)]
    pub lines: Option<i64>,
    /// Sets the tail location in number of bytes relative to the end.
    #[arg(short = 'c', value_name = "BYTES", allow_negative_numbers = true)]
    pub bytes: Option<i64>,
    /// Sets the task to view the logs of.
    #[arg(long = "task", value_name = "TASK")]
    pub task_flag: Option<String>,
    /// Show full information.
    #[arg(long)]
    pub verbose: bool,
    /// Use a random allocation from the specified job ID or prefix.
    #[arg(long)]
    pub job: bool,
    /// With -job, pick the allocation from this task group.
    #[arg(long, value_name = "GROUP", default_value = "")]
    pub group: String,
    /// The allocation ID or prefix (the job with -job).
    pub alloc: String,
    /// The task (optional when the allocation's group has one task).
    pub task: Option<String>,
}

pub async fn run(args: &Args, g: &GlobalArgs) -> anyhow::Result<i32> {
    let client = g.client()?;
    let length = if args.verbose { FULL_ID } else { SHORT_ID };
    let alloc_id = if args.job {
        super::target::random_job_alloc(&client, g, &args.alloc, &args.group).await?
    } else {
        args.alloc.clone()
    };
    if alloc_id.len() == 1 {
        return Err(anyhow!("Alloc ID must contain at least two characters."));
    }
    let stub = match meta::alloc_by_prefix(&client, &alloc_id).await? {
        AllocLookup::One(s) => s,
        AllocLookup::Many(stubs) => {
            let table = meta::alloc_stub_table(&stubs, args.verbose, length, &[]);
            return Err(anyhow!("Prefix matched multiple allocations\n\n{table}"));
        }
    };
    let (alloc, _) = client
        .allocation(&stub.id, Some(&QueryOptions::namespace(&stub.namespace)))
        .await
        .context("Error querying allocation")?;

    let task = match (&args.task_flag, &args.task) {
        (Some(t), _) => validate_task(t, &alloc).map(|_| t.clone()),
        (None, Some(t)) if t.is_empty() => return Err(anyhow!("Task name required")),
        (None, Some(t)) => Ok(t.clone()),
        (None, None) => lookup_task(&alloc),
    }
    .map_err(|e| anyhow!("Failed to validate task: {e}"))?;

    let lines_set = args.lines.is_some_and(|n| n > 0);
    let bytes_set = args.bytes.is_some_and(|n| n > 0);
    if args.follow && !(args.stderr || args.stdout || args.tail || lines_set || bytes_set) {
        tail_both(&client, &alloc.id, &task)
            .await
            .map_err(|e| anyhow!("Failed to tail stdout and stderr files: {e:#}"))?;
        return Ok(0);
    }
    if args.stderr && args.stdout {
        return Err(anyhow!("Unable to support both stdout and stderr"));
    }
    let log_type = if args.stderr { "stderr" } else { "stdout" };
    single_file(&client, args, &alloc.id, &task, log_type)
        .await
        .map_err(|e| anyhow!("Failed to read {log_type} file: {e:#}"))?;
    Ok(0)
}

/// The one task of the alloc's group, or Nomad's message listing the choices.
pub fn lookup_task(alloc: &Allocation) -> anyhow::Result<String> {
    let tg = alloc
        .job
        .as_ref()
        .and_then(|j| j.lookup_task_group(&alloc.task_group))
        .ok_or_else(|| anyhow!("Could not find allocation task group: {}", alloc.task_group))?;
    if let [only] = tg.tasks.as_slice() {
        return Ok(only.name.clone());
    }
    let mut msg = format!(
        "Allocation {:?} is running the following tasks:\n",
        output::limit(&alloc.id, SHORT_ID)
    );
    for t in &tg.tasks {
        msg.push_str(&format!("  * {}\n", t.name));
    }
    msg.push_str("\nPlease specify the task.");
    Err(anyhow!(msg))
}

pub fn validate_task(task: &str, alloc: &Allocation) -> anyhow::Result<()> {
    let tg = alloc
        .job
        .as_ref()
        .and_then(|j| j.lookup_task_group(&alloc.task_group))
        .ok_or_else(|| anyhow!("Could not find allocation task group: {}", alloc.task_group))?;
    if tg.tasks.iter().any(|t| t.name == task) {
        return Ok(());
    }
    let names: Vec<String> = tg.tasks.iter().map(|t| t.name.clone()).collect();
    Err(anyhow!(
        "Could not find task named: {task}, found:\n{}",
        format_list(&names)
    ))
}

async fn open(
    client: &Client,
    alloc_id: &str,
    task: &str,
    log_type: &str,
    follow: bool,
    origin: Origin,
    offset: i64,
) -> anyhow::Result<LogStream> {
    Ok(client
        .logs(&LogsRequest {
            alloc_id: alloc_id.to_string(),
            task: task.to_string(),
            log_type: log_type.to_string(),
            follow,
            origin,
            offset,
        })
        .await?)
}

async fn single_file(
    client: &Client,
    args: &Args,
    alloc_id: &str,
    task: &str,
    log_type: &str,
) -> anyhow::Result<()> {
    if !args.tail {
        let stream = open(
            client,
            alloc_id,
            task,
            log_type,
            args.follow,
            Origin::Start,
            0,
        )
        .await
        .context("error reading file")?;
        return copy(stream, None, args.follow).await;
    }
    let lines = args.lines.filter(|n| *n != -1);
    let bytes = args.bytes.filter(|n| *n != -1);
    let (offset, line_limit) = match (lines, bytes) {
        (Some(_), Some(_)) => return Err(anyhow!("both -n and -c set")),
        (Some(n), None) => (n * BYTES_PER_LINE, Some(n)),
        (None, Some(c)) => (c, None),
        (None, None) => (
            DEFAULT_TAIL_LINES * BYTES_PER_LINE,
            Some(DEFAULT_TAIL_LINES),
        ),
    };
    let stream = open(
        client,
        alloc_id,
        task,
        log_type,
        args.follow,
        Origin::End,
        offset,
    )
    .await
    .context("error tailing file")?;
    copy(stream, line_limit, args.follow).await
}

/// Copy frames to stdout until the stream ends or Ctrl-C. With a line limit, the first
/// window of data (all of it, or what arrives in the first second when following) is cut to
/// its last N lines, as Nomad's `LineLimitReader`.
async fn copy(mut stream: LogStream, line_limit: Option<i64>, follow: bool) -> anyhow::Result<()> {
    let interrupted = tokio::signal::ctrl_c();
    tokio::pin!(interrupted);
    let mut pending: Option<(Vec<u8>, usize)> = line_limit.map(|n| (Vec::new(), n.max(0) as usize));
    let window = tokio::time::sleep(Duration::from_secs(1));
    tokio::pin!(window);
    loop {
        tokio::select! {
            _ = &mut interrupted => return Ok(()),
            _ = &mut window, if follow && pending.is_some() => {
                if let Some((buf, n)) = pending.take() {
                    output::out_raw(last_lines(&buf, n))?;
                }
            }
            frame = stream.next_frame() => {
                let frame = frame.context("error following logs")?;
                let Some(frame) = frame else { break };
                match pending.as_mut() {
                    Some((buf, _)) => buf.extend_from_slice(&frame.data),
                    None => output::out_raw(&frame.data)?,
                }
            }
        }
    }
    if let Some((buf, n)) = pending {
        output::out_raw(last_lines(&buf, n))?;
    }
    Ok(())
}

/// The last `n` lines of `buf` (a trailing newline ends the last line, it does not start one).
pub fn last_lines(buf: &[u8], n: usize) -> &[u8] {
    if n == 0 {
        return &buf[buf.len()..];
    }
    let body = buf.strip_suffix(b"\n").unwrap_or(buf);
    let mut seen = 0;
    for (i, b) in body.iter().enumerate().rev() {
        if *b == b'\n' {
            seen += 1;
            if seen == n {
                return &buf[i + 1..];
            }
        }
    }
    buf
}

/// `-f` alone: follow stdout and stderr from their ends, each to its own stream.
async fn tail_both(client: &Client, alloc_id: &str, task: &str) -> anyhow::Result<()> {
    let mut out = open(client, alloc_id, task, "stdout", true, Origin::End, 0)
        .await
        .context("failed to setup stdout log tailing")?;
    let mut err = open(client, alloc_id, task, "stderr", true, Origin::End, 0)
        .await
        .context("failed to setup stderr log tailing")?;
    let interrupted = tokio::signal::ctrl_c();
    tokio::pin!(interrupted);
    let (mut out_open, mut err_open) = (true, true);
    while out_open || err_open {
        tokio::select! {
            _ = &mut interrupted => return Ok(()),
            f = out.next_frame(), if out_open => {
                match f.context("received an error from stdout log stream")? {
                    Some(f) => output::out_raw(&f.data)?,
                    None => out_open = false,
                }
            }
            f = err.next_frame(), if err_open => {
                match f.context("received an error from stderr log stream")? {
                    Some(f) => {
                        use std::io::Write as _;
                        let mut e = std::io::stderr().lock();
                        let _ = e.write_all(&f.data);
                    }
                    None => err_open = false,
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::last_lines;

    #[test]
    fn last_lines_counts_from_the_end() {
        assert_eq!(last_lines(b"a\nb\nc\n", 2), b"b\nc\n");
        assert_eq!(last_lines(b"a\nb\nc", 2), b"b\nc");
        assert_eq!(last_lines(b"a\nb\nc\n", 5), b"a\nb\nc\n");
        assert_eq!(last_lines(b"a\nb\n", 0), b"");
        assert_eq!(last_lines(b"", 3), b"");
        assert_eq!(last_lines(b"partial line", 1), b"partial line");
    }
}
