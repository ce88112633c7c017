//! Plans: what a scheduler wants done, and what the plan applier committed.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::alloc::Allocation;
use super::deployment::{Deployment, DeploymentStatusUpdate};
use super::eval::Evaluation;
use super::job::Job;

/// The output of one scheduler run for one eval.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct Plan {
    pub eval_id: String,
    pub eval_token: String,
    pub priority: i32,
    pub all_at_once: bool,
    /// The job the placements belong to (None for a pure stop of a deregistered job).
    pub job: Option<Arc<Job>>,
    /// Node ID -> allocs to stop/evict there (each carries its new desired status/description).
    pub node_update: BTreeMap<String, Vec<Allocation>>,
    /// Node ID -> allocs to place or update in place there.
    pub node_allocation: BTreeMap<String, Vec<Allocation>>,
    /// The snapshot index the scheduler read; the applier re-checks nodes newer than it.
    pub snapshot_index: u64,
    /// A deployment to create or update with this plan.
    pub deployment: Option<Deployment>,
    /// Status changes of other deployments (e.g. cancelling one for an older job version).
    pub deployment_updates: Vec<DeploymentStatusUpdate>,
}

impl Plan {
    pub fn is_no_op(&self) -> bool {
        self.node_update.values().all(Vec::is_empty)
            && self.node_allocation.values().all(Vec::is_empty)
            && self.deployment.is_none()
            && self.deployment_updates.is_empty()
    }
}

/// What the plan applier committed of a plan.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct PlanResult {
    pub node_update: BTreeMap<String, Vec<Allocation>>,
    pub node_allocation: BTreeMap<String, Vec<Allocation>>,
    /// Nodes the applier refused (they no longer fit); the scheduler retries those.
    pub rejected_nodes: Vec<String>,
    /// Raft index the result was committed at (0 if nothing was committed).
    pub alloc_index: u64,
    /// Set when the applier saw a newer state than the scheduler: refresh before retrying.
    pub refresh_index: u64,
}

impl PlanResult {
    /// Whether every placement of `plan` was committed.
    pub fn full_commit(&self, plan: &Plan) -> bool {
        let expected: usize = plan.node_allocation.values().map(Vec::len).sum();
        let actual: usize = self.node_allocation.values().map(Vec::len).sum();
        expected == actual && self.rejected_nodes.is_empty()
    }
}

/// Evals a scheduler creates or updates as part of finishing its eval.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct EvalUpdate {
    pub evals: Vec<Evaluation>,
}
