//! The server: raft, the state store, the FSM, endpoints and the leader's control loops.
//!
//! ```text
//!  endpoints ──propose──> raft ──apply──> ServerFsm ──> StateStore (tables)
//!                                            │
//!                                            └─ new pending/blocked evals ─> leader: broker
//!  worker: broker.dequeue -> snapshot -> scheduler -> plan_apply (re-check, propose) -> ack
//! ```
//! `Server` owns every long-lived task it starts and joins them on `shutdown`.

pub mod blocked_evals;
pub mod core_gc;
mod deployment_watcher;
mod drainer;
pub mod endpoints;
mod error;
pub mod eval_broker;
pub mod events;
mod events_from;
pub mod fsm;
mod heartbeat;
pub mod join;
mod leader;
pub mod periodic;
mod plan_apply;
pub mod raft;
pub mod rpc;
mod rpc_local;
pub mod state;
mod worker;

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

pub use error::ServerError;
pub use rpc_local::InProcessRpc;

use eval_broker::{EvalBroker, EvalBrokerConfig, SystemClock};
use fsm::{ApplyResponse, Command, Fsm};
use heartbeat::Heartbeater;
use raft::{RaftConfig, RaftHandle};
use state::StateStore;

#[derive(Debug, Clone)]
pub struct ServerConfig {
    pub node_name: String,
    pub region: String,
    pub datacenter: String,
    /// `None` in `-dev` without `-data-dir`: raft keeps its log in memory.
    pub data_dir: Option<PathBuf>,
    /// Advertised RPC address (raft peers).
    pub rpc_addr: String,
    /// Scheduler workers. Nomad defaults to one per core; ours default to
    /// [`WORKERS_PER_CORE`] per core (see there).
    pub num_schedulers: usize,
    pub bootstrap_expect: u32,
    /// Nomad's `min_heartbeat_ttl` (10s) and `heartbeat_grace` (10s).
    pub min_heartbeat_ttl: Duration,
    pub heartbeat_grace: Duration,
    pub max_heartbeats_per_second: f64,
    /// Core GC thresholds and interval (`server { job_gc_threshold ... }`).
    pub gc: core_gc::GcThresholds,
}

impl Default for ServerConfig {
    fn default() -> Self {
        ServerConfig {
            node_name: "nomad".to_string(),
            region: crate::api::DEFAULT_REGION.to_string(),
            datacenter: "dc1".to_string(),
            data_dir: None,
            rpc_addr: "127.0.0.1:4647".to_string(),
            num_schedulers: std::thread::available_parallelism()
                .map(|n| n.get())
                .unwrap_or(1)
                * WORKERS_PER_CORE,
            bootstrap_expect: 1,
            min_heartbeat_ttl: Duration::from_secs(10),
            heartbeat_grace: Duration::from_secs(10),
            max_heartbeats_per_second: 50.0,
            gc: core_gc::GcThresholds::default(),
        }
    }
}

/// Default scheduler workers per core. A worker spends most of an eval waiting for its plan's
/// raft commit (the log's fsync and the apply), not computing: scheduling runs on the blocking
/// pool and is a few milliseconds for a 100-alloc job over 5,000 nodes. With Nomad's one
/// worker per core the cores sat idle during those waits; `cargo bench --bench scheduler`
/// (5,000 nodes, 100k placements, 2 cores) placed ~20k/s with 2 workers and ~23.5k/s with 8
/// (16 gave no more). More workers mean more plans in flight against the same nodes, which
/// the plan applier already checks against each other (see `plan_apply.rs`).
pub const WORKERS_PER_CORE: usize = 4;

/// A handle to the running server. Cheap to clone.
#[derive(Clone)]
pub struct Server {
    inner: Arc<Inner>,
}

