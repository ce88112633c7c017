//! The log streamer behind `/v1/client/fs/logs`: picks the starting file and offset the way
//! Nomad's `findClosest` does, reads forward across rotated files, and (with `follow`) polls
//! for new bytes, rotation, truncation and deletion.
//!
//! ```text
//!  read(index, offset) ── bytes ──> frame {Data, File, Offset}
//!        │ EOF
//!        ├─ not following: next file, or end after the newest file seen at the start
//!        └─ following: list ─ file gone ──> frame {File, FileEvent:"file deleted"}, next file
//!                           ─ shrank ─────> offset 0, next frame carries "file truncated"
//!                           ─ newer file ─> read once more (no bytes lost), then switch
//!                           ─ nothing ────> heartbeat `{}` after 1s idle; poll again in 100ms
//! ```
//! Frames are Nomad's `StreamFrame` JSON objects written back to back with no separator;
//! with `plain=true` only the raw bytes are written and heartbeats are skipped.

use std::sync::Arc;
use std::time::Duration;

use axum::body::Bytes;
use base64::Engine;
use futures::Stream;
use serde::Serialize;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::logs::{LogError, LogFile, LogRequest, LogSource};

/// Nomad's `streamFrameSize`: the most bytes one frame carries.
const FRAME_SIZE: usize = 64 * 1024;
/// Nomad's `streamHeartbeatRate`.
const HEARTBEAT: Duration = Duration::from_secs(1);
/// How often a followed log is checked for new bytes (Nomad's `nextLogCheckRate`).
const POLL: Duration = Duration::from_millis(100);

const DELETE_EVENT: &str = "file deleted";
const TRUNCATE_EVENT: &str = "file truncated";

/// Where `offset` counts from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    Start,
    End,
}

/// Nomad's `findClosest`: from the first file (origin start) or the last (origin end, with
/// the offset counted backwards), walk across files until the offset falls inside one.
/// Returns (file index, byte offset in it); `None` when there are no files.
pub fn find_closest(files: &[LogFile], origin: Origin, offset: i64) -> Option<(u64, u64)> {
    let mut sorted: Vec<LogFile> = files.to_vec();
    sorted.sort_by_key(|f| f.index);
    let last = sorted.len().checked_sub(1)?;
    let (mut pos, mut off) = match origin {
        Origin::Start => (0usize, offset),
        Origin::End => (last, offset.saturating_neg()),
    };
    loop {
        let size = i64::try_from(sorted[pos].size).unwrap_or(i64::MAX);
        if off == 0 {
            break;
        }
        if off < 0 {
            let back = size.saturating_add(off);
            if back >= 0 {
                off = back;
                break;
            }
            if pos == 0 {
                off = 0;
                break;
            }
            off = back;
            pos -= 1;
        } else {
            if off <= size {
                break;
            }
            if pos == last {
                off = size;
                break;
            }
            off -= size;
            pos += 1;
        }
    }
    Some((sorted[pos].index, u64::try_from(off).unwrap_or(0)))
}

/// Nomad's `StreamFrame` as JSON: empty fields are left out, so a heartbeat is `{}`.
#[derive(Serialize)]
struct StreamFrame<'a> {
    #[serde(rename = "Data", skip_serializing_if = "String::is_empty")]
    data: String,
    #[serde(rename = "File", skip_serializing_if = "str::is_empty")]
    file: &'a str,
    #[serde(rename = "FileEvent", skip_serializing_if = "str::is_empty")]
    file_event: &'a str,
    #[serde(rename = "Offset", skip_serializing_if = "is_zero")]
    offset: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

/// One logs response in progress. It is the response body itself (no task is spawned), so
/// it stops when the client hangs up and the body is dropped.
pub struct Streamer {
    source: Arc<dyn LogSource>,
    req: LogRequest,
    index: u64,
    offset: u64,
    /// Without `follow` the stream ends at the end of the newest file present at the start.
    last_index: u64,
    /// A newer file appeared: after one more read of the current file, switch to it.
    rotate_to: Option<u64>,
    pending_event: Option<&'static str>,
    last_sent: Instant,
    shutdown: Option<CancellationToken>,
    done: bool,
}

