//! The system and sysbatch schedulers (Nomad's `SystemScheduler` with its node reconciler):
//! one alloc per task group on every ready, feasible node of the job's pool and datacenters.
//!
//! Per node and group, what the reconciler decides, as Nomad's `reconcile_node.go`:
//! - a live alloc on a node that is gone or down is lost; one the drainer marked to migrate
//!   stops; on a draining node it otherwise stays (system allocs move last); on a node outside the pool/datacenters, or one whose attributes no longer meet
//!   the constraints, it is not needed (stops); on a ready-but-ineligible node it is kept
//!   unless the job changed;
//! - a live alloc of an older job version is updated in place when only non-destructive
//!   fields changed and its node still fits the new version (same alloc ID, the task keeps
//!   running), otherwise replaced on the same node (destructive);
//! - destructive updates go at most `update.max_parallel` per group per eval; when some are
//!   left, a `rolling-update` eval follows after `update.stagger` (Nomad's `evictAndPlace`
//!   limit and `NextRollingEval`), so a system job rolls across its nodes in batches;
//! - a node without a live alloc gets one, except that sysbatch leaves a node alone once an
//!   alloc of this job version finished there (ran to completion once per node).
//!
//! Placement failures follow Nomad: a node filtered by constraints is not a failure (the job
//! simply does not belong there) unless the group could be placed nowhere at all; a node
//! whose resources are exhausted is, coalesced per group. System evals never block: new
//! capacity arrives as node-update evals.

use super::host_volumes;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use rand::rngs::StdRng;
use rand::{RngCore, SeedableRng};

use crate::api::{
    AllocMetric, AllocatedResources, AllocatedSharedResources, Allocation, Evaluation, Job, Node,
    Plan, TaskGroup, ALLOC_CLIENT_COMPLETE, ALLOC_CLIENT_LOST, ALLOC_CLIENT_PENDING,
    ALLOC_DESIRED_RUN, EVAL_STATUS_COMPLETE, JOB_TYPE_SYSBATCH, JOB_TYPE_SYSTEM, NODE_STATUS_DOWN,
};

use super::feasible::{
    group_constraints, has_driver, job_pool, meets_constraint, node_in_any_dc, node_in_pool,
};
use super::generic::{exhaust_resources, record_preemptions};
use super::node_check::{feasible, Eligibility};
use super::plan_ctx::PlanCtx;
use super::propertyset::DistinctProperties;
use super::ranking::{rank, RankConfig, RankedNode, SelectOptions};
use super::reconcile::{
    UpdateDecision, STATUS_ALLOC_LOST, STATUS_ALLOC_MIGRATING, STATUS_ALLOC_NOT_NEEDED,
    STATUS_ALLOC_UPDATING,
};
use super::{SchedulerContext, SchedulerError, SchedulerResult, StateView};

/// Nomad's `EvalTriggerRollingUpdate`.
pub const TRIGGER_ROLLING_UPDATE: &str = "rolling-update";
/// Nomad's default `update.stagger`.
const DEFAULT_STAGGER: i64 = 30 * crate::api::SECOND;

/// Destructive updates one eval may make in a group: the group's `max_parallel`, else the
/// job's, else all of them.
fn update_limit(job: &Job, tg: &TaskGroup) -> usize {
    let group = tg.update.as_ref().map(|u| u.max_parallel).unwrap_or(0);
    let job_level = job.update.as_ref().map(|u| u.max_parallel).unwrap_or(0);
    match (group, job_level) {
        (g, _) if g > 0 => g as usize,
        (_, j) if j > 0 => j as usize,
        _ => usize::MAX,
    }
}

/// How long the next batch of a rolling update waits.
fn stagger(job: &Job, tg: &TaskGroup) -> i64 {
    tg.update
        .as_ref()
        .map(|u| u.stagger)
        .filter(|s| *s > 0)
        .or_else(|| job.update.as_ref().map(|u| u.stagger).filter(|s| *s > 0))
        .unwrap_or(DEFAULT_STAGGER)
}

/// Nomad's stop description for an alloc whose node no longer meets the job's constraints.
pub const STATUS_ALLOC_NODE_INFEASIBLE: &str = "alloc not needed as node is not feasible";

