//! The deployment side of the reconciler (Nomad's `reconciler` deployment handling): which
//! deployment is current, how many destructive updates a pass may make (`max_parallel`
//! less the deployment's allocs not yet healthy), canaries before old allocs stop, and when a
//! deployment is created or complete.

use std::collections::BTreeMap;

use super::reconcile::{ReconcileInput, ReconcileResult};
use crate::api::{
    format_rfc3339, Allocation, Deployment, DeploymentState, DeploymentStatusUpdate, Job,
    TaskGroup, UpdateStrategy, DEPLOYMENT_STATUS_CANCELLED, DEPLOYMENT_STATUS_FAILED,
    DEPLOYMENT_STATUS_PAUSED, DEPLOYMENT_STATUS_RUNNING, DEPLOYMENT_STATUS_SUCCESSFUL,
    DESC_NEWER_JOB, DESC_RUNNING, DESC_RUNNING_AUTO_PROMOTION, DESC_RUNNING_NEEDS_PROMOTION,
    DESC_STOPPED_JOB, DESC_SUCCESSFUL, JOB_TYPE_SERVICE,
};

/// The job's deployment as this pass sees it.
#[derive(Debug, Clone, Default)]
pub struct DeployView {
    /// The deployment of the current job version, if one exists.
    pub current: Option<Deployment>,
    pub paused: bool,
    pub failed: bool,
    /// Updates for deployments of older versions (cancelled).
    pub updates: Vec<DeploymentStatusUpdate>,
}

/// Pick the current deployment; an active one for an older version (or a stopped job) is
/// cancelled, as Nomad does.
pub fn deploy_view(job: Option<&Job>, latest: Option<&Deployment>) -> DeployView {
    let mut view = DeployView::default();
    let Some(d) = latest else {
        return view;
    };
    let same = job.is_some_and(|j| {
        !j.stop && d.job_version == j.version && d.job_create_index == j.create_index
    });
    let finished = d.status == crate::api::DEPLOYMENT_STATUS_SUCCESSFUL
        || d.status == DEPLOYMENT_STATUS_CANCELLED;
    if same && finished {
        // A finished deployment is no longer current (Nomad clears it).
        return view;
    }
    if same {
        view.paused = d.status == DEPLOYMENT_STATUS_PAUSED;
        view.failed = d.status == DEPLOYMENT_STATUS_FAILED;
        view.current = Some(d.clone());
    } else if d.active() {
        let stopped = job.is_none_or(|j| j.stop);
        view.updates.push(DeploymentStatusUpdate {
            deployment_id: d.id.clone(),
            status: DEPLOYMENT_STATUS_CANCELLED.to_string(),
            status_description: if stopped {
                DESC_STOPPED_JOB
            } else {
                DESC_NEWER_JOB
            }
            .to_string(),
        });
    }
    view
}

/// The update strategy the reconciler honours: service jobs with `max_parallel > 0`.
pub fn strategy<'a>(job: &Job, tg: &'a TaskGroup) -> Option<&'a UpdateStrategy> {
    tg.update
        .as_ref()
        .filter(|u| u.max_parallel > 0 && job.r#type == JOB_TYPE_SERVICE)
}

/// Nomad's `computeLimit`: how many destructive updates this pass may make.
pub fn destructive_limit(
    strategy: Option<&UpdateStrategy>,
    view: &DeployView,
    canary_state: bool,
    untainted: &[std::sync::Arc<Allocation>],
    pending: usize,
) -> usize {
    let Some(u) = strategy else {
        return pending;
    };
    if pending == 0 {
        return 0;
    }
    if view.paused || view.failed || canary_state {
        return 0;
    }
    let mut limit = u.max_parallel.max(0) as i64;
    if let Some(d) = &view.current {
        for a in untainted.iter().filter(|a| a.deployment_id == d.id) {
            match a.deployment_healthy() {
                // An unhealthy alloc stops the rollout until the deployment is resolved.
                Some(false) => return 0,
                Some(true) => {}
                None => limit -= 1,
            }
        }
    }
    limit.max(0) as usize
}

/// What one group of the pass contributes to the deployment.
#[derive(Debug, Clone, Default)]
pub struct GroupDeploy {
    pub wants_deployment: bool,
    pub desired_canaries: i64,
    pub complete: bool,
}

