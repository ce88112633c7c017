//! The server's state store: in-memory, MVCC, written only by the FSM.
//!
//! Each table is a persistent map (`imbl::OrdMap`) of `Arc` values, so a snapshot is a cheap
//! clone of the maps: scheduler workers and HTTP readers take one and read without locks while
//! the FSM builds the next version. Secondary indexes (allocs by node and by job, evals by job)
//! live beside the tables and are kept by the same write methods. Every table has the raft
//! index of its last change, which blocking queries wait on.
//!
//! This module owns the tables and their invariants; it must not read clocks or draw random
//! numbers (the FSM's apply must be deterministic).

mod children;
mod deployments;
mod gc;
mod nodes;
mod persist;
mod related;
mod scaling;
mod sched_config;
mod services;
mod summary;
mod version_tags;
mod write;

use std::sync::{Arc, RwLock};
use std::time::Duration;

use imbl::{OrdMap, OrdSet};
use tokio::sync::watch;

use crate::api::{Allocation, Deployment, Evaluation, Job, JobSummary, Node};
use crate::scheduler::rank::HeldResources;
use crate::scheduler::ready::{ReadyMemo, ReadyNodes};
use crate::scheduler::StateView;
pub use scaling::ScalingEvents;

pub use gc::Reap;
pub use nodes::NodeDrainUpdate;
pub use persist::PersistError;
pub use sched_config::CAS_MISMATCH;
pub use version_tags::TagTarget;

/// (namespace, job ID)
pub type JobKey = (String, String);

/// An ID as a key of the big alloc tables: a write copies the tree nodes on its path, and
/// copying a shared `str` is a reference count, not an allocation.
type Id = Arc<str>;

/// The tables a blocking query can wait on.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
pub enum Table {
    Jobs,
    JobSummaries,
    JobVersions,
    Nodes,
    Allocs,
    Evals,
    Deployments,
    Services,
}

impl Table {
    pub const ALL: [Table; 8] = [
        Table::Jobs,
        Table::JobSummaries,
        Table::JobVersions,
        Table::Nodes,
        Table::Allocs,
        Table::Evals,
        Table::Deployments,
        Table::Services,
    ];
}

/// A persistent hash map keyed by ID: lookups hash once instead of comparing keys down an
/// ordered tree, for the tables read once per node the scheduler visits. foldhash is seeded
/// per process, so IDs chosen by clients cannot be crafted to collide.
type IdHashMap<V> =
    imbl::GenericHashMap<Id, V, foldhash::fast::RandomState, imbl::shared_ptr::DefaultSharedPtr>;

/// One version of a job's allocs (an O(1) copy of its index). Two versions are the same when
/// no alloc of the job was added, changed or removed in between: every write copies the index
/// it touches, and a version held here is shared, so a write can never change it in place.
#[derive(Debug, Clone)]
pub struct AllocsVersion(Option<OrdMap<Id, Arc<Allocation>>>);

impl AllocsVersion {
    pub fn same(&self, other: &AllocsVersion) -> bool {
        match (&self.0, &other.0) {
            (None, None) => true,
            (Some(a), Some(b)) => a.ptr_eq(b),
            _ => false,
        }
    }
}

/// One node's allocs and the resources the non-terminal ones hold, kept in step by
/// `put_alloc` and `unindex_alloc`.
#[derive(Debug, Clone, Default)]
pub(super) struct NodeAllocs {
    allocs: OrdMap<Id, Arc<Allocation>>,
    held: HeldResources,
}

