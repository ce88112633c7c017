//! openraft glue: redb log store, snapshots, and the raft node every server runs (a one-node
//! cluster in dev mode, so dev and production share the code path).
//!
//! - `log_store.rs`: `RaftLogStorage` in redb (entries, vote, committed, last purged).
//! - `state_machine.rs`: `RaftStateMachine` over `Arc<dyn Fsm>`, snapshots via `snapshot_file.rs`.
//! - `network.rs`: outbound transports (`SingleNodeNetwork` for now).
//! - here: `RaftHandle`, the only thing the rest of the server uses.
//!
//! Lifecycle: `RaftHandle::start` opens storage, loads the newest snapshot into the FSM, lets
//! openraft re-apply committed log entries, bootstraps a single-voter cluster if the store is
//! pristine and makes a single voter leader at once. `shutdown` must be called before the
//! process exits or the data dir is reopened: it stops raft, makes the committed index durable
//! and releases the redb file lock.

mod log_store;
mod network;
mod snapshot_file;
mod state_machine;
#[cfg(test)]
mod tests;

use std::collections::BTreeMap;
use std::io::Cursor;
use std::path::PathBuf;
use std::sync::{Arc, Mutex as StdMutex};
use std::time::{Duration, Instant};

use openraft::error::{ClientWriteError, Fatal, InitializeError, RaftError as OpenraftError};
use openraft::raft::{
    AppendEntriesRequest, AppendEntriesResponse, InstallSnapshotRequest, InstallSnapshotResponse,
    VoteRequest, VoteResponse,
};
use openraft::{
    BasicNode, ChangeMembers, Config, Raft, RaftMetrics, RaftNetworkFactory, ServerState,
    SnapshotPolicy, StorageError,
};
use tokio::sync::{oneshot, watch};
use tokio::task::JoinHandle;

pub use network::{NoTransport, SingleNodeNetwork};

use crate::server::fsm::{ApplyResponse, Command, Fsm};
use log_store::LogStore;
use state_machine::{SnapshotGate, StateMachine};

openraft::declare_raft_types!(
    /// The raft types of nomad-rs: the log carries `Command`s, apply yields `ApplyResponse`s.
    pub TypeConfig:
        // Shared, so the log store's cache, the writer and the state machine hold one copy.
        D = Arc<Command>,
        R = ApplyResponse,
        NodeId = u64,
        Node = BasicNode,
        Entry = openraft::Entry<TypeConfig>,
        SnapshotData = Cursor<Vec<u8>>,
        AsyncRuntime = openraft::TokioRuntime,
);

/// Heartbeat and election timeouts (ms). Short, as in Nomad's LAN defaults scaled down: a
/// single node elects itself at once anyway, and on a LAN a follower notices a dead leader
/// within 150-300 ms.
const HEARTBEAT_MS: u64 = 50;
const ELECTION_MIN_MS: u64 = 150;
const ELECTION_MAX_MS: u64 = 300;
/// How long `start` waits for a single voter to become leader before returning anyway.
const SINGLE_NODE_LEADER_WAIT: Duration = Duration::from_secs(5);

