//! Core garbage collection (Nomad's core scheduler: job, eval, deployment and node GC).
//!
//! The leader decides what is garbage from a snapshot and a clock reading, then proposes one
//! `Command::Reap`; every server deletes the same objects. `collect` is pure, so the rules are
//! tested with fixed times. A forced GC (`nomad system gc`) uses a zero threshold for every
//! kind of object, as Nomad's force-gc does.

use std::collections::BTreeSet;
use std::time::Duration;

use serde_json::Value;

use super::fsm::Command;
use super::state::{Reap, StateSnapshot};
use super::{Server, ServerError};
use crate::api::{
    now_nanos, Allocation, Evaluation, Job, ALLOC_CLIENT_FAILED, ALLOC_CLIENT_RUNNING,
    ALLOC_DESIRED_STOP, JOB_STATUS_DEAD, JOB_TYPE_BATCH, JOB_TYPE_SYSBATCH, NODE_STATUS_DOWN,
};

/// How old each kind of terminal object must be before it is collected (the `server` block's
/// `*_gc_threshold` settings; Nomad's defaults).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GcThresholds {
    pub job: Duration,
    pub eval: Duration,
    pub batch_eval: Duration,
    pub deployment: Duration,
    pub node: Duration,
    /// How often the leader looks for garbage (`job_gc_interval`).
    pub interval: Duration,
}

impl Default for GcThresholds {
    fn default() -> Self {
        GcThresholds {
            job: Duration::from_secs(4 * 3600),
            eval: Duration::from_secs(3600),
            batch_eval: Duration::from_secs(24 * 3600),
            deployment: Duration::from_secs(3600),
            node: Duration::from_secs(24 * 3600),
            interval: Duration::from_secs(5 * 60),
        }
    }
}

impl GcThresholds {
    /// Every threshold zero: what `nomad system gc` asks for.
    pub fn forced() -> Self {
        GcThresholds {
            job: Duration::ZERO,
            eval: Duration::ZERO,
            batch_eval: Duration::ZERO,
            deployment: Duration::ZERO,
            node: Duration::ZERO,
            interval: Duration::ZERO,
        }
    }
}

fn cutoff(now: i64, threshold: Duration) -> i64 {
    now.saturating_sub(i64::try_from(threshold.as_nanos()).unwrap_or(i64::MAX))
}

/// Everything that is garbage at `now` (unix nanoseconds) under `t`.
pub fn collect(snap: &StateSnapshot, now: i64, t: &GcThresholds) -> Reap {
    let mut reap = Reap::default();
    let mut evals = BTreeSet::new();
    let mut allocs = BTreeSet::new();

    // Jobs: dead (or stopped) jobs whose every eval and alloc is collectable go whole.
    let job_cutoff = cutoff(now, t.job);
    for job in snap.jobs(None) {
        if !job_gc_able(&job) || job.submit_time > job_cutoff {
            continue;
        }
        let mut job_evals = Vec::new();
        let mut job_allocs = Vec::new();
        let all = snap.evals_for_job(&job.namespace, &job.id).iter().all(|e| {
            let (gc, ids) = eval_gc(snap, e, job_cutoff, now, true);
            job_evals.push(e.id.clone());
            job_allocs.extend(ids);
            gc
        });
        let tagged = snap
            .job_versions(&job.namespace, &job.id)
            .iter()
            .any(|v| v.version_tag.is_some());
        if all && !tagged {
            reap.jobs.push((job.namespace.clone(), job.id.clone()));
            evals.extend(job_evals);
            allocs.extend(job_allocs);
            // Unlike Nomad, no terminal alloc of a removed job is left behind without its
            // eval (e.g. one whose eval an operator deleted).
            allocs.extend(
                snap.allocs_for_job(&job.namespace, &job.id)
                    .iter()
                    .filter(|a| a.terminal())
                    .map(|a| a.id.clone()),
            );
        }
    }

    // Evals (and their allocs) on their own.
    let eval_cutoff = cutoff(now, t.eval);
    let batch_cutoff = cutoff(now, t.batch_eval);
    for e in snap.evals(None) {
        let c = if e.r#type == JOB_TYPE_BATCH {
            batch_cutoff
        } else {
            eval_cutoff
        };
        let (gc, ids) = eval_gc(snap, &e, c, now, false);
        if gc {
            evals.insert(e.id.clone());
        }
        allocs.extend(ids);
    }

    // Deployments no longer active, with no live alloc pointing at them.
    let dep_cutoff = cutoff(now, t.deployment);
    for d in snap.deployments(None) {
        if d.active() || d.modify_time > dep_cutoff {
            continue;
        }
        let referenced = snap
            .allocs_for_job(&d.namespace, &d.job_id)
            .iter()
            .any(|a| a.deployment_id == d.id && !a.terminal() && !allocs.contains(&a.id));
        if !referenced {
            reap.deployments.push(d.id.clone());
        }
    }

    // Down nodes whose allocs are all terminal (last: their allocs may have just gone).
    let node_cutoff_secs = cutoff(now, t.node) / 1_000_000_000;
    for n in snap.nodes_list() {
        if n.status != NODE_STATUS_DOWN || n.status_updated_at > node_cutoff_secs {
            continue;
        }
        if snap.allocs_for_node(&n.id).iter().all(|a| a.terminal()) {
            reap.nodes.push(n.id.clone());
        }
    }

    reap.evals = evals.into_iter().collect();
    reap.allocs = allocs.into_iter().collect();
    reap
}