struct Inner {
    config: ServerConfig,
    state: Arc<StateStore>,
    raft: RaftHandle,
    broker: Arc<EvalBroker>,
    heartbeats: Heartbeater,
    blocked: Mutex<blocked_evals::BlockedEvals>,
    plans: plan_apply::PlanQueue,
    shutdown: CancellationToken,
    tasks: Mutex<JoinSet<()>>,
    events: Arc<events::EventBroker>,
}

/// The FSM raft drives: the state store, plus routing of the evals each command creates to
/// the leader's broker. Routing happens after apply and never changes state.
struct ServerFsm {
    state: Arc<StateStore>,
    evals: tokio::sync::mpsc::UnboundedSender<Vec<crate::api::Evaluation>>,
    /// Every applied entry's events, for `/v1/event/stream`.
    events: Arc<events::EventBroker>,
}

impl Fsm for ServerFsm {
    fn apply(&self, index: u64, cmd: &Command) -> ApplyResponse {
        let mut resps = self.apply_all(&[(index, cmd)]);
        resps.pop().unwrap_or(ApplyResponse {
            index,
            error: String::new(),
        })
    }

    /// One new version of the state for the whole run; the evals and events of each command
    /// are taken from the state right after it, and handed on once the version is published.
    fn apply_all(&self, cmds: &[(u64, &Command)]) -> Vec<ApplyResponse> {
        let mut routed = Vec::new();
        let mut events = Vec::new();
        let resps = self.state.write(|s| {
            cmds.iter()
                .map(|&(index, cmd)| {
                    // Only events of removed rows look at the state before the command; a
                    // copy (which makes the next writes copy what they touch) only then.
                    let before = events_from::needs_before(cmd).then(|| s.clone());
                    let resp = fsm::apply_one(s, index, cmd);
                    if resp.error.is_empty() {
                        routed.extend(leader::evals_to_route(cmd, s));
                        events.push(events_from::for_command(
                            cmd,
                            index,
                            before.as_ref().unwrap_or(s),
                            s,
                        ));
                    }
                    resp
                })
                .collect()
        });
        if !routed.is_empty() {
            // The receiver lives as long as the server; a send error means shutdown.
            let _ = self.evals.send(routed);
        }
        for batch in events {
            self.events.publish(batch);
        }
        resps
    }
    fn snapshot(&self) -> Vec<u8> {
        Fsm::snapshot(&*self.state)
    }
    fn restore(&self, data: &[u8]) -> Result<(), String> {
        self.state.restore(data)
    }
    fn last_applied(&self) -> u64 {
        self.state.last_applied()
    }
}

impl Server {
    /// Start raft (restoring state from `data_dir`), the plan applier, the workers and the
    /// leadership loop.
    pub async fn start(config: ServerConfig) -> Result<Server, ServerError> {
        let state = Arc::new(StateStore::new());
        let (eval_tx, eval_rx) = tokio::sync::mpsc::unbounded_channel();
        let events = Arc::new(events::EventBroker::new());
        let fsm = Arc::new(ServerFsm {
            state: state.clone(),
            evals: eval_tx,
            events: events.clone(),
        });
        let raft = RaftHandle::start(
            RaftConfig::new(
                1,
                config.rpc_addr.clone(),
                config.data_dir.as_ref().map(|d| d.join("server")),
            ),
            fsm,
        )
        .await?;
        let shutdown = CancellationToken::new();
        let (plans, plan_rx) = plan_apply::PlanQueue::new();
        let heartbeats = Heartbeater::new(&config);
        let server = Server {
            inner: Arc::new(Inner {
                config,
                state,
                raft,
                broker: Arc::new(EvalBroker::new(
                    EvalBrokerConfig::default(),
                    Arc::new(SystemClock),
                )),
                heartbeats,
                blocked: Mutex::new(blocked_evals::BlockedEvals::new()),
                plans,
                shutdown,
                tasks: Mutex::new(JoinSet::new()),
                events,
            }),
        };
        server.spawn(plan_apply::run(server.clone(), plan_rx));
        server.spawn(leader::run(server.clone(), eval_rx));
        server.spawn(heartbeat::run(server.clone()));
        server.spawn(core_gc::run(server.clone(), server.config().gc));
        server.spawn(drainer::run(server.clone()));
        server.spawn(periodic::run(server.clone(), Arc::new(SystemClock)));
        for i in 0..server.inner.config.num_schedulers.max(1) {
            server.spawn(worker::run(server.clone(), i as u64));
        }
        Ok(server)
    }

