//! Node drain, eligibility and alloc desired-transition writes (the drain endpoints and the
//! drainer's raft entries). Like every write, deterministic: times come from the command.

use std::collections::BTreeMap;
use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::{StateSnapshot, Table};
use crate::api::{
    format_rfc3339, DesiredTransition, DrainMetadata, DrainStrategy, NodeEvent,
    DRAIN_STATUS_CANCELED, DRAIN_STATUS_COMPLETE, DRAIN_STATUS_DRAINING, NODE_ELIGIBLE,
    NODE_INELIGIBLE, SECOND,
};

/// One node's drain change inside `Command::NodeUpdateDrain`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct NodeDrainUpdate {
    pub node_id: String,
    /// The new strategy; `None` ends the drain (disabled or complete).
    pub drain_strategy: Option<DrainStrategy>,
    /// When the drain ends, make the node eligible again.
    pub mark_eligible: bool,
    /// Operator metadata for `LastDrain.Meta`; empty keeps what was there.
    pub meta: BTreeMap<String, String>,
    /// Who asked (`LastDrain.AccessorID`); empty keeps what was there.
    pub accessor_id: String,
    /// The node event recorded with the change ("Node drain strategy set", ...).
    pub event: Option<NodeEvent>,
    /// Set by the drainer: the drain finished rather than being cancelled.
    pub drain_complete: bool,
}

impl StateSnapshot {
    /// Nomad's `updateNodeDrainImpl`. Returns false when the node does not exist.
    pub(crate) fn update_node_drain(&mut self, index: u64, u: &NodeDrainUpdate, time: i64) -> bool {
        let Some(existing) = self.nodes.get(&u.node_id).cloned() else {
            return false;
        };
        let mut node = (*existing).clone();
        let updated_at = time / SECOND;
        node.status_updated_at = updated_at;
        if let Some(e) = &u.event {
            let mut e = e.clone();
            e.create_index = index;
            node.events.push(e);
            let n = node.events.len();
            if n > 10 {
                node.events.drain(..n - 10);
            }
        }
        node.drain_strategy = u.drain_strategy.clone();
        node.drain = node.drain_strategy.is_some();
        if node.drain {
            node.scheduling_eligibility = NODE_INELIGIBLE.to_string();
        } else if u.mark_eligible {
            node.scheduling_eligibility = NODE_ELIGIBLE.to_string();
        }
        let was_draining = existing.drain_strategy.is_some();
        if was_draining || node.drain {
            let stamp = format_rfc3339(updated_at * SECOND);
            let mut last = match (&node.last_drain, was_draining) {
                (Some(last), true) => last.clone(),
                _ => DrainMetadata {
                    started_at: stamp.clone(),
                    ..Default::default()
                },
            };
            last.updated_at = stamp;
            if !u.meta.is_empty() {
                last.meta = Some(u.meta.clone());
            }
            if !u.accessor_id.is_empty() {
                last.accessor_id = u.accessor_id.clone();
            }
            last.status = if node.drain {
                DRAIN_STATUS_DRAINING
            } else if u.drain_complete {
                DRAIN_STATUS_COMPLETE
            } else {
                DRAIN_STATUS_CANCELED
            }
            .to_string();
            node.last_drain = Some(last);
        }
        node.modify_index = index;
        self.nodes.insert(node.id.clone(), Arc::new(node));
        self.touch(Table::Nodes, index);
        true
    }

    /// Set a node's scheduling eligibility. Returns false when the node does not exist.
    pub(crate) fn update_node_eligibility(
        &mut self,
        index: u64,
        node_id: &str,
        eligibility: &str,
        event: Option<&NodeEvent>,
        time: i64,
    ) -> bool {
        let Some(existing) = self.nodes.get(node_id) else {
            return false;
        };
        let mut node = (**existing).clone();
        node.scheduling_eligibility = eligibility.to_string();
        node.status_updated_at = time / SECOND;
        if let Some(e) = event {
            let mut e = e.clone();
            e.create_index = index;
            node.events.push(e);
            let n = node.events.len();
            if n > 10 {
                node.events.drain(..n - 10);
            }
        }
        node.modify_index = index;
        self.nodes.insert(node.id.clone(), Arc::new(node));
        self.touch(Table::Nodes, index);
        true
    }

    /// Merge desired transitions into allocs (the drainer's migrate marks). Unknown allocs are
    /// skipped; the client-facing `AllocModifyIndex` is left alone, as in Nomad.
    pub(crate) fn update_desired_transitions(
        &mut self,
        index: u64,
        transitions: &BTreeMap<String, DesiredTransition>,
        time: i64,
    ) -> Vec<Arc<crate::api::Allocation>> {
        let mut changed = Vec::new();
        for (id, t) in transitions {
            let Some(existing) = self.allocs.get(id.as_str()) else {
                continue;
            };
            let mut a = (**existing).clone();
            let d = &mut a.desired_transition;
            d.migrate = t.migrate.or(d.migrate);
            d.reschedule = t.reschedule.or(d.reschedule);
            d.force_reschedule = t.force_reschedule.or(d.force_reschedule);
            d.no_shutdown_delay = t.no_shutdown_delay.or(d.no_shutdown_delay);
            a.modify_index = index;
            a.modify_time = time;
            let a = Arc::new(a);
            self.put_alloc(a.clone());
            changed.push(a);
        }
        if !changed.is_empty() {
            self.touch(Table::Allocs, index);
        }
        changed
    }
}
