//! Job operations under `/v1/job/<id>/...`: `plan`, `dispatch`, `periodic/force`, `scale` and
//! `evaluate`, and version tags (`versions/<name>/tag`).
//! `jobs::dispatch` offers every job sub-path here first.

use axum::body::Bytes;
use axum::http::Method;
use axum::response::Response;

use super::body::decode;
use super::error::HttpError;
use super::query::{need_server, Req};
use super::respond::{json, Meta};
use super::HttpState;
use crate::api::{JobDispatchRequest, JobPlanRequest, JobScaleRequest};
use crate::server::endpoints::job_dispatch::{self, DispatchArgs};
use crate::server::endpoints::{job_plan, job_scale, job_tag};
use crate::server::state::Table;

/// `Some` when `rest` names one of these operations.
pub async fn job_route(
    st: &HttpState,
    req: &Req,
    rest: &str,
    body: &Bytes,
) -> Option<Result<Response, HttpError>> {
    if let Some(id) = rest.strip_suffix("/plan") {
        return Some(plan(st, req, id, body).await);
    }
    if let Some(id) = rest.strip_suffix("/periodic/force") {
        return Some(force(st, req, id).await);
    }
    if let Some(id) = rest.strip_suffix("/scale") {
        return Some(scale(st, req, id, body).await);
    }
    if let Some(id) = rest.strip_suffix("/dispatch") {
        return Some(dispatch(st, req, id, body).await);
    }
    if let Some(id) = rest.strip_suffix("/evaluate") {
        return Some(evaluate(st, req, id, body).await);
    }
    if let Some(head) = rest.strip_suffix("/tag") {
        return Some(tag(st, req, head, body).await);
    }
    None
}

/// Body of `PUT /v1/job/<id>/versions/<name>/tag` (Nomad's `api.TagVersionRequest`).
#[derive(Debug, Default, serde::Deserialize)]
#[serde(default, rename_all = "PascalCase")]
struct TagVersionBody {
    version: u64,
    latest: bool,
    description: String,
}

/// `PUT`/`POST` tags a version, `DELETE` removes the tag. `head` is `<id>/versions/<name>`;
/// like Nomad, a job ID or tag name containing `/` does not route.
async fn tag(st: &HttpState, req: &Req, head: &str, body: &Bytes) -> Result<Response, HttpError> {
    let parts: Vec<&str> = head.split('/').collect();
    let [job_id, "versions", name] = parts[..] else {
        return Err(HttpError::not_found("invalid job tag endpoint", None));
    };
    let server = need_server(st, req)?;
    let ns = req.namespace();
    let out = match req.method {
        Method::PUT | Method::POST => {
            let b: TagVersionBody = decode(body)?;
            let args = job_tag::ApplyArgs {
                namespace: ns.to_string(),
                job_id: job_id.to_string(),
                name: name.to_string(),
                description: b.description,
                version: b.version,
                latest: b.latest,
            };
            job_tag::apply(server, args).await?
        }
        Method::DELETE => job_tag::unset(server, ns, job_id, name).await?,
        _ => return Err(HttpError::MethodNotAllowed),
    };
    let meta = Meta::Write { index: out.index };
    Ok(json(&out, req.pretty(), Some(meta)))
}

fn write_method(req: &Req) -> Result<(), HttpError> {
    if req.method == Method::PUT || req.method == Method::POST {
        Ok(())
    } else {
        Err(HttpError::MethodNotAllowed)
    }
}

async fn plan(st: &HttpState, req: &Req, id: &str, body: &Bytes) -> Result<Response, HttpError> {
    write_method(req)?;
    let server = need_server(st, req)?;
    let mut args: JobPlanRequest = decode(body)?;
    let Some(job) = args.job.as_mut() else {
        return Err(HttpError::BadRequest("Job must be specified".to_string()));
    };
    if job.id.is_empty() {
        return Err(HttpError::BadRequest(
            "Job ID hasn't been provided".to_string(),
        ));
    }
    if job.id != id {
        return Err(HttpError::BadRequest("Job ID does not match".to_string()));
    }
    if job.namespace.is_empty() {
        job.namespace = req.namespace().to_string();
    }
    if job.region.is_empty() {
        job.region = req.region().unwrap_or(&st.agent.region).to_string();
    }
    let out = job_plan::plan(server, args).await?;
    let meta = Meta::Write { index: out.index };
    Ok(json(&out, req.pretty(), Some(meta)))
}

