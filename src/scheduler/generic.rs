//! The service and batch scheduler (Nomad's `GenericScheduler`): reconcile, then place what is
//! missing through the stack, then finish the eval (complete, with a blocked eval for what
//! could not be placed).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use rand::rngs::StdRng;
use rand::SeedableRng;

use crate::api::{
    AllocListStub, AllocMetric, AllocatedResources, AllocatedSharedResources, Allocation,
    Evaluation, Job, Plan, PlanAnnotations, TaskGroup, EVAL_STATUS_BLOCKED, EVAL_STATUS_COMPLETE,
    JOB_TYPE_BATCH, JOB_TYPE_SERVICE, NODE_STATUS_DISCONNECTED, NODE_STATUS_DOWN,
    TRIGGER_QUEUED_ALLOCS,
};

use super::feasible::{
    escapes_computed_class, group_affinities, group_constraints, job_pool, node_in_any_dc,
    node_in_pool,
};
use super::node_check::{feasible, Eligibility};
use super::plan_ctx::PlanCtx;
use super::ranking::{rank, RankConfig, RankedNode, SelectOptions};
use super::reconcile::{reconcile, Placement, ReconcileInput, Taint, UpdateDecision};
use super::reconcile_deploy::join_deployment;
use super::reconcile_resched::{default_reschedule_policy, next_delay, next_reschedule_tracker};
use super::stack::Stack;
use super::update::tasks_updated;
use super::{fnv1a, seeded_uuid, SchedulerContext, SchedulerError, SchedulerResult, StateView};

/// Nomad's description on a blocked eval created for failed placements.
pub const DESC_BLOCKED_EVAL_FAILED_PLACEMENTS: &str = "created to place remaining allocations";

/// Triggers the generic scheduler understands (Nomad's list).
const KNOWN_TRIGGERS: &[&str] = &[
    "job-register",
    "job-deregister",
    "node-drain",
    "node-update",
    "alloc-stop",
    "alloc-reschedule",
    "rolling-update",
    "queued-allocs",
    "periodic-job",
    "max-plan-attempts",
    "deployment-watcher",
    "alloc-failure",
    "failed-follow-up",
    "preemption",
    "job-scaling",
    "max-disconnect-timeout",
    "reconnect",
];

