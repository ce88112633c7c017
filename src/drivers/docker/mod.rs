//! `docker`: runs tasks as containers through the Docker Engine API on the daemon's unix
//! socket, as Nomad's docker driver does: the image is used when present locally and pulled
//! otherwise (or always with `force_pull`), a pull announced to the task as the "Downloading
//! image" task event (see `pull`); the alloc/local/secrets dirs are bind-mounted at
//! /alloc, /local and /secrets; the container's output is copied into the alloc's rotated
//! log files; OOM kills are read from the container state after it exits. Containers outlive
//! the agent: after a restart `recover` re-attaches to the container its persisted handle
//! names (see `handle`), and the log copy resumes where the last one stopped (see `logs`).
//! Images no task uses any more are removed after `gc.image_delay` (see `images`).
//! Configured by `plugin "docker" { config { endpoint allow_privileged allow_caps volumes gc } }`.

mod api;
pub mod config;
mod container;
mod exec_stream;
mod handle;
mod images;
mod logs;
pub mod pull;
mod schema;

#[cfg(test)]
mod live_image_gc_tests;
#[cfg(test)]
mod live_tests;
#[cfg(test)]
mod tests;

use std::sync::Mutex;
use std::time::Duration;

use async_trait::async_trait;
use hyper::Method;
use serde_json::{json, Value};

use self::api::{q, ApiError, DockerApi};
use self::config::{DockerTaskConfig, PluginSettings};
use self::handle::{lock, DockerTask};
use self::images::ImageGc;
use super::task_store::TaskStore;
use super::{
    parse_signal, Capabilities, Driver, DriverError, ExecTaskResult, ExitResult, Fingerprint,
    FsIsolation, HealthState, PluginConfig, TaskConfig, TaskHandle, TaskRunState, TaskStatus,
};
use crate::api::now_nanos;

pub use self::container::{container_name, memory_limits};

pub const NAME: &str = "docker";
const HANDLE_VERSION: u32 = 1;
/// Fingerprinting must never stall the client when the daemon is absent or wedged.
const FINGERPRINT_TIMEOUT: Duration = Duration::from_secs(2);
/// Nomad's default `image_pull_timeout`.
const PULL_TIMEOUT: Duration = Duration::from_secs(300);
/// After the container exits, how long the log copy may keep draining.
const LOG_DRAIN_GRACE: Duration = Duration::from_secs(2);

pub struct DockerDriver {
    settings: PluginSettings,
    api: DockerApi,
    tasks: TaskStore<DockerTask>,
    images: ImageGc,
    /// Set once a fingerprint succeeded: a daemon that goes away afterwards is reported
    /// unhealthy rather than undetected (as Nomad does).
    detected: Mutex<bool>,
}

/// A point-in-time resource usage sample of a container.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ContainerStats {
    pub memory_rss_bytes: u64,
    pub memory_usage_bytes: u64,
    pub memory_max_usage_bytes: u64,
    pub cpu_total_ticks_ns: u64,
    pub cpu_system_ns: u64,
    pub cpu_user_ns: u64,
}

impl DockerDriver {
    pub fn new(cfg: Option<&PluginConfig>) -> Self {
        let settings = PluginSettings::from_config(cfg);
        let api = DockerApi::new(&settings.endpoint);
        DockerDriver {
            images: ImageGc::new(api.clone(), settings.gc_image, settings.gc_image_delay),
            api,
            settings,
            tasks: TaskStore::default(),
            detected: Mutex::new(false),
        }
    }