/// Whether the eval is for the system or sysbatch scheduler.
pub fn is_system_type(job_type: &str) -> bool {
    job_type == JOB_TYPE_SYSTEM || job_type == JOB_TYPE_SYSBATCH
}

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

    let job = state.job(&eval.namespace, &eval.job_id);
    let live_job = job.as_ref().filter(|j| !j.stop).cloned();
    let allocs = state.allocs_by_job(&eval.namespace, &eval.job_id);
    let salt = fnv1a(&eval.id);
    let mut rng = StdRng::seed_from_u64(ctx.seed ^ state.index() ^ salt);
    let mut ids = StdRng::seed_from_u64(ctx.seed.rotate_left(17) ^ salt);
    let mut pctx = PlanCtx::new(state, ctx.now);

    let mut queued: BTreeMap<String, i64> = BTreeMap::new();
    for tg in job.iter().flat_map(|j| j.task_groups.iter()) {
        queued.insert(tg.name.clone(), 0);
    }
    let mut failed: BTreeMap<String, AllocMetric> = BTreeMap::new();
    let mut preempted_jobs = BTreeMap::new();
    let mut rolling_after: Option<i64> = None;

    match &live_job {
        None => {
            for a in allocs.iter().filter(|a| !a.terminal()) {
                pctx.stop(a, STATUS_ALLOC_NOT_NEEDED, None);
            }
        }
        Some(job) => {
            let run = SystemRun {
                eval,
                job,
                ctx,
                state,
            };
            rolling_after = run.reconcile_and_place(
                &allocs,
                &mut pctx,
                &mut rng,
                &mut ids,
                &mut failed,
                &mut queued,
                &mut preempted_jobs,
            );
        }
    }
    let mut followup_evals =
        super::generic::preemption_evals(&preempted_jobs, ctx.seed.rotate_left(59) ^ salt, ctx.now);
    if let Some(stagger) = rolling_after {
        let mut id_rng = StdRng::seed_from_u64(ctx.seed.rotate_left(41) ^ salt);
        followup_evals.push(Evaluation {
            id: seeded_uuid(&mut id_rng),
            namespace: eval.namespace.clone(),
            priority: eval.priority,
            r#type: eval.r#type.clone(),
            triggered_by: TRIGGER_ROLLING_UPDATE.to_string(),
            job_id: eval.job_id.clone(),
            job_modify_index: eval.job_modify_index,
            status: crate::api::EVAL_STATUS_PENDING.to_string(),
            previous_eval: eval.id.clone(),
            wait_until: ctx.now.saturating_add(stagger),
            create_time: ctx.now,
            modify_time: ctx.now,
            ..Default::default()
        });
    }

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
        // System jobs get no deployments in Nomad either.
        deployment: None,
        deployment_updates: Vec::new(),
    };
    out_eval.queued_allocations = Some(queued);
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
}

