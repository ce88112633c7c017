//! The alloc runner: one per allocation on this node. Builds the alloc dir, runs a task
//! runner per task, kills the rest of the group when a task fails (or the leader dies),
//! and reports the alloc's client status and task states to the update batcher.
//!
//! Owned by the alloc watcher through `AllocRunnerHandle`; owns its task runners and joins
//! them before it returns.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{mpsc, Notify};
use tokio::task::JoinHandle;

use super::alloc_dir::AllocDir;
use super::alloc_status::client_update;
use super::state::{PersistedTask, StateDb};
use super::task_runner::state::rfc3339;
use super::task_runner::{events, TaskRunner, TaskRunnerHandle, TaskRunnerParams};
use crate::api::{now_nanos, Allocation, Node, TaskState, TASK_STATE_DEAD};
use crate::drivers::DriverRegistry;

pub struct AllocRunnerParams {
    pub alloc: Arc<Allocation>,
    pub node: Arc<Node>,
    pub region: String,
    pub alloc_dir: AllocDir,
    pub drivers: DriverRegistry,
    pub max_kill_timeout: Duration,
    pub updates: mpsc::UnboundedSender<Allocation>,
    /// Where Nomad-native service registrations go; `None` in unit tests without a server.
    pub services: Option<super::services::ServiceRegistrar>,
    /// Where the alloc and its tasks are persisted (`None` in dev mode).
    pub state: Option<Arc<StateDb>>,
    /// Tasks as an earlier agent process left them (empty for a new alloc).
    pub restored: BTreeMap<String, PersistedTask>,
    /// The servers, for template lookups (`None` in unit tests without a server).
    pub rpc: Option<Arc<dyn crate::server::rpc::ServerRpc>>,
}

#[derive(Debug)]
enum Command {
    Update(Arc<Allocation>),
    /// Desired stop/evict: kill every task; the runner keeps reporting until they are dead.
    Stop,
    /// Client shutdown. `stop_tasks`: kill and wait for the tasks first (dev mode);
    /// otherwise leave them running.
    Shutdown {
        stop_tasks: bool,
    },
}

pub struct AllocRunnerHandle {
    pub alloc_id: String,
    pub alloc_dir: AllocDir,
    /// The alloc as last received from the server.
    pub alloc: Arc<Allocation>,
    cmds: mpsc::UnboundedSender<Command>,
    join: JoinHandle<()>,
    controls: TaskControls,
    checks: super::checks::SharedResults,
}

/// The alloc's tasks for the interactive endpoints, filled once the tasks are set up.
type TaskControls = Arc<std::sync::RwLock<BTreeMap<String, super::control::TaskControl>>>;

impl AllocRunnerHandle {
    pub fn control(&self) -> super::control::AllocControl {
        super::control::AllocControl {
            alloc_id: self.alloc_id.clone(),
            alloc_dir: self.alloc_dir.root.clone(),
            tasks: self.controls.clone(),
            checks: self.checks.clone(),
        }
    }

    pub fn update(&mut self, alloc: Arc<Allocation>) {
        self.alloc = alloc.clone();
        let _ = self.cmds.send(Command::Update(alloc));
    }

    pub fn stop(&self) {
        let _ = self.cmds.send(Command::Stop);
    }

    pub async fn shutdown(self, stop_tasks: bool) {
        self.begin_shutdown(stop_tasks);
        let _ = self.join.await;
    }

    /// Asks the runner to finish without waiting; `join` (or `is_finished`) later.
    pub fn begin_shutdown(&self, stop_tasks: bool) {
        let _ = self.cmds.send(Command::Shutdown { stop_tasks });
    }

    pub fn is_finished(&self) -> bool {
        self.join.is_finished()
    }

    pub async fn join(self) {
        let _ = self.join.await;
    }
}

impl AllocRunnerParams {
    fn persist_alloc(&self) {
        if let Some(db) = &self.state {
            if let Err(e) = db.put_alloc(&self.alloc) {
                tracing::warn!(alloc_id = %self.alloc.id, error = %e, "failed to persist alloc");
            }
        }
    }
}

pub struct AllocRunner {
    p: AllocRunnerParams,
    tasks: BTreeMap<String, TaskRunnerHandle>,
    state_changed: Arc<Notify>,
    cmds: mpsc::UnboundedReceiver<Command>,
    last_sent: Option<Allocation>,
    /// Set once the group is being torn down, so siblings are killed only once.
    killing: bool,
    /// Whether the alloc's services are registered with the servers.
    registered: bool,
    controls: TaskControls,
    /// Latest result per Nomad service check, read by the checks endpoint.
    check_results: super::checks::SharedResults,
    /// Runs the checks while the alloc runs; stopped (kept to be joined) once it stops.
    checks: Option<super::checks::ChecksHook>,
}