    /// Uses the local image, pulling it when missing or when `force_pull` is set, and
    /// returns its ID, counted as used by the task in the image GC. A pull emits Nomad's
    /// "Downloading image" task event first (see `pull`). A failed pull of a missing image
    /// is Nomad's "Failed to pull `image`: <daemon message>".
    async fn ensure_image(
        &self,
        cfg: &TaskConfig,
        image: &str,
        force_pull: bool,
    ) -> Result<String, DriverError> {
        let task_id = cfg.id.as_str();
        if !force_pull {
            if let Some(id) = self.images.use_local(image, task_id).await {
                return Ok(id);
            }
        }
        let res = tokio::time::timeout(PULL_TIMEOUT, pull::pull(&self.api, cfg, image))
            .await
            .unwrap_or(Err(ApiError::Timeout));
        // A forced pull that fails still runs the local copy, as Nomad does.
        let local = self.images.use_local(image, task_id).await;
        match (res, local) {
            (_, Some(id)) => Ok(id),
            (Err(e), None) => Err(DriverError::StartFailed {
                message: format!("Failed to pull `{image}`: {e}"),
                recoverable: matches!(e, ApiError::Timeout | ApiError::Connect(..)),
            }),
            // Pulled, but removed again before it was counted as used (a removal of the
            // same image that had waited out its delay): the next attempt pulls again.
            (Ok(()), None) => Err(DriverError::StartFailed {
                message: format!("Failed to pull `{image}`: image removed during the pull"),
                recoverable: true,
            }),
        }
    }

    async fn remove_container(&self, id: &str) {
        let _ = self
            .api
            .call(
                Method::DELETE,
                &format!("/containers/{id}?force=1&v=1"),
                None,
                api::API_TIMEOUT,
            )
            .await;
    }

    /// Creates the container, removing a leftover one of the same name first (a previous
    /// attempt of this task that was not cleaned up).
    async fn create(&self, name: &str, body: &Value) -> Result<String, DriverError> {
        let path = format!("/containers/create?name={}", q(name));
        let mut res = self.api.post(&path, Some(body)).await;
        if matches!(&res, Err(e) if e.status() == Some(409)) {
            self.remove_container(name).await;
            res = self.api.post(&path, Some(body)).await;
        }
        let v = res.map_err(|e| DriverError::StartFailed {
            message: format!("failed to create container: {e}"),
            recoverable: false,
        })?;
        v.get("Id")
            .and_then(Value::as_str)
            .map(str::to_string)
            .ok_or_else(|| DriverError::StartFailed {
                message: "failed to create container: no container id in the answer".into(),
                recoverable: true,
            })
    }

    /// Creates and starts the task's container and supervises it; returns the container ID.
    async fn run_container(
        &self,
        cfg: &TaskConfig,
        body: &Value,
        image_id: &str,
    ) -> Result<String, DriverError> {
        let name = container_name(cfg);
        let id = self.create(&name, body).await?;
        if let Err(e) = self
            .api
            .post(&format!("/containers/{id}/start"), None)
            .await
        {
            self.remove_container(&id).await;
            return Err(DriverError::StartFailed {
                message: format!("Failed to start container {id}: {e}"),
                recoverable: false,
            });
        }
        let task = self.supervise(cfg, &id, image_id, now_nanos(), false)?;
        self.tasks.insert_new(&cfg.id, task)?;
        Ok(id)
    }

    /// One resource-usage sample from the daemon (`/containers/:id/stats?stream=0`).
    pub async fn stats(&self, handle: &TaskHandle) -> Result<ContainerStats, DriverError> {
        let task = self.tasks.get(handle.id())?;
        let v = self
            .api
            .get(&format!("/containers/{}/stats?stream=0", task.container_id))
            .await
            .map_err(|e| DriverError::SignalFailed(e.to_string()))?;
        let n = |p: &str| v.pointer(p).and_then(Value::as_u64).unwrap_or(0);
        Ok(ContainerStats {
            memory_rss_bytes: n("/memory_stats/stats/rss"),
            memory_usage_bytes: n("/memory_stats/usage"),
            memory_max_usage_bytes: n("/memory_stats/max_usage"),
            cpu_total_ticks_ns: n("/cpu_stats/cpu_usage/total_usage"),
            cpu_system_ns: n("/cpu_stats/cpu_usage/usage_in_kernelmode"),
            cpu_user_ns: n("/cpu_stats/cpu_usage/usage_in_usermode"),
        })
    }
}