/// Runs the generic scheduler for one eval against one snapshot. Pure: the same inputs give
/// the same plan (IDs and port picks come from `ctx.seed`).
pub fn process_eval(
    eval: &Evaluation,
    state: &dyn StateView,
    ctx: SchedulerContext,
) -> Result<SchedulerResult, SchedulerError> {
    if eval.r#type != JOB_TYPE_SERVICE && eval.r#type != JOB_TYPE_BATCH {
        return Err(SchedulerError::UnsupportedType {
            eval_id: eval.id.clone(),
            job_type: eval.r#type.clone(),
        });
    }
    let mut out_eval = eval.clone();
    out_eval.snapshot_index = state.index();
    out_eval.modify_time = ctx.now;
    if !KNOWN_TRIGGERS.contains(&eval.triggered_by.as_str()) {
        return Ok(super::cannot_handle(eval, out_eval, state.index()));
    }

    let job = state.job(&eval.namespace, &eval.job_id);
    let allocs = state.allocs_by_job(&eval.namespace, &eval.job_id);
    let tainted = tainted_nodes(state, &allocs);
    // The eval ID is mixed into every seed so two evals run with the same seed still get
    // distinct alloc IDs.
    let salt = fnv1a(&eval.id);
    let mut rng = StdRng::seed_from_u64(ctx.seed ^ state.index() ^ salt);
    let mut pctx = PlanCtx::new(state, ctx.now);
    let mut elig = Eligibility::default();
    let sched_config = state.scheduler_config();
    let rank_config = RankConfig::from_config(&sched_config);
    let preemption = sched_config.preemption_enabled(&eval.r#type);

    let live_job = job.as_ref().filter(|j| !j.stop).cloned();
    let latest_deployment = state.latest_deployment(&eval.namespace, &eval.job_id);
    let new_deployment_id = {
        let mut id_rng = StdRng::seed_from_u64(ctx.seed.rotate_left(47) ^ salt);
        seeded_uuid(&mut id_rng)
    };
    let recon = {
        let input = ReconcileInput {
            job_id: &eval.job_id,
            job: job.as_deref(),
            allocs: &allocs,
            tainted: &tainted,
            now: ctx.now,
            deployment: latest_deployment.as_deref(),
            new_deployment_id: &new_deployment_id,
        };
        let mut update = |existing: &Allocation, tg: &TaskGroup| match live_job.as_ref() {
            Some(new_job) => update_decision(
                existing,
                new_job,
                tg,
                eval,
                state,
                &mut pctx,
                &mut rng,
                &mut elig,
                (ctx.now, rank_config),
            ),
            None => UpdateDecision::Ignore,
        };
        reconcile(&input, &mut update)
    };

    // Follow-up evals for failed allocs not yet due; the alloc records the eval's ID.
    let mut followup_evals = Vec::new();
    {
        let mut id_rng = StdRng::seed_from_u64(ctx.seed.rotate_left(53) ^ salt);
        for (a, due) in &recon.reschedule_later {
            let followup = Evaluation {
                id: seeded_uuid(&mut id_rng),
                namespace: eval.namespace.clone(),
                priority: eval.priority,
                r#type: eval.r#type.clone(),
                triggered_by: "alloc-failure".to_string(),
                job_id: eval.job_id.clone(),
                job_modify_index: eval.job_modify_index,
                status: crate::api::EVAL_STATUS_PENDING.to_string(),
                status_description: "created for delayed rescheduling".to_string(),
                previous_eval: eval.id.clone(),
                wait_until: *due,
                create_time: ctx.now,
                modify_time: ctx.now,
                ..Default::default()
            };
            let mut updated = (**a).clone();
            updated.followup_eval_id = followup.id.clone();
            pctx.place(updated);
            followup_evals.push(followup);
        }
    }
    for stop in &recon.stops {
        pctx.stop(&stop.alloc, stop.description, stop.client_status);
    }
    // Nomad's planAnnotations: the reconciler's counts, plus the preemptions placing makes.
    let mut annotations = PlanAnnotations {
        desired_tg_updates: recon.desired,
        preempted_allocs: None,
    };
    for mut alloc in recon.inplace {
        if alloc.deployment_id != recon.deployment_id {
            // Health is judged anew for the new deployment.
            alloc.deployment_status = None;
        }
        alloc.deployment_id = recon.deployment_id.clone();
        pctx.place(alloc);
    }

    let mut failed: BTreeMap<String, AllocMetric> = BTreeMap::new();
    let mut preempted_jobs: BTreeMap<(String, String), Arc<Job>> = BTreeMap::new();
    let mut queued: BTreeMap<String, i64> = BTreeMap::new();
    // Nomad reports every group of a known job, stopped ones at 0.
    for tg in job.iter().flat_map(|j| j.task_groups.iter()) {
        queued.insert(tg.name.clone(), 0);
    }
    if let Some(job) = &live_job {
        if !recon.placements.is_empty() {
            let ready = state.ready_nodes(job_pool(job), &job.datacenters_or_default());
            let mut stack = Stack::shuffled(ready.clone(), &mut rng, job.is_batch());
            let mut ids = StdRng::seed_from_u64(ctx.seed.rotate_left(17) ^ salt);
            for p in &recon.placements {
                let Some(tg) = job.lookup_task_group(&p.task_group) else {
                    continue;
                };
                if let Some(m) = failed.get_mut(&tg.name) {
                    m.coalesced_failures += 1;
                    exhaust_resources(m, tg);
                    *queued.entry(tg.name.clone()).or_default() += 1;
                    continue;
                }
                if let (Some(desc), Some(prev)) = (p.stop_previous, &p.previous) {
                    pctx.stop(prev, desc, None);
                }
                let mut opts = SelectOptions {
                    affinities: group_affinities(job, tg),
                    alloc_name: p.name.clone(),
                    config: rank_config,
                    ..Default::default()
                };
                if let (true, Some(prev)) = (p.reschedule, &p.previous) {
                    opts.penalty_nodes = reschedule_penalty_nodes(prev);
                }
                let mut metric = AllocMetric::default();
                let mut option =
                    stack.select(job, tg, &opts, &mut pctx, &mut rng, &mut elig, &mut metric);
                if option.is_none() && preemption {
                    // Nomad's selectNextOption: a second pass that may evict lower priorities.
                    opts.preempt = true;
                    metric = AllocMetric::default();
                    option =
                        stack.select(job, tg, &opts, &mut pctx, &mut rng, &mut elig, &mut metric);
                }
                metric.nodes_available = ready.by_dc.clone();
                metric.nodes_in_pool = ready.len() as i64;
                metric.node_pool = job_pool(job).to_string();
                match option {
                    Some(mut ranked) => {
                        let victims = std::mem::take(&mut ranked.preempted);
                        let mut alloc =
                            new_alloc(eval, job, tg, p, ranked, metric, &mut ids, ctx.now);
                        record_preemptions(
                            &mut alloc,
                            &victims,
                            &mut pctx,
                            &mut preempted_jobs,
                            Some(&mut annotations),
                        );
                        join_deployment(&mut alloc, &recon.deployment_id, p.canary);
                        pctx.place(alloc);
                    }
                    None => {
                        *queued.entry(tg.name.clone()).or_default() += 1;
                        exhaust_resources(&mut metric, tg);
                        failed.insert(tg.name.clone(), metric);
                        if let Some(prev) = &p.previous {
                            // A replacement that cannot be placed must not stop what it
                            // replaces: destructive updates and reschedules retry later.
                            if p.stop_previous.is_some() || p.reschedule {
                                pctx.unstop(prev);
                            }
                        }
                    }
                }
            }
        }
    }

    followup_evals.extend(preemption_evals(
        &preempted_jobs,
        ctx.seed.rotate_left(59) ^ salt,
        ctx.now,
    ));
    // Nomad's setStatus: the eval names the job's deployment (the one this pass created, or
    // the latest one, whatever its status), so `job run` can go on to monitor it.
    if eval.r#type != JOB_TYPE_BATCH {
        out_eval.deployment_id = recon
            .deployment
            .as_ref()
            .map(|d| d.id.clone())
            .or_else(|| latest_deployment.as_ref().map(|d| d.id.clone()))
            .unwrap_or_default();
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
        deployment: recon.deployment,
        deployment_updates: recon.deployment_updates,
    };

    let escaped = live_job.as_ref().is_some_and(|j| job_escapes(j));
    let classes = (!escaped).then(|| elig.classes());
    out_eval.queued_allocations = Some(queued);
    out_eval.status_description = String::new();
    let mut blocked_eval = None;
    if failed.is_empty() || eval.status != EVAL_STATUS_BLOCKED {
        // Nomad's setStatus records them with the outcome; a re-blocked eval keeps its own.
        out_eval.plan_annotations = Some(annotations);
    }
    if failed.is_empty() {
        out_eval.failed_tg_allocs = None;
        out_eval.status = EVAL_STATUS_COMPLETE.to_string();
    } else if eval.status == EVAL_STATUS_BLOCKED {
        // A blocked eval that still cannot place everything is re-blocked by the worker
        // rather than spawning another blocked eval.
        out_eval.failed_tg_allocs = Some(failed);
        out_eval.class_eligibility = classes;
        out_eval.escaped_computed_class = escaped;
    } else {
        let mut id_rng = StdRng::seed_from_u64(ctx.seed.rotate_left(31) ^ salt);
        let blocked = Evaluation {
            id: seeded_uuid(&mut id_rng),
            namespace: eval.namespace.clone(),
            priority: eval.priority,
            r#type: eval.r#type.clone(),
            triggered_by: TRIGGER_QUEUED_ALLOCS.to_string(),
            job_id: eval.job_id.clone(),
            job_modify_index: eval.job_modify_index,
            status: EVAL_STATUS_BLOCKED.to_string(),
            status_description: DESC_BLOCKED_EVAL_FAILED_PLACEMENTS.to_string(),
            previous_eval: eval.id.clone(),
            failed_tg_allocs: Some(failed.clone()),
            class_eligibility: classes,
            escaped_computed_class: escaped,
            snapshot_index: state.index(),
            create_time: ctx.now,
            modify_time: ctx.now,
            ..Default::default()
        };
        out_eval.blocked_eval = blocked.id.clone();
        out_eval.failed_tg_allocs = Some(failed);
        out_eval.status = EVAL_STATUS_COMPLETE.to_string();
        blocked_eval = Some(blocked);
    }

    Ok(SchedulerResult {
        plan,
        eval: out_eval,
        blocked_eval,
        followup_evals,
    })
}

