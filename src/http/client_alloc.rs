//! `/v1/client/allocation/<id>/{stats,checks,restart,signal,exec}` and `/v1/client/stats`: the
//! node's view of its allocs, answered by the local client as Nomad's client endpoints.

use axum::body::Bytes;
use axum::extract::rejection::PathRejection;
use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::WebSocketUpgrade;
use axum::extract::{Path, State};
use axum::http::Method;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;
use serde_json::json;

use super::error::HttpError;
use super::query::Req;
use super::respond::json;
use super::HttpState;

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
struct RestartRequest {
    task_name: String,
    all_tasks: bool,
}

#[derive(Debug, Default, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
struct SignalRequest {
    task: String,
    signal: String,
}

/// An optional JSON body: empty means all defaults.
fn decode_opt<T: for<'de> Deserialize<'de> + Default>(body: &Bytes) -> Result<T, HttpError> {
    if body.iter().all(u8::is_ascii_whitespace) {
        return Ok(T::default());
    }
    super::body::decode(body)
}

pub async fn allocation(
    State(st): State<HttpState>,
    path: Result<Path<String>, PathRejection>,
    req: Req,
    ws: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
    body: Bytes,
) -> Response {
    dispatch(&st, path, &req, ws, &body)
        .await
        .unwrap_or_else(IntoResponse::into_response)
}

async fn dispatch(
    st: &HttpState,
    path: Result<Path<String>, PathRejection>,
    req: &Req,
    ws: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
    body: &Bytes,
) -> Result<Response, HttpError> {
    let rest = path
        .map(|Path(p)| p)
        .map_err(|e| HttpError::BadRequest(e.body_text()))?;
    let Some((alloc_id, action)) = rest.rsplit_once('/') else {
        return Err(HttpError::not_found("Invalid path", None));
    };
    let Some(client) = st.client_ops.clone() else {
        return Err(HttpError::NoClient);
    };
    let write = req.method == Method::PUT || req.method == Method::POST;
    match action {
        "stats" => {
            if req.method != Method::GET {
                return Err(HttpError::MethodNotAllowed);
            }
            let usage = client
                .alloc_stats(alloc_id, req.get("task").unwrap_or(""))
                .await?;
            Ok(json(&usage, req.pretty(), None))
        }
        "checks" => {
            if req.method != Method::GET {
                return Err(HttpError::MethodNotAllowed);
            }
            Ok(json(&client.alloc_checks(alloc_id)?, req.pretty(), None))
        }
        "restart" if write => {
            let r: RestartRequest = decode_opt(body)?;
            client.restart(alloc_id, &r.task_name, r.all_tasks).await?;
            Ok(json(&json!({"Index": 0}), req.pretty(), None))
        }
        "signal" if write => {
            let r: SignalRequest = decode_opt(body)?;
            client.signal(alloc_id, &r.task, &r.signal).await?;
            Ok(json(&json!({"Index": 0}), req.pretty(), None))
        }
        "restart" | "signal" => Err(HttpError::MethodNotAllowed),
        "exec" => super::client_exec::exec(client, alloc_id, req, ws),
        _ => Err(HttpError::not_found("Invalid path", None)),
    }
}

/// `GET /v1/client/stats`.
pub async fn host_stats(State(st): State<HttpState>, req: Req) -> Response {
    let inner = async {
        if req.method != Method::GET {
            return Err(HttpError::MethodNotAllowed);
        }
        let Some(client) = st.client_ops.clone() else {
            return Err(HttpError::NoClient);
        };
        let stats = client.host_stats().await?;
        Ok(json(&stats, req.pretty(), None))
    };
    inner.await.unwrap_or_else(IntoResponse::into_response)
}