/// One consistent version of the whole state. Cloning is O(1).
#[derive(Debug, Clone, Default)]
pub struct StateSnapshot {
    jobs: OrdMap<JobKey, Arc<Job>>,
    job_versions: OrdMap<(String, String, u64), Arc<Job>>,
    job_summaries: OrdMap<JobKey, Arc<JobSummary>>,
    nodes: OrdMap<String, Arc<Node>>,
    allocs: OrdMap<Id, Arc<Allocation>>,
    /// Node ID -> its allocs by ID (the same `Arc`s as `allocs`, see `put_alloc`) and what
    /// the non-terminal ones hold. Hashed: the scheduler reads it for every node it ranks.
    allocs_by_node: IdHashMap<NodeAllocs>,
    /// Job -> its allocs by ID, the same `Arc`s as `allocs`.
    allocs_by_job: OrdMap<JobKey, OrdMap<Id, Arc<Allocation>>>,
    evals: OrdMap<String, Arc<Evaluation>>,
    evals_by_job: OrdMap<JobKey, OrdSet<String>>,
    deployments: OrdMap<String, Arc<Deployment>>,
    deployments_by_job: OrdMap<JobKey, OrdSet<String>>,
    /// Nomad-native service registrations by ID.
    services: OrdMap<String, Arc<crate::api::ServiceRegistration>>,
    table_index: OrdMap<Table, u64>,
    /// Per job: group -> its scaling events, newest first.
    scaling_events: OrdMap<JobKey, Arc<ScalingEvents>>,
    /// Per periodic job: Unix nanoseconds of its last launch (its registration time until the
    /// first launch), so a new leader can tell a launch was missed (Nomad's periodic_launch).
    periodic_launches: OrdMap<JobKey, i64>,
    /// The operator's scheduler configuration (`None` until first written).
    scheduler_config: Option<Arc<crate::api::SchedulerConfiguration>>,
    /// Raft index of the last applied command.
    index: u64,
    /// The scheduler's ready-node lists for this version of `nodes`; replaced whenever a
    /// node changes (`touch` of the nodes table), shared by the snapshots in between.
    ready_memo: Arc<ReadyMemo>,
}

fn key(ns: &str, id: &str) -> JobKey {
    (ns.to_string(), id.to_string())
}

impl StateSnapshot {
    /// Raft index of the last applied command.
    pub fn latest_index(&self) -> u64 {
        self.index
    }

    /// When the periodic job `ns/id` last launched (or was registered, before its first launch).
    pub fn periodic_launch(&self, ns: &str, id: &str) -> Option<i64> {
        self.periodic_launches.get(&key(ns, id)).copied()
    }

    /// Raft index of the last change to `table` (at least 1, so a blocking query on an empty
    /// table has an index to wait past, as Nomad does).
    pub fn table_index(&self, table: Table) -> u64 {
        self.table_index.get(&table).copied().unwrap_or(0).max(1)
    }

    /// The largest index of several tables (an endpoint that reads more than one).
    pub fn max_index(&self, tables: &[Table]) -> u64 {
        tables
            .iter()
            .map(|t| self.table_index(*t))
            .max()
            .unwrap_or(1)
    }

    pub fn job_by_id(&self, ns: &str, id: &str) -> Option<Arc<Job>> {
        self.jobs.get(&key(ns, id)).cloned()
    }

    /// Jobs in (namespace, ID) order; `ns = None` or `"*"` means every namespace.
    pub fn jobs(&self, ns: Option<&str>) -> Vec<Arc<Job>> {
        self.jobs
            .iter()
            .filter(|((n, _), _)| ns_matches(ns, n))
            .map(|(_, j)| j.clone())
            .collect()
    }

    pub fn job_version(&self, ns: &str, id: &str, version: u64) -> Option<Arc<Job>> {
        self.job_versions
            .get(&(ns.to_string(), id.to_string(), version))
            .cloned()
    }

    /// Every stored version of a job, newest first.
    pub fn job_versions(&self, ns: &str, id: &str) -> Vec<Arc<Job>> {
        let lo = (ns.to_string(), id.to_string(), 0);
        let hi = (ns.to_string(), id.to_string(), u64::MAX);
        let mut v: Vec<_> = self
            .job_versions
            .range(lo..=hi)
            .map(|(_, j)| j.clone())
            .collect();
        v.reverse();
        v
    }

    pub fn job_summary(&self, ns: &str, id: &str) -> Option<Arc<JobSummary>> {
        self.job_summaries.get(&key(ns, id)).cloned()
    }

    pub fn node_by_id(&self, id: &str) -> Option<Arc<Node>> {
        self.nodes.get(id).cloned()
    }