/// Nodes holding the job's allocs that are gone, down, disconnected or draining.
fn tainted_nodes(state: &dyn StateView, allocs: &[Arc<Allocation>]) -> BTreeMap<String, Taint> {
    let mut out = BTreeMap::new();
    let ids: BTreeSet<&str> = allocs.iter().map(|a| a.node_id.as_str()).collect();
    for id in ids {
        match state.node(id) {
            None => {
                out.insert(id.to_string(), Taint::Lost);
            }
            Some(n) if n.status == NODE_STATUS_DOWN || n.status == NODE_STATUS_DISCONNECTED => {
                out.insert(id.to_string(), Taint::Lost);
            }
            Some(n) if n.drain || n.drain_strategy.is_some() => {
                out.insert(id.to_string(), Taint::Draining);
            }
            Some(_) => {}
        }
    }
    out
}

fn job_escapes(job: &Job) -> bool {
    escapes_computed_class(job.constraints.iter().flatten())
        || job
            .task_groups
            .iter()
            .any(|tg| escapes_computed_class(group_constraints(tg)))
}

/// Nomad's `genericAllocUpdateFn`: destructive when tasks changed or the alloc's node can no
/// longer take the new group; otherwise an in-place copy on the same node.
#[allow(clippy::too_many_arguments)]
pub(super) fn update_decision(
    existing: &Allocation,
    new_job: &Arc<Job>,
    tg: &TaskGroup,
    eval: &Evaluation,
    state: &dyn StateView,
    pctx: &mut PlanCtx<'_>,
    rng: &mut StdRng,
    elig: &mut Eligibility,
    (now, config): (i64, RankConfig),
) -> UpdateDecision {
    let Some(old_job) = existing.job.as_ref() else {
        return UpdateDecision::Destructive;
    };
    if tasks_updated(new_job, old_job, &tg.name).is_some() {
        return UpdateDecision::Destructive;
    }
    let Some(node) = state.node(&existing.node_id) else {
        return UpdateDecision::Destructive;
    };
    if !node_in_any_dc(&node, &new_job.datacenters_or_default())
        || !node_in_pool(&node, job_pool(new_job))
    {
        return UpdateDecision::Destructive;
    }
    // Discount the alloc being updated while checking the node, as Nomad stages its eviction.
    let already_stopped = pctx.is_stopped(&existing.id);
    pctx.stop(existing, super::reconcile::STATUS_ALLOC_IN_PLACE, None);
    let mut metric = AllocMetric::default();
    let mut no_ports = tg.clone();
    // Ports are kept from the existing alloc, so they are not re-asked for.
    no_ports.networks = None;
    let fit = feasible(&node, new_job, &no_ports, pctx, &mut metric, elig)
        .then(|| {
            rank(
                &node,
                new_job,
                &no_ports,
                &SelectOptions {
                    config,
                    ..Default::default()
                },
                pctx,
                rng,
                &mut metric,
            )
        })
        .flatten();
    if !already_stopped {
        pctx.unstop(existing);
    }
    if fit.is_none() {
        return UpdateDecision::Destructive;
    }
    let mut updated = existing.clone();
    let old = existing.allocated_resources.clone().unwrap_or_default();
    let mut tasks = super::ranking::task_resources(tg, config.oversubscribe);
    for (name, tr) in tasks.iter_mut() {
        if let Some(prev) = old.tasks.get(name) {
            tr.networks = prev.networks.clone();
            tr.devices = prev.devices.clone();
        }
    }
    updated.allocated_resources = Some(AllocatedResources {
        shared: AllocatedSharedResources {
            disk_mb: tg.ephemeral_disk.as_ref().map(|d| d.size_mb).unwrap_or(0),
            networks: old.shared.networks.clone(),
            ports: old.shared.ports.clone(),
        },
        task_lifecycles: tg
            .tasks
            .iter()
            .map(|t| (t.name.clone(), t.lifecycle.clone()))
            .collect(),
        tasks,
    });
    updated.eval_id = eval.id.clone();
    updated.job = Some(new_job.clone());
    updated.modify_time = now;
    UpdateDecision::InPlace(Box::new(updated))
}

