//! Evaluations: the unit of scheduling work.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::alloc::AllocMetric;

pub const EVAL_STATUS_BLOCKED: &str = "blocked";
pub const EVAL_STATUS_PENDING: &str = "pending";
pub const EVAL_STATUS_COMPLETE: &str = "complete";
pub const EVAL_STATUS_FAILED: &str = "failed";
pub const EVAL_STATUS_CANCELED: &str = "canceled";

pub const TRIGGER_JOB_REGISTER: &str = "job-register";
pub const TRIGGER_JOB_DEREGISTER: &str = "job-deregister";
pub const TRIGGER_NODE_UPDATE: &str = "node-update";
pub const TRIGGER_ALLOC_STOP: &str = "alloc-stop";
pub const TRIGGER_RETRY_FAILED_ALLOC: &str = "alloc-failure";
pub const TRIGGER_QUEUED_ALLOCS: &str = "queued-allocs";
pub const TRIGGER_MAX_PLANS: &str = "max-plan-attempts";

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct Evaluation {
    pub annotate_plan: bool,
    pub blocked_eval: String,
    pub class_eligibility: Option<BTreeMap<String, bool>>,
    pub create_index: u64,
    pub create_time: i64,
    #[serde(rename = "DeploymentID")]
    pub deployment_id: String,
    pub escaped_computed_class: bool,
    #[serde(rename = "FailedTGAllocs")]
    pub failed_tg_allocs: Option<BTreeMap<String, AllocMetric>>,
    #[serde(rename = "ID")]
    pub id: String,
    #[serde(rename = "JobID")]
    pub job_id: String,
    pub job_modify_index: u64,
    pub modify_index: u64,
    pub modify_time: i64,
    pub namespace: String,
    pub next_eval: String,
    #[serde(rename = "NodeID")]
    pub node_id: String,
    pub node_modify_index: u64,
    pub plan_annotations: Option<Value>,
    pub previous_eval: String,
    pub priority: i32,
    pub queued_allocations: Option<BTreeMap<String, i64>>,
    pub snapshot_index: u64,
    pub status: String,
    pub status_description: String,
    pub triggered_by: String,
    pub r#type: String,
    /// Nanoseconds to wait before the eval is eligible to run.
    pub wait: i64,
    /// Unix nanoseconds; 0 if not delayed.
    pub wait_until: i64,
}

impl Evaluation {
    pub fn terminal(&self) -> bool {
        matches!(
            self.status.as_str(),
            EVAL_STATUS_COMPLETE | EVAL_STATUS_FAILED | EVAL_STATUS_CANCELED
        )
    }
}