/// Errors of the raft layer.
#[derive(Debug, thiserror::Error)]
pub enum RaftError {
    /// This server is not the leader; `leader` is the leader's RPC address if one is known.
    #[error("not the raft leader (leader: {})", leader.as_deref().unwrap_or("unknown"))]
    NotLeader { leader: Option<String> },
    #[error("raft log store {path}: {source}")]
    LogStore {
        path: String,
        #[source]
        source: redb::Error,
    },
    #[error("corrupt raft snapshot {}: {reason}", path.display())]
    CorruptSnapshot { path: PathBuf, reason: String },
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    // openraft's error types are large (200+ bytes); boxed to keep `Result`s small.
    #[error("invalid raft config: {0}")]
    Config(Box<openraft::ConfigError>),
    /// Raft stopped, or its storage failed (the message names the file).
    #[error("raft stopped: {0}")]
    Fatal(Box<Fatal<u64>>),
    #[error("raft storage: {0}")]
    Storage(Box<StorageError<u64>>),
    #[error("bootstrapping the raft cluster: {0}")]
    Bootstrap(Box<InitializeError<u64, BasicNode>>),
    #[error("raft membership change: {0}")]
    Membership(Box<openraft::error::ChangeMembershipError<u64>>),
    #[error("raft background task: {0}")]
    Join(#[from] tokio::task::JoinError),
}

impl From<openraft::ConfigError> for RaftError {
    fn from(e: openraft::ConfigError) -> Self {
        RaftError::Config(Box::new(e))
    }
}

impl From<Fatal<u64>> for RaftError {
    fn from(e: Fatal<u64>) -> Self {
        RaftError::Fatal(Box::new(e))
    }
}

impl From<StorageError<u64>> for RaftError {
    fn from(e: StorageError<u64>) -> Self {
        RaftError::Storage(Box::new(e))
    }
}

/// How to run this server's raft node.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RaftConfig {
    /// This server's raft id; must be stable across restarts of one data dir.
    pub node_id: u64,
    /// The advertised RPC address peers reach this server at (reported by `peers()`).
    pub addr: String,
    /// State lives in `<data_dir>/raft/`; None keeps everything in memory (dev mode).
    pub data_dir: Option<PathBuf>,
    /// Build a snapshot after this many applied entries since the last one.
    pub snapshot_logs: u64,
    /// Entries already in a snapshot to keep in the log (for followers that lag a little);
    /// older ones are purged.
    pub trailing_logs: u64,
}

impl RaftConfig {
    /// A config with the default snapshot policy (every 10,000 entries, purge all behind it).
    pub fn new(node_id: u64, addr: impl Into<String>, data_dir: Option<PathBuf>) -> RaftConfig {
        RaftConfig {
            node_id,
            addr: addr.into(),
            data_dir,
            snapshot_logs: 10_000,
            trailing_logs: 0,
        }
    }

    fn openraft_config(&self) -> Result<Config, RaftError> {
        Ok(Config {
            cluster_name: "nomad".to_string(),
            heartbeat_interval: HEARTBEAT_MS,
            election_timeout_min: ELECTION_MIN_MS,
            election_timeout_max: ELECTION_MAX_MS,
            snapshot_policy: SnapshotPolicy::LogsSinceLast(self.snapshot_logs.max(1)),
            max_in_snapshot_log_to_keep: self.trailing_logs,
            ..Config::default()
        }
        .validate()?)
    }
}

/// A few raft numbers for `/v1/agent/self` and debugging.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RaftStats {
    pub state: String,
    pub term: u64,
    pub last_log_index: u64,
    pub applied_index: u64,
    pub snapshot_index: u64,
}

/// The running raft node. Cheap to clone; all clones drive the same node.
#[derive(Clone)]
pub struct RaftHandle {
    inner: Arc<Inner>,
}

struct Inner {
    raft: Raft<TypeConfig>,
    /// Taken by `shutdown` to flush it and release the redb file lock.
    log_store: StdMutex<Option<LogStore>>,
    /// Closed by `shutdown` so no detached snapshot build writes after it returns.
    snapshot_gate: SnapshotGate,
    leadership: watch::Receiver<bool>,
    /// The leadership watcher task and its stop signal; None once shut down.
    watcher: tokio::sync::Mutex<Option<(oneshot::Sender<()>, JoinHandle<()>)>>,
    started: Instant,
    /// When a leader last reached us (set by the inbound RPC handlers).
    last_contact: StdMutex<Option<Instant>>,
}

impl RaftHandle {
    /// Starts raft with no peers (dev mode, or a one-server cluster).
    pub async fn start(cfg: RaftConfig, fsm: Arc<dyn Fsm>) -> Result<RaftHandle, RaftError> {
        Self::start_with_network(cfg, fsm, SingleNodeNetwork).await
    }

