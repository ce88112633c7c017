//! The task lifecycle as a pure state machine: `(phase, event, now) -> (phase, actions)`.
//! The async shell in `mod.rs` performs the actions and feeds results back as events.
//!
//! ```text
//!             Begin                  Started
//!  Pending ----------> Starting ----------------> Running
//!     |                 |    ^                      |  |
//!     |     StartFailed |    | RestartDue     Exited|  | Kill (Killing event,
//!     |   (Driver Fail.)|    |                      |  |  StopDriver)
//!     |                 v    |                      |  v
//!     |  Kill        restart policy <---------------+ Killing
//!     |              /      |      \                      |
//!     |      Restart/  NotRestarting\Terminated      Exited (Terminated,
//!     |            v        |        v                Killed)
//!     |      RestartWait    +-----> Dead <---------------+
//!     |           |  Kill            ^
//!     +-----------+------------------+
//! ```
//!
//! Every transition appends Nomad's task events to the `TaskState` and moves its
//! `State` between pending/running/dead, with `StartedAt`/`FinishedAt`/`Restarts`/`Failed`
//! kept as Nomad's task runner keeps them.

use std::time::Duration;

use super::events;
use super::restarts::{Decision, Outcome, RestartTracker};
use crate::api::{TaskEvent, TaskState, TASK_STATE_DEAD, TASK_STATE_PENDING, TASK_STATE_RUNNING};
use crate::drivers::ExitResult;

/// Task events kept per task (Nomad's `defaultMaxEvents`).
pub const MAX_EVENTS: usize = 10;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    Pending,
    Starting,
    Running,
    Killing,
    RestartWait,
    /// A user asked for a restart: the task is being stopped and starts again at once,
    /// without counting against the restart policy.
    Restarting,
    Dead,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Event {
    /// The runner is ready to set up and start the task for the first time.
    Begin,
    SetupFailed(String),
    Started,
    StartFailed {
        error: String,
        recoverable: bool,
    },
    Exited(ExitResult),
    /// A prestart hook (artifacts, templates) failed: record its event, then restart or fail
    /// by the policy.
    HookFailed {
        event: Box<TaskEvent>,
        recoverable: bool,
    },
    RestartDue,
    /// Stop the task: `kill_timeout` is already capped by the client's max; a running task
    /// waits out its `shutdown_delay` first (after its services are deregistered).
    Kill {
        signal: String,
        kill_timeout: Duration,
        delay: ShutdownDelay,
    },
    /// Record an event without a transition (e.g. "Sibling Task Failed").
    Note(Box<TaskEvent>),
    /// `nomad alloc restart`: stop the running task, then start it again immediately.
    Restart {
        signal: String,
        kill_timeout: Duration,
    },
    /// A Kill whose Killing event says why (e.g. "Template failed: ..."), as Nomad's
    /// `Lifecycle.Kill(event)` does.
    KillWith {
        event: Box<TaskEvent>,
        signal: String,
        kill_timeout: Duration,
        delay: ShutdownDelay,
    },
    /// A prestart hook killed the task before it started (template failure, or a kill
    /// while the hook waited): record its event, then Killed, and stay dead.
    HookKilled(Box<TaskEvent>),
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Action {
    /// Build the task dir and environment (`first` only: emit nothing more), then start.
    Start {
        first: bool,
    },
    /// Stop the task through the driver, `after` the shutdown delay.
    StopDriver {
        signal: String,
        timeout: Duration,
        after: Duration,
    },
    ScheduleRestart(Duration),
    /// The task is dead for good; the shell releases the driver handle and exits.
    Finish,
}

/// The task's `shutdown_delay` as it applies to one kill.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub enum ShutdownDelay {
    #[default]
    None,
    Wait(Duration),
    /// The stop asked to skip the delay (`-no-shutdown-delay`).
    Skip(Duration),
}

#[derive(Debug, Clone)]
pub struct TaskMachine {
    pub phase: Phase,
    pub state: TaskState,
    pub tracker: RestartTracker,
    /// A kill that arrived while a start was in flight; applied once it resolves.
    kill_pending: Option<(String, Duration, ShutdownDelay)>,
    /// The Killing event a `KillWith` asked for, used instead of the plain one.
    kill_event: Option<TaskEvent>,
}

