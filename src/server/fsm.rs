//! The raft log's one command type, and the deterministic apply of it to the state store.
//!
//! Every state change is a `Command`. The leader stamps times and IDs before proposing, so
//! `apply` reads no clock and draws no randomness: every server applies the same log to the
//! same state.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::api::{Allocation, Evaluation, Job, Node};

/// One raft log entry's payload.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Command {
    /// Register or update a job (the job is already canonicalized and versioned by the leader),
    /// with the eval that schedules it.
    JobRegister {
        job: Job,
        eval: Option<Evaluation>,
        submit_time: i64,
    },
    /// Stop (`purge = false`) or remove (`purge = true`) a job, with the eval that stops its
    /// allocs.
    JobDeregister {
        namespace: String,
        job_id: String,
        purge: bool,
        eval: Option<Evaluation>,
        time: i64,
    },
    /// Register or re-register a node.
    NodeRegister { node: Node, time: i64 },
    /// Change a node's status (heartbeat missed, node came back), with evals for its allocs.
    NodeUpdateStatus {
        node_id: String,
        status: String,
        evals: Vec<Evaluation>,
        time: i64,
    },
    /// Client-side updates of allocs (client status, task states), and evals they trigger.
    AllocClientUpdate {
        allocs: Vec<Allocation>,
        evals: Vec<Evaluation>,
        time: i64,
    },
    /// Create or update evals (broker acks, blocked evals, follow-ups).
    EvalUpsert { evals: Vec<Evaluation> },
    /// A committed plan: allocs to stop and allocs to place, plus the eval's own update.
    ApplyPlan {
        job: Option<Arc<Job>>,
        stopped: Vec<Allocation>,
        placed: Vec<Allocation>,
        eval: Option<Evaluation>,
        time: i64,
    },
}

/// What applying a command yields to the proposer.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ApplyResponse {
    /// The raft index the command was applied at.
    pub index: u64,
    /// A validation-level failure detected in apply (e.g. node unknown). Empty on success.
    pub error: String,
}

/// The state machine raft drives. Implemented by the state store; raft only knows this trait.
pub trait Fsm: Send + Sync + 'static {
    /// Apply one committed command at `index`. Must be deterministic.
    fn apply(&self, index: u64, cmd: &Command) -> ApplyResponse;
    /// Serialise the whole state (for a raft snapshot).
    fn snapshot(&self) -> Vec<u8>;
    /// Replace the whole state with a snapshot made by `snapshot`.
    fn restore(&self, data: &[u8]) -> Result<(), String>;
    /// The index of the last applied command.
    fn last_applied(&self) -> u64;
}
