//! Job.Evaluate: a new evaluation of a job as it stands (`nomad job eval`), optionally forcing
//! the reschedule of its failed allocs whatever their reschedule attempts say.

use crate::api::{
    generate_id, now_nanos, DesiredTransition, Evaluation, JobRegisterResponse,
    ALLOC_CLIENT_FAILED, EVAL_STATUS_PENDING, TRIGGER_JOB_REGISTER,
};
use crate::server::fsm::Command;
use crate::server::{Server, ServerError};

pub async fn evaluate(
    server: &Server,
    namespace: &str,
    job_id: &str,
    force_reschedule: bool,
) -> Result<JobRegisterResponse, ServerError> {
    let bad = |m: &str| ServerError::BadRequest(m.to_string());
    if job_id.is_empty() {
        return Err(bad("missing job ID for evaluation"));
    }
    let snap = server.state().snapshot();
    let job = snap
        .job_by_id(namespace, job_id)
        .ok_or_else(|| ServerError::NotFound("job not found".to_string()))?;
    if job.is_periodic() {
        return Err(bad("can't evaluate periodic job"));
    }
    if job.is_parameterized() {
        return Err(bad("can't evaluate parameterized job"));
    }
    let mut transitions = std::collections::BTreeMap::new();
    if force_reschedule {
        for alloc in snap.allocs_for_job(namespace, job_id) {
            // Only groups that reschedule at all (attempts or unlimited), as Nomad.
            let reschedules = job
                .lookup_task_group(&alloc.task_group)
                .and_then(|g| g.reschedule_policy.as_ref())
                .is_some_and(|p| p.attempts > 0 || p.unlimited);
            if reschedules
                && alloc.next_allocation.is_empty()
                && alloc.client_status == ALLOC_CLIENT_FAILED
                && alloc.desired_transition.force_reschedule != Some(true)
            {
                let t = DesiredTransition {
                    force_reschedule: Some(true),
                    ..Default::default()
                };
                transitions.insert(alloc.id.clone(), t);
            }
        }
    }
    let now = now_nanos();
    let eval = Evaluation {
        id: generate_id(),
        namespace: namespace.to_string(),
        priority: job.priority,
        r#type: job.r#type.clone(),
        triggered_by: TRIGGER_JOB_REGISTER.to_string(),
        job_id: job.id.clone(),
        job_modify_index: job.modify_index,
        status: EVAL_STATUS_PENDING.to_string(),
        create_time: now,
        modify_time: now,
        ..Default::default()
    };
    let resp = server
        .propose(Command::AllocUpdateDesiredTransition {
            transitions,
            evals: vec![eval.clone()],
            time: now,
        })
        .await?;
    Ok(JobRegisterResponse {
        eval_create_index: resp.index,
        eval_id: eval.id,
        index: resp.index,
        job_modify_index: job.modify_index,
        known_leader: true,
        ..Default::default()
    })
}
