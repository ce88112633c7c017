//! The system and sysbatch schedulers (Nomad's `SystemScheduler` with its node reconciler):
//! one alloc per task group on every ready, feasible node of the job's pool and datacenters.
//!
//! Per node and group, what the reconciler decides, as Nomad's `reconcile_node.go`:
//! - a live alloc on a node that is gone or down is lost; one the drainer marked to migrate
//!   stops; on a draining node it otherwise stays (system allocs move last); on a node
//!   outside the pool/datacenters, or one whose attributes no longer meet the constraints, it
//!   is not needed (stops); on a ready-but-ineligible node it is kept unless the job changed;
//! - a live alloc of an older job version is updated in place when only non-destructive
//!   fields changed and its node still fits the new version (same alloc ID, the task keeps
//!   running), otherwise replaced on the same node (destructive);
//! - a node without a live alloc gets one (whatever `max_parallel` says), except that
//!   sysbatch leaves a node alone once an alloc of this job version finished there (ran to
//!   completion once per node);
//! - destructive updates go at most `update.max_parallel` per group per eval. A system job
//!   with `max_parallel > 0` (the default update block gives one) rolls each version out as
//!   a deployment (`system_deploy`, Nomad >= 1.11): new and in-place updated allocs carry
//!   its ID, the next batch is replaced once the previous one is healthy (the deployment
//!   watcher's evals move it on; there is no `stagger` timer any more), canaries are a
//!   percentage of the nodes and wait for promotion, and the deployment succeeds once every
//!   feasible node runs the version healthy. Sysbatch jobs have no deployments.
//!
//! Placement failures follow Nomad: a node filtered by constraints is not a failure (the job
//! simply does not belong there) unless the group could be placed nowhere at all; a node
//! whose resources are exhausted is, coalesced per group. System evals never block: new
//! capacity arrives as node-update evals.
//!
//! The eval records the pass as plan annotations, counted as Nomad's node reconciler buckets
//! allocs (kept: ignore; stopped, migrated, updated in place or destructively; lost allocs are
//! not counted). `Place` is then, for system jobs, every feasible node that runs or will run
//! the group (Nomad's candidate count), and for sysbatch jobs the nodes placed on that were not
//! filtered out.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use rand::rngs::StdRng;
use rand::SeedableRng;

use crate::api::{
    AllocMetric, Allocation, DesiredUpdates, Evaluation, Job, Node, Plan, PlanAnnotations,
    TaskGroup, ALLOC_CLIENT_COMPLETE, ALLOC_CLIENT_LOST, EVAL_STATUS_COMPLETE, JOB_TYPE_SYSBATCH,
    JOB_TYPE_SYSTEM, NODE_STATUS_DOWN,
};

use super::feasible::{
    group_constraints, has_driver, job_pool, meets_constraint, node_in_any_dc, node_in_pool,
};
use super::node_check::Eligibility;
use super::plan_ctx::PlanCtx;
use super::ranking::{RankConfig, SelectOptions};
use super::reconcile::{
    UpdateDecision, STATUS_ALLOC_LOST, STATUS_ALLOC_MIGRATING, STATUS_ALLOC_NOT_NEEDED,
};
use super::system_deploy::{required_canaries, system_strategy, GroupTally, SystemDeploy};
use super::system_place::{PlaceRequest, Placer};
use super::{fnv1a, seeded_uuid};
use super::{SchedulerContext, SchedulerError, SchedulerResult, StateView};

/// Nomad's stop description for an alloc whose node no longer meets the job's constraints.
pub const STATUS_ALLOC_NODE_INFEASIBLE: &str = "alloc not needed as node is not feasible";

/// Whether the eval is for the system or sysbatch scheduler.
pub fn is_system_type(job_type: &str) -> bool {
    job_type == JOB_TYPE_SYSTEM || job_type == JOB_TYPE_SYSBATCH
}

/// The eval triggers the system scheduler handles (Nomad's `SystemScheduler.canHandle`);
/// any other fails the eval.
const SYSTEM_TRIGGERS: &[&str] = &[
    "job-register",
    "node-update",
    "failed-follow-up",
    "job-deregister",
    "rolling-update",
    "preemption",
    "deployment-watcher",
    "node-drain",
    "alloc-stop",
    "queued-allocs",
    "job-scaling",
    "reconnect",
];

