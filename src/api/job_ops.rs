//! Request and response bodies of the job operations beyond register/deregister: plan,
//! dispatch, periodic force and scale (Nomad's `JobPlanRequest`, `JobDispatchRequest`,
//! `JobScaleRequest`, ... in its `api` package).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::alloc::{AllocListStub, AllocMetric};
use super::diff::JobDiff;
use super::eval::Evaluation;
use super::job::Job;

/// Body of `POST /v1/job/:id/plan`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct JobPlanRequest {
    pub job: Option<Job>,
    pub diff: bool,
    pub policy_override: bool,
}

/// What the scheduler would do to one task group (Nomad's `DesiredUpdates`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct DesiredUpdates {
    pub canary: u64,
    pub destructive_update: u64,
    pub disconnect: u64,
    pub ignore: u64,
    pub in_place_update: u64,
    pub migrate: u64,
    pub place: u64,
    pub preemptions: u64,
    pub reconnect: u64,
    pub reschedule_later: u64,
    pub reschedule_now: u64,
    pub stop: u64,
}

/// Nomad's `PlanAnnotations`: per-group desired updates and preempted allocs, on a job plan
/// response and on every scheduled eval. Every `DesiredUpdates` key is written, and
/// `PreemptedAllocs` is `null` when nothing was preempted, as Nomad's JSON has them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct PlanAnnotations {
    #[serde(rename = "DesiredTGUpdates")]
    pub desired_tg_updates: BTreeMap<String, DesiredUpdates>,
    pub preempted_allocs: Option<Vec<AllocListStub>>,
}

/// Response of `POST /v1/job/:id/plan`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct JobPlanResponse {
    pub annotations: Option<PlanAnnotations>,
    pub created_evals: Option<Vec<Evaluation>>,
    pub diff: Option<JobDiff>,
    #[serde(rename = "FailedTGAllocs")]
    pub failed_tg_allocs: Option<BTreeMap<String, AllocMetric>>,
    pub index: u64,
    pub job_modify_index: u64,
    /// RFC 3339; null unless the job is periodic.
    pub next_periodic_launch: Option<String>,
    pub warnings: String,
}

/// Body of `POST /v1/job/:id/dispatch`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct JobDispatchRequest {
    #[serde(rename = "JobID")]
    pub job_id: String,
    /// Base64 in JSON, as Go encodes a `[]byte`.
    #[serde(with = "base64_opt")]
    pub payload: Vec<u8>,
    pub meta: Option<BTreeMap<String, String>>,
    pub id_prefix_template: String,
    /// 0: the parent's priority.
    pub priority: i32,
}

/// Response of `POST /v1/job/:id/dispatch`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct JobDispatchResponse {
    #[serde(rename = "DispatchedJobID")]
    pub dispatched_job_id: String,
    pub eval_create_index: u64,
    #[serde(rename = "EvalID")]
    pub eval_id: String,
    pub index: u64,
    pub job_create_index: u64,
}

/// Response of `POST /v1/job/:id/periodic/force`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct PeriodicForceResponse {
    pub eval_create_index: u64,
    #[serde(rename = "EvalID")]
    pub eval_id: String,
    pub index: u64,
}

/// Body of `POST /v1/job/:id/scale`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct JobScaleRequest {
    /// `{"Group": "<name>"}`.
    pub target: BTreeMap<String, String>,
    pub count: Option<i64>,
    pub message: String,
    pub error: bool,
    pub meta: Option<BTreeMap<String, serde_json::Value>>,
    pub policy_override: bool,
    /// Non-zero: scale only if the job's modify index still is this.
    pub job_modify_index: u64,
}

/// One recorded scaling action (Nomad's `ScalingEvent`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct ScalingEvent {
    pub count: Option<i64>,
    pub create_index: u64,
    pub error: bool,
    #[serde(rename = "EvalID")]
    pub eval_id: Option<String>,
    pub message: String,
    pub meta: Option<BTreeMap<String, serde_json::Value>>,
    pub previous_count: i64,
    pub time: u64,
}

/// One group in `GET /v1/job/:id/scale` (Nomad's `TaskGroupScaleStatus`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct TaskGroupScaleStatus {
    pub desired: i64,
    pub events: Option<Vec<ScalingEvent>>,
    pub healthy: i64,
    pub placed: i64,
    pub running: i64,
    pub unhealthy: i64,
}

/// Response of `GET /v1/job/:id/scale` (Nomad's `JobScaleStatusResponse`).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct JobScaleStatus {
    pub job_create_index: u64,
    #[serde(rename = "JobID")]
    pub job_id: String,
    pub job_modify_index: u64,
    pub job_stopped: bool,
    pub namespace: String,
    pub task_groups: BTreeMap<String, TaskGroupScaleStatus>,
}

/// Go's `[]byte` in JSON: base64, `null` when empty.
mod base64_opt {
    use base64::Engine as _;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(v: &[u8], s: S) -> Result<S::Ok, S::Error> {
        if v.is_empty() {
            s.serialize_none()
        } else {
            s.serialize_str(&base64::engine::general_purpose::STANDARD.encode(v))
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        match Option::<String>::deserialize(d)? {
            None => Ok(Vec::new()),
            Some(s) => base64::engine::general_purpose::STANDARD
                .decode(s.as_bytes())
                .map_err(serde::de::Error::custom),
        }
    }
}

impl Job {
    /// A parameterized template (not one of its dispatched children): it is never scheduled.
    pub fn is_parameterized(&self) -> bool {
        self.parameterized_job.is_some() && !self.dispatched
    }

    /// A periodic template: its launches are scheduled, it is not.
    pub fn is_periodic(&self) -> bool {
        self.periodic.is_some()
    }

    /// Periodic and parameterized templates get no evals of their own.
    pub fn is_template(&self) -> bool {
        self.is_periodic() || self.is_parameterized()
    }
}
