//! `/v1/jobs`, `/v1/jobs/parse` and `/v1/job/<id>[/<sub-resource>]`.

use std::sync::Arc;

use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::Method;
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};

use super::body::decode;
use super::error::HttpError;
use super::query::{blocking, need_server, passes, Req};
use super::respond::{json, Meta};
use super::HttpState;
use crate::api::client::JobValidateResponse;
use crate::api::{AllocListStub, Job, JobDiff, JobListStub, JobRegisterRequest};
use crate::server::endpoints::job as job_ep;
use crate::server::endpoints::job_versions::{version_diffs, DiffBase};
use crate::server::state::Table;

const JOB_NOT_FOUND: &str = "job not found";

/// `GET` lists jobs, `PUT`/`POST` registers one.
pub async fn jobs(State(st): State<HttpState>, req: Req, body: Bytes) -> Response {
    let out = match req.method {
        Method::GET => list(&st, &req).await,
        Method::PUT | Method::POST => register(&st, &req, &body, None).await,
        _ => Err(HttpError::MethodNotAllowed),
    };
    out.unwrap_or_else(IntoResponse::into_response)
}

/// Nomad routes `/v1/job/<rest>` by suffix, so a job ID is everything before the last
/// known sub-resource.
pub async fn job_specific(
    State(st): State<HttpState>,
    path: Result<Path<String>, axum::extract::rejection::PathRejection>,
    req: Req,
    body: Bytes,
) -> Response {
    let out = match path {
        Ok(Path(rest)) => dispatch(&st, &req, &rest, &body).await,
        Err(e) => Err(HttpError::BadRequest(e.body_text())),
    };
    out.unwrap_or_else(IntoResponse::into_response)
}

async fn dispatch(
    st: &HttpState,
    req: &Req,
    rest: &str,
    body: &Bytes,
) -> Result<Response, HttpError> {
    let get_only = |req: &Req| {
        if req.method == Method::GET {
            Ok(())
        } else {
            Err(HttpError::MethodNotAllowed)
        }
    };
    if let Some(out) = super::deployments::job_route(st, req, rest, body).await {
        return out;
    }
    if let Some(out) = super::job_ops::job_route(st, req, rest, body).await {
        return out;
    }
    if let Some(id) = rest.strip_suffix("/allocations") {
        get_only(req)?;
        return allocations(st, req, id).await;
    }
    if let Some(id) = rest.strip_suffix("/evaluations") {
        get_only(req)?;
        return evaluations(st, req, id).await;
    }
    if let Some(id) = rest.strip_suffix("/summary") {
        return summary(st, req, id).await;
    }
    if let Some(id) = rest.strip_suffix("/versions") {
        return versions(st, req, id).await;
    }
    match req.method {
        Method::GET => get(st, req, rest).await,
        Method::PUT | Method::POST => register(st, req, body, Some(rest)).await,
        Method::DELETE => deregister(st, req, rest).await,
        _ => Err(HttpError::MethodNotAllowed),
    }
}

async fn list(st: &HttpState, req: &Req) -> Result<Response, HttpError> {
    let server = need_server(st, req)?;
    let ns = req.namespace();
    let prefix = req.prefix();
    let filter = req.filter()?;
    let (meta, stubs) = blocking(server, req, &[Table::Jobs, Table::JobSummaries], |snap| {
        let mut stubs: Vec<JobListStub> = Vec::new();
        for j in snap.jobs(Some(ns)).iter() {
            if !j.id.starts_with(prefix) || !passes(filter.as_ref(), &**j)? {
                continue;
            }
            let summary = snap.job_summary(&j.namespace, &j.id).map(|s| (*s).clone());
            stubs.push(JobListStub::from_job(j, summary));
        }
        Ok((snap.max_index(&[Table::Jobs, Table::JobSummaries]), stubs))
    })
    .await?;
    Ok(json(&stubs, req.pretty(), Some(meta)))
}

async fn get(st: &HttpState, req: &Req, id: &str) -> Result<Response, HttpError> {
    let server = need_server(st, req)?;
    let ns = req.namespace();
    let (meta, job) = blocking(server, req, &[Table::Jobs], |snap| {
        let job = snap.job_by_id(ns, id);
        let index = job
            .as_ref()
            .map(|j| j.modify_index)
            .unwrap_or_else(|| snap.table_index(Table::Jobs));
        Ok((index, job))
    })
    .await?;
    match job {
        Some(job) => Ok(json(&*job, req.pretty(), Some(meta))),
        None => Err(HttpError::not_found(JOB_NOT_FOUND, Some(meta))),
    }
}

