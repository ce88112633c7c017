//! The plan applier: the one place placements are committed. Each plan is re-checked against
//! the newest state (nodes may have filled up or gone away since the scheduler's snapshot);
//! what still fits is proposed as one `ApplyPlan` command.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use tokio::sync::{mpsc, oneshot};

use super::fsm::Command;
use super::state::StateSnapshot;
use super::{Server, ServerError};
use crate::api::{now_nanos, Allocation, Node, Plan, PlanResult};

type Request = (Plan, oneshot::Sender<Result<PlanResult, ServerError>>);

pub(crate) struct PlanQueue {
    tx: mpsc::Sender<Request>,
}

impl PlanQueue {
    pub(crate) fn new() -> (PlanQueue, mpsc::Receiver<Request>) {
        let (tx, rx) = mpsc::channel(256);
        (PlanQueue { tx }, rx)
    }

    /// Submit a plan and wait for what was committed of it.
    pub(crate) async fn submit(&self, plan: Plan) -> Result<PlanResult, ServerError> {
        let (reply, rx) = oneshot::channel();
        self.tx
            .send((plan, reply))
            .await
            .map_err(|_| ServerError::Shutdown)?;
        rx.await.map_err(|_| ServerError::Shutdown)?
    }
}

pub(crate) async fn run(server: Server, mut rx: mpsc::Receiver<Request>) {
    loop {
        let (plan, reply) = tokio::select! {
            _ = server.shutdown_token().cancelled() => return,
            req = rx.recv() => match req { Some(r) => r, None => return },
        };
        let result = apply(&server, plan).await;
        // The worker may have given up waiting; nothing to do then.
        let _ = reply.send(result);
    }
}

async fn apply(server: &Server, plan: Plan) -> Result<PlanResult, ServerError> {
    if !server.is_leader() {
        return Err(ServerError::NoLeader);
    }
    let snap = server.state().snapshot();
    let mut result = evaluate(&snap, &plan);
    let stopped: Vec<Allocation> = result
        .node_update
        .values()
        .flatten()
        .map(strip_job)
        .collect();
    let placed: Vec<Allocation> = result
        .node_allocation
        .values()
        .flatten()
        .map(strip_job)
        .collect();
    if stopped.is_empty()
        && placed.is_empty()
        && plan.deployment.is_none()
        && plan.deployment_updates.is_empty()
    {
        result.refresh_index = snap.latest_index();
        return Ok(result);
    }
    let resp = server
        .propose(Command::ApplyPlan {
            job: plan.job.clone(),
            stopped,
            placed,
            eval: None,
            time: now_nanos(),
            deployment: plan.deployment.clone(),
            deployment_updates: plan.deployment_updates.clone(),
        })
        .await?;
    result.alloc_index = resp.index;
    if !result.rejected_nodes.is_empty() {
        result.refresh_index = resp.index;
    }
    Ok(result)
}

/// The job travels once per plan, not once per alloc; the FSM re-attaches it.
fn strip_job(a: &Allocation) -> Allocation {
    Allocation {
        job: None,
        ..a.clone()
    }
}

/// Decide which nodes of the plan still fit in `snap`. Stops always apply.
pub(crate) fn evaluate(snap: &StateSnapshot, plan: &Plan) -> PlanResult {
    let mut result = PlanResult {
        node_update: plan.node_update.clone(),
        ..Default::default()
    };
    for (node_id, allocs) in &plan.node_allocation {
        if allocs.is_empty() {
            continue;
        }
        let fits = snap.node_by_id(node_id).is_some_and(|node| {
            node_fits(
                &node,
                &snap.allocs_for_node(node_id),
                plan.node_update.get(node_id),
                allocs,
            )
        });
        if fits {
            result
                .node_allocation
                .insert(node_id.clone(), allocs.clone());
        } else {
            result.rejected_nodes.push(node_id.clone());
        }
    }
    if plan.all_at_once && !result.rejected_nodes.is_empty() {
        result.node_allocation = BTreeMap::new();
    }
    result
}

/// Whether the node, with the plan's stops and placements, stays within its resources and
/// has no port used twice. New placements need a schedulable node; in-place updates do not.
fn node_fits(
    node: &Node,
    existing: &[Arc<Allocation>],
    stops: Option<&Vec<Allocation>>,
    placed: &[Allocation],
) -> bool {
    let mut removed: BTreeSet<&str> = stops
        .map(|s| s.iter().map(|a| a.id.as_str()).collect())
        .unwrap_or_default();
    let existing_ids: BTreeSet<&str> = existing.iter().map(|a| a.id.as_str()).collect();
    let has_new = placed.iter().any(|a| !existing_ids.contains(a.id.as_str()));
    if has_new && !node.ready() {
        return false;
    }
    removed.extend(placed.iter().map(|a| a.id.as_str()));
    let remaining = existing
        .iter()
        .filter(|a| !a.terminal() && !removed.contains(a.id.as_str()))
        .map(|a| &**a);
    let (mut cpu, mut mem, mut disk) = (0i64, 0i64, 0i64);
    let mut ports = BTreeSet::new();
    // A placed alloc the client already finished (a failed alloc getting its follow-up
    // eval ID) holds nothing.
    for a in remaining.chain(placed.iter().filter(|a| !a.client_terminal())) {
        let r = a.comparable_resources();
        cpu += r.cpu;
        mem += r.memory_mb;
        disk += r.disk_mb;
        for p in a.reserved_ports() {
            if !ports.insert(p) {
                return false;
            }
        }
    }
    let res = &node.node_resources;
    let reserved = &node.reserved_resources;
    cpu <= res.cpu.cpu_shares - reserved.cpu.cpu_shares
        && mem <= res.memory.memory_mb - reserved.memory.memory_mb
        && disk <= res.disk.disk_mb - reserved.disk.disk_mb
}
