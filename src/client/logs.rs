//! Reading task logs for `/v1/client/fs/logs`: from the start or the end (with an offset),
//! across the rotated `alloc/logs/<task>.<stream>.N` files, once or following new output.
//! Chunks carry the file (relative to the alloc dir) and the offset after their data, which
//! is what Nomad's framed stream sends; framing and heartbeats are the HTTP layer's job.

use std::fs::File;
use std::io::{self, Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};
use std::time::Duration;

use bytes::Bytes;
use futures::Stream;

use crate::drivers::logging::existing_indexes;
use crate::drivers::LogStream;

/// Largest chunk handed out (Nomad's `streamFrameSize`).
pub const MAX_CHUNK: usize = 64 * 1024;
/// How often a follower looks for new data.
const FOLLOW_POLL: Duration = Duration::from_millis(100);

#[derive(Debug, thiserror::Error)]
pub enum LogError {
    #[error("unknown allocation {0:?}")]
    UnknownAlloc(String),
    #[error("invalid allocation id {0:?}")]
    InvalidAllocId(String),
    #[error("invalid task name {0:?}")]
    InvalidTask(String),
    #[error("log entry for task {task:?} and log type {log_type:?} not found")]
    NotFound { task: String, log_type: String },
    #[error("origin must be start or end")]
    InvalidOrigin,
    #[error("failed to read {path}: {source}")]
    Io { path: String, source: io::Error },
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LogOrigin {
    Start,
    End,
}

impl LogOrigin {
    pub fn parse(s: &str) -> Result<Self, LogError> {
        match s {
            "" | "start" => Ok(LogOrigin::Start),
            "end" => Ok(LogOrigin::End),
            _ => Err(LogError::InvalidOrigin),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogChunk {
    /// e.g. `alloc/logs/web.stdout.0`.
    pub file: String,
    /// Offset in `file` just past `data`.
    pub offset: u64,
    pub data: Bytes,
}

/// Alloc ids become path components: only UUID characters are accepted.
pub fn valid_alloc_id(id: &str) -> Result<(), LogError> {
    if id.is_empty() || !id.chars().all(|c| c.is_ascii_hexdigit() || c == '-') {
        return Err(LogError::InvalidAllocId(id.to_string()));
    }
    Ok(())
}

fn valid_task(task: &str) -> Result<(), LogError> {
    if task.is_empty() || task.contains('/') || task.contains('\0') || task == "." || task == ".." {
        return Err(LogError::InvalidTask(task.to_string()));
    }
    Ok(())
}

struct Target {
    logs_dir: PathBuf,
    base: String,
    task: String,
    stream: LogStream,
}

impl Target {
    fn new(alloc_dir: &Path, task: &str, stream: LogStream) -> Result<Self, LogError> {
        valid_task(task)?;
        Ok(Target {
            logs_dir: alloc_dir.join("alloc").join("logs"),
            base: format!("{task}.{}", stream.as_str()),
            task: task.to_string(),
            stream,
        })
    }

    fn not_found(&self) -> LogError {
        LogError::NotFound {
            task: self.task.clone(),
            log_type: self.stream.as_str().to_string(),
        }
    }

    fn path(&self, idx: u64) -> PathBuf {
        self.logs_dir.join(format!("{}.{idx}", self.base))
    }

    fn rel(&self, idx: u64) -> String {
        format!("alloc/logs/{}.{idx}", self.base)
    }

    /// (index, size) of every file, ascending.
    fn files(&self) -> Result<Vec<(u64, u64)>, LogError> {
        let mut idx = match existing_indexes(&self.logs_dir, &self.base) {
            Ok(i) => i,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Err(self.not_found()),
            Err(source) => {
                return Err(LogError::Io {
                    path: self.logs_dir.display().to_string(),
                    source,
                })
            }
        };
        idx.sort_unstable();
        Ok(idx
            .into_iter()
            .filter_map(|i| Some((i, std::fs::metadata(self.path(i)).ok()?.len())))
            .collect())
    }

    /// Nomad's `findClosest`: the file at or after `want_idx` (else the last), then walk
    /// `offset` bytes forwards (positive) or backwards (negative) across files.
    fn closest(&self, want_idx: u64, offset: i64) -> Result<(u64, u64), LogError> {
        let files = self.files()?;
        if files.is_empty() {
            return Err(self.not_found());
        }
        let mut pos = files
            .iter()
            .position(|(i, _)| *i >= want_idx)
            .unwrap_or(files.len() - 1);
        let mut off = offset;
        loop {
            let size = files[pos].1 as i64;
            if off == 0 {
                break;
            } else if off < 0 {
                if size + off >= 0 {
                    off += size;
                    break;
                } else if pos == 0 {
                    off = 0;
                    break;
                }
                off += size;
                pos -= 1;
            } else if off <= size {
                break;
            } else if pos == files.len() - 1 {
                off = size;
                break;
            } else {
                off -= size;
                pos += 1;
            }
        }
        Ok((files[pos].0, off.max(0) as u64))
    }

    fn start(&self, origin: LogOrigin, offset: u64) -> Result<(u64, u64), LogError> {
        let offset = offset.min(i64::MAX as u64) as i64;
        match origin {
            LogOrigin::Start => self.closest(0, offset),
            LogOrigin::End => self.closest(u64::MAX, -offset),
        }
    }

    fn next_index(&self, after: u64) -> Result<Option<u64>, LogError> {
        Ok(self
            .files()?
            .into_iter()
            .map(|(i, _)| i)
            .find(|i| *i > after))
    }

    /// Reads up to MAX_CHUNK bytes at `offset`; `Ok(None)` when the file is gone.
    fn read_at(&self, idx: u64, offset: u64) -> Result<Option<Vec<u8>>, LogError> {
        let path = self.path(idx);
        let io_err = |source| LogError::Io {
            path: path.display().to_string(),
            source,
        };
        let mut f = match File::open(&path) {
            Ok(f) => f,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
            Err(e) => return Err(io_err(e)),
        };
        f.seek(SeekFrom::Start(offset)).map_err(io_err)?;
        let mut buf = vec![0u8; MAX_CHUNK];
        let n = f.read(&mut buf).map_err(io_err)?;
        buf.truncate(n);
        Ok(Some(buf))
    }
}

/// Everything from the starting point to the end of the newest file, as it is now.
pub fn read_logs(
    alloc_dir: &Path,
    task: &str,
    stream: LogStream,
    origin: LogOrigin,
    offset: u64,
) -> Result<Vec<LogChunk>, LogError> {
    let t = Target::new(alloc_dir, task, stream)?;
    let last = t
        .files()?
        .last()
        .map(|(i, _)| *i)
        .ok_or_else(|| t.not_found())?;
    let (mut idx, mut off) = t.start(origin, offset)?;
    let mut out = Vec::new();
    loop {
        match t.read_at(idx, off)? {
            Some(data) if !data.is_empty() => {
                off += data.len() as u64;
                out.push(LogChunk {
                    file: t.rel(idx),
                    offset: off,
                    data: data.into(),
                });
            }
            Some(_) => match t.next_index(idx)? {
                Some(next) if next <= last => {
                    idx = next;
                    off = 0;
                }
                _ => return Ok(out),
            },
            // Rotated out under us: continue from the closest surviving file.
            None => (idx, off) = t.closest(idx, 0)?,
        }
    }
}

/// Follows a task's log: call `next_chunk` (or use `into_stream`) for each new piece.
pub struct LogFollower {
    target: Target,
    idx: u64,
    offset: u64,
}

impl LogFollower {
    pub fn new(
        alloc_dir: PathBuf,
        task: &str,
        stream: LogStream,
        origin: LogOrigin,
        offset: u64,
    ) -> Result<Self, LogError> {
        let target = Target::new(&alloc_dir, task, stream)?;
        let (idx, offset) = target.start(origin, offset)?;
        Ok(LogFollower {
            target,
            idx,
            offset,
        })
    }

    /// The next data; waits (polling) while the task writes nothing.
    pub async fn next_chunk(&mut self) -> Result<LogChunk, LogError> {
        loop {
            let t = &self.target;
            match t.read_at(self.idx, self.offset)? {
                Some(data) if !data.is_empty() => {
                    self.offset += data.len() as u64;
                    return Ok(LogChunk {
                        file: t.rel(self.idx),
                        offset: self.offset,
                        data: data.into(),
                    });
                }
                Some(_) => match t.next_index(self.idx)? {
                    // The rotator finishes a file before creating the next, so one more
                    // read of this one catches its tail.
                    Some(next) => {
                        let tail = t.read_at(self.idx, self.offset)?;
                        if tail.as_ref().is_none_or(|d| d.is_empty()) {
                            self.idx = next;
                            self.offset = 0;
                        }
                    }
                    None => tokio::time::sleep(FOLLOW_POLL).await,
                },
                None => (self.idx, self.offset) = t.closest(self.idx, 0)?,
            }
        }
    }

    pub fn into_stream(self) -> impl Stream<Item = Result<LogChunk, LogError>> + Send {
        futures::stream::unfold(self, |mut f| async move {
            let item = f.next_chunk().await;
            Some((item, f))
        })
    }
}

#[cfg(test)]
#[path = "logs_tests.rs"]
mod tests;
