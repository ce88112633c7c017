//! `/v1/deployments`, `/v1/deployment/<id>`, `/v1/deployment/{allocations,promote,fail,pause,
//! unblock}/<id>`, and the job routes `/v1/job/<id>/{deployments,deployment,promote,revert}`.

use axum::body::Bytes;
use axum::extract::rejection::PathRejection;
use axum::extract::{Path, State};
use axum::http::Method;
use axum::response::{IntoResponse, Response};
use serde::Deserialize;

use super::error::HttpError;
use super::query::{blocking, need_server, passes, Req};
use super::respond::{json, Meta};
use super::HttpState;
use crate::api::{AllocListStub, JobRegisterRequest};
use crate::server::endpoints::deployment::{self as dep, DeploymentError};
use crate::server::state::Table;
use crate::server::{Server, ServerError};

impl From<DeploymentError> for HttpError {
    fn from(e: DeploymentError) -> Self {
        match e {
            DeploymentError::NotFound => HttpError::not_found("deployment not found", None),
            DeploymentError::Server(s) => HttpError::Server(s),
            other => HttpError::BadRequest(other.to_string()),
        }
    }
}

pub async fn list(State(st): State<HttpState>, req: Req) -> Response {
    list_inner(&st, &req)
        .await
        .unwrap_or_else(IntoResponse::into_response)
}

async fn list_inner(st: &HttpState, req: &Req) -> Result<Response, HttpError> {
    if req.method != Method::GET {
        return Err(HttpError::MethodNotAllowed);
    }
    let server = need_server(st, req)?;
    let ns = req.namespace();
    let prefix = req.prefix();
    let filter = req.filter()?;
    let (meta, list) = blocking(server, req, &[Table::Deployments], |snap| {
        let mut list = Vec::new();
        for d in snap.deployments(Some(ns)) {
            if d.id.starts_with(prefix) && passes(filter.as_ref(), &*d)? {
                list.push(d);
            }
        }
        list.sort_by_key(|d| std::cmp::Reverse(d.create_index));
        Ok((snap.table_index(Table::Deployments), list))
    })
    .await?;
    Ok(json(&list, req.pretty(), Some(meta)))
}

