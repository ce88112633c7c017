//! Deployment write endpoints (promote, fail, pause/resume, alloc health), shared by the HTTP
//! API and the deployment watcher. Each validates against the current state, stamps time and
//! IDs, and proposes one command.

use crate::api::{
    desc_no_rollback_target, desc_rollback, generate_id, now_nanos, Deployment,
    DeploymentStatusUpdate, DeploymentUpdateResponse, Evaluation, Job, DEPLOYMENT_STATUS_FAILED,
    DEPLOYMENT_STATUS_PAUSED, DEPLOYMENT_STATUS_RUNNING, DESC_FAILED_BY_USER, DESC_PAUSED,
    EVAL_STATUS_PENDING,
};
use crate::server::fsm::Command;
use crate::server::state::StateSnapshot;
use crate::server::{Server, ServerError};

/// Nomad's trigger for evals the watcher and these endpoints create.
pub const TRIGGER_DEPLOYMENT_WATCHER: &str = "deployment-watcher";

#[derive(Debug, thiserror::Error)]
pub enum DeploymentError {
    #[error("deployment not found")]
    NotFound,
    #[error("can't {action} terminal deployment")]
    Terminal { action: &'static str },
    #[error("can't promote deployment without canaries")]
    NoCanaries,
    #[error("Task group {group:?} has {healthy}/{desired} healthy allocations")]
    Unhealthy {
        group: String,
        healthy: usize,
        desired: i64,
    },
    #[error("{0}")]
    Server(#[from] ServerError),
    #[error("{0}")]
    Apply(String),
}

fn find(snap: &StateSnapshot, id: &str) -> Result<std::sync::Arc<Deployment>, DeploymentError> {
    snap.deployment_by_id(id).ok_or(DeploymentError::NotFound)
}

/// The eval that continues a deployment's job.
pub fn deployment_eval(job: &Job, deployment_id: &str, now: i64) -> Evaluation {
    Evaluation {
        id: generate_id(),
        namespace: job.namespace.clone(),
        priority: job.priority,
        r#type: job.r#type.clone(),
        triggered_by: TRIGGER_DEPLOYMENT_WATCHER.to_string(),
        job_id: job.id.clone(),
        job_modify_index: job.job_modify_index,
        deployment_id: deployment_id.to_string(),
        status: EVAL_STATUS_PENDING.to_string(),
        create_time: now,
        modify_time: now,
        ..Default::default()
    }
}

/// The latest stable version before the deployment's, to auto-revert to; the job returned is
/// ready to register (it becomes a new version).
pub fn revert_target(snap: &StateSnapshot, d: &Deployment) -> Option<Job> {
    snap.job_versions(&d.namespace, &d.job_id)
        .into_iter()
        .find(|j| j.stable && j.version < d.job_version)
        .map(|j| (*j).clone())
}

/// A failed status for `d`, with the revert job when a failing group auto-reverts.
pub fn failure(
    snap: &StateSnapshot,
    d: &Deployment,
    base: &str,
    groups_failed: &[String],
) -> (DeploymentStatusUpdate, Option<Job>) {
    let auto_revert = d.task_groups.iter().any(|(name, st)| {
        st.auto_revert && (groups_failed.is_empty() || groups_failed.contains(name))
    });
    let mut desc = base.to_string();
    let mut job = None;
    if auto_revert {
        match revert_target(snap, d) {
            Some(j) => {
                desc = desc_rollback(base, j.version);
                job = Some(j);
            }
            None => desc = desc_no_rollback_target(base),
        }
    }
    (
        DeploymentStatusUpdate {
            deployment_id: d.id.clone(),
            status: DEPLOYMENT_STATUS_FAILED.to_string(),
            status_description: desc,
        },
        job,
    )
}

fn current_job(snap: &StateSnapshot, d: &Deployment) -> Result<Job, DeploymentError> {
    snap.job_by_id(&d.namespace, &d.job_id)
        .map(|j| (*j).clone())
        .ok_or(DeploymentError::NotFound)
}

async fn propose(server: &Server, cmd: Command) -> Result<u64, DeploymentError> {
    let resp = server.propose(cmd).await?;
    if !resp.error.is_empty() {
        return Err(DeploymentError::Apply(resp.error));
    }
    Ok(resp.index)
}

fn response(index: u64, eval: Option<&Evaluation>, job: Option<&Job>) -> DeploymentUpdateResponse {
    DeploymentUpdateResponse {
        eval_id: eval.map(|e| e.id.clone()).unwrap_or_default(),
        eval_create_index: eval.map(|_| index).unwrap_or(0),
        deployment_modify_index: index,
        reverted_job_version: job.map(|j| j.version),
        index,
    }
}

/// Promote canaries (`groups` empty: all). Every promoted group's canaries must be healthy.
pub async fn promote(
    server: &Server,
    id: &str,
    groups: Vec<String>,
) -> Result<DeploymentUpdateResponse, DeploymentError> {
    let snap = server.state().snapshot();
    let d = find(&snap, id)?;
    if !d.active() {
        return Err(DeploymentError::Terminal { action: "promote" });
    }
    if !d.task_groups.values().any(|s| s.desired_canaries > 0) {
        return Err(DeploymentError::NoCanaries);
    }
    let allocs = snap.allocs_for_job(&d.namespace, &d.job_id);
    for (name, st) in &d.task_groups {
        if st.desired_canaries == 0 || !(groups.is_empty() || groups.contains(name)) {
            continue;
        }
        let healthy = allocs
            .iter()
            .filter(|a| a.deployment_id == d.id && &a.task_group == name && a.is_canary())
            .filter(|a| a.deployment_healthy() == Some(true))
            .count();
        if (healthy as i64) < st.desired_canaries {
            return Err(DeploymentError::Unhealthy {
                group: name.clone(),
                healthy,
                desired: st.desired_canaries,
            });
        }
    }
    let job = current_job(&snap, &d)?;
    let eval = deployment_eval(&job, &d.id, now_nanos());
    let index = propose(
        server,
        Command::DeploymentPromote {
            deployment_id: d.id.clone(),
            groups,
            eval: Some(eval.clone()),
            time: now_nanos(),
        },
    )
    .await?;
    Ok(response(index, Some(&eval), None))
}

/// Mark a deployment failed by the operator (reverting when it auto-reverts).
pub async fn fail(server: &Server, id: &str) -> Result<DeploymentUpdateResponse, DeploymentError> {
    let snap = server.state().snapshot();
    let d = find(&snap, id)?;
    if !d.active() {
        return Err(DeploymentError::Terminal { action: "fail" });
    }
    let (update, job) = failure(&snap, &d, DESC_FAILED_BY_USER, &[]);
    let now = now_nanos();
    let eval_job = match &job {
        Some(j) => j.clone(),
        None => current_job(&snap, &d)?,
    };
    let eval = deployment_eval(&eval_job, &d.id, now);
    let index = propose(
        server,
        Command::DeploymentStatusUpdate {
            update,
            job: job.clone(),
            eval: Some(eval.clone()),
            time: now,
        },
    )
    .await?;
    Ok(response(index, Some(&eval), job.as_ref()))
}

/// Pause (`pause = true`) or resume a deployment.
pub async fn pause(
    server: &Server,
    id: &str,
    pause: bool,
) -> Result<DeploymentUpdateResponse, DeploymentError> {
    let snap = server.state().snapshot();
    let d = find(&snap, id)?;
    if !d.active() {
        return Err(DeploymentError::Terminal {
            action: if pause { "pause" } else { "resume" },
        });
    }
    let now = now_nanos();
    let (status, desc, eval) = if pause {
        (DEPLOYMENT_STATUS_PAUSED, DESC_PAUSED.to_string(), None)
    } else {
        let job = current_job(&snap, &d)?;
        let mut running = (*d).clone();
        running.status = DEPLOYMENT_STATUS_RUNNING.to_string();
        let desc = crate::scheduler::deployment_running_description(&running).to_string();
        (
            DEPLOYMENT_STATUS_RUNNING,
            desc,
            Some(deployment_eval(&job, &d.id, now)),
        )
    };
    let index = propose(
        server,
        Command::DeploymentStatusUpdate {
            update: DeploymentStatusUpdate {
                deployment_id: d.id.clone(),
                status: status.to_string(),
                status_description: desc,
            },
            job: None,
            eval: eval.clone(),
            time: now,
        },
    )
    .await?;
    Ok(response(index, eval.as_ref(), None))
}

/// Record alloc health; an unhealthy alloc fails the deployment (with revert) in the same
/// entry, as Nomad's `UpdateDeploymentAllocHealth`.
pub async fn set_alloc_health(
    server: &Server,
    id: &str,
    healthy: Vec<String>,
    unhealthy: Vec<String>,
    fail_desc: &str,
) -> Result<DeploymentUpdateResponse, DeploymentError> {
    let snap = server.state().snapshot();
    let d = find(&snap, id)?;
    if !d.active() {
        return Err(DeploymentError::Terminal {
            action: "set health of allocations for",
        });
    }
    let now = now_nanos();
    let (update, job) = if unhealthy.is_empty() {
        (None, None)
    } else {
        let groups: Vec<String> = unhealthy
            .iter()
            .filter_map(|a| snap.alloc_by_id(a).map(|a| a.task_group.clone()))
            .collect();
        let (u, j) = failure(&snap, &d, fail_desc, &groups);
        (Some(u), j)
    };
    let eval_job = match &job {
        Some(j) => j.clone(),
        None => current_job(&snap, &d)?,
    };
    let eval = deployment_eval(&eval_job, &d.id, now);
    let index = propose(
        server,
        Command::DeploymentAllocHealth {
            deployment_id: d.id.clone(),
            healthy,
            unhealthy,
            update,
            job: job.clone(),
            eval: Some(eval.clone()),
            time: now,
        },
    )
    .await?;
    Ok(response(index, Some(&eval), job.as_ref()))
}