/// Register from `PUT /v1/jobs` (`path_id = None`) or `POST /v1/job/<id>`.
async fn register(
    st: &HttpState,
    req: &Req,
    body: &Bytes,
    path_id: Option<&str>,
) -> Result<Response, HttpError> {
    let server = need_server(st, req)?;
    let mut args: JobRegisterRequest = decode(body)?;
    let Some(job) = args.job.as_mut() else {
        return Err(HttpError::BadRequest("Job must be specified".to_string()));
    };
    if job.id.is_empty() {
        return Err(HttpError::BadRequest(
            "Job ID hasn't been provided".to_string(),
        ));
    }
    if path_id.is_some_and(|p| p != job.id) {
        return Err(HttpError::BadRequest(
            "Job ID does not match name".to_string(),
        ));
    }
    // The job's own namespace and region win; the query string fills them in otherwise.
    if job.namespace.is_empty() {
        job.namespace = req.namespace().to_string();
    }
    if job.region.is_empty() {
        job.region = req.region().unwrap_or(&st.agent.region).to_string();
    }
    let out = job_ep::register(server, args).await?;
    let meta = Meta::Write { index: out.index };
    Ok(json(&out, req.pretty(), Some(meta)))
}

async fn deregister(st: &HttpState, req: &Req, id: &str) -> Result<Response, HttpError> {
    let server = need_server(st, req)?;
    let eval_priority = match req.get("eval_priority") {
        None => 0,
        Some(v) => v.parse::<i32>().map_err(|e| {
            HttpError::BadRequest(format!(
                "Failed to parse value of \"eval_priority\" ({v}) as int: {e}"
            ))
        })?,
    };
    let opts = job_ep::DeregisterOptions {
        purge: req.bool("purge")?.unwrap_or(false),
        eval_priority,
        no_shutdown_delay: req.bool("no_shutdown_delay")?.unwrap_or(false),
    };
    let out = job_ep::deregister(server, req.namespace(), id, opts).await?;
    let meta = Meta::Write { index: out.index };
    Ok(json(&out, req.pretty(), Some(meta)))
}

async fn allocations(st: &HttpState, req: &Req, id: &str) -> Result<Response, HttpError> {
    let server = need_server(st, req)?;
    let ns = req.namespace();
    let all = req.flag("all");
    let (meta, stubs) = blocking(server, req, &[Table::Allocs], |snap| {
        let job = snap.job_by_id(ns, id);
        let stubs: Vec<AllocListStub> = snap
            .allocs_for_job(ns, id)
            .iter()
            // Without `all`, allocs left by an earlier job of the same ID (another create
            // index) are hidden, as in Nomad's AllocsByJob.
            .filter(|a| {
                all || match (&job, &a.job) {
                    (Some(cur), Some(aj)) => cur.create_index == aj.create_index,
                    _ => true,
                }
            })
            .map(|a| AllocListStub::from_alloc(a))
            .collect();
        Ok((snap.table_index(Table::Allocs), stubs))
    })
    .await?;
    Ok(json(&stubs, req.pretty(), Some(meta)))
}

async fn evaluations(st: &HttpState, req: &Req, id: &str) -> Result<Response, HttpError> {
    let server = need_server(st, req)?;
    let ns = req.namespace();
    let (meta, evals) = blocking(server, req, &[Table::Evals], |snap| {
        Ok((snap.table_index(Table::Evals), snap.evals_for_job(ns, id)))
    })
    .await?;
    Ok(json(&evals, req.pretty(), Some(meta)))
}

async fn summary(st: &HttpState, req: &Req, id: &str) -> Result<Response, HttpError> {
    let server = need_server(st, req)?;
    let ns = req.namespace();
    let (meta, summary) = blocking(server, req, &[Table::JobSummaries], |snap| {
        let s = snap.job_summary(ns, id);
        let index = s
            .as_ref()
            .map(|s| s.modify_index)
            .unwrap_or_else(|| snap.table_index(Table::JobSummaries));
        Ok((index, s))
    })
    .await?;
    match summary {
        Some(s) => Ok(json(&*s, req.pretty(), Some(meta))),
        None => Err(HttpError::not_found(JOB_NOT_FOUND, Some(meta))),
    }
}

/// Body of `GET /v1/job/<id>/versions` (Nomad's `JobVersionsResponse`).
#[derive(Serialize)]
#[serde(rename_all = "PascalCase")]
struct JobVersions {
    /// With `?diffs=true`: `Diffs[i]` is what changed in `Versions[i]`; null otherwise, and
    /// when there is nothing to diff (Go's nil slice).
    diffs: Option<Vec<JobDiff>>,
    index: u64,
    known_leader: bool,
    last_contact: u64,
    next_token: String,
    versions: Vec<Arc<Job>>,
}