pub async fn specific(
    State(st): State<HttpState>,
    path: Result<Path<String>, PathRejection>,
    req: Req,
    body: Bytes,
) -> Response {
    let out = match path {
        Ok(Path(rest)) => dispatch(&st, &req, &rest, &body).await,
        Err(e) => Err(HttpError::BadRequest(e.body_text())),
    };
    out.unwrap_or_else(IntoResponse::into_response)
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
struct PromoteBody {
    all: bool,
    groups: Option<Vec<String>>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
struct PauseBody {
    pause: bool,
}

fn parse<T: Default + for<'de> Deserialize<'de>>(body: &Bytes) -> Result<T, HttpError> {
    if body.is_empty() {
        return Ok(T::default());
    }
    serde_json::from_slice(body).map_err(|e| HttpError::BadRequest(e.to_string()))
}

fn need_write(req: &Req) -> Result<(), HttpError> {
    if req.method == Method::PUT || req.method == Method::POST {
        Ok(())
    } else {
        Err(HttpError::MethodNotAllowed)
    }
}

async fn dispatch(
    st: &HttpState,
    req: &Req,
    rest: &str,
    body: &Bytes,
) -> Result<Response, HttpError> {
    let server = need_server(st, req)?;
    let write = |out: crate::api::DeploymentUpdateResponse| {
        let meta = Meta::Write { index: out.index };
        json(&out, req.pretty(), Some(meta))
    };
    if let Some(id) = rest.strip_prefix("allocations/") {
        if req.method != Method::GET {
            return Err(HttpError::MethodNotAllowed);
        }
        let (meta, allocs) = blocking(server, req, &[Table::Allocs], |snap| {
            let Some(d) = snap.deployment_by_id(id) else {
                return Ok((snap.table_index(Table::Allocs), Vec::new()));
            };
            let stubs: Vec<AllocListStub> = snap
                .allocs_for_job(&d.namespace, &d.job_id)
                .iter()
                .filter(|a| a.deployment_id == d.id)
                .map(|a| AllocListStub::from_alloc(a))
                .collect();
            Ok((snap.table_index(Table::Allocs), stubs))
        })
        .await?;
        return Ok(json(&allocs, req.pretty(), Some(meta)));
    }
    if let Some(id) = rest.strip_prefix("promote/") {
        need_write(req)?;
        let b: PromoteBody = parse(body)?;
        let groups = if b.all {
            Vec::new()
        } else {
            b.groups.unwrap_or_default()
        };
        return Ok(write(dep::promote(server, id, groups).await?));
    }
    if let Some(id) = rest.strip_prefix("fail/") {
        need_write(req)?;
        return Ok(write(dep::fail(server, id).await?));
    }
    if let Some(id) = rest.strip_prefix("pause/") {
        need_write(req)?;
        let b: PauseBody = parse(body)?;
        return Ok(write(dep::pause(server, id, b.pause).await?));
    }
    if let Some(id) = rest.strip_prefix("unblock/") {
        need_write(req)?;
        // Unblocking applies to multiregion deployments, which this cluster does not run.
        let snap = server.state().snapshot();
        if snap.deployment_by_id(id).is_none() {
            return Err(HttpError::not_found("deployment not found", None));
        }
        return Err(HttpError::BadRequest(
            "deployment must be multiregion to be unblocked".to_string(),
        ));
    }
    if req.method != Method::GET {
        return Err(HttpError::MethodNotAllowed);
    }
    let (meta, d) = blocking(server, req, &[Table::Deployments], |snap| {
        let d = snap.deployment_by_id(rest);
        let index = d
            .as_ref()
            .map(|d| d.modify_index)
            .unwrap_or_else(|| snap.table_index(Table::Deployments));
        Ok((index, d))
    })
    .await?;
    match d {
        Some(d) => Ok(json(&*d, req.pretty(), Some(meta))),
        None => Err(HttpError::not_found("deployment not found", Some(meta))),
    }
}

#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
struct RevertBody {
    job_version: u64,
    enforce_prior_version: Option<u64>,
}

/// The job routes this module answers; `None` for any other `/v1/job/...` path.
pub async fn job_route(
    st: &HttpState,
    req: &Req,
    rest: &str,
    body: &Bytes,
) -> Option<Result<Response, HttpError>> {
    if let Some(id) = rest.strip_suffix("/deployments") {
        return Some(job_deployments(st, req, id, false).await);
    }
    if let Some(id) = rest.strip_suffix("/deployment") {
        return Some(job_deployments(st, req, id, true).await);
    }
    if let Some(id) = rest.strip_suffix("/promote") {
        return Some(job_promote(st, req, id, body).await);
    }
    if let Some(id) = rest.strip_suffix("/revert") {
        return Some(job_revert(st, req, id, body).await);
    }
    None
}

async fn job_deployments(
    st: &HttpState,
    req: &Req,
    id: &str,
    latest: bool,
) -> Result<Response, HttpError> {
    if req.method != Method::GET {
        return Err(HttpError::MethodNotAllowed);
    }
    let server = need_server(st, req)?;
    let ns = req.namespace();
    let (meta, list) = blocking(server, req, &[Table::Deployments], |snap| {
        Ok((
            snap.table_index(Table::Deployments),
            snap.deployments_for_job(ns, id),
        ))
    })
    .await?;
    if latest {
        // Nomad answers `null` when the job has no deployment.
        return Ok(json(&list.first(), req.pretty(), Some(meta)));
    }
    Ok(json(&list, req.pretty(), Some(meta)))
}

async fn job_promote(
    st: &HttpState,
    req: &Req,
    id: &str,
    body: &Bytes,
) -> Result<Response, HttpError> {
    need_write(req)?;
    let server = need_server(st, req)?;
    let b: PromoteBody = parse(body)?;
    let snap = server.state().snapshot();
    let Some(d) = snap
        .latest_deployment(req.namespace(), id)
        .filter(|d| d.active())
    else {
        return Err(HttpError::BadRequest(format!(
            "job {id:?} has no active deployment"
        )));
    };
    let groups = if b.all {
        Vec::new()
    } else {
        b.groups.unwrap_or_default()
    };
    let out = dep::promote(server, &d.id, groups).await?;
    let meta = Meta::Write { index: out.index };
    Ok(json(&out, req.pretty(), Some(meta)))
}

async fn job_revert(
    st: &HttpState,
    req: &Req,
    id: &str,
    body: &Bytes,
) -> Result<Response, HttpError> {
    need_write(req)?;
    let server = need_server(st, req)?;
    let b: RevertBody = parse(body)?;
    let out = revert(
        server,
        req.namespace(),
        id,
        b.job_version,
        b.enforce_prior_version,
    )
    .await?;
    let meta = Meta::Write { index: out.index };
    Ok(json(&out, req.pretty(), Some(meta)))
}

/// Nomad's `Job.Revert`: register the spec of `version` as a new version.
async fn revert(
    server: &Server,
    ns: &str,
    id: &str,
    version: u64,
    enforce_prior: Option<u64>,
) -> Result<crate::api::JobRegisterResponse, HttpError> {
    let snap = server.state().snapshot();
    let Some(cur) = snap.job_by_id(ns, id) else {
        return Err(HttpError::not_found("job not found", None));
    };
    if let Some(prior) = enforce_prior {
        if prior != cur.version {
            return Err(HttpError::BadRequest(format!(
                "current job has version {}; enforcing version {prior}",
                cur.version
            )));
        }
    }
    if version == cur.version {
        return Err(HttpError::BadRequest(format!(
            "can't revert to current version {version}"
        )));
    }
    let Some(target) = snap.job_version(ns, id, version) else {
        return Err(HttpError::BadRequest(format!(
            "job {id:?} at version {version} not found"
        )));
    };
    let mut job = (*target).clone();
    job.stop = false;
    // The tag stays on the version it named, as in Nomad (a name is on one version only).
    job.version_tag = None;
    let out = crate::server::endpoints::job::register(
        server,
        JobRegisterRequest {
            job: Some(job),
            ..Default::default()
        },
    )
    .await
    .map_err(|e: ServerError| HttpError::Server(e))?;
    Ok(out)
}
