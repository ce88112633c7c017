//! Job.Scale and Job.ScaleStatus: change one group's count (within its `scaling` policy's
//! min/max), record a scaling event, and report each group's desired/placed/running counts
//! with its recent events.

use std::collections::BTreeMap;

use serde_json::Value;

use super::job::spec_changed;
use crate::api::*;
use crate::server::fsm::Command;
use crate::server::{Server, ServerError};

/// `group "x" { scaling { min max } }` bounds, when the group has a policy.
fn policy_bounds(tg: &TaskGroup) -> Option<(i64, i64)> {
    let s = tg.scaling.as_ref()?;
    let min = s.get("Min").and_then(Value::as_i64).unwrap_or(0);
    let max = s.get("Max").and_then(Value::as_i64).unwrap_or(i64::MAX);
    Some((min, max))
}

/// Check a scale request against the job as stored; returns the job with the new count.
pub fn scaled_job(job: &Job, req: &JobScaleRequest) -> Result<Option<Job>, ServerError> {
    let bad = |m: String| Err(ServerError::BadRequest(m));
    let group = req.target.get("Group").cloned().unwrap_or_default();
    if group.is_empty() {
        return bad("missing task group name for scaling action".to_string());
    }
    if req.count.is_some_and(|c| c < 0) {
        return bad("scaling action count can't be negative".to_string());
    }
    if job.r#type == JOB_TYPE_SYSTEM && req.count.is_some_and(|c| c > 1) {
        return bad(r#"jobs of type "system" can only be scaled between 0 and 1"#.to_string());
    }
    let Some(tg) = job.task_groups.iter().find(|tg| tg.name == group) else {
        return bad(format!(
            "task group {group:?} specified for scaling does not exist in job"
        ));
    };
    let Some(count) = req.count else {
        return Ok(None);
    };
    if let Some((min, max)) = policy_bounds(tg) {
        if count < min {
            return bad(format!(
                "group count was less than scaling policy minimum: {count} < {min}"
            ));
        }
        if max < count {
            return bad(format!(
                "group count was greater than scaling policy maximum: {count} > {max}"
            ));
        }
    }
    if req.job_modify_index > 0 && req.job_modify_index != job.job_modify_index {
        return Err(ServerError::Conflict(format!(
            "Enforcing job modify index {}: job exists with conflicting job modify index: {}",
            req.job_modify_index, job.job_modify_index
        )));
    }
    let mut out = job.clone();
    for g in &mut out.task_groups {
        if g.name == group {
            g.count = i32::try_from(count)
                .map_err(|_| ServerError::BadRequest(format!("count {count} is too large")))?;
        }
    }
    Ok(Some(out))
}

pub async fn scale(
    server: &Server,
    namespace: &str,
    job_id: &str,
    req: JobScaleRequest,
) -> Result<JobRegisterResponse, ServerError> {
    let snap = server.state().snapshot();
    let job = snap
        .job_by_id(namespace, job_id)
        .ok_or_else(|| ServerError::NotFound(format!("job {job_id:?} not found")))?;
    let group = req.target.get("Group").cloned().unwrap_or_default();
    let previous_count = job
        .task_groups
        .iter()
        .find(|tg| tg.name == group)
        .map(|tg| tg.count as i64)
        .unwrap_or(0);
    let now = now_nanos();
    let mut resp = JobRegisterResponse {
        job_modify_index: job.modify_index,
        ..Default::default()
    };
    let mut eval_id = None;
    if let Some(new_job) = scaled_job(&job, &req)? {
        let active = snap
            .latest_deployment(namespace, job_id)
            .is_some_and(|d| d.active() && d.job_create_index == job.create_index);
        if active {
            return Err(ServerError::BadRequest(
                "job scaling blocked due to active deployment".to_string(),
            ));
        }
        let eval = (!new_job.is_template()).then(|| Evaluation {
            id: generate_id(),
            namespace: namespace.to_string(),
            priority: new_job.priority,
            r#type: new_job.r#type.clone(),
            triggered_by: "job-scaling".to_string(),
            job_id: job_id.to_string(),
            status: EVAL_STATUS_PENDING.to_string(),
            create_time: now,
            modify_time: now,
            ..Default::default()
        });
        let cmd = if spec_changed(&job, &new_job) {
            Command::JobRegister {
                job: new_job,
                eval: eval.clone(),
                submit_time: now,
            }
        } else {
            Command::EvalUpsert {
                evals: eval.iter().cloned().collect(),
            }
        };
        let applied = server.propose(cmd).await?;
        resp.job_modify_index = applied.index;
        if let Some(e) = eval {
            resp.eval_create_index = applied.index;
            resp.eval_id = e.id.clone();
            eval_id = Some(e.id);
        }
    }
    let event = ScalingEvent {
        count: req.count,
        error: req.error,
        eval_id,
        message: req.message.clone(),
        meta: req.meta.clone(),
        previous_count,
        time: now.max(0) as u64,
        ..Default::default()
    };
    let applied = server
        .propose(Command::ScalingEvent {
            namespace: namespace.to_string(),
            job_id: job_id.to_string(),
            group,
            event,
        })
        .await?;
    resp.index = applied.index;
    Ok(resp)
}

