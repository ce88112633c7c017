//! `/v1/allocations`, `/v1/allocation/<id>`, `/v1/nodes`, `/v1/node/<id>[/allocations]`,
//! `/v1/evaluations`, `/v1/evaluation/<id>[/allocations]`.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::rejection::PathRejection;
use axum::extract::{Path, State};
use axum::http::Method;
use axum::response::{IntoResponse, Response};

use super::error::HttpError;
use super::query::{blocking, need_server, passes, Req};
use super::respond::{json, Meta};
use super::{sanitize, HttpState};
use crate::api::alloc_legacy::AllocWithLegacy;
use crate::api::{AllocListStub, Allocation, NodeListStub};
use crate::server::state::Table;

fn get_only(req: &Req) -> Result<(), HttpError> {
    if req.method == Method::GET {
        Ok(())
    } else {
        Err(HttpError::MethodNotAllowed)
    }
}

fn path_rest(path: Result<Path<String>, PathRejection>) -> Result<String, HttpError> {
    path.map(|Path(p)| p)
        .map_err(|e| HttpError::BadRequest(e.body_text()))
}

/// An alloc stub as `/v1/allocations` prints it with `?task_states` and `?resources`.
fn alloc_stub(a: &Allocation, task_states: bool, resources: bool) -> AllocListStub {
    let mut stub = AllocListStub::from_alloc(a);
    if !task_states {
        stub.task_states = None;
    }
    if resources {
        stub.allocated_resources = a.allocated_resources.clone();
    }
    stub
}

pub async fn allocs_list(State(st): State<HttpState>, req: Req) -> Response {
    allocs_list_inner(&st, &req)
        .await
        .unwrap_or_else(IntoResponse::into_response)
}

async fn allocs_list_inner(st: &HttpState, req: &Req) -> Result<Response, HttpError> {
    get_only(req)?;
    let server = need_server(st, req)?;
    let ns = req.namespace();
    let prefix = req.prefix();
    // Nomad's `task_states` defaults to true; any value but a parsable false keeps them.
    let task_states = req
        .get("task_states")
        .and_then(super::query::parse_go_bool)
        .unwrap_or(true);
    let resources = req.flag("resources");
    let filter = req.filter()?;
    let (meta, stubs) = blocking(server, req, &[Table::Allocs], |snap| {
        let mut stubs: Vec<AllocListStub> = Vec::new();
        for a in snap.allocs(Some(ns)).iter() {
            if a.id.starts_with(prefix) && passes(filter.as_ref(), &**a)? {
                stubs.push(alloc_stub(a, task_states, resources));
            }
        }
        Ok((snap.table_index(Table::Allocs), stubs))
    })
    .await?;
    Ok(json(&stubs, req.pretty(), Some(meta)))
}

pub async fn alloc_specific(
    State(st): State<HttpState>,
    path: Result<Path<String>, PathRejection>,
    req: Req,
) -> Response {
    alloc_get(&st, &req, path)
        .await
        .unwrap_or_else(IntoResponse::into_response)
}

async fn alloc_get(
    st: &HttpState,
    req: &Req,
    path: Result<Path<String>, PathRejection>,
) -> Result<Response, HttpError> {
    let id = path_rest(path)?;
    if let Some(alloc_id) = id.strip_suffix("/stop") {
        return alloc_stop(st, req, alloc_id).await;
    }
    get_only(req)?;
    let server = need_server(st, req)?;
    let (meta, alloc) = blocking(server, req, &[Table::Allocs], |snap| {
        let a = snap.alloc_by_id(&id);
        let index = a
            .as_ref()
            .map(|a| a.modify_index)
            .unwrap_or_else(|| snap.table_index(Table::Allocs));
        Ok((index, a))
    })
    .await?;
    match alloc {
        Some(a) => Ok(json(&AllocWithLegacy::of(&a), req.pretty(), Some(meta))),
        None => Err(HttpError::not_found("alloc not found", Some(meta))),
    }
}

