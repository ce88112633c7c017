//! `GET /v1/client/fs/logs/<alloc>`: a task's stdout/stderr, plain or as Nomad's framed
//! stream, optionally followed.
//!
//! The client owns the files; it hands them over through [`LogSource`], which only lists a
//! task's rotated log files and reads byte ranges. Everything Nomad-specific (choosing the
//! file and offset for `origin`/`offset`, following across rotations, truncation and delete
//! events, `StreamFrame` encoding, heartbeats) lives in `log_stream`.

use async_trait::async_trait;
use axum::body::{Body, Bytes};
use axum::extract::rejection::PathRejection;
use axum::extract::{Path, State};
use axum::http::{header, Method, StatusCode};
use axum::response::{IntoResponse, Response};

use super::error::HttpError;
use super::log_stream::{find_closest, Origin, Streamer};
use super::query::Req;
use super::HttpState;

/// Which of a task's two log streams.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LogType {
    Stdout,
    Stderr,
}

impl LogType {
    pub fn as_str(self) -> &'static str {
        match self {
            LogType::Stdout => "stdout",
            LogType::Stderr => "stderr",
        }
    }
}

/// One rotated log file, `alloc/logs/<task>.<type>.<index>` in the alloc dir.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LogFile {
    pub index: u64,
    /// Current size in bytes.
    pub size: u64,
}

/// Why logs cannot be read. The texts and codes are Nomad's.
#[derive(Debug, Clone, thiserror::Error, PartialEq, Eq)]
pub enum LogError {
    /// 404: the client does not run this alloc.
    #[error("Unknown allocation {0:?}")]
    UnknownAlloc(String),
    /// 400: the alloc has no such task.
    #[error("unknown task name {0:?}")]
    UnknownTask(String),
    /// 404: the task has not started, so it has no logs.
    #[error("task {0:?} not started yet. No logs available")]
    TaskNotStarted(String),
    /// The file was rotated away (or deleted) between listing and reading. Not an HTTP
    /// answer by itself: the streamer lists again and carries on.
    #[error("log file {0} does not exist")]
    FileGone(String),
    /// 404: no log file of this task and type exists.
    #[error("log entry for task {task:?} and log type {log_type:?} not found")]
    NoLogs { task: String, log_type: String },
    /// 500: reading failed.
    #[error("{0}")]
    Io(String),
}

impl LogError {
    pub fn status(&self) -> StatusCode {
        match self {
            LogError::UnknownTask(_) => StatusCode::BAD_REQUEST,
            LogError::UnknownAlloc(_) | LogError::TaskNotStarted(_) | LogError::NoLogs { .. } => {
                StatusCode::NOT_FOUND
            }
            LogError::FileGone(_) | LogError::Io(_) => StatusCode::INTERNAL_SERVER_ERROR,
        }
    }
}

/// The client's view of its tasks' log files. The client implements it over its alloc
/// dirs; it must check that `task` belongs to `alloc_id` (so no path is built from an
/// unknown name).
#[async_trait]
pub trait LogSource: Send + Sync {
    /// The files `alloc/logs/<task>.<type>.<n>` as they are now, in any order. An empty list
    /// is fine (no output yet); errors: `UnknownAlloc`, `UnknownTask`, `TaskNotStarted`, `Io`.
    async fn list(
        &self,
        alloc_id: &str,
        task: &str,
        log_type: LogType,
    ) -> Result<Vec<LogFile>, LogError>;

    /// Up to `max` bytes of file `index` from byte `offset`; fewer or none at the end of the
    /// file. `FileGone` if the file no longer exists.
    async fn read(
        &self,
        alloc_id: &str,
        task: &str,
        log_type: LogType,
        index: u64,
        offset: u64,
        max: usize,
    ) -> Result<Bytes, LogError>;
}

/// Everything one logs request asks for, after validation.
#[derive(Debug, Clone)]
pub struct LogRequest {
    pub alloc_id: String,
    pub task: String,
    pub log_type: LogType,
    pub follow: bool,
    pub plain: bool,
    pub origin: Origin,
    pub offset: i64,
}

fn parse_request(alloc_id: String, req: &Req) -> Result<LogRequest, HttpError> {
    let bad = |m: &str| HttpError::BadRequest(m.to_string());
    if alloc_id.is_empty() {
        return Err(bad("must provide a valid alloc id"));
    }
    let Some(task) = req.get("task") else {
        return Err(bad("must provide task name"));
    };
    let parse_flag = |key: &str| -> Result<bool, HttpError> {
        match req.get(key) {
            None => Ok(false),
            Some(v) => super::query::parse_go_bool(v).ok_or_else(|| {
                HttpError::BadRequest(format!(
                    "failed to parse {key} field to boolean: strconv.ParseBool: parsing {v:?}: invalid syntax"
                ))
            }),
        }
    };
    let follow = parse_flag("follow")?;
    let plain = parse_flag("plain")?;
    let log_type = match req.get("type") {
        Some("stdout") => LogType::Stdout,
        Some("stderr") => LogType::Stderr,
        _ => return Err(bad("must provide log type (stdout/stderr)")),
    };
    let offset = match req.get("offset") {
        None => 0,
        Some(v) => v.parse::<i64>().map_err(|_| {
            HttpError::BadRequest(format!(
                "error parsing offset: strconv.ParseInt: parsing {v:?}: invalid syntax"
            ))
        })?,
    };
    let origin = match req.get("origin") {
        None | Some("start") => Origin::Start,
        Some("end") => Origin::End,
        Some(_) => return Err(bad("origin must be start or end")),
    };
    Ok(LogRequest {
        alloc_id,
        task: task.to_string(),
        log_type,
        follow,
        plain,
        origin,
        offset,
    })
}

pub async fn logs(
    State(st): State<HttpState>,
    path: Result<Path<String>, PathRejection>,
    req: Req,
) -> Response {
    logs_inner(&st, path, &req)
        .await
        .unwrap_or_else(IntoResponse::into_response)
}

async fn logs_inner(
    st: &HttpState,
    path: Result<Path<String>, PathRejection>,
    req: &Req,
) -> Result<Response, HttpError> {
    if req.method != Method::GET {
        return Err(HttpError::MethodNotAllowed);
    }
    let alloc_id = path
        .map(|Path(p)| p)
        .map_err(|e| HttpError::BadRequest(e.body_text()))?;
    let lr = parse_request(alloc_id, req)?;
    let Some(source) = st.client_logs.clone() else {
        return Err(HttpError::NoClient);
    };
    // Resolve the first file before answering, so a bad alloc, task or missing log gets its
    // status code instead of a 200 with an empty stream.
    let files = source.list(&lr.alloc_id, &lr.task, lr.log_type).await?;
    let (index, offset) =
        find_closest(&files, lr.origin, lr.offset).ok_or_else(|| LogError::NoLogs {
            task: lr.task.clone(),
            log_type: lr.log_type.as_str().to_string(),
        })?;
    let content_type = if lr.plain {
        "text/plain"
    } else {
        "application/json"
    };
    let streamer = Streamer::new(source, lr, &files, index, offset, req.shutdown.clone());
    Ok((
        StatusCode::OK,
        [(header::CONTENT_TYPE, content_type)],
        Body::from_stream(streamer.into_stream()),
    )
        .into_response())
}
