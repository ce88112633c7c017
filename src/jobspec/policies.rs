//! Partially specified policy blocks and Nomad's defaults for them.
//!
//! The api types hold plain values (Nomad's `structs` shape), so "unset" and "zero" look the
//! same once a block is decoded. Nomad's api layer keeps pointers and fills only the unset
//! fields of a block the user wrote (`restart { attempts = 5 }` keeps delay 15s). To keep that
//! behaviour the decoder records each block as a `Partial*` (every field an `Option`) and fills
//! the unset fields here, in the order Nomad merges them (defaults < job < group < task).
//! Whole missing blocks stay `None` in the parsed job and are filled by `canonicalize`.

use crate::api::{
    EphemeralDisk, LogConfig, MigrateStrategy, ReschedulePolicy, Resources, RestartPolicy,
    UpdateStrategy, HOUR, JOB_TYPE_BATCH, JOB_TYPE_SERVICE, JOB_TYPE_SYSTEM, MINUTE,
    RESTART_MODE_FAIL, SECOND,
};

/// api.defaultServiceJobRestartPolicy / defaultBatchJobRestartPolicy (system uses service's).
pub fn default_restart(job_type: &str) -> RestartPolicy {
    match job_type {
        JOB_TYPE_SERVICE | JOB_TYPE_SYSTEM => RestartPolicy {
            attempts: 2,
            delay: 15 * SECOND,
            interval: 30 * MINUTE,
            mode: RESTART_MODE_FAIL.to_string(),
            render_templates: false,
        },
        _ => RestartPolicy {
            attempts: 3,
            delay: 15 * SECOND,
            interval: 24 * HOUR,
            mode: RESTART_MODE_FAIL.to_string(),
            render_templates: false,
        },
    }
}

/// api.NewDefaultReschedulePolicy: service and batch have real defaults; any other type gets
/// an all-zero policy when the user wrote a block (system/sysbatch get none by default).
pub fn default_reschedule(job_type: &str) -> ReschedulePolicy {
    match job_type {
        JOB_TYPE_SERVICE => ReschedulePolicy {
            attempts: 0,
            delay: 30 * SECOND,
            delay_function: "exponential".to_string(),
            interval: 0,
            max_delay: HOUR,
            unlimited: true,
        },
        JOB_TYPE_BATCH => ReschedulePolicy {
            attempts: 1,
            delay: 5 * SECOND,
            delay_function: "constant".to_string(),
            interval: 24 * HOUR,
            max_delay: 0,
            unlimited: false,
        },
        _ => ReschedulePolicy::default(),
    }
}

/// api.DefaultUpdateStrategy.
pub fn default_update() -> UpdateStrategy {
    UpdateStrategy {
        auto_promote: false,
        auto_revert: false,
        canary: 0,
        health_check: "checks".to_string(),
        healthy_deadline: 5 * MINUTE,
        max_parallel: 1,
        min_healthy_time: 10 * SECOND,
        progress_deadline: 10 * MINUTE,
        stagger: 30 * SECOND,
    }
}

/// api.DefaultMigrateStrategy.
pub fn default_migrate() -> MigrateStrategy {
    MigrateStrategy {
        health_check: "checks".to_string(),
        healthy_deadline: 5 * MINUTE,
        max_parallel: 1,
        min_healthy_time: 10 * SECOND,
    }
}

pub fn default_ephemeral_disk() -> EphemeralDisk {
    EphemeralDisk {
        migrate: false,
        size_mb: 300,
        sticky: false,
    }
}

pub fn default_log_config() -> LogConfig {
    LogConfig {
        disabled: false,
        enabled: None,
        max_file_size_mb: 10,
        max_files: 10,
    }
}

/// structs.DefaultResources (cpu 100 MHz, 300 MB).
pub fn default_resources() -> Resources {
    Resources {
        cpu: 100,
        memory_mb: 300,
        ..Resources::default()
    }
}

#[derive(Debug, Clone, Default)]
pub struct PartialRestart {
    pub attempts: Option<i32>,
    pub delay: Option<i64>,
    pub interval: Option<i64>,
    pub mode: Option<String>,
    pub render_templates: Option<bool>,
}

impl PartialRestart {
    pub fn apply(&self, r: &mut RestartPolicy) {
        set(&mut r.attempts, &self.attempts);
        set(&mut r.delay, &self.delay);
        set(&mut r.interval, &self.interval);
        set(&mut r.mode, &self.mode);
        set(&mut r.render_templates, &self.render_templates);
    }
}