    /// Nodes in ID order.
    pub fn nodes_list(&self) -> Vec<Arc<Node>> {
        self.nodes.values().cloned().collect()
    }

    pub fn node_count(&self) -> usize {
        self.nodes.len()
    }

    pub fn alloc_by_id(&self, id: &str) -> Option<Arc<Allocation>> {
        self.allocs.get(id).cloned()
    }

    /// Allocs in ID order; `ns = None` or `"*"` means every namespace.
    /// How many allocs the table holds, terminal ones included.
    pub fn alloc_count(&self) -> usize {
        self.allocs.len()
    }

    pub fn allocs(&self, ns: Option<&str>) -> Vec<Arc<Allocation>> {
        self.allocs
            .values()
            .filter(|a| ns_matches(ns, &a.namespace))
            .cloned()
            .collect()
    }

    pub fn allocs_for_node(&self, node_id: &str) -> Vec<Arc<Allocation>> {
        Self::index_values(self.allocs_by_node.get(node_id).map(|n| &n.allocs))
    }

    /// What the node's non-terminal allocs hold.
    pub fn node_held(&self, node_id: &str) -> Option<&HeldResources> {
        self.allocs_by_node.get(node_id).map(|n| &n.held)
    }

    pub fn allocs_for_job(&self, ns: &str, job_id: &str) -> Vec<Arc<Allocation>> {
        Self::index_values(self.allocs_by_job.get(&key(ns, job_id)))
    }

    /// The job's allocs without copying them out, in ID order.
    pub fn job_allocs_iter(
        &self,
        ns: &str,
        job_id: &str,
    ) -> impl Iterator<Item = &Arc<Allocation>> {
        self.allocs_by_job
            .get(&key(ns, job_id))
            .into_iter()
            .flat_map(|m| m.values())
    }

    /// This version of the job's allocs, to tell later whether any of them changed.
    pub fn job_allocs_version(&self, ns: &str, job_id: &str) -> AllocsVersion {
        AllocsVersion(self.allocs_by_job.get(&key(ns, job_id)).cloned())
    }

    fn index_values(allocs: Option<&OrdMap<Id, Arc<Allocation>>>) -> Vec<Arc<Allocation>> {
        allocs
            .map(|m| m.values().cloned().collect())
            .unwrap_or_default()
    }

    pub fn eval_by_id(&self, id: &str) -> Option<Arc<Evaluation>> {
        self.evals.get(id).cloned()
    }

    /// Evals in ID order; `ns = None` or `"*"` means every namespace.
    pub fn evals(&self, ns: Option<&str>) -> Vec<Arc<Evaluation>> {
        self.evals
            .values()
            .filter(|e| ns_matches(ns, &e.namespace))
            .cloned()
            .collect()
    }

    pub fn evals_for_job(&self, ns: &str, job_id: &str) -> Vec<Arc<Evaluation>> {
        self.evals_by_job
            .get(&key(ns, job_id))
            .map(|ids| {
                ids.iter()
                    .filter_map(|id| self.evals.get(id).cloned())
                    .collect()
            })
            .unwrap_or_default()
    }

    /// Allocs created by one eval.
    pub fn allocs_for_eval(&self, eval_id: &str) -> Vec<Arc<Allocation>> {
        let Some(eval) = self.evals.get(eval_id) else {
            return Vec::new();
        };
        self.allocs_for_job(&eval.namespace, &eval.job_id)
            .into_iter()
            .filter(|a| a.eval_id == eval_id)
            .collect()
    }
}

fn ns_matches(filter: Option<&str>, ns: &str) -> bool {
    match filter {
        None | Some("*") => true,
        Some(f) => f == ns,
    }
}

