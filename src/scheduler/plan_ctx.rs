//! The plan being built by one scheduler run, and the view of each node it implies: what the
//! snapshot has there, minus what this plan stops, plus what this plan places.
//!
//! Every change is also appended to a log of touched node IDs ([`PlanCtx::touched_since`]),
//! so per-node caches kept across placements (the stack's node views, property-set counts)
//! refresh only the nodes the plan changed instead of rescanning the plan.

use std::collections::BTreeMap;
use std::sync::Arc;

use rustc_hash::{FxHashMap, FxHashSet};

use crate::api::{Allocation, ALLOC_DESIRED_EVICT, ALLOC_DESIRED_STOP};

use super::preempt::PreemptionCounts;
use super::rank::{HeldResources, NodeUsage};
use super::StateView;

pub struct PlanCtx<'a> {
    state: &'a dyn StateView,
    now: i64,
    /// Node ID -> the snapshot's non-terminal allocs there, loaded on first use.
    existing: FxHashMap<String, Vec<Arc<Allocation>>>,
    /// Node ID -> stopped allocs (already rewritten to desired stop). Changed only through
    /// the methods below, which log the touched node.
    stops: BTreeMap<String, Vec<Allocation>>,
    stopped_ids: FxHashSet<String>,
    /// Node ID -> placed or in-place updated allocs (changed only through the methods).
    placed: BTreeMap<String, Vec<Arc<Allocation>>>,
    placed_ids: FxHashSet<String>,
    /// Node ID -> IDs of allocs the state has there that this plan places on another node.
    moved_from: FxHashMap<String, Vec<String>>,
    /// The snapshot's non-terminal allocs of one job by node, built on first use.
    job_index: Option<JobIndex>,
    /// Allocs this plan preempts, per (namespace, job, group).
    preemptions: PreemptionCounts,
    /// Node IDs whose proposed allocs changed, in order (duplicates allowed).
    touched: Vec<String>,
}

impl<'a> PlanCtx<'a> {
    pub fn new(state: &'a dyn StateView, now: i64) -> Self {
        PlanCtx {
            state,
            now,
            existing: FxHashMap::default(),
            stops: BTreeMap::new(),
            stopped_ids: FxHashSet::default(),
            placed: BTreeMap::new(),
            placed_ids: FxHashSet::default(),
            moved_from: FxHashMap::default(),
            job_index: None,
            preemptions: PreemptionCounts::new(),
            touched: Vec::new(),
        }
    }

    /// Node ID -> the allocs this plan stops there.
    pub fn stops(&self) -> &BTreeMap<String, Vec<Allocation>> {
        &self.stops
    }

    /// Node ID -> the allocs this plan places (or updates in place) there.
    pub fn placed(&self) -> &BTreeMap<String, Vec<Arc<Allocation>>> {
        &self.placed
    }

    /// The plan's stops and placements, consuming the context.
    #[allow(clippy::type_complexity)]
    pub fn into_parts(
        self,
    ) -> (
        BTreeMap<String, Vec<Allocation>>,
        BTreeMap<String, Vec<Arc<Allocation>>>,
    ) {
        (self.stops, self.placed)
    }

    /// Node IDs touched since log position `cursor`, and the new position.
    pub fn touched_since(&self, cursor: usize) -> (&[String], usize) {
        let from = cursor.min(self.touched.len());
        (&self.touched[from..], self.touched.len())
    }

    fn touch(&mut self, node_id: &str) {
        self.touched.push(node_id.to_string());
    }

