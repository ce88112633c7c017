//! Task lifecycle coordination within one alloc (Nomad's task coordinator): which tasks may
//! start now, given every task's state. Pure: the alloc runner feeds it task states and opens
//! the start gate of each stage it allows; the task runners wait on their gate before their
//! first start.
//!
//! ```text
//!  Init ──> Prestart ──> Main ──> Poststart ──> WaitAlloc ──> Poststop
//!   (all      (ephemeral   (main    (ephemeral    (sidecars,     (poststop only;
//!  pending)    prestarts    tasks    poststarts     main)          reached from any
//!              succeeded,   no       dead)                         state once every
//!              sidecars     longer                                 other task is dead)
//!              running)     pending)
//! ```
//!
//! Each state allows these stages to start (a stage, once started, is never stopped by the
//! coordinator; killing is the alloc runner's business):
//!
//! | state     | prestart | prestart sidecar | main | poststart | poststart sidecar | poststop |
//! |-----------|----------|------------------|------|-----------|-------------------|----------|
//! | Init      |          |                  |      |           |                   |          |
//! | Prestart  | yes      | yes              |      |           |                   |          |
//! | Main      |          | yes              | yes  |           |                   |          |
//! | Poststart |          | yes              | yes  | yes       | yes               |          |
//! | WaitAlloc |          | yes              | yes  |           | yes               |          |
//! | Poststop  |          |                  |      |           |                   | yes      |

use std::collections::BTreeMap;

use crate::api::{Task, TaskLifecycle, TaskState, TASK_STATE_DEAD, TASK_STATE_PENDING};

pub const HOOK_PRESTART: &str = "prestart";
pub const HOOK_POSTSTART: &str = "poststart";
pub const HOOK_POSTSTOP: &str = "poststop";

/// When a task runs relative to the others: its lifecycle hook and whether it is a sidecar.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Stage {
    PrestartEphemeral,
    PrestartSidecar,
    Main,
    PoststartEphemeral,
    PoststartSidecar,
    Poststop,
}

pub const STAGES: [Stage; 6] = [
    Stage::PrestartEphemeral,
    Stage::PrestartSidecar,
    Stage::Main,
    Stage::PoststartEphemeral,
    Stage::PoststartSidecar,
    Stage::Poststop,
];

/// The task's `lifecycle` block, when it has one with a hook.
pub fn task_lifecycle(task: &Task) -> Option<TaskLifecycle> {
    let l: TaskLifecycle = serde_json::from_value(task.lifecycle.clone()?).ok()?;
    (!l.hook.is_empty()).then_some(l)
}

impl Stage {
    pub fn of(task: &Task) -> Stage {
        match task_lifecycle(task) {
            None => Stage::Main,
            Some(l) => match (l.hook.as_str(), l.sidecar) {
                (HOOK_PRESTART, false) => Stage::PrestartEphemeral,
                (HOOK_PRESTART, true) => Stage::PrestartSidecar,
                (HOOK_POSTSTART, false) => Stage::PoststartEphemeral,
                (HOOK_POSTSTART, true) => Stage::PoststartSidecar,
                (HOOK_POSTSTOP, _) => Stage::Poststop,
                // Validation rejects other hooks; a task with one runs as a main task.
                _ => Stage::Main,
            },
        }
    }

    /// A sidecar is killed after the other tasks, and on its own does not keep the alloc
    /// alive: once only sidecars are left, the alloc runner kills them.
    pub fn is_sidecar(self) -> bool {
        matches!(self, Stage::PrestartSidecar | Stage::PoststartSidecar)
    }

