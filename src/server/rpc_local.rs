//! `ServerRpc` for a client in the same process as the server (the dev agent).

use std::time::Duration;

use async_trait::async_trait;

use super::endpoints::{node, service};
use super::rpc::{ClientAllocs, NodeUpdateResponse, RpcError, ServerRpc};
use super::{Server, ServerError};
use crate::api::{Allocation, Node, ServiceRegistration};

pub struct InProcessRpc {
    server: Server,
}

impl InProcessRpc {
    pub fn new(server: Server) -> Self {
        InProcessRpc { server }
    }
}

fn to_rpc(node_id: &str, e: ServerError) -> RpcError {
    match e {
        ServerError::NotFound(_) => RpcError::UnknownNode(node_id.to_string()),
        ServerError::BadRequest(m) | ServerError::Conflict(m) => RpcError::Invalid(m),
        ServerError::NoLeader => RpcError::NoLeader,
        ServerError::Shutdown => RpcError::Shutdown,
        other => RpcError::Internal(other.to_string()),
    }
}

#[async_trait]
impl ServerRpc for InProcessRpc {
    async fn node_register(&self, n: Node) -> Result<NodeUpdateResponse, RpcError> {
        let id = n.id.clone();
        node::register(&self.server, n)
            .await
            .map_err(|e| to_rpc(&id, e))
    }

    async fn node_update_status(
        &self,
        node_id: &str,
        status: &str,
    ) -> Result<NodeUpdateResponse, RpcError> {
        node::update_status(&self.server, node_id, status)
            .await
            .map_err(|e| to_rpc(node_id, e))
    }

    async fn node_update_alloc(
        &self,
        node_id: &str,
        allocs: Vec<Allocation>,
    ) -> Result<u64, RpcError> {
        node::update_alloc(&self.server, node_id, allocs)
            .await
            .map_err(|e| to_rpc(node_id, e))
    }

    async fn node_get_client_allocs(
        &self,
        node_id: &str,
        min_index: u64,
        timeout: Duration,
    ) -> Result<ClientAllocs, RpcError> {
        node::get_client_allocs(&self.server, node_id, min_index, timeout)
            .await
            .map_err(|e| to_rpc(node_id, e))
    }

    async fn service_register(
        &self,
        node_id: &str,
        services: Vec<ServiceRegistration>,
    ) -> Result<u64, RpcError> {
        service::upsert(&self.server, node_id, services)
            .await
            .map_err(|e| to_rpc(node_id, e))
    }

    async fn service_registrations(
        &self,
        namespace: &str,
        name: Option<&str>,
        min_index: u64,
        timeout: Duration,
    ) -> Result<(Vec<ServiceRegistration>, u64), RpcError> {
        let state = self.server.state();
        let deadline = tokio::time::Instant::now() + timeout;
        let mut rx = state.subscribe();
        loop {
            let snap = state.snapshot();
            let index = snap.table_index(super::state::Table::Services).max(1);
            if index > min_index || tokio::time::Instant::now() >= deadline {
                let regs = match name {
                    Some(n) => snap.services_by_name(namespace, n),
                    None => snap.services(Some(namespace)),
                };
                return Ok((regs.iter().map(|r| (**r).clone()).collect(), index));
            }
            tokio::select! {
                r = rx.changed() => if r.is_err() { return Err(RpcError::Shutdown) },
                _ = tokio::time::sleep_until(deadline) => {}
            }
        }
    }

    async fn service_deregister_allocs(&self, alloc_ids: Vec<String>) -> Result<u64, RpcError> {
        service::delete_by_alloc(&self.server, alloc_ids)
            .await
            .map_err(|e| to_rpc("", e))
    }
}
