//! `PUT|POST /v1/node/<id>/drain` and `/v1/node/<id>/eligibility`; every other
//! `/v1/node/<id>...` path goes on to the read handlers in `objects`.

use axum::body::Bytes;
use axum::extract::rejection::PathRejection;
use axum::extract::{Path, State};
use axum::http::Method;
use axum::response::{IntoResponse, Response};

use super::body::decode;
use super::error::HttpError;
use super::query::{need_server, Req};
use super::respond::{json, Meta};
use super::{objects, HttpState};
use crate::api::{NodeUpdateDrainRequest, NodeUpdateEligibilityRequest, NodeUpdateResponse};
use crate::server::endpoints::node_drain;

pub async fn node_specific(
    State(st): State<HttpState>,
    path: Result<Path<String>, PathRejection>,
    req: Req,
    body: Bytes,
) -> Response {
    let rest = match &path {
        Ok(Path(rest)) => rest.clone(),
        Err(_) => String::new(),
    };
    let out = if let Some(id) = rest.strip_suffix("/drain") {
        drain(&st, &req, id, &body).await
    } else if let Some(id) = rest.strip_suffix("/eligibility") {
        eligibility(&st, &req, id, &body).await
    } else {
        return objects::node_specific(State(st), path, req).await;
    };
    out.unwrap_or_else(IntoResponse::into_response)
}

fn need_write(req: &Req) -> Result<(), HttpError> {
    if req.method == Method::PUT || req.method == Method::POST {
        Ok(())
    } else {
        Err(HttpError::MethodNotAllowed)
    }
}

fn written(out: &NodeUpdateResponse, req: &Req) -> Response {
    json(out, req.pretty(), Some(Meta::Write { index: out.index }))
}

async fn drain(st: &HttpState, req: &Req, id: &str, body: &Bytes) -> Result<Response, HttpError> {
    need_write(req)?;
    let server = need_server(st, req)?;
    let r: NodeUpdateDrainRequest = decode(body)?;
    let out = node_drain::update_drain(
        server,
        id,
        r.drain_spec,
        r.mark_eligible,
        r.meta.unwrap_or_default(),
    )
    .await?;
    Ok(written(&out, req))
}

async fn eligibility(
    st: &HttpState,
    req: &Req,
    id: &str,
    body: &Bytes,
) -> Result<Response, HttpError> {
    need_write(req)?;
    let server = need_server(st, req)?;
    let r: NodeUpdateEligibilityRequest = decode(body)?;
    let node_id = if r.node_id.is_empty() { id } else { &r.node_id };
    let out = node_drain::update_eligibility(server, node_id, &r.eligibility).await?;
    Ok(written(&out, req))
}
