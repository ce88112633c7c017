//! What the `/v1/client/*` endpoints need from the node's client, beyond log files: alloc
//! dirs to browse, stats, restart/signal of tasks and exec. The agent implements it over the
//! running client; errors carry Nomad's text and the status code Nomad answers with.

use std::path::PathBuf;

use async_trait::async_trait;
use axum::http::StatusCode;
use serde_json::Value;

use super::error::HttpError;
use crate::drivers::exec_stream::ExecSession;

/// A failed client operation: Nomad's message and HTTP status.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OpError {
    pub status: u16,
    pub message: String,
}

impl OpError {
    pub fn new(status: u16, message: impl Into<String>) -> Self {
        OpError {
            status,
            message: message.into(),
        }
    }

    pub fn into_http(self) -> HttpError {
        match StatusCode::from_u16(self.status).unwrap_or(StatusCode::INTERNAL_SERVER_ERROR) {
            StatusCode::BAD_REQUEST => HttpError::BadRequest(self.message),
            StatusCode::NOT_FOUND => HttpError::not_found(&self.message, None),
            _ => HttpError::Internal(self.message),
        }
    }
}

impl From<OpError> for HttpError {
    fn from(e: OpError) -> Self {
        e.into_http()
    }
}

#[async_trait]
pub trait ClientOps: Send + Sync {
    /// The alloc's directory on this node; 404 `Unknown allocation` when it has none.
    fn alloc_dir(&self, alloc_id: &str) -> Result<PathBuf, OpError>;
    /// Nomad's `AllocResourceUsage` (of one task when `task` is not empty).
    async fn alloc_stats(&self, alloc_id: &str, task: &str) -> Result<Value, OpError>;
    /// The latest Nomad service check results of the alloc, by check ID.
    fn alloc_checks(&self, alloc_id: &str) -> Result<Value, OpError>;
    /// Nomad's `HostStats`.
    async fn host_stats(&self) -> Result<Value, OpError>;
    async fn restart(&self, alloc_id: &str, task: &str, all_tasks: bool) -> Result<(), OpError>;
    async fn signal(&self, alloc_id: &str, task: &str, signal: &str) -> Result<(), OpError>;
    /// Runs the session in the task; the command's exit code.
    async fn exec(&self, alloc_id: &str, task: &str, session: ExecSession) -> Result<i32, OpError>;
}
