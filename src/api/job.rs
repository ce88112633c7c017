//! Jobs and everything a job contains (task groups, tasks, resources, policies).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

pub const JOB_TYPE_SERVICE: &str = "service";
pub const JOB_TYPE_BATCH: &str = "batch";
pub const JOB_TYPE_SYSTEM: &str = "system";
pub const JOB_TYPE_SYSBATCH: &str = "sysbatch";

pub const JOB_STATUS_PENDING: &str = "pending";
pub const JOB_STATUS_RUNNING: &str = "running";
pub const JOB_STATUS_DEAD: &str = "dead";

pub const JOB_DEFAULT_PRIORITY: i32 = 50;

/// A job as Nomad's `api.Job` / `structs.Job`. Every field is present in JSON (null when unset),
/// as Nomad prints it.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct Job {
    pub affinities: Option<Value>,
    pub all_at_once: bool,
    pub constraints: Option<Vec<Constraint>>,
    pub consul_namespace: String,
    pub create_index: u64,
    pub datacenters: Option<Vec<String>>,
    pub dispatch_idempotency_token: String,
    pub dispatched: bool,
    #[serde(rename = "ID")]
    pub id: String,
    pub job_modify_index: u64,
    pub meta: Option<BTreeMap<String, String>>,
    pub modify_index: u64,
    pub multiregion: Option<Value>,
    pub name: String,
    pub namespace: String,
    pub node_pool: String,
    #[serde(rename = "NomadTokenID")]
    pub nomad_token_id: String,
    pub parameterized_job: Option<Value>,
    #[serde(rename = "ParentID")]
    pub parent_id: String,
    pub payload: Option<Value>,
    pub periodic: Option<Value>,
    pub priority: i32,
    pub region: String,
    pub spreads: Option<Value>,
    pub stable: bool,
    pub status: String,
    pub status_description: String,
    pub stop: bool,
    pub submit_time: i64,
    pub task_groups: Vec<TaskGroup>,
    pub r#type: String,
    #[serde(rename = "UI")]
    pub ui: Option<Value>,
    pub update: Option<UpdateStrategy>,
    pub vault_namespace: String,
    pub version: u64,
    pub version_tag: Option<JobVersionTag>,
}

/// A name an operator gave one job version (`nomad job tag apply`): tagged versions are kept
/// by the garbage collector and can be reverted to by name.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct JobVersionTag {
    pub name: String,
    pub description: String,
    /// Unix nanoseconds, stamped by the leader.
    pub tagged_time: i64,
}

impl Job {
    pub fn is_batch(&self) -> bool {
        self.r#type == JOB_TYPE_BATCH || self.r#type == JOB_TYPE_SYSBATCH
    }

    pub fn lookup_task_group(&self, name: &str) -> Option<&TaskGroup> {
        self.task_groups.iter().find(|tg| tg.name == name)
    }

    /// Datacenters, with Nomad's default `["*"]` when unset or empty.
    pub fn datacenters_or_default(&self) -> Vec<String> {
        match &self.datacenters {
            Some(dcs) if !dcs.is_empty() => dcs.clone(),
            _ => vec!["*".to_string()],
        }
    }

