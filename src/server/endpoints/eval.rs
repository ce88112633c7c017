//! `Eval.Delete` (operators removing evals while the broker is paused) and the forced core GC
//! behind `nomad system gc`.

use crate::api::{Allocation, Job, ALLOC_CLIENT_FAILED, ALLOC_CLIENT_RUNNING, JOB_STATUS_DEAD};
use crate::server::core_gc::{self, GcThresholds};
use crate::server::fsm::Command;
use crate::server::state::Reap;
use crate::server::{Server, ServerError};

/// Delete the evals `ids`, as Nomad's `Eval.Delete`: only while the eval broker is paused,
/// and only evals whose allocs can no longer need them. Returns (count, raft index).
pub async fn delete(
    server: &Server,
    ids: &[String],
    filter: &str,
) -> Result<(usize, u64), ServerError> {
    if !filter.is_empty() && !ids.is_empty() {
        return Err(bad("evals cannot be deleted by both ID and filter"));
    }
    if !filter.is_empty() {
        return Err(bad(
            "deleting evals by filter expression is not supported by this server; pass eval IDs",
        ));
    }
    if ids.is_empty() {
        return Err(bad("evals must be deleted by either ID or filter"));
    }
    if server.broker().enabled() {
        return Err(bad(
            "eval broker is enabled; eval broker must be paused to delete evals",
        ));
    }
    let snap = server.state().snapshot();
    for id in ids {
        let Some(eval) = snap.eval_by_id(id) else {
            return Err(ServerError::NotFound("eval not found".to_string()));
        };
        let job = snap.job_by_id(&eval.namespace, &eval.job_id);
        if !delete_safe(&snap.allocs_for_eval(id), job.as_deref()) {
            return Err(bad(&format!("eval {id} is not safe to delete")));
        }
    }
    let reap = Reap {
        evals: ids.to_vec(),
        ..Default::default()
    };
    let resp = server.propose(Command::Reap(reap)).await?;
    Ok((ids.len(), resp.index))
}

fn bad(msg: &str) -> ServerError {
    ServerError::BadRequest(msg.to_string())
}

/// Nomad's `isEvalDeleteSafe`: no alloc of the eval is (or may be) running, and no failed one
/// still needs the eval to be rescheduled.
fn delete_safe(allocs: &[std::sync::Arc<Allocation>], job: Option<&Job>) -> bool {
    let Some(job) = job.filter(|j| !j.stop && j.status != JOB_STATUS_DEAD) else {
        return true;
    };
    allocs.iter().all(|a| {
        if a.client_status == ALLOC_CLIENT_RUNNING || a.client_status == "unknown" {
            return false;
        }
        if a.client_status != ALLOC_CLIENT_FAILED {
            return true;
        }
        let policy = job
            .lookup_task_group(&a.task_group)
            .and_then(|g| g.reschedule_policy.as_ref());
        match policy {
            None => true,
            Some(p) if !p.unlimited && p.attempts == 0 => true,
            Some(_) => !a.next_allocation.is_empty(),
        }
    })
}

/// `nomad system gc`: collect everything terminal now, whatever its age.
pub async fn force_gc(server: &Server) -> Result<Reap, ServerError> {
    core_gc::run_once(server, &GcThresholds::forced()).await
}

/// `nomad system reconcile summaries`: recount every job summary from its allocs.
pub async fn reconcile_summaries(server: &Server) -> Result<u64, ServerError> {
    Ok(server.propose(Command::ReconcileSummaries).await?.index)
}