impl AllocRunner {
    pub fn spawn(p: AllocRunnerParams) -> AllocRunnerHandle {
        p.persist_alloc();
        let (tx, rx) = mpsc::unbounded_channel();
        let alloc_id = p.alloc.id.clone();
        let alloc = p.alloc.clone();
        let alloc_dir = p.alloc_dir.clone();
        let controls = TaskControls::default();
        let check_results = super::checks::SharedResults::default();
        let runner = AllocRunner {
            check_results: check_results.clone(),
            checks: None,
            controls: controls.clone(),
            p,
            tasks: BTreeMap::new(),
            state_changed: Arc::new(Notify::new()),
            cmds: rx,
            last_sent: None,
            killing: false,
            registered: false,
        };
        AllocRunnerHandle {
            alloc_id,
            alloc_dir,
            alloc,
            cmds: tx,
            join: tokio::spawn(runner.run()),
            controls,
            checks: check_results,
        }
    }

    fn start_tasks(&mut self) -> Result<(), String> {
        if let Err(e) = self.p.alloc_dir.build() {
            return Err(format!(
                "failed to build alloc dir {}: {e}",
                self.p.alloc_dir.root.display()
            ));
        }
        let alloc = self.p.alloc.clone();
        let group = alloc
            .job
            .as_deref()
            .and_then(|j| j.lookup_task_group(&alloc.task_group))
            .ok_or_else(|| format!("task group {:?} not found in job", alloc.task_group))?;
        for (i, task) in group.tasks.iter().enumerate() {
            let seed = seed_for(&alloc.id, i);
            let handle = TaskRunner::spawn(TaskRunnerParams {
                alloc: alloc.clone(),
                task: task.clone(),
                node: self.p.node.clone(),
                region: self.p.region.clone(),
                alloc_dir: self.p.alloc_dir.clone(),
                driver: self.p.drivers.get(&task.driver),
                max_kill_timeout: self.p.max_kill_timeout,
                state_changed: self.state_changed.clone(),
                seed,
                state: self.p.state.clone(),
                restored: self.p.restored.remove(&task.name),
                services: self.p.rpc.clone().map(|rpc| {
                    Arc::new(super::task_runner::templates::RpcServiceLookup(rpc))
                        as Arc<dyn super::task_runner::templates::ServiceLookup>
                }),
            });
            self.controls
                .write()
                .unwrap_or_else(|e| e.into_inner())
                .insert(task.name.clone(), handle.control());
            self.tasks.insert(task.name.clone(), handle);
        }
        Ok(())
    }

    fn states(&self) -> BTreeMap<String, TaskState> {
        self.tasks
            .iter()
            .map(|(k, t)| (k.clone(), t.state()))
            .collect()
    }

    /// Kill every live task, first telling them why when a sibling or the leader caused it.
    fn kill_all(&mut self, reason: Option<crate::api::TaskEvent>) {
        self.killing = true;
        for t in self.tasks.values() {
            if t.state().state != TASK_STATE_DEAD {
                if let Some(e) = &reason {
                    t.note(e.clone());
                }
                t.kill();
            }
        }
    }

    fn on_state_change(&mut self) {
        let states = self.states();
        if !self.killing {
            let now = now_nanos();
            let failed = states
                .iter()
                .find(|(_, s)| s.state == TASK_STATE_DEAD && s.failed)
                .map(|(n, _)| n.clone());
            let leader_dead = self
                .tasks
                .values()
                .any(|t| t.is_leader() && t.state().state == TASK_STATE_DEAD);
            let any_live = states.values().any(|s| s.state != TASK_STATE_DEAD);
            if any_live {
                if let Some(name) = failed {
                    self.kill_all(Some(events::sibling_failed(now, &name)));
                } else if leader_dead {
                    self.kill_all(Some(events::leader_dead(now)));
                }
            }
        }
        self.send_update(states);
    }

    fn send_update(&mut self, states: BTreeMap<String, TaskState>) {
        let update = client_update(
            &self.p.alloc.id,
            &self.p.node.id,
            states,
            &rfc3339(now_nanos()),
        );
        self.sync_services(&update);
        self.sync_checks(&update);
        if self.last_sent.as_ref() == Some(&update) {
            return;
        }
        self.last_sent = Some(update.clone());
        let _ = self.p.updates.send(update);
    }

