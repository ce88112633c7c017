//! Query-string options shared by every endpoint (Nomad's `QueryOptions`) and the blocking
//! query loop.

use std::sync::Arc;
use std::time::Duration;

use axum::extract::{FromRequestParts, Query as AxumQuery};
use axum::http::request::Parts;
use axum::http::Method;
use rand::Rng;
use tokio_util::sync::CancellationToken;

use super::error::HttpError;
use super::respond::Meta;
use super::HttpState;
use crate::api::bexpr::Filter;
use crate::api::DEFAULT_NAMESPACE;
use crate::server::state::{StateSnapshot, Table};
use crate::server::Server;

/// Nomad's `defaultQueryTime` and `maxQueryTime`.
const DEFAULT_WAIT: Duration = Duration::from_secs(5 * 60);
const MAX_WAIT: Duration = Duration::from_secs(10 * 60);
/// Nomad adds up to wait/16 of random jitter so that many waiters do not wake together.
const JITTER_FRACTION: u32 = 16;

/// Fires when the HTTP server shuts down, so blocking queries and log streams end instead of
/// holding graceful shutdown open. Absent when the router is driven without `serve` (tests).
#[derive(Clone, Debug)]
pub struct Shutdown(pub CancellationToken);

/// The parts of a request every handler reads: method, query parameters and the shutdown
/// signal.
#[derive(Debug, Clone)]
pub struct Req {
    pub method: Method,
    pub params: Vec<(String, String)>,
    pub shutdown: Option<CancellationToken>,
}

impl<S: Send + Sync> FromRequestParts<S> for Req {
    type Rejection = HttpError;

    async fn from_request_parts(parts: &mut Parts, _state: &S) -> Result<Self, Self::Rejection> {
        // A query string that is not valid urlencoding is a client error, as in Go's
        // url.ParseQuery (which Nomad mostly ignores; we refuse it clearly instead).
        let AxumQuery(params) = AxumQuery::<Vec<(String, String)>>::try_from_uri(&parts.uri)
            .map_err(|e| HttpError::BadRequest(e.body_text()))?;
        let shutdown = parts.extensions.get::<Shutdown>().map(|s| s.0.clone());
        Ok(Req {
            method: parts.method.clone(),
            params,
            shutdown,
        })
    }
}

impl Req {
    /// The first value of `key`, like Go's `url.Values.Get`; `None` when absent or empty.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(k, _)| k == key)
            .map(|(_, v)| v.as_str())
            .filter(|v| !v.is_empty())
    }

    pub fn has(&self, key: &str) -> bool {
        self.params.iter().any(|(k, _)| k == key)
    }

    /// `?pretty`, `?pretty=true`, anything but `?pretty=0` (Nomad's rule).
    pub fn pretty(&self) -> bool {
        self.params
            .iter()
            .find(|(k, _)| k == "pretty")
            .is_some_and(|(_, v)| v != "0")
    }

    /// `?namespace=`, defaulting to "default"; `*` means every namespace in lists.
    pub fn namespace(&self) -> &str {
        self.get("namespace").unwrap_or(DEFAULT_NAMESPACE)
    }

    pub fn prefix(&self) -> &str {
        self.get("prefix").unwrap_or("")
    }

    /// `?filter=`: a go-bexpr expression over each listed object, refused with Nomad's 400
    /// text when it does not parse.
    pub fn filter(&self) -> Result<Option<Filter>, HttpError> {
        self.get("filter")
            .map(|f| {
                Filter::parse(f).map_err(|e| {
                    HttpError::BadRequest(format!(
                        "failed to create result paginator: failed to read filter expression: {e}"
                    ))
                })
            })
            .transpose()
    }

    pub fn region(&self) -> Option<&str> {
        self.get("region")
    }

    /// A boolean parameter with Go's `strconv.ParseBool` spelling and Nomad's error text.
    pub fn bool(&self, key: &str) -> Result<Option<bool>, HttpError> {
        let Some(v) = self.get(key) else {
            return Ok(None);
        };
        parse_go_bool(v).map(Some).ok_or_else(|| {
            HttpError::Internal(format!(
                "Failed to parse value of {key:?} ({v}) as a bool: strconv.ParseBool: parsing {v:?}: invalid syntax"
            ))
        })
    }

    /// A boolean flag that is false when absent or unparsable (Nomad ignores the error for
    /// flags such as `all`, `resources` and `task_states`).
    pub fn flag(&self, key: &str) -> bool {
        self.get(key).and_then(parse_go_bool).unwrap_or(false)
    }

    /// `?index=` and `?wait=` as (min index, max wait with jitter); 400 on bad values with
    /// Nomad's texts.
    pub fn blocking(&self) -> Result<(u64, Duration), HttpError> {
        let wait = match self.get("wait") {
            None => None,
            Some(w) => Some(
                parse_go_duration(w)
                    .ok_or_else(|| HttpError::BadRequest("Invalid wait time".to_string()))?,
            ),
        };
        let index = match self.get("index") {
            None => 0,
            Some(i) => i
                .parse::<u64>()
                .map_err(|_| HttpError::BadRequest("Invalid index".to_string()))?,
        };
        let wait = match wait {
            Some(w) if w > 0 => Duration::from_nanos(u64::try_from(w).unwrap_or(u64::MAX)),
            _ => DEFAULT_WAIT,
        }
        .min(MAX_WAIT);
        let jitter_max = wait / JITTER_FRACTION;
        let jitter = if jitter_max.is_zero() {
            Duration::ZERO
        } else {
            rand::rng().random_range(Duration::ZERO..=jitter_max)
        };
        Ok((index, wait + jitter))
    }
}

