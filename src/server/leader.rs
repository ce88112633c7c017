//! Leader-only duties: routing new evals to the broker or the blocked set, restoring them when
//! leadership is gained, and unblocking blocked evals when capacity appears.

use tokio::sync::mpsc::UnboundedReceiver;

use super::fsm::Command;
use super::state::StateSnapshot;
use super::Server;
use crate::api::{
    now_nanos, Evaluation, EVAL_STATUS_BLOCKED, EVAL_STATUS_CANCELED, EVAL_STATUS_PENDING,
};

/// The evals a command created or changed that the leader must act on, as now stored (with
/// their raft indexes).
pub(crate) fn evals_to_route(cmd: &Command, snap: &StateSnapshot) -> Vec<Evaluation> {
    let ids: Vec<&str> = match cmd {
        Command::JobRegister { eval, .. }
        | Command::JobDeregister { eval, .. }
        | Command::DeploymentStatusUpdate { eval, .. }
        | Command::DeploymentPromote { eval, .. }
        | Command::DeploymentAllocHealth { eval, .. } => {
            eval.iter().map(|e| e.id.as_str()).collect()
        }
        Command::NodeUpdateStatus { evals, .. }
        | Command::AllocClientUpdate { evals, .. }
        | Command::EvalUpsert { evals }
        | Command::ApplyPlan { evals, .. }
        | Command::NodeUpdateDrain { evals, .. }
        | Command::NodeUpdateEligibility { evals, .. }
        | Command::AllocUpdateDesiredTransition { evals, .. } => {
            evals.iter().map(|e| e.id.as_str()).collect()
        }
        Command::NodeRegister { .. }
        | Command::Reap(_)
        | Command::ReconcileSummaries
        | Command::ServiceRegistrationUpsert { .. }
        | Command::ServiceRegistrationDelete { .. }
        | Command::ServiceRegistrationDeleteByAlloc { .. }
        | Command::ScalingEvent { .. }
        | Command::SchedulerSetConfig { .. }
        | Command::JobVersionTag { .. } => Vec::new(),
    };
    ids.into_iter()
        .filter_map(|id| snap.eval_by_id(id))
        .filter(|e| e.status == EVAL_STATUS_PENDING || e.status == EVAL_STATUS_BLOCKED)
        .map(|e| (*e).clone())
        .collect()
}

/// Send a pending eval to the broker and a blocked one to the blocked set. Returns an eval
/// the blocked set superseded, which the caller cancels.
fn route(server: &Server, eval: Evaluation) -> Option<Evaluation> {
    if eval.status != EVAL_STATUS_BLOCKED {
        server.broker().enqueue(eval);
        return None;
    }
    let outcome = server.blocked(|b| b.block(eval));
    if let Some(ready) = outcome.ready {
        server.broker().enqueue(ready);
    }
    outcome.superseded
}

/// Capacity of `computed_class` changed at `index` (a node became ready, an alloc finished):
/// re-enqueue the blocked evals that may now fit.
pub(crate) fn unblock(server: &Server, computed_class: &str, index: u64) {
    if !server.is_leader() {
        return;
    }
    for eval in server.blocked(|b| b.unblock(computed_class, index)) {
        server.broker().enqueue(eval);
    }
}

/// Mark superseded blocked evals canceled, as Nomad does.
async fn cancel(server: &Server, mut evals: Vec<Evaluation>) {
    if evals.is_empty() {
        return;
    }
    let now = now_nanos();
    for e in &mut evals {
        e.status = EVAL_STATUS_CANCELED.to_string();
        e.status_description = "evaluation superseded by a newer blocked evaluation".to_string();
        e.modify_time = now;
    }
    if let Err(e) = server.propose(Command::EvalUpsert { evals }).await {
        tracing::warn!(error = %e, "cancelling superseded blocked evals");
    }
}

/// Evals written canceled per raft entry when reaping superseded ones (Nomad's page size).
const CANCEL_BATCH: usize = 728;

/// Mark the evals the broker superseded (a newer or higher-priority eval of the same job
/// was processed) canceled, as Nomad's leader does; left pending, they would never finish
/// and `nomad job eval` / `job run` monitors would wait on them forever.
async fn reap_cancelable(server: &Server) {
    loop {
        let mut evals = server.broker().cancelable(CANCEL_BATCH);
        if evals.is_empty() {
            return;
        }
        let now = now_nanos();
        for e in &mut evals {
            e.status = EVAL_STATUS_CANCELED.to_string();
            e.status_description = "canceled after more recent eval was processed".to_string();
            e.modify_time = now;
        }
        if let Err(e) = server.propose(Command::EvalUpsert { evals }).await {
            tracing::warn!(error = %e, "cancelling superseded evals");
            return;
        }
    }
}

/// Follow leadership; while leader, route evals from the FSM.
pub(crate) async fn run(server: Server, mut evals: UnboundedReceiver<Vec<Evaluation>>) {
    // The watcher acts only while this server leads; it checks on every tick.
    tokio::spawn(super::deployment_watcher::run(server.clone()));
    let mut leadership = server.raft().leadership();
    let mut leader = false;
    loop {
        let now_leader = *leadership.borrow_and_update();
        if now_leader != leader {
            leader = now_leader;
            if leader {
                let superseded = establish(&server);
                cancel(&server, superseded).await;
            } else {
                revoke(&server);
            }
        }
        tokio::select! {
            _ = server.shutdown_token().cancelled() => break,
            changed = leadership.changed() => if changed.is_err() { break },
            _ = server.broker().cancelable_ready(), if leader => reap_cancelable(&server).await,
            batch = evals.recv() => match batch {
                Some(batch) if leader => {
                    let superseded: Vec<_> = batch.into_iter().filter_map(|e| route(&server, e)).collect();
                    cancel(&server, superseded).await;
                }
                Some(_) => {}
                None => break,
            },
        }
    }
    revoke(&server);
}

/// Gained leadership: enable the broker and restore the evals and heartbeats the state holds.
fn establish(server: &Server) -> Vec<Evaluation> {
    tracing::info!("cluster leadership acquired");
    let paused = server
        .state()
        .snapshot()
        .scheduler_config()
        .pause_eval_broker;
    server.broker().set_enabled(!paused);
    server.blocked(|b| b.set_enabled(true));
    let snap = server.state().snapshot();
    let mut superseded = Vec::new();
    for eval in snap.evals(None) {
        if eval.status == EVAL_STATUS_PENDING || eval.status == EVAL_STATUS_BLOCKED {
            superseded.extend(route(server, (*eval).clone()));
        }
    }
    server.heartbeats().initialize(&snap);
    superseded
}

/// The operator paused or resumed the eval broker (`PauseEvalBroker`). Resuming re-enqueues
/// the pending evals the state holds, as gaining leadership does.
pub(crate) fn set_broker_paused(server: &Server, paused: bool) {
    if !server.is_leader() || server.broker().enabled() != paused {
        return;
    }
    server.broker().set_enabled(!paused);
    if paused {
        tracing::info!("eval broker paused by the scheduler configuration");
        return;
    }
    for eval in server.state().snapshot().evals(None) {
        if eval.status == EVAL_STATUS_PENDING {
            server.broker().enqueue((*eval).clone());
        }
    }
}

fn revoke(server: &Server) {
    server.broker().set_enabled(false);
    server.blocked(|b| b.set_enabled(false));
    server.heartbeats().clear();
}
