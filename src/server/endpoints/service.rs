//! `ServiceRegistration.Upsert / DeleteByID` and the client's deregistration of stopped
//! allocs: validate, then one command each.

use crate::api::ServiceRegistration;
use crate::server::fsm::Command;
use crate::server::{Server, ServerError};

/// Register (or refresh) services of allocs running on `node_id`. Every registration must
/// name itself, its service, namespace and alloc, and belong to an alloc on that node.
pub async fn upsert(
    server: &Server,
    node_id: &str,
    services: Vec<ServiceRegistration>,
) -> Result<u64, ServerError> {
    if services.is_empty() {
        return Ok(server.state().snapshot().latest_index());
    }
    let snap = server.state().snapshot();
    let mut problems = Vec::new();
    for r in &services {
        for (field, value) in [
            ("ID", &r.id),
            ("ServiceName", &r.service_name),
            ("Namespace", &r.namespace),
            ("AllocID", &r.alloc_id),
        ] {
            if value.is_empty() {
                problems.push(format!("service registration {:?}: missing {field}", r.id));
            }
        }
        match snap.alloc_by_id(&r.alloc_id) {
            Some(a) if a.node_id == node_id => {}
            Some(_) => problems.push(format!(
                "service registration {:?}: alloc {} is not on node {node_id}",
                r.id, r.alloc_id
            )),
            None if !r.alloc_id.is_empty() => problems.push(format!(
                "service registration {:?}: alloc {} not found",
                r.id, r.alloc_id
            )),
            None => {}
        }
    }
    if !problems.is_empty() {
        return Err(ServerError::BadRequest(problems.join("; ")));
    }
    let services = services
        .into_iter()
        .map(|r| ServiceRegistration {
            node_id: node_id.to_string(),
            ..r
        })
        .collect();
    Ok(server
        .propose(Command::ServiceRegistrationUpsert { services })
        .await?
        .index)
}

/// `DELETE /v1/service/<name>/<id>`.
pub async fn delete_by_id(server: &Server, namespace: &str, id: &str) -> Result<u64, ServerError> {
    let known = server.state().snapshot().service_by_id(id);
    if known.is_none_or(|r| r.namespace != namespace) {
        return Err(ServerError::NotFound(
            "service registration not found".to_string(),
        ));
    }
    let resp = server
        .propose(Command::ServiceRegistrationDelete {
            namespace: namespace.to_string(),
            id: id.to_string(),
        })
        .await?;
    Ok(resp.index)
}

/// Remove the registrations of allocs a client stopped.
pub async fn delete_by_alloc(server: &Server, alloc_ids: Vec<String>) -> Result<u64, ServerError> {
    if alloc_ids.is_empty() {
        return Ok(server.state().snapshot().latest_index());
    }
    Ok(server
        .propose(Command::ServiceRegistrationDeleteByAlloc { alloc_ids })
        .await?
        .index)
}
