//! Node.Register, Node.UpdateStatus (heartbeat), Node.UpdateAlloc, Node.GetClientAllocs.

use std::time::Duration;

use crate::api::*;
use crate::server::fsm::Command;
use crate::server::rpc::{ClientAllocs, NodeUpdateResponse};
use crate::server::state::StateSnapshot;
use crate::server::{Server, ServerError};

pub async fn register(server: &Server, mut node: Node) -> Result<NodeUpdateResponse, ServerError> {
    if node.id.is_empty() {
        return Err(ServerError::BadRequest(
            "missing node ID for client registration".to_string(),
        ));
    }
    if node.datacenter.is_empty() {
        return Err(ServerError::BadRequest(
            "missing datacenter for client registration".to_string(),
        ));
    }
    if node.name.is_empty() {
        return Err(ServerError::BadRequest(
            "missing node name for client registration".to_string(),
        ));
    }
    let snap = server.state().snapshot();
    let previous = snap.node_by_id(&node.id);
    if let Some(existing) = &previous {
        if !existing.secret_id.is_empty() && existing.secret_id != node.secret_id {
            return Err(ServerError::BadRequest(
                "node secret ID does not match".to_string(),
            ));
        }
        // Eligibility and drain are the operator's, not the client's.
        node.scheduling_eligibility = existing.scheduling_eligibility.clone();
        node.drain = existing.drain;
        node.drain_strategy = existing.drain_strategy.clone();
        node.last_drain = existing.last_drain.clone();
    }
    if node.status.is_empty() {
        node.status = NODE_STATUS_INIT.to_string();
    }
    if node.scheduling_eligibility.is_empty() {
        node.scheduling_eligibility = NODE_ELIGIBLE.to_string();
    }
    if node.node_pool.is_empty() {
        node.node_pool = DEFAULT_NODE_POOL.to_string();
    }
    let now = now_nanos();
    node.status_updated_at = now / SECOND;
    let ready = node.status == NODE_STATUS_READY;
    let id = node.id.clone();
    let class = node.computed_class.clone();
    let resp = server
        .propose(Command::NodeRegister { node, time: now })
        .await?;
    let ttl = server.heartbeat_reset(&id);
    let mut index = resp.index;
    if ready {
        server.unblock_evals(&class, resp.index);
        // A node that joins, comes back ready, or changes what system jobs filter on gets
        // an eval for each system job that may now belong there, and for each job with
        // allocs on it (one that no longer belongs there is stopped).
        let snap = server.state().snapshot();
        if let Some(stored) = snap.node_by_id(&id) {
            let relevant_change = previous.as_deref().is_none_or(|old| {
                old.status != NODE_STATUS_READY || placement_inputs_changed(old, &stored)
            });
            let evals = if relevant_change {
                node_change_evals(&snap, &stored, now)
            } else {
                Vec::new()
            };
            if !evals.is_empty() {
                index = server.propose(Command::EvalUpsert { evals }).await?.index;
            }
        }
    }
    Ok(NodeUpdateResponse {
        heartbeat_ttl: ttl,
        index,
    })
}

pub async fn update_status(
    server: &Server,
    node_id: &str,
    status: &str,
) -> Result<NodeUpdateResponse, ServerError> {
    let snap = server.state().snapshot();
    let Some(node) = snap.node_by_id(node_id) else {
        return Err(ServerError::NotFound(format!("node not found: {node_id}")));
    };
    let mut index = snap.table_index(crate::server::state::Table::Nodes);
    if node.status != status {
        let now = now_nanos();
        let evals = if status == NODE_STATUS_DOWN {
            node_evals(&snap, node_id, now)
        } else if status == NODE_STATUS_READY {
            // Coming back ready: system jobs may have been registered meanwhile.
            node_change_evals(&snap, &node, now)
        } else {
            Vec::new()
        };
        let resp = server
            .propose(Command::NodeUpdateStatus {
                node_id: node_id.to_string(),
                status: status.to_string(),
                evals,
                time: now,
            })
            .await?;
        index = resp.index;
        if status == NODE_STATUS_READY {
            server.unblock_evals(&node.computed_class, index);
        }
    }
    let ttl = if status == NODE_STATUS_DOWN {
        Duration::ZERO
    } else {
        server.heartbeat_reset(node_id)
    };
    Ok(NodeUpdateResponse {
        heartbeat_ttl: ttl,
        index,
    })
}

