//! The node drainer (leader only), as Nomad's `nomad/drainer`: moves work off draining nodes
//! at the pace each task group's `migrate` block allows, then marks the drain complete.
//!
//! ```text
//!  draining node ──deadline passed (or -force)──> mark every remaining alloc ─> complete
//!       │                                         (system too, unless -ignore-system)
//!       ├─ non-system allocs all client-terminal ─> mark the system allocs ───> complete
//!       └─ otherwise, per service job and group: mark at most
//!            healthy - (count - migrate.max_parallel) of its allocs on draining nodes
//! ```
//! "Marking" sets `DesiredTransition.Migrate` and creates a `node-drain` eval for the job; the
//! scheduler then stops the alloc and places a replacement elsewhere. Batch allocs are never
//! marked before the deadline (they may run to completion). An alloc counts as healthy once
//! it has a deployment health (which the client reports for groups whose `migrate` block
//! asks for `checks` and that have Nomad service checks: only it runs them), or else by the
//! `task_states` check with the group's `migrate` timings (`min_healthy_time`,
//! `healthy_deadline`). Completion clears the drain strategy and
//! records `LastDrain`; the node stays ineligible.
//!
//! `plan` is pure (state, now) -> actions; `run` carries them out through raft.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;
use std::time::Duration;

use super::deployment_watcher::task_states_health;
use super::endpoints::node_drain::{node_event, EVENT_DRAIN_COMPLETE, SUBSYSTEM_DRAIN};
use super::fsm::Command;
use super::state::{JobKey, NodeDrainUpdate, StateSnapshot};
use super::{Server, ServerError};
use crate::api::*;

/// How often the leader looks at draining nodes (when the state changed or a deadline is due).
const TICK: Duration = Duration::from_millis(200);

/// Nomad's `NodeDrainEventDetailDeadlined`.
const DETAIL_DEADLINE_REACHED: &str = "deadline_reached";

/// What the drainer decided at one moment.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct DrainPlan {
    /// Allocs to mark for migration.
    pub migrate: Vec<Arc<Allocation>>,
    /// Nodes whose drain is over, with whether the deadline ended it.
    pub complete: Vec<(String, bool)>,
    /// The soonest future deadline of a draining node (Unix nanoseconds).
    pub next_deadline: Option<i64>,
}

pub(crate) fn plan(snap: &StateSnapshot, now: i64) -> DrainPlan {
    let mut out = DrainPlan::default();
    let mut jobs: BTreeSet<JobKey> = BTreeSet::new();
    for node in snap.nodes_list() {
        let Some(strategy) = &node.drain_strategy else {
            continue;
        };
        let allocs = snap.allocs_for_node(&node.id);
        if strategy.deadline_passed(now) {
            out.migrate
                .extend(remaining(&allocs, strategy.ignore_system_jobs));
            out.complete.push((node.id.clone(), true));
            continue;
        }
        if let (false, Some(t)) = strategy.deadline_time() {
            out.next_deadline = Some(out.next_deadline.map_or(t, |n| n.min(t)));
        }
        let busy: Vec<&Arc<Allocation>> = allocs
            .iter()
            .filter(|a| !is_system(a) && !a.client_terminal())
            .collect();
        if busy.is_empty() {
            out.migrate
                .extend(remaining(&allocs, strategy.ignore_system_jobs));
            out.complete.push((node.id.clone(), false));
            continue;
        }
        jobs.extend(busy.iter().map(|a| (a.namespace.clone(), a.job_id.clone())));
    }
    for (ns, id) in jobs {
        let Some(job) = snap.job_by_id(&ns, &id) else {
            continue;
        };
        if job.r#type != JOB_TYPE_SERVICE {
            continue;
        }
        let allocs = snap.allocs_for_job(&ns, &id);
        for tg in &job.task_groups {
            let group: Vec<&Arc<Allocation>> =
                allocs.iter().filter(|a| a.task_group == tg.name).collect();
            out.migrate.extend(drain_group(snap, tg, &group, now));
        }
    }
    out
}

