//! The scheduler: a pure function of (state snapshot, eval, time, seed) -> plan.
//! It never writes state; the worker submits its plan to the plan applier.
//!
//! [`process_eval`] is the entry: system/sysbatch evals go to `system`, service/batch
//! evals to `generic`. What the worker does with its result:
//! - submit `plan` unless `plan.is_no_op()` (stops in `node_update`, new and in-place
//!   updated allocs in `node_allocation`; every alloc carries its `Job`);
//! - if `blocked_eval` is set, create it (raft) and hand it to the blocked-evals tracker;
//!   `eval.blocked_eval` already holds its ID;
//! - write `eval` back: `complete`, or `failed` for a trigger it cannot handle, or still
//!   `blocked` when a blocked eval ran and again could not place everything (the worker
//!   re-blocks that same eval instead of creating another, as Nomad's ReblockEval).
//!
//! Module map: `reconcile` (what to stop/place/update), `feasible` (node filters),
//! `rank` (fit, ports, cores, binpack/spread fit scores), `stack` (iteration, scoring,
//! limit, metrics), `spread` (spread blocks), `propertyset` (per-value alloc counts for
//! spreads and distinct_property), `preempt` (evicting lower priorities), `update`
//! (destructive vs in-place), `generic` (the service/batch run), `system` (system and
//! sysbatch: one alloc per feasible node; `system_place` places on one node,
//! `system_deploy` rolls system job versions out as deployments), `plan_ctx` (the plan's
//! view of nodes).
//!
//! The operator's scheduler configuration (`StateView::scheduler_config`) picks the fit
//! algorithm, memory oversubscription, the feasibility node limit, and preemption per job
//! type (system by default; service/batch/sysbatch when enabled).
//!
//! Deployments and the `update` block (max_parallel, canaries, promotion) live in
//! `reconcile_deploy`, reschedule delays and follow-up evals in `reconcile_resched`.
//!
//! Device asks are checked (`devices`, Nomad's `DeviceChecker`): the clients fingerprint no
//! device plugins, so a group asking for a device is filtered as "missing devices" everywhere.
//!
//! Known gaps (later issues): granting device instances to allocs and device preemption
//! (Nomad's `PreemptForDevice`), NUMA-aware core selection, CSI volumes, disconnect handling
//! (allocs on disconnected nodes are lost), task-level networks, the Nomad AllocationTime
//! metric (left 0 so plans are reproducible).

use std::sync::Arc;

use crate::api::{Allocation, Deployment, Evaluation, Job, Node, Plan};

pub mod annotate;
#[cfg(test)]
mod annotations_tests;
mod devices;
pub mod diff;
mod diff_fields;
pub mod feasible;
mod generic;
pub mod host_volumes;
#[cfg(test)]
mod invariant_tests;
mod node_check;
#[cfg(test)]
mod placement_tests;
mod plan_ctx;
mod preempt;
mod propertyset;
pub mod rank;
mod ranking;
pub mod ready;
pub mod reconcile;
mod reconcile_deploy;
#[cfg(test)]
mod reconcile_props;
mod reconcile_resched;
mod spread;
mod stack;
mod system;
mod system_deploy;
mod system_place;
#[cfg(test)]
pub(crate) mod testing;
mod update;
mod version;

pub use generic::DESC_BLOCKED_EVAL_FAILED_PLACEMENTS;
pub use reconcile_deploy::running_description as deployment_running_description;
pub use system::{is_system_type, process_system_eval, STATUS_ALLOC_NODE_INFEASIBLE};

/// The scheduler entry: system and sysbatch evals go to the system scheduler, service and
/// batch evals to the generic one.
pub fn process_eval(
    eval: &Evaluation,
    state: &dyn StateView,
    ctx: SchedulerContext,
) -> Result<SchedulerResult, SchedulerError> {
    if is_system_type(&eval.r#type) {
        system::process_system_eval(eval, state, ctx)
    } else {
        generic::process_eval(eval, state, ctx)
    }
}

/// Why a scheduler run could not produce a result at all. Problems the eval itself carries
/// (an unknown trigger) are reported in the returned eval, as Nomad does, not here.
#[derive(Debug, thiserror::Error)]
pub enum SchedulerError {
    #[error(
        "eval {eval_id}: the generic scheduler handles service and batch jobs, not {job_type:?}"
    )]
    UnsupportedType { eval_id: String, job_type: String },
}

