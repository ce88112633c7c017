//! Task log files: `<alloc_dir>/alloc/logs/<task>.stdout.N` / `.stderr.N`, rotated by size
//! and pruned to `max_files`, the layout Nomad's logmon writes and `alloc logs` reads.
//!
//! The rotator lives in the client process for now; when tasks move under a supervisor
//! process it moves there unchanged (it only needs a directory and a byte stream).

use std::fs::{File, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use tokio::io::{AsyncRead, AsyncReadExt};

/// Nomad's `LogConfig` defaults: 10 files of 10 MB.
pub const DEFAULT_MAX_FILES: u32 = 10;
pub const DEFAULT_MAX_FILE_SIZE_MB: u32 = 10;

/// Near the end of a file the rotator looks this far back for a newline so a line is not
/// split across two files (Nomad's `lineScanLimit`).
const LINE_SCAN_LIMIT: u64 = 32 * 1024;

/// Where and how one task's logs are written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogSpec {
    /// `<alloc_dir>/alloc/logs`.
    pub dir: PathBuf,
    pub task_name: String,
    pub max_files: u32,
    pub max_file_size_bytes: u64,
}

impl LogSpec {
    pub fn new(dir: PathBuf, task_name: &str, max_files: u32, max_file_size_mb: u32) -> Self {
        LogSpec {
            dir,
            task_name: task_name.to_string(),
            max_files: if max_files == 0 {
                DEFAULT_MAX_FILES
            } else {
                max_files
            },
            max_file_size_bytes: u64::from(if max_file_size_mb == 0 {
                DEFAULT_MAX_FILE_SIZE_MB
            } else {
                max_file_size_mb
            }) * 1024
                * 1024,
        }
    }

    /// `<task>.stdout` or `<task>.stderr`: the base the `.N` index is appended to.
    pub fn base_name(&self, stream: LogStream) -> String {
        format!("{}.{}", self.task_name, stream.as_str())
    }

    pub fn rotator(&self, stream: LogStream) -> io::Result<FileRotator> {
        FileRotator::open(
            &self.dir,
            &self.base_name(stream),
            self.max_files,
            self.max_file_size_bytes,
        )
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LogStream {
    Stdout,
    Stderr,
}

impl LogStream {
    pub fn as_str(self) -> &'static str {
        match self {
            LogStream::Stdout => "stdout",
            LogStream::Stderr => "stderr",
        }
    }

    pub fn parse(s: &str) -> Option<Self> {
        match s {
            "stdout" => Some(LogStream::Stdout),
            "stderr" => Some(LogStream::Stderr),
            _ => None,
        }
    }
}

/// Appends to `<base>.<idx>`, moving to `<base>.<idx+1>` when the file reaches `file_size`
/// and deleting the oldest files beyond `max_files`.
#[derive(Debug)]
pub struct FileRotator {
    dir: PathBuf,
    base: String,
    max_files: u32,
    file_size: u64,
    idx: u64,
    current: File,
    written: u64,
}

impl FileRotator {
    /// Continues the newest existing file (a restarted task appends, as Nomad does).
    pub fn open(dir: &Path, base: &str, max_files: u32, file_size: u64) -> io::Result<Self> {
        std::fs::create_dir_all(dir)?;
        let idx = existing_indexes(dir, base)?.into_iter().max().unwrap_or(0);
        let (current, written) = open_append(&dir.join(format!("{base}.{idx}")))?;
        Ok(FileRotator {
            dir: dir.to_path_buf(),
            base: base.to_string(),
            max_files: max_files.max(1),
            file_size: file_size.max(1),
            idx,
            current,
            written,
        })
    }

    pub fn current_index(&self) -> u64 {
        self.idx
    }

    fn rotate(&mut self) -> io::Result<()> {
        self.current.flush()?;
        self.idx += 1;
        let (file, written) = open_append(&self.dir.join(format!("{}.{}", self.base, self.idx)))?;
        self.current = file;
        self.written = written;
        self.purge()
    }

