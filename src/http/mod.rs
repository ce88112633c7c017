//! The /v1 HTTP API (axum), shaped like Nomad's: the same paths, JSON bodies, status codes,
//! `X-Nomad-*` headers and plain-text error bodies.
//!
//! ```text
//!  request ─> router ─> handler ─> query::Query (index, wait, namespace, prefix, pretty)
//!                          │            └─> query::blocking (StateStore::wait_for) ─> snapshot
//!                          └─> server::endpoints::* for writes
//!  handler result ─> respond::json (compact or ?pretty, X-Nomad-Index/KnownLeader/LastContact)
//!  errors ─> error::HttpError ─> text/plain body with Nomad's status code
//! ```
//! Sensitive fields (Node.SecretID) are stripped by `sanitize` before anything is encoded.
//! This module owns no state: it reads snapshots and calls endpoint functions; it must not
//! write to the state store or raft directly.

mod agent;
mod agent_join;
mod body;
pub mod client_alloc;
pub mod client_api;
pub mod client_exec;
pub mod client_fs;
mod deployments;
mod error;
mod events;
mod job_ops;
mod jobs;
mod log_stream;
mod logs;
mod node_drain;
mod node_meta;
mod objects;
mod operator;
mod query;
mod respond;
mod sanitize;
mod serve;
mod services;
mod system;

#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::sync::Arc;

use axum::extract::DefaultBodyLimit;
use axum::routing::any;
use axum::{Extension, Router};
use tokio_util::sync::CancellationToken;

use crate::server::Server;

pub use error::HttpError;
pub use log_stream::Origin;
pub use logs::{LogError, LogFile, LogRequest, LogSource, LogType};

/// What the handlers need: the server (absent on a client-only agent), the client's log files
/// (absent on a server-only agent) and facts about the agent itself.
#[derive(Clone)]
pub struct HttpState {
    pub server: Option<Server>,
    pub client_logs: Option<Arc<dyn LogSource>>,
    pub agent: Arc<AgentInfo>,
    /// The client's alloc dirs, stats, restart/signal and exec (absent without a client).
    pub client_ops: Option<Arc<dyn client_api::ClientOps>>,
}

/// Facts about this agent for `/v1/agent/*`, `/v1/regions` and `/v1/status/*`. The agent
/// builds it once at start; nothing here changes while the agent runs.
#[derive(Debug, Clone, Default)]
pub struct AgentInfo {
    /// `name` (Nomad's `NodeName`, the hostname by default).
    pub node_name: String,
    pub region: String,
    pub datacenter: String,
    /// `nomad version` string, e.g. "0.1.0".
    pub version: String,
    /// Advertised addresses, "ip:port".
    pub http_addr: String,
    pub rpc_addr: String,
    pub serf_addr: String,
    /// Informational: the handlers go by `HttpState::server` for server answers.
    pub server_enabled: bool,
    /// A client without known servers reports itself unhealthy.
    pub client_enabled: bool,
    /// The agent's effective configuration, printed as `config` by `/v1/agent/self`. The agent
    /// redacts tokens before handing it over.
    pub config: serde_json::Value,
    /// The member tags `/v1/agent/members` and `/v1/agent/self` print (`id`, `expect`,
    /// `bootstrap`, `raft_vsn`...); `role`, `region`, `dc`, `build`, `port` and `rpc_addr` are
    /// filled in from the fields above when absent.
    pub member_tags: BTreeMap<String, String>,
    /// The client's node ID once it is known (for `stats.client`).
    pub client_node_id: Option<String>,
    /// Servers the client talks to ("ip:port"); an enabled client with none is unhealthy.
    pub known_servers: Vec<String>,
}

/// The largest request body accepted.
const MAX_BODY: usize = 64 * 1024 * 1024;

/// Every /v1 route. Paths that take an ID with sub-resources are matched by suffix the way
/// Nomad does (`/v1/job/<id>/allocations`), so IDs keep any characters Nomad allows.
pub fn router(state: HttpState) -> Router {
    Router::new()
        .route("/v1/jobs", any(jobs::jobs))
        .route("/v1/jobs/parse", any(jobs::parse))
        .route("/v1/validate/job", any(jobs::validate))
        .route("/v1/job/{*rest}", any(jobs::job_specific))
        .route("/v1/allocations", any(objects::allocs_list))
        .route("/v1/allocation/{*rest}", any(objects::alloc_specific))
        .route("/v1/nodes", any(objects::nodes_list))
        .route("/v1/node/{*rest}", any(node_drain::node_specific))
        .route("/v1/evaluations", any(objects::evals_list))
        .route("/v1/evaluations/count", any(objects::evals_count))
        .route("/v1/deployments", any(deployments::list))
        .route("/v1/deployment/{*rest}", any(deployments::specific))
        .route("/v1/evaluation/{*rest}", any(objects::eval_specific))
        .route("/v1/status/leader", any(agent::status_leader))
        .route("/v1/status/peers", any(agent::status_peers))
        .route("/v1/regions", any(agent::regions))
        .route("/v1/agent/self", any(agent::agent_self))
        .route("/v1/agent/health", any(agent::health))
        .route("/v1/agent/members", any(agent::members))
        .route("/v1/agent/join", any(agent_join::join))
        .route("/v1/agent/force-leave", any(agent_join::force_leave))
        .route(
            "/v1/operator/scheduler/configuration",
            any(operator::scheduler_configuration),
        )
        .route("/v1/client/fs/logs/{*alloc}", any(logs::logs))
        .route("/v1/system/gc", any(system::gc))
        .route("/v1/services", any(services::list))
        .route("/v1/service/{*rest}", any(services::specific))
        .route(
            "/v1/system/reconcile/summaries",
            any(system::reconcile_summaries),
        )
        .route("/v1/event/stream", any(events::stream))
        .route("/v1/client/metadata", any(node_meta::metadata))
        .route("/v1/client/fs/ls/{*alloc}", any(client_fs::ls))
        .route("/v1/client/fs/stat/{*alloc}", any(client_fs::stat))
        .route("/v1/client/fs/cat/{*alloc}", any(client_fs::cat))
        .route("/v1/client/fs/readat/{*alloc}", any(client_fs::readat))
        .route("/v1/client/fs/stream/{*alloc}", any(client_fs::stream))
        .route(
            "/v1/client/allocation/{*rest}",
            any(client_alloc::allocation),
        )
        .route("/v1/client/stats", any(client_alloc::host_stats))
        // Nomad answers an unknown path with a bare 404 and no body.
        .fallback(|| async { axum::http::StatusCode::NOT_FOUND })
        // Job bodies with big templates exceed axum's 2 MB default.
        .layer(DefaultBodyLimit::max(MAX_BODY))
        .with_state(state)
}

/// Serve `router` on `listener` until `shutdown` fires. In-flight requests finish first;
/// blocking queries answer at once and log streams end, so shutdown is not held up.
pub async fn serve(
    listener: tokio::net::TcpListener,
    router: Router,
    shutdown: CancellationToken,
) -> std::io::Result<()> {
    let router = router.layer(Extension(query::Shutdown(shutdown.clone())));
    serve::run(listener, router, shutdown).await
}