/// Runs the system (or sysbatch) scheduler for one eval against one snapshot. Pure: the same
/// inputs give the same plan.
pub fn process_system_eval(
    eval: &Evaluation,
    state: &dyn StateView,
    ctx: SchedulerContext,
) -> Result<SchedulerResult, SchedulerError> {
    if !is_system_type(&eval.r#type) {
        return Err(SchedulerError::UnsupportedType {
            eval_id: eval.id.clone(),
            job_type: eval.r#type.clone(),
        });
    }
    let mut out_eval = eval.clone();
    out_eval.snapshot_index = state.index();
    out_eval.modify_time = ctx.now;
    if !SYSTEM_TRIGGERS.contains(&eval.triggered_by.as_str()) {
        return Ok(super::cannot_handle(eval, out_eval, state.index()));
    }

    let job = state.job(&eval.namespace, &eval.job_id);
    let live_job = job.as_ref().filter(|j| !j.stop).cloned();
    let allocs = state.allocs_by_job(&eval.namespace, &eval.job_id);
    let salt = fnv1a(&eval.id);
    let mut rng = StdRng::seed_from_u64(ctx.seed ^ state.index() ^ salt);
    let mut ids = StdRng::seed_from_u64(ctx.seed.rotate_left(17) ^ salt);
    let mut pctx = PlanCtx::new(state, ctx.now);
    let latest = state.latest_deployment(&eval.namespace, &eval.job_id);
    let mut deploy = SystemDeploy::new(job.as_deref(), latest.as_deref());

    let mut queued: BTreeMap<String, i64> = BTreeMap::new();
    for tg in job.iter().flat_map(|j| j.task_groups.iter()) {
        queued.insert(tg.name.clone(), 0);
    }
    let mut failed: BTreeMap<String, AllocMetric> = BTreeMap::new();
    let mut preempted_jobs = BTreeMap::new();
    let mut annotations = PlanAnnotations::default();

    let (deployment, deployment_updates) = match &live_job {
        None => {
            for a in allocs.iter().filter(|a| !a.terminal()) {
                group_counts(&mut annotations, &a.task_group).stop += 1;
                pctx.stop(a, STATUS_ALLOC_NOT_NEEDED, None);
            }
            deploy.into_updates()
        }
        Some(job) => {
            let new_deployment_id =
                seeded_uuid(&mut StdRng::seed_from_u64(ctx.seed.rotate_left(47) ^ salt));
            let run = SystemRun {
                eval,
                job,
                ctx,
                state,
                new_deployment_id: &new_deployment_id,
            };
            let mut placer = Placer {
                eval,
                job,
                state,
                now: ctx.now,
                pctx: &mut pctx,
                rng: &mut rng,
                ids: &mut ids,
                elig: Eligibility::default(),
                opts: SelectOptions::default(),
                by_dc: BTreeMap::new(),
                nodes_in_pool: 0,
                pool: job_pool(job).to_string(),
                distinct: BTreeMap::new(),
                placed_any: BTreeSet::new(),
                filtered: BTreeMap::new(),
                failed: &mut failed,
                queued: &mut queued,
                preempted_jobs: &mut preempted_jobs,
                annotations: &mut annotations,
            };
            let tallies = run.reconcile_and_place(&allocs, &mut placer, &mut deploy);
            out_eval.deployment_id = deploy.id();
            deploy.finish(job, &tallies)
        }
    };
    let followup_evals =
        super::generic::preemption_evals(&preempted_jobs, ctx.seed.rotate_left(59) ^ salt, ctx.now);

    let (stops, placed) = pctx.into_parts();
    let plan = Plan {
        eval_id: eval.id.clone(),
        eval_token: String::new(),
        priority: eval.priority,
        all_at_once: job.as_ref().map(|j| j.all_at_once).unwrap_or(false),
        job: job.clone(),
        node_update: stops,
        node_allocation: placed
            .into_iter()
            .map(|(node, allocs)| (node, allocs.into_iter().map(Arc::unwrap_or_clone).collect()))
            .collect(),
        snapshot_index: state.index(),
        deployment,
        deployment_updates,
    };
    out_eval.queued_allocations = Some(queued);
    out_eval.plan_annotations = Some(annotations);
    out_eval.status_description = String::new();
    out_eval.failed_tg_allocs = (!failed.is_empty()).then_some(failed);
    out_eval.status = EVAL_STATUS_COMPLETE.to_string();
    Ok(SchedulerResult {
        plan,
        eval: out_eval,
        blocked_eval: None,
        followup_evals,
    })
}

struct SystemRun<'a> {
    eval: &'a Evaluation,
    job: &'a Arc<Job>,
    ctx: SchedulerContext,
    state: &'a dyn StateView,
    /// The ID a deployment created by this pass gets.
    new_deployment_id: &'a str,
}