    fn purge(&self) -> io::Result<()> {
        let mut indexes = existing_indexes(&self.dir, &self.base)?;
        if indexes.len() <= self.max_files as usize {
            return Ok(());
        }
        indexes.sort_unstable();
        let excess = indexes.len() - self.max_files as usize;
        for idx in &indexes[..excess] {
            let path = self.dir.join(format!("{}.{idx}", self.base));
            match std::fs::remove_file(&path) {
                Ok(()) => {}
                Err(e) if e.kind() == io::ErrorKind::NotFound => {}
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }
}

impl Write for FileRotator {
    fn write(&mut self, buf: &[u8]) -> io::Result<usize> {
        let mut done = 0;
        while done < buf.len() {
            if self.written >= self.file_size {
                self.rotate()?;
            }
            let rest = &buf[done..];
            let space = self.file_size - self.written;
            let take = if (rest.len() as u64) <= space {
                rest.len()
            } else {
                // Prefer ending this file at a newline that fits within the last
                // LINE_SCAN_LIMIT bytes; otherwise fill it up.
                let window = &rest[..space as usize];
                match window.iter().rposition(|b| *b == b'\n') {
                    Some(nl) if space - (nl as u64 + 1) < LINE_SCAN_LIMIT => nl + 1,
                    _ => space as usize,
                }
            };
            self.current.write_all(&rest[..take])?;
            self.written += take as u64;
            done += take;
            if take < rest.len() {
                self.rotate()?;
            }
        }
        Ok(buf.len())
    }

    fn flush(&mut self) -> io::Result<()> {
        self.current.flush()
    }
}

fn open_append(path: &Path) -> io::Result<(File, u64)> {
    let file = OpenOptions::new().create(true).append(true).open(path)?;
    let len = file.metadata()?.len();
    Ok((file, len))
}

/// The `N` of every `<base>.N` file in `dir`.
pub fn existing_indexes(dir: &Path, base: &str) -> io::Result<Vec<u64>> {
    let prefix = format!("{base}.");
    let mut out = Vec::new();
    for entry in std::fs::read_dir(dir)? {
        let entry = entry?;
        let name = entry.file_name();
        let Some(name) = name.to_str() else { continue };
        if let Some(idx) = name.strip_prefix(&prefix).and_then(|s| s.parse().ok()) {
            out.push(idx);
        }
    }
    Ok(out)
}

/// Copies a task's output stream into its rotator until EOF. Returns the first write error;
/// read errors end the copy like EOF (the pipe's writer is gone).
pub async fn pump<R: AsyncRead + Unpin>(mut reader: R, mut rotator: FileRotator) -> io::Result<()> {
    let mut buf = vec![0u8; 32 * 1024];
    loop {
        let n = match reader.read(&mut buf).await {
            Ok(0) | Err(_) => break,
            Ok(n) => n,
        };
        rotator.write_all(&buf[..n])?;
    }
    rotator.flush()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn read(dir: &Path, name: &str) -> String {
        std::fs::read_to_string(dir.join(name)).unwrap_or_default()
    }

    #[test]
    fn rotates_by_size_and_keeps_max_files() {
        let tmp = tempfile::tempdir().unwrap();
        let mut r = FileRotator::open(tmp.path(), "web.stdout", 2, 10).unwrap();
        r.write_all(b"aaaaaaaaaa").unwrap(); // fills .0
        r.write_all(b"bbbbbbbbbb").unwrap(); // .1
        r.write_all(b"cccc").unwrap(); // .2, .0 purged
        r.flush().unwrap();
        let mut idx = existing_indexes(tmp.path(), "web.stdout").unwrap();
        idx.sort();
        assert_eq!(idx, vec![1, 2]);
        assert_eq!(read(tmp.path(), "web.stdout.1"), "bbbbbbbbbb");
        assert_eq!(read(tmp.path(), "web.stdout.2"), "cccc");
    }

    #[test]
    fn splits_at_newline_near_the_end() {
        let tmp = tempfile::tempdir().unwrap();
        let mut r = FileRotator::open(tmp.path(), "t.stdout", 5, 8).unwrap();
        r.write_all(b"one\ntwo\nthree\n").unwrap();
        assert_eq!(read(tmp.path(), "t.stdout.0"), "one\ntwo\n");
        assert_eq!(read(tmp.path(), "t.stdout.1"), "three\n");
    }

    #[test]
    fn reopening_continues_the_newest_file() {
        let tmp = tempfile::tempdir().unwrap();
        {
            let mut r = FileRotator::open(tmp.path(), "t.stderr", 5, 4).unwrap();
            r.write_all(b"12345").unwrap();
        }
        let mut r = FileRotator::open(tmp.path(), "t.stderr", 5, 4).unwrap();
        assert_eq!(r.current_index(), 1);
        r.write_all(b"6").unwrap();
        assert_eq!(read(tmp.path(), "t.stderr.1"), "56");
    }
}