/// What the node reconciler decided for one (node, group).
enum Decision<'a> {
    Keep,
    Stop(&'a Allocation, &'static str, Option<&'static str>),
    Replace(&'a Allocation),
}

impl SystemRun<'_> {
    #[allow(clippy::too_many_arguments)]
    fn reconcile_and_place(
        &self,
        allocs: &[Arc<Allocation>],
        pctx: &mut PlanCtx<'_>,
        rng: &mut StdRng,
        ids: &mut StdRng,
        failed: &mut BTreeMap<String, AllocMetric>,
        queued: &mut BTreeMap<String, i64>,
        preempted_jobs: &mut BTreeMap<(String, String), Arc<Job>>,
    ) -> Option<i64> {
        let job = self.job;
        let dcs = job.datacenters_or_default();
        let pool = job_pool(job);
        let in_scope = |n: &Node| node_in_pool(n, pool) && node_in_any_dc(n, &dcs);
        let mut by_dc: BTreeMap<String, i64> = BTreeMap::new();
        let eligible: Vec<Arc<Node>> = self
            .state
            .nodes()
            .into_iter()
            .filter(|n| n.ready() && n.drain_strategy.is_none() && in_scope(n))
            .inspect(|n| *by_dc.entry(n.datacenter.clone()).or_insert(0) += 1)
            .collect();
        let eligible_ids: BTreeSet<&str> = eligible.iter().map(|n| n.id.as_str()).collect();

        // Existing allocs: decide each live one; remember which (node, group) stay covered.
        let mut covered: BTreeSet<(String, String)> = BTreeSet::new();
        let mut replace: Vec<&Allocation> = Vec::new();
        for a in allocs.iter().filter(|a| !a.terminal()) {
            match self.decide(a, &eligible_ids, &in_scope) {
                Decision::Keep => {
                    covered.insert((a.node_id.clone(), a.task_group.clone()));
                }
                Decision::Stop(a, desc, status) => pctx.stop(a, desc, status),
                Decision::Replace(a) => {
                    covered.insert((a.node_id.clone(), a.task_group.clone()));
                    replace.push(a);
                }
            }
        }
        // Sysbatch runs once per node and job version: a finished alloc covers its node.
        if job.r#type == JOB_TYPE_SYSBATCH {
            for a in allocs.iter().filter(|a| a.terminal()) {
                let same_version = a
                    .job
                    .as_ref()
                    .is_some_and(|j| j.job_modify_index == job.job_modify_index);
                if same_version && a.client_status == ALLOC_CLIENT_COMPLETE {
                    covered.insert((a.node_id.clone(), a.task_group.clone()));
                }
            }
        }

        let nodes_in_pool = eligible.len() as i64;
        let mut placed_any: BTreeSet<String> = BTreeSet::new();
        let mut filtered: BTreeMap<String, AllocMetric> = BTreeMap::new();
        let mut elig = Eligibility::default();
        let sched_config = self.state.scheduler_config();
        // Updates that need no new task are made in place (Nomad's inplaceUpdate).
        let mut destructive = Vec::new();
        for prev in replace {
            let Some(tg) = job.lookup_task_group(&prev.task_group) else {
                continue;
            };
            match super::generic::update_decision(
                prev,
                job,
                tg,
                self.eval,
                self.state,
                pctx,
                rng,
                &mut elig,
                (self.ctx.now, RankConfig::from_config(&sched_config)),
            ) {
                UpdateDecision::InPlace(updated) => pctx.place(*updated),
                UpdateDecision::Destructive | UpdateDecision::Ignore => destructive.push(prev),
            }
        }
        // The system stack always may evict when preemption is on for its type.
        let opts = SelectOptions {
            config: RankConfig::from_config(&sched_config),
            preempt: sched_config.preemption_enabled(&job.r#type),
            ..Default::default()
        };
        let mut distinct: BTreeMap<String, DistinctProperties> = BTreeMap::new();
        let mut place = |node: &Arc<Node>, tg: &TaskGroup, prev: Option<&Allocation>| {
            if let Some(prev) = prev {
                pctx.stop(prev, STATUS_ALLOC_UPDATING, None);
            }
            let mut metric = AllocMetric {
                nodes_evaluated: 1,
                ..Default::default()
            };
            let props = distinct
                .entry(tg.name.clone())
                .or_insert_with(|| DistinctProperties::new(self.state, job, tg));
            let alloc_name = format!("{}.{}[0]", job.id, tg.name);
            let option = feasible(node, job, tg, pctx, &mut metric, &mut elig)
                .then(|| {
                    if !host_volumes::feasible(node, tg, &alloc_name) {
                        super::node_check::filter_node(
                            &mut metric,
                            node,
                            host_volumes::FILTER_HOST_VOLUMES,
                        );
                        return None;
                    }
                    if !props.is_empty() {
                        props.refresh(self.state, job, pctx);
                        if let Err(reason) = props.check(node) {
                            super::node_check::filter_node(&mut metric, node, &reason);
                            return None;
                        }
                    }
                    rank(node, job, tg, &opts, pctx, rng, &mut metric)
                })
                .flatten();
            metric.nodes_available = by_dc.clone();
            metric.nodes_in_pool = nodes_in_pool;
            metric.node_pool = pool.to_string();
            match option {
                Some((mut ranked, meta)) => {
                    metric.score_meta_data = Some(vec![meta]);
                    let victims = std::mem::take(&mut ranked.preempted);
                    let mut alloc = self.new_alloc(tg, ranked, metric, prev, ids);
                    record_preemptions(&mut alloc, &victims, pctx, preempted_jobs);
                    pctx.place(alloc);
                    placed_any.insert(tg.name.clone());
                }
                None if metric.nodes_filtered > 0 => {
                    merge_filtered(filtered.entry(tg.name.clone()).or_default(), &metric)
                }
                None => {
                    *queued.entry(tg.name.clone()).or_default() += 1;
                    match failed.get_mut(&tg.name) {
                        Some(m) => {
                            m.coalesced_failures += 1;
                            exhaust_resources(m, tg);
                        }
                        None => {
                            exhaust_resources(&mut metric, tg);
                            failed.insert(tg.name.clone(), metric);
                        }
                    }
                    // A replacement that cannot be placed must not stop the old version.
                    if let Some(prev) = prev {
                        pctx.unstop(prev);
                    }
                }
            }
        };

        // Old allocs past the limit keep running; a later eval replaces them.
        let mut budget: BTreeMap<&str, usize> = BTreeMap::new();
        let mut rolling_after: Option<i64> = None;
        for prev in destructive {
            let (Some(node), Some(tg)) = (
                eligible.iter().find(|n| n.id == prev.node_id),
                job.lookup_task_group(&prev.task_group),
            ) else {
                continue;
            };
            let left = budget
                .entry(tg.name.as_str())
                .or_insert_with(|| update_limit(job, tg));
            if *left == 0 {
                let wait = stagger(job, tg);
                rolling_after = Some(rolling_after.map_or(wait, |w| w.min(wait)));
                continue;
            }
            *left -= 1;
            place(node, tg, Some(prev));
        }
        for node in &eligible {
            for tg in &job.task_groups {
                if tg.count == 0 || covered.contains(&(node.id.clone(), tg.name.clone())) {
                    continue;
                }
                place(node, tg, None);
            }
        }
        // A group filtered out on every node, with nothing running anywhere, is reported as
        // failed with the merged filter metrics (Nomad's filteredMetrics).
        for (tg, metric) in filtered {
            let has_existing = covered.iter().any(|(_, g)| *g == tg);
            if !placed_any.contains(&tg) && !has_existing && !failed.contains_key(&tg) {
                failed.insert(tg, metric);
            }
        }
        rolling_after
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
            return Decision::Keep;
        }
        if !in_scope(&node) {
            return Decision::Stop(a, STATUS_ALLOC_NOT_NEEDED, None);
        }
        if !eligible.contains(node.id.as_str()) {
            // Ready-status but ineligible (or not ready yet): keep unless the job changed.
            return if changed {
                Decision::Stop(a, STATUS_ALLOC_NOT_NEEDED, None)
            } else {
                Decision::Keep
            };
        }
        if !node_meets_static(&node, job, tg) {
            return Decision::Stop(a, STATUS_ALLOC_NODE_INFEASIBLE, None);
        }
        if changed {
            return Decision::Replace(a);
        }
        Decision::Keep
    }

    fn new_alloc(
        &self,
        tg: &TaskGroup,
        ranked: RankedNode,
        metric: AllocMetric,
        prev: Option<&Allocation>,
        ids: &mut StdRng,
    ) -> Allocation {
        let job = self.job;
        let (networks, ports) = ranked
            .ports
            .map(|o| (o.networks, o.ports))
            .unwrap_or_default();
        let resources = AllocatedResources {
            shared: AllocatedSharedResources {
                disk_mb: tg.ephemeral_disk.as_ref().map(|d| d.size_mb).unwrap_or(0),
                networks,
                ports,
            },
            task_lifecycles: tg
                .tasks
                .iter()
                .map(|t| (t.name.clone(), t.lifecycle.clone()))
                .collect(),
            tasks: Arc::unwrap_or_clone(ranked.tasks),
        };
        Allocation {
            id: seeded_uuid(ids),
            namespace: job.namespace.clone(),
            eval_id: self.eval.id.clone(),
            // System allocs all carry index 0, as Nomad names them.
            name: format!("{}.{}[0]", job.id, tg.name),
            job_id: job.id.clone(),
            job: Some(job.clone()),
            task_group: tg.name.clone(),
            metrics: Some(Arc::new(metric)),
            node_id: ranked.node.id.clone(),
            node_name: ranked.node.name.clone(),
            allocated_resources: Some(resources),
            desired_status: ALLOC_DESIRED_RUN.to_string(),
            client_status: ALLOC_CLIENT_PENDING.to_string(),
            previous_allocation: prev.map(|p| p.id.clone()).unwrap_or_default(),
            create_time: self.ctx.now,
            modify_time: self.ctx.now,
            ..Default::default()
        }
    }
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

/// Sums the filter counts of several single-node runs (Nomad's `mergeNodeFiltered`).
fn merge_filtered(acc: &mut AllocMetric, m: &AllocMetric) {
    acc.nodes_evaluated += m.nodes_evaluated;
    acc.nodes_filtered += m.nodes_filtered;
    acc.nodes_available = m.nodes_available.clone();
    acc.nodes_in_pool = m.nodes_in_pool;
    acc.node_pool = m.node_pool.clone();
    for (src, dst) in [
        (&m.class_filtered, &mut acc.class_filtered),
        (&m.constraint_filtered, &mut acc.constraint_filtered),
    ] {
        for (k, v) in src.iter().flatten() {
            *dst.get_or_insert_with(BTreeMap::new)
                .entry(k.clone())
                .or_default() += v;
        }
    }
}

/// 64-bit FNV-1a, a stable hash for seeding (same as the generic scheduler's).
fn fnv1a(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

fn seeded_uuid(rng: &mut StdRng) -> String {
    let mut bytes = [0u8; 16];
    rng.fill_bytes(&mut bytes);
    uuid::Builder::from_random_bytes(bytes)
        .into_uuid()
        .to_string()
}

#[cfg(test)]
#[path = "system_tests.rs"]
mod tests;
