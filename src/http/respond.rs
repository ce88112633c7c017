//! Encoding responses the way Nomad's `wrap` does: compact JSON with no trailing newline, or
//! with `?pretty` a 4-space indent and a final newline; query metadata in `X-Nomad-*` headers.

use axum::http::{header, HeaderValue, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::Serialize;

use super::error::HttpError;
use crate::server::Server;

/// Query metadata (Nomad's `QueryMeta`) or a write's index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Meta {
    /// Reads: `X-Nomad-Index`, `X-Nomad-KnownLeader`, `X-Nomad-LastContact`.
    Query {
        index: u64,
        known_leader: bool,
        last_contact_ms: u64,
    },
    /// Writes: only `X-Nomad-Index`.
    Write { index: u64 },
}

impl Meta {
    /// Nomad's `setQueryMeta`: a leader reports contact 0; a follower the time since it last
    /// heard from the leader.
    pub fn query(server: &Server, index: u64) -> Meta {
        let leader = server.is_leader();
        let known_leader = leader || server.raft().leader_addr().is_some();
        let last_contact_ms = if leader {
            0
        } else {
            u64::try_from(server.raft().last_contact().as_millis()).unwrap_or(u64::MAX)
        };
        Meta::Query {
            index,
            known_leader,
            last_contact_ms,
        }
    }

    pub fn apply(&self, resp: &mut Response) {
        let h = resp.headers_mut();
        match *self {
            Meta::Query {
                index,
                known_leader,
                last_contact_ms,
            } => {
                h.insert("X-Nomad-Index", HeaderValue::from(index));
                h.insert(
                    "X-Nomad-KnownLeader",
                    HeaderValue::from_static(if known_leader { "true" } else { "false" }),
                );
                h.insert("X-Nomad-LastContact", HeaderValue::from(last_contact_ms));
            }
            Meta::Write { index } => {
                h.insert("X-Nomad-Index", HeaderValue::from(index));
            }
        }
    }
}

/// Encode `body` as Nomad does (see the module doc).
pub fn encode<T: Serialize + ?Sized>(body: &T, pretty: bool) -> Result<Vec<u8>, HttpError> {
    if pretty {
        let mut buf = Vec::with_capacity(256);
        let fmt = serde_json::ser::PrettyFormatter::with_indent(b"    ");
        let mut ser = serde_json::Serializer::with_formatter(&mut buf, fmt);
        body.serialize(&mut ser)
            .map_err(|e| HttpError::Internal(e.to_string()))?;
        buf.push(b'\n');
        Ok(buf)
    } else {
        serde_json::to_vec(body).map_err(|e| HttpError::Internal(e.to_string()))
    }
}

/// A 200 JSON response with optional metadata headers.
pub fn json<T: Serialize + ?Sized>(body: &T, pretty: bool, meta: Option<Meta>) -> Response {
    match encode(body, pretty) {
        Ok(bytes) => {
            let mut resp = (
                StatusCode::OK,
                [(header::CONTENT_TYPE, "application/json")],
                bytes,
            )
                .into_response();
            if let Some(m) = meta {
                m.apply(&mut resp);
            }
            resp
        }
        Err(e) => e.into_response(),
    }
}
