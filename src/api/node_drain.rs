//! Node drain and scheduling eligibility: the drain strategy a node carries while it drains,
//! the record of its last drain, and the request/response bodies of `/v1/node/<id>/drain` and
//! `/v1/node/<id>/eligibility`.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

pub const DRAIN_STATUS_DRAINING: &str = "draining";
pub const DRAIN_STATUS_COMPLETE: &str = "complete";
pub const DRAIN_STATUS_CANCELED: &str = "canceled";

/// What the operator asked for (Nomad's `DrainSpec`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct DrainSpec {
    /// Nanoseconds after the start when remaining allocs are stopped: `< 0` forces an
    /// immediate stop, `0` means no deadline.
    pub deadline: i64,
    /// Leave system job allocs on the node.
    pub ignore_system_jobs: bool,
}

/// A node's drain while it runs (Nomad's `DrainStrategy`: the spec plus stamped times).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct DrainStrategy {
    pub deadline: i64,
    pub ignore_system_jobs: bool,
    /// RFC 3339; `ZERO_TIME` (Go's zero time) when the drain has no deadline or is forced.
    pub force_deadline: String,
    /// RFC 3339.
    pub started_at: String,
}

impl DrainStrategy {
    /// Nomad's `DeadlineTime`: `(true, _)` when the drain is forced (negative deadline),
    /// `(false, None)` without a deadline, else the deadline in Unix nanoseconds.
    pub fn deadline_time(&self) -> (bool, Option<i64>) {
        if self.deadline < 0 {
            return (true, None);
        }
        if self.deadline == 0 {
            return (false, None);
        }
        (false, super::parse_rfc3339(&self.force_deadline))
    }

    /// Whether the deadline has passed at `now` (a forced drain always has).
    pub fn deadline_passed(&self, now: i64) -> bool {
        match self.deadline_time() {
            (true, _) => true,
            (false, Some(t)) => now >= t,
            (false, None) => false,
        }
    }

    /// Nomad's `DrainStrategy.String`, printed by the drain monitor.
    pub fn describe(&self) -> String {
        if self.ignore_system_jobs {
            format!(
                "drain ignoring system jobs and deadline at {}",
                self.force_deadline
            )
        } else {
            format!("drain with deadline at {}", self.force_deadline)
        }
    }
}

/// The record of a node's most recent drain (Nomad's `DrainMetadata`, `Node.LastDrain`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct DrainMetadata {
    /// RFC 3339, second precision.
    pub started_at: String,
    /// RFC 3339, second precision.
    pub updated_at: String,
    /// `draining`, `complete` or `canceled`.
    pub status: String,
    #[serde(rename = "AccessorID")]
    pub accessor_id: String,
    pub meta: Option<BTreeMap<String, String>>,
}

/// Body of `PUT /v1/node/<id>/drain` (Nomad's `api.NodeUpdateDrainRequest`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct NodeUpdateDrainRequest {
    #[serde(rename = "NodeID")]
    pub node_id: String,
    /// `None` disables the drain.
    pub drain_spec: Option<DrainSpec>,
    /// On disable, make the node eligible again.
    pub mark_eligible: bool,
    pub meta: Option<BTreeMap<String, String>>,
}

/// Answer of the drain and eligibility endpoints.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct NodeUpdateResponse {
    pub node_modify_index: u64,
    #[serde(rename = "EvalIDs")]
    pub eval_ids: Option<Vec<String>>,
    pub eval_create_index: u64,
    pub index: u64,
}

/// Body of `PUT /v1/node/<id>/eligibility`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct NodeUpdateEligibilityRequest {
    #[serde(rename = "NodeID")]
    pub node_id: String,
    pub eligibility: String,
}

/// Body of `POST /v1/client/metadata` (Nomad's `NodeMetaApplyRequest`): a `None` value
/// unsets the key.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct NodeMetaApplyRequest {
    #[serde(rename = "NodeID")]
    pub node_id: String,
    pub meta: BTreeMap<String, Option<String>>,
}

/// Answer of `/v1/client/metadata` (Nomad's `NodeMetaResponse`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct NodeMetaResponse {
    /// The effective meta: static (agent config) merged with dynamic.
    pub meta: BTreeMap<String, String>,
    /// Dynamic entries; a `None` value is a static key unset dynamically.
    pub dynamic: BTreeMap<String, Option<String>>,
    #[serde(rename = "Static")]
    pub static_: BTreeMap<String, String>,
}

/// Eval trigger of the drainer's evals.
pub const TRIGGER_NODE_DRAIN: &str = "node-drain";
