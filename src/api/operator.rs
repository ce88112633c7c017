//! The scheduler configuration (`/v1/operator/scheduler/configuration`), with Nomad's JSON
//! names and defaults: binpack, preemption for system jobs only, no memory
//! oversubscription, broker running, registrations accepted.

use serde::{Deserialize, Serialize};

pub const SCHEDULER_ALGORITHM_BINPACK: &str = "binpack";
pub const SCHEDULER_ALGORITHM_SPREAD: &str = "spread";
/// Nodes checked for feasibility when a group has affinities or spreads (Nomad's default,
/// used when the stored value is 0).
pub const DEFAULT_NODE_LIMIT_FOR_FEASIBILITY_CHECKS: u64 = 100;

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct SchedulerConfiguration {
    pub scheduler_algorithm: String,
    pub preemption_config: PreemptionConfig,
    pub memory_oversubscription_enabled: bool,
    pub reject_job_registration: bool,
    pub pause_eval_broker: bool,
    pub node_limit_for_feasibility_checks: u64,
    pub create_index: u64,
    pub modify_index: u64,
}

impl Default for SchedulerConfiguration {
    fn default() -> Self {
        SchedulerConfiguration {
            scheduler_algorithm: SCHEDULER_ALGORITHM_BINPACK.to_string(),
            preemption_config: PreemptionConfig::default(),
            memory_oversubscription_enabled: false,
            reject_job_registration: false,
            pause_eval_broker: false,
            node_limit_for_feasibility_checks: 0,
            create_index: 0,
            modify_index: 0,
        }
    }
}

impl SchedulerConfiguration {
    /// The algorithm in force: an empty or unknown value means binpack, as Nomad.
    pub fn effective_algorithm(&self) -> &str {
        if self.scheduler_algorithm == SCHEDULER_ALGORITHM_SPREAD {
            SCHEDULER_ALGORITHM_SPREAD
        } else {
            SCHEDULER_ALGORITHM_BINPACK
        }
    }

    /// The feasibility node limit in force: 0 means Nomad's default of 100.
    pub fn node_limit(&self) -> u64 {
        if self.node_limit_for_feasibility_checks == 0 {
            DEFAULT_NODE_LIMIT_FOR_FEASIBILITY_CHECKS
        } else {
            self.node_limit_for_feasibility_checks
        }
    }

    /// Nomad's `SchedulerConfiguration.Validate`: the algorithm must be empty, binpack or
    /// spread.
    pub fn validate(&self) -> Result<(), String> {
        match self.scheduler_algorithm.as_str() {
            "" | SCHEDULER_ALGORITHM_BINPACK | SCHEDULER_ALGORITHM_SPREAD => Ok(()),
            other => Err(format!("invalid scheduler algorithm: {other}")),
        }
    }

    /// Whether preemption is on for a job type (`service`, `batch`, `system`, `sysbatch`).
    pub fn preemption_enabled(&self, job_type: &str) -> bool {
        let p = &self.preemption_config;
        match job_type {
            super::JOB_TYPE_SYSTEM => p.system_scheduler_enabled,
            super::JOB_TYPE_SYSBATCH => p.sys_batch_scheduler_enabled,
            super::JOB_TYPE_BATCH => p.batch_scheduler_enabled,
            super::JOB_TYPE_SERVICE => p.service_scheduler_enabled,
            _ => false,
        }
    }
}

/// A field missing from a given block reads false, as Go decodes into a zero struct; the
/// whole block missing gives Nomad's defaults.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct PreemptionConfig {
    #[serde(rename = "SystemSchedulerEnabled", default)]
    pub system_scheduler_enabled: bool,
    #[serde(rename = "SysBatchSchedulerEnabled", default)]
    pub sys_batch_scheduler_enabled: bool,
    #[serde(rename = "BatchSchedulerEnabled", default)]
    pub batch_scheduler_enabled: bool,
    #[serde(rename = "ServiceSchedulerEnabled", default)]
    pub service_scheduler_enabled: bool,
}

impl Default for PreemptionConfig {
    fn default() -> Self {
        PreemptionConfig {
            system_scheduler_enabled: true,
            sys_batch_scheduler_enabled: false,
            batch_scheduler_enabled: false,
            service_scheduler_enabled: false,
        }
    }
}

/// `GET /v1/operator/scheduler/configuration` (Nomad's `SchedulerConfigurationResponse`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct SchedulerConfigurationResponse {
    pub index: u64,
    pub known_leader: bool,
    pub last_contact: u64,
    pub next_token: String,
    pub scheduler_config: SchedulerConfiguration,
}

/// `PUT /v1/operator/scheduler/configuration` (Nomad's `SchedulerSetConfigurationResponse`):
/// `Updated` is false when a `?cas=` index did not match.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct SchedulerSetConfigurationResponse {
    pub updated: bool,
    pub index: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_and_json_names_match_nomad() {
        let c = SchedulerConfiguration::default();
        let v = serde_json::to_value(&c).expect("serialises");
        assert_eq!(v["SchedulerAlgorithm"], "binpack");
        assert_eq!(v["PreemptionConfig"]["SystemSchedulerEnabled"], true);
        assert_eq!(v["PreemptionConfig"]["SysBatchSchedulerEnabled"], false);
        assert_eq!(v["MemoryOversubscriptionEnabled"], false);
        assert_eq!(v["PauseEvalBroker"], false);
        assert_eq!(v["RejectJobRegistration"], false);
        assert!(c.preemption_enabled("system"));
        assert!(!c.preemption_enabled("service"));
    }

    #[test]
    fn partial_json_keeps_defaults_and_unknown_algorithm_is_binpack() {
        let c: SchedulerConfiguration =
            serde_json::from_str(r#"{"SchedulerAlgorithm":"spread","PreemptionConfig":{"ServiceSchedulerEnabled":true}}"#)
                .expect("parses");
        assert_eq!(c.effective_algorithm(), "spread");
        assert!(c.preemption_enabled("service"));
        assert!(
            !c.preemption_enabled("system"),
            "an explicit block replaces defaults field-wise"
        );
        let odd = SchedulerConfiguration {
            scheduler_algorithm: "weird".into(),
            ..Default::default()
        };
        assert_eq!(odd.effective_algorithm(), "binpack");
    }
}
