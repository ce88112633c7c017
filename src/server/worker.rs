//! Scheduler workers: take an eval from the broker, schedule it on a snapshot at least as new
//! as the eval, submit the plan, retry on a partial commit with fresher state, then record the
//! eval's outcome and ack it.

use std::time::Duration;

use super::fsm::Command;
use super::{Server, ServerError};
use crate::api::{now_nanos, Evaluation, EVAL_STATUS_FAILED};
use crate::scheduler::{self, SchedulerContext};

/// How many times a partially committed plan is re-planned before the eval is given up on
/// (Nomad's maxServiceScheduleAttempts).
const MAX_ATTEMPTS: usize = 5;
const SCHEDULER_TYPES: &[&str] = &["service", "batch", "system", "sysbatch", "_core"];

pub(crate) async fn run(server: Server, worker_id: u64) {
    loop {
        let next = tokio::select! {
            _ = server.shutdown_token().cancelled() => return,
            next = server.broker().dequeue(SCHEDULER_TYPES, Duration::from_millis(500)) => next,
        };
        let (eval, token) = match next {
            Ok(Some(next)) => next,
            Ok(None) => continue,
            // Not the leader: nothing to schedule until leadership comes.
            Err(_) => {
                tokio::select! {
                    _ = server.shutdown_token().cancelled() => return,
                    _ = tokio::time::sleep(Duration::from_millis(100)) => continue,
                }
            }
        };
        let eval_id = eval.id.clone();
        match process(&server, eval).await {
            Ok(()) => {
                if let Err(e) = server.broker().ack(&eval_id, &token) {
                    tracing::warn!(worker_id, eval_id = %eval_id, error = %e, "eval ack failed");
                }
            }
            Err(e) => {
                tracing::error!(worker_id, eval_id = %eval_id, error = %e, "eval processing failed");
                if let Err(e) = server.broker().nack(&eval_id, &token) {
                    tracing::warn!(worker_id, eval_id = %eval_id, error = %e, "eval nack failed");
                }
            }
        }
    }
}

async fn process(server: &Server, eval: Evaluation) -> Result<(), ServerError> {
    let state = server.state();
    let mut snap = state
        .wait_for_index(eval.modify_index, Duration::from_secs(5))
        .await
        .ok_or_else(|| {
            ServerError::Apply(format!("state did not reach index {}", eval.modify_index))
        })?;
    // Nomad fails an eval that ran out of attempts with the last attempt's annotations.
    let mut last_annotations = eval.plan_annotations.clone();
    for _ in 0..MAX_ATTEMPTS {
        let ctx = SchedulerContext {
            now: now_nanos(),
            seed: rand::random(),
        };
        // Scheduling is CPU work: off the async threads, which carry raft and the API.
        let (job_eval, job_snap) = (eval.clone(), snap.clone());
        let scheduled = tokio::task::spawn_blocking(move || {
            scheduler::process_eval(&job_eval, &*job_snap, ctx)
        })
        .await
        .map_err(|e| ServerError::Apply(format!("scheduler task failed: {e}")))?;
        let mut result = match scheduled {
            Ok(r) => r,
            Err(e) => {
                let mut failed = eval.clone();
                failed.status = EVAL_STATUS_FAILED.to_string();
                failed.status_description = e.to_string();
                return write_evals(server, vec![failed]).await;
            }
        };
        last_annotations = result.eval.plan_annotations.clone();
        let mut evals = vec![result.eval];
        evals.extend(result.blocked_eval);
        evals.extend(result.followup_evals);
        if result.plan.is_no_op() {
            return write_evals(server, evals).await;
        }
        result.plan.snapshot_index = snap.latest_index();
        let now = now_nanos();
        for e in &mut evals {
            e.modify_time = now;
        }
        // A plan that commits in full carries the eval's outcome in the same raft entry.
        let committed = server.plans().submit(result.plan, evals).await?;
        tracing::trace!(eval_id = %eval.id, placed = committed.placed, full = committed.evals_written, "plan committed");
        if committed.evals_written {
            return Ok(());
        }
        // Some nodes filled up under us: schedule again on the state that includes the commit.
        let want = committed
            .result
            .refresh_index
            .max(committed.result.alloc_index);
        snap = state
            .wait_for_index(want, Duration::from_secs(5))
            .await
            .unwrap_or_else(|| state.snapshot());
    }
    let mut failed = eval.clone();
    failed.status = EVAL_STATUS_FAILED.to_string();
    failed.status_description = "maximum attempts reached (5)".to_string();
    failed.plan_annotations = last_annotations;
    write_evals(server, vec![failed]).await
}

/// Records the eval's outcome (and the evals it created) on its own.
async fn write_evals(server: &Server, mut evals: Vec<Evaluation>) -> Result<(), ServerError> {
    let now = now_nanos();
    for e in &mut evals {
        e.modify_time = now;
    }
    server.propose(Command::EvalUpsert { evals }).await?;
    Ok(())
}