impl StateView for StateSnapshot {
    fn index(&self) -> u64 {
        self.index
    }
    fn job(&self, namespace: &str, id: &str) -> Option<Arc<Job>> {
        self.job_by_id(namespace, id)
    }
    fn node(&self, id: &str) -> Option<Arc<Node>> {
        self.node_by_id(id)
    }
    fn nodes(&self) -> Vec<Arc<Node>> {
        self.nodes_list()
    }
    fn allocs_by_job(&self, namespace: &str, job_id: &str) -> Vec<Arc<Allocation>> {
        self.allocs_for_job(namespace, job_id)
    }
    fn allocs_by_node(&self, node_id: &str) -> Vec<Arc<Allocation>> {
        self.allocs_for_node(node_id)
    }
    fn alloc(&self, id: &str) -> Option<Arc<Allocation>> {
        self.alloc_by_id(id)
    }
    fn ready_nodes(&self, pool: &str, dcs: &[String]) -> Arc<ReadyNodes> {
        self.ready_memo.get_or_build(pool, dcs, || {
            ReadyNodes::select(self.nodes.values(), pool, dcs)
        })
    }
    fn node_held(&self, node_id: &str) -> HeldResources {
        StateSnapshot::node_held(self, node_id)
            .cloned()
            .unwrap_or_default()
    }
    fn latest_deployment(&self, namespace: &str, job_id: &str) -> Option<Arc<Deployment>> {
        StateSnapshot::latest_deployment(self, namespace, job_id)
    }
    fn scheduler_config(&self) -> crate::api::SchedulerConfiguration {
        StateSnapshot::scheduler_config(self)
    }
}

/// The live store: the current snapshot behind a lock held only to swap it, and a watch that
/// fires on every applied command.
#[derive(Debug)]
pub struct StateStore {
    current: RwLock<Arc<StateSnapshot>>,
    /// Carries the latest applied index; blocking queries wait on it.
    changed: watch::Sender<u64>,
}

impl Default for StateStore {
    fn default() -> Self {
        Self::new()
    }
}

impl StateStore {
    pub fn new() -> Self {
        StateStore {
            current: RwLock::new(Arc::new(StateSnapshot::default())),
            changed: watch::channel(0).0,
        }
    }

    /// The current version of the state. Never blocks on writers for longer than a pointer swap.
    pub fn snapshot(&self) -> Arc<StateSnapshot> {
        match self.current.read() {
            Ok(g) => g.clone(),
            Err(poisoned) => poisoned.into_inner().clone(),
        }
    }

    /// Run `f` on a private copy of the state and publish the result atomically.
    /// Only the FSM calls this (one writer at a time: raft applies in order).
    pub(crate) fn write<R>(&self, f: impl FnOnce(&mut StateSnapshot) -> R) -> R {
        let mut next = (*self.snapshot()).clone();
        let out = f(&mut next);
        let index = next.index;
        let next = Arc::new(next);
        match self.current.write() {
            Ok(mut g) => *g = next,
            Err(poisoned) => *poisoned.into_inner() = next,
        }
        self.changed.send_replace(index);
        out
    }

    /// Wait until `table`'s index exceeds `min_index` or `timeout` passes; returns the snapshot
    /// to answer from. This is the core of Nomad's blocking queries.
    pub async fn wait_for(
        &self,
        tables: &[Table],
        min_index: u64,
        timeout: Duration,
    ) -> Arc<StateSnapshot> {
        let mut rx = self.changed.subscribe();
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let snap = self.snapshot();
            if min_index == 0 || snap.max_index(tables) > min_index {
                return snap;
            }
            match tokio::time::timeout_at(deadline, rx.changed()).await {
                Ok(Ok(())) => continue,
                _ => return self.snapshot(),
            }
        }
    }

    /// Wait until the store has applied at least `index` (a worker must not schedule from a
    /// snapshot older than the eval it handles).
    pub async fn wait_for_index(
        &self,
        index: u64,
        timeout: Duration,
    ) -> Option<Arc<StateSnapshot>> {
        let mut rx = self.changed.subscribe();
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let snap = self.snapshot();
            if snap.index >= index {
                return Some(snap);
            }
            if tokio::time::timeout_at(deadline, rx.changed())
                .await
                .is_err()
            {
                return None;
            }
        }
    }

    /// A receiver that sees every applied index (for the event stream and leader loops).
    pub fn subscribe(&self) -> watch::Receiver<u64> {
        self.changed.subscribe()
    }
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod deployment_tests;
