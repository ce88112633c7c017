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
//!   running/pending, marked to migrate by the drainer ........... migrate (stop + replace)
//!   running/pending otherwise .................................. untainted
//! ```
//!
//! Then the count is enforced (scale down stops the highest indexes, scale up takes the lowest
//! free indexes) and untainted allocs of an older job are updated: destructively (stop +
//! replace under the same name) or in place, as the caller's update function decides.
//!
//! Reschedule policy: attempts within the interval (or unlimited) are honoured, and so is the
//! delay (`reconcile_resched`): a failed alloc whose delay has not passed keeps its slot and
//! is reported in `reschedule_later`, for a follow-up eval at that time.
//!
//! Deployments (`reconcile_deploy`): a group with an `update` block makes at most
//! `max_parallel` destructive updates per pass less its deployment's allocs not yet healthy;
//! with `canary = N` it first places N canaries beside the old allocs and makes no
//! destructive update until the deployment is promoted, after which the old allocs that share
//! a canary's name stop and the rest roll. A deployment is created per job version that
//! changes the spec (or has no allocs yet), and marked successful once every group is healthy.
//!
//! Per group the pass also counts what it decided (`desired`, Nomad's `DesiredTGUpdates`):
//! the generic scheduler records these on the eval as its plan annotations.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use super::reconcile_deploy::{
    deploy_view, destructive_limit, finish_deployment, strategy, DeployView, GroupDeploy,
};
use super::reconcile_resched::{
    default_reschedule_policy, may_reschedule, next_reschedule_time, RESCHEDULE_WINDOW,
};
use crate::api::{
    Allocation, Deployment, DeploymentStatusUpdate, DesiredUpdates, Job, TaskGroup,
    ALLOC_CLIENT_COMPLETE, ALLOC_CLIENT_FAILED, ALLOC_CLIENT_LOST,
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
    /// A canary of the deployment: placed beside the alloc it will replace.
    pub canary: bool,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct ReconcileResult {
    pub stops: Vec<StopResult>,
    /// Destructive replacements first, then the rest, each in name order.
    pub placements: Vec<Placement>,
    pub inplace: Vec<Allocation>,
    /// The deployment to create or update with the plan (None: unchanged or none).
    pub deployment: Option<Deployment>,
    /// Status changes of deployments (cancel an older one, mark this one successful).
    pub deployment_updates: Vec<DeploymentStatusUpdate>,
    /// The deployment placements and in-place updates belong to ("" when none).
    pub deployment_id: String,
    /// Failed allocs whose reschedule delay has not passed, with the time it does: each
    /// gets a follow-up eval (`WaitUntil`).
    pub reschedule_later: Vec<(Arc<Allocation>, i64)>,
    /// Per task group (the job's and those its allocs name), what this pass decided, counted
    /// as Nomad's reconciler counts its `DesiredTGUpdates`: before placement, so a placement
    /// that then fails still counts.
    pub desired: BTreeMap<String, DesiredUpdates>,
}

pub fn alloc_name(job_id: &str, group: &str, index: u32) -> String {
    format!("{job_id}.{group}[{index}]")
}

pub struct ReconcileInput<'a> {
    pub job_id: &'a str,
    /// None or a stopped job: everything stops.
    pub job: Option<&'a Job>,
    pub allocs: &'a [Arc<Allocation>],
    pub tainted: &'a BTreeMap<String, Taint>,
    pub now: i64,
    /// The job's latest deployment.
    pub deployment: Option<&'a Deployment>,
    /// The ID a deployment created by this pass gets.
    pub new_deployment_id: &'a str,
}