/// Nomad's `ExhaustResources`: when a dimension ran out, the group's per-task asks of it are
/// added up in `ResourcesExhausted` (once per failed placement, coalesced ones included).
pub(crate) fn exhaust_resources(m: &mut AllocMetric, tg: &TaskGroup) {
    let Some(dims) = m.dimension_exhausted.as_ref() else {
        return;
    };
    let (mem, cpu) = (dims.contains_key("memory"), dims.contains_key("cpu"));
    let mut all: BTreeMap<String, crate::api::Resources> = m
        .resources_exhausted
        .take()
        .and_then(|v| serde_json::from_value(v).ok())
        .unwrap_or_default();
    for t in &tg.tasks {
        let e = all.entry(t.name.clone()).or_default();
        let r = t.resources.clone().unwrap_or_default();
        if mem {
            e.memory_mb += r.memory_mb;
        }
        if cpu {
            e.cpu += r.cpu;
        }
    }
    m.resources_exhausted = serde_json::to_value(all).ok();
}

/// Stages the victims' eviction and records them on the preempting alloc; remembers their
/// jobs for the follow-up evals. With `annotations`, each victim also counts as a preemption
/// of the preempting alloc's group and is listed as it was before (Nomad's
/// handlePreemptions).
pub(crate) fn record_preemptions(
    alloc: &mut Allocation,
    victims: &[Arc<Allocation>],
    pctx: &mut PlanCtx<'_>,
    jobs: &mut BTreeMap<(String, String), Arc<Job>>,
    annotations: Option<&mut PlanAnnotations>,
) {
    if victims.is_empty() {
        return;
    }
    if let Some(a) = annotations {
        let group = a.desired_tg_updates.entry(alloc.task_group.clone());
        group.or_default().preemptions += victims.len() as u64;
        let listed = a.preempted_allocs.get_or_insert_with(Vec::new);
        listed.extend(victims.iter().map(|v| AllocListStub::from_alloc(v)));
    }
    for v in victims {
        pctx.evict(v, &alloc.id);
        if let Some(j) = &v.job {
            jobs.insert((v.namespace.clone(), v.job_id.clone()), j.clone());
        }
    }
    alloc.preempted_allocations = Some(victims.iter().map(|v| v.id.clone()).collect());
}

