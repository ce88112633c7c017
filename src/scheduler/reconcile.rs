//! The reconciler: compares what a job wants (its groups and counts) with the allocs that exist
//! and says what to stop, what to place, and what to update (Nomad's `reconciler`).
//!
//! Per task group, each existing alloc falls in exactly one bucket:
//!
//! ```text
//!   server-terminal (desired stop/evict) ....................... ignored
//!   batch + client complete .................................... done (keeps its slot)
//!   client failed, not yet replaced ---- reschedule allowed? --> reschedule (stop + replace)
//!                                   \--- no ------------------> done (keeps its slot)
//!   client complete/lost (service) ............................. ignored (slot is free)
//!   running/pending on a missing, down or disconnected node .... lost (stop lost + replace)
//!   running/pending on a draining node, marked to migrate ...... migrate (stop + replace)
//!   running/pending otherwise .................................. untainted
//! ```
//!
//! Then the count is enforced (scale down stops the highest indexes, scale up takes the lowest
//! free indexes) and untainted allocs of an older job are updated: destructively (stop +
//! replace under the same name) or in place, as the caller's update function decides.
//!
//! Reschedule policy: attempts within the interval (or unlimited) are honoured, but the delay is
//! not: an eligible failed alloc is replaced in this eval. Update strategies (max_parallel,
//! canaries) are not applied: every destructive update happens at once.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use serde_json::{json, Value};

use crate::api::{
    Allocation, Job, ReschedulePolicy, TaskGroup, ALLOC_CLIENT_COMPLETE, ALLOC_CLIENT_FAILED,
    ALLOC_CLIENT_LOST, HOUR, JOB_TYPE_SERVICE, MINUTE, SECOND,
};

// Nomad's exact desired descriptions.
pub const STATUS_ALLOC_NOT_NEEDED: &str = "alloc not needed due to job update";
pub const STATUS_ALLOC_MIGRATING: &str = "alloc is being migrated";
pub const STATUS_ALLOC_UPDATING: &str = "alloc is being updated due to job update";
pub const STATUS_ALLOC_LOST: &str = "alloc is lost since its node is down";
pub const STATUS_ALLOC_IN_PLACE: &str = "alloc updating in-place";
pub const STATUS_ALLOC_RESCHEDULED: &str = "alloc was rescheduled because it failed";

/// Why a node holding allocs of the job is unhealthy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Taint {
    /// Missing from state, down, or disconnected: its allocs are lost.
    Lost,
    /// Draining: allocs the drainer marked for migration move.
    Draining,
}

