//! `GET /v1/client/fs/{ls,stat,cat,readat,stream}/<alloc>?path=...`: browse an alloc dir as
//! Nomad does. Paths are confined to the alloc dir by `client::fs` (no `..` or symlink
//! escapes, no reading of secrets). `stream` writes Nomad's `StreamFrame`s back to back
//! (`{"Data":base64,"File":path,"Offset":n}`, `{}` heartbeats, `FileEvent` on truncation or
//! deletion) and follows the file by default.

use std::path::PathBuf;
use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::rejection::PathRejection;
use axum::extract::{Path, State};
use axum::http::{header, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use base64::Engine;
use futures::Stream;
use serde::Serialize;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::error::HttpError;
use super::query::{parse_go_bool, Req};
use super::respond::json;
use super::HttpState;
use crate::client::fs::{self, FsError};

const FRAME_SIZE: u64 = 64 * 1024;
const HEARTBEAT: Duration = Duration::from_secs(1);
const POLL: Duration = Duration::from_millis(100);

#[derive(Debug, Clone, Copy)]
enum Op {
    Ls,
    Stat,
    Cat,
    ReadAt,
    Stream,
}

impl From<FsError> for HttpError {
    fn from(e: FsError) -> Self {
        match e.status() {
            400 => HttpError::BadRequest(e.to_string()),
            404 => HttpError::not_found(&e.to_string(), None),
            _ => HttpError::Internal(e.to_string()),
        }
    }
}

pub async fn ls(
    st: State<HttpState>,
    p: Result<Path<String>, PathRejection>,
    req: Req,
) -> Response {
    handle(st, p, req, Op::Ls).await
}

pub async fn stat(
    st: State<HttpState>,
    p: Result<Path<String>, PathRejection>,
    req: Req,
) -> Response {
    handle(st, p, req, Op::Stat).await
}

pub async fn cat(
    st: State<HttpState>,
    p: Result<Path<String>, PathRejection>,
    req: Req,
) -> Response {
    handle(st, p, req, Op::Cat).await
}

pub async fn readat(
    st: State<HttpState>,
    p: Result<Path<String>, PathRejection>,
    req: Req,
) -> Response {
    handle(st, p, req, Op::ReadAt).await
}

pub async fn stream(
    st: State<HttpState>,
    p: Result<Path<String>, PathRejection>,
    req: Req,
) -> Response {
    handle(st, p, req, Op::Stream).await
}

async fn handle(
    State(st): State<HttpState>,
    path: Result<Path<String>, PathRejection>,
    req: Req,
    op: Op,
) -> Response {
    inner(&st, path, &req, op)
        .await
        .unwrap_or_else(IntoResponse::into_response)
}

fn parse_i64(req: &Req, key: &str) -> Result<Option<i64>, HttpError> {
    match req.get(key) {
        None => Ok(None),
        Some(v) => v.parse().map(Some).map_err(|_| {
            HttpError::BadRequest(format!(
                "error parsing {key}: strconv.ParseInt: parsing {v:?}: invalid syntax"
            ))
        }),
    }
}

async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, FsError> + Send + 'static,
) -> Result<T, HttpError> {
    tokio::task::spawn_blocking(f)
        .await
        .map_err(|e| HttpError::Internal(e.to_string()))?
        .map_err(HttpError::from)
}

fn raw(bytes: Vec<u8>) -> Response {
    (
        StatusCode::OK,
        [(header::CONTENT_TYPE, "text/plain; charset=utf-8")],
        bytes,
    )
        .into_response()
}

async fn inner(
    st: &HttpState,
    path: Result<Path<String>, PathRejection>,
    req: &Req,
    op: Op,
) -> Result<Response, HttpError> {
    if req.method != Method::GET {
        return Err(HttpError::MethodNotAllowed);
    }
    let alloc_id = path
        .map(|Path(p)| p)
        .map_err(|e| HttpError::BadRequest(e.body_text()))?;
    if alloc_id.is_empty() {
        return Err(HttpError::BadRequest(
            "must provide a valid alloc id".into(),
        ));
    }
    let Some(client) = st.client_ops.clone() else {
        return Err(HttpError::NoClient);
    };
    let rel = match (op, req.get("path")) {
        (Op::Ls | Op::Stat, None) => "/".to_string(),
        (_, None) => return Err(HttpError::BadRequest("must provide a file name".into())),
        (_, Some(p)) => p.to_string(),
    };
    let root = client.alloc_dir(&alloc_id)?;
    match op {
        Op::Ls => {
            let files = blocking(move || fs::list(&root, &rel)).await?;
            Ok(json(&files, req.pretty(), None))
        }
        Op::Stat => {
            let info = blocking(move || fs::stat(&root, &rel)).await?;
            Ok(json(&info, req.pretty(), None))
        }
        Op::Cat => Ok(raw(
            blocking(move || fs::read_at(&root, &rel, 0, None)).await?
        )),
        Op::ReadAt => {
            let offset = parse_i64(req, "offset")?.unwrap_or(0).max(0) as u64;
            let limit = parse_i64(req, "limit")?
                .filter(|l| *l > 0)
                .map(|l| l as u64);
            Ok(raw(blocking(move || {
                fs::read_at(&root, &rel, offset, limit)
            })
            .await?))
        }
        Op::Stream => start_stream(root, rel, req).await,
    }
}