    /// Starts raft with the given outbound transport.
    pub async fn start_with_network<N>(
        cfg: RaftConfig,
        fsm: Arc<dyn Fsm>,
        network: N,
    ) -> Result<RaftHandle, RaftError>
    where
        N: RaftNetworkFactory<TypeConfig>,
    {
        let started = Instant::now();
        let config = Arc::new(cfg.openraft_config()?);
        let raft_dir = cfg.data_dir.as_ref().map(|d| d.join("raft"));
        let (log_store, sm) = tokio::task::spawn_blocking(move || {
            let (db, snapshots) = match &raft_dir {
                Some(dir) => {
                    std::fs::create_dir_all(dir).map_err(|source| RaftError::Io {
                        path: dir.clone(),
                        source,
                    })?;
                    (Some(dir.join("raft.db")), Some(dir.join("snapshots")))
                }
                None => (None, None),
            };
            let log_store = LogStore::open(db.as_deref())?;
            let mut sm = StateMachine::open(fsm, snapshots.as_deref())?;
            sm.report_applied_to(log_store.applied_hook());
            Ok::<_, RaftError>((log_store, sm))
        })
        .await??;
        tracing::debug!(store = log_store.location(), "raft storage opened");
        let snapshot_gate = sm.gate();

        let raft = Raft::new(cfg.node_id, config, network, log_store.clone(), sm).await?;
        let me = BasicNode::new(cfg.addr.clone());
        if !raft.is_initialized().await? {
            match raft
                .initialize(BTreeMap::from([(cfg.node_id, me.clone())]))
                .await
            {
                Ok(()) => {}
                // Lost a race with a leader that already contacted us: fine, we are in a cluster.
                Err(OpenraftError::APIError(InitializeError::NotAllowed(_))) => {}
                Err(OpenraftError::APIError(e)) => return Err(RaftError::Bootstrap(Box::new(e))),
                Err(OpenraftError::Fatal(f)) => return Err(f.into()),
            }
        }
        become_single_leader(&raft, cfg.node_id, &me).await?;

        let (stop_tx, stop_rx) = oneshot::channel();
        // Seeded with the current state so a receiver taken right after `start` already
        // reads `true` on a single node.
        let (lead_tx, lead_rx) = watch::channel(leads(&raft.metrics().borrow()));
        let watcher = tokio::spawn(watch_leadership(raft.metrics(), lead_tx, stop_rx));
        tracing::info!(
            node_id = cfg.node_id,
            elapsed_ms = started.elapsed().as_millis() as u64,
            "raft started"
        );
        Ok(RaftHandle {
            inner: Arc::new(Inner {
                raft,
                log_store: StdMutex::new(Some(log_store)),
                snapshot_gate,
                leadership: lead_rx,
                watcher: tokio::sync::Mutex::new(Some((stop_tx, watcher))),
                started,
                last_contact: StdMutex::new(None),
            }),
        })
    }

    /// Proposes a command and waits until it is committed and applied here.
    pub async fn propose(&self, cmd: Command) -> Result<ApplyResponse, RaftError> {
        match self.inner.raft.client_write(Arc::new(cmd)).await {
            Ok(resp) => Ok(resp.data),
            Err(OpenraftError::APIError(ClientWriteError::ForwardToLeader(f))) => {
                Err(RaftError::NotLeader {
                    leader: f.leader_node.map(|n| n.addr),
                })
            }
            Err(OpenraftError::APIError(ClientWriteError::ChangeMembershipError(e))) => {
                Err(RaftError::Membership(Box::new(e)))
            }
            Err(OpenraftError::Fatal(f)) => Err(f.into()),
        }
    }

    fn metrics(&self) -> RaftMetrics<u64, BasicNode> {
        self.inner.raft.metrics().borrow().clone()
    }

    /// Whether this server is the leader right now.
    pub fn is_leader(&self) -> bool {
        leads(&self.inner.raft.metrics().borrow())
    }

    /// The leader's advertised RPC address, if a leader is known.
    pub fn leader_addr(&self) -> Option<String> {
        let m = self.metrics();
        let leader = m.current_leader?;
        m.membership_config
            .membership()
            .get_node(&leader)
            .map(|n| n.addr.clone())
    }