#[async_trait]
impl Driver for DockerDriver {
    fn name(&self) -> &'static str {
        NAME
    }

    fn capabilities(&self) -> Capabilities {
        Capabilities {
            send_signals: true,
            exec: true,
            fs_isolation: FsIsolation::Image,
        }
    }

    async fn fingerprint(&self) -> Fingerprint {
        if let Some(e) = &self.settings.config_error {
            return Fingerprint::undetected(e);
        }
        let version = self
            .api
            .call(Method::GET, "/version", None, FINGERPRINT_TIMEOUT)
            .await;
        let version = match version {
            Ok(v) => v,
            Err(_) => {
                let seen = *lock(&self.detected);
                return Fingerprint {
                    health: if seen {
                        HealthState::Unhealthy
                    } else {
                        HealthState::Undetected
                    },
                    health_description: "Failed to connect to docker daemon".to_string(),
                    attributes: Default::default(),
                };
            }
        };
        *lock(&self.detected) = true;
        let mut fp = Fingerprint::healthy(NAME);
        let mut put = |k: &str, v: String| {
            fp.attributes.insert(format!("driver.docker.{k}"), v);
        };
        put(
            "version",
            version
                .get("Version")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
        );
        if self.settings.allow_privileged {
            put("privileged.enabled", "true".into());
        }
        if self.settings.volumes_enabled {
            put("volumes.enabled", "true".into());
        }
        if let Ok(info) = self
            .api
            .call(Method::GET, "/info", None, FINGERPRINT_TIMEOUT)
            .await
        {
            if let Some(rt) = info.get("Runtimes").and_then(Value::as_object) {
                let names: Vec<&str> = rt.keys().map(String::as_str).collect();
                put("runtimes", names.join(","));
            }
            if let Some(os) = info.get("OSType").and_then(Value::as_str) {
                put("os_type", os.to_string());
            }
        }
        if let Ok(net) = self
            .api
            .call(Method::GET, "/networks/bridge", None, FINGERPRINT_TIMEOUT)
            .await
        {
            if let Some(gw) = net
                .pointer("/IPAM/Config/0/Gateway")
                .and_then(Value::as_str)
            {
                put("bridge_ip", gw.to_string());
            }
        }
        fp
    }

    async fn start(&self, cfg: TaskConfig) -> Result<TaskHandle, DriverError> {
        if self.tasks.contains(&cfg.id) {
            return Err(DriverError::AlreadyStarted(cfg.id.clone()));
        }
        let d = DockerTaskConfig::decode(&cfg)?;
        let body = container::create_body(&cfg, &d, &self.settings)?;
        let image_id = self.ensure_image(&cfg, &d.image, d.force_pull).await?;
        let started = self.run_container(&cfg, &body, &image_id).await;
        if started.is_err() {
            // The task never ran: its image is as unused as if it had been destroyed.
            self.images.release(&image_id, &cfg.id).await;
        }
        let id = started?;
        Ok(TaskHandle {
            version: HANDLE_VERSION,
            driver: NAME.to_string(),
            driver_state: json!({ "container_id": id, "image": d.image, "image_id": image_id }),
            config: cfg,
        })
    }

    /// Re-attaches to the container a handle names after a client restart (Nomad's
    /// `RecoverTask`, see `handle`).
    async fn recover(&self, handle: &TaskHandle) -> Result<(), DriverError> {
        self.reattach(handle).await
    }

    async fn wait(&self, handle: &TaskHandle) -> Result<ExitResult, DriverError> {
        let task = self.tasks.get(handle.id())?;
        Ok(task.exit.wait().await)
    }

    async fn stop(
        &self,
        handle: &TaskHandle,
        signal: &str,
        timeout: Duration,
    ) -> Result<(), DriverError> {
        let task = self.tasks.get(handle.id())?;
        if task.exit.get().is_some() {
            return Ok(());
        }
        let id = &task.container_id;
        // Docker's default stop signal is SIGTERM (Nomad's docker driver keeps it).
        let sig = if signal.is_empty() { "SIGTERM" } else { signal };
        if parse_signal(sig).is_ok() && !timeout.is_zero() {
            let _ = self
                .api
                .post(&format!("/containers/{id}/kill?signal={}", q(sig)), None)
                .await;
            if tokio::time::timeout(timeout, task.exit.wait())
                .await
                .is_ok()
            {
                return Ok(());
            }
        }
        match self
            .api
            .post(&format!("/containers/{id}/kill?signal=SIGKILL"), None)
            .await
        {
            Ok(_) => Ok(()),
            // 404: already removed; 409: not running. Both mean it is stopped.
            Err(e) if matches!(e.status(), Some(404 | 409)) => Ok(()),
            Err(e) => Err(DriverError::SignalFailed(format!(
                "Failed to stop container {id}: {e}"
            ))),
        }
    }

    async fn destroy(&self, handle: &TaskHandle, force: bool) -> Result<(), DriverError> {
        let task = self.tasks.get(handle.id())?;
        if task.exit.get().is_none() && !force {
            return Err(DriverError::DestroyRunning);
        }
        if self.settings.gc_container {
            self.remove_container(&task.container_id).await;
        } else {
            let _ = self
                .api
                .post(
                    &format!("/containers/{}/kill?signal=SIGKILL", task.container_id),
                    None,
                )
                .await;
        }
        self.tasks.remove(handle.id());
        self.images.release(&task.image_id, handle.id()).await;
        let supervisor = lock(&task.supervisor).take();
        if let Some(s) = supervisor {
            let _ = tokio::time::timeout(Duration::from_secs(15), s).await;
        }
        Ok(())
    }

    async fn signal(&self, handle: &TaskHandle, signal: &str) -> Result<(), DriverError> {
        let task = self.tasks.get(handle.id())?;
        parse_signal(signal)?;
        self.api
            .post(
                &format!(
                    "/containers/{}/kill?signal={}",
                    task.container_id,
                    q(signal)
                ),
                None,
            )
            .await
            .map(|_| ())
            .map_err(|e| DriverError::SignalFailed(e.to_string()))
    }

    async fn inspect(&self, handle: &TaskHandle) -> Result<TaskStatus, DriverError> {
        let task = self.tasks.get(handle.id())?;
        let exit = task.exit.get();
        let completed_at = *lock(&task.completed_at);
        Ok(TaskStatus {
            id: handle.id().to_string(),
            name: task.name.clone(),
            state: if exit.is_some() {
                TaskRunState::Exited
            } else {
                TaskRunState::Running
            },
            started_at: task.started_at,
            completed_at,
            exit_result: exit,
            driver_attributes: [("container_id".to_string(), task.container_id.clone())].into(),
        })
    }

    /// Runs `command` in the container to completion (Nomad's `ExecTask`).
    async fn exec(
        &self,
        handle: &TaskHandle,
        command: Vec<String>,
        timeout: Duration,
    ) -> Result<ExecTaskResult, DriverError> {
        let task = self.tasks.get(handle.id())?;
        exec_stream::exec(&self.api, &task.container_id, command, timeout).await
    }

    async fn exec_streaming(
        &self,
        handle: &TaskHandle,
        session: super::exec_stream::ExecSession,
    ) -> Result<i32, DriverError> {
        let task = self.tasks.get(handle.id())?;
        exec_stream::exec_streaming(&self.api, &task.container_id, session).await
    }

    async fn stats(
        &self,
        handle: &TaskHandle,
    ) -> Result<super::stats::TaskResourceUsage, DriverError> {
        let task = self.tasks.get(handle.id())?;
        let v = self
            .api
            .get(&format!(
                "/containers/{}/stats?stream=false",
                task.container_id
            ))
            .await
            .map_err(|e| DriverError::SignalFailed(e.to_string()))?;
        Ok(exec_stream::usage_from_docker(&v, now_nanos()))
    }
}