    pub fn state(&self) -> &'a dyn StateView {
        self.state
    }

    pub fn preemptions(&self) -> &PreemptionCounts {
        &self.preemptions
    }

    /// Stages a preemption, as Nomad's `AppendPreemptedAlloc`: desired status evict, the
    /// preempting alloc recorded, and its description.
    pub fn evict(&mut self, alloc: &Allocation, by_alloc_id: &str) {
        if !self.stopped_ids.insert(alloc.id.clone()) {
            return;
        }
        let mut evicted = alloc.clone();
        evicted.desired_status = ALLOC_DESIRED_EVICT.to_string();
        evicted.desired_description = format!("Preempted by alloc ID {by_alloc_id}");
        evicted.preempted_by_allocation = by_alloc_id.to_string();
        evicted.modify_time = self.now;
        let k = (
            alloc.namespace.clone(),
            alloc.job_id.clone(),
            alloc.task_group.clone(),
        );
        *self.preemptions.entry(k).or_default() += 1;
        self.touch(&alloc.node_id);
        self.stops
            .entry(alloc.node_id.clone())
            .or_default()
            .push(evicted);
    }

    /// Allocs that will hold resources on the node if the plan commits.
    pub fn proposed(&mut self, node_id: &str) -> Vec<Arc<Allocation>> {
        let state = self.state;
        let existing = match self.existing.get(node_id) {
            Some(e) => e,
            None => self.existing.entry(node_id.to_string()).or_insert_with(|| {
                state
                    .allocs_by_node(node_id)
                    .into_iter()
                    .filter(|a| !a.terminal())
                    .collect()
            }),
        };
        let (stopped, placed) = (&self.stopped_ids, &self.placed_ids);
        let mut out: Vec<Arc<Allocation>> = if stopped.is_empty() && placed.is_empty() {
            existing.clone()
        } else {
            existing
                .iter()
                .filter(|a| !stopped.contains(&a.id) && !placed.contains(&a.id))
                .cloned()
                .collect()
        };
        if let Some(placed) = self.placed.get(node_id) {
            out.extend(placed.iter().cloned());
        }
        out
    }

    /// What the allocs that will hold resources on the node if the plan commits hold: the
    /// state's per-node sum, less the state's versions of the allocs the plan stops, replaces
    /// or moves away there, plus what the plan places there. Unlike [`PlanCtx::proposed`] it
    /// does not visit the node's other allocs.
    pub fn usage(&self, node_id: &str) -> NodeUsage {
        let mut held = self.state.node_held(node_id);
        let mut gone: Vec<&str> = self
            .stops
            .get(node_id)
            .into_iter()
            .flatten()
            .map(|a| a.id.as_str())
            .chain(
                self.placed
                    .get(node_id)
                    .into_iter()
                    .flatten()
                    .map(|a| a.id.as_str()),
            )
            .chain(
                self.moved_from
                    .get(node_id)
                    .into_iter()
                    .flatten()
                    .map(String::as_str),
            )
            .collect();
        gone.sort_unstable();
        gone.dedup();
        for id in gone {
            if let Some(a) = self.state.alloc(id) {
                if a.node_id == node_id && HeldResources::holds(&a) {
                    held.remove(&a);
                }
            }
        }
        // A placed alloc the client already finished holds nothing.
        for a in self.placed.get(node_id).into_iter().flatten() {
            if !a.client_terminal() {
                held.add(a);
            }
        }
        held.into_usage()
    }

    /// The allocs of job `job_id` in `namespace` that will be on the node if the plan
    /// commits: the snapshot's non-terminal ones the plan leaves alone, and the plan's.
    pub fn job_allocs(
        &mut self,
        node_id: &str,
        namespace: &str,
        job_id: &str,
    ) -> Vec<Arc<Allocation>> {
        let stale = self
            .job_index
            .as_ref()
            .is_none_or(|i| i.namespace != namespace || i.job_id != job_id);
        if stale {
            self.job_index = Some(JobIndex::new(self.state, namespace, job_id));
        }
        let (stopped, placed_ids) = (&self.stopped_ids, &self.placed_ids);
        let mut out: Vec<Arc<Allocation>> = self
            .job_index
            .iter()
            .filter_map(|i| i.by_node.get(node_id))
            .flatten()
            .filter(|a| !stopped.contains(&a.id) && !placed_ids.contains(&a.id))
            .cloned()
            .collect();
        out.extend(
            self.placed
                .get(node_id)
                .into_iter()
                .flatten()
                .filter(|a| a.job_id == job_id && a.namespace == namespace)
                .cloned(),
        );
        out
    }

    /// Stages a stop: desired status stop with Nomad's description, and the client status when
    /// the stop also declares the alloc lost.
    pub fn stop(&mut self, alloc: &Allocation, description: &str, client_status: Option<&str>) {
        if !self.stopped_ids.insert(alloc.id.clone()) {
            return;
        }
        let mut stopped = alloc.clone();
        stopped.desired_status = ALLOC_DESIRED_STOP.to_string();
        stopped.desired_description = description.to_string();
        if let Some(cs) = client_status {
            stopped.client_status = cs.to_string();
        }
        stopped.modify_time = self.now;
        self.touch(&alloc.node_id);
        self.stops
            .entry(alloc.node_id.clone())
            .or_default()
            .push(stopped);
    }

    /// Takes back a staged stop (a replacement could not be placed).
    pub fn unstop(&mut self, alloc: &Allocation) {
        if !self.stopped_ids.remove(&alloc.id) {
            return;
        }
        self.touch(&alloc.node_id);
        if let Some(list) = self.stops.get_mut(&alloc.node_id) {
            list.retain(|a| a.id != alloc.id);
            if list.is_empty() {
                self.stops.remove(&alloc.node_id);
            }
        }
    }

    pub fn is_stopped(&self, alloc_id: &str) -> bool {
        self.stopped_ids.contains(alloc_id)
    }

    pub fn place(&mut self, alloc: Allocation) {
        self.placed_ids.insert(alloc.id.clone());
        self.touch(&alloc.node_id);
        // An alloc that keeps an existing alloc's ID also changes the node that held it.
        if let Some(held) = self.state.alloc(&alloc.id) {
            if held.node_id != alloc.node_id {
                self.touch(&held.node_id);
                self.moved_from
                    .entry(held.node_id.clone())
                    .or_default()
                    .push(alloc.id.clone());
            }
        }
        self.placed
            .entry(alloc.node_id.clone())
            .or_default()
            .push(Arc::new(alloc));
    }
}

/// One job's non-terminal allocs in the snapshot, by node.
struct JobIndex {
    namespace: String,
    job_id: String,
    by_node: FxHashMap<String, Vec<Arc<Allocation>>>,
}

impl JobIndex {
    fn new(state: &dyn StateView, namespace: &str, job_id: &str) -> Self {
        let mut by_node: FxHashMap<String, Vec<Arc<Allocation>>> = FxHashMap::default();
        for a in state.allocs_by_job(namespace, job_id) {
            if !a.terminal() {
                by_node.entry(a.node_id.clone()).or_default().push(a);
            }
        }
        JobIndex {
            namespace: namespace.to_string(),
            job_id: job_id.to_string(),
            by_node,
        }
    }
}