/// Go's `strconv.ParseBool`.
pub fn parse_go_bool(v: &str) -> Option<bool> {
    match v {
        "1" | "t" | "T" | "TRUE" | "true" | "True" => Some(true),
        "0" | "f" | "F" | "FALSE" | "false" | "False" => Some(false),
        _ => None,
    }
}

/// Go's `time.ParseDuration` ("300ms", "1.5h", "2h45m", "-1s", "0") in nanoseconds.
pub fn parse_go_duration(s: &str) -> Option<i128> {
    crate::api::duration::parse_go_duration(s)
        .ok()
        .map(i128::from)
}

/// The server an endpoint needs; a client-only agent has none to answer from. A `?region=`
/// other than the agent's gets Nomad's forwarding error: this agent knows no other region.
pub fn need_server<'a>(st: &'a HttpState, req: &Req) -> Result<&'a Server, HttpError> {
    if req.region().is_some_and(|r| r != st.agent.region) {
        return Err(HttpError::Internal("No path to region".to_string()));
    }
    st.server.as_ref().ok_or(HttpError::NoServers)
}

/// Nomad's blocking query: run `query` on the newest snapshot; while the index it reports is
/// not past `?index=`, wait for one of `tables` to change (or the wait to pass) and run it again.
/// On timeout the last answer is returned with its index, as Nomad does (no 304).
pub async fn blocking<T>(
    server: &Server,
    req: &Req,
    tables: &[Table],
    query: impl Fn(&StateSnapshot) -> Result<(u64, T), HttpError>,
) -> Result<(Meta, T), HttpError> {
    let (min_index, wait) = req.blocking()?;
    let store = server.state();
    let deadline = tokio::time::Instant::now() + wait;
    let mut snap: Arc<StateSnapshot> = store.snapshot();
    loop {
        let (index, out) = query(&snap)?;
        let now = tokio::time::Instant::now();
        if min_index == 0 || index > min_index || now >= deadline {
            return Ok((Meta::query(server, index), out));
        }
        let seen = snap.max_index(tables);
        let wait_change = store.wait_for(tables, seen, deadline - now);
        snap = match &req.shutdown {
            Some(token) => tokio::select! {
                s = wait_change => s,
                _ = token.cancelled() => return Ok((Meta::query(server, index), out)),
            },
            None => wait_change.await,
        };
    }
}

/// Whether `item` passes the request's filter (every item passes without one); an object the
/// expression cannot be evaluated against is a 400, as Nomad's paginator reports it.
pub fn passes<T: serde::Serialize>(filter: Option<&Filter>, item: &T) -> Result<bool, HttpError> {
    match filter {
        None => Ok(true),
        Some(f) => f
            .matches_item(item)
            .map_err(|e| HttpError::BadRequest(format!("failed to read result page: {e}"))),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_durations() {
        assert_eq!(parse_go_duration("5m"), Some(300_000_000_000));
        assert_eq!(parse_go_duration("1s"), Some(1_000_000_000));
        assert_eq!(parse_go_duration("100ms"), Some(100_000_000));
        assert_eq!(parse_go_duration("1h2m3s"), Some(3_723_000_000_000));
        assert_eq!(parse_go_duration("1.5s"), Some(1_500_000_000));
        assert_eq!(parse_go_duration("-2s"), Some(-2_000_000_000));
        assert_eq!(parse_go_duration("0"), Some(0));
        for bad in ["", "5", "s", "5x", "1..2s", "-", "ms5"] {
            assert_eq!(parse_go_duration(bad), None, "{bad}");
        }
    }

    #[test]
    fn go_bools() {
        assert_eq!(parse_go_bool("T"), Some(true));
        assert_eq!(parse_go_bool("False"), Some(false));
        assert_eq!(parse_go_bool("yes"), None);
    }
}
