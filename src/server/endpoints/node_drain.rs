//! Node.UpdateDrain and Node.UpdateEligibility: the operator's controls over whether a node
//! takes work. The drain itself is carried out by the leader's drainer.

use std::collections::BTreeMap;

use crate::api::*;
use crate::server::fsm::Command;
use crate::server::state::NodeDrainUpdate;
use crate::server::{Server, ServerError};

use super::node::system_job_evals;

// Nomad's node event messages.
pub const EVENT_DRAIN_SET: &str = "Node drain strategy set";
pub const EVENT_DRAIN_DISABLED: &str = "Node drain disabled";
pub const EVENT_DRAIN_UPDATED: &str = "Node drain strategy updated";
pub const EVENT_DRAIN_COMPLETE: &str = "Node drain complete";
pub const EVENT_ELIGIBLE: &str = "Node marked as eligible for scheduling";
pub const EVENT_INELIGIBLE: &str = "Node marked as ineligible for scheduling";
pub const SUBSYSTEM_DRAIN: &str = "Drain";
pub const SUBSYSTEM_CLUSTER: &str = "Cluster";

pub fn node_event(subsystem: &str, message: &str, now: i64) -> NodeEvent {
    NodeEvent {
        create_index: 0,
        details: None,
        message: message.to_string(),
        subsystem: subsystem.to_string(),
        timestamp: format_rfc3339(now),
    }
}

/// Set (`spec = Some`), update or disable (`None`) a node's drain.
pub async fn update_drain(
    server: &Server,
    node_id: &str,
    spec: Option<DrainSpec>,
    mark_eligible: bool,
    meta: BTreeMap<String, String>,
) -> Result<NodeUpdateResponse, ServerError> {
    if node_id.is_empty() {
        return Err(ServerError::BadRequest(
            "missing node ID for drain update".to_string(),
        ));
    }
    let snap = server.state().snapshot();
    let Some(node) = snap.node_by_id(node_id) else {
        return Err(ServerError::NotFound("node not found".to_string()));
    };
    let now = now_nanos();
    let strategy = spec.map(|spec| DrainStrategy {
        deadline: spec.deadline,
        ignore_system_jobs: spec.ignore_system_jobs,
        force_deadline: if spec.deadline > 0 {
            format_rfc3339(now.saturating_add(spec.deadline))
        } else {
            ZERO_TIME.to_string()
        },
        started_at: node
            .drain_strategy
            .as_ref()
            .map(|d| d.started_at.clone())
            .unwrap_or_else(|| format_rfc3339(now)),
    });
    let message = match (&node.drain_strategy, &strategy) {
        (None, Some(_)) => Some(EVENT_DRAIN_SET),
        (Some(_), Some(_)) => Some(EVENT_DRAIN_UPDATED),
        (Some(_), None) => Some(EVENT_DRAIN_DISABLED),
        (None, None) => None,
    };
    // A node made eligible again may now take system jobs.
    let becomes_eligible =
        node.scheduling_eligibility == NODE_INELIGIBLE && mark_eligible && strategy.is_none();
    let evals = if becomes_eligible {
        system_job_evals(&snap, &node, now)
    } else {
        Vec::new()
    };
    let eval_ids: Vec<String> = evals.iter().map(|e| e.id.clone()).collect();
    let update = NodeDrainUpdate {
        node_id: node_id.to_string(),
        drain_strategy: strategy,
        mark_eligible,
        meta,
        accessor_id: String::new(),
        event: message.map(|m| node_event(SUBSYSTEM_DRAIN, m, now)),
        drain_complete: false,
    };
    let resp = server
        .propose(Command::NodeUpdateDrain {
            updates: vec![update],
            evals,
            time: now,
        })
        .await?;
    if becomes_eligible {
        server.unblock_evals(&node.computed_class, resp.index);
    }
    Ok(write_response(resp.index, eval_ids))
}

fn write_response(index: u64, eval_ids: Vec<String>) -> NodeUpdateResponse {
    let has_evals = !eval_ids.is_empty();
    NodeUpdateResponse {
        node_modify_index: index,
        eval_create_index: if has_evals { index } else { 0 },
        eval_ids: has_evals.then_some(eval_ids),
        index,
    }
}

/// Mark a node eligible or ineligible for new placements.
pub async fn update_eligibility(
    server: &Server,
    node_id: &str,
    eligibility: &str,
) -> Result<NodeUpdateResponse, ServerError> {
    if node_id.is_empty() {
        return Err(ServerError::BadRequest(
            "missing node ID for setting scheduling eligibility".to_string(),
        ));
    }
    if eligibility != NODE_ELIGIBLE && eligibility != NODE_INELIGIBLE {
        return Err(ServerError::BadRequest(format!(
            "invalid scheduling eligibility {eligibility:?}"
        )));
    }
    let snap = server.state().snapshot();
    let Some(node) = snap.node_by_id(node_id) else {
        return Err(ServerError::NotFound("node not found".to_string()));
    };
    if node.drain_strategy.is_some() && eligibility == NODE_ELIGIBLE {
        return Err(ServerError::BadRequest(
            "can not set node's scheduling eligibility to eligible while it is draining"
                .to_string(),
        ));
    }
    if node.scheduling_eligibility == eligibility {
        return Ok(write_response(node.modify_index, Vec::new()));
    }
    let now = now_nanos();
    let (message, evals) = if eligibility == NODE_ELIGIBLE {
        (EVENT_ELIGIBLE, system_job_evals(&snap, &node, now))
    } else {
        (EVENT_INELIGIBLE, Vec::new())
    };
    let eval_ids: Vec<String> = evals.iter().map(|e| e.id.clone()).collect();
    let resp = server
        .propose(Command::NodeUpdateEligibility {
            node_id: node_id.to_string(),
            eligibility: eligibility.to_string(),
            event: Some(node_event(SUBSYSTEM_CLUSTER, message, now)),
            evals,
            time: now,
        })
        .await?;
    if eligibility == NODE_ELIGIBLE {
        server.unblock_evals(&node.computed_class, resp.index);
    }
    Ok(write_response(resp.index, eval_ids))
}
