//! Evaluations: the unit of scheduling work.

use std::collections::BTreeMap;

use super::alloc::AllocMetric;
use super::job_ops::PlanAnnotations;
use serde::{Deserialize, Serialize};

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
    /// What the scheduler decided per task group on its last pass over this eval (Nomad sets
    /// it on every eval the service, batch, system and sysbatch schedulers finish).
    #[serde(skip_serializing_if = "super::omit::empty")]
    pub plan_annotations: Option<PlanAnnotations>,
    #[serde(skip_serializing_if = "super::omit::empty")]
    pub previous_eval: String,
    #[serde(skip_serializing_if = "super::omit::empty")]
    pub priority: i32,
    #[serde(skip_serializing_if = "super::omit::empty")]
    pub queued_allocations: Option<BTreeMap<String, i64>>,
    /// Every eval linked to this one through next, previous and blocked evals, transitively;
    /// filled only for `GET /v1/evaluation/:id?related=true`, never stored.
    #[serde(skip_serializing_if = "super::omit::empty")]
    pub related_evals: Vec<EvaluationStub>,
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

    /// The evals this one links to, in Nomad's order (next, previous, blocked), unset links
    /// left out.
    pub fn related_ids(&self) -> impl Iterator<Item = &str> {
        [
            self.next_eval.as_str(),
            self.previous_eval.as_str(),
            self.blocked_eval.as_str(),
        ]
        .into_iter()
        .filter(|id| !id.is_empty())
    }
}

/// An eval's summary as listed in another eval's `RelatedEvals`. Unlike `Evaluation`, Nomad's
/// `EvaluationStub` is not an omitempty struct: every key is always written.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct EvaluationStub {
    pub blocked_eval: String,
    pub create_index: u64,
    pub create_time: i64,
    #[serde(rename = "DeploymentID")]
    pub deployment_id: String,
    #[serde(rename = "ID")]
    pub id: String,
    #[serde(rename = "JobID")]
    pub job_id: String,
    pub modify_index: u64,
    pub modify_time: i64,
    pub namespace: String,
    pub next_eval: String,
    #[serde(rename = "NodeID")]
    pub node_id: String,
    pub previous_eval: String,
    pub priority: i32,
    pub status: String,
    pub status_description: String,
    pub triggered_by: String,
    pub r#type: String,
    /// Unix nanoseconds; JSON: RFC 3339, Go's zero time when the eval is not delayed.
    #[serde(with = "super::omit::unix_nanos_time")]
    pub wait_until: i64,
}

impl EvaluationStub {
    pub fn from_eval(e: &Evaluation) -> Self {
        EvaluationStub {
            blocked_eval: e.blocked_eval.clone(),
            create_index: e.create_index,
            create_time: e.create_time,
            deployment_id: e.deployment_id.clone(),
            id: e.id.clone(),
            job_id: e.job_id.clone(),
            modify_index: e.modify_index,
            modify_time: e.modify_time,
            namespace: e.namespace.clone(),
            next_eval: e.next_eval.clone(),
            node_id: e.node_id.clone(),
            previous_eval: e.previous_eval.clone(),
            priority: e.priority,
            status: e.status.clone(),
            status_description: e.status_description.clone(),
            triggered_by: e.triggered_by.clone(),
            r#type: e.r#type.clone(),
            wait_until: e.wait_until,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Restated from a real Nomad 2.0 response (api-samples/GET_v1_evaluation_ID).
    const RECORDED: &str = r#"{
  "CreateIndex": 26,
  "CreateTime": 1796217233018556228,
  "DeploymentID": "df21b4f8-e1ad-75db-8a11-b19e88f2a2e0",
  "ID": "18feb9b2-76f9-2c67-ffab-fdc48f333610",
  "JobID": "example",
  "ModifyIndex": 28,
  "ModifyTime": 1796217233272572912,
  "Namespace": "default",
  "PlanAnnotations": {
    "DesiredTGUpdates": {
      "web": {
        "Canary": 0, "DestructiveUpdate": 0, "Disconnect": 0, "Ignore": 1,
        "InPlaceUpdate": 0, "Migrate": 0, "Place": 0, "Preemptions": 0, "Reconnect": 0,
        "RescheduleLater": 0, "RescheduleNow": 0, "Stop": 0
      }
    },
    "PreemptedAllocs": null
  },
  "Priority": 50,
  "QueuedAllocations": {"web": 0},
  "SnapshotIndex": 26,
  "Status": "complete",
  "TriggeredBy": "deployment-watcher",
  "Type": "service"
}"#;

    #[test]
    fn plan_annotations_read_and_write_as_nomad_records_them() {
        let recorded: serde_json::Value = serde_json::from_str(RECORDED).expect("sample");
        let eval: Evaluation = serde_json::from_str(RECORDED).expect("eval");
        let annotations = eval.plan_annotations.as_ref().expect("annotations");
        assert_eq!(annotations.desired_tg_updates["web"].ignore, 1);
        assert_eq!(annotations.preempted_allocs, None);
        let written = serde_json::to_value(&eval).expect("json");
        assert_eq!(written, recorded);
        // An eval no scheduler finished has no annotations, and no key for them.
        let pending = serde_json::to_value(Evaluation::default()).expect("json");
        assert!(pending.get("PlanAnnotations").is_none(), "{pending}");
    }

    #[test]
    fn a_stub_writes_every_key_sorted_and_a_zero_wait_as_go_zero_time() {
        let eval = Evaluation {
            id: "e1".into(),
            namespace: "default".into(),
            priority: 50,
            next_eval: "e2".into(),
            ..Default::default()
        };
        let stub = EvaluationStub::from_eval(&eval);
        // Nomad's JSON encoder writes struct fields sorted by name, empty ones included.
        let want = concat!(
            r#"{"BlockedEval":"","CreateIndex":0,"CreateTime":0,"DeploymentID":"","ID":"e1","#,
            r#""JobID":"","ModifyIndex":0,"ModifyTime":0,"Namespace":"default","NextEval":"e2","#,
            r#""NodeID":"","PreviousEval":"","Priority":50,"Status":"","StatusDescription":"","#,
            r#""TriggeredBy":"","Type":"","WaitUntil":"0001-01-01T00:00:00Z"}"#
        );
        assert_eq!(serde_json::to_string(&stub).expect("json"), want);
        let back: EvaluationStub = serde_json::from_str(want).expect("read back");
        assert_eq!(back, stub);
    }

    #[test]
    fn related_ids_are_next_previous_blocked_without_the_unset_ones() {
        let eval = Evaluation {
            next_eval: "n".into(),
            blocked_eval: "b".into(),
            ..Default::default()
        };
        assert_eq!(eval.related_ids().collect::<Vec<_>>(), ["n", "b"]);
        assert_eq!(Evaluation::default().related_ids().count(), 0);
    }
}