/// Job.ScaleStatus from a state snapshot.
pub fn scale_status(
    snap: &crate::server::state::StateSnapshot,
    namespace: &str,
    job_id: &str,
) -> Option<JobScaleStatus> {
    let job = snap.job_by_id(namespace, job_id)?;
    let mut events = snap.scaling_events(namespace, job_id);
    let deployment = snap.latest_deployment(namespace, job_id);
    let allocs = snap.allocs_for_job(namespace, job_id);
    let mut groups = BTreeMap::new();
    for tg in &job.task_groups {
        let mine = || allocs.iter().filter(|a| a.task_group == tg.name);
        let mut status = TaskGroupScaleStatus {
            desired: tg.count as i64,
            running: mine()
                .filter(|a| a.client_status == ALLOC_CLIENT_RUNNING && !a.terminal())
                .count() as i64,
            placed: mine().filter(|a| !a.terminal()).count() as i64,
            events: events.remove(&tg.name),
            ..Default::default()
        };
        let dstate = deployment
            .as_ref()
            .and_then(|d| d.task_groups.get(&tg.name).cloned());
        if let Some(ds) = dstate {
            status.placed = ds.placed_allocs;
            status.healthy = ds.healthy_allocs;
            status.unhealthy = ds.unhealthy_allocs;
        }
        groups.insert(tg.name.clone(), status);
    }
    Some(JobScaleStatus {
        job_create_index: job.create_index,
        job_id: job.id.clone(),
        job_modify_index: job.modify_index,
        job_stopped: job.stop,
        namespace: job.namespace.clone(),
        task_groups: groups,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn job_with_policy(policy: Option<Value>) -> Job {
        let mut job = crate::scheduler::testing::job(2);
        job.task_groups[0].scaling = policy;
        job
    }

    fn req(group: &str, count: Option<i64>) -> JobScaleRequest {
        JobScaleRequest {
            target: BTreeMap::from([("Group".to_string(), group.to_string())]),
            count,
            ..Default::default()
        }
    }

    #[test]
    fn counts_respect_the_scaling_policy() {
        let job = job_with_policy(Some(serde_json::json!({"Min": 1, "Max": 5})));
        let scaled = scaled_job(&job, &req("g", Some(4)))
            .expect("ok")
            .expect("job");
        assert_eq!(scaled.task_groups[0].count, 4);
        let msg = |r| scaled_job(&job, &r).expect_err("bad").to_string();
        assert_eq!(
            msg(req("g", Some(0))),
            "group count was less than scaling policy minimum: 0 < 1"
        );
        assert_eq!(
            msg(req("g", Some(6))),
            "group count was greater than scaling policy maximum: 6 > 5"
        );
        assert_eq!(
            msg(req("nope", Some(1))),
            "task group \"nope\" specified for scaling does not exist in job"
        );
        assert_eq!(
            msg(req("g", Some(-1))),
            "scaling action count can't be negative"
        );
        // No count: only an event is recorded.
        assert!(scaled_job(&job, &req("g", None)).expect("ok").is_none());
        // Without a policy any count goes.
        let free = job_with_policy(None);
        assert!(scaled_job(&free, &req("g", Some(50))).is_ok());
        let mut stale = req("g", Some(3));
        stale.job_modify_index = 3;
        assert!(msg(stale).starts_with("Enforcing job modify index 3"));
    }
}