    /// Whether a successful exit is restarted (Nomad's restart tracker): a main task of a
    /// service or system job and sidecars are; batch work, ephemeral hooks and poststop
    /// tasks run to completion once.
    pub fn restarts_on_success(self, batch_job: bool) -> bool {
        match self {
            Stage::Main => !batch_job,
            Stage::PrestartSidecar | Stage::PoststartSidecar => true,
            Stage::PrestartEphemeral | Stage::PoststartEphemeral | Stage::Poststop => false,
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    Init,
    Prestart,
    Main,
    Poststart,
    WaitAlloc,
    Poststop,
}

impl Phase {
    fn allows(self, stage: Stage) -> bool {
        use Stage::*;
        match self {
            Phase::Init => false,
            Phase::Prestart => matches!(stage, PrestartEphemeral | PrestartSidecar),
            Phase::Main => matches!(stage, PrestartSidecar | Main),
            Phase::Poststart => !matches!(stage, PrestartEphemeral | Poststop),
            Phase::WaitAlloc => matches!(stage, PrestartSidecar | Main | PoststartSidecar),
            Phase::Poststop => stage == Poststop,
        }
    }
}

#[derive(Debug, Clone)]
pub struct Coordinator {
    stages: BTreeMap<String, Stage>,
    phase: Phase,
}

impl Coordinator {
    pub fn new(tasks: &[Task]) -> Self {
        Coordinator {
            stages: tasks
                .iter()
                .map(|t| (t.name.clone(), Stage::of(t)))
                .collect(),
            phase: Phase::Init,
        }
    }

    /// For an alloc restored after an agent restart: its tasks were likely past `Init`
    /// already (not all pending), so start from `Prestart` and let the states move it on.
    pub fn restore(&mut self, states: &BTreeMap<String, TaskState>) {
        self.phase = Phase::Prestart;
        self.update(states);
    }

    /// For `alloc restart -all-tasks`: every task runs again, so every stage waits until
    /// all tasks are pending again (Nomad's `Coordinator.Restart`).
    pub fn restart(&mut self) {
        self.phase = Phase::Init;
    }

    pub fn phase(&self) -> Phase {
        self.phase
    }

    pub fn stage(&self, task: &str) -> Stage {
        self.stages.get(task).copied().unwrap_or(Stage::Main)
    }

    /// Whether tasks of this stage may start now.
    pub fn allows(&self, stage: Stage) -> bool {
        self.phase.allows(stage)
    }

    /// Moves through as many phases as the task states allow.
    pub fn update(&mut self, states: &BTreeMap<String, TaskState>) {
        loop {
            let next = self.next_phase(states);
            if next == self.phase {
                return;
            }
            self.phase = next;
        }
    }

    fn tasks(&self, stage: Stage) -> impl Iterator<Item = &str> {
        self.stages
            .iter()
            .filter(move |(_, s)| **s == stage)
            .map(|(n, _)| n.as_str())
    }

    fn has(&self, stages: &[Stage]) -> bool {
        self.stages.values().any(|s| stages.contains(s))
    }

    fn next_phase(&self, states: &BTreeMap<String, TaskState>) -> Phase {
        let state = |t: &str| states.get(t).map(|s| s.state.as_str()).unwrap_or_default();
        let all = |stage: Stage, ok: &dyn Fn(&str) -> bool| self.tasks(stage).all(ok);
        // Reachable from anywhere: every task but the poststop ones is dead.
        let alloc_done = self
            .stages
            .iter()
            .filter(|(_, s)| **s != Stage::Poststop)
            .all(|(n, _)| state(n) == TASK_STATE_DEAD);
        if alloc_done {
            return Phase::Poststop;
        }
        match self.phase {
            Phase::Init => {
                if states.values().all(|s| s.state == TASK_STATE_PENDING) {
                    Phase::Prestart
                } else {
                    Phase::Init
                }
            }
            Phase::Prestart => {
                let successful = |t: &str| {
                    states
                        .get(t)
                        .is_some_and(|s| s.state == TASK_STATE_DEAD && !s.failed)
                };
                let done = all(Stage::PrestartEphemeral, &successful)
                    && all(Stage::PrestartSidecar, &|t| {
                        state(t) == crate::api::TASK_STATE_RUNNING
                    });
                if done {
                    Phase::Main
                } else {
                    Phase::Prestart
                }
            }
            Phase::Main => {
                if !self.has(&[Stage::Main])
                    || all(Stage::Main, &|t| state(t) != TASK_STATE_PENDING)
                {
                    Phase::Poststart
                } else {
                    Phase::Main
                }
            }
            Phase::Poststart => {
                let done = !self.has(&[Stage::PoststartEphemeral, Stage::PoststartSidecar])
                    || all(Stage::PoststartEphemeral, &|t| state(t) == TASK_STATE_DEAD);
                if done {
                    Phase::WaitAlloc
                } else {
                    Phase::Poststart
                }
            }
            Phase::WaitAlloc => Phase::WaitAlloc,
            Phase::Poststop => Phase::Poststop,
        }
    }
}

#[cfg(test)]
#[path = "lifecycle_tests.rs"]
mod tests;
