//! Health of an alloc whose group has Nomad-native service checks and asks for them
//! (Nomad's client-side health tracker): in a deployment by `update { health_check =
//! "checks" }`, otherwise (a service alloc, e.g. one that replaced a drained alloc) by
//! `migrate { health_check = "checks" }`, the default. Healthy once every main and sidecar
//! task runs and every healthiness check passes, continuously for `min_healthy_time`;
//! unhealthy when a task fails, the alloc stops, or it is not healthy by `healthy_deadline`
//! (each from the block that applies). The client reports the verdict as the alloc's
//! `DeploymentStatus`; the server's deployment watcher and drainer leave such allocs to it.
//!
//! Pure: the alloc runner feeds it task states, check results and the time.

use std::collections::BTreeMap;

use serde_json::Value;

use super::lifecycle::Stage;
use crate::api::{
    AllocCheckResults, TaskGroup, TaskState, ALLOC_CLIENT_COMPLETE, ALLOC_CLIENT_FAILED,
    CHECK_HEALTHINESS, CHECK_SUCCESS, TASK_STATE_RUNNING,
};

/// The group's Nomad-provider checks that decide health (`on_update = "ignore"` ones are
/// readiness checks and do not), at group and task level.
pub fn nomad_health_checks(tg: &TaskGroup) -> usize {
    let count = |services: &Option<Value>| {
        services
            .as_ref()
            .and_then(Value::as_array)
            .into_iter()
            .flatten()
            .filter(|s| s.get("Provider").and_then(Value::as_str) == Some("nomad"))
            .flat_map(|s| {
                s.get("Checks")
                    .and_then(Value::as_array)
                    .into_iter()
                    .flatten()
            })
            .filter(|c| c.get("OnUpdate").and_then(Value::as_str) != Some("ignore"))
            .count()
    };
    count(&tg.services) + tg.tasks.iter().map(|t| count(&t.services)).sum::<usize>()
}

/// The timings health is judged with: `min_healthy_time` and `healthy_deadline`.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Timings {
    pub min_healthy_time: i64,
    pub healthy_deadline: i64,
}

/// Nomad's default `migrate` block.
pub fn default_migrate() -> crate::api::MigrateStrategy {
    crate::api::MigrateStrategy {
        health_check: "checks".to_string(),
        healthy_deadline: 5 * crate::api::MINUTE,
        max_parallel: 1,
        min_healthy_time: 10 * crate::api::SECOND,
    }
}

/// Whether the client, not the server, decides the health of this group's allocs outside
/// deployments (from the `migrate` block).
pub fn needs_client_migrate_health(tg: &TaskGroup) -> bool {
    let m = tg.migrate.clone().unwrap_or_else(default_migrate);
    (m.health_check.is_empty() || m.health_check == "checks") && nomad_health_checks(tg) > 0
}

/// The timings of the block that applies: `update` in a deployment, `migrate` otherwise.
pub fn timings(tg: &TaskGroup, in_deployment: bool) -> Timings {
    if in_deployment {
        let u = tg.update.clone().unwrap_or_default();
        Timings {
            min_healthy_time: u.min_healthy_time,
            healthy_deadline: u.healthy_deadline,
        }
    } else {
        let m = tg.migrate.clone().unwrap_or_else(default_migrate);
        Timings {
            min_healthy_time: m.min_healthy_time,
            healthy_deadline: m.healthy_deadline,
        }
    }
}

/// Whether the client, not the server, decides this group's deployment health.
pub fn needs_client_health(tg: &TaskGroup) -> bool {
    let mode = tg
        .update
        .as_ref()
        .map(|u| u.health_check.as_str())
        .unwrap_or("checks");
    (mode.is_empty() || mode == "checks") && nomad_health_checks(tg) > 0
}

/// What one observation is made of.
pub struct Observation<'a> {
    pub tg: &'a TaskGroup,
    pub client_status: &'a str,
    pub states: &'a BTreeMap<String, TaskState>,
    pub checks: &'a AllocCheckResults,
    pub timings: Timings,
    /// When the alloc was created (the healthy deadline counts from there), nanoseconds.
    pub since_created: i64,
    pub now: i64,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct HealthTracker {
    /// Since when tasks and checks have all been healthy, while they are.
    healthy_since: Option<i64>,
    verdict: Option<bool>,
}

impl HealthTracker {
    pub fn verdict(&self) -> Option<bool> {
        self.verdict
    }

    /// Folds in one observation; returns the verdict once there is one (it never changes).
    pub fn observe(&mut self, o: &Observation<'_>) -> Option<bool> {
        if self.verdict.is_some() {
            return self.verdict;
        }
        let u = o.timings;
        let failed = o.states.values().any(|s| s.failed)
            || o.client_status == ALLOC_CLIENT_FAILED
            || o.client_status == ALLOC_CLIENT_COMPLETE;
        if failed {
            self.verdict = Some(false);
            return self.verdict;
        }
        // Ephemeral hooks and poststop tasks finish by design; they do not count.
        let tasks_running =
            o.tg.tasks
                .iter()
                .filter(|t| {
                    let stage = Stage::of(t);
                    stage == Stage::Main || stage.is_sidecar()
                })
                .all(|t| {
                    o.states
                        .get(&t.name)
                        .is_some_and(|s| s.state == TASK_STATE_RUNNING)
                });
        let health_checks: Vec<_> = o
            .checks
            .values()
            .filter(|c| c.mode == CHECK_HEALTHINESS)
            .collect();
        let checks_passing = health_checks.len() >= nomad_health_checks(o.tg)
            && health_checks.iter().all(|c| c.status == CHECK_SUCCESS);
        if tasks_running && checks_passing {
            let since = *self.healthy_since.get_or_insert(o.now);
            if o.now.saturating_sub(since) >= u.min_healthy_time {
                self.verdict = Some(true);
            }
        } else {
            self.healthy_since = None;
            if u.healthy_deadline > 0 && o.now > o.since_created.saturating_add(u.healthy_deadline)
            {
                self.verdict = Some(false);
            }
        }
        self.verdict
    }
}

#[cfg(test)]
#[path = "alloc_health_tests.rs"]
mod tests;