    /// The advertised RPC addresses of the voters, ordered by node id.
    pub fn peers(&self) -> Vec<String> {
        let m = self.metrics();
        let membership = m.membership_config.membership();
        membership
            .voter_ids()
            .filter_map(|id| membership.get_node(&id).map(|n| n.addr.clone()))
            .collect()
    }

    /// Remove every other server advertised at `addr` from the raft membership (voters are
    /// demoted first, then dropped), as `server force-leave` does for a failed server. This
    /// server itself is never removed. Returns whether any server was removed; only the leader
    /// can change the membership.
    pub async fn remove_server(&self, addr: &str) -> Result<bool, RaftError> {
        let m = self.metrics();
        let membership = m.membership_config.membership();
        let ids: std::collections::BTreeSet<u64> = membership
            .nodes()
            .filter(|(id, n)| n.addr == addr && **id != m.id)
            .map(|(id, _)| *id)
            .collect();
        if ids.is_empty() {
            return Ok(false);
        }
        let voters: std::collections::BTreeSet<u64> = membership
            .voter_ids()
            .filter(|id| ids.contains(id))
            .collect();
        if !voters.is_empty() {
            self.change_membership(ChangeMembers::RemoveVoters(voters))
                .await?;
        }
        self.change_membership(ChangeMembers::RemoveNodes(ids))
            .await?;
        Ok(true)
    }

    async fn change_membership(
        &self,
        change: ChangeMembers<u64, BasicNode>,
    ) -> Result<(), RaftError> {
        match self.inner.raft.change_membership(change, false).await {
            Ok(_) => Ok(()),
            Err(OpenraftError::APIError(ClientWriteError::ChangeMembershipError(e))) => {
                Err(RaftError::Membership(Box::new(e)))
            }
            Err(OpenraftError::APIError(ClientWriteError::ForwardToLeader(f))) => {
                Err(RaftError::NotLeader {
                    leader: f.leader_node.map(|n| n.addr),
                })
            }
            Err(OpenraftError::Fatal(f)) => Err(f.into()),
        }
    }

    /// Time since the leader last reached this server; zero on the leader. Before any contact
    /// it is the time since start.
    pub fn last_contact(&self) -> Duration {
        if self.is_leader() {
            return Duration::ZERO;
        }
        let last = match self.inner.last_contact.lock() {
            Ok(g) => *g,
            Err(poisoned) => *poisoned.into_inner(),
        };
        last.unwrap_or(self.inner.started).elapsed()
    }

    /// `true` while this server is leader. The receiver sees every gain and loss (it starts at
    /// the current value); it reads `false` after shutdown.
    pub fn leadership(&self) -> watch::Receiver<bool> {
        self.inner.leadership.clone()
    }

    /// A few raft numbers for status endpoints.
    pub fn stats(&self) -> RaftStats {
        let m = self.metrics();
        RaftStats {
            state: format!("{:?}", m.state),
            term: m.current_term,
            last_log_index: m.last_log_index.unwrap_or(0),
            applied_index: m.last_applied.map(|l| l.index).unwrap_or(0),
            snapshot_index: m.snapshot.map(|l| l.index).unwrap_or(0),
        }
    }

    /// Inbound AppendEntries from a leader (for a transport's server side).
    pub async fn append_entries(
        &self,
        rpc: AppendEntriesRequest<TypeConfig>,
    ) -> Result<AppendEntriesResponse<u64>, OpenraftError<u64>> {
        self.touch_contact();
        self.inner.raft.append_entries(rpc).await
    }

    /// Inbound RequestVote from a candidate (for a transport's server side).
    pub async fn vote(
        &self,
        rpc: VoteRequest<u64>,
    ) -> Result<VoteResponse<u64>, OpenraftError<u64>> {
        self.inner.raft.vote(rpc).await
    }