async fn start_stream(root: PathBuf, rel: String, req: &Req) -> Result<Response, HttpError> {
    let follow = match req.get("follow") {
        None => true,
        Some(v) => parse_go_bool(v).ok_or_else(|| {
            HttpError::Internal(format!(
                "failed to parse follow field to boolean: strconv.ParseBool: parsing {v:?}: invalid syntax"
            ))
        })?,
    };
    let offset = parse_i64(req, "offset")?.unwrap_or(0);
    let from_end = match req.get("origin") {
        None | Some("start") => false,
        Some("end") => true,
        Some(_) => return Err(HttpError::BadRequest("origin must be start or end".into())),
    };
    let (r, p) = (root.clone(), rel.clone());
    let size = blocking(move || fs::open_at(&r, &p, 0).map(|(_, size)| size)).await?;
    let start = if from_end {
        size.saturating_sub(offset.max(0) as u64)
    } else {
        (offset.max(0) as u64).min(size)
    };
    let s = FileStreamer {
        root,
        rel,
        offset: start,
        follow,
        pending_event: None,
        last_sent: Instant::now(),
        shutdown: req.shutdown.clone(),
        done: false,
    };
    Ok((
        StatusCode::OK,
        [(header::CONTENT_TYPE, "application/json")],
        Body::from_stream(s.into_stream()),
    )
        .into_response())
}

/// Nomad's `StreamFrame`; empty fields are left out, so a heartbeat is `{}`.
#[derive(Serialize)]
pub struct StreamFrame<'a> {
    #[serde(rename = "Data", skip_serializing_if = "String::is_empty")]
    pub data: String,
    #[serde(rename = "File", skip_serializing_if = "str::is_empty")]
    pub file: &'a str,
    #[serde(rename = "FileEvent", skip_serializing_if = "str::is_empty")]
    pub file_event: &'a str,
    #[serde(rename = "Offset", skip_serializing_if = "is_zero")]
    pub offset: u64,
}

fn is_zero(n: &u64) -> bool {
    *n == 0
}

struct FileStreamer {
    root: PathBuf,
    rel: String,
    offset: u64,
    follow: bool,
    pending_event: Option<&'static str>,
    last_sent: Instant,
    shutdown: Option<CancellationToken>,
    done: bool,
}

enum Read {
    Data(Vec<u8>),
    /// At the end; the file's current size.
    Eof(u64),
    Gone,
}

impl FileStreamer {
    fn into_stream(self) -> impl Stream<Item = Result<Bytes, std::io::Error>> + Send + 'static {
        futures::stream::unfold(self, |mut s| async move {
            let item = s.next_chunk().await?;
            Some((Ok(item), s))
        })
    }

    fn frame(&mut self, data: &[u8], event: &str, heartbeat: bool) -> Bytes {
        self.last_sent = Instant::now();
        let file = if heartbeat { "" } else { self.rel.as_str() };
        let f = StreamFrame {
            data: base64::engine::general_purpose::STANDARD.encode(data),
            file,
            file_event: event,
            offset: if heartbeat { 0 } else { self.offset },
        };
        Bytes::from(serde_json::to_vec(&f).unwrap_or_default())
    }

    async fn read(&self) -> Read {
        let (root, rel, offset) = (self.root.clone(), self.rel.clone(), self.offset);
        let res = tokio::task::spawn_blocking(move || -> Read {
            use std::io::Read as _;
            match fs::open_at(&root, &rel, offset) {
                Ok((f, size)) => {
                    let mut buf = Vec::new();
                    match f.take(FRAME_SIZE).read_to_end(&mut buf) {
                        Ok(0) | Err(_) => Read::Eof(size),
                        Ok(_) => Read::Data(buf),
                    }
                }
                Err(_) => Read::Gone,
            }
        })
        .await;
        res.unwrap_or(Read::Gone)
    }

    async fn idle(&self) -> bool {
        match &self.shutdown {
            Some(t) => tokio::select! {
                _ = tokio::time::sleep(POLL) => true,
                _ = t.cancelled() => false,
            },
            None => {
                tokio::time::sleep(POLL).await;
                true
            }
        }
    }

    async fn next_chunk(&mut self) -> Option<Bytes> {
        loop {
            if self.done {
                return None;
            }
            match self.read().await {
                Read::Data(d) => {
                    self.offset += d.len() as u64;
                    let event = self.pending_event.take().unwrap_or("");
                    return Some(self.frame(&d, event, false));
                }
                Read::Gone => {
                    self.done = true;
                    return self.follow.then(|| self.frame(&[], "file deleted", false));
                }
                Read::Eof(size) => {
                    if !self.follow {
                        self.done = true;
                        return None;
                    }
                    if size < self.offset {
                        self.offset = 0;
                        self.pending_event = Some("file truncated");
                        continue;
                    }
                    if let Some(event) = self.pending_event.take() {
                        return Some(self.frame(&[], event, false));
                    }
                    if self.last_sent.elapsed() >= HEARTBEAT {
                        return Some(self.frame(&[], "", true));
                    }
                    if !self.idle().await {
                        self.done = true;
                        return None;
                    }
                }
            }
        }
    }
}
