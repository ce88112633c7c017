//! The plan applier: the one place placements are committed. Each plan is re-checked against
//! the newest state (nodes may have filled up or gone away since the scheduler's snapshot);
//! what still fits is proposed as one `ApplyPlan` command, together with the eval updates
//! that finish the scheduler's eval when the plan commits in full.
//!
//! Plans are pipelined: the applier checks the next plan while earlier ones are still being
//! committed, counting their placements as already there (`InFlight`), so raft gets many
//! entries to append and fsync at once instead of one plan per disk flush. Stops of plans
//! in flight are not credited until they are committed, so a plan that relied on them is
//! refused in part and re-planned, never over-committed.

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

use tokio::sync::{mpsc, oneshot};
use tokio::task::JoinSet;

use super::fsm::Command;
use super::state::StateSnapshot;
use super::{Server, ServerError};
use crate::api::{now_nanos, Allocation, Evaluation, Node, Plan, PlanResult};
use crate::scheduler::rank::{node_capacity, HeldResources};

/// Plans whose commit the applier does not wait for before checking the next one.
const MAX_IN_FLIGHT: usize = 64;

/// What the applier did with one submitted plan.
#[derive(Debug, Clone, Default)]
pub(crate) struct Committed {
    pub result: PlanResult,
    /// The eval updates handed in with the plan were committed in the same raft entry (the
    /// plan committed in full); otherwise nothing of them was written.
    pub evals_written: bool,
    /// How many placements were committed (the result's stops and placements went into the
    /// raft entry).
    pub placed: usize,
}

type Reply = oneshot::Sender<Result<Committed, ServerError>>;

pub(crate) struct Request {
    plan: Plan,
    evals: Vec<Evaluation>,
    reply: Reply,
}

pub(crate) struct PlanQueue {
    tx: mpsc::Sender<Request>,
}

impl PlanQueue {
    pub(crate) fn new() -> (PlanQueue, mpsc::Receiver<Request>) {
        let (tx, rx) = mpsc::channel(256);
        (PlanQueue { tx }, rx)
    }

    /// Submit a plan and wait for what was committed of it. `evals` (the eval's outcome) are
    /// committed with the plan if every placement of it fits.
    pub(crate) async fn submit(
        &self,
        plan: Plan,
        evals: Vec<Evaluation>,
    ) -> Result<Committed, ServerError> {
        let (reply, rx) = oneshot::channel();
        self.tx
            .send(Request { plan, evals, reply })
            .await
            .map_err(|_| ServerError::Shutdown)?;
        rx.await.map_err(|_| ServerError::Shutdown)?
    }
}

/// Placements of proposed plans whose commit has not been seen yet, by node.
#[derive(Default)]
struct InFlight {
    /// Node ID -> (plan sequence number, placement).
    by_node: HashMap<String, Vec<(u64, Arc<Allocation>)>>,
    /// Plan sequence number -> the nodes it placed on.
    nodes_of: HashMap<u64, Vec<String>>,
}

impl InFlight {
    fn add(&mut self, seq: u64, placed: &[Arc<Allocation>]) {
        let mut nodes = Vec::new();
        for a in placed {
            let list = self.by_node.entry(a.node_id.clone()).or_default();
            if list.last().is_none_or(|(s, _)| *s != seq) {
                nodes.push(a.node_id.clone());
            }
            list.push((seq, a.clone()));
        }
        self.nodes_of.insert(seq, nodes);
    }

    /// The plan `seq` is committed (or failed): its placements are in the state or nowhere.
    fn remove(&mut self, seq: u64) {
        for node in self.nodes_of.remove(&seq).unwrap_or_default() {
            if let Some(list) = self.by_node.get_mut(&node) {
                list.retain(|(s, _)| *s != seq);
                if list.is_empty() {
                    self.by_node.remove(&node);
                }
            }
        }
    }

    /// Placements on `node_id` of plans in flight.
    fn placed_on(&self, node_id: &str) -> impl Iterator<Item = &Arc<Allocation>> {
        self.by_node
            .get(node_id)
            .into_iter()
            .flatten()
            .map(|(_, a)| a)
    }
}

pub(crate) async fn run(server: Server, mut rx: mpsc::Receiver<Request>) {
    let mut in_flight = InFlight::default();
    let mut commits: JoinSet<()> = JoinSet::new();
    // Commit task -> its plan's sequence number, so even a commit task that panicked takes
    // its placements out of the in-flight set.
    let mut seq_of: HashMap<tokio::task::Id, u64> = HashMap::new();
    let mut seq = 0u64;
    loop {
        tokio::select! {
            biased;
            _ = server.shutdown_token().cancelled() => return,
            Some(done) = commits.join_next_with_id(), if !commits.is_empty() => {
                let task = match done {
                    Ok((task, ())) => task,
                    Err(e) => e.id(),
                };
                if let Some(id) = seq_of.remove(&task) {
                    in_flight.remove(id);
                }
            }
            req = rx.recv(), if commits.len() < MAX_IN_FLIGHT => {
                let Some(req) = req else { return };
                seq += 1;
                if let Some(commit) = check(&server, req, &mut in_flight, seq) {
                    let task = commits.spawn(commit);
                    seq_of.insert(task.id(), seq);
                }
            }
        }
    }
}