/// Whether a re-registration changed anything the system scheduler's node filters read.
fn placement_inputs_changed(old: &Node, new: &Node) -> bool {
    old.attributes != new.attributes
        || old.meta != new.meta
        || old.node_class != new.node_class
        || old.computed_class != new.computed_class
        || old.node_pool != new.node_pool
        || old.datacenter != new.datacenter
        || old.drivers != new.drivers
}

/// One node-update eval per (namespace, job ID) of every live system or sysbatch job whose
/// datacenters and node pool match the node (Nomad's createNodeEvals for system jobs).
/// Feasibility beyond datacenter and pool is the scheduler's to decide.
pub fn system_job_evals(snap: &StateSnapshot, node: &Node, now: i64) -> Vec<Evaluation> {
    use crate::scheduler::feasible::{job_pool, node_in_any_dc, node_in_pool};
    snap.jobs(None)
        .into_iter()
        .filter(|j| crate::scheduler::is_system_type(&j.r#type) && !j.stop)
        .filter(|j| !j.is_template())
        .filter(|j| {
            node_in_pool(node, job_pool(j)) && node_in_any_dc(node, &j.datacenters_or_default())
        })
        .map(|job| Evaluation {
            id: generate_id(),
            namespace: job.namespace.clone(),
            priority: job.priority,
            r#type: job.r#type.clone(),
            triggered_by: TRIGGER_NODE_UPDATE.to_string(),
            job_id: job.id.clone(),
            node_id: node.id.clone(),
            job_modify_index: job.job_modify_index,
            status: EVAL_STATUS_PENDING.to_string(),
            create_time: now,
            modify_time: now,
            ..Default::default()
        })
        .collect()
}

/// Nomad's `createNodeEvals` for a node that became ready or changed: the system jobs that
/// may belong on it and the jobs with live allocs on it, one eval per (namespace, job).
pub fn node_change_evals(snap: &StateSnapshot, node: &Node, now: i64) -> Vec<Evaluation> {
    let mut evals = system_job_evals(snap, node, now);
    for e in node_evals(snap, &node.id, now) {
        if !evals
            .iter()
            .any(|x| x.namespace == e.namespace && x.job_id == e.job_id)
        {
            evals.push(e);
        }
    }
    evals
}

/// One eval per job with live allocs on the node, so the scheduler replaces them (Nomad's
/// createNodeEvals).
pub fn node_evals(snap: &StateSnapshot, node_id: &str, now: i64) -> Vec<Evaluation> {
    let mut jobs: Vec<(String, String)> = snap
        .allocs_for_node(node_id)
        .iter()
        .filter(|a| !a.terminal())
        .map(|a| (a.namespace.clone(), a.job_id.clone()))
        .collect();
    jobs.sort();
    jobs.dedup();
    jobs.into_iter()
        .filter_map(|(ns, id)| {
            let job = snap.job_by_id(&ns, &id)?;
            Some(Evaluation {
                id: generate_id(),
                namespace: ns,
                priority: job.priority,
                r#type: job.r#type.clone(),
                triggered_by: TRIGGER_NODE_UPDATE.to_string(),
                job_id: id,
                node_id: node_id.to_string(),
                job_modify_index: job.job_modify_index,
                status: EVAL_STATUS_PENDING.to_string(),
                create_time: now,
                modify_time: now,
                ..Default::default()
            })
        })
        .collect()
}

pub async fn update_alloc(
    server: &Server,
    node_id: &str,
    updates: Vec<Allocation>,
) -> Result<u64, ServerError> {
    let snap = server.state().snapshot();
    let Some(node) = snap.node_by_id(node_id) else {
        return Err(ServerError::NotFound(format!("node not found: {node_id}")));
    };
    let now = now_nanos();
    let mut allocs = Vec::with_capacity(updates.len());
    let mut evals: Vec<Evaluation> = Vec::new();
    let mut freed = false;
    for u in updates {
        let Some(existing) = snap.alloc_by_id(&u.id) else {
            continue;
        };
        if existing.node_id != node_id {
            continue;
        }
        let became_terminal = !existing.client_terminal() && u.client_terminal();
        freed |= became_terminal;
        // A failed alloc the server still wants running needs a replacement: Nomad creates a
        // retry-failed-alloc eval for it when its group has a reschedule policy, which system
        // and sysbatch jobs have not (their failed allocs stay failed until the job or the
        // node changes, rather than being replaced in a loop).
        if u.client_status == ALLOC_CLIENT_FAILED
            && existing.client_status != ALLOC_CLIENT_FAILED
            && !existing.server_terminal()
            && !evals
                .iter()
                .any(|e| e.job_id == existing.job_id && e.namespace == existing.namespace)
        {
            let reschedulable =
                |j: &Job| j.r#type == JOB_TYPE_SERVICE || j.r#type == JOB_TYPE_BATCH;
            if let Some(job) = snap
                .job_by_id(&existing.namespace, &existing.job_id)
                .filter(|j| reschedulable(j))
            {
                evals.push(Evaluation {
                    id: generate_id(),
                    namespace: existing.namespace.clone(),
                    priority: job.priority,
                    r#type: job.r#type.clone(),
                    triggered_by: TRIGGER_RETRY_FAILED_ALLOC.to_string(),
                    job_id: existing.job_id.clone(),
                    job_modify_index: job.job_modify_index,
                    status: EVAL_STATUS_PENDING.to_string(),
                    create_time: now,
                    modify_time: now,
                    ..Default::default()
                });
            }
        }
        // A deployment health verdict from the client moves the deployment on: the
        // scheduler places the next batch (Nomad's deployment watcher reacts the same way).
        let reported = crate::api::AllocDeploymentStatus::of(&u).and_then(|s| s.healthy);
        if reported.is_some()
            && existing.deployment_healthy().is_none()
            && !existing.deployment_id.is_empty()
            && !evals
                .iter()
                .any(|e| e.job_id == existing.job_id && e.namespace == existing.namespace)
        {
            let running = snap
                .deployment_by_id(&existing.deployment_id)
                .is_some_and(|d| d.status == crate::api::DEPLOYMENT_STATUS_RUNNING);
            if let (true, Some(job)) = (
                running,
                snap.job_by_id(&existing.namespace, &existing.job_id),
            ) {
                evals.push(super::deployment::deployment_eval(
                    &job,
                    &existing.deployment_id,
                    now,
                ));
            }
        }
        allocs.push(Allocation {
            id: u.id,
            client_status: u.client_status,
            client_description: u.client_description,
            task_states: u.task_states,
            network_status: u.network_status,
            deployment_status: u.deployment_status,
            ..Default::default()
        });
    }
    if allocs.is_empty() {
        return Ok(snap.table_index(crate::server::state::Table::Allocs));
    }
    let resp = server
        .propose(Command::AllocClientUpdate {
            allocs,
            evals,
            time: now,
        })
        .await?;
    if freed {
        server.unblock_evals(&node.computed_class, resp.index);
    }
    Ok(resp.index)
}

/// The node's allocs once any of them changed on the server side past `min_index`.
pub async fn get_client_allocs(
    server: &Server,
    node_id: &str,
    min_index: u64,
    timeout: Duration,
) -> Result<ClientAllocs, ServerError> {
    let state = server.state();
    let deadline = tokio::time::Instant::now() + timeout;
    let mut rx = state.subscribe();
    loop {
        let snap = state.snapshot();
        if snap.node_by_id(node_id).is_none() {
            return Err(ServerError::NotFound(format!("node not found: {node_id}")));
        }
        let allocs = snap.allocs_for_node(node_id);
        let index = allocs
            .iter()
            .map(|a| a.alloc_modify_index)
            .max()
            .unwrap_or(0)
            .max(1);
        if index > min_index || tokio::time::Instant::now() >= deadline {
            return Ok(ClientAllocs {
                allocs: allocs.iter().map(|a| (**a).clone()).collect(),
                index,
            });
        }
        tokio::select! {
            r = rx.changed() => if r.is_err() { return Err(ServerError::Shutdown) },
            _ = tokio::time::sleep_until(deadline) => {}
        }
    }
}