pub fn rfc3339(nanos: i64) -> String {
    let secs = nanos.div_euclid(1_000_000_000);
    let sub = nanos.rem_euclid(1_000_000_000) as u32;
    match chrono::DateTime::from_timestamp(secs, sub) {
        Some(t) => {
            let base = t.format("%Y-%m-%dT%H:%M:%S").to_string();
            if sub == 0 {
                format!("{base}Z")
            } else {
                let frac = format!("{sub:09}");
                format!("{base}.{}Z", frac.trim_end_matches('0'))
            }
        }
        None => "0001-01-01T00:00:00Z".to_string(),
    }
}

impl TaskMachine {
    /// A new task: pending, with the "Received" event.
    pub fn new(tracker: RestartTracker, now: i64) -> Self {
        let mut m = TaskMachine {
            phase: Phase::Pending,
            state: TaskState {
                state: TASK_STATE_PENDING.to_string(),
                ..Default::default()
            },
            tracker,
            kill_pending: None,
            kill_event: None,
        };
        m.append(events::received(now));
        m
    }

    /// A task restored from the client state after an agent restart: its state as last
    /// persisted, in the phase that state implies. A task that was waiting to restart
    /// resumes in `RestartWait`; one never started begins from `Pending`.
    pub fn restore(tracker: RestartTracker, state: TaskState) -> Self {
        let phase = match state.state.as_str() {
            TASK_STATE_DEAD => Phase::Dead,
            TASK_STATE_RUNNING => Phase::Running,
            _ if state
                .events
                .last()
                .is_some_and(|e| e.r#type == crate::api::TASK_RESTARTING) =>
            {
                Phase::RestartWait
            }
            _ => Phase::Pending,
        };
        TaskMachine {
            phase,
            state,
            tracker,
            kill_pending: None,
            kill_event: None,
        }
    }

    pub fn is_dead(&self) -> bool {
        self.phase == Phase::Dead
    }

    fn append(&mut self, e: TaskEvent) {
        if e.fails_task {
            self.state.failed = true;
        }
        if e.r#type == crate::api::TASK_RESTARTING {
            self.state.restarts += 1;
            self.state.last_restart = Some(rfc3339(e.time));
        }
        if self.state.events.len() >= MAX_EVENTS {
            self.state.events.remove(0);
        }
        self.state.events.push(e);
    }

    fn set_state(&mut self, state: &str, now: i64) {
        match state {
            TASK_STATE_RUNNING if self.state.state != TASK_STATE_RUNNING => {
                self.state.started_at = Some(rfc3339(now));
            }
            TASK_STATE_DEAD if self.state.finished_at.is_none() => {
                self.state.finished_at = Some(rfc3339(now));
            }
            _ => {}
        }
        self.state.state = state.to_string();
    }

    fn die(&mut self, now: i64) -> Vec<Action> {
        self.phase = Phase::Dead;
        self.set_state(TASK_STATE_DEAD, now);
        vec![Action::Finish]
    }

    fn apply(&mut self, d: Decision, now: i64) -> Vec<Action> {
        match d {
            Decision::Killed => {
                self.append(events::killed(now));
                self.die(now)
            }
            Decision::Restart {
                delay_nanos,
                reason,
            } => {
                self.append(events::restarting(now, delay_nanos, &reason));
                self.set_state(TASK_STATE_PENDING, now);
                self.phase = Phase::RestartWait;
                vec![Action::ScheduleRestart(Duration::from_nanos(
                    delay_nanos.max(0) as u64,
                ))]
            }
            Decision::NotRestarting { reason } => {
                self.append(events::not_restarting(now, &reason));
                self.die(now)
            }
            Decision::Terminated { .. } => self.die(now),
        }
    }

    fn killing_event(&mut self, timeout: Duration, now: i64) -> TaskEvent {
        self.kill_event
            .take()
            .unwrap_or_else(|| events::killing(now, timeout.as_nanos() as i64))
    }

    fn begin_kill(
        &mut self,
        signal: String,
        timeout: Duration,
        delay: ShutdownDelay,
        now: i64,
    ) -> Vec<Action> {
        let e = self.killing_event(timeout, now);
        self.append(e);
        self.phase = Phase::Killing;
        let after = match delay {
            ShutdownDelay::None => Duration::ZERO,
            ShutdownDelay::Wait(d) => {
                self.append(events::waiting_shutdown_delay(now, d));
                d
            }
            ShutdownDelay::Skip(d) => {
                self.append(events::skipping_shutdown_delay(now, d));
                Duration::ZERO
            }
        };
        vec![Action::StopDriver {
            signal,
            timeout,
            after,
        }]
    }