/// The state a new deployment starts with for one group.
pub fn new_group_state(u: &UpdateStrategy, tg: &TaskGroup, now: i64) -> DeploymentState {
    DeploymentState {
        auto_promote: u.auto_promote,
        auto_revert: u.auto_revert,
        desired_canaries: 0,
        desired_total: tg.count.max(0) as i64,
        progress_deadline: u.progress_deadline,
        require_progress_by: if u.progress_deadline > 0 {
            format_rfc3339(now.saturating_add(u.progress_deadline))
        } else {
            crate::api::ZERO_TIME.to_string()
        },
        ..Default::default()
    }
}

/// A new running deployment for the job.
pub(crate) fn new_deployment(job: &Job, id: &str, now: i64) -> Deployment {
    Deployment {
        id: id.to_string(),
        namespace: job.namespace.clone(),
        job_id: job.id.clone(),
        job_version: job.version,
        job_modify_index: job.job_modify_index,
        job_spec_modify_index: job.job_modify_index,
        job_create_index: job.create_index,
        eval_priority: job.priority,
        status: DEPLOYMENT_STATUS_RUNNING.to_string(),
        status_description: DESC_RUNNING.to_string(),
        create_time: now,
        ..Default::default()
    }
}

/// Nomad's description for a running deployment with canaries waiting.
pub fn running_description(d: &Deployment) -> &'static str {
    if d.requires_promotion() {
        if d.has_auto_promote() {
            DESC_RUNNING_AUTO_PROMOTION
        } else {
            DESC_RUNNING_NEEDS_PROMOTION
        }
    } else {
        DESC_RUNNING
    }
}

/// Create the deployment this pass needs, record canary counts, or mark it successful.
pub(super) fn finish_deployment(
    input: &ReconcileInput<'_>,
    job: &Job,
    view: &DeployView,
    groups: &BTreeMap<String, GroupDeploy>,
    result: &mut ReconcileResult,
) {
    let existed = view.current.is_some();
    let mut deployment = view.current.clone();
    let mut changed = false;
    if deployment.is_none() && groups.values().any(|g| g.wants_deployment) {
        let mut d = new_deployment(job, input.new_deployment_id, input.now);
        for tg in &job.task_groups {
            if let Some(u) = strategy(job, tg) {
                d.task_groups
                    .insert(tg.name.clone(), new_group_state(u, tg, input.now));
            }
        }
        deployment = Some(d);
        changed = true;
    }
    let Some(mut d) = deployment else {
        return;
    };
    for (name, g) in groups {
        if let Some(st) = d.task_groups.get_mut(name) {
            if g.desired_canaries > st.desired_canaries {
                st.desired_canaries = g.desired_canaries;
                changed = true;
            }
        }
    }
    if d.status == DEPLOYMENT_STATUS_RUNNING {
        let desc = running_description(&d);
        if d.status_description != desc {
            d.status_description = desc.to_string();
            changed = true;
        }
    }
    result.deployment_id = d.id.clone();
    if existed
        && d.status == DEPLOYMENT_STATUS_RUNNING
        && groups
            .iter()
            .all(|(name, g)| g.complete || !d.task_groups.contains_key(name))
    {
        result.deployment_updates.push(DeploymentStatusUpdate {
            deployment_id: d.id.clone(),
            status: DEPLOYMENT_STATUS_SUCCESSFUL.to_string(),
            status_description: DESC_SUCCESSFUL.to_string(),
        });
    }
    if changed {
        result.deployment = Some(d);
    }
}

#[cfg(test)]
#[path = "reconcile_deploy_tests.rs"]
mod tests;

/// Puts a placed alloc into the deployment `deployment_id`, as a canary when `canary` (its
/// health is then judged before the rest of the group rolls).
pub(super) fn join_deployment(alloc: &mut Allocation, deployment_id: &str, canary: bool) {
    alloc.deployment_id = deployment_id.to_string();
    if canary {
        alloc.deployment_status = Some(
            crate::api::AllocDeploymentStatus {
                canary: true,
                timestamp: crate::api::ZERO_TIME.to_string(),
                ..Default::default()
            }
            .to_value(),
        );
    }
}