/// Nomad's `jobIsGCable`: periodic and parameterized parents only once stopped, others once
/// dead (and, for services and system jobs, stopped).
fn job_gc_able(job: &Job) -> bool {
    if job.version_tag.is_some() {
        return false;
    }
    let periodic = job
        .periodic
        .as_ref()
        .is_some_and(|p| p.get("Enabled").and_then(Value::as_bool) != Some(false));
    if periodic || job.parameterized_job.is_some() {
        return job.stop;
    }
    if job.status != JOB_STATUS_DEAD {
        return false;
    }
    // Batch work finishes on its own; services and system jobs go only once stopped.
    job.stop || job.r#type == JOB_TYPE_BATCH || job.r#type == JOB_TYPE_SYSBATCH
}

/// Whether the eval can go, and which of its allocs can (Nomad's `gcEval`).
fn eval_gc(
    snap: &StateSnapshot,
    eval: &Evaluation,
    cutoff: i64,
    now: i64,
    allow_batch: bool,
) -> (bool, Vec<String>) {
    if !eval.terminal() || eval.modify_time > cutoff {
        return (false, Vec::new());
    }
    let job = snap.job_by_id(&eval.namespace, &eval.job_id);
    let allocs = snap.allocs_for_eval(&eval.id);
    if eval.r#type == JOB_TYPE_BATCH {
        // The newest allocs of a live batch job stay: without them it would run again.
        let collect = match &job {
            None => true,
            Some(j) => j.status == JOB_STATUS_DEAD && (j.stop || allow_batch),
        };
        if let (false, Some(j)) = (collect, &job) {
            let old: Vec<String> = allocs
                .iter()
                .filter(|a| {
                    a.create_index < j.job_modify_index && a.modify_time < cutoff && a.terminal()
                })
                .map(|a| a.id.clone())
                .collect();
            return (old.len() == allocs.len(), old);
        }
    }
    let mut all = true;
    let mut ids = Vec::new();
    for a in &allocs {
        if alloc_gc_able(a, job.as_deref(), now, cutoff) {
            ids.push(a.id.clone());
        } else {
            all = false;
        }
    }
    (all, ids)
}

/// Nomad's `allocGCEligible`: terminal and old, and not still needed to enforce its group's
/// reschedule policy.
fn alloc_gc_able(a: &Allocation, job: Option<&Job>, now: i64, cutoff: i64) -> bool {
    if !a.terminal() || a.modify_time > cutoff || a.client_status == ALLOC_CLIENT_RUNNING {
        return false;
    }
    let Some(job) = job.filter(|j| !j.stop && j.status != JOB_STATUS_DEAD) else {
        return true;
    };
    if a.desired_status == ALLOC_DESIRED_STOP || a.client_status != ALLOC_CLIENT_FAILED {
        return true;
    }
    let policy = job
        .lookup_task_group(&a.task_group)
        .and_then(|g| g.reschedule_policy.as_ref());
    let Some(policy) = policy.filter(|p| p.unlimited || p.attempts != 0) else {
        return true;
    };
    if !a.next_allocation.is_empty() {
        return true;
    }
    if policy.unlimited {
        return false;
    }
    let last = a
        .reschedule_tracker
        .as_ref()
        .and_then(|t| t.get("Events"))
        .and_then(Value::as_array)
        .and_then(|ev| ev.last())
        .and_then(|ev| ev.get("RescheduleTime"))
        .and_then(Value::as_i64);
    match last {
        None => false,
        Some(t) => now - t > policy.interval,
    }
}

/// Collect and reap now; returns what was removed.
pub async fn run_once(server: &Server, t: &GcThresholds) -> Result<Reap, ServerError> {
    let snap = server.state().snapshot();
    let reap = collect(&snap, now_nanos(), t);
    if !reap.is_empty() {
        server.propose(Command::Reap(reap.clone())).await?;
    }
    Ok(reap)
}

/// The leader's periodic GC pass.
pub(crate) async fn run(server: Server, t: GcThresholds) {
    let every = t.interval.max(Duration::from_secs(1));
    let mut tick = tokio::time::interval(every);
    tick.tick().await;
    loop {
        tokio::select! {
            _ = server.shutdown_token().cancelled() => return,
            _ = tick.tick() => {}
        }
        if !server.is_leader() {
            continue;
        }
        match run_once(&server, &t).await {
            Ok(r) if !r.is_empty() => tracing::debug!(
                jobs = r.jobs.len(),
                evals = r.evals.len(),
                allocs = r.allocs.len(),
                deployments = r.deployments.len(),
                nodes = r.nodes.len(),
                "core GC reaped"
            ),
            Ok(_) => {}
            Err(e) => tracing::warn!(error = %e, "core GC"),
        }
    }
}
