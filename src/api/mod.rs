//! THE data model. Every layer (HTTP, state store, raft, scheduler, client, CLI) uses these
//! types; serde names are Nomad's JSON field names, and fields are declared in the order Nomad
//! prints them (Go's sorted-key JSON), so a struct serialises like Nomad's response.
//!
//! Durations are `i64` nanoseconds and times are `i64` Unix nanoseconds, as in Nomad's JSON.
//! Blocks that no component interprets yet are kept as `serde_json::Value` so they round-trip
//! faithfully; they get real types when the issue that executes them lands.

pub mod alloc;
pub mod alloc_legacy;
pub mod bexpr;
pub mod checks;
pub mod client;
pub mod client_nodes;
pub mod deployment;
pub mod duration;
pub mod eval;
pub mod exec;
pub mod job;
pub mod job_blocks;
pub mod node;
pub mod node_drain;
pub mod omit;
pub mod operator;
pub mod plan;
pub mod service;

pub use alloc::*;
pub use checks::*;
pub use deployment::*;
pub use eval::*;
pub use job::*;
pub use job_blocks::*;
pub use node::*;
pub use node_drain::*;
pub use operator::*;
pub use plan::*;
pub use service::*;

/// Nanoseconds per second, for `Duration` fields that are Go `time.Duration`s.
pub const SECOND: i64 = 1_000_000_000;
pub const MINUTE: i64 = 60 * SECOND;
pub const HOUR: i64 = 60 * MINUTE;

pub const DEFAULT_NAMESPACE: &str = "default";
pub const DEFAULT_REGION: &str = "global";
pub const DEFAULT_NODE_POOL: &str = "default";

/// Current wall-clock time as Unix nanoseconds. Only edges (leader before proposing, client when
/// recording an event) call this; the FSM and the scheduler take time as an argument.
pub fn now_nanos() -> i64 {
    use std::time::{SystemTime, UNIX_EPOCH};
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| d.as_nanos() as i64)
        .unwrap_or(0)
}

/// A new random ID in Nomad's UUID format.
pub fn generate_id() -> String {
    uuid::Uuid::new_v4().to_string()
}

/// First 8 characters of an ID, as the CLI prints it without `-verbose`.
pub fn short_id(id: &str) -> &str {
    match id.char_indices().nth(8) {
        Some((i, _)) => &id[..i],
        None => id,
    }
}

/// Unix nanoseconds as RFC 3339 with nanoseconds, UTC (`2026-12-02T13:13:41.034300764Z`), the
/// way Nomad's JSON prints `time.Time`.
pub fn format_rfc3339(nanos: i64) -> String {
    use chrono::{DateTime, SecondsFormat, Utc};
    DateTime::<Utc>::from_timestamp_nanos(nanos).to_rfc3339_opts(SecondsFormat::AutoSi, true)
}

/// RFC 3339 (as Nomad prints `time.Time`) to Unix nanoseconds; `None` for Go's zero time or
/// text that is not a time.
pub fn parse_rfc3339(s: &str) -> Option<i64> {
    let t = chrono::DateTime::parse_from_rfc3339(s).ok()?;
    if t.timestamp() <= 0 {
        return None;
    }
    t.timestamp_nanos_opt()
}
pub mod diff;
pub mod job_ops;
pub use diff::*;
pub use job_ops::*;
mod client_job_ops;
pub use client_job_ops::{JobVersionsWithDiffs, VersionsOptions};
pub mod cron;
