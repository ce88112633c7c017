//! Allocations: one task group placed on one node, with what the client reports back.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::job::{Job, NetworkResource, Resources, TaskGroup};

pub const ALLOC_DESIRED_RUN: &str = "run";
pub const ALLOC_DESIRED_STOP: &str = "stop";
pub const ALLOC_DESIRED_EVICT: &str = "evict";

pub const ALLOC_CLIENT_PENDING: &str = "pending";
pub const ALLOC_CLIENT_RUNNING: &str = "running";
pub const ALLOC_CLIENT_COMPLETE: &str = "complete";
pub const ALLOC_CLIENT_FAILED: &str = "failed";
pub const ALLOC_CLIENT_LOST: &str = "lost";
pub const ALLOC_CLIENT_UNKNOWN: &str = "unknown";

pub const TASK_STATE_PENDING: &str = "pending";
pub const TASK_STATE_RUNNING: &str = "running";
pub const TASK_STATE_DEAD: &str = "dead";

// Task event types, with Nomad's exact strings.
pub const TASK_RECEIVED: &str = "Received";
pub const TASK_SETUP: &str = "Task Setup";
pub const TASK_STARTED: &str = "Started";
pub const TASK_TERMINATED: &str = "Terminated";
pub const TASK_KILLING: &str = "Killing";
pub const TASK_KILLED: &str = "Killed";
pub const TASK_RESTARTING: &str = "Restarting";
pub const TASK_NOT_RESTARTING: &str = "Not Restarting";
pub const TASK_DRIVER_FAILURE: &str = "Driver Failure";
pub const TASK_SETUP_FAILURE: &str = "Setup Failure";
pub const TASK_SIBLING_FAILED: &str = "Sibling Task Failed";

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct Allocation {
    #[serde(skip_serializing_if = "super::omit::empty")]
    pub alloc_modify_index: u64,
    #[serde(skip_serializing_if = "super::omit::empty")]
    pub allocated_resources: Option<AllocatedResources>,
    #[serde(skip_serializing_if = "super::omit::empty")]
    pub client_description: String,
    #[serde(skip_serializing_if = "super::omit::empty")]
    pub client_status: String,
    #[serde(skip_serializing_if = "super::omit::empty")]
    pub create_index: u64,
    #[serde(skip_serializing_if = "super::omit::empty")]
    pub create_time: i64,
    #[serde(rename = "DeploymentID")]
    #[serde(skip_serializing_if = "super::omit::empty")]
    pub deployment_id: String,
    #[serde(skip_serializing_if = "super::omit::empty")]
    pub deployment_status: Option<Value>,
    #[serde(skip_serializing_if = "super::omit::empty")]
    pub desired_description: String,
    #[serde(skip_serializing_if = "super::omit::empty")]
    pub desired_status: String,
    #[serde(skip_serializing_if = "super::omit::empty")]
    pub desired_transition: DesiredTransition,
    #[serde(rename = "EvalID")]
    #[serde(skip_serializing_if = "super::omit::empty")]
    pub eval_id: String,
    #[serde(rename = "FollowupEvalID")]
    #[serde(skip_serializing_if = "super::omit::empty")]
    pub followup_eval_id: String,
    #[serde(rename = "ID")]
    #[serde(skip_serializing_if = "super::omit::empty")]
    pub id: String,
    /// The job version this alloc runs. Shared with other allocs of the same version.
    #[serde(skip_serializing_if = "super::omit::empty")]
    pub job: Option<Arc<Job>>,
    #[serde(rename = "JobID")]
    #[serde(skip_serializing_if = "super::omit::empty")]
    pub job_id: String,
    #[serde(skip_serializing_if = "super::omit::empty")]
    pub metrics: Option<Arc<AllocMetric>>,
    #[serde(skip_serializing_if = "super::omit::empty")]
    pub modify_index: u64,
    #[serde(skip_serializing_if = "super::omit::empty")]
    pub modify_time: i64,
    #[serde(skip_serializing_if = "super::omit::empty")]
    pub name: String,
    #[serde(skip_serializing_if = "super::omit::empty")]
    pub namespace: String,
    #[serde(skip_serializing_if = "super::omit::empty")]
    pub network_status: Option<Value>,
    #[serde(skip_serializing_if = "super::omit::empty")]
    pub next_allocation: String,
    #[serde(rename = "NodeID")]
    #[serde(skip_serializing_if = "super::omit::empty")]
    pub node_id: String,
    #[serde(skip_serializing_if = "super::omit::empty")]
    pub node_name: String,
    /// IDs of the allocs this one preempted when it was placed.
    #[serde(skip_serializing_if = "super::omit::empty")]
    pub preempted_allocations: Option<Vec<String>>,
    /// The alloc that preempted this one.
    #[serde(skip_serializing_if = "super::omit::empty")]
    pub preempted_by_allocation: String,
    #[serde(skip_serializing_if = "super::omit::empty")]
    pub previous_allocation: String,
    #[serde(skip_serializing_if = "super::omit::empty")]
    pub reschedule_tracker: Option<Value>,
    #[serde(skip_serializing_if = "super::omit::empty")]
    pub task_group: String,
    #[serde(skip_serializing_if = "super::omit::empty")]
    pub task_states: Option<BTreeMap<String, TaskState>>,
}

