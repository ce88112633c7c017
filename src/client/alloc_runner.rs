//! The alloc runner: one per allocation on this node. Builds the alloc dir, runs a task
//! runner per task, starts each task when its lifecycle stage allows (`lifecycle`), kills
//! the rest of the group when a task fails, the leader dies or only sidecars are left
//! (leader first, then the other tasks, then the sidecars, after the group's
//! `shutdown_delay`; poststop tasks run once the rest is dead), and reports the alloc's
//! client status and task states to the update batcher.
//!
//! Owned by the alloc watcher through `AllocRunnerHandle`; owns its task runners and joins
//! them before it returns.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{mpsc, watch, Notify};
use tokio::task::JoinHandle;
use tokio::time::Instant;

use super::alloc_dir::AllocDir;
use super::alloc_health::{
    needs_client_health, needs_client_migrate_health, timings, HealthTracker, Observation,
};
use super::alloc_status::client_update;
use super::lifecycle::{Coordinator, Stage, STAGES};
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
    /// `nomad alloc restart -all-tasks`: every task runs again, dead ones included, in
    /// lifecycle order.
    RestartAll,
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
            restart_all: Arc::new({
                let cmds = self.cmds.clone();
                move || {
                    let _ = cmds.send(Command::RestartAll);
                }
            }),
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
    /// Which lifecycle stages may start; its gates are what the task runners wait on.
    coordinator: Coordinator,
    gates: BTreeMap<Stage, watch::Sender<bool>>,
    /// How far a group kill has got; `None` before one (or while the group's
    /// shutdown delay runs, see `kill_at`).
    kill_stage: Option<KillStage>,
    /// When a group kill waiting out the group's `shutdown_delay` begins killing tasks.
    kill_at: Option<Instant>,
    /// Tasks already told to die by the group kill.
    killed: BTreeSet<String>,
    /// Deployment health, when this client decides it (`alloc_health`); with the
    /// `DeploymentStatus` reported once decided.
    health: Option<HealthTracker>,
    health_status: Option<serde_json::Value>,
}

