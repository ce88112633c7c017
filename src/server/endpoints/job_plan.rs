//! Job.Plan: run the real scheduler on a copy of the state with the submitted job in it, and
//! report what it would do without committing anything.
//!
//! The copy is the state store's own snapshot (cheap to clone, never written back), so the
//! scheduler sees exactly what a worker would. The answer carries the scheduler's plan
//! annotations (per-group counts and the allocs it would preempt), the diff against the stored
//! job annotated with those counts, the groups that could not be placed, and the job modify
//! index a following `job run -check-index` must match.

use super::job::{check, spec_changed};
use crate::api::*;
use crate::jobspec::{format_multierror, format_warnings};
use crate::scheduler::{self, annotate, diff, SchedulerContext};
use crate::server::{Server, ServerError};

pub async fn plan(server: &Server, req: JobPlanRequest) -> Result<JobPlanResponse, ServerError> {
    let Some(job) = req.job else {
        return Err(ServerError::BadRequest("Job required for plan".to_string()));
    };
    let (job, warnings) =
        check(server, job).map_err(|errors| ServerError::BadRequest(format_multierror(&errors)))?;
    let now = now_nanos();
    dry_run(server, job, req.diff, now, rand::random()).map(|mut resp| {
        resp.warnings = format_warnings(&warnings);
        resp
    })
}

/// The plan itself, for a job that already passed validation.
fn dry_run(
    server: &Server,
    job: Job,
    want_diff: bool,
    now: i64,
    seed: u64,
) -> Result<JobPlanResponse, ServerError> {
    let snap = server.state().snapshot();
    let existing = snap.job_by_id(&job.namespace, &job.id);
    let mut view = (*snap).clone();
    let index = existing.as_ref().map(|j| j.job_modify_index).unwrap_or(0);
    // The job goes into the copy at the index it would get, so the scheduler treats allocs of
    // the stored version as older; an unchanged job is scheduled as it stands.
    let mut updated_index = 0;
    match existing.as_deref() {
        Some(old) if spec_changed(old, &job) => {
            updated_index = old.job_modify_index + 1;
            view.upsert_job(updated_index, job.clone(), now);
        }
        Some(_) => {}
        None => {
            view.upsert_job(snap.latest_index() + 1, job.clone(), now);
        }
    }
    let eval = Evaluation {
        id: generate_id(),
        namespace: job.namespace.clone(),
        priority: job.priority,
        r#type: job.r#type.clone(),
        triggered_by: TRIGGER_JOB_REGISTER.to_string(),
        job_id: job.id.clone(),
        job_modify_index: updated_index,
        status: EVAL_STATUS_PENDING.to_string(),
        annotate_plan: true,
        create_time: now,
        modify_time: now,
        ..Default::default()
    };
    let result = scheduler::process_eval(&eval, &view, SchedulerContext { now, seed })
        .map_err(|e| ServerError::BadRequest(e.to_string()))?;

    // The scheduler's own annotations, as a worker would record them on the eval.
    let annotations = result.eval.plan_annotations.unwrap_or_default();
    let failed = result.eval.failed_tg_allocs;
    let job_diff = if want_diff {
        let mut d = diff::job_diff(existing.as_deref(), Some(&job), true)
            .map_err(|e| ServerError::BadRequest(format!("failed to create job diff: {e}")))?;
        annotate::annotate(&mut d, &annotations.desired_tg_updates);
        Some(d)
    } else {
        None
    };
    let created: Vec<Evaluation> = result
        .blocked_eval
        .into_iter()
        .chain(result.followup_evals)
        .collect();
    let next_periodic_launch = next_launch(&job, now)?;
    Ok(JobPlanResponse {
        annotations: Some(annotations),
        created_evals: (!created.is_empty()).then_some(created),
        diff: job_diff,
        failed_tg_allocs: failed.filter(|f| !f.is_empty()),
        index,
        job_modify_index: index,
        next_periodic_launch,
        warnings: String::new(),
    })
}

/// When an enabled periodic job would next launch if submitted now.
fn next_launch(job: &Job, now: i64) -> Result<Option<String>, ServerError> {
    let Some(cfg) = crate::api::cron::PeriodicSpec::from_job(job)
        .map_err(|e| ServerError::BadRequest(format!("Failed to parse cron expression: {e}")))?
    else {
        return Ok(None);
    };
    if !cfg.enabled {
        return Ok(None);
    }
    Ok(cfg.next_after(now).map(format_rfc3339))
}