    /// The key jobs are stored under: (namespace, id).
    pub fn key(&self) -> (String, String) {
        (self.namespace.clone(), self.id.clone())
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct TaskGroup {
    pub affinities: Option<Value>,
    pub constraints: Option<Vec<Constraint>>,
    pub consul: Option<Value>,
    pub count: i32,
    pub disconnect: Option<Value>,
    pub ephemeral_disk: Option<EphemeralDisk>,
    pub max_client_disconnect: Option<i64>,
    pub max_run_duration: Option<i64>,
    pub meta: Option<BTreeMap<String, String>>,
    pub migrate: Option<MigrateStrategy>,
    pub name: String,
    pub networks: Option<Vec<NetworkResource>>,
    pub prevent_reschedule_on_lost: bool,
    pub reschedule_policy: Option<ReschedulePolicy>,
    pub restart_policy: Option<RestartPolicy>,
    pub scaling: Option<Value>,
    pub services: Option<Value>,
    pub shutdown_delay: Option<i64>,
    pub spreads: Option<Value>,
    pub stop_after_client_disconnect: Option<i64>,
    pub tasks: Vec<Task>,
    pub update: Option<UpdateStrategy>,
    pub volumes: Option<Value>,
}

impl TaskGroup {
    /// Sum of the group's task resources plus the ephemeral disk: what one alloc asks of a node.
    pub fn combined_resources(&self) -> Resources {
        let mut sum = Resources::default();
        for task in &self.tasks {
            if let Some(r) = &task.resources {
                sum.cpu += r.cpu;
                sum.memory_mb += r.memory_mb;
                sum.memory_max_mb += r.memory_max_mb.max(r.memory_mb);
                sum.cores += r.cores;
            }
        }
        sum.disk_mb = self.ephemeral_disk.as_ref().map(|d| d.size_mb).unwrap_or(0);
        sum
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct Task {
    pub actions: Option<Value>,
    pub affinities: Option<Value>,
    pub artifacts: Option<Value>,
    #[serde(rename = "CSIPluginConfig")]
    pub csi_plugin_config: Option<Value>,
    pub config: Option<BTreeMap<String, Value>>,
    pub constraints: Option<Vec<Constraint>>,
    pub consul: Option<Value>,
    pub dispatch_payload: Option<Value>,
    pub driver: String,
    pub env: Option<BTreeMap<String, String>>,
    pub identities: Option<Value>,
    pub identity: Option<Value>,
    pub kill_signal: String,
    pub kill_timeout: Option<i64>,
    pub kind: String,
    pub leader: bool,
    pub lifecycle: Option<Value>,
    pub log_config: Option<LogConfig>,
    pub meta: Option<BTreeMap<String, String>>,
    pub name: String,
    pub resources: Option<Resources>,
    pub restart_policy: Option<RestartPolicy>,
    pub scaling_policies: Option<Value>,
    pub schedule: Option<Value>,
    pub secrets: Option<Value>,
    pub services: Option<Value>,
    pub shutdown_delay: i64,
    pub templates: Option<Value>,
    pub user: String,
    pub vault: Option<Value>,
    pub volume_mounts: Option<Value>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct Constraint {
    #[serde(rename = "LTarget")]
    pub l_target: String,
    pub operand: String,
    #[serde(rename = "RTarget")]
    pub r_target: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct Resources {
    #[serde(rename = "CPU")]
    pub cpu: i64,
    pub cores: i64,
    pub devices: Option<Value>,
    #[serde(rename = "DiskMB")]
    pub disk_mb: i64,
    #[serde(rename = "IOPS")]
    pub iops: i64,
    #[serde(rename = "MemoryMB")]
    pub memory_mb: i64,
    #[serde(rename = "MemoryMaxMB")]
    pub memory_max_mb: i64,
    #[serde(rename = "NUMA")]
    pub numa: Option<Value>,
    pub networks: Option<Vec<NetworkResource>>,
    #[serde(rename = "SecretsMB")]
    pub secrets_mb: i64,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct NetworkResource {
    #[serde(rename = "CIDR", skip_serializing_if = "String::is_empty")]
    pub cidr: String,
    /// Nomad's `api.CNIConfig` (`{"Args": {...}}`), kept as JSON.
    #[serde(rename = "CNI", skip_serializing_if = "Option::is_none")]
    pub cni: Option<Value>,
    #[serde(rename = "DNS", skip_serializing_if = "Option::is_none")]
    pub dns: Option<Value>,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub device: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub dynamic_ports: Vec<Port>,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub hostname: String,
    #[serde(rename = "IP", skip_serializing_if = "String::is_empty")]
    pub ip: String,
    #[serde(rename = "MBits", skip_serializing_if = "is_zero")]
    pub mbits: i64,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub mode: String,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub reserved_ports: Vec<Port>,
}

fn is_zero(v: &i64) -> bool {
    *v == 0
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct Port {
    #[serde(skip_serializing_if = "String::is_empty")]
    pub host_network: String,
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub ignore_collision: bool,
    pub label: String,
    #[serde(skip_serializing_if = "is_zero_i32")]
    pub to: i32,
    #[serde(skip_serializing_if = "is_zero_i32")]
    pub value: i32,
}

fn is_zero_i32(v: &i32) -> bool {
    *v == 0
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct RestartPolicy {
    pub attempts: i32,
    pub delay: i64,
    pub interval: i64,
    pub mode: String,
    pub render_templates: bool,
}

pub const RESTART_MODE_FAIL: &str = "fail";
pub const RESTART_MODE_DELAY: &str = "delay";

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct ReschedulePolicy {
    pub attempts: i32,
    pub delay: i64,
    pub delay_function: String,
    pub interval: i64,
    pub max_delay: i64,
    pub unlimited: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct UpdateStrategy {
    pub auto_promote: bool,
    pub auto_revert: bool,
    pub canary: i32,
    pub health_check: String,
    pub healthy_deadline: i64,
    pub max_parallel: i32,
    pub min_healthy_time: i64,
    pub progress_deadline: i64,
    pub stagger: i64,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct MigrateStrategy {
    pub health_check: String,
    pub healthy_deadline: i64,
    pub max_parallel: i32,
    pub min_healthy_time: i64,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct EphemeralDisk {
    pub migrate: bool,
    #[serde(rename = "SizeMB")]
    pub size_mb: i64,
    pub sticky: bool,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct LogConfig {
    pub disabled: bool,
    /// The api's pre-1.5.4 `enabled`: carried from the job file to the server, which drops
    /// it (only `Disabled` reaches Nomad's structs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub enabled: Option<bool>,
    #[serde(rename = "MaxFileSizeMB")]
    pub max_file_size_mb: i32,
    pub max_files: i32,
}

/// Per task group counts of allocs by client status, as `/v1/job/:id/summary`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct TaskGroupSummary {
    pub complete: i64,
    pub failed: i64,
    pub lost: i64,
    pub queued: i64,
    pub running: i64,
    pub starting: i64,
    pub unknown: i64,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct JobChildrenSummary {
    pub dead: i64,
    pub pending: i64,
    pub running: i64,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct JobSummary {
    pub children: JobChildrenSummary,
    pub create_index: u64,
    #[serde(rename = "JobID")]
    pub job_id: String,
    pub modify_index: u64,
    pub namespace: String,
    pub summary: BTreeMap<String, TaskGroupSummary>,
}

/// One row of `GET /v1/jobs`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct JobListStub {
    pub create_index: u64,
    pub datacenters: Vec<String>,
    #[serde(rename = "ID")]
    pub id: String,
    pub job_modify_index: u64,
    pub job_summary: Option<JobSummary>,
    pub modify_index: u64,
    pub multiregion: Option<Value>,
    pub name: String,
    pub namespace: String,
    pub node_pool: String,
    pub parameterized_job: bool,
    #[serde(rename = "ParentID")]
    pub parent_id: String,
    pub periodic: bool,
    pub priority: i32,
    pub status: String,
    pub status_description: String,
    pub stop: bool,
    pub submit_time: i64,
    pub r#type: String,
}

impl JobListStub {
    pub fn from_job(job: &Job, summary: Option<JobSummary>) -> Self {
        JobListStub {
            create_index: job.create_index,
            datacenters: job.datacenters.clone().unwrap_or_default(),
            id: job.id.clone(),
            job_modify_index: job.job_modify_index,
            job_summary: summary,
            modify_index: job.modify_index,
            multiregion: job.multiregion.clone(),
            name: job.name.clone(),
            namespace: job.namespace.clone(),
            node_pool: job.node_pool.clone(),
            parameterized_job: job.is_parameterized(),
            parent_id: job.parent_id.clone(),
            periodic: job.periodic.is_some(),
            priority: job.priority,
            status: job.status.clone(),
            status_description: job.status_description.clone(),
            stop: job.stop,
            submit_time: job.submit_time,
            r#type: job.r#type.clone(),
        }
    }
}

/// Body of `PUT /v1/jobs` and `POST /v1/job/:id`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct JobRegisterRequest {
    pub job: Option<Job>,
    pub enforce_index: bool,
    pub job_modify_index: u64,
    pub policy_override: bool,
    pub preserve_counts: bool,
    /// The priority of the registration's eval (0: the job's priority).
    pub eval_priority: i32,
}

/// Response of a job register (Nomad's `JobRegisterResponse`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct JobRegisterResponse {
    pub eval_create_index: u64,
    #[serde(rename = "EvalID")]
    pub eval_id: String,
    pub index: u64,
    pub job_modify_index: u64,
    pub known_leader: bool,
    pub last_contact: i64,
    pub next_token: String,
    pub warnings: String,
}

/// Response of `DELETE /v1/job/:id`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct JobDeregisterResponse {
    pub eval_create_index: u64,
    #[serde(rename = "EvalID")]
    pub eval_id: String,
    pub index: u64,
    pub job_modify_index: u64,
    pub known_leader: bool,
    pub last_contact: i64,
    pub next_token: String,
    #[serde(rename = "VolumeEvalID")]
    pub volume_eval_id: String,
    pub volume_eval_index: u64,
}

// Typed forms of the jobspec blocks that the job structs above still carry as
// `serde_json::Value` (other components read those fields as JSON). The jobspec decoder
// builds these and stores their JSON, so the field names are Nomad's api ones exactly.

/// Nomad's `api.Affinity`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct Affinity {
    #[serde(rename = "LTarget")]
    pub l_target: String,
    pub operand: String,
    #[serde(rename = "RTarget")]
    pub r_target: String,
    pub weight: Option<i8>,
}

/// Nomad's `api.Spread`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct Spread {
    pub attribute: String,
    pub spread_target: Option<Vec<SpreadTarget>>,
    pub weight: Option<i8>,
}

/// Nomad's `api.SpreadTarget`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct SpreadTarget {
    pub percent: u8,
    pub value: String,
}

/// Nomad's `api.PeriodicConfig`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct PeriodicConfig {
    pub enabled: Option<bool>,
    pub prohibit_overlap: Option<bool>,
    pub spec: Option<String>,
    pub spec_type: Option<String>,
    pub specs: Option<Vec<String>>,
    pub time_zone: Option<String>,
}

/// Nomad's `api.ParameterizedJobConfig`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct ParameterizedJobConfig {
    pub meta_optional: Option<Vec<String>>,
    pub meta_required: Option<Vec<String>>,
    pub payload: String,
}

/// Nomad's `api.DispatchPayloadConfig`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct DispatchPayloadConfig {
    pub file: String,
}

/// Nomad's `api.TaskLifecycle`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct TaskLifecycle {
    pub hook: String,
    pub sidecar: bool,
}

/// Nomad's `api.Template`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct Template {
    pub change_mode: Option<String>,
    pub change_script: Option<ChangeScript>,
    pub change_signal: Option<String>,
    pub dest_path: Option<String>,
    pub embedded_tmpl: Option<String>,
    pub envvars: Option<bool>,
    pub err_missing_key: Option<bool>,
    pub gid: Option<i64>,
    pub left_delim: Option<String>,
    pub once: Option<bool>,
    pub perms: Option<String>,
    pub right_delim: Option<String>,
    pub source_path: Option<String>,
    pub splay: Option<i64>,
    pub uid: Option<i64>,
    pub vault_grace: Option<i64>,
    pub wait: Option<WaitConfig>,
}

/// Nomad's `api.ChangeScript` (timeout in nanoseconds).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct ChangeScript {
    pub args: Option<Vec<String>>,
    pub command: Option<String>,
    pub fail_on_error: Option<bool>,
    pub run_on_first_render: Option<bool>,
    pub timeout: Option<i64>,
}

/// Nomad's `api.WaitConfig` (nanoseconds).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct WaitConfig {
    pub max: Option<i64>,
    pub min: Option<i64>,
}