impl Streamer {
    pub fn new(
        source: Arc<dyn LogSource>,
        req: LogRequest,
        files: &[LogFile],
        index: u64,
        offset: u64,
        shutdown: Option<CancellationToken>,
    ) -> Streamer {
        let last_index = files.iter().map(|f| f.index).max().unwrap_or(index);
        Streamer {
            source,
            req,
            index,
            offset,
            last_index,
            rotate_to: None,
            pending_event: None,
            last_sent: Instant::now(),
            shutdown,
            done: false,
        }
    }

    pub fn into_stream(self) -> impl Stream<Item = Result<Bytes, LogError>> + Send + 'static {
        futures::stream::unfold(self, |mut s| async move {
            let item = s.next_chunk().await?;
            Some((item, s))
        })
    }

    fn path(&self) -> String {
        format!(
            "alloc/logs/{}.{}.{}",
            self.req.task,
            self.req.log_type.as_str(),
            self.index
        )
    }

    /// The bytes to write for one frame; `None` when there is nothing to write (plain mode
    /// has no heartbeats or events).
    fn frame(&mut self, data: &[u8], event: &str, heartbeat: bool) -> Option<Bytes> {
        self.last_sent = Instant::now();
        if self.req.plain {
            return (!data.is_empty()).then(|| Bytes::copy_from_slice(data));
        }
        let path = if heartbeat {
            String::new()
        } else {
            self.path()
        };
        let frame = StreamFrame {
            data: base64::engine::general_purpose::STANDARD.encode(data),
            file: &path,
            file_event: event,
            offset: if heartbeat { 0 } else { self.offset },
        };
        // A struct of strings and an integer always encodes.
        serde_json::to_vec(&frame).ok().map(Bytes::from)
    }

    async fn list(&self) -> Result<Vec<LogFile>, LogError> {
        self.source
            .list(&self.req.alloc_id, &self.req.task, self.req.log_type)
            .await
    }

    fn next_after(files: &[LogFile], index: u64) -> Option<u64> {
        files.iter().map(|f| f.index).filter(|&i| i > index).min()
    }

    /// Sleep one poll interval; false if the server is shutting down.
    async fn idle(&mut self) -> bool {
        match &self.shutdown {
            Some(token) => tokio::select! {
                _ = tokio::time::sleep(POLL) => true,
                _ = token.cancelled() => false,
            },
            None => {
                tokio::time::sleep(POLL).await;
                true
            }
        }
    }

    fn fail(&mut self, e: LogError) -> Option<Result<Bytes, LogError>> {
        self.done = true;
        Some(Err(e))
    }

    async fn next_chunk(&mut self) -> Option<Result<Bytes, LogError>> {
        loop {
            if self.done {
                return None;
            }
            let read = self
                .source
                .read(
                    &self.req.alloc_id,
                    &self.req.task,
                    self.req.log_type,
                    self.index,
                    self.offset,
                    FRAME_SIZE,
                )
                .await;
            match read {
                Ok(data) if !data.is_empty() || self.pending_event.is_some() => {
                    self.offset += data.len() as u64;
                    let event = self.pending_event.take().unwrap_or("");
                    if let Some(bytes) = self.frame(&data, event, false) {
                        return Some(Ok(bytes));
                    }
                }
                Ok(_) => {
                    if let Some(next) = self.rotate_to.take() {
                        self.index = next;
                        self.offset = 0;
                        continue;
                    }
                    if !self.req.follow {
                        if self.index >= self.last_index {
                            self.done = true;
                            return None;
                        }
                        match self.list().await {
                            Ok(files) => match Self::next_after(&files, self.index) {
                                Some(next) if next <= self.last_index => {
                                    self.index = next;
                                    self.offset = 0;
                                    continue;
                                }
                                _ => {
                                    self.done = true;
                                    return None;
                                }
                            },
                            Err(e) => return self.fail(e),
                        }
                    }
                    let files = match self.list().await {
                        Ok(f) => f,
                        Err(e) => return self.fail(e),
                    };
                    match files.iter().find(|f| f.index == self.index) {
                        None => {
                            // Deleted under us: say so, then carry on with the next file.
                            let frame = self.frame(&[], DELETE_EVENT, false);
                            if let Some(next) = Self::next_after(&files, self.index) {
                                self.index = next;
                                self.offset = 0;
                            }
                            if let Some(bytes) = frame {
                                return Some(Ok(bytes));
                            }
                        }
                        Some(f) if f.size < self.offset => {
                            self.offset = 0;
                            self.pending_event = Some(TRUNCATE_EVENT);
                            continue;
                        }
                        Some(_) => {
                            if let Some(next) = Self::next_after(&files, self.index) {
                                self.rotate_to = Some(next);
                                continue;
                            }
                        }
                    }
                    if self.last_sent.elapsed() >= HEARTBEAT {
                        if let Some(bytes) = self.frame(&[], "", true) {
                            return Some(Ok(bytes));
                        }
                    }
                    if !self.idle().await {
                        self.done = true;
                        return None;
                    }
                }
                Err(LogError::FileGone(_)) => {
                    // Rotated away between listing and reading: continue with a newer file.
                    let files = match self.list().await {
                        Ok(f) => f,
                        Err(e) => return self.fail(e),
                    };
                    match Self::next_after(&files, self.index) {
                        Some(next) => {
                            self.index = next;
                            self.offset = 0;
                        }
                        None if !self.req.follow => {
                            self.done = true;
                            return None;
                        }
                        None => {
                            if !self.idle().await {
                                self.done = true;
                                return None;
                            }
                        }
                    }
                }
                Err(e) => return self.fail(e),
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn files(sizes: &[(u64, u64)]) -> Vec<LogFile> {
        sizes
            .iter()
            .map(|&(index, size)| LogFile { index, size })
            .collect()
    }

    #[test]
    fn closest_from_start_walks_forward_across_files() {
        let f = files(&[(1, 10), (0, 10), (2, 5)]);
        assert_eq!(find_closest(&f, Origin::Start, 0), Some((0, 0)));
        assert_eq!(find_closest(&f, Origin::Start, 4), Some((0, 4)));
        assert_eq!(find_closest(&f, Origin::Start, 15), Some((1, 5)));
        // Past everything: the end of the last file.
        assert_eq!(find_closest(&f, Origin::Start, 100), Some((2, 5)));
    }

    #[test]
    fn closest_from_end_walks_backward_across_files() {
        let f = files(&[(0, 10), (1, 10), (2, 5)]);
        assert_eq!(find_closest(&f, Origin::End, 0), Some((2, 0)));
        assert_eq!(find_closest(&f, Origin::End, 3), Some((2, 2)));
        assert_eq!(find_closest(&f, Origin::End, 8), Some((1, 7)));
        assert_eq!(find_closest(&f, Origin::End, 1000), Some((0, 0)));
        assert_eq!(find_closest(&[], Origin::End, 0), None);
    }

    #[test]
    fn heartbeat_and_data_frames_encode_like_nomad() {
        let hb = StreamFrame {
            data: String::new(),
            file: "",
            file_event: "",
            offset: 0,
        };
        assert_eq!(serde_json::to_string(&hb).expect("encodes"), "{}");
        let data = StreamFrame {
            data: base64::engine::general_purpose::STANDARD.encode(b"hello\n"),
            file: "alloc/logs/server.stdout.0",
            file_event: "",
            offset: 6,
        };
        assert_eq!(
            serde_json::to_string(&data).expect("encodes"),
            r#"{"Data":"aGVsbG8K","File":"alloc/logs/server.stdout.0","Offset":6}"#
        );
    }
}
