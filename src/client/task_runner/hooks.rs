//! The task runner's prestart hooks that prepare the task dir (Nomad's artifact and template
//! hooks): artifacts downloaded once before the first start, templates rendered before every
//! start with their watcher following the running task.

use std::sync::Arc;

use tokio::sync::mpsc;

use super::super::taskenv::{EnvInputs, TaskEnv};
use super::state::Event;
use super::{artifacts, client_path, events, templates, Command, TaskRunner};
use crate::api::{now_nanos, TaskEvent};
use crate::drivers::TaskConfig;

impl TaskRunner {
    /// The task's environment for interpolating hook inputs (artifact sources and
    /// destinations, template attributes); the host's environment is not part of it.
    fn task_env(&self) -> TaskEnv {
        TaskEnv::build(EnvInputs {
            alloc: &self.p.alloc,
            task: &self.p.task,
            node: &self.p.node,
            region: &self.p.region,
            alloc_dir: &self.p.alloc_dir,
            host_env: None,
        })
    }

    /// Nomad's artifact hook: download every artifact into the task dir before the first
    /// start; the failure event names the artifact.
    pub(super) async fn fetch_artifacts(
        &mut self,
        task_dir: &std::path::Path,
    ) -> Result<(), TaskEvent> {
        if self.artifacts_done {
            return Ok(());
        }
        let dirs = client_path::Dirs {
            task_dir: task_dir.to_path_buf(),
            shared_alloc_dir: self.p.alloc_dir.shared(),
        };
        let list = artifacts::task_artifacts(&self.p.task.artifacts);
        if !list.is_empty() {
            let _ = self.machine.next(
                Event::Note(Box::new(events::downloading_artifacts(now_nanos()))),
                now_nanos(),
            );
            self.publish();
            let env = self.task_env();
            for a in &list {
                let raw = a.getter_source.clone().unwrap_or_default();
                let a = artifacts::interpolated(a, |s| env.interpolate(s));
                if let Err(e) = artifacts::get(&dirs, &a).await {
                    let msg = format!("failed to download artifact {raw:?}: {e}");
                    return Err(events::artifact_failed(now_nanos(), &msg));
                }
            }
        }
        self.artifacts_done = true;
        Ok(())
    }

    /// Nomad's template hook: render every template before the first start (waiting for
    /// their lookups; a kill ends the wait), then leave a watcher re-rendering them.
    pub(super) async fn render_templates(&mut self, cfg: &TaskConfig) -> Result<(), Event> {
        if self.templates_done {
            return Ok(());
        }
        let list = templates::task_templates(&self.p.task.templates);
        if list.is_empty() {
            self.templates_done = true;
            return Ok(());
        }
        let attrs = self.task_env().node_attrs;
        let dirs = templates::Dirs {
            task_dir: cfg.task_dir.clone(),
            shared_alloc_dir: self.p.alloc_dir.shared(),
        };
        let mut set = templates::TemplateSet::new(
            list,
            cfg.env.clone(),
            &attrs,
            dirs,
            &self.p.alloc.namespace,
            self.p.services.clone(),
        )
        .map_err(|e| Event::HookFailed {
            event: Box::new(events::hook_failed(now_nanos(), &format!("template: {e}"))),
            recoverable: false,
        })?;
        let tx = self.self_tx.clone();
        let emit = move |e: TaskEvent| {
            if let Some(tx) = tx.upgrade() {
                let _ = tx.send(Command::Note(Box::new(e)));
            }
        };
        let mut deferred = Vec::new();
        let rendered = {
            let render = set.first_render(&emit);
            tokio::pin!(render);
            loop {
                tokio::select! {
                    r = &mut render => break Ok(r),
                    cmd = self.cmds.recv() => match cmd {
                        Some(Command::Note(e)) => {
                            let _ = self.machine.next(Event::Note(e), now_nanos());
                            self.publish();
                        }
                        Some(Command::Kill) => {
                            let e = events::killing(now_nanos(), self.kill_timeout().as_nanos() as i64);
                            break Err(Event::HookKilled(Box::new(e)));
                        }
                        Some(Command::KillWith(e)) => break Err(Event::HookKilled(e)),
                        Some(other) => deferred.push(other),
                        None => {
                            deferred.push(Command::Detach);
                            break Err(Event::HookFailed {
                                event: Box::new(events::hook_failed(now_nanos(), "template: client shutting down")),
                                recoverable: true,
                            });
                        }
                    },
                }
            }
        };
        // Commands that arrived meanwhile are handled by the main loop, in order.
        if let Some(tx) = self.self_tx.upgrade() {
            for c in deferred {
                let _ = tx.send(c);
            }
        }
        let failed = |msg: String| Event::HookKilled(Box::new(templates::killing_event(msg)));
        match rendered? {
            Ok(()) => {}
            Err(e) => return Err(failed(format!("Template failed: {e}"))),
        }
        let env = set.template_env().map_err(|e| {
            failed(format!(
                "Template failed to read environment variables: {e}"
            ))
        })?;
        *self.template_env.lock().unwrap_or_else(|e| e.into_inner()) = env;
        self.templates_done = true;
        let life = self.lifecycle();
        let cancel = tokio_util::sync::CancellationToken::new();
        let watcher = templates::Watcher::new(set, life, cancel.clone(), self.p.seed);
        self.template_watcher = Some((cancel, tokio::spawn(watcher.run())));
        Ok(())
    }

    /// What the template watcher may do to this task.
    pub(super) fn lifecycle(&self) -> templates::Lifecycle {
        let send = |tx: &mpsc::WeakUnboundedSender<Command>, c: Command| {
            if let Some(tx) = tx.upgrade() {
                let _ = tx.send(c);
            }
        };
        let (t1, t2, t3) = (
            self.self_tx.clone(),
            self.self_tx.clone(),
            self.self_tx.clone(),
        );
        templates::Lifecycle {
            note: Arc::new(move |e| send(&t1, Command::Note(Box::new(e)))),
            restart: Arc::new(move || send(&t2, Command::Restart)),
            kill: Arc::new(move |e| send(&t3, Command::KillWith(Box::new(e)))),
            driver: self.p.driver.clone(),
            handle: self.current.clone(),
            template_env: self.template_env.clone(),
        }
    }

    pub(super) async fn stop_template_watcher(&mut self) {
        if let Some((cancel, join)) = self.template_watcher.take() {
            cancel.cancel();
            let _ = join.await;
        }
    }
}