    /// Advertise the alloc's services while it runs; withdraw them once it is being stopped
    /// or has finished.
    fn sync_services(&mut self, update: &Allocation) {
        let Some(reg) = &self.p.services else {
            return;
        };
        let running = update.client_status == crate::api::ALLOC_CLIENT_RUNNING;
        if running && !self.killing && !self.registered {
            self.registered = true;
            reg.register(super::services::registrations(
                &self.p.alloc,
                &self.p.node,
                &self.p.region,
                &self.p.alloc_dir,
            ));
        } else if self.registered && (self.killing || update.client_terminal()) {
            self.registered = false;
            reg.deregister(&self.p.alloc.id);
        }
    }

    /// Run the service checks once the alloc runs; stop them when it is being stopped or
    /// has finished (never started again: a stopping alloc does not run again).
    fn sync_checks(&mut self, update: &Allocation) {
        let running = update.client_status == crate::api::ALLOC_CLIENT_RUNNING;
        match &self.checks {
            None if running && !self.killing => {
                self.checks = Some(super::checks::ChecksHook::spawn(
                    super::checks::ChecksHookParams {
                        alloc: &self.p.alloc,
                        node: &self.p.node,
                        region: &self.p.region,
                        alloc_dir: &self.p.alloc_dir,
                        tasks: self.controls.clone(),
                        results: self.check_results.clone(),
                    },
                ));
            }
            Some(h) if self.killing || update.client_terminal() => h.stop(),
            _ => {}
        }
    }

    async fn stop_checks(&mut self) {
        if let Some(h) = self.checks.take() {
            h.stop();
            h.join().await;
        }
    }

    fn all_dead(&self) -> bool {
        self.tasks.values().all(|t| t.is_finished())
    }

    /// Joins every task runner and returns their final states.
    async fn join_tasks(&mut self) -> BTreeMap<String, TaskState> {
        let mut states = BTreeMap::new();
        for (name, t) in std::mem::take(&mut self.tasks) {
            states.insert(name, t.join().await);
        }
        states
    }

    async fn run(mut self) {
        if let Err(e) = self.start_tasks() {
            tracing::error!(alloc_id = %self.p.alloc.id, error = %e, "alloc runner failed");
            let mut update = client_update(&self.p.alloc.id, &self.p.node.id, BTreeMap::new(), "");
            update.client_status = crate::api::ALLOC_CLIENT_FAILED.to_string();
            update.client_description = e;
            let _ = self.p.updates.send(update);
        } else {
            self.on_state_change();
        }
        if self.p.alloc.server_terminal() {
            self.kill_all(None);
        }
        loop {
            tokio::select! {
                _ = self.state_changed.notified() => self.on_state_change(),
                cmd = self.cmds.recv() => match cmd {
                    Some(Command::Update(alloc)) => {
                        for t in self.tasks.values() {
                            t.update(alloc.clone());
                        }
                        let stop = alloc.server_terminal();
                        self.p.alloc = alloc;
                        if let Some(h) = self.checks.as_mut() {
                            h.update(&self.p.alloc, &self.p.node, &self.p.region, &self.p.alloc_dir);
                        }
                        self.p.persist_alloc();
                        if stop {
                            self.kill_all(None);
                        }
                    }
                    Some(Command::Stop) => self.kill_all(None),
                    Some(Command::Shutdown { stop_tasks: true }) => {
                        self.kill_all(None);
                        let states = self.join_tasks().await;
                        self.send_update(states);
                        self.stop_checks().await;
                        return;
                    }
                    Some(Command::Shutdown { stop_tasks: false }) | None => {
                        for t in self.tasks.values() {
                            t.detach();
                        }
                        self.stop_checks().await;
                        self.join_tasks().await;
                        return;
                    }
                },
            }
            if self.all_dead() && !self.tasks.is_empty() {
                // Final states are published before a runner exits; collect them once more.
                self.on_state_change();
            }
        }
    }
}

/// A per-task seed for restart jitter, stable for a given alloc.
fn seed_for(alloc_id: &str, index: usize) -> u64 {
    let mut h: u64 = 0xcbf29ce484222325;
    for b in alloc_id.bytes() {
        h ^= u64::from(b);
        h = h.wrapping_mul(0x100000001b3);
    }
    h ^ index as u64
}

#[cfg(test)]
#[path = "alloc_runner_tests.rs"]
mod tests;
