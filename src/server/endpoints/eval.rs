//! `Eval.Delete` (operators removing evals while the broker is paused) and the forced core GC
//! behind `nomad system gc`.

use crate::api::bexpr::Filter;
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
    if ids.is_empty() && filter.is_empty() {
        return Err(bad("evals must be deleted by either ID or filter"));
    }
    if server.broker().enabled() {
        return Err(bad(
            "eval broker is enabled; eval broker must be paused to delete evals",
        ));
    }
    if !filter.is_empty() {
        return delete_by_filter(server, filter).await;
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

/// Nomad's batch size for deleting by filter (`MaxUUIDsPerWriteRequest / 10`): large enough
/// for throughput, small enough not to hold the FSM up for long.
const DELETE_BATCH: usize = 7281 / 10;

/// Delete every eval that matches `filter` and is safe to delete, in raft batches. Evals the
/// expression cannot be evaluated against, and unsafe ones, are skipped, as in Nomad.
async fn delete_by_filter(server: &Server, filter: &str) -> Result<(usize, u64), ServerError> {
    let filter = Filter::parse(filter)
        .map_err(|e| bad(&format!("failed to read filter expression: {e}")))?;
    let snap = server.state().snapshot();
    let mut matched = Vec::new();
    for eval in snap.evals(None) {
        let job = snap.job_by_id(&eval.namespace, &eval.job_id);
        if delete_safe(&snap.allocs_for_eval(&eval.id), job.as_deref())
            && filter.matches_item(&*eval).unwrap_or(false)
        {
            matched.push(eval.id.clone());
        }
    }
    let mut index = 0;
    for batch in matched.chunks(DELETE_BATCH) {
        let reap = Reap {
            evals: batch.to_vec(),
            ..Default::default()
        };
        index = server.propose(Command::Reap(reap)).await?.index;
    }
    Ok((matched.len(), index))
}

/// How many evals in `namespace` (`*` for all) match `prefix` and `filter` (`Eval.Count`);
/// evals the expression cannot be evaluated against do not count.
pub fn count(
    snap: &crate::server::state::StateSnapshot,
    namespace: &str,
    prefix: &str,
    filter: Option<&Filter>,
) -> usize {
    snap.evals(Some(namespace))
        .iter()
        .filter(|e| e.id.starts_with(prefix))
        .filter(|e| filter.is_none_or(|f| f.matches_item(&***e).unwrap_or(false)))
        .count()
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
