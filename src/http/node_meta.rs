//! `GET|POST /v1/client/metadata`: read or change the local client's dynamic node metadata.
//! The agent hands the client's `NodeMeta` to the router as an extension; an agent without a
//! client answers Nomad's "not running a Nomad Client" 400.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::Extension;
use axum::http::Method;
use axum::response::{IntoResponse, Response};

use super::error::HttpError;
use super::query::Req;
use super::respond::json;
use crate::api::NodeMetaApplyRequest;
use crate::client::node_meta::{NodeMeta, NodeMetaError};

pub async fn metadata(meta: Option<Extension<Arc<NodeMeta>>>, req: Req, body: Bytes) -> Response {
    handle(meta.map(|Extension(m)| m), &req, &body)
        .await
        .unwrap_or_else(IntoResponse::into_response)
}

async fn handle(
    meta: Option<Arc<NodeMeta>>,
    req: &Req,
    body: &Bytes,
) -> Result<Response, HttpError> {
    let meta = meta.ok_or(HttpError::NoClient)?;
    let local = meta.node_id();
    let wants = |id: &str| id.is_empty() || id == local;
    if !wants(req.get("node_id").unwrap_or("")) {
        return Err(HttpError::BadRequest(format!(
            "Unknown node: this agent's client is {local}"
        )));
    }
    match req.method {
        Method::GET => Ok(json(&meta.read(), req.pretty(), None)),
        Method::POST | Method::PUT => {
            // Not `body::decode`: a null value here means "unset", so nulls must stay.
            if body.is_empty() {
                return Err(HttpError::BadRequest("Request body is empty".to_string()));
            }
            let r: NodeMetaApplyRequest =
                serde_json::from_slice(body).map_err(|e| HttpError::BadRequest(e.to_string()))?;
            if !wants(&r.node_id) {
                return Err(HttpError::BadRequest(format!(
                    "Unknown node: this agent's client is {local}"
                )));
            }
            match meta.apply(r.meta).await {
                Ok(out) => Ok(json(&out, req.pretty(), None)),
                Err(e @ NodeMetaError::EmptyKey) => Err(HttpError::BadRequest(e.to_string())),
                Err(e) => Err(HttpError::Internal(e.to_string())),
            }
        }
        _ => Err(HttpError::MethodNotAllowed),
    }
}