/// What the update function decided for an untainted alloc of an older job version.
#[derive(Debug, Clone, PartialEq)]
pub enum UpdateDecision {
    /// Nothing to do for this alloc.
    Ignore,
    /// Stop it and place a replacement under the same name.
    Destructive,
    /// Replace the alloc record in place (same ID and node).
    InPlace(Box<Allocation>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct StopResult {
    pub alloc: Arc<Allocation>,
    pub description: &'static str,
    /// Set when the stop also changes the client status (lost allocs).
    pub client_status: Option<&'static str>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Placement {
    pub name: String,
    pub task_group: String,
    /// The alloc this one replaces, for `PreviousAllocation` and penalties.
    pub previous: Option<Arc<Allocation>>,
    /// Replacing a failed alloc: the previous node is penalised and a tracker is kept.
    pub reschedule: bool,
    /// Destructive updates stop the previous alloc only if the replacement is placed.
    pub stop_previous: Option<&'static str>,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct ReconcileResult {
    pub stops: Vec<StopResult>,
    /// Destructive replacements first, then the rest, each in name order.
    pub placements: Vec<Placement>,
    pub inplace: Vec<Allocation>,
}

pub fn alloc_name(job_id: &str, group: &str, index: u32) -> String {
    format!("{job_id}.{group}[{index}]")
}

/// Nomad's default reschedule policies per job type.
pub fn default_reschedule_policy(job_type: &str) -> ReschedulePolicy {
    if job_type == JOB_TYPE_SERVICE {
        ReschedulePolicy {
            attempts: 0,
            interval: 0,
            delay: 30 * SECOND,
            delay_function: "exponential".into(),
            max_delay: HOUR,
            unlimited: true,
        }
    } else {
        ReschedulePolicy {
            attempts: 1,
            interval: 24 * HOUR,
            delay: 5 * SECOND,
            delay_function: "constant".into(),
            max_delay: MINUTE,
            unlimited: false,
        }
    }
}

/// Reschedule times (Unix nanos) recorded in an alloc's tracker.
fn reschedule_times(alloc: &Allocation) -> Vec<i64> {
    alloc
        .reschedule_tracker
        .as_ref()
        .and_then(|t| t.get("Events"))
        .and_then(Value::as_array)
        .map(|evs| {
            evs.iter()
                .filter_map(|e| e.get("RescheduleTime").and_then(Value::as_i64))
                .collect()
        })
        .unwrap_or_default()
}

fn may_reschedule(alloc: &Allocation, policy: &ReschedulePolicy, now: i64) -> bool {
    if alloc.desired_transition.force_reschedule == Some(true) {
        return true;
    }
    if policy.unlimited {
        return true;
    }
    if policy.attempts <= 0 {
        return false;
    }
    let since = now.saturating_sub(policy.interval);
    let recent = reschedule_times(alloc)
        .into_iter()
        .filter(|t| policy.interval <= 0 || *t > since)
        .count();
    recent < policy.attempts as usize
}

/// The tracker a rescheduled replacement carries: the previous events plus this one.
pub fn next_reschedule_tracker(prev: &Allocation, now: i64) -> Value {
    let mut events: Vec<Value> = prev
        .reschedule_tracker
        .as_ref()
        .and_then(|t| t.get("Events"))
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    events.push(json!({
        "PrevAllocID": prev.id,
        "PrevNodeID": prev.node_id,
        "RescheduleTime": now,
        "Delay": 0,
    }));
    json!({ "Events": events })
}

pub struct ReconcileInput<'a> {
    pub job_id: &'a str,
    /// None or a stopped job: everything stops.
    pub job: Option<&'a Job>,
    pub allocs: &'a [Arc<Allocation>],
    pub tainted: &'a BTreeMap<String, Taint>,
    pub now: i64,
}

/// Runs the reconciliation. `update` is asked about each untainted alloc whose job differs
/// from the current one (by `JobModifyIndex`).
pub fn reconcile(
    input: &ReconcileInput<'_>,
    update: &mut dyn FnMut(&Allocation, &TaskGroup) -> UpdateDecision,
) -> ReconcileResult {
    let mut result = ReconcileResult::default();
    let job = input.job.filter(|j| !j.stop);
    let groups: BTreeSet<&str> = job
        .map(|j| j.task_groups.iter().map(|tg| tg.name.as_str()).collect())
        .unwrap_or_default();

    // Allocs of groups the job no longer has (or of a stopped job) all stop.
    let mut orphans: Vec<&Arc<Allocation>> = input
        .allocs
        .iter()
        .filter(|a| !a.terminal() && !groups.contains(a.task_group.as_str()))
        .collect();
    orphans.sort_by(|a, b| a.name.cmp(&b.name).then(a.id.cmp(&b.id)));
    for a in orphans {
        result.stops.push(StopResult {
            alloc: a.clone(),
            description: STATUS_ALLOC_NOT_NEEDED,
            client_status: None,
        });
    }
    let Some(job) = job else {
        return result;
    };

    let mut destructive = Vec::new();
    let mut others = Vec::new();
    for tg in &job.task_groups {
        let group_allocs: Vec<&Arc<Allocation>> = input
            .allocs
            .iter()
            .filter(|a| a.task_group == tg.name)
            .collect();
        reconcile_group(
            input,
            job,
            tg,
            &group_allocs,
            update,
            &mut result,
            &mut destructive,
            &mut others,
        );
    }
    result.placements.extend(destructive);
    result.placements.extend(others);
    result
}

#[allow(clippy::too_many_arguments)]
fn reconcile_group(
    input: &ReconcileInput<'_>,
    job: &Job,
    tg: &TaskGroup,
    allocs: &[&Arc<Allocation>],
    update: &mut dyn FnMut(&Allocation, &TaskGroup) -> UpdateDecision,
    result: &mut ReconcileResult,
    destructive: &mut Vec<Placement>,
    others: &mut Vec<Placement>,
) {
    let batch = job.is_batch();
    let policy = tg
        .reschedule_policy
        .clone()
        .unwrap_or_else(|| default_reschedule_policy(&job.r#type));

    let mut untainted: Vec<Arc<Allocation>> = Vec::new();
    let mut done: Vec<Arc<Allocation>> = Vec::new();
    // (stop, replacement) pairs for lost, migrating and rescheduled allocs.
    let mut replaced: Vec<(StopResult, Placement)> = Vec::new();

    let mut sorted: Vec<&Arc<Allocation>> = allocs.to_vec();
    sorted.sort_by(|a, b| {
        a.index()
            .cmp(&b.index())
            .then(a.create_index.cmp(&b.create_index))
            .then(a.id.cmp(&b.id))
    });
    for a in sorted {
        let ran_ok = a.client_status == ALLOC_CLIENT_COMPLETE;
        if batch && ran_ok {
            done.push(a.clone());
            continue;
        }
        if a.server_terminal() {
            continue;
        }
        match a.client_status.as_str() {
            ALLOC_CLIENT_FAILED => {
                if !a.next_allocation.is_empty() {
                    continue;
                }
                if may_reschedule(a, &policy, input.now) {
                    replaced.push((
                        StopResult {
                            alloc: a.clone(),
                            description: STATUS_ALLOC_RESCHEDULED,
                            client_status: None,
                        },
                        replacement(a, true),
                    ));
                } else {
                    done.push(a.clone());
                }
                continue;
            }
            ALLOC_CLIENT_COMPLETE | ALLOC_CLIENT_LOST => continue,
            _ => {}
        }
        match input.tainted.get(&a.node_id) {
            Some(Taint::Lost) => replaced.push((
                StopResult {
                    alloc: a.clone(),
                    description: STATUS_ALLOC_LOST,
                    client_status: Some(ALLOC_CLIENT_LOST),
                },
                replacement(a, false),
            )),
            Some(Taint::Draining) if a.desired_transition.migrate == Some(true) => replaced.push((
                StopResult {
                    alloc: a.clone(),
                    description: STATUS_ALLOC_MIGRATING,
                    client_status: None,
                },
                replacement(a, false),
            )),
            _ => untainted.push(a.clone()),
        }
    }

    let count = tg.count.max(0) as usize;
    let mut existing = untainted.len() + done.len() + replaced.len();

    // Scale down: first drop replacements (their old allocs still stop), highest index
    // first, then stop the highest-indexed untainted allocs.
    while existing > count {
        let worst_replaced = replaced
            .iter()
            .enumerate()
            .filter(|(_, (_, p))| p.previous.is_some())
            .max_by_key(|(_, (s, _))| s.alloc.index())
            .map(|(i, _)| i);
        let worst_untainted = untainted
            .iter()
            .enumerate()
            .max_by_key(|(_, a)| a.index())
            .map(|(i, _)| i);
        let take_replaced = match (worst_replaced, worst_untainted) {
            (Some(r), Some(u)) => replaced[r].0.alloc.index() >= untainted[u].index(),
            (Some(_), None) => true,
            (None, Some(_)) => false,
            (None, None) => break,
        };
        if take_replaced {
            if let Some(r) = worst_replaced {
                // Not replaced after all: a lost alloc is still lost, anything else is
                // simply no longer needed.
                let (mut stop, _) = replaced.remove(r);
                if stop.description != STATUS_ALLOC_LOST {
                    stop.description = STATUS_ALLOC_NOT_NEEDED;
                }
                result.stops.push(stop);
            }
        } else if let Some(u) = worst_untainted {
            let a = untainted.remove(u);
            result.stops.push(StopResult {
                alloc: a,
                description: STATUS_ALLOC_NOT_NEEDED,
                client_status: None,
            });
        }
        existing -= 1;
    }

    let mut used: BTreeSet<u32> = BTreeSet::new();
    for a in untainted.iter().chain(done.iter()) {
        if let Some(i) = a.index() {
            used.insert(i);
        }
    }
    for (stop, place) in replaced {
        if let Some(i) = stop.alloc.index() {
            used.insert(i);
        }
        result.stops.push(stop);
        others.push(place);
    }

    // Scale up with the lowest free indexes.
    let mut next = 0u32;
    for _ in existing..count {
        while used.contains(&next) {
            next += 1;
        }
        used.insert(next);
        others.push(Placement {
            name: alloc_name(input.job_id, &tg.name, next),
            task_group: tg.name.clone(),
            previous: None,
            reschedule: false,
            stop_previous: None,
        });
    }

    for a in untainted {
        let same = a.job.as_ref().map(|j| j.job_modify_index) == Some(job.job_modify_index);
        if same {
            continue;
        }
        match update(&a, tg) {
            UpdateDecision::Ignore => {}
            UpdateDecision::Destructive => destructive.push(Placement {
                name: a.name.clone(),
                task_group: tg.name.clone(),
                previous: Some(a.clone()),
                reschedule: false,
                stop_previous: Some(STATUS_ALLOC_UPDATING),
            }),
            UpdateDecision::InPlace(new) => result.inplace.push(*new),
        }
    }
}

fn replacement(a: &Arc<Allocation>, reschedule: bool) -> Placement {
    Placement {
        name: a.name.clone(),
        task_group: a.task_group.clone(),
        previous: Some(a.clone()),
        reschedule,
        stop_previous: None,
    }
}

#[cfg(test)]
#[path = "reconcile_tests.rs"]
mod tests;
