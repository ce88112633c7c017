//! The task runner: drives one task through its lifecycle. The decisions live in the pure
//! `state::TaskMachine`; this shell performs its actions (build the task dir and env, call
//! the driver, wait, stop, schedule restarts) and publishes the resulting `TaskState`.
//!
//! Owned by its alloc runner, which talks to it over a command channel and watches its
//! state; the runner's tokio task is joined by the alloc runner.

mod artifacts;
mod client_path;
pub mod events;
mod hooks;
pub mod restarts;
mod start;
pub mod state;
pub mod templates;
mod volumes;

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use futures::future::BoxFuture;
use futures::FutureExt;
use tokio::sync::{mpsc, watch, Notify};
use tokio::task::JoinHandle;
use tokio::time::Instant;

use super::alloc_dir::AllocDir;
use super::state::{PersistedTask, StateDb};
use crate::api::{
    now_nanos, Allocation, Node, RestartPolicy, Task, TaskEvent, TaskState, HOUR, MINUTE,
    RESTART_MODE_FAIL, SECOND,
};
use crate::drivers::{Driver, DriverError, DriverTaskEvent, ExitResult, TaskEventSink, TaskHandle};
use restarts::RestartTracker;
use state::{Action, Event, Phase, ShutdownDelay, TaskMachine};

/// Nomad's default `kill_timeout`.
pub const DEFAULT_KILL_TIMEOUT: Duration = Duration::from_secs(5);

/// Nomad's default restart policies, for jobs that reach the client without one.
pub fn default_restart_policy(batch: bool) -> RestartPolicy {
    if batch {
        RestartPolicy {
            attempts: 3,
            delay: 15 * SECOND,
            interval: 24 * HOUR,
            mode: RESTART_MODE_FAIL.to_string(),
            render_templates: false,
        }
    } else {
        RestartPolicy {
            attempts: 2,
            delay: 15 * SECOND,
            interval: 30 * MINUTE,
            mode: RESTART_MODE_FAIL.to_string(),
            render_templates: false,
        }
    }
}

/// The task's policy, else its group's, else Nomad's default for the job type.
pub fn restart_policy_for(alloc: &Allocation, task: &Task) -> RestartPolicy {
    let job = alloc.job.as_deref();
    task.restart_policy
        .clone()
        .or_else(|| {
            job.and_then(|j| j.lookup_task_group(&alloc.task_group))
                .and_then(|tg| tg.restart_policy.clone())
        })
        .unwrap_or_else(|| default_restart_policy(job.is_some_and(|j| j.is_batch())))
}

pub struct TaskRunnerParams {
    pub alloc: Arc<Allocation>,
    pub task: Task,
    pub node: Arc<Node>,
    pub region: String,
    pub alloc_dir: AllocDir,
    /// None when the node has no such driver: the first start fails with a driver failure.
    pub driver: Option<Arc<dyn Driver>>,
    pub max_kill_timeout: Duration,
    /// Poked after every published state change; the alloc runner listens.
    pub state_changed: Arc<Notify>,
    pub seed: u64,
    /// Where every state change is persisted (`None`: nowhere, as in dev mode).
    pub state: Option<Arc<StateDb>>,
    /// The task as an earlier agent process left it: re-attach instead of starting.
    pub restored: Option<PersistedTask>,
    /// Where `nomadService` template lookups go (`None`: no server, e.g. unit tests).
    pub services: Option<Arc<dyn templates::ServiceLookup>>,
    /// Opens when the task's lifecycle stage may start (the alloc runner's coordinator);
    /// `None` starts at once.
    pub start_gate: Option<watch::Receiver<bool>>,
}

#[derive(Debug)]
enum Command {
    Kill,
    Note(Box<TaskEvent>),
    Update(Arc<Allocation>),
    /// Client shutdown: leave the task running and exit.
    Detach,
    /// User-requested restart (`nomad alloc restart`), or a template's change_mode.
    Restart,
    /// Kill with this Killing event (a template failure).
    KillWith(Box<TaskEvent>),
}

/// The alloc runner's side of a task runner.
pub struct TaskRunnerHandle {
    pub name: String,
    cmds: mpsc::UnboundedSender<Command>,
    state: watch::Receiver<TaskState>,
    join: JoinHandle<()>,
    leader: bool,
    driver: Option<Arc<dyn Driver>>,
    current: SharedHandle,
}

/// The task's live driver handle, shared with the client's exec/stats/signal endpoints.
pub type SharedHandle = Arc<std::sync::Mutex<Option<TaskHandle>>>;

impl TaskRunnerHandle {
    pub fn state(&self) -> TaskState {
        self.state.borrow().clone()
    }