impl Allocation {
    /// The server will not run this alloc any more (desired stop/evict).
    pub fn server_terminal(&self) -> bool {
        self.desired_status == ALLOC_DESIRED_STOP || self.desired_status == ALLOC_DESIRED_EVICT
    }

    /// The client has finished with this alloc.
    pub fn client_terminal(&self) -> bool {
        matches!(
            self.client_status.as_str(),
            ALLOC_CLIENT_COMPLETE | ALLOC_CLIENT_FAILED | ALLOC_CLIENT_LOST
        )
    }

    pub fn terminal(&self) -> bool {
        self.server_terminal() || self.client_terminal()
    }

    /// The name index `N` in `job.group[N]`.
    pub fn index(&self) -> Option<u32> {
        let open = self.name.rfind('[')?;
        self.name[open + 1..].strip_suffix(']')?.parse().ok()
    }

    pub fn job_version(&self) -> u64 {
        self.job.as_ref().map(|j| j.version).unwrap_or(0)
    }

    /// What the alloc holds on its node, as a flat sum.
    pub fn comparable_resources(&self) -> Resources {
        let mut r = Resources::default();
        if let Some(ar) = &self.allocated_resources {
            for t in ar.tasks.values() {
                r.cpu += t.cpu.cpu_shares;
                r.memory_mb += t.memory.memory_mb;
                r.memory_max_mb += t.memory.memory_max_mb.max(t.memory.memory_mb);
            }
            r.disk_mb = ar.shared.disk_mb;
        }
        r
    }