/// What the node reconciler decided for one (node, group).
enum Decision<'a> {
    Keep(&'a Allocation),
    Stop(&'a Allocation, &'static str, Option<&'static str>),
    Replace(&'a Allocation),
}

impl SystemRun<'_> {
    /// Decides every live alloc, makes the deployment this version needs, updates in place
    /// what can be, then places: first on nodes that lack the group, then the destructive
    /// updates (canaries first, or `max_parallel` at a time). Returns per group what the
    /// deployment needs to know.
    fn reconcile_and_place(
        &self,
        allocs: &[Arc<Allocation>],
        placer: &mut Placer<'_, '_>,
        deploy: &mut SystemDeploy,
    ) -> BTreeMap<String, GroupTally> {
        let job = self.job;
        let dcs = job.datacenters_or_default();
        let pool = job_pool(job);
        let in_scope = |n: &Node| node_in_pool(n, pool) && node_in_any_dc(n, &dcs);
        let eligible: Vec<Arc<Node>> = self
            .state
            .nodes()
            .into_iter()
            .filter(|n| n.ready() && n.drain_strategy.is_none() && in_scope(n))
            .inspect(|n| *placer.by_dc.entry(n.datacenter.clone()).or_insert(0) += 1)
            .collect();
        placer.nodes_in_pool = eligible.len() as i64;
        let eligible_ids: BTreeSet<&str> = eligible.iter().map(|n| n.id.as_str()).collect();

        // Existing allocs: decide each live one; remember which (node, group) stay covered.
        let mut covered: BTreeSet<(String, String)> = BTreeSet::new();
        let mut kept: BTreeMap<&str, Vec<&Allocation>> = BTreeMap::new();
        let mut replace: Vec<&Allocation> = Vec::new();
        for a in allocs.iter().filter(|a| !a.terminal()) {
            match self.decide(a, &eligible_ids, &in_scope) {
                Decision::Keep(a) => {
                    group_counts(placer.annotations, &a.task_group).ignore += 1;
                    covered.insert((a.node_id.clone(), a.task_group.clone()));
                    kept.entry(a.task_group.as_str()).or_default().push(a);
                }
                Decision::Stop(a, desc, status) => {
                    // Nomad's node reconciler counts no lost allocs.
                    if desc == STATUS_ALLOC_MIGRATING {
                        group_counts(placer.annotations, &a.task_group).migrate += 1;
                    } else if desc != STATUS_ALLOC_LOST {
                        group_counts(placer.annotations, &a.task_group).stop += 1;
                    }
                    placer.pctx.stop(a, desc, status)
                }
                Decision::Replace(a) => {
                    covered.insert((a.node_id.clone(), a.task_group.clone()));
                    replace.push(a);
                }
            }
        }
        replace.sort_by(|a, b| a.node_id.cmp(&b.node_id).then(a.id.cmp(&b.id)));
        // Sysbatch runs once per node and job version: a finished alloc covers its node.
        if job.r#type == JOB_TYPE_SYSBATCH {
            for a in allocs.iter().filter(|a| a.terminal()) {
                let same_version = a
                    .job
                    .as_ref()
                    .is_some_and(|j| j.job_modify_index == job.job_modify_index);
                let key = (a.node_id.clone(), a.task_group.clone());
                if same_version && a.client_status == ALLOC_CLIENT_COMPLETE && covered.insert(key) {
                    group_counts(placer.annotations, &a.task_group).ignore += 1;
                }
            }
        }
        let missing: Vec<(&Arc<Node>, &TaskGroup)> = eligible
            .iter()
            .flat_map(|n| job.task_groups.iter().map(move |tg| (n, tg)))
            .filter(|(n, tg)| tg.count > 0 && !covered.contains(&(n.id.clone(), tg.name.clone())))
            .collect();

        // A version with updates, or with placements on nodes that never ran it, rolls out
        // as a deployment (Nomad's createDeployment; a reschedule on a node makes none).
        let wanting: Vec<&TaskGroup> = job
            .task_groups
            .iter()
            .filter(|tg| {
                replace.iter().any(|a| a.task_group == tg.name)
                    || missing
                        .iter()
                        .any(|(n, g)| g.name == tg.name && !ran_version(allocs, job, &n.id, g))
            })
            .collect();
        deploy.create_for(job, &wanting, self.new_deployment_id, self.ctx.now);
        let deployment_id = deploy.alloc_deployment_id();

        let sched_config = self.state.scheduler_config();
        placer.opts = SelectOptions {
            config: RankConfig::from_config(&sched_config),
            // The system stack always may evict when preemption is on for its type.
            preempt: sched_config.preemption_enabled(&job.r#type),
            ..Default::default()
        };
        let mut tallies: BTreeMap<String, GroupTally> = BTreeMap::new();
        for tg in &job.task_groups {
            let t = tallies.entry(tg.name.clone()).or_default();
            t.candidates = kept.get(tg.name.as_str()).map_or(0, |k| k.len() as i64);
        }
        // Updates that need no new task are made in place (Nomad's inplaceUpdate); they
        // join the deployment with their health to be judged anew.
        let mut destructive: BTreeMap<&str, Vec<&Allocation>> = BTreeMap::new();
        for prev in replace {
            let Some(tg) = job.lookup_task_group(&prev.task_group) else {
                continue;
            };
            tallies.entry(tg.name.clone()).or_default().candidates += 1;
            match super::generic::update_decision(
                prev,
                job,
                tg,
                self.eval,
                self.state,
                placer.pctx,
                placer.rng,
                &mut placer.elig,
                (self.ctx.now, placer.opts.config),
            ) {
                UpdateDecision::InPlace(mut updated) => {
                    group_counts(placer.annotations, &tg.name).in_place_update += 1;
                    updated.deployment_id = deployment_id.clone();
                    updated.deployment_status = None;
                    placer.pctx.place(*updated);
                }
                UpdateDecision::Destructive | UpdateDecision::Ignore => {
                    // Counted before max_parallel and canaries hold some back, as Nomad does.
                    group_counts(placer.annotations, &tg.name).destructive_update += 1;
                    destructive.entry(tg.name.as_str()).or_default().push(prev)
                }
            }
        }

        for (node, tg) in missing {
            group_counts(placer.annotations, &tg.name).place += 1;
            tallies.entry(tg.name.clone()).or_default().candidates += 1;
            let previous_terminal = allocs
                .iter()
                .filter(|a| a.terminal() && a.node_id == node.id && a.task_group == tg.name)
                .max_by_key(|a| (a.create_index, a.create_time))
                .map(|a| a.as_ref());
            let placed = placer.place(PlaceRequest {
                node,
                tg,
                replaces: None,
                previous_terminal,
                deployment_id: &deployment_id,
                canary: false,
            });
            if placed.is_none() {
                tallies.entry(tg.name.clone()).or_default().candidates -= 1;
            }
        }

        for tg in &job.task_groups {
            let Some(updates) = destructive.get(tg.name.as_str()) else {
                continue;
            };
            let group_kept = kept.get(tg.name.as_str()).map(Vec::as_slice).unwrap_or(&[]);
            let tally = tallies.entry(tg.name.clone()).or_default();
            // Old allocs past the limit keep running; a later eval replaces them.
            let mut limit = deploy.limit(job, tg, group_kept);
            let mut canaries = None;
            if deploy.canarying(job, tg, updates.len()) {
                let current = deploy.group_state(&tg.name).map(|_| deploy.id());
                let existing: Vec<String> = group_kept
                    .iter()
                    .filter(|a| a.is_canary() && current.as_deref() == Some(&a.deployment_id))
                    .map(|a| a.id.clone())
                    .collect();
                let required = system_strategy(job, tg)
                    .map_or(0, |u| required_canaries(u, updates.len(), existing.len()));
                tally.canarying = true;
                tally.required_canaries = required as i64;
                // Canaries do not use up max_parallel, but none go while it is used up.
                let budget = if limit > 0 {
                    required.saturating_sub(existing.len())
                } else {
                    0
                };
                tally.canary_ids = existing;
                canaries = Some(budget);
            }
            let node_of = |a: &Allocation| eligible.iter().find(|n| n.id == a.node_id);
            for prev in updates {
                let Some(node) = node_of(prev) else {
                    tally.candidates -= 1;
                    continue;
                };
                let budget = canaries.as_mut().unwrap_or(&mut limit);
                if *budget == 0 {
                    if canaries.is_some() {
                        break;
                    }
                    continue;
                }
                *budget -= 1;
                let placed = placer.place(PlaceRequest {
                    node,
                    tg,
                    replaces: Some(prev),
                    previous_terminal: None,
                    deployment_id: &deployment_id,
                    canary: canaries.is_some(),
                });
                match placed {
                    Some(id) if canaries.is_some() => tally.canary_ids.push(id),
                    Some(_) => {}
                    None => {
                        tally.candidates -= 1;
                        // A canary that could not go is tried on the next node.
                        if let Some(b) = canaries.as_mut() {
                            *b += 1;
                        }
                    }
                }
            }
        }

        // A group filtered out on every node, with nothing running anywhere, is reported as
        // failed with the merged filter metrics (Nomad's filteredMetrics).
        for (tg, metric) in std::mem::take(&mut placer.filtered) {
            let has_existing = covered.iter().any(|(_, g)| *g == tg);
            if !placer.placed_any.contains(&tg) && !has_existing && !placer.failed.contains_key(&tg)
            {
                placer.failed.insert(tg, metric);
            }
        }
        if job.r#type == JOB_TYPE_SYSTEM {
            system_counts(placer.annotations, &tallies);
        }
        tallies
    }

    fn decide<'a>(
        &self,
        a: &'a Allocation,
        eligible: &BTreeSet<&str>,
        in_scope: &dyn Fn(&Node) -> bool,
    ) -> Decision<'a> {
        let job = self.job;
        let Some(tg) = job
            .lookup_task_group(&a.task_group)
            .filter(|tg| tg.count > 0)
        else {
            return Decision::Stop(a, STATUS_ALLOC_NOT_NEEDED, None);
        };
        let node = match self.state.node(&a.node_id) {
            Some(n) if n.status != NODE_STATUS_DOWN => n,
            _ => return Decision::Stop(a, STATUS_ALLOC_LOST, Some(ALLOC_CLIENT_LOST)),
        };
        let changed = a.job.as_ref().map(|j| j.job_modify_index) != Some(job.job_modify_index);
        if a.desired_transition.migrate == Some(true) {
            return Decision::Stop(a, STATUS_ALLOC_MIGRATING, None);
        }
        if node.drain || node.drain_strategy.is_some() {
            // The drainer moves system allocs last (or never, with -ignore-system) by marking
            // them; until then they stay.
            return Decision::Keep(a);
        }
        if !in_scope(&node) {
            return Decision::Stop(a, STATUS_ALLOC_NOT_NEEDED, None);
        }
        if !eligible.contains(node.id.as_str()) {
            // Ready-status but ineligible (or not ready yet): keep unless the job changed.
            return if changed {
                Decision::Stop(a, STATUS_ALLOC_NOT_NEEDED, None)
            } else {
                Decision::Keep(a)
            };
        }
        if !node_meets_static(&node, job, tg) {
            return Decision::Stop(a, STATUS_ALLOC_NODE_INFEASIBLE, None);
        }
        if changed {
            return Decision::Replace(a);
        }
        Decision::Keep(a)
    }
}

