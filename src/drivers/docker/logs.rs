//! Copies a container's output (the Engine API's multiplexed log stream) into the alloc's
//! rotated `<task>.stdout.N` / `<task>.stderr.N` files, and records how far it got so the
//! copy survives an agent restart.
//!
//! Nomad runs a separate `docker_logger` process that outlives the agent; here the agent
//! itself copies, so a crash stops the copy while the container keeps writing. To lose
//! nothing and repeat nothing, the copy reads the logs with daemon timestamps and keeps a
//! [`LogPosition`] (the timestamp of the last message written, and how many messages with
//! exactly that timestamp were written) in `alloc/logs/.<task>.docker.logpos`, next to the
//! files it describes (Nomad keeps its log fifos there too). A recovered task resumes with
//! `since=<timestamp>` and skips what the position says was already written; with no usable
//! position it copies from the container's start.
//!
//! Limits, deliberately accepted: the position is written after the log bytes, so a crash
//! between the two repeats that one chunk; and a host clock stepping backwards can hide
//! lines from `since` exactly as it does for `docker logs --since`.

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::os::unix::fs::FileExt;
use std::path::{Path, PathBuf};
use std::time::Duration;

use http_body_util::BodyExt;
use hyper::Method;
use serde_json::Value;

use super::api::DockerApi;
use crate::drivers::logging::FileRotator;

/// How long to wait before following again when the stream ended but the container runs.
const REFOLLOW_DELAY: Duration = Duration::from_secs(1);

/// Splits Docker's stdcopy framing: 8-byte header (stream id, 3 zero bytes, big-endian
/// length) then the payload. Returns complete frames and leaves the rest in `buf`.
pub fn demux(buf: &mut Vec<u8>) -> Vec<(u8, Vec<u8>)> {
    let mut out = Vec::new();
    loop {
        if buf.len() < 8 {
            break;
        }
        let len = u32::from_be_bytes([buf[4], buf[5], buf[6], buf[7]]) as usize;
        if buf.len() < 8 + len {
            break;
        }
        let stream = buf[0];
        let payload = buf[8..8 + len].to_vec();
        buf.drain(..8 + len);
        out.push((stream, payload));
    }
    out
}

/// Splits a `timestamps=1` log message into its daemon timestamp (unix nanoseconds) and the
/// output itself. A message without a readable timestamp is returned whole.
pub fn split_timestamp(msg: &[u8]) -> (Option<i64>, &[u8]) {
    let Some(space) = msg.iter().take(40).position(|b| *b == b' ') else {
        return (None, msg);
    };
    let ts = std::str::from_utf8(&msg[..space])
        .ok()
        .and_then(|s| chrono::DateTime::parse_from_rfc3339(s).ok())
        .and_then(|t| t.timestamp_nanos_opt());
    match ts {
        Some(ts) => (Some(ts), &msg[space + 1..]),
        None => (None, msg),
    }
}

/// How far the copy of one container's logs got. Persisted as one fixed-width record
/// (`<container id> <unix nanos> <count>\n`) rewritten in place, so a reader never sees a
/// half-written one.
#[derive(Debug)]
pub struct LogPosition {
    container_id: String,
    /// Timestamp of the last message written (0: nothing yet, start from the beginning).
    ts: i64,
    /// How many messages carrying exactly `ts` were written.
    at_ts: u32,
    /// While re-reading from `since`: still inside the part written before.
    replaying: bool,
    /// Messages at `ts` still to skip in this read.
    skip_at_ts: u32,
    file: Option<File>,
}

impl LogPosition {
    /// `alloc/logs/.<task>.docker.logpos`.
    pub fn path(log_dir: &Path, task: &str) -> PathBuf {
        log_dir.join(format!(".{task}.docker.logpos"))
    }

    /// A copy that starts at the container's first line.
    pub fn fresh(path: &Path, container_id: &str) -> LogPosition {
        let mut pos = LogPosition {
            container_id: container_id.to_string(),
            ts: 0,
            at_ts: 0,
            replaying: false,
            skip_at_ts: 0,
            file: open(path),
        };
        pos.save();
        pos
    }

    /// Where an earlier agent's copy of this container stopped, or the container's start
    /// when it left no position for it (true in `.1` when a position was found).
    pub fn resume(path: &Path, container_id: &str) -> (LogPosition, bool) {
        let record = std::fs::read_to_string(path).unwrap_or_default();
        let mut fields = record.split_whitespace();
        let parsed = match (fields.next(), fields.next(), fields.next()) {
            (Some(id), Some(ts), Some(n)) if id == container_id => {
                ts.parse::<i64>().ok().zip(n.parse::<u32>().ok())
            }
            _ => None,
        };
        match parsed {
            Some((ts, at_ts)) => (
                LogPosition {
                    container_id: container_id.to_string(),
                    ts,
                    at_ts,
                    replaying: false,
                    skip_at_ts: 0,
                    file: open(path),
                },
                true,
            ),
            None => (LogPosition::fresh(path, container_id), false),
        }
    }

