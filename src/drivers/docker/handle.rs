//! A running container as the driver tracks it (Nomad's docker `taskHandle`): the state
//! kept per task, the supervisor that copies the container's logs and waits for its exit,
//! and the re-attachment to a container an earlier agent process started.

use std::sync::{Arc, Mutex};

use hyper::Method;
use serde_json::Value;
use tokio::task::JoinHandle;

use super::api::{read_body, ApiError, DockerApi};
use super::logs::{self, LogPosition};
use super::{DockerDriver, LOG_DRAIN_GRACE};
use crate::api::now_nanos;
use crate::drivers::logging::LogStream;
use crate::drivers::task_store::ExitCell;
use crate::drivers::{DriverError, ExitResult, TaskConfig, TaskHandle};

pub(super) struct DockerTask {
    pub(super) name: String,
    pub(super) container_id: String,
    /// What the task's reference in the image GC is counted under.
    pub(super) image_id: String,
    pub(super) started_at: i64,
    pub(super) completed_at: Mutex<Option<i64>>,
    pub(super) exit: ExitCell,
    pub(super) supervisor: Mutex<Option<JoinHandle<()>>>,
}

pub(super) fn lock<T>(m: &Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

impl DockerDriver {
    /// Starts the log copy and the waiter for a running container. `resume` picks the log
    /// copy up where an earlier agent's copy of this container stopped (see `logs`).
    pub(super) fn supervise(
        &self,
        cfg: &TaskConfig,
        id: &str,
        image_id: &str,
        started_at: i64,
        resume: bool,
    ) -> Result<Arc<DockerTask>, DriverError> {
        let log_task = if cfg.logs_disabled {
            None
        } else {
            let spec = cfg.log_spec();
            let err = |e: std::io::Error| DriverError::Logs {
                path: spec.dir.display().to_string(),
                reason: e.to_string(),
            };
            let out = spec.rotator(LogStream::Stdout).map_err(err)?;
            let errr = spec.rotator(LogStream::Stderr).map_err(err)?;
            let pos_path = LogPosition::path(&spec.dir, &cfg.name);
            let pos = if resume {
                let (pos, found) = LogPosition::resume(&pos_path, id);
                if !found {
                    tracing::info!(container_id = %id, "no docker log position recorded, copying the container's logs from its start");
                }
                pos
            } else {
                LogPosition::fresh(&pos_path, id)
            };
            Some(tokio::spawn(logs::follow(
                self.api.clone(),
                id.to_string(),
                pos,
                out,
                errr,
            )))
        };
        let task = Arc::new(DockerTask {
            name: cfg.name.clone(),
            container_id: id.to_string(),
            image_id: image_id.to_string(),
            started_at,
            completed_at: Mutex::new(None),
            exit: ExitCell::default(),
            supervisor: Mutex::new(None),
        });
        let supervised = task.clone();
        let api = self.api.clone();
        let cid = id.to_string();
        let handle = tokio::spawn(async move {
            let result = wait_container(&api, &cid).await;
            if let Some(l) = log_task {
                let abort = l.abort_handle();
                if tokio::time::timeout(LOG_DRAIN_GRACE, l).await.is_err() {
                    abort.abort();
                }
            }
            *lock(&supervised.completed_at) = Some(now_nanos());
            supervised.exit.set(result);
        });
        *lock(&task.supervisor) = Some(handle);
        Ok(task)
    }

    /// Re-attaches to the container a handle names after a client restart (Nomad's
    /// `RecoverTask`): the waiter, stop, signal, exec and stats work on it as on a container
    /// this process started, and the log copy resumes where the last one stopped. A
    /// container that exited meanwhile reports its real exit through `wait`.
    pub(super) async fn reattach(&self, handle: &TaskHandle) -> Result<(), DriverError> {
        if self.tasks.contains(handle.id()) {
            return Ok(());
        }
        let id = handle
            .driver_state
            .get("container_id")
            .and_then(Value::as_str)
            .ok_or_else(|| DriverError::Recover("no container id in the task handle".into()))?;
        let info = self
            .api
            .get(&format!("/containers/{id}/json"))
            .await
            .map_err(|e| match e.status() {
                Some(404) => DriverError::Recover(format!("container {id} no longer exists")),
                _ => DriverError::Recover(format!("failed to inspect container {id}: {e}")),
            })?;
        let started_at = info
            .pointer("/State/StartedAt")
            .and_then(Value::as_str)
            .and_then(|s| chrono::DateTime::parse_from_rfc3339(s).ok())
            .and_then(|t| t.timestamp_nanos_opt())
            .unwrap_or_else(now_nanos);
        // Unlike Nomad, a recovered task counts as a user of its image again, so an image is
        // neither removed under it nor kept forever once it is destroyed.
        let image_id = info
            .get("Image")
            .and_then(Value::as_str)
            .unwrap_or_default();
        self.images.acquire(image_id, handle.id()).await;
        let task = self.supervise(&handle.config, id, image_id, started_at, true)?;
        self.tasks.insert_new(handle.id(), task)
    }
}

/// Waits for the container to stop, then reads its state for the exit code and OOM kill
/// (Nomad's handle `run`).
pub(super) async fn wait_container(api: &DockerApi, id: &str) -> ExitResult {
    let waited = async {
        let resp = api
            .send(
                Method::POST,
                &format!("/containers/{id}/wait?condition=not-running"),
                None,
            )
            .await?;
        let body = read_body(resp).await?;
        serde_json::from_slice::<Value>(&body).map_err(|e| ApiError::Http(e.to_string()))
    }
    .await;
    let mut result = match waited {
        Ok(v) => {
            let code = v.get("StatusCode").and_then(Value::as_i64).unwrap_or(0) as i32;
            ExitResult {
                exit_code: code,
                err: (code != 0)
                    .then(|| format!("Docker container exited with non-zero exit code: {code}")),
                ..Default::default()
            }
        }
        Err(e) => ExitResult {
            exit_code: 1,
            err: Some(format!("failed to wait for container: {e}")),
            ..Default::default()
        },
    };
    if let Ok(state) = api.get(&format!("/containers/{id}/json")).await {
        if let Some(code) = state.pointer("/State/ExitCode").and_then(Value::as_i64) {
            result.exit_code = code as i32;
        }
        if state.pointer("/State/OOMKilled").and_then(Value::as_bool) == Some(true) {
            result.oom_killed = true;
            result.err = Some("OOM Killed".to_string());
        }
    }
    result
}