/// Runs the reconciliation. `update` is asked about each untainted alloc whose job differs
/// from the current one (by `JobModifyIndex`).
pub fn reconcile(
    input: &ReconcileInput<'_>,
    update: &mut dyn FnMut(&Allocation, &TaskGroup) -> UpdateDecision,
) -> ReconcileResult {
    let mut result = ReconcileResult::default();
    let job = input.job.filter(|j| !j.stop);
    let view = deploy_view(input.job, input.deployment);
    result.deployment_updates = view.updates.clone();
    let groups: BTreeSet<&str> = job
        .map(|j| j.task_groups.iter().map(|tg| tg.name.as_str()).collect())
        .unwrap_or_default();
    // Nomad's alloc matrix: every group of the job, stopped or not, and of its allocs.
    let named = input.job.iter().flat_map(|j| j.task_groups.iter());
    for name in named
        .map(|tg| &tg.name)
        .chain(input.allocs.iter().map(|a| &a.task_group))
    {
        result.desired.entry(name.clone()).or_default();
    }

    // Allocs of groups the job no longer has (or of a stopped job) all stop.
    let mut orphans: Vec<&Arc<Allocation>> = input
        .allocs
        .iter()
        .filter(|a| !a.terminal() && !groups.contains(a.task_group.as_str()))
        .collect();
    orphans.sort_by(|a, b| a.name.cmp(&b.name).then(a.id.cmp(&b.id)));
    for a in orphans {
        result.desired.entry(a.task_group.clone()).or_default().stop += 1;
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
    let mut groups_deploy: BTreeMap<String, GroupDeploy> = BTreeMap::new();
    for tg in &job.task_groups {
        let group_allocs: Vec<&Arc<Allocation>> = input
            .allocs
            .iter()
            .filter(|a| a.task_group == tg.name)
            .collect();
        let gd = reconcile_group(
            input,
            job,
            tg,
            &group_allocs,
            &view,
            update,
            &mut result,
            &mut destructive,
            &mut others,
        );
        groups_deploy.insert(tg.name.clone(), gd);
    }
    result.placements.extend(destructive);
    result.placements.extend(others);
    finish_deployment(input, job, &view, &groups_deploy, &mut result);
    result
}

#[allow(clippy::too_many_arguments)]
fn reconcile_group(
    input: &ReconcileInput<'_>,
    job: &Job,
    tg: &TaskGroup,
    allocs: &[&Arc<Allocation>],
    view: &DeployView,
    update: &mut dyn FnMut(&Allocation, &TaskGroup) -> UpdateDecision,
    result: &mut ReconcileResult,
    destructive: &mut Vec<Placement>,
    others: &mut Vec<Placement>,
) -> GroupDeploy {
    let batch = job.is_batch();
    let policy = tg
        .reschedule_policy
        .clone()
        .unwrap_or_else(|| default_reschedule_policy(&job.r#type));

    let mut untainted: Vec<Arc<Allocation>> = Vec::new();
    let mut done: Vec<Arc<Allocation>> = Vec::new();
    // (stop, replacement) pairs for lost, migrating and rescheduled allocs.
    let mut replaced: Vec<(StopResult, Placement)> = Vec::new();
    let mut counts = DesiredUpdates::default();
    let later_before = result.reschedule_later.len();

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
                let (due, _) = next_reschedule_time(a, &policy);
                let eligible = may_reschedule(a, &policy, input.now);
                let forced = a.desired_transition.force_reschedule == Some(true);
                if eligible && !forced && due > input.now.saturating_add(RESCHEDULE_WINDOW) {
                    // Not due yet: it keeps its slot, and a follow-up eval replaces it then
                    // (one only: an alloc that has one is waiting for it).
                    if a.followup_eval_id.is_empty() {
                        result.reschedule_later.push((a.clone(), due));
                    }
                    done.push(a.clone());
                } else if eligible {
                    replaced.push((
                        StopResult {
                            alloc: a.clone(),
                            description: STATUS_ALLOC_RESCHEDULED,
                            client_status: None,
                        },
                        replacement(a, true),
                    ));
                } else if !batch
                    && a.job.as_ref().map(|j| j.job_modify_index) != Some(job.job_modify_index)
                {
                    // A failed service alloc of an older version is not kept as is: like
                    // any alloc of an older version it is updated (destructively).
                    untainted.push(a.clone());
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
            // Marked by the drainer: it moves even once the drain has ended (Nomad's
            // "non-terminal allocs marked for migration always migrate").
            _ if a.desired_transition.migrate == Some(true) => replaced.push((
                StopResult {
                    alloc: a.clone(),
                    description: STATUS_ALLOC_MIGRATING,
                    client_status: None,
                },
                replacement(a, false),
            )),
            // `nomad alloc stop`: replaced wherever it runs.
            _ if a.desired_transition.migrate == Some(true) => replaced.push((
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
    // Allocs that keep their slot as they are; those waiting for a delayed reschedule are
    // also counted apart, as Nomad does.
    counts.ignore += done.len() as u64;
    counts.reschedule_later += (result.reschedule_later.len() - later_before) as u64;

    // Canaries of the current deployment stand beside the allocs they will replace: until
    // promotion they do not count toward the group's count.
    let strat = strategy(job, tg);
    let current = view.current.as_ref();
    let promoted = current
        .and_then(|d| d.task_groups.get(&tg.name))
        .is_some_and(|st| st.promoted);
    let same_version =
        |a: &Allocation| a.job.as_ref().map(|j| j.job_modify_index) == Some(job.job_modify_index);
    let (mut canaries, rest): (Vec<_>, Vec<_>) = untainted.into_iter().partition(|a| {
        current.is_some_and(|d| a.deployment_id == d.id) && a.is_canary() && same_version(a)
    });
    untainted = rest;
    if promoted {
        let canary_names: BTreeSet<String> = canaries.iter().map(|a| a.name.clone()).collect();
        untainted.retain(|a| {
            if canary_names.contains(&a.name) && !same_version(a) {
                counts.stop += 1;
                result.stops.push(StopResult {
                    alloc: a.clone(),
                    description: STATUS_ALLOC_NOT_NEEDED,
                    client_status: None,
                });
                return false;
            }
            true
        });
        untainted.append(&mut canaries);
    } else if view.failed {
        // A failed deployment's unpromoted canaries are not needed.
        for a in canaries.drain(..) {
            counts.stop += 1;
            result.stops.push(StopResult {
                alloc: a,
                description: STATUS_ALLOC_NOT_NEEDED,
                client_status: None,
            });
        }
    }
    // Canaries waiting for promotion stay as they are.
    counts.ignore += canaries.len() as u64;
    let had_running = allocs.iter().any(|a| {
        a.job
            .as_ref()
            .is_some_and(|j| j.version == job.version && j.create_index == job.create_index)
    });
    let placed_before = destructive.len() + others.len();

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
                counts.stop += 1;
                result.stops.push(stop);
            }
        } else if let Some(u) = worst_untainted {
            let a = untainted.remove(u);
            counts.stop += 1;
            result.stops.push(StopResult {
                alloc: a,
                description: STATUS_ALLOC_NOT_NEEDED,
                client_status: None,
            });
        }
        existing -= 1;
    }

    let mut used: BTreeSet<u32> = BTreeSet::new();
    // Names held by canaries are not handed out again.
    for a in untainted.iter().chain(done.iter()).chain(canaries.iter()) {
        if let Some(i) = a.index() {
            used.insert(i);
        }
    }
    for (stop, place) in replaced {
        if let Some(i) = stop.alloc.index() {
            used.insert(i);
        }
        // Nomad counts a migration once; a lost or rescheduled alloc stops and is placed.
        if stop.description == STATUS_ALLOC_MIGRATING {
            counts.migrate += 1;
        } else {
            counts.stop += 1;
            counts.place += 1;
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
        counts.place += 1;
        others.push(Placement {
            name: alloc_name(input.job_id, &tg.name, next),
            task_group: tg.name.clone(),
            previous: None,
            reschedule: false,
            stop_previous: None,
            canary: false,
        });
    }

    let mut group_destructive = Vec::new();
    let mut inplace = 0usize;
    for a in &untainted {
        if same_version(a) {
            counts.ignore += 1;
            continue;
        }
        // A failed alloc cannot pick up a new version in place.
        let decision = if a.client_status == ALLOC_CLIENT_FAILED {
            UpdateDecision::Destructive
        } else {
            update(a, tg)
        };
        match decision {
            UpdateDecision::Ignore => counts.ignore += 1,
            UpdateDecision::Destructive => group_destructive.push(Placement {
                name: a.name.clone(),
                task_group: tg.name.clone(),
                previous: Some(a.clone()),
                reschedule: false,
                stop_previous: Some(STATUS_ALLOC_UPDATING),
                canary: false,
            }),
            UpdateDecision::InPlace(new) => {
                inplace += 1;
                counts.in_place_update += 1;
                result.inplace.push(*new);
            }
        }
    }

    let want_canaries = strat.map(|u| u.canary.max(0) as usize).unwrap_or(0);
    let canary_state = want_canaries > 0
        && !promoted
        && !view.failed
        && (!group_destructive.is_empty() || !canaries.is_empty());
    let require_canary =
        canary_state && !group_destructive.is_empty() && canaries.len() < want_canaries;
    let mut gd = GroupDeploy::default();
    if canary_state {
        gd.desired_canaries = want_canaries as i64;
    }
    if require_canary && !view.paused {
        // Canaries take the names of the allocs they will replace, lowest index first.
        let taken: BTreeSet<&str> = canaries.iter().map(|a| a.name.as_str()).collect();
        let names: Vec<String> = group_destructive
            .iter()
            .map(|p| p.name.clone())
            .filter(|n| !taken.contains(n.as_str()))
            .take(want_canaries - canaries.len())
            .collect();
        for name in names {
            counts.canary += 1;
            others.push(Placement {
                name,
                task_group: tg.name.clone(),
                previous: None,
                reschedule: false,
                stop_previous: None,
                canary: true,
            });
        }
    }
    let total_destructive = group_destructive.len();
    let limit = destructive_limit(strat, view, canary_state, &untainted, total_destructive);
    // Updates past the limit (or held back by canaries) wait for a later pass, as ignored.
    let updating = total_destructive.min(limit);
    counts.destructive_update += updating as u64;
    counts.ignore += (total_destructive - updating) as u64;
    destructive.extend(group_destructive.into_iter().take(limit));
    result.desired.insert(tg.name.clone(), counts);

    let placed = destructive.len() + others.len() - placed_before;
    gd.wants_deployment =
        strat.is_some() && count > 0 && (!had_running || total_destructive > 0 || inplace > 0);
    gd.complete = placed == 0 && total_destructive == 0 && inplace == 0 && !require_canary;
    if let Some(st) = current.and_then(|d| d.task_groups.get(&tg.name)) {
        if st.healthy_allocs < st.desired_total.max(st.desired_canaries)
            || (st.desired_canaries > 0 && !st.promoted)
        {
            gd.complete = false;
        }
    }
    gd
}

fn replacement(a: &Arc<Allocation>, reschedule: bool) -> Placement {
    Placement {
        name: a.name.clone(),
        task_group: a.task_group.clone(),
        previous: Some(a.clone()),
        reschedule,
        stop_previous: None,
        canary: false,
    }
}

#[cfg(test)]
#[path = "reconcile_tests.rs"]
mod tests;
