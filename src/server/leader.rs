//! Leader-only duties: routing new evals to the broker or the blocked set, restoring them when
//! leadership is gained, and unblocking blocked evals when capacity appears.

use std::collections::BTreeMap;
use std::sync::Mutex;

use tokio::sync::mpsc::UnboundedReceiver;

use super::fsm::Command;
use super::state::StateSnapshot;
use super::Server;
use crate::api::{Evaluation, EVAL_STATUS_BLOCKED, EVAL_STATUS_PENDING};

/// Blocked evals, one per job (a newer one replaces the older).
#[derive(Default)]
pub(crate) struct BlockedEvals {
    evals: Mutex<BTreeMap<(String, String), Evaluation>>,
}

impl BlockedEvals {
    fn block(&self, eval: Evaluation) {
        if let Ok(mut m) = self.evals.lock() {
            m.insert((eval.namespace.clone(), eval.job_id.clone()), eval);
        }
    }
    fn take_all(&self) -> Vec<Evaluation> {
        self.evals
            .lock()
            .map(|mut m| std::mem::take(&mut *m).into_values().collect())
            .unwrap_or_default()
    }
    fn clear(&self) {
        if let Ok(mut m) = self.evals.lock() {
            m.clear();
        }
    }
}

/// The evals a command created or changed that the leader must act on, as now stored (with
/// their raft indexes).
pub(crate) fn evals_to_route(cmd: &Command, snap: &StateSnapshot) -> Vec<Evaluation> {
    let ids: Vec<&str> = match cmd {
        Command::JobRegister { eval, .. } | Command::JobDeregister { eval, .. } => {
            eval.iter().map(|e| e.id.as_str()).collect()
        }
        Command::NodeUpdateStatus { evals, .. }
        | Command::AllocClientUpdate { evals, .. }
        | Command::EvalUpsert { evals } => evals.iter().map(|e| e.id.as_str()).collect(),
        Command::NodeRegister { .. } | Command::ApplyPlan { .. } => Vec::new(),
    };
    ids.into_iter()
        .filter_map(|id| snap.eval_by_id(id))
        .filter(|e| e.status == EVAL_STATUS_PENDING || e.status == EVAL_STATUS_BLOCKED)
        .map(|e| (*e).clone())
        .collect()
}

fn route(server: &Server, eval: Evaluation) {
    if eval.status == EVAL_STATUS_BLOCKED {
        server.inner.blocked.block(eval);
    } else {
        server.broker().enqueue(eval);
    }
}

/// Re-enqueue every blocked eval: capacity changed, so the scheduler gets another look.
pub(crate) fn unblock(server: &Server, _index: u64) {
    if !server.is_leader() {
        return;
    }
    for eval in server.inner.blocked.take_all() {
        server.broker().enqueue(eval);
    }
}

/// Follow leadership; while leader, route evals from the FSM.
pub(crate) async fn run(server: Server, mut evals: UnboundedReceiver<Vec<Evaluation>>) {
    let mut leadership = server.raft().leadership();
    let mut leader = false;
    loop {
        let now_leader = *leadership.borrow_and_update();
        if now_leader != leader {
            leader = now_leader;
            if leader {
                establish(&server);
            } else {
                revoke(&server);
            }
        }
        tokio::select! {
            _ = server.shutdown_token().cancelled() => break,
            changed = leadership.changed() => if changed.is_err() { break },
            batch = evals.recv() => match batch {
                Some(batch) if leader => batch.into_iter().for_each(|e| route(&server, e)),
                Some(_) => {}
                None => break,
            },
        }
    }
    revoke(&server);
}

/// Gained leadership: enable the broker and restore the evals and heartbeats the state holds.
fn establish(server: &Server) {
    tracing::info!("cluster leadership acquired");
    server.broker().set_enabled(true);
    let snap = server.state().snapshot();
    for eval in snap.evals(None) {
        if eval.status == EVAL_STATUS_PENDING || eval.status == EVAL_STATUS_BLOCKED {
            route(server, (*eval).clone());
        }
    }
    server.heartbeats().initialize(&snap);
}

fn revoke(server: &Server) {
    server.broker().set_enabled(false);
    server.inner.blocked.clear();
    server.heartbeats().clear();
}
