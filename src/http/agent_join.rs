//! `PUT /v1/agent/join?address=...` and `PUT /v1/agent/force-leave?node=...[&prune=1]`:
//! server membership changes (Nomad's `AgentJoinRequest` / `AgentForceLeaveRequest`).
//! Only servers answer; a client-only agent gets Nomad's 501.

use axum::extract::State;
use axum::http::{Method, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Serialize;

use super::error::HttpError;
use super::query::Req;
use super::respond::json;
use super::HttpState;

/// Nomad's `joinResult` (lower-case keys, unlike the rest of the API).
#[derive(Debug, Serialize)]
struct JoinResult {
    num_joined: usize,
    error: String,
    warning: String,
}

fn write_only(req: &Req) -> Result<(), HttpError> {
    if req.method == Method::PUT || req.method == Method::POST {
        Ok(())
    } else {
        Err(HttpError::MethodNotAllowed)
    }
}

/// Nomad's answer for an agent that is not a server.
fn not_a_server() -> Response {
    (StatusCode::NOT_IMPLEMENTED, "Invalid method").into_response()
}

pub async fn join(State(st): State<HttpState>, req: Req) -> Response {
    if let Err(e) = write_only(&req) {
        return e.into_response();
    }
    if st.server.is_none() {
        return not_a_server();
    }
    let addrs: Vec<String> = req
        .params
        .iter()
        .filter(|(k, v)| k == "address" && !v.is_empty())
        .map(|(_, v)| v.clone())
        .collect();
    if addrs.is_empty() {
        return HttpError::BadRequest("missing address to join".to_string()).into_response();
    }
    let local = [st.agent.serf_addr.clone(), st.agent.rpc_addr.clone()];
    let outcome = crate::server::join::join(&local, &addrs).await;
    let body = JoinResult {
        num_joined: outcome.joined,
        error: outcome.error_text(),
        warning: String::new(),
    };
    json(&body, req.pretty(), None)
}

pub async fn force_leave(State(st): State<HttpState>, req: Req) -> Response {
    if let Err(e) = write_only(&req) {
        return e.into_response();
    }
    let Some(server) = st.server.as_ref() else {
        return not_a_server();
    };
    let Some(node) = req.get("node") else {
        return HttpError::BadRequest("missing node to force leave".to_string()).into_response();
    };
    // `prune` changes nothing more here: a removed server leaves the membership at once.
    if req.get("prune").is_some() && req.bool("prune").is_err() {
        return HttpError::BadRequest("invalid prune value".to_string()).into_response();
    }
    // A name that is no member is not an error (serf ignores it too); a member that is this
    // server itself is alive and stays.
    match server.raft().remove_server(node).await {
        Ok(_) => StatusCode::OK.into_response(),
        Err(e) => HttpError::Internal(e.to_string()).into_response(),
    }
}
