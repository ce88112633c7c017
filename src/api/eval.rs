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
    #[serde(skip_serializing_if = "super::omit::empty")]
    pub annotate_plan: bool,
    #[serde(skip_serializing_if = "super::omit::empty")]
    pub blocked_eval: String,
    #[serde(skip_serializing_if = "super::omit::empty")]
    pub class_eligibility: Option<BTreeMap<String, bool>>,
    #[serde(skip_serializing_if = "super::omit::empty")]
    pub create_index: u64,
    #[serde(skip_serializing_if = "super::omit::empty")]
    pub create_time: i64,
    #[serde(rename = "DeploymentID")]
    #[serde(skip_serializing_if = "super::omit::empty")]
    pub deployment_id: String,
    #[serde(skip_serializing_if = "super::omit::empty")]
    pub escaped_computed_class: bool,
    #[serde(rename = "FailedTGAllocs")]
    #[serde(skip_serializing_if = "super::omit::empty")]
    pub failed_tg_allocs: Option<BTreeMap<String, AllocMetric>>,
    #[serde(rename = "ID")]
    #[serde(skip_serializing_if = "super::omit::empty")]
    pub id: String,
    #[serde(rename = "JobID")]
    #[serde(skip_serializing_if = "super::omit::empty")]
    pub job_id: String,
    #[serde(skip_serializing_if = "super::omit::empty")]
    pub job_modify_index: u64,
    #[serde(skip_serializing_if = "super::omit::empty")]
    pub modify_index: u64,
    #[serde(skip_serializing_if = "super::omit::empty")]
    pub modify_time: i64,
    #[serde(skip_serializing_if = "super::omit::empty")]
    pub namespace: String,
    #[serde(skip_serializing_if = "super::omit::empty")]
    pub next_eval: String,
    #[serde(rename = "NodeID")]
    #[serde(skip_serializing_if = "super::omit::empty")]
    pub node_id: String,
    #[serde(skip_serializing_if = "super::omit::empty")]
    pub node_modify_index: u64,
    #[serde(skip_serializing_if = "super::omit::empty")]
    pub plan_annotations: Option<Value>,
    #[serde(skip_serializing_if = "super::omit::empty")]
    pub previous_eval: String,
    #[serde(skip_serializing_if = "super::omit::empty")]
    pub priority: i32,
    #[serde(skip_serializing_if = "super::omit::empty")]
    pub queued_allocations: Option<BTreeMap<String, i64>>,
    #[serde(skip_serializing_if = "super::omit::empty")]
    pub snapshot_index: u64,
    #[serde(skip_serializing_if = "super::omit::empty")]
    pub status: String,
    #[serde(skip_serializing_if = "super::omit::empty")]
    pub status_description: String,
    #[serde(skip_serializing_if = "super::omit::empty")]
    pub triggered_by: String,
    #[serde(skip_serializing_if = "super::omit::empty")]
    pub r#type: String,
    /// Nanoseconds to wait before the eval is eligible to run.
    #[serde(skip_serializing_if = "super::omit::empty")]
    pub wait: i64,
    /// Unix nanoseconds; 0 if not delayed. JSON: RFC 3339, as Nomad's `time.Time`.
    #[serde(
        skip_serializing_if = "super::omit::empty",
        with = "super::omit::unix_nanos_time"
    )]
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