/// One pending eval per preempted job (Nomad's plan applier creates these with trigger
/// `preemption`), so the evicted allocs are replaced where they fit.
pub(crate) fn preemption_evals(
    jobs: &BTreeMap<(String, String), Arc<Job>>,
    seed: u64,
    now: i64,
) -> Vec<Evaluation> {
    let mut id_rng = StdRng::seed_from_u64(seed);
    jobs.values()
        .map(|j| Evaluation {
            id: seeded_uuid(&mut id_rng),
            namespace: j.namespace.clone(),
            priority: j.priority,
            r#type: j.r#type.clone(),
            triggered_by: "preemption".to_string(),
            job_id: j.id.clone(),
            job_modify_index: j.job_modify_index,
            status: crate::api::EVAL_STATUS_PENDING.to_string(),
            create_time: now,
            modify_time: now,
            ..Default::default()
        })
        .collect()
}

/// The node the failed alloc ran on and every node its earlier attempts ran on.
fn reschedule_penalty_nodes(prev: &Allocation) -> BTreeSet<String> {
    let mut out: BTreeSet<String> = [prev.node_id.clone()].into();
    let events = prev
        .reschedule_tracker
        .as_ref()
        .and_then(|t| t.get("Events"))
        .and_then(serde_json::Value::as_array);
    for e in events.into_iter().flatten() {
        if let Some(node) = e.get("PrevNodeID").and_then(serde_json::Value::as_str) {
            out.insert(node.to_string());
        }
    }
    out
}

#[allow(clippy::too_many_arguments)]
fn new_alloc(
    eval: &Evaluation,
    job: &Arc<Job>,
    tg: &TaskGroup,
    p: &Placement,
    ranked: RankedNode,
    metric: AllocMetric,
    ids: &mut StdRng,
    now: i64,
) -> Allocation {
    let mut alloc = Allocation {
        id: seeded_uuid(ids),
        eval_id: eval.id.clone(),
        name: p.name.clone(),
        ..ranked.into_alloc(job, tg, metric, now)
    };
    if let Some(prev) = &p.previous {
        alloc.previous_allocation = prev.id.clone();
        if p.reschedule {
            let policy = tg
                .reschedule_policy
                .clone()
                .unwrap_or_else(|| default_reschedule_policy(&job.r#type));
            let delay = next_delay(prev, &policy);
            alloc.reschedule_tracker = Some(next_reschedule_tracker(prev, now, delay));
        }
    }
    alloc
}

#[cfg(test)]
#[path = "generic_tests.rs"]
mod tests;