/// Nomad's `api.TaskArtifact`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct TaskArtifact {
    pub chown: bool,
    pub getter_headers: Option<BTreeMap<String, String>>,
    pub getter_insecure: Option<bool>,
    pub getter_mode: Option<String>,
    pub getter_options: Option<BTreeMap<String, String>>,
    pub getter_source: Option<String>,
    pub relative_dest: Option<String>,
}

/// Nomad's `api.VolumeRequest`; a group's `Volumes` maps names to these.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct VolumeRequest {
    pub access_mode: String,
    pub attachment_mode: String,
    pub mount_options: Option<CsiMountOptions>,
    pub name: String,
    pub per_alloc: bool,
    pub read_only: bool,
    pub source: String,
    pub sticky: bool,
    pub r#type: String,
}

/// Nomad's `api.CSIMountOptions`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct CsiMountOptions {
    #[serde(rename = "FSType")]
    pub fs_type: String,
    pub mount_flags: Option<Vec<String>>,
}

/// Nomad's `api.VolumeMount`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct VolumeMount {
    pub destination: Option<String>,
    pub propagation_mode: Option<String>,
    pub read_only: Option<bool>,
    #[serde(rename = "SELinuxLabel")]
    pub selinux_label: Option<String>,
    pub volume: Option<String>,
}

/// Nomad's `api.DisconnectStrategy` (durations in nanoseconds).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct DisconnectStrategy {
    pub lost_after: Option<i64>,
    pub reconcile: Option<String>,
    pub replace: Option<bool>,
    pub stop_on_client_after: Option<i64>,
}
