//! The HTTP layer's `LogSource` over the client's alloc dirs: lists a task's rotated log files
//! (`alloc/logs/<task>.<type>.<n>`) and reads byte ranges of them.

use std::io::{Read, Seek, SeekFrom};
use std::path::PathBuf;
use std::sync::Arc;

use async_trait::async_trait;
use bytes::Bytes;

use crate::client::ClientHandle;
use crate::http::{LogError, LogFile, LogSource, LogType};

pub struct ClientLogs {
    client: Arc<ClientHandle>,
}

impl ClientLogs {
    pub fn new(client: Arc<ClientHandle>) -> Self {
        ClientLogs { client }
    }

    /// The alloc's logs dir, after checking the task is one of the alloc's (its task dir
    /// exists), so no path is built from an arbitrary name.
    fn logs_dir(&self, alloc_id: &str, task: &str) -> Result<PathBuf, LogError> {
        let dir = self
            .client
            .alloc_dir(alloc_id)
            .ok_or_else(|| LogError::UnknownAlloc(alloc_id.to_string()))?;
        let plain = !task.is_empty() && !task.contains('/') && task != "." && task != "..";
        if !plain || !dir.join(task).is_dir() {
            return Err(LogError::UnknownTask(task.to_string()));
        }
        Ok(dir.join("alloc").join("logs"))
    }
}

fn prefix(task: &str, log_type: LogType) -> String {
    format!("{task}.{}.", log_type.as_str())
}

#[async_trait]
impl LogSource for ClientLogs {
    async fn list(
        &self,
        alloc_id: &str,
        task: &str,
        log_type: LogType,
    ) -> Result<Vec<LogFile>, LogError> {
        let dir = self.logs_dir(alloc_id, task)?;
        let prefix = prefix(task, log_type);
        tokio::task::spawn_blocking(move || {
            let entries = match std::fs::read_dir(&dir) {
                Ok(e) => e,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
                Err(e) => return Err(LogError::Io(e.to_string())),
            };
            let mut files = Vec::new();
            for entry in entries.flatten() {
                let name = entry.file_name();
                let Some(index) = name
                    .to_str()
                    .and_then(|n| n.strip_prefix(&prefix))
                    .and_then(|i| i.parse().ok())
                else {
                    continue;
                };
                if let Ok(meta) = entry.metadata() {
                    files.push(LogFile {
                        index,
                        size: meta.len(),
                    });
                }
            }
            Ok(files)
        })
        .await
        .map_err(|e| LogError::Io(e.to_string()))?
    }

    async fn read(
        &self,
        alloc_id: &str,
        task: &str,
        log_type: LogType,
        index: u64,
        offset: u64,
        max: usize,
    ) -> Result<Bytes, LogError> {
        let path = self
            .logs_dir(alloc_id, task)?
            .join(format!("{}{index}", prefix(task, log_type)));
        tokio::task::spawn_blocking(move || {
            let mut f = match std::fs::File::open(&path) {
                Ok(f) => f,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
                    return Err(LogError::FileGone(path.display().to_string()))
                }
                Err(e) => return Err(LogError::Io(e.to_string())),
            };
            f.seek(SeekFrom::Start(offset))
                .map_err(|e| LogError::Io(e.to_string()))?;
            let mut buf = Vec::with_capacity(max.min(64 * 1024));
            f.take(max as u64)
                .read_to_end(&mut buf)
                .map_err(|e| LogError::Io(e.to_string()))?;
            Ok(Bytes::from(buf))
        })
        .await
        .map_err(|e| LogError::Io(e.to_string()))?
    }
}
