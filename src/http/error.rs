//! HTTP errors, answered as Nomad does: a `text/plain; charset=utf-8` body with the bare
//! message and no trailing newline.

use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};

use super::logs::LogError;
use super::respond::Meta;
use crate::server::ServerError;

#[derive(Debug, thiserror::Error)]
pub enum HttpError {
    /// Bad parameters or body (400).
    #[error("{0}")]
    BadRequest(String),
    /// 404 with Nomad's text (`job not found`); reads keep their query headers.
    #[error("{message}")]
    NotFound { message: String, meta: Option<Meta> },
    /// 405 `Invalid method`.
    #[error("Invalid method")]
    MethodNotAllowed,
    /// Anything else (500), e.g. a failed encode or an unparsable flag (Nomad answers 500).
    #[error("{0}")]
    Internal(String),
    /// A client-only agent has no server to answer from.
    #[error("no servers")]
    NoServers,
    /// `/v1/client/*` on an agent without a client (Nomad's 400 text).
    #[error("node is not running a Nomad Client")]
    NoClient,
    #[error(transparent)]
    Server(#[from] ServerError),
    #[error(transparent)]
    Log(#[from] LogError),
}

impl HttpError {
    pub fn not_found(message: &str, meta: Option<Meta>) -> HttpError {
        HttpError::NotFound {
            message: message.to_string(),
            meta,
        }
    }

    pub fn status(&self) -> StatusCode {
        match self {
            HttpError::BadRequest(_) | HttpError::NoClient => StatusCode::BAD_REQUEST,
            HttpError::NotFound { .. } => StatusCode::NOT_FOUND,
            HttpError::MethodNotAllowed => StatusCode::METHOD_NOT_ALLOWED,
            HttpError::Internal(_) | HttpError::NoServers => StatusCode::INTERNAL_SERVER_ERROR,
            HttpError::Server(e) => match e {
                // Validation failures: Nomad answers 500, the project answers 400 (the
                // request is at fault, and clients branch on 4xx).
                ServerError::BadRequest(_) | ServerError::Conflict(_) => StatusCode::BAD_REQUEST,
                ServerError::NotFound(_) => StatusCode::NOT_FOUND,
                ServerError::NoLeader
                | ServerError::Raft(_)
                | ServerError::Apply(_)
                | ServerError::Shutdown => StatusCode::INTERNAL_SERVER_ERROR,
            },
            HttpError::Log(e) => e.status(),
        }
    }
}

impl IntoResponse for HttpError {
    fn into_response(self) -> Response {
        let status = self.status();
        if status.is_server_error() {
            tracing::error!(error = %self, code = status.as_u16(), "request failed");
        } else {
            tracing::debug!(error = %self, code = status.as_u16(), "request failed");
        }
        let meta = match &self {
            HttpError::NotFound { meta, .. } => *meta,
            _ => None,
        };
        let mut resp = (
            status,
            [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
            self.to_string(),
        )
            .into_response();
        if let Some(m) = meta {
            m.apply(&mut resp);
        }
        resp
    }
}