/// The counts of `group`, created on first use: like Nomad's node reconciler, a group gets
/// counts only once some alloc or node of it is decided.
fn group_counts<'a>(annotations: &'a mut PlanAnnotations, group: &str) -> &'a mut DesiredUpdates {
    annotations
        .desired_tg_updates
        .entry(group.to_string())
        .or_default()
}

/// Nomad's system scheduler reports as `Place` every feasible node that runs or will run the
/// group (kept, updated, replaced and newly placed), and as `Canary` the canaries of the
/// version, those running and those this pass placed.
fn system_counts(annotations: &mut PlanAnnotations, tallies: &BTreeMap<String, GroupTally>) {
    for (group, counts) in annotations.desired_tg_updates.iter_mut() {
        let Some(tally) = tallies.get(group) else {
            continue;
        };
        counts.place = tally.candidates.max(0) as u64;
        if tally.canarying {
            counts.canary = tally.canary_ids.len() as u64;
        }
    }
}

/// Whether the node ran this job version already (a live alloc of any group, or a finished
/// one of this group): placing there again is no rollout.
fn ran_version(allocs: &[Arc<Allocation>], job: &Job, node_id: &str, tg: &TaskGroup) -> bool {
    allocs.iter().any(|a| {
        a.node_id == node_id
            && (!a.terminal() || a.task_group == tg.name)
            && a.job.as_ref().is_some_and(|j| {
                j.id == job.id && j.version == job.version && j.create_index == job.create_index
            })
    })
}

/// The node-only checks (constraints and drivers) that decide whether a running alloc still
/// belongs on its node after the node's attributes, meta or class changed.
fn node_meets_static(node: &Node, job: &Job, tg: &TaskGroup) -> bool {
    job.constraints
        .iter()
        .flatten()
        .all(|c| meets_constraint(c, node))
        && tg.tasks.iter().all(|t| has_driver(node, &t.driver))
        && group_constraints(tg)
            .into_iter()
            .all(|c| meets_constraint(c, node))
}

#[cfg(test)]
#[path = "system_tests.rs"]
mod tests;