/// `PUT|POST /v1/allocation/<id>/stop[?no_shutdown_delay=true]`.
async fn alloc_stop(st: &HttpState, req: &Req, alloc_id: &str) -> Result<Response, HttpError> {
    if req.method != Method::PUT && req.method != Method::POST {
        return Err(HttpError::MethodNotAllowed);
    }
    let server = need_server(st, req)?;
    let no_delay = req.bool("no_shutdown_delay")?.unwrap_or(false);
    let resp = crate::server::endpoints::alloc::stop(server, alloc_id, no_delay).await?;
    Ok(json(&resp, req.pretty(), None))
}

pub async fn nodes_list(State(st): State<HttpState>, req: Req) -> Response {
    nodes_list_inner(&st, &req)
        .await
        .unwrap_or_else(IntoResponse::into_response)
}

async fn nodes_list_inner(st: &HttpState, req: &Req) -> Result<Response, HttpError> {
    get_only(req)?;
    let server = need_server(st, req)?;
    let prefix = req.prefix();
    let resources = req.flag("resources");
    let os = req.flag("os");
    let filter = req.filter()?;
    let (meta, stubs) = blocking(server, req, &[Table::Nodes], |snap| {
        let mut stubs: Vec<NodeListStub> = Vec::new();
        for n in snap.nodes_list().iter() {
            if !n.id.starts_with(prefix) || !passes(filter.as_ref(), &**n)? {
                continue;
            }
            let mut stub = NodeListStub::from_node(n);
            if resources {
                stub.node_resources = Some(n.node_resources.clone());
                stub.reserved_resources = Some(n.reserved_resources.clone());
            }
            if os {
                let name = n.attributes.get("os.name").cloned().unwrap_or_default();
                stub.attributes = Some([("os.name".to_string(), name)].into());
            }
            stubs.push(stub);
        }
        Ok((snap.table_index(Table::Nodes), stubs))
    })
    .await?;
    // Nomad pages nodes in ID order.
    let (page, next) = super::system::paginate_by(stubs, req, |n| n.id.clone())?;
    Ok(super::system::with_next_token(
        json(&page, req.pretty(), Some(meta)),
        next,
    ))
}

pub async fn node_specific(
    State(st): State<HttpState>,
    path: Result<Path<String>, PathRejection>,
    req: Req,
) -> Response {
    node_inner(&st, &req, path)
        .await
        .unwrap_or_else(IntoResponse::into_response)
}

async fn node_inner(
    st: &HttpState,
    req: &Req,
    path: Result<Path<String>, PathRejection>,
) -> Result<Response, HttpError> {
    let rest = path_rest(path)?;
    get_only(req)?;
    let server = need_server(st, req)?;
    if let Some(id) = rest.strip_suffix("/allocations") {
        let (meta, allocs) = blocking(server, req, &[Table::Allocs], |snap| {
            Ok((snap.table_index(Table::Allocs), snap.allocs_for_node(id)))
        })
        .await?;
        let allocs: Vec<_> = allocs.iter().map(|a| AllocWithLegacy::of(a)).collect();
        return Ok(json(&allocs, req.pretty(), Some(meta)));
    }
    let (meta, node) = blocking(server, req, &[Table::Nodes], |snap| {
        let n = snap.node_by_id(&rest);
        let index = n
            .as_ref()
            .map(|n| n.modify_index)
            .unwrap_or_else(|| snap.table_index(Table::Nodes));
        Ok((index, n))
    })
    .await?;
    match node {
        Some(n) => Ok(json(&sanitize::node(&n), req.pretty(), Some(meta))),
        None => Err(HttpError::not_found("node not found", Some(meta))),
    }
}

pub async fn evals_list(State(st): State<HttpState>, req: Req, body: Bytes) -> Response {
    let out = if req.method == Method::DELETE {
        super::system::delete_evals(&st, &req, &body).await
    } else {
        evals_list_inner(&st, &req).await
    };
    out.unwrap_or_else(IntoResponse::into_response)
}

