//! Nomad's api structs for the job blocks that the job structs carry as JSON (vault, consul,
//! identity, csi_plugin, scaling, multiregion, ui, action, schedule, secret). The jobspec
//! decoder builds these and stores their JSON, so the field names are Nomad's api ones and
//! the fields are in Go's sorted-key order.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

/// Nomad's `api.Vault`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct Vault {
    pub allow_token_expiration: Option<bool>,
    pub change_mode: Option<String>,
    pub change_signal: Option<String>,
    pub cluster: String,
    pub disable_file: Option<bool>,
    pub env: Option<bool>,
    pub namespace: Option<String>,
    pub policies: Option<Vec<String>>,
    pub role: String,
}

/// Nomad's `api.Consul` (a group's or task's `consul` block).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct Consul {
    pub cluster: String,
    pub namespace: String,
    pub partition: String,
}

/// Nomad's `api.WorkloadIdentity` (durations in nanoseconds).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct WorkloadIdentity {
    pub audience: Option<Vec<String>>,
    pub change_mode: String,
    pub change_signal: String,
    pub env: bool,
    pub extra_claims: Option<Vec<String>>,
    pub file: bool,
    pub filepath: String,
    pub name: String,
    pub service_name: String,
    #[serde(rename = "TTL")]
    pub ttl: i64,
}

/// Nomad's `api.TaskCSIPluginConfig` (a task's `csi_plugin` block).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct TaskCsiPluginConfig {
    pub health_timeout: i64,
    #[serde(rename = "ID")]
    pub id: String,
    pub mount_dir: String,
    pub stage_publish_base_dir: String,
    pub r#type: String,
}

/// Nomad's `api.ScalingPolicy`; `Policy` is the free-form `policy` block.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct ScalingPolicy {
    pub create_index: u64,
    pub enabled: Option<bool>,
    #[serde(rename = "ID")]
    pub id: String,
    pub max: Option<i64>,
    pub min: Option<i64>,
    pub modify_index: u64,
    pub namespace: String,
    pub policy: Option<BTreeMap<String, Value>>,
    pub target: Option<BTreeMap<String, String>>,
    pub r#type: String,
}

pub const SCALING_POLICY_TYPE_HORIZONTAL: &str = "horizontal";
pub const SCALING_POLICY_TYPE_VERTICAL_CPU: &str = "vertical_cpu";
pub const SCALING_POLICY_TYPE_VERTICAL_MEM: &str = "vertical_mem";

/// Nomad's `api.Multiregion`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct Multiregion {
    pub regions: Option<Vec<MultiregionRegion>>,
    pub strategy: Option<MultiregionStrategy>,
}

/// Nomad's `api.MultiregionStrategy`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct MultiregionStrategy {
    pub max_parallel: Option<i64>,
    pub on_failure: Option<String>,
}

/// Nomad's `api.MultiregionRegion`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct MultiregionRegion {
    pub count: Option<i64>,
    pub datacenters: Option<Vec<String>>,
    pub meta: Option<BTreeMap<String, String>>,
    pub name: String,
    pub node_pool: String,
}

/// Nomad's `api.JobUIConfig`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct JobUiConfig {
    pub description: String,
    pub links: Option<Vec<JobUiLink>>,
}

/// Nomad's `api.JobUILink`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct JobUiLink {
    pub label: String,
    #[serde(rename = "URL")]
    pub url: String,
}

/// Nomad's `api.Action` (a task's `action "name"` block).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct Action {
    pub args: Option<Vec<String>>,
    pub command: String,
    pub name: String,
}

/// Nomad's `api.TaskSchedule`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct TaskSchedule {
    pub cron: Option<TaskScheduleCron>,
}

/// Nomad's `api.TaskScheduleCron`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct TaskScheduleCron {
    pub end: String,
    pub start: String,
    pub timezone: String,
}

/// Nomad's `api.Secret` (a `secret "name"` block); `Config` is free-form.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct Secret {
    pub config: Option<BTreeMap<String, Value>>,
    pub env: Option<BTreeMap<String, String>>,
    pub name: String,
    pub path: String,
    pub provider: String,
}

/// Nomad's `api.DNSConfig` (a network's `dns` block).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct DnsConfig {
    pub options: Option<Vec<String>>,
    pub searches: Option<Vec<String>>,
    pub servers: Option<Vec<String>>,
}

/// Nomad's `api.RequestedDevice` (a `resources` block's `device "name"`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct RequestedDevice {
    pub affinities: Option<Vec<super::Affinity>>,
    pub constraints: Option<Vec<super::Constraint>>,
    pub count: Option<u64>,
    pub name: String,
}
