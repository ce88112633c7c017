//! Starting the task: its driver config built from the task, the environment and the
//! alloc's resources; the prestart hooks (artifacts, templates); the driver's start, during
//! which the driver's task events (e.g. docker's "Downloading image") are recorded as they
//! arrive, so they precede the event that says how the start went.

use std::sync::Arc;

use futures::FutureExt;

use super::state::Event;
use super::{events, volumes, TaskRunner, WaitFuture};
use crate::api::now_nanos;
use crate::client::taskenv::{EnvInputs, TaskEnv};
use crate::drivers::{Driver, DriverError, DriverTaskEvent, FsIsolation, TaskConfig, TaskHandle};

impl TaskRunner {
    pub(super) fn build_config(&self) -> Result<TaskConfig, String> {
        let task = &self.p.task;
        let dir = self
            .p
            .alloc_dir
            .build_task(&task.name)
            .map_err(|e| format!("failed to build task directory for {:?}: {e}", task.name))?;
        crate::client::dispatch_payload::write_payload(self.p.alloc.job.as_deref(), task, &dir)
            .map_err(|e| e.to_string())?;
        let fs_none = self
            .p
            .driver
            .as_ref()
            .is_some_and(|d| d.capabilities().fs_isolation == FsIsolation::None);
        let env = TaskEnv::build(EnvInputs {
            alloc: &self.p.alloc,
            task,
            node: &self.p.node,
            region: &self.p.region,
            alloc_dir: &self.p.alloc_dir,
            host_env: fs_none.then(|| std::env::vars().collect()),
        });
        let config = task
            .config
            .clone()
            .unwrap_or_default()
            .into_iter()
            .map(|(k, v)| (k, env.interpolate_value(&v)))
            .collect();
        let mounts = match self
            .p
            .alloc
            .job
            .as_deref()
            .and_then(|j| j.lookup_task_group(&self.p.alloc.task_group))
        {
            Some(tg) => volumes::host_volume_mounts(&self.p.alloc, tg, task, &self.p.node)?,
            None => Vec::new(),
        };
        if let (false, Some(d)) = (mounts.is_empty(), &self.p.driver) {
            if !d.supports_mounts() {
                return Err(format!(
                    "task driver {:?} for {:?} does not support host volumes",
                    task.driver, task.name
                ));
            }
        }
        let log = task.log_config.clone().unwrap_or_default();
        let res = self
            .p
            .alloc
            .allocated_resources
            .as_ref()
            .and_then(|ar| ar.tasks.get(&task.name));
        Ok(TaskConfig {
            id: format!(
                "{}/{}/{}",
                self.p.alloc.id,
                task.name,
                crate::api::short_id(&crate::api::generate_id())
            ),
            name: task.name.clone(),
            alloc_id: self.p.alloc.id.clone(),
            job_name: self
                .p
                .alloc
                .job
                .as_ref()
                .map(|j| j.name.clone())
                .unwrap_or_default(),
            task_group_name: self.p.alloc.task_group.clone(),
            config,
            env: env.env,
            user: task.user.clone(),
            task_dir: dir.dir,
            alloc_dir: self.p.alloc_dir.root.clone(),
            log_max_files: log.max_files.max(0) as u32,
            log_max_file_size_mb: log.max_file_size_mb.max(0) as u32,
            logs_disabled: log.disabled,
            cpu_shares: res.map(|r| r.cpu.cpu_shares).unwrap_or(0),
            memory_mb: res.map(|r| r.memory.memory_mb).unwrap_or(0),
            memory_max_mb: res.map(|r| r.memory.memory_max_mb).unwrap_or(0),
            reserved_cores: res
                .and_then(|r| r.cpu.reserved_cores.clone())
                .unwrap_or_default(),
            mounts,
            events: self.driver_events.0.clone(),
        })
    }

    /// Sets up and starts the task; the event says how it went.
    pub(super) async fn start(&mut self) -> (Event, Option<WaitFuture>) {
        let mut cfg = match self.build_config() {
            Ok(c) => c,
            Err(e) => return (Event::SetupFailed(e), None),
        };
        if let Err(event) = self.fetch_artifacts(&cfg.task_dir).await {
            return (
                Event::HookFailed {
                    event: Box::new(event),
                    recoverable: true,
                },
                None,
            );
        }
        if let Err(event) = self.render_templates(&cfg).await {
            return (event, None);
        }
        cfg.env.extend(
            self.template_env
                .lock()
                .unwrap_or_else(|e| e.into_inner())
                .clone(),
        );
        let Some(driver) = self.p.driver.clone() else {
            let error = format!(
                "failed to dispense driver {:?}: plugin not found",
                self.p.task.driver
            );
            return (
                Event::StartFailed {
                    error,
                    recoverable: false,
                },
                None,
            );
        };
        match self.start_in_driver(&driver, cfg).await {
            Ok(handle) => {
                let h = handle.clone();
                let d = driver.clone();
                let wait = async move { d.wait(&h).await }.boxed();
                self.set_handle(Some(handle));
                (Event::Started, Some(wait))
            }
            Err(e) => (
                Event::StartFailed {
                    error: e.to_string(),
                    recoverable: e.is_recoverable(),
                },
                None,
            ),
        }
    }

    /// `driver.start(cfg)`, recording the driver's events while it runs. Events the driver
    /// sent before it returned are all recorded before this returns.
    async fn start_in_driver(
        &mut self,
        driver: &Arc<dyn Driver>,
        cfg: TaskConfig,
    ) -> Result<TaskHandle, DriverError> {
        let start = driver.start(cfg);
        tokio::pin!(start);
        let result = loop {
            tokio::select! {
                biased;
                Some(ev) = self.driver_events.1.recv() => self.record_driver_event(&ev),
                r = &mut start => break r,
            }
        };
        while let Ok(ev) = self.driver_events.1.try_recv() {
            self.record_driver_event(&ev);
        }
        result
    }

    /// Records a driver's event as a "Driver" task event and publishes it.
    pub(super) fn record_driver_event(&mut self, ev: &DriverTaskEvent) {
        let _ = self.machine.next(
            Event::Note(Box::new(events::driver_message(ev))),
            now_nanos(),
        );
        self.publish();
    }
}