/// The order of a group kill (Nomad's `killTasks`): the leader, then every other task but
/// sidecars and poststop tasks, then the sidecars, each stage once the previous is dead.
/// Poststop tasks are not killed: they run once everything else is dead.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum KillStage {
    Leader,
    Others,
    Sidecars,
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
        let coordinator = Coordinator::new(
            p.alloc
                .task_group_def()
                .map(|tg| tg.tasks.as_slice())
                .unwrap_or_default(),
        );
        let health = client_health(&p.alloc);
        let runner = AllocRunner {
            health,
            health_status: None,
            coordinator,
            gates: BTreeMap::new(),
            kill_stage: None,
            kill_at: None,
            killed: BTreeSet::new(),
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
            .task_group_def()
            .ok_or_else(|| format!("task group {:?} not found in job", alloc.task_group))?;
        let restored = !self.p.restored.is_empty();
        for stage in STAGES {
            self.gates.insert(stage, watch::channel(false).0);
        }
        for (i, task) in group.tasks.iter().enumerate() {
            let restored = self.p.restored.remove(&task.name);
            self.spawn_task(i, task, restored);
        }
        if restored {
            self.coordinator.restore(&self.states());
        }
        Ok(())
    }

    /// Starts the runner of one task (the `index`-th of its group), re-attaching to it when
    /// it is restored.
    fn spawn_task(
        &mut self,
        index: usize,
        task: &crate::api::Task,
        restored: Option<PersistedTask>,
    ) {
        let alloc = self.p.alloc.clone();
        let start_gate = self
            .gates
            .get(&self.coordinator.stage(&task.name))
            .map(|g| g.subscribe());
        let handle = TaskRunner::spawn(TaskRunnerParams {
            alloc: alloc.clone(),
            task: task.clone(),
            node: self.p.node.clone(),
            region: self.p.region.clone(),
            alloc_dir: self.p.alloc_dir.clone(),
            driver: self.p.drivers.get(&task.driver),
            max_kill_timeout: self.p.max_kill_timeout,
            state_changed: self.state_changed.clone(),
            seed: seed_for(&alloc.id, index),
            state: self.p.state.clone(),
            restored,
            services: self.p.rpc.clone().map(|rpc| {
                Arc::new(super::task_runner::templates::RpcServiceLookup(rpc))
                    as Arc<dyn super::task_runner::templates::ServiceLookup>
            }),
            start_gate,
        });
        self.controls
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .insert(task.name.clone(), handle.control());
        self.tasks.insert(task.name.clone(), handle);
    }

    /// Nomad's `RestartAll`: the coordinator starts over, running tasks are restarted and
    /// dead ones run again, each waiting for its lifecycle stage as at the alloc's start.
    fn restart_all(&mut self) {
        if self.killing || self.p.alloc.server_terminal() {
            return;
        }
        let reason = "User requested all tasks to restart";
        let alloc = self.p.alloc.clone();
        let Some(group) = alloc.task_group_def() else {
            return;
        };
        self.coordinator.restart();
        for (i, task) in group.tasks.iter().enumerate() {
            let Some(t) = self.tasks.get(&task.name) else {
                continue;
            };
            let mut state = t.state();
            if state.state == TASK_STATE_DEAD {
                // Its runner has finished: a new one picks the task up where it left off.
                state.state = crate::api::TASK_STATE_PENDING.to_string();
                state.failed = false;
                state.finished_at = None;
                state.events.push(super::control::restart_signaled(reason));
                if state.events.len() > super::task_runner::state::MAX_EVENTS {
                    state.events.remove(0);
                }
                self.spawn_task(
                    i,
                    task,
                    Some(PersistedTask {
                        state,
                        handle: None,
                    }),
                );
            } else {
                t.note(super::control::restart_signaled(reason));
                t.restart();
            }
        }
        self.on_state_change();
    }

    /// Moves the coordinator on and opens (or closes) each stage's start gate to match.
    fn coordinate(&mut self, states: &BTreeMap<String, TaskState>) {
        self.coordinator.update(states);
        for (stage, gate) in &self.gates {
            let allow = self.coordinator.allows(*stage);
            gate.send_if_modified(|open| std::mem::replace(open, allow) != allow);
        }
    }

    fn stage(&self, task: &str) -> Stage {
        self.coordinator.stage(task)
    }

    fn states(&self) -> BTreeMap<String, TaskState> {
        self.tasks
            .iter()
            .map(|(k, t)| (k.clone(), t.state()))
            .collect()
    }

    /// Tears the group down: every live task but the poststop ones, first telling them why
    /// when a sibling, the leader or the end of the main tasks caused it; after the group's
    /// `shutdown_delay` (its services are deregistered at once), in `KillStage` order.
    fn kill_all(&mut self, reason: Option<crate::api::TaskEvent>) {
        if self.killing {
            self.advance_kill();
            return;
        }
        self.killing = true;
        for (name, t) in &self.tasks {
            if self.stage(name) != Stage::Poststop && t.state().state != TASK_STATE_DEAD {
                if let Some(e) = &reason {
                    t.note(e.clone());
                }
            }
        }
        match self.group_shutdown_delay() {
            Some(delay) => self.kill_at = Some(Instant::now() + delay),
            None => {
                self.kill_stage = Some(KillStage::Leader);
                self.advance_kill();
            }
        }
        // Deregister the services now, before any delay.
        let states = self.states();
        self.send_update(states);
    }

    /// The group's `shutdown_delay`, unless the stop asked to skip it.
    fn group_shutdown_delay(&self) -> Option<Duration> {
        let alloc = &self.p.alloc;
        let delay = alloc
            .task_group_def()
            .and_then(|tg| tg.shutdown_delay)
            .filter(|d| *d > 0)?;
        if alloc.desired_transition.no_shutdown_delay.unwrap_or(false) {
            return None;
        }
        Some(Duration::from_nanos(delay as u64))
    }

    /// Kills the current stage's live tasks; moves to the next stage once they are dead.
    fn advance_kill(&mut self) {
        let Some(mut stage) = self.kill_stage else {
            return;
        };
        loop {
            let mut live = false;
            for (name, t) in &self.tasks {
                let s = self.stage(name);
                let in_stage = match stage {
                    KillStage::Leader => t.is_leader(),
                    KillStage::Others => !t.is_leader() && !s.is_sidecar(),
                    KillStage::Sidecars => !t.is_leader() && s.is_sidecar(),
                };
                if !in_stage || s == Stage::Poststop || t.state().state == TASK_STATE_DEAD {
                    continue;
                }
                live = true;
                if self.killed.insert(name.clone()) {
                    t.kill();
                }
            }
            stage = match (live, stage) {
                (true, _) | (false, KillStage::Sidecars) => break,
                (false, KillStage::Leader) => KillStage::Others,
                (false, KillStage::Others) => KillStage::Sidecars,
            };
        }
        self.kill_stage = Some(stage);
    }

    /// Nomad's `handleTaskStateUpdates`: why the rest of the group must die, if it must.
    fn kill_reason(&self, states: &BTreeMap<String, TaskState>) -> Option<crate::api::TaskEvent> {
        let now = now_nanos();
        let mut reason = None;
        let (mut live, mut live_main) = (false, false);
        for (name, t) in &self.tasks {
            let stage = self.stage(name);
            let Some(s) = states.get(name) else { continue };
            if stage == Stage::Poststop {
                continue;
            }
            if s.state != TASK_STATE_DEAD {
                live = true;
                live_main |= !stage.is_sidecar();
            } else if s.failed {
                // A dead leader takes precedence over a failed sibling.
                reason.get_or_insert_with(|| events::sibling_failed(now, name));
            } else if t.is_leader() {
                reason = Some(events::leader_dead(now));
            }
        }
        if !live {
            return None;
        }
        let has_sidecars = self.tasks.keys().any(|n| self.stage(n).is_sidecar());
        if reason.is_none() && has_sidecars && !live_main {
            reason = Some(events::main_dead(now));
        }
        reason
    }

    fn on_state_change(&mut self) {
        let states = self.states();
        self.coordinate(&states);
        if !self.killing {
            if let Some(reason) = self.kill_reason(&states) {
                self.kill_all(Some(reason));
            }
        }
        self.advance_kill();
        self.send_update(states);
    }

    fn send_update(&mut self, states: BTreeMap<String, TaskState>) {
        let now = now_nanos();
        let mut update = client_update(&self.p.alloc.id, &self.p.node.id, states, &rfc3339(now));
        self.observe_health(&update, now);
        update.deployment_status = self.health_status.clone();
        self.sync_services(&update);
        self.sync_checks(&update);
        if self.last_sent.as_ref() == Some(&update) {
            return;
        }
        self.last_sent = Some(update.clone());
        let _ = self.p.updates.send(update);
    }

    /// Folds the alloc's latest state into its deployment health, when this client decides
    /// it; records the `DeploymentStatus` to report once there is a verdict.
    fn observe_health(&mut self, update: &Allocation, now: i64) {
        let Some(tracker) = self.health.as_mut() else {
            return;
        };
        if tracker.verdict().is_some() {
            return;
        }
        let alloc = &self.p.alloc;
        let Some(tg) = alloc.task_group_def() else {
            return;
        };
        let checks = self
            .check_results
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .clone();
        let empty = BTreeMap::new();
        let verdict = tracker.observe(&Observation {
            tg,
            client_status: &update.client_status,
            states: update.task_states.as_ref().unwrap_or(&empty),
            checks: &checks,
            timings: timings(tg, !alloc.deployment_id.is_empty()),
            since_created: alloc.create_time,
            now,
        });
        if let Some(healthy) = verdict {
            self.health_status = Some(
                crate::api::AllocDeploymentStatus {
                    canary: alloc.is_canary(),
                    healthy: Some(healthy),
                    modify_index: 0,
                    timestamp: rfc3339(now),
                }
                .to_value(),
            );
        }
    }

    /// Whether the deployment health still waits for a verdict (checked on a timer, since
    /// `min_healthy_time` passing changes nothing the runner would otherwise notice).
    fn health_pending(&self) -> bool {
        !self.killing && self.health.as_ref().is_some_and(|h| h.verdict().is_none())
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

    /// Client shutdown in dev mode: every task dies now, poststop tasks included.
    fn kill_everything(&mut self) {
        self.killing = true;
        for t in self.tasks.values() {
            if t.state().state != TASK_STATE_DEAD {
                t.kill();
            }
        }
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
        let mut health_tick = tokio::time::interval(HEALTH_TICK);
        health_tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                _ = self.state_changed.notified() => self.on_state_change(),
                _ = health_tick.tick(), if self.health_pending() => self.on_state_change(),
                _ = tokio::time::sleep_until(self.kill_at.unwrap_or_else(Instant::now)), if self.kill_at.is_some() => {
                    self.kill_at = None;
                    self.kill_stage = Some(KillStage::Leader);
                    self.advance_kill();
                }
                cmd = self.cmds.recv() => match cmd {
                    Some(Command::Update(alloc)) => {
                        for t in self.tasks.values() {
                            t.update(alloc.clone());
                        }
                        if alloc.deployment_id != self.p.alloc.deployment_id {
                            // An in-place update joined a new deployment: judge afresh.
                            self.health = client_health(&alloc);
                            self.health_status = None;
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
                    Some(Command::RestartAll) => self.restart_all(),
                    Some(Command::Shutdown { stop_tasks: true }) => {
                        self.kill_everything();
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

/// How often a pending deployment health verdict is re-checked.
const HEALTH_TICK: Duration = Duration::from_millis(250);

/// A tracker when this client decides the alloc's health: in a deployment by its `update`
/// block, otherwise (service jobs) by its `migrate` block, as Nomad's health hook.
fn client_health(alloc: &Allocation) -> Option<HealthTracker> {
    let tg = alloc.task_group_def()?;
    let decides = if alloc.deployment_id.is_empty() {
        alloc
            .job
            .as_deref()
            .is_some_and(|j| j.r#type == crate::api::JOB_TYPE_SERVICE)
            && needs_client_migrate_health(tg)
    } else {
        needs_client_health(tg)
    };
    decides.then(HealthTracker::default)
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
