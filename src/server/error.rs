//! Errors of server endpoints, mapped to HTTP status codes by `http`.

use super::raft::RaftError;

#[derive(Debug, thiserror::Error)]
pub enum ServerError {
    /// The request is malformed or fails validation (HTTP 400). The text is Nomad's
    /// multierror listing for validation failures.
    #[error("{0}")]
    BadRequest(String),
    /// HTTP 404; the text is Nomad's (`job not found`, `alloc not found`...).
    #[error("{0}")]
    NotFound(String),
    /// `-check-index` mismatch and similar conflicts (HTTP 400 like Nomad's RPC error).
    #[error("{0}")]
    Conflict(String),
    #[error("No cluster leader")]
    NoLeader,
    #[error("raft: {0}")]
    Raft(#[from] RaftError),
    /// The FSM refused the command (e.g. an unknown node).
    #[error("{0}")]
    Apply(String),
    #[error("server shutting down")]
    Shutdown,
}
