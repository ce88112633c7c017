//! TEMPORARY integration shim (replaced by the sched branch).
use super::*;
#[derive(Debug, thiserror::Error)]
#[error("scheduler error")]
pub struct SchedulerError;
pub fn process_eval(
    eval: &Evaluation,
    _state: &dyn StateView,
    _ctx: SchedulerContext,
) -> Result<SchedulerResult, SchedulerError> {
    let mut e = eval.clone();
    e.status = "complete".into();
    Ok(SchedulerResult {
        plan: Plan::default(),
        eval: e,
        blocked_eval: None,
    })
}
