//! The dispatch payload hook: a task with `dispatch_payload { file = "..." }` in a dispatched
//! job gets the dispatch's payload written to that file under its `local/` dir before it
//! starts (Nomad's dispatch_hook). The job carries the payload snappy-compressed and base64
//! encoded, as the server stored it.

use std::path::{Component, Path};

use base64::Engine as _;

use super::alloc_dir::TaskDir;
use crate::api::{DispatchPayloadConfig, Job, Task};

#[derive(Debug, thiserror::Error)]
pub enum PayloadError {
    #[error("dispatch_payload file {0:?} escapes the task's local directory")]
    Escapes(String),
    #[error("job payload is not valid base64: {0}")]
    Base64(#[from] base64::DecodeError),
    #[error("job payload is not valid snappy data: {0}")]
    Snappy(#[from] snap::Error),
    #[error("writing dispatch payload to {path}: {error}")]
    Write { path: String, error: std::io::Error },
}

/// Write the payload if the task asks for it; a task or job without one is left alone.
pub fn write_payload(job: Option<&Job>, task: &Task, dir: &TaskDir) -> Result<(), PayloadError> {
    let Some(cfg) = task
        .dispatch_payload
        .clone()
        .and_then(|v| serde_json::from_value::<DispatchPayloadConfig>(v).ok())
        .filter(|c| !c.file.is_empty())
    else {
        return Ok(());
    };
    let rel = Path::new(&cfg.file);
    let inside = rel
        .components()
        .all(|c| matches!(c, Component::Normal(_) | Component::CurDir));
    if !inside {
        return Err(PayloadError::Escapes(cfg.file));
    }
    let encoded = job
        .and_then(|j| j.payload.as_ref())
        .and_then(|p| p.as_str())
        .unwrap_or("");
    let compressed = base64::engine::general_purpose::STANDARD.decode(encoded)?;
    let data = if compressed.is_empty() {
        Vec::new()
    } else {
        snap::raw::Decoder::new().decompress_vec(&compressed)?
    };
    let path = dir.local.join(rel);
    let write = || -> std::io::Result<()> {
        if let Some(parent) = path.parent() {
            std::fs::create_dir_all(parent)?;
        }
        std::fs::write(&path, &data)
    };
    write().map_err(|error| PayloadError::Write {
        path: path.display().to_string(),
        error,
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::client::alloc_dir::AllocDir;

    fn task(file: &str) -> Task {
        Task {
            name: "t".into(),
            dispatch_payload: serde_json::to_value(DispatchPayloadConfig { file: file.into() })
                .ok(),
            ..Default::default()
        }
    }

    fn job_with(payload: &[u8]) -> Job {
        let c = snap::raw::Encoder::new()
            .compress_vec(payload)
            .expect("compress");
        Job {
            payload: Some(base64::engine::general_purpose::STANDARD.encode(c).into()),
            ..Default::default()
        }
    }

    #[test]
    fn payload_lands_in_the_local_dir() {
        let tmp = tempfile::tempdir().expect("tmp");
        let dir = AllocDir::new(tmp.path().to_path_buf())
            .build_task("t")
            .expect("dirs");
        let job = job_with(b"input data");
        write_payload(Some(&job), &task("in/data.txt"), &dir).expect("write");
        let got = std::fs::read(dir.local.join("in/data.txt")).expect("read");
        assert_eq!(got, b"input data");
        // No dispatch_payload block: nothing written, no error.
        write_payload(Some(&job), &Task::default(), &dir).expect("no block");
        let escaped = write_payload(Some(&job), &task("../../etc/x"), &dir).expect_err("escape");
        assert!(escaped.to_string().contains("escapes"));
    }
}
