//! The seam between a client and the servers. The dev agent uses the in-process
//! implementation; remote clients will use a tonic one with the same trait.

use std::time::Duration;

use async_trait::async_trait;
use serde::{Deserialize, Serialize};

use crate::api::{Allocation, Node, ServiceRegistration};

#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
pub enum RpcError {
    #[error("no cluster leader")]
    NoLeader,
    #[error("node {0} not found")]
    UnknownNode(String),
    #[error("invalid request: {0}")]
    Invalid(String),
    #[error("server shutting down")]
    Shutdown,
    #[error("rpc error: {0}")]
    Internal(String),
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct NodeUpdateResponse {
    /// How long until the server marks the node down without another heartbeat.
    pub heartbeat_ttl: Duration,
    pub index: u64,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ClientAllocs {
    /// All non-GC'd allocs placed on the node (running, stopping and terminal ones).
    pub allocs: Vec<Allocation>,
    /// The allocs table index the answer reflects; pass it back as `min_index`.
    pub index: u64,
}

#[async_trait]
pub trait ServerRpc: Send + Sync + 'static {
    /// Node.Register: create or refresh the node (status `ready` once registered).
    async fn node_register(&self, node: Node) -> Result<NodeUpdateResponse, RpcError>;
    /// Node.UpdateStatus: the heartbeat. Resets the node's TTL; `status` is usually "ready".
    async fn node_update_status(
        &self,
        node_id: &str,
        status: &str,
    ) -> Result<NodeUpdateResponse, RpcError>;
    /// Node.UpdateAlloc: client status and task states of allocs on this node. Only the
    /// client-owned fields (ClientStatus, ClientDescription, TaskStates, NetworkStatus,
    /// DeploymentStatus) of each alloc are taken.
    async fn node_update_alloc(
        &self,
        node_id: &str,
        allocs: Vec<Allocation>,
    ) -> Result<u64, RpcError>;
    /// Node.GetClientAllocs: blocks until the node's allocs change past `min_index` or
    /// `timeout` passes, then returns them all.
    async fn node_get_client_allocs(
        &self,
        node_id: &str,
        min_index: u64,
        timeout: Duration,
    ) -> Result<ClientAllocs, RpcError>;
    /// ServiceRegistration.Upsert: the Nomad-native services of allocs running on the node.
    async fn service_register(
        &self,
        node_id: &str,
        services: Vec<ServiceRegistration>,
    ) -> Result<u64, RpcError> {
        let _ = (node_id, services);
        Err(RpcError::Internal(
            "service registration is not supported by this server".to_string(),
        ))
    }
    /// ServiceRegistration.List/GetService as a blocking query: the registrations of
    /// `namespace` (all, or only service `name`) once the services table passes
    /// `min_index` or `timeout` passes, with the table's index. Templates read these.
    async fn service_registrations(
        &self,
        namespace: &str,
        name: Option<&str>,
        min_index: u64,
        timeout: Duration,
    ) -> Result<(Vec<ServiceRegistration>, u64), RpcError> {
        let _ = (namespace, name, min_index, timeout);
        Err(RpcError::Internal(
            "service lookups are not supported by this server".to_string(),
        ))
    }
    /// Remove the service registrations of allocs the node stopped.
    async fn service_deregister_allocs(&self, alloc_ids: Vec<String>) -> Result<u64, RpcError> {
        let _ = alloc_ids;
        Err(RpcError::Internal(
            "service registration is not supported by this server".to_string(),
        ))
    }
}