    pub fn is_leader(&self) -> bool {
        self.leader
    }

    /// Stop the task (kill_signal, then SIGKILL after kill_timeout). No-op once dead.
    pub fn kill(&self) {
        let _ = self.cmds.send(Command::Kill);
    }

    pub fn note(&self, event: TaskEvent) {
        let _ = self.cmds.send(Command::Note(Box::new(event)));
    }

    pub fn update(&self, alloc: Arc<Allocation>) {
        let _ = self.cmds.send(Command::Update(alloc));
    }

    pub fn detach(&self) {
        let _ = self.cmds.send(Command::Detach);
    }

    /// A user restart (no-op unless the task runs).
    pub fn restart(&self) {
        let _ = self.cmds.send(Command::Restart);
    }

    /// What the client's interactive endpoints need of this task.
    pub fn control(&self) -> super::control::TaskControl {
        let cmds = self.cmds.clone();
        super::control::TaskControl {
            name: self.name.clone(),
            state: self.state.clone(),
            driver: self.driver.clone(),
            handle: self.current.clone(),
            note: Arc::new({
                let cmds = cmds.clone();
                move |e| {
                    let _ = cmds.send(Command::Note(Box::new(e)));
                }
            }),
            restart: Arc::new(move || {
                let _ = cmds.send(Command::Restart);
            }),
        }
    }

    pub fn is_finished(&self) -> bool {
        self.join.is_finished()
    }

    /// Waits for the runner's task to end and returns the last state it published.
    pub async fn join(self) -> TaskState {
        let _ = self.join.await;
        let state = self.state.borrow().clone();
        state
    }
}

pub struct TaskRunner {
    p: TaskRunnerParams,
    machine: TaskMachine,
    state_tx: watch::Sender<TaskState>,
    cmds: mpsc::UnboundedReceiver<Command>,
    handle: Option<TaskHandle>,
    /// Artifacts are fetched once; restarts reuse them (as Nomad's hook state does).
    artifacts_done: bool,
    current: SharedHandle,
    /// The runner's own command channel, for the template watcher (weak: the channel
    /// still closes when the handle goes away).
    self_tx: mpsc::WeakUnboundedSender<Command>,
    /// Templates are rendered once; restarts reuse them and the watcher.
    templates_done: bool,
    /// Variables of `env = true` templates, merged into every start's environment.
    template_env: Arc<std::sync::Mutex<std::collections::BTreeMap<String, String>>>,
    template_watcher: Option<(tokio_util::sync::CancellationToken, JoinHandle<()>)>,
    /// Every start and recover hands the driver this sink; what the driver emits arrives
    /// at the receiver and is recorded as "Driver" task events.
    driver_events: (TaskEventSink, mpsc::UnboundedReceiver<DriverTaskEvent>),
}

type WaitFuture = BoxFuture<'static, Result<ExitResult, DriverError>>;

impl TaskRunner {
    pub fn spawn(p: TaskRunnerParams) -> TaskRunnerHandle {
        let policy = restart_policy_for(&p.alloc, &p.task);
        let batch = p.alloc.job.as_deref().is_some_and(|j| j.is_batch());
        let on_success = crate::client::lifecycle::Stage::of(&p.task).restarts_on_success(batch);
        let now = now_nanos();
        let tracker = RestartTracker::new(policy, !on_success, now, p.seed);
        let machine = match &p.restored {
            Some(r) => TaskMachine::restore(tracker, r.state.clone()),
            None => TaskMachine::new(tracker, now),
        };
        let (state_tx, state_rx) = watch::channel(machine.state.clone());
        let (cmd_tx, cmd_rx) = mpsc::unbounded_channel();
        let name = p.task.name.clone();
        let leader = p.task.leader;
        let driver = p.driver.clone();
        let current = SharedHandle::default();
        let runner = TaskRunner {
            p,
            machine,
            state_tx,
            cmds: cmd_rx,
            handle: None,
            artifacts_done: false,
            current: current.clone(),
            self_tx: cmd_tx.downgrade(),
            templates_done: false,
            template_env: Arc::default(),
            template_watcher: None,
            driver_events: TaskEventSink::channel(),
        };
        TaskRunnerHandle {
            name,
            cmds: cmd_tx,
            state: state_rx,
            join: tokio::spawn(runner.run()),
            leader,
            driver,
            current,
        }
    }

    fn publish(&self) {
        if let Some(db) = &self.p.state {
            let persisted = PersistedTask {
                state: self.machine.state.clone(),
                handle: self.handle.clone(),
            };
            if let Err(e) = db.put_task(&self.p.alloc.id, &self.p.task.name, &persisted) {
                tracing::warn!(task = %self.p.task.name, error = %e, "failed to persist task state");
            }
        }
        self.state_tx.send_replace(self.machine.state.clone());
        self.p.state_changed.notify_one();
    }

