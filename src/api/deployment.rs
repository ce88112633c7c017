//! Deployments: the rollout of one job version that has an `update` block, tracked per task
//! group (Nomad's `structs.Deployment`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::alloc::Allocation;

pub const DEPLOYMENT_STATUS_RUNNING: &str = "running";
pub const DEPLOYMENT_STATUS_PAUSED: &str = "paused";
pub const DEPLOYMENT_STATUS_FAILED: &str = "failed";
pub const DEPLOYMENT_STATUS_SUCCESSFUL: &str = "successful";
pub const DEPLOYMENT_STATUS_CANCELLED: &str = "cancelled";
pub const DEPLOYMENT_STATUS_BLOCKED: &str = "blocked";
pub const DEPLOYMENT_STATUS_UNBLOCKING: &str = "unblocking";
pub const DEPLOYMENT_STATUS_PENDING: &str = "pending";
pub const DEPLOYMENT_STATUS_INITIALIZING: &str = "initializing";

// Nomad's status descriptions, verbatim.
pub const DESC_RUNNING: &str = "Deployment is running";
pub const DESC_RUNNING_NEEDS_PROMOTION: &str =
    "Deployment is running but requires manual promotion";
pub const DESC_RUNNING_AUTO_PROMOTION: &str = "Deployment is running pending automatic promotion";
pub const DESC_PAUSED: &str = "Deployment is paused";
pub const DESC_SUCCESSFUL: &str = "Deployment completed successfully";
pub const DESC_STOPPED_JOB: &str = "Cancelled because job is stopped";
pub const DESC_NEWER_JOB: &str = "Cancelled due to newer version of job";
pub const DESC_FAILED_ALLOCATIONS: &str = "Failed due to unhealthy allocations";
pub const DESC_PROGRESS_DEADLINE: &str = "Failed due to progress deadline";
pub const DESC_FAILED_BY_USER: &str = "Deployment marked as failed";

/// "… - rolling back to job version N" is appended on auto-revert, as Nomad does.
pub fn desc_rollback(base: &str, version: u64) -> String {
    format!("{base} - rolling back to job version {version}")
}

/// "… - no stable job version to auto revert to" when there is nothing to revert to.
pub fn desc_no_rollback_target(base: &str) -> String {
    format!("{base} - no stable job version to auto revert to")
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct Deployment {
    pub create_index: u64,
    pub create_time: i64,
    pub eval_priority: i32,
    #[serde(rename = "ID")]
    pub id: String,
    pub is_multiregion: bool,
    pub job_create_index: u64,
    #[serde(rename = "JobID")]
    pub job_id: String,
    pub job_modify_index: u64,
    pub job_spec_modify_index: u64,
    pub job_version: u64,
    pub modify_index: u64,
    pub modify_time: i64,
    pub namespace: String,
    pub status: String,
    pub status_description: String,
    pub task_groups: BTreeMap<String, DeploymentState>,
}

impl Deployment {
    /// Running, paused, pending or being unblocked: the deployment can still make progress.
    pub fn active(&self) -> bool {
        matches!(
            self.status.as_str(),
            DEPLOYMENT_STATUS_RUNNING
                | DEPLOYMENT_STATUS_PAUSED
                | DEPLOYMENT_STATUS_BLOCKED
                | DEPLOYMENT_STATUS_UNBLOCKING
                | DEPLOYMENT_STATUS_PENDING
                | DEPLOYMENT_STATUS_INITIALIZING
        )
    }

    /// Some group has canaries that were not promoted yet.
    pub fn requires_promotion(&self) -> bool {
        self.task_groups
            .values()
            .any(|s| s.desired_canaries > 0 && !s.promoted)
    }

    /// Every group with canaries auto-promotes.
    pub fn has_auto_promote(&self) -> bool {
        let canaried: Vec<_> = self
            .task_groups
            .values()
            .filter(|s| s.desired_canaries > 0)
            .collect();
        !canaried.is_empty() && canaried.iter().all(|s| s.auto_promote)
    }
}

/// Per task group progress of a deployment.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct DeploymentState {
    pub auto_promote: bool,
    pub auto_revert: bool,
    pub desired_canaries: i64,
    pub desired_total: i64,
    pub healthy_allocs: i64,
    pub placed_allocs: i64,
    /// IDs of the canaries placed so far; Nomad prints `null` when none.
    pub placed_canaries: Option<Vec<String>>,
    pub progress_deadline: i64,
    pub promoted: bool,
    /// RFC 3339 time the next alloc must be healthy by (Go's zero time when not set).
    pub require_progress_by: String,
    pub unhealthy_allocs: i64,
}

/// Go's zero `time.Time` as Nomad prints it.
pub const ZERO_TIME: &str = "0001-01-01T00:00:00Z";

/// The health the client reports for an alloc that belongs to a deployment.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct AllocDeploymentStatus {
    pub canary: bool,
    pub healthy: Option<bool>,
    pub modify_index: u64,
    pub timestamp: String,
}

impl AllocDeploymentStatus {
    pub fn of(alloc: &Allocation) -> Option<AllocDeploymentStatus> {
        alloc
            .deployment_status
            .as_ref()
            .and_then(|v| serde_json::from_value(v.clone()).ok())
    }

    pub fn to_value(&self) -> serde_json::Value {
        serde_json::to_value(self).unwrap_or_default()
    }
}

impl Allocation {
    pub fn is_canary(&self) -> bool {
        AllocDeploymentStatus::of(self).is_some_and(|s| s.canary)
    }

    /// `Some(true)` healthy, `Some(false)` unhealthy, `None` not yet known.
    pub fn deployment_healthy(&self) -> Option<bool> {
        AllocDeploymentStatus::of(self).and_then(|s| s.healthy)
    }
}

/// A status change of a deployment, committed with a plan or on its own.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct DeploymentStatusUpdate {
    #[serde(rename = "DeploymentID")]
    pub deployment_id: String,
    pub status: String,
    pub status_description: String,
}

/// Answer of the deployment write endpoints.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct DeploymentUpdateResponse {
    #[serde(rename = "EvalID")]
    pub eval_id: String,
    pub eval_create_index: u64,
    pub deployment_modify_index: u64,
    pub reverted_job_version: Option<u64>,
    pub index: u64,
}