/// Read access to a consistent state snapshot. The state store's snapshot implements it;
/// tests implement it over plain vectors.
pub trait StateView: Send + Sync {
    /// The raft index the snapshot reflects.
    fn index(&self) -> u64;
    fn job(&self, namespace: &str, id: &str) -> Option<Arc<Job>>;
    fn node(&self, id: &str) -> Option<Arc<Node>>;
    /// Every node, in ID order.
    fn nodes(&self) -> Vec<Arc<Node>>;
    fn allocs_by_job(&self, namespace: &str, job_id: &str) -> Vec<Arc<Allocation>>;
    fn allocs_by_node(&self, node_id: &str) -> Vec<Arc<Allocation>>;
    fn alloc(&self, id: &str) -> Option<Arc<Allocation>>;
    /// What the node's non-terminal allocs hold; views that keep no per-node sum add them up.
    fn node_held(&self, node_id: &str) -> rank::HeldResources {
        rank::HeldResources::of(self.allocs_by_node(node_id).iter().map(|a| a.as_ref()))
    }
    /// The ready, non-draining nodes in `pool` and one of `dcs` (datacenter globs), in ID
    /// order; the state store memoizes them per version of its nodes table.
    fn ready_nodes(&self, pool: &str, dcs: &[String]) -> Arc<ready::ReadyNodes> {
        Arc::new(ready::ReadyNodes::select(self.nodes().iter(), pool, dcs))
    }
    /// The job's most recent deployment (none by default, for views without deployments).
    fn latest_deployment(&self, _namespace: &str, _job_id: &str) -> Option<Arc<Deployment>> {
        None
    }
    /// The operator's scheduler configuration (Nomad's defaults for views without one).
    fn scheduler_config(&self) -> crate::api::SchedulerConfiguration {
        crate::api::SchedulerConfiguration::default()
    }
}

/// Inputs a scheduler run takes from outside, so runs are reproducible.
#[derive(Debug, Clone, Copy)]
pub struct SchedulerContext {
    /// Unix nanoseconds, stamped on the allocs and evals the run creates.
    pub now: i64,
    /// Seeds the node shuffle and any other random choice.
    pub seed: u64,
}

/// What one scheduler run decided.
#[derive(Debug, Clone, Default)]
pub struct SchedulerResult {
    /// Allocs to stop and to place. May be a no-op.
    pub plan: Plan,
    /// The eval, updated: Status, StatusDescription, FailedTGAllocs, QueuedAllocations,
    /// BlockedEval, PlanAnnotations.
    pub eval: Evaluation,
    /// A new blocked eval when some placements failed for lack of capacity or feasibility.
    pub blocked_eval: Option<Evaluation>,
    /// Delayed evals (`WaitUntil`) that replace failed allocs once their reschedule delay
    /// has passed; the worker creates them with the eval update.
    pub followup_evals: Vec<Evaluation>,
}

/// 64-bit FNV-1a, a stable hash for seeding (std's hasher may change between releases).
pub(crate) fn fnv1a(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// A v4-format UUID from the seeded RNG, so plans are reproducible.
pub(crate) fn seeded_uuid(rng: &mut rand::rngs::StdRng) -> String {
    use rand::RngCore as _;
    let mut bytes = [0u8; 16];
    rng.fill_bytes(&mut bytes);
    uuid::Builder::from_random_bytes(bytes)
        .into_uuid()
        .to_string()
}

/// The outcome of an eval whose trigger the scheduler does not handle: failed, with Nomad's
/// description, and an empty plan.
pub(crate) fn cannot_handle(
    eval: &Evaluation,
    mut out_eval: Evaluation,
    index: u64,
) -> SchedulerResult {
    out_eval.status = crate::api::EVAL_STATUS_FAILED.to_string();
    // Nothing was scheduled, so there is nothing to annotate (not even an earlier pass's).
    out_eval.plan_annotations = None;
    out_eval.status_description = format!(
        "scheduler cannot handle '{}' evaluation reason",
        eval.triggered_by
    );
    SchedulerResult {
        plan: Plan {
            eval_id: eval.id.clone(),
            priority: eval.priority,
            snapshot_index: index,
            ..Default::default()
        },
        eval: out_eval,
        blocked_eval: None,
        followup_evals: Vec::new(),
    }
}