    /// The `since` query value for the next read, and the start of its replay window.
    pub(super) fn begin_read(&mut self) -> String {
        self.replaying = self.ts > 0;
        self.skip_at_ts = self.at_ts;
        if self.ts <= 0 {
            return "0".to_string();
        }
        format!(
            "{}.{:09}",
            self.ts.div_euclid(1_000_000_000),
            self.ts.rem_euclid(1_000_000_000)
        )
    }

    /// Whether the message stamped `ts` is new (and so to be written); advances the position
    /// over it. The daemon's `since` is inclusive, so a read starts by replaying messages at
    /// the recorded timestamp; only that leading run is skipped.
    pub fn admit(&mut self, ts: Option<i64>) -> bool {
        let Some(ts) = ts else { return true };
        if self.replaying {
            if ts < self.ts {
                return false;
            }
            if ts == self.ts && self.skip_at_ts > 0 {
                self.skip_at_ts -= 1;
                return false;
            }
            self.replaying = false;
        }
        if ts == self.ts {
            self.at_ts += 1;
        } else {
            self.ts = ts;
            self.at_ts = 1;
        }
        true
    }

    /// Writes the record; called only after the bytes it covers were written.
    pub(super) fn save(&mut self) {
        let record = format!("{} {:020} {:010}\n", self.container_id, self.ts, self.at_ts);
        if let Some(f) = &self.file {
            if let Err(e) = f.write_all_at(record.as_bytes(), 0) {
                tracing::debug!(error = %e, "failed to record docker log position");
            }
        }
    }

    #[cfg(test)]
    pub fn at(&self) -> (i64, u32) {
        (self.ts, self.at_ts)
    }
}

fn open(path: &Path) -> Option<File> {
    OpenOptions::new()
        .create(true)
        .truncate(false)
        .write(true)
        .open(path)
        .map_err(|e| tracing::debug!(error = %e, path = %path.display(), "cannot record docker log position"))
        .ok()
}

/// Follows the container's logs from `pos` until the container stops, then reads once more
/// without following for any tail the follow stream missed (the daemon can close it before
/// the last lines are read). A stream that ends while the container still runs (the daemon
/// restarted) is followed again from the position.
pub async fn follow(
    api: DockerApi,
    id: String,
    mut pos: LogPosition,
    mut out: FileRotator,
    mut err: FileRotator,
) -> io::Result<()> {
    loop {
        let followed = copy(&api, &id, true, &mut pos, &mut out, &mut err).await;
        match running(&api, &id).await {
            Some(true) => {}
            Some(false) => break,
            // The daemon does not answer: keep trying while the task's waiter does.
            None if followed.is_err() => {}
            None => break,
        }
        tokio::time::sleep(REFOLLOW_DELAY).await;
    }
    copy(&api, &id, false, &mut pos, &mut out, &mut err).await?;
    out.flush()?;
    err.flush()
}

/// Whether the container runs; `None` when the daemon cannot tell (or the container is gone,
/// which `Some(false)` reports as well).
async fn running(api: &DockerApi, id: &str) -> Option<bool> {
    match api.get(&format!("/containers/{id}/json")).await {
        Ok(v) => Some(v.pointer("/State/Running").and_then(Value::as_bool) == Some(true)),
        Err(e) if e.status() == Some(404) => Some(false),
        Err(_) => None,
    }
}

async fn copy(
    api: &DockerApi,
    id: &str,
    follow: bool,
    pos: &mut LogPosition,
    out: &mut FileRotator,
    err: &mut FileRotator,
) -> io::Result<()> {
    let f = u8::from(follow);
    let since = pos.begin_read();
    let path =
        format!("/containers/{id}/logs?follow={f}&stdout=1&stderr=1&timestamps=1&since={since}");
    let resp = match api.send(Method::GET, &path, None).await {
        Ok(r) => r,
        Err(e) => return Err(io::Error::other(e.to_string())),
    };
    let mut body = resp.into_body();
    let mut buf = Vec::new();
    while let Some(frame) = body.frame().await {
        let Ok(frame) = frame else { break };
        let Ok(data) = frame.into_data() else {
            continue;
        };
        buf.extend_from_slice(&data);
        let mut wrote = false;
        for (stream, msg) in demux(&mut buf) {
            let (ts, payload) = split_timestamp(&msg);
            if !pos.admit(ts) {
                continue;
            }
            let w: &mut FileRotator = if stream == 2 { &mut *err } else { &mut *out };
            w.write_all(payload)?;
            wrote = true;
        }
        if wrote {
            out.flush()?;
            err.flush()?;
            pos.save();
        }
    }
    Ok(())
}