/// Checks one plan against the state and the plans in flight. What fits is proposed by the
/// returned future, which answers the submitter; a plan with nothing to commit is answered
/// at once.
fn check(
    server: &Server,
    req: Request,
    in_flight: &mut InFlight,
    seq: u64,
) -> Option<impl std::future::Future<Output = ()> + Send + 'static> {
    let Request {
        mut plan,
        evals,
        reply,
    } = req;
    if !server.is_leader() {
        let _ = reply.send(Err(ServerError::NoLeader));
        return None;
    }
    let snap = server.state().snapshot();
    let mut result = evaluate(&snap, &mut plan, in_flight);
    // The allocs move out of the result into the command; the job travels once per plan,
    // not once per alloc (the FSM re-attaches it).
    let stopped: Vec<Allocation> = std::mem::take(&mut result.node_update)
        .into_values()
        .flatten()
        .map(|a| Allocation { job: None, ..a })
        .collect();
    let placed: Vec<Arc<Allocation>> = std::mem::take(&mut result.node_allocation)
        .into_values()
        .flatten()
        .map(|a| Arc::new(Allocation { job: None, ..a }))
        .collect();
    let full = result.rejected_nodes.is_empty();
    if stopped.is_empty()
        && placed.is_empty()
        && plan.deployment.is_none()
        && plan.deployment_updates.is_empty()
        && (!full || evals.is_empty())
    {
        result.refresh_index = snap.latest_index();
        let _ = reply.send(Ok(Committed {
            result,
            evals_written: false,
            placed: 0,
        }));
        return None;
    }
    in_flight.add(seq, &placed);
    let placed_count = placed.len();
    let cmd = Command::ApplyPlan {
        job: plan.job.clone(),
        stopped,
        placed,
        evals: if full { evals } else { Vec::new() },
        time: now_nanos(),
        deployment: plan.deployment.clone(),
        deployment_updates: plan.deployment_updates.clone(),
    };
    let server = server.clone();
    Some(async move {
        let committed = server.propose(cmd).await.map(|resp| {
            result.alloc_index = resp.index;
            if !result.rejected_nodes.is_empty() {
                result.refresh_index = resp.index;
            }
            Committed {
                result,
                evals_written: full,
                placed: placed_count,
            }
        });
        // The worker may have given up waiting; nothing to do then.
        let _ = reply.send(committed);
    })
}

/// Decide which nodes of the plan still fit in `snap`, counting the placements of plans in
/// flight as committed. Stops always apply. The plan's stops and placements move into the
/// result.
fn evaluate(snap: &StateSnapshot, plan: &mut Plan, in_flight: &InFlight) -> PlanResult {
    let mut result = PlanResult::default();
    for (node_id, allocs) in std::mem::take(&mut plan.node_allocation) {
        if allocs.is_empty() {
            continue;
        }
        let fits = snap.node_by_id(&node_id).is_some_and(|node| {
            let pending: Vec<&Arc<Allocation>> = in_flight.placed_on(&node_id).collect();
            node_fits(
                &node,
                snap,
                &pending,
                plan.node_update.get(&node_id),
                &allocs,
            )
        });
        if fits {
            result.node_allocation.insert(node_id, allocs);
        } else {
            result.rejected_nodes.push(node_id);
        }
    }
    if plan.all_at_once && !result.rejected_nodes.is_empty() {
        result.node_allocation = BTreeMap::new();
    }
    result.node_update = std::mem::take(&mut plan.node_update);
    result
}

/// Whether the node, with the plan's stops and placements, stays within its resources and
/// has no port used twice. New placements need a schedulable node; in-place updates do not.
///
/// Starts from the snapshot's per-node sum: the placements of plans in flight (`pending`)
/// count as committed, in place of the snapshot's version of the same alloc if it has one;
/// the allocs the plan stops or replaces come off; the plan's placements go on.
fn node_fits(
    node: &Node,
    snap: &StateSnapshot,
    pending: &[&Arc<Allocation>],
    stops: Option<&Vec<Allocation>>,
    placed: &[Allocation],
) -> bool {
    let in_snap = |id: &str| snap.alloc_by_id(id).filter(|a| a.node_id == node.id);
    let has_new = placed
        .iter()
        .any(|a| in_snap(&a.id).is_none() && !pending.iter().any(|p| p.id == a.id));
    if has_new && !node.ready() {
        return false;
    }
    let mut held = snap.node_held(&node.id).cloned().unwrap_or_default();
    let mut pending_ids: BTreeSet<&str> = BTreeSet::new();
    for p in pending {
        if pending_ids.insert(p.id.as_str()) {
            if let Some(a) = in_snap(&p.id).filter(|a| HeldResources::holds(a)) {
                held.remove(&a);
            }
        }
        if HeldResources::holds(p) {
            held.add(p);
        }
    }
    let removed: BTreeSet<&str> = stops
        .into_iter()
        .flatten()
        .chain(placed.iter())
        .map(|a| a.id.as_str())
        .collect();
    for id in removed {
        if pending_ids.contains(id) {
            for p in pending
                .iter()
                .filter(|p| p.id == id && HeldResources::holds(p))
            {
                held.remove(p);
            }
        } else if let Some(a) = in_snap(id).filter(|a| HeldResources::holds(a)) {
            held.remove(&a);
        }
    }
    // A placed alloc the client already finished (a failed alloc getting its follow-up
    // eval ID) holds nothing.
    for a in placed.iter().filter(|a| !a.client_terminal()) {
        held.add(a);
    }
    if held.port_conflict() {
        return false;
    }
    let (cpu, mem, disk) = node_capacity(node);
    held.cpu <= cpu && held.memory_mb <= mem && held.disk_mb <= disk
}
