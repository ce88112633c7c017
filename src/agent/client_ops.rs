//! The HTTP layer's `ClientOps` over the running client: alloc dirs, stats, restart,
//! signal and exec, with the client's errors turned into Nomad's status codes.

use std::path::PathBuf;
use std::sync::Arc;

use async_trait::async_trait;
use serde_json::Value;

use crate::api::now_nanos;
use crate::client::control::{AllocControl, ClientOpError};
use crate::client::{host_stats, ClientHandle};
use crate::drivers::exec_stream::ExecSession;
use crate::http::client_api::{ClientOps, OpError};

pub struct ClientOpsImpl {
    client: Arc<ClientHandle>,
}

impl ClientOpsImpl {
    pub fn new(client: Arc<ClientHandle>) -> Self {
        ClientOpsImpl { client }
    }

    fn alloc(&self, alloc_id: &str) -> Result<AllocControl, OpError> {
        self.client
            .alloc_control(alloc_id)
            .ok_or_else(|| op_error(ClientOpError::UnknownAlloc(alloc_id.to_string())))
    }
}

fn op_error(e: ClientOpError) -> OpError {
    OpError::new(e.status(), e.to_string())
}

fn to_value<T: serde::Serialize>(v: &T) -> Result<Value, OpError> {
    serde_json::to_value(v).map_err(|e| OpError::new(500, e.to_string()))
}

#[async_trait]
impl ClientOps for ClientOpsImpl {
    fn alloc_dir(&self, alloc_id: &str) -> Result<PathBuf, OpError> {
        self.client
            .alloc_dir(alloc_id)
            .ok_or_else(|| op_error(ClientOpError::UnknownAlloc(alloc_id.to_string())))
    }

    async fn alloc_stats(&self, alloc_id: &str, task: &str) -> Result<Value, OpError> {
        let usage = self.alloc(alloc_id)?.stats(task).await.map_err(op_error)?;
        to_value(&usage)
    }

    fn alloc_checks(&self, alloc_id: &str) -> Result<Value, OpError> {
        to_value(&self.alloc(alloc_id)?.checks())
    }

    async fn host_stats(&self) -> Result<Value, OpError> {
        let root = self.client.config().alloc_root();
        let stats = tokio::task::spawn_blocking(move || host_stats::collect(&root, now_nanos()))
            .await
            .map_err(|e| OpError::new(500, e.to_string()))?;
        to_value(&stats)
    }

    async fn restart(&self, alloc_id: &str, task: &str, all_tasks: bool) -> Result<(), OpError> {
        self.alloc(alloc_id)?
            .restart(task, all_tasks)
            .map_err(op_error)
    }

    async fn signal(&self, alloc_id: &str, task: &str, signal: &str) -> Result<(), OpError> {
        self.alloc(alloc_id)?
            .signal(task, signal)
            .await
            .map_err(op_error)
    }

    async fn exec(&self, alloc_id: &str, task: &str, session: ExecSession) -> Result<i32, OpError> {
        self.alloc(alloc_id)?
            .exec(task, session)
            .await
            .map_err(op_error)
    }
}