    /// The transition function. Events that make no sense in a phase are ignored (no
    /// actions), e.g. a second Kill while killing.
    pub fn next(&mut self, event: Event, now: i64) -> Vec<Action> {
        use Phase::*;
        match (self.phase, event) {
            (Dead | Killing, Event::KillWith { .. }) => Vec::new(),
            (
                _,
                Event::KillWith {
                    event,
                    signal,
                    kill_timeout,
                    delay,
                },
            ) => {
                self.kill_event = Some(*event);
                self.next(
                    Event::Kill {
                        signal,
                        kill_timeout,
                        delay,
                    },
                    now,
                )
            }
            (Starting, Event::HookKilled(e)) => {
                self.append(*e);
                self.kill_pending = None;
                self.kill_event = None;
                self.append(events::killed(now));
                self.die(now)
            }
            (_, Event::Note(e)) => {
                self.append(*e);
                Vec::new()
            }
            (Pending, Event::Begin) => {
                self.append(events::setup_building_dir(now));
                self.phase = Starting;
                vec![Action::Start { first: true }]
            }
            (Pending | RestartWait, Event::Kill { kill_timeout, .. }) => {
                let e = self.killing_event(kill_timeout, now);
                self.append(e);
                self.die(now)
            }
            (
                Starting,
                Event::Kill {
                    signal,
                    kill_timeout,
                    delay,
                },
            ) => {
                self.kill_pending = Some((signal, kill_timeout, delay));
                Vec::new()
            }
            (Starting, Event::SetupFailed(err)) => {
                self.append(events::setup_failure(now, &err));
                let d = self
                    .tracker
                    .decide(&Outcome::StartError { recoverable: false }, now);
                self.apply(d, now)
            }
            (Starting, Event::HookFailed { event, recoverable }) => {
                self.append(*event);
                if self.kill_pending.take().is_some() {
                    return self.die(now);
                }
                let d = self
                    .tracker
                    .decide(&Outcome::StartError { recoverable }, now);
                self.apply(d, now)
            }
            (Starting, Event::Started) => {
                self.append(events::started(now));
                self.set_state(TASK_STATE_RUNNING, now);
                self.phase = Running;
                match self.kill_pending.take() {
                    Some((signal, timeout, delay)) => self.begin_kill(signal, timeout, delay, now),
                    None => Vec::new(),
                }
            }
            (Starting, Event::StartFailed { error, recoverable }) => {
                self.append(events::driver_failure(now, &error));
                if self.kill_pending.take().is_some() {
                    return self.die(now);
                }
                let d = self
                    .tracker
                    .decide(&Outcome::StartError { recoverable }, now);
                self.apply(d, now)
            }
            (Running, Event::Exited(r)) => {
                self.append(events::terminated(now, &r));
                let d = self.tracker.decide(&Outcome::Exited(r), now);
                self.apply(d, now)
            }
            (
                Running,
                Event::Kill {
                    signal,
                    kill_timeout,
                    delay,
                },
            ) => self.begin_kill(signal, kill_timeout, delay, now),
            (Killing, Event::Exited(r)) => {
                self.append(events::terminated(now, &r));
                let d = self.tracker.decide(&Outcome::Killed, now);
                self.apply(d, now)
            }
            (
                Running,
                Event::Restart {
                    signal,
                    kill_timeout,
                },
            ) => {
                self.phase = Restarting;
                vec![Action::StopDriver {
                    signal,
                    timeout: kill_timeout,
                    after: Duration::ZERO,
                }]
            }
            (Restarting, Event::Exited(r)) => {
                self.append(events::terminated(now, &r));
                let d = Decision::Restart {
                    delay_nanos: 0,
                    reason: String::new(),
                };
                self.apply(d, now)
            }
            // Already being stopped: no second shutdown delay.
            (
                Restarting,
                Event::Kill {
                    signal,
                    kill_timeout,
                    ..
                },
            ) => self.begin_kill(signal, kill_timeout, ShutdownDelay::None, now),
            (RestartWait, Event::RestartDue) => {
                self.phase = Starting;
                vec![Action::Start { first: false }]
            }
            (Dead, _)
            | (Killing, _)
            | (Pending, _)
            | (
                Starting,
                Event::Begin | Event::Exited(_) | Event::RestartDue | Event::Restart { .. },
            )
            | (Running, _)
            | (RestartWait, _)
            | (Restarting, _) => Vec::new(),
        }
    }
}

#[cfg(test)]
#[path = "state_tests.rs"]
mod tests;
