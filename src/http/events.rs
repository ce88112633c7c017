//! `GET /v1/event/stream`: the server's events as NDJSON (Nomad's `EventStream`): one
//! `{"Index":N,"Events":[...]}` line per raft entry that has matching events, and a `{}`
//! heartbeat line at once and every 30 seconds. `?topic=Topic[:key]` (repeatable), `?index=`
//! (start at that raft index, replaying what the buffer holds) and `?namespace=` filter.
//! A subscriber too slow to keep up has its stream ended.

use std::time::Duration;

use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{header, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use tokio_util::sync::CancellationToken;

use super::error::HttpError;
use super::query::{need_server, Req};
use super::HttpState;
use crate::server::events::{EventFilter, Subscription};

const HEARTBEAT: Duration = Duration::from_secs(30);

pub async fn stream(State(st): State<HttpState>, req: Req) -> Response {
    open(&st, &req).unwrap_or_else(IntoResponse::into_response)
}

fn open(st: &HttpState, req: &Req) -> Result<Response, HttpError> {
    if req.method != Method::GET {
        return Err(HttpError::MethodNotAllowed);
    }
    let server = need_server(st, req)?;
    let index = match req.get("index") {
        Some(v) => v
            .parse::<u64>()
            .map_err(|e| HttpError::BadRequest(format!("Unable to parse index: {e}")))?,
        None => 0,
    };
    let topics: Vec<&str> = req
        .params
        .iter()
        .filter(|(k, v)| k == "topic" && !v.is_empty())
        .map(|(_, v)| v.as_str())
        .collect();
    let filter = EventFilter::parse(&topics, req.namespace());
    let sub = server.events().subscribe(index);
    let shutdown = req.shutdown.clone().unwrap_or_default();
    let body = Body::from_stream(lines(sub, filter, shutdown));
    Ok((
        StatusCode::OK,
        [(header::CONTENT_TYPE, "application/json")],
        body,
    )
        .into_response())
}

struct StreamState {
    sub: Subscription,
    filter: EventFilter,
    shutdown: CancellationToken,
    started: bool,
    /// When the last line went out; a heartbeat follows 30s of silence.
    last_sent: tokio::time::Instant,
}

fn lines(
    sub: Subscription,
    filter: EventFilter,
    shutdown: CancellationToken,
) -> impl futures::Stream<Item = Result<Bytes, std::io::Error>> + Send + 'static {
    let state = StreamState {
        sub,
        filter,
        shutdown,
        started: false,
        last_sent: tokio::time::Instant::now(),
    };
    futures::stream::unfold(state, |mut s| async move {
        if !s.started {
            s.started = true;
            return Some((Ok(Bytes::from_static(b"{}\n")), s));
        }
        let line = next_line(&mut s).await?;
        s.last_sent = tokio::time::Instant::now();
        Some((Ok(line), s))
    })
}

/// The next line to write; `None` ends the stream (shutdown, or a dropped subscriber).
async fn next_line(s: &mut StreamState) -> Option<Bytes> {
    loop {
        let batch = tokio::select! {
            _ = s.shutdown.cancelled() => return None,
            _ = tokio::time::sleep_until(s.last_sent + HEARTBEAT) => return Some(Bytes::from_static(b"{}\n")),
            b = s.sub.next() => match b {
                Ok(b) => b,
                Err(e) => {
                    tracing::debug!(error = %e, "event stream subscriber closed");
                    return None;
                }
            },
        };
        let Some(matched) = s.filter.apply(&batch) else {
            continue;
        };
        match serde_json::to_vec(&matched) {
            Ok(mut line) => {
                line.push(b'\n');
                return Some(Bytes::from(line));
            }
            Err(e) => {
                tracing::warn!(error = %e, "encoding event batch");
                return None;
            }
        }
    }
}