    fn step(&mut self, event: Event, queue: &mut VecDeque<Action>) {
        queue.extend(self.machine.next(event, now_nanos()));
        self.publish();
    }

    fn kill_timeout(&self) -> Duration {
        let t = self
            .p
            .task
            .kill_timeout
            .filter(|t| *t > 0)
            .map(|t| Duration::from_nanos(t as u64))
            .unwrap_or(DEFAULT_KILL_TIMEOUT);
        t.min(self.p.max_kill_timeout)
    }

    /// The task's `shutdown_delay` for this kill, skipped when the stop asked so.
    fn shutdown_delay(&self) -> ShutdownDelay {
        let d = self.p.task.shutdown_delay;
        if d <= 0 {
            return ShutdownDelay::None;
        }
        let d = Duration::from_nanos(d as u64);
        let skip = self
            .p
            .alloc
            .desired_transition
            .no_shutdown_delay
            .unwrap_or(false);
        if skip {
            ShutdownDelay::Skip(d)
        } else {
            ShutdownDelay::Wait(d)
        }
    }

    async fn stop_driver(&self, signal: &str, timeout: Duration) {
        if let (Some(h), Some(d)) = (&self.handle, &self.p.driver) {
            if let Err(e) = d.stop(h, signal, timeout).await {
                // Force it down so the pending wait resolves and the runner can finish.
                tracing::warn!(task = %self.p.task.name, error = %e, "stopping task failed; destroying it");
                if let Err(e) = d.destroy(h, true).await {
                    tracing::warn!(task = %self.p.task.name, error = %e, "destroying task failed");
                }
            }
        }
    }

    fn set_handle(&mut self, handle: Option<TaskHandle>) {
        *self.current.lock().unwrap_or_else(|e| e.into_inner()) = handle.clone();
        self.handle = handle;
    }

    async fn release_handle(&mut self) {
        let taken = self.handle.take();
        self.set_handle(None);
        if let (Some(h), Some(d)) = (taken, self.p.driver.as_ref()) {
            if let Err(e) = d.destroy(&h, true).await {
                tracing::warn!(task = %self.p.task.name, error = %e, "destroying task failed");
            }
        }
    }

    async fn run(mut self) {
        let mut queue = VecDeque::new();
        let mut wait: Option<WaitFuture> = None;
        let mut restart_at: Option<Instant> = None;
        // A stop that waits out the shutdown delay: when, and with what.
        let mut stop_at: Option<(Instant, String, Duration)> = None;
        let gate = self.p.start_gate.take();
        if let Some(r) = self.p.restored.take() {
            wait = self.restore(r, &mut queue).await;
        }
        loop {
            while let Some(action) = queue.pop_front() {
                match action {
                    Action::Start { .. } => {
                        let (event, w) = self.start().await;
                        wait = w;
                        self.step(event, &mut queue);
                    }
                    Action::StopDriver {
                        signal,
                        timeout,
                        after,
                    } => {
                        if after.is_zero() {
                            self.stop_driver(&signal, timeout).await;
                        } else {
                            stop_at = Some((Instant::now() + after, signal, timeout));
                        }
                    }
                    Action::ScheduleRestart(delay) => restart_at = Some(Instant::now() + delay),
                    Action::Finish => {
                        self.stop_template_watcher().await;
                        self.release_handle().await;
                        self.publish();
                        return;
                    }
                }
            }
            tokio::select! {
                cmd = self.cmds.recv() => match cmd {
                    Some(Command::Kill) => {
                        let ev = Event::Kill {
                            signal: self.p.task.kill_signal.clone(),
                            kill_timeout: self.kill_timeout(),
                            delay: self.shutdown_delay(),
                        };
                        self.step(ev, &mut queue);
                    }
                    Some(Command::Note(e)) => self.step(Event::Note(e), &mut queue),
                    Some(Command::Restart) => {
                        let ev = Event::Restart {
                            signal: self.p.task.kill_signal.clone(),
                            kill_timeout: self.kill_timeout(),
                        };
                        self.step(ev, &mut queue);
                    }
                    Some(Command::KillWith(event)) => {
                        let ev = Event::KillWith {
                            event,
                            signal: self.p.task.kill_signal.clone(),
                            kill_timeout: self.kill_timeout(),
                            delay: self.shutdown_delay(),
                        };
                        self.step(ev, &mut queue);
                    }
                    Some(Command::Update(alloc)) => self.update(alloc),
                    Some(Command::Detach) | None => {
                        self.stop_template_watcher().await;
                        return;
                    }
                },
                Some(ev) = self.driver_events.1.recv() => self.record_driver_event(&ev),
                res = async {
                    match wait.as_mut() {
                        Some(w) => w.await,
                        None => std::future::pending().await,
                    }
                } => {
                    wait = None;
                    stop_at = None;
                    let result = res.unwrap_or_else(|e| ExitResult {
                        exit_code: 0,
                        err: Some(e.to_string()),
                        ..Default::default()
                    });
                    self.release_handle().await;
                    self.step(Event::Exited(result), &mut queue);
                }
                // A restart also waits for its lifecycle stage (after `alloc restart
                // -all-tasks` the prestart tasks run again first).
                _ = async {
                    tokio::time::sleep_until(restart_at.unwrap_or_else(Instant::now)).await;
                    gate_open(gate.clone()).await
                }, if restart_at.is_some() => {
                    restart_at = None;
                    self.step(Event::RestartDue, &mut queue);
                }
                _ = tokio::time::sleep_until(stop_at.as_ref().map_or_else(Instant::now, |s| s.0)), if stop_at.is_some() => {
                    if let Some((_, signal, timeout)) = stop_at.take() {
                        self.stop_driver(&signal, timeout).await;
                    }
                }
                open = gate_open(gate.clone()), if self.machine.phase == Phase::Pending => {
                    if open {
                        self.step(Event::Begin, &mut queue);
                    }
                }
            }
        }
    }