    /// Host ports this alloc holds.
    pub fn reserved_ports(&self) -> Vec<i32> {
        self.allocated_resources
            .as_ref()
            .map(|ar| ar.shared.ports.iter().map(|p| p.value).collect())
            .unwrap_or_default()
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct DesiredTransition {
    pub migrate: Option<bool>,
    /// Nomad 2.0: a drain's migration stops the alloc without placing a replacement.
    pub migrate_disable_placement: Option<bool>,
    pub no_shutdown_delay: Option<bool>,
    pub reschedule: Option<bool>,
    pub force_reschedule: Option<bool>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct AllocatedResources {
    pub shared: AllocatedSharedResources,
    pub task_lifecycles: BTreeMap<String, Option<Value>>,
    pub tasks: BTreeMap<String, AllocatedTaskResources>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct AllocatedSharedResources {
    #[serde(rename = "DiskMB")]
    pub disk_mb: i64,
    /// Nomad sends `null` for an alloc without networks/ports (e.g. batch jobs).
    #[serde(deserialize_with = "null_as_default")]
    pub networks: Vec<NetworkResource>,
    #[serde(deserialize_with = "null_as_default")]
    pub ports: Vec<AllocatedPortMapping>,
}

fn null_as_default<'de, D, T>(d: D) -> Result<T, D::Error>
where
    D: serde::Deserializer<'de>,
    T: Default + Deserialize<'de>,
{
    Ok(Option::<T>::deserialize(d)?.unwrap_or_default())
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct AllocatedPortMapping {
    #[serde(rename = "HostIP")]
    pub host_ip: String,
    pub label: String,
    #[serde(skip_serializing_if = "is_zero")]
    pub to: i32,
    pub value: i32,
}

fn is_zero(v: &i32) -> bool {
    *v == 0
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct AllocatedTaskResources {
    pub cpu: AllocatedCpuResources,
    pub devices: Option<Value>,
    pub memory: AllocatedMemoryResources,
    pub networks: Option<Vec<NetworkResource>>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct AllocatedCpuResources {
    pub cpu_shares: i64,
    pub reserved_cores: Option<Vec<u32>>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct AllocatedMemoryResources {
    #[serde(rename = "MemoryMB")]
    pub memory_mb: i64,
    #[serde(rename = "MemoryMaxMB")]
    pub memory_max_mb: i64,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct TaskState {
    pub events: Vec<TaskEvent>,
    pub failed: bool,
    /// RFC 3339 or null, as Nomad.
    pub finished_at: Option<String>,
    pub last_restart: Option<String>,
    pub paused: String,
    pub restarts: u64,
    pub started_at: Option<String>,
    pub state: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct TaskEvent {
    pub details: BTreeMap<String, String>,
    pub disk_limit: i64,
    pub display_message: String,
    pub download_error: String,
    pub driver_error: String,
    pub driver_message: String,
    pub exit_code: i32,
    pub failed_sibling: String,
    pub fails_task: bool,
    pub generic_source: String,
    pub kill_error: String,
    pub kill_reason: String,
    pub kill_timeout: i64,
    pub message: String,
    pub restart_reason: String,
    pub setup_error: String,
    pub signal: i32,
    pub start_delay: i64,
    pub task_signal: String,
    pub task_signal_reason: String,
    pub time: i64,
    pub r#type: String,
    pub validation_error: String,
    pub vault_error: String,
}

impl TaskEvent {
    pub fn new(kind: &str, time: i64) -> Self {
        TaskEvent {
            r#type: kind.to_string(),
            time,
            ..Default::default()
        }
    }
}

/// Scheduler metrics for one placement attempt (Nomad's `AllocMetric`), shown by
/// `alloc status -verbose` and in an eval's `FailedTGAllocs`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct AllocMetric {
    pub allocation_time: i64,
    pub class_exhausted: Option<BTreeMap<String, i64>>,
    pub class_filtered: Option<BTreeMap<String, i64>>,
    pub coalesced_failures: i64,
    pub constraint_filtered: Option<BTreeMap<String, i64>>,
    pub dimension_exhausted: Option<BTreeMap<String, i64>>,
    pub node_pool: String,
    pub nodes_available: BTreeMap<String, i64>,
    pub nodes_evaluated: i64,
    pub nodes_exhausted: i64,
    pub nodes_filtered: i64,
    pub nodes_in_pool: i64,
    pub quota_exhausted: Option<Vec<String>>,
    pub resources_exhausted: Option<Value>,
    pub score_meta_data: Option<Vec<NodeScoreMeta>>,
    pub scores: Option<BTreeMap<String, f64>>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct NodeScoreMeta {
    #[serde(rename = "NodeID")]
    pub node_id: String,
    pub norm_score: f64,
    /// Scorer name -> score. The scheduler's names are static: borrowed, they cost no
    /// allocation in each of the (up to five) options every placed alloc keeps.
    pub scores: BTreeMap<std::borrow::Cow<'static, str>, f64>,
}

/// One row of `GET /v1/allocations` and `/v1/job/:id/allocations`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct AllocListStub {
    /// Only with `?resources=true` (Nomad omits the key otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub allocated_resources: Option<AllocatedResources>,
    pub client_description: String,
    pub client_status: String,
    pub create_index: u64,
    pub create_time: i64,
    pub deployment_status: Option<Value>,
    pub desired_description: String,
    pub desired_status: String,
    pub desired_transition: DesiredTransition,
    #[serde(rename = "EvalID")]
    pub eval_id: String,
    #[serde(rename = "FollowupEvalID")]
    pub followup_eval_id: String,
    #[serde(rename = "ID")]
    pub id: String,
    #[serde(rename = "JobID")]
    pub job_id: String,
    pub job_type: String,
    pub job_version: u64,
    pub modify_index: u64,
    pub modify_time: i64,
    pub name: String,
    pub namespace: String,
    pub next_allocation: String,
    #[serde(rename = "NodeID")]
    pub node_id: String,
    pub node_name: String,
    pub preempted_allocations: Option<Vec<String>>,
    pub preempted_by_allocation: String,
    pub reschedule_tracker: Option<Value>,
    pub task_group: String,
    pub task_states: Option<BTreeMap<String, TaskState>>,
}

impl AllocListStub {
    pub fn from_alloc(a: &Allocation) -> Self {
        AllocListStub {
            allocated_resources: None,
            client_description: a.client_description.clone(),
            client_status: a.client_status.clone(),
            create_index: a.create_index,
            create_time: a.create_time,
            deployment_status: a.deployment_status.clone(),
            desired_description: a.desired_description.clone(),
            desired_status: a.desired_status.clone(),
            desired_transition: a.desired_transition.clone(),
            eval_id: a.eval_id.clone(),
            followup_eval_id: a.followup_eval_id.clone(),
            id: a.id.clone(),
            job_id: a.job_id.clone(),
            job_type: a.job.as_ref().map(|j| j.r#type.clone()).unwrap_or_default(),
            job_version: a.job_version(),
            modify_index: a.modify_index,
            modify_time: a.modify_time,
            name: a.name.clone(),
            namespace: a.namespace.clone(),
            next_allocation: a.next_allocation.clone(),
            node_id: a.node_id.clone(),
            node_name: a.node_name.clone(),
            preempted_allocations: a.preempted_allocations.clone(),
            preempted_by_allocation: a.preempted_by_allocation.clone(),
            reschedule_tracker: a.reschedule_tracker.clone(),
            task_group: a.task_group.clone(),
            task_states: a.task_states.clone(),
        }
    }
}

impl Allocation {
    /// The alloc's task group in the job it carries.
    pub fn task_group_def(&self) -> Option<&TaskGroup> {
        self.job.as_deref()?.lookup_task_group(&self.task_group)
    }
}