async fn dispatch(
    st: &HttpState,
    req: &Req,
    id: &str,
    body: &Bytes,
) -> Result<Response, HttpError> {
    write_method(req)?;
    let server = need_server(st, req)?;
    let mut args: JobDispatchRequest = if body.is_empty() {
        JobDispatchRequest::default()
    } else {
        decode(body)?
    };
    if !args.job_id.is_empty() && args.job_id != id {
        return Err(HttpError::BadRequest("Job ID does not match".to_string()));
    }
    args.job_id = id.to_string();
    let out = job_dispatch::dispatch(
        server,
        DispatchArgs {
            namespace: req.namespace().to_string(),
            request: args,
            idempotency_token: req.get("idempotency_token").unwrap_or_default().to_string(),
        },
    )
    .await?;
    let meta = Meta::Write { index: out.index };
    Ok(json(&out, req.pretty(), Some(meta)))
}

#[derive(Debug, Default, serde::Deserialize)]
#[serde(default, rename_all = "PascalCase")]
struct JobEvaluateRequest {
    #[serde(rename = "JobID")]
    job_id: String,
    eval_options: EvalOptions,
}

#[derive(Debug, Default, serde::Deserialize)]
#[serde(default, rename_all = "PascalCase")]
struct EvalOptions {
    force_reschedule: bool,
}

/// `PUT /v1/job/<id>/evaluate`: a new eval of the job (the body is optional, as in Nomad).
async fn evaluate(
    st: &HttpState,
    req: &Req,
    id: &str,
    body: &Bytes,
) -> Result<Response, HttpError> {
    write_method(req)?;
    let server = need_server(st, req)?;
    let args: JobEvaluateRequest = if body.is_empty() {
        JobEvaluateRequest {
            job_id: id.to_string(),
            ..Default::default()
        }
    } else {
        decode(body)?
    };
    if args.job_id.is_empty() {
        return Err(HttpError::BadRequest(
            "Job ID must be specified".to_string(),
        ));
    }
    if args.job_id != id {
        return Err(HttpError::BadRequest(
            "JobID not same as job name".to_string(),
        ));
    }
    let out = crate::server::endpoints::job_eval::evaluate(
        server,
        req.namespace(),
        id,
        args.eval_options.force_reschedule,
    )
    .await?;
    let meta = Meta::Write { index: out.index };
    Ok(json(&out, req.pretty(), Some(meta)))
}

async fn force(st: &HttpState, req: &Req, id: &str) -> Result<Response, HttpError> {
    write_method(req)?;
    let server = need_server(st, req)?;
    let out = crate::server::periodic::force(server, req.namespace(), id).await?;
    let meta = Meta::Write { index: out.index };
    Ok(json(&out, req.pretty(), Some(meta)))
}

/// `GET` the scale status, `PUT`/`POST` a scaling request.
async fn scale(st: &HttpState, req: &Req, id: &str, body: &Bytes) -> Result<Response, HttpError> {
    let server = need_server(st, req)?;
    let ns = req.namespace();
    if req.method == Method::GET {
        let (meta, status) =
            super::query::blocking(server, req, &[Table::Jobs, Table::Allocs], |snap| {
                Ok((
                    snap.max_index(&[Table::Jobs, Table::Allocs]),
                    job_scale::scale_status(snap, ns, id),
                ))
            })
            .await?;
        return match status {
            Some(s) => Ok(json(&s, req.pretty(), Some(meta))),
            None => Err(HttpError::not_found("job not found", Some(meta))),
        };
    }
    write_method(req)?;
    let args: JobScaleRequest = decode(body)?;
    if args.target.get("Job").is_some_and(|j| j != id) {
        return Err(HttpError::BadRequest(
            "job ID in payload did not match URL".to_string(),
        ));
    }
    let out = job_scale::scale(server, ns, id, args).await?;
    let meta = Meta::Write { index: out.index };
    Ok(json(&out, req.pretty(), Some(meta)))
}