/// `?diffs=true` asks for the diffs; `diff_tag` or else `diff_version` names the version to
/// diff every version against (without either, each is diffed against the one before).
fn diff_base(req: &Req) -> Result<Option<DiffBase>, HttpError> {
    let diffs = req.bool("diffs")?.unwrap_or(false);
    let version = match req.get("diff_version") {
        None => None,
        Some(v) => Some(v.parse::<u64>().map_err(|e| {
            let reason = match e.kind() {
                std::num::IntErrorKind::PosOverflow => "value out of range",
                _ => "invalid syntax",
            };
            HttpError::Internal(format!(
                "Failed to parse value of \"diff_version\" ({v}) as a uint64: \
                 strconv.ParseUint: parsing {v:?}: {reason}"
            ))
        })?),
    };
    if !diffs {
        return Ok(None);
    }
    Ok(Some(match (req.get("diff_tag"), version) {
        (Some(tag), _) => DiffBase::Tag(tag.to_string()),
        (None, Some(v)) => DiffBase::Version(v),
        (None, None) => DiffBase::Previous,
    }))
}

async fn versions(st: &HttpState, req: &Req, id: &str) -> Result<Response, HttpError> {
    let base = diff_base(req)?;
    let server = need_server(st, req)?;
    let ns = req.namespace();
    let (meta, versions) = blocking(server, req, &[Table::JobVersions], |snap| {
        Ok((
            snap.table_index(Table::JobVersions),
            snap.job_versions(ns, id),
        ))
    })
    .await?;
    if versions.is_empty() {
        return Err(HttpError::not_found("job versions not found", Some(meta)));
    }
    let Meta::Query {
        index,
        known_leader,
        last_contact_ms,
    } = meta
    else {
        return Err(HttpError::Internal("query meta expected".to_string()));
    };
    let diffs = match &base {
        Some(base) => {
            version_diffs(&versions, base).map_err(|e| HttpError::Internal(e.to_string()))?
        }
        None => Vec::new(),
    };
    let body = JobVersions {
        diffs: (!diffs.is_empty()).then_some(diffs),
        index,
        known_leader,
        last_contact: last_contact_ms,
        next_token: String::new(),
        versions,
    };
    Ok(json(&body, req.pretty(), Some(meta)))
}

/// Body of `POST /v1/jobs/parse` (Nomad's `api.JobsParseRequest`).
#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
struct ParseRequest {
    #[serde(rename = "JobHCL")]
    job_hcl: String,
    /// The content of a variables file (`name = value` lines).
    variables: String,
    canonicalize: bool,
}

/// HCL to JSON on the server side; answers the bare Job object.
#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
struct ValidateRequest {
    job: Option<Job>,
}

/// `PUT|POST /v1/validate/job`: what registering the job would reject or warn about, without
/// registering it.
pub async fn validate(State(st): State<HttpState>, req: Req, body: Bytes) -> Response {
    validate_inner(&st, &req, &body)
        .await
        .unwrap_or_else(IntoResponse::into_response)
}

async fn validate_inner(st: &HttpState, req: &Req, body: &Bytes) -> Result<Response, HttpError> {
    if req.method != Method::PUT && req.method != Method::POST {
        return Err(HttpError::MethodNotAllowed);
    }
    let server = need_server(st, req)?;
    let args: ValidateRequest = decode(body)?;
    let job = args
        .job
        .ok_or_else(|| HttpError::BadRequest("Job must be specified".to_string()))?;
    let resp = match job_ep::check(server, job) {
        Ok((_, warnings)) => JobValidateResponse {
            driver_config_validated: true,
            warnings: crate::jobspec::format_warnings(&warnings),
            ..Default::default()
        },
        Err(errors) => JobValidateResponse {
            driver_config_validated: true,
            error: crate::jobspec::format_multierror(&errors),
            validation_errors: Some(errors),
            warnings: String::new(),
        },
    };
    Ok(json(&resp, req.pretty(), None))
}

pub async fn parse(req: Req, body: Bytes) -> Response {
    parse_inner(&req, &body)
        .await
        .unwrap_or_else(IntoResponse::into_response)
}

async fn parse_inner(req: &Req, body: &Bytes) -> Result<Response, HttpError> {
    if req.method != Method::PUT && req.method != Method::POST {
        return Err(HttpError::MethodNotAllowed);
    }
    let args: ParseRequest = decode(body)?;
    if args.job_hcl.is_empty() {
        return Err(HttpError::BadRequest("Job spec is empty".to_string()));
    }
    // Nomad reads the variables text as a var file named like the job text.
    let mut vars = crate::jobspec::Variables::default();
    if !args.variables.is_empty() {
        vars.files.push(crate::jobspec::VarFile {
            filename: "input.hcl".to_string(),
            content: args.variables.clone(),
        });
    }
    let (job, presence) =
        crate::jobspec::parse_str_recording_with(&args.job_hcl, "input.hcl", &vars)
            .map_err(|e| HttpError::BadRequest(format!("Failed to parse job: {}", e.problems())))?;
    // Nomad answers its api Job: as parsed, or after the api's Canonicalize.
    let body = if args.canonicalize {
        let mut canonical = job.clone();
        crate::jobspec::canonicalize(&mut canonical);
        crate::jobspec::api_canonical(&job, &canonical, &presence)
    } else {
        crate::jobspec::uncanonicalized(&job, &presence)
    };
    Ok(json(&body.to_value(), req.pretty(), None))
}