    /// Inbound InstallSnapshot chunk from a leader (for a transport's server side).
    pub async fn install_snapshot(
        &self,
        rpc: InstallSnapshotRequest<TypeConfig>,
    ) -> Result<
        InstallSnapshotResponse<u64>,
        OpenraftError<u64, openraft::error::InstallSnapshotError>,
    > {
        self.touch_contact();
        self.inner.raft.install_snapshot(rpc).await
    }

    fn touch_contact(&self) {
        match self.inner.last_contact.lock() {
            Ok(mut g) => *g = Some(Instant::now()),
            Err(poisoned) => *poisoned.into_inner() = Some(Instant::now()),
        }
    }

    /// Stops raft, makes the committed index durable and releases the data dir. Idempotent;
    /// every later call on any clone fails with `RaftError::Fatal(Stopped)`.
    pub async fn shutdown(&self) -> Result<(), RaftError> {
        let Some((stop, watcher)) = self.inner.watcher.lock().await.take() else {
            return Ok(());
        };
        self.inner.raft.shutdown().await?;
        self.inner.snapshot_gate.close().await;
        let _ = stop.send(());
        watcher.await?;
        let store = match self.inner.log_store.lock() {
            Ok(mut g) => g.take(),
            Err(poisoned) => poisoned.into_inner().take(),
        };
        if let Some(store) = store {
            store.flush().await?;
        }
        Ok(())
    }
}

/// If this node is the only voter, make it leader now instead of after an election timeout, and
/// keep its advertised address current (it may change between dev-mode runs).
async fn become_single_leader(
    raft: &Raft<TypeConfig>,
    node_id: u64,
    me: &BasicNode,
) -> Result<(), RaftError> {
    // Ask the core, not the metrics: right after `initialize` the metrics may not show the
    // new membership yet.
    let (voters, stored, state) = raft
        .with_raft_state(move |st| {
            let effective = st.membership_state.effective();
            (
                effective.voter_ids().collect::<Vec<u64>>(),
                effective.get_node(&node_id).cloned(),
                st.server_state,
            )
        })
        .await?;
    if voters != [node_id] {
        return Ok(());
    }
    // A follower would wait a whole election timeout first; a candidate (just initialised)
    // or leader (restored at startup) needs no push.
    if state == ServerState::Follower {
        raft.trigger().elect().await?;
    }
    if let Err(e) = raft
        .wait(Some(SINGLE_NODE_LEADER_WAIT))
        .metrics(leads, "single voter elects itself")
        .await
    {
        tracing::warn!(error = %e, "raft: single voter is not leader yet");
        return Ok(());
    }
    if stored.as_ref() != Some(me) {
        match raft
            .change_membership(
                ChangeMembers::SetNodes(BTreeMap::from([(node_id, me.clone())])),
                false,
            )
            .await
        {
            Ok(_) => {}
            Err(OpenraftError::APIError(ClientWriteError::ChangeMembershipError(e))) => {
                return Err(RaftError::Membership(Box::new(e)))
            }
            Err(OpenraftError::APIError(ClientWriteError::ForwardToLeader(f))) => {
                return Err(RaftError::NotLeader {
                    leader: f.leader_node.map(|n| n.addr),
                })
            }
            Err(OpenraftError::Fatal(f)) => return Err(f.into()),
        }
    }
    Ok(())
}

fn leads(m: &RaftMetrics<u64, BasicNode>) -> bool {
    m.state == ServerState::Leader && m.current_leader == Some(m.id)
}

/// Mirrors `state == Leader` from raft's metrics into `tx` until raft stops or `stop` fires.
async fn watch_leadership(
    mut metrics: watch::Receiver<RaftMetrics<u64, BasicNode>>,
    tx: watch::Sender<bool>,
    mut stop: oneshot::Receiver<()>,
) {
    loop {
        let leader = leads(&metrics.borrow_and_update());
        if tx.send_if_modified(|v| std::mem::replace(v, leader) != leader) {
            tracing::info!(leader, "raft leadership changed");
        }
        tokio::select! {
            changed = metrics.changed() => if changed.is_err() { break },
            _ = &mut stop => break,
        }
    }
    tx.send_if_modified(|v| std::mem::replace(v, false));
}