    /// Picks up a task an earlier agent process left: re-attach to a running one (no new
    /// events: its state is unchanged), report one that exited meanwhile through the usual
    /// exit path (its real exit status, then the restart policy), resume a pending restart.
    async fn restore(
        &mut self,
        r: PersistedTask,
        queue: &mut VecDeque<Action>,
    ) -> Option<WaitFuture> {
        match self.machine.phase {
            Phase::Dead => queue.push_back(Action::Finish),
            Phase::RestartWait => queue.push_back(Action::ScheduleRestart(Duration::ZERO)),
            // Never started: it waits for its lifecycle gate like a new task.
            Phase::Pending => {}
            Phase::Running | Phase::Starting | Phase::Killing | Phase::Restarting => {
                let handle = r.handle.map(|mut h| {
                    h.config.events = self.driver_events.0.clone();
                    h
                });
                let recovered = match (handle, self.p.driver.clone()) {
                    (Some(h), Some(d)) => d
                        .recover(&h)
                        .await
                        .map(|_| (h, d))
                        .map_err(|e| e.to_string()),
                    (None, _) => {
                        Err("no driver handle was recorded for the running task".to_string())
                    }
                    (Some(_), None) => {
                        Err(format!("driver {:?} is not available", self.p.task.driver))
                    }
                };
                match recovered {
                    Ok((h, d)) => {
                        tracing::info!(alloc_id = %self.p.alloc.id, task = %self.p.task.name, "re-attached to task");
                        let wait_on = h.clone();
                        self.set_handle(Some(h));
                        self.publish();
                        return Some(async move { d.wait(&wait_on).await }.boxed());
                    }
                    Err(e) => {
                        tracing::warn!(task = %self.p.task.name, error = %e, "failed to recover task");
                        let result = ExitResult {
                            exit_code: 0,
                            err: Some(format!("failed to recover task: {e}")),
                            ..Default::default()
                        };
                        self.step(Event::Exited(result), queue);
                    }
                }
            }
        }
        None
    }

    /// An in-place update (new job version, same task): later starts use the new task
    /// definition and restart policy; the running process is left alone, as Nomad does.
    fn update(&mut self, alloc: Arc<Allocation>) {
        let task = alloc
            .task_group_def()
            .and_then(|tg| tg.tasks.iter().find(|t| t.name == self.p.task.name))
            .cloned();
        if let Some(task) = task {
            self.machine
                .tracker
                .set_policy(restart_policy_for(&alloc, &task));
            self.p.task = task;
        }
        self.p.alloc = alloc;
    }
}

#[cfg(test)]
mod runner_tests;

/// Resolves once the task's lifecycle stage may start (at once without a gate). A gate
/// whose alloc runner is gone never opens: the runner is being torn down and the kill or
/// detach that follows ends the task.
async fn gate_open(gate: Option<watch::Receiver<bool>>) -> bool {
    match gate {
        None => true,
        Some(mut g) => {
            let opened = g.wait_for(|open| *open).await.is_ok();
            if !opened {
                std::future::pending::<()>().await;
            }
            true
        }
    }
}
