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
            if held.node_id != alloc.node_id && self.existing.contains_key(&held.node_id) {
                let held_on = held.node_id.clone();
                self.touch(&held_on);
            }
        }
        self.placed
            .entry(alloc.node_id.clone())
            .or_default()
            .push(Arc::new(alloc));
    }
}