    fn spawn(&self, fut: impl std::future::Future<Output = ()> + Send + 'static) {
        if let Ok(mut tasks) = self.inner.tasks.lock() {
            tasks.spawn(fut);
        }
    }

    pub fn config(&self) -> &ServerConfig {
        &self.inner.config
    }

    pub fn state(&self) -> &Arc<StateStore> {
        &self.inner.state
    }

    pub fn raft(&self) -> &RaftHandle {
        &self.inner.raft
    }

    pub(crate) fn broker(&self) -> &Arc<EvalBroker> {
        &self.inner.broker
    }

    pub(crate) fn shutdown_token(&self) -> &CancellationToken {
        &self.inner.shutdown
    }

    /// The event stream's broker.
    pub fn events(&self) -> &Arc<events::EventBroker> {
        &self.inner.events
    }

    pub fn is_leader(&self) -> bool {
        self.inner.raft.is_leader()
    }

    /// Propose one command and wait until it is applied here.
    pub async fn propose(&self, cmd: Command) -> Result<ApplyResponse, ServerError> {
        if self.inner.shutdown.is_cancelled() {
            return Err(ServerError::Shutdown);
        }
        let resp = self.inner.raft.propose(cmd).await?;
        if !resp.error.is_empty() {
            return Err(ServerError::Apply(resp.error));
        }
        Ok(resp)
    }

    /// Restart a node's heartbeat timer; returns the TTL to hand the client.
    pub(crate) fn heartbeat_reset(&self, node_id: &str) -> Duration {
        self.inner
            .heartbeats
            .reset(node_id, self.inner.state.snapshot().node_count())
    }

    pub(crate) fn heartbeats(&self) -> &Heartbeater {
        &self.inner.heartbeats
    }

    /// Capacity of a node class changed (a node became ready, an alloc finished): blocked
    /// evals may now fit.
    pub(crate) fn unblock_evals(&self, computed_class: &str, index: u64) {
        leader::unblock(self, computed_class, index);
    }

    /// Run `f` on the blocked-evals tracker under its lock.
    pub(crate) fn blocked<R>(&self, f: impl FnOnce(&mut blocked_evals::BlockedEvals) -> R) -> R {
        match self.inner.blocked.lock() {
            Ok(mut b) => f(&mut b),
            Err(p) => f(&mut p.into_inner()),
        }
    }

    pub(crate) fn plans(&self) -> &plan_apply::PlanQueue {
        &self.inner.plans
    }

    /// The in-process `ServerRpc` for the dev agent's client.
    pub fn rpc(&self) -> Arc<dyn rpc::ServerRpc> {
        Arc::new(InProcessRpc::new(self.clone()))
    }

    /// Stop every loop, wait for them, then stop raft.
    pub async fn shutdown(&self) {
        self.inner.shutdown.cancel();
        let mut tasks = match self.inner.tasks.lock() {
            Ok(mut t) => std::mem::take(&mut *t),
            Err(_) => JoinSet::new(),
        };
        while tasks.join_next().await.is_some() {}
        if let Err(e) = self.inner.raft.shutdown().await {
            tracing::warn!(error = %e, "raft shutdown");
        }
    }
}

#[cfg(test)]
mod node_drain_tests;
#[cfg(test)]
mod plan_apply_tests;
#[cfg(test)]
mod system_tests;
#[cfg(test)]
mod tests;

#[cfg(test)]
mod core_gc_tests;