async fn evals_list_inner(st: &HttpState, req: &Req) -> Result<Response, HttpError> {
    get_only(req)?;
    let server = need_server(st, req)?;
    let ns = req.namespace();
    let prefix = req.prefix();
    let job = req.get("job");
    let status = req.get("status");
    let filter = req.filter()?;
    let (meta, evals) = blocking(server, req, &[Table::Evals], |snap| {
        let mut evals = Vec::new();
        for e in snap.evals(Some(ns)) {
            if e.id.starts_with(prefix)
                && job.is_none_or(|j| e.job_id == j)
                && status.is_none_or(|s| e.status == s)
                && passes(filter.as_ref(), &*e)?
            {
                evals.push(e);
            }
        }
        Ok((snap.table_index(Table::Evals), evals))
    })
    .await?;
    let (page, next) = super::system::paginate(evals, req)?;
    Ok(super::system::with_next_token(
        json(&page, req.pretty(), Some(meta)),
        next,
    ))
}

/// `GET /v1/evaluations/count`: how many evals match `prefix` and `filter` (what `nomad eval
/// delete -filter` asks about before deleting).
pub async fn evals_count(State(st): State<HttpState>, req: Req) -> Response {
    evals_count_inner(&st, &req)
        .await
        .unwrap_or_else(IntoResponse::into_response)
}

#[derive(serde::Serialize)]
#[serde(rename_all = "PascalCase")]
struct EvalCountResponse {
    count: usize,
    index: u64,
    last_contact: u64,
    known_leader: bool,
    next_token: String,
}

async fn evals_count_inner(st: &HttpState, req: &Req) -> Result<Response, HttpError> {
    get_only(req)?;
    let server = need_server(st, req)?;
    let ns = req.namespace();
    let prefix = req.prefix();
    let filter = req.filter()?;
    let (meta, count) = blocking(server, req, &[Table::Evals], |snap| {
        let n = crate::server::endpoints::eval::count(snap, ns, prefix, filter.as_ref());
        Ok((snap.table_index(Table::Evals), n))
    })
    .await?;
    let (index, known_leader, last_contact) = match meta {
        Meta::Query {
            index,
            known_leader,
            last_contact_ms,
        } => (index, known_leader, last_contact_ms),
        Meta::Write { index } => (index, true, 0),
    };
    let body = EvalCountResponse {
        count,
        index,
        last_contact,
        known_leader,
        next_token: String::new(),
    };
    Ok(json(&body, req.pretty(), Some(meta)))
}

pub async fn eval_specific(
    State(st): State<HttpState>,
    path: Result<Path<String>, PathRejection>,
    req: Req,
) -> Response {
    eval_inner(&st, &req, path)
        .await
        .unwrap_or_else(IntoResponse::into_response)
}

async fn eval_inner(
    st: &HttpState,
    req: &Req,
    path: Result<Path<String>, PathRejection>,
) -> Result<Response, HttpError> {
    let rest = path_rest(path)?;
    get_only(req)?;
    let server = need_server(st, req)?;
    if let Some(id) = rest.strip_suffix("/allocations") {
        let (meta, stubs) = blocking(server, req, &[Table::Allocs], |snap| {
            let stubs: Vec<AllocListStub> = snap
                .allocs_for_eval(id)
                .iter()
                .map(|a| AllocListStub::from_alloc(a))
                .collect();
            Ok((snap.table_index(Table::Allocs), stubs))
        })
        .await?;
        return Ok(json(&stubs, req.pretty(), Some(meta)));
    }
    // Nomad takes exactly `related=true`; any other value leaves the related evals out.
    let related = req.get("related") == Some("true");
    let (meta, eval) = blocking(server, req, &[Table::Evals], |snap| {
        let e = snap.eval_by_id(&rest).map(|e| {
            if related {
                // A copy: the stored eval never carries related evals.
                let mut with_related = (*e).clone();
                with_related.related_evals = snap.evals_related_to(&e.id);
                Arc::new(with_related)
            } else {
                e
            }
        });
        let index = e
            .as_ref()
            .map(|e| e.modify_index)
            .unwrap_or_else(|| snap.table_index(Table::Evals));
        Ok((index, e))
    })
    .await?;
    match eval {
        Some(e) => Ok(json(&*e, req.pretty(), Some(meta))),
        None => Err(HttpError::not_found("eval not found", Some(meta))),
    }
}