fn is_system(a: &Allocation) -> bool {
    a.job.as_ref().is_some_and(|j| j.r#type == JOB_TYPE_SYSTEM)
}

fn marked(a: &Allocation) -> bool {
    a.desired_transition.migrate == Some(true)
}

/// Allocs still to move off a node whose drain is ending (Nomad's `RemainingAllocs`), less
/// the ones already marked.
fn remaining(allocs: &[Arc<Allocation>], ignore_system: bool) -> Vec<Arc<Allocation>> {
    allocs
        .iter()
        .filter(|a| !(ignore_system && is_system(a)))
        .filter(|a| !a.terminal() && !marked(a))
        .cloned()
        .collect()
}

/// Nomad's `handleTaskGroup` for a service group: the allocs on draining nodes it may mark now.
fn drain_group(
    snap: &StateSnapshot,
    tg: &TaskGroup,
    allocs: &[&Arc<Allocation>],
    now: i64,
) -> Vec<Arc<Allocation>> {
    let migrate = tg
        .migrate
        .clone()
        .unwrap_or_else(crate::client::alloc_health::default_migrate);
    let mut healthy = 0i64;
    let mut drainable = Vec::new();
    for a in allocs {
        let on_draining = snap
            .node_by_id(&a.node_id)
            .is_some_and(|n| n.drain_strategy.is_some());
        if !a.terminal() && !marked(a) && has_health(a, tg, &migrate, now) {
            healthy += 1;
        }
        if on_draining && !a.client_terminal() && !a.server_terminal() && !marked(a) {
            drainable.push((*a).clone());
        }
    }
    let threshold = i64::from(tg.count) - i64::from(migrate.max_parallel.max(1));
    let n = (healthy - threshold).clamp(0, drainable.len() as i64) as usize;
    drainable.truncate(n);
    drainable
}

/// Nomad's `DeploymentStatus.HasHealth`: health decided either way counts, so an unhealthy
/// replacement does not hold the drain forever.
fn has_health(a: &Allocation, tg: &TaskGroup, m: &MigrateStrategy, now: i64) -> bool {
    a.deployment_healthy().is_some()
        || (a.deployment_id.is_empty()
            && !crate::client::alloc_health::needs_client_migrate_health(tg)
            && task_states_health(a, tg, m.min_healthy_time, m.healthy_deadline, now).is_some())
}

fn drain_eval(job: &Job, now: i64) -> Evaluation {
    Evaluation {
        id: generate_id(),
        namespace: job.namespace.clone(),
        priority: job.priority,
        r#type: job.r#type.clone(),
        triggered_by: TRIGGER_NODE_DRAIN.to_string(),
        job_id: job.id.clone(),
        job_modify_index: job.job_modify_index,
        status: EVAL_STATUS_PENDING.to_string(),
        create_time: now,
        modify_time: now,
        ..Default::default()
    }
}

/// Propose the plan's marks (with an eval per job) and completions.
async fn carry_out(
    server: &Server,
    snap: &StateSnapshot,
    plan: DrainPlan,
    now: i64,
) -> Result<(), ServerError> {
    if !plan.migrate.is_empty() {
        let keys: BTreeSet<JobKey> = plan
            .migrate
            .iter()
            .map(|a| (a.namespace.clone(), a.job_id.clone()))
            .collect();
        let evals = keys
            .iter()
            .filter_map(|(ns, id)| snap.job_by_id(ns, id))
            .map(|j| drain_eval(&j, now))
            .collect();
        let transitions: BTreeMap<String, DesiredTransition> = plan
            .migrate
            .iter()
            .map(|a| {
                let t = DesiredTransition {
                    migrate: Some(true),
                    ..Default::default()
                };
                (a.id.clone(), t)
            })
            .collect();
        tracing::info!(
            allocs = transitions.len(),
            "drainer marking allocs to migrate"
        );
        server
            .propose(Command::AllocUpdateDesiredTransition {
                transitions,
                evals,
                time: now,
            })
            .await?;
    }
    if !plan.complete.is_empty() {
        let updates = plan
            .complete
            .into_iter()
            .map(|(node_id, deadlined)| {
                tracing::info!(node_id = %node_id, deadlined, "node drain complete");
                let mut event = node_event(SUBSYSTEM_DRAIN, EVENT_DRAIN_COMPLETE, now);
                if deadlined {
                    event.details =
                        Some([(DETAIL_DEADLINE_REACHED.to_string(), "true".to_string())].into());
                }
                NodeDrainUpdate {
                    node_id,
                    event: Some(event),
                    drain_complete: true,
                    ..Default::default()
                }
            })
            .collect();
        server
            .propose(Command::NodeUpdateDrain {
                updates,
                evals: Vec::new(),
                time: now,
            })
            .await?;
    }
    Ok(())
}

/// While leader: re-plan whenever the state moved on or a drain deadline came due.
pub(crate) async fn run(server: Server) {
    let mut tick = tokio::time::interval(TICK);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut planned_at = 0u64;
    let mut next_deadline: Option<i64> = None;
    loop {
        tokio::select! {
            _ = server.shutdown_token().cancelled() => return,
            _ = tick.tick() => {}
        }
        if !server.is_leader() {
            planned_at = 0;
            continue;
        }
        let snap = server.state().snapshot();
        let now = now_nanos();
        let due = next_deadline.is_some_and(|t| now >= t);
        if snap.latest_index() == planned_at && !due {
            continue;
        }
        planned_at = snap.latest_index();
        let plan = plan(&snap, now);
        next_deadline = plan.next_deadline;
        if let Err(e) = carry_out(&server, &snap, plan, now).await {
            tracing::warn!(error = %e, "node drainer");
        }
    }
}

#[cfg(test)]
#[path = "drainer_tests.rs"]
mod tests;