#[derive(Debug, Clone, Default)]
pub struct PartialReschedule {
    pub attempts: Option<i32>,
    pub interval: Option<i64>,
    pub delay: Option<i64>,
    pub delay_function: Option<String>,
    pub max_delay: Option<i64>,
    pub unlimited: Option<bool>,
}

impl PartialReschedule {
    pub fn apply(&self, r: &mut ReschedulePolicy) {
        set(&mut r.attempts, &self.attempts);
        set(&mut r.interval, &self.interval);
        set(&mut r.delay, &self.delay);
        set(&mut r.delay_function, &self.delay_function);
        set(&mut r.max_delay, &self.max_delay);
        set(&mut r.unlimited, &self.unlimited);
    }
}

#[derive(Debug, Clone, Default)]
pub struct PartialUpdate {
    pub stagger: Option<i64>,
    pub max_parallel: Option<i32>,
    pub health_check: Option<String>,
    pub min_healthy_time: Option<i64>,
    pub healthy_deadline: Option<i64>,
    pub progress_deadline: Option<i64>,
    pub canary: Option<i32>,
    pub auto_revert: Option<bool>,
    pub auto_promote: Option<bool>,
}

impl PartialUpdate {
    pub fn apply(&self, u: &mut UpdateStrategy) {
        set(&mut u.stagger, &self.stagger);
        set(&mut u.max_parallel, &self.max_parallel);
        set(&mut u.health_check, &self.health_check);
        set(&mut u.min_healthy_time, &self.min_healthy_time);
        set(&mut u.healthy_deadline, &self.healthy_deadline);
        set(&mut u.progress_deadline, &self.progress_deadline);
        set(&mut u.canary, &self.canary);
        set(&mut u.auto_revert, &self.auto_revert);
        set(&mut u.auto_promote, &self.auto_promote);
    }
}

#[derive(Debug, Clone, Default)]
pub struct PartialMigrate {
    pub max_parallel: Option<i32>,
    pub health_check: Option<String>,
    pub min_healthy_time: Option<i64>,
    pub healthy_deadline: Option<i64>,
}

impl PartialMigrate {
    pub fn apply(&self, m: &mut MigrateStrategy) {
        set(&mut m.max_parallel, &self.max_parallel);
        set(&mut m.health_check, &self.health_check);
        set(&mut m.min_healthy_time, &self.min_healthy_time);
        set(&mut m.healthy_deadline, &self.healthy_deadline);
    }
}

#[derive(Debug, Clone, Default)]
pub struct PartialDisk {
    pub sticky: Option<bool>,
    pub migrate: Option<bool>,
    pub size_mb: Option<i64>,
}

impl PartialDisk {
    pub fn finish(&self) -> EphemeralDisk {
        let mut d = default_ephemeral_disk();
        set(&mut d.sticky, &self.sticky);
        set(&mut d.migrate, &self.migrate);
        set(&mut d.size_mb, &self.size_mb);
        d
    }
}

#[derive(Debug, Clone, Default)]
pub struct PartialLogs {
    pub max_files: Option<i32>,
    pub max_file_size_mb: Option<i32>,
    pub disabled: Option<bool>,
    pub enabled: Option<bool>,
}

impl PartialLogs {
    pub fn finish(&self) -> LogConfig {
        let mut l = default_log_config();
        set(&mut l.max_files, &self.max_files);
        set(&mut l.max_file_size_mb, &self.max_file_size_mb);
        set(&mut l.disabled, &self.disabled);
        l.enabled = self.enabled;
        l
    }
}

#[derive(Debug, Clone, Default)]
pub struct PartialResources {
    pub cpu: Option<i64>,
    pub cores: Option<i64>,
    pub memory_mb: Option<i64>,
    pub memory_max_mb: Option<i64>,
    pub disk_mb: Option<i64>,
    pub secrets_mb: Option<i64>,
}

impl PartialResources {
    /// api.Resources.Canonicalize: cpu defaults to 100 only when neither cpu nor cores is set.
    pub fn finish(&self) -> Resources {
        let defaults = default_resources();
        Resources {
            cpu: self.cpu.unwrap_or(if self.cores.is_some() {
                0
            } else {
                defaults.cpu
            }),
            cores: self.cores.unwrap_or(0),
            memory_mb: self.memory_mb.unwrap_or(defaults.memory_mb),
            memory_max_mb: self.memory_max_mb.unwrap_or(0),
            disk_mb: self.disk_mb.unwrap_or(0),
            secrets_mb: self.secrets_mb.unwrap_or(0),
            ..Resources::default()
        }
    }
}

fn set<T: Clone>(dst: &mut T, src: &Option<T>) {
    if let Some(v) = src {
        *dst = v.clone();
    }
}
