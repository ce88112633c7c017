//! The node agent: fingerprints the node, registers and heartbeats, watches its allocations
//! and runs them through alloc and task runners, and serves task logs to the HTTP layer.
//!
//! Talks to servers only through `ServerRpc`. Owns every tokio task it starts: the main
//! task (registration, then the alloc watcher), the heartbeater and the update batcher are
//! all joined by `ClientHandle::shutdown`.

pub mod alloc_dir;
pub mod alloc_health;
pub mod alloc_runner;
pub mod alloc_status;
pub mod alloc_updates;
pub mod alloc_watcher;
pub mod checks;
pub mod config;
pub mod control;
pub mod dispatch_payload;
pub mod fingerprint;
pub mod fs;
pub mod heartbeat;
pub mod host_stats;
pub mod lifecycle;
pub mod node_meta;
pub mod services;
pub mod state;
pub mod task_runner;
pub mod taskenv;
pub mod template;

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use tokio::sync::mpsc;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::api::Node;
use crate::drivers::DriverRegistry;
use crate::server::rpc::ServerRpc;
pub use config::{ClientConfig, ReservedResources};

#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    #[error(transparent)]
    Fingerprint(#[from] fingerprint::FingerprintError),
    #[error(transparent)]
    State(#[from] state::StateError),
    #[error("failed to create client directory {path}: {source}")]
    DataDir {
        path: String,
        source: std::io::Error,
    },
}

pub struct Client;

/// The running client. Dropping it without `shutdown` leaves its tasks running until the
/// runtime stops; call `shutdown` to stop cleanly.
pub struct ClientHandle {
    node: Arc<Node>,
    /// Dynamic node metadata (`/v1/client/metadata`).
    meta: Arc<node_meta::NodeMeta>,
    cfg: Arc<ClientConfig>,
    shutdown: CancellationToken,
    stop_tasks: Arc<AtomicBool>,
    main: JoinHandle<()>,
    index: control::AllocIndex,
}

impl Client {
    /// Fingerprints the node and starts the client in the background: registration (retried
    /// until a server answers), heartbeats, the alloc watcher and the update batcher.
    pub async fn start(
        cfg: ClientConfig,
        rpc: Arc<dyn ServerRpc>,
    ) -> Result<ClientHandle, ClientError> {
        for dir in [cfg.alloc_root(), cfg.state_dir()] {
            std::fs::create_dir_all(&dir).map_err(|source| ClientError::DataDir {
                path: dir.display().to_string(),
                source,
            })?;
        }
        let mut cfg = cfg;
        (cfg.network_interface, cfg.network_ip) =
            fingerprint::network::resolve(&cfg.network_interface, &cfg.network_ip);
        // Dev agents keep nothing: their tasks are stopped with them.
        let state = if cfg.dev_mode {
            None
        } else {
            Some(Arc::new(state::StateDb::open(&cfg.state_dir())?))
        };
        let drivers = DriverRegistry::from_config(&cfg.drivers);
        let node = fingerprint::fingerprint(&cfg, &drivers).await?;
        let (meta, node) = node_meta::NodeMeta::load(cfg.state_dir(), node, rpc.clone());
        let node = Arc::new(node);
        let meta = Arc::new(meta);
        let cfg = Arc::new(cfg);
        let shutdown = CancellationToken::new();
        let stop_tasks = Arc::new(AtomicBool::new(false));
        let index = control::AllocIndex::default();
        let main = tokio::spawn(run(Parts {
            index: index.clone(),
            rpc,
            node: node.clone(),
            meta: meta.clone(),
            cfg: cfg.clone(),
            drivers,
            shutdown: shutdown.clone(),
            stop_tasks: stop_tasks.clone(),
            state,
        }));
        Ok(ClientHandle {
            node,
            meta,
            cfg,
            shutdown,
            stop_tasks,
            main,
            index,
        })
    }
}

/// What the client's main task owns.
struct Parts {
    index: control::AllocIndex,
    rpc: Arc<dyn ServerRpc>,
    node: Arc<Node>,
    meta: Arc<node_meta::NodeMeta>,
    cfg: Arc<ClientConfig>,
    drivers: DriverRegistry,
    shutdown: CancellationToken,
    stop_tasks: Arc<AtomicBool>,
    state: Option<Arc<state::StateDb>>,
}

async fn run(p: Parts) {
    let Parts {
        index,
        rpc,
        node,
        meta,
        cfg,
        drivers,
        shutdown,
        stop_tasks,
        state,
    } = p;
    let Some(reg) = heartbeat::register(rpc.as_ref(), &node, &shutdown).await else {
        return;
    };
    let heartbeats = tokio::spawn(heartbeat::run(
        rpc.clone(),
        meta.clone(),
        reg.heartbeat_ttl,
        shutdown.clone(),
    ));
    let driver_health = tokio::spawn(watch_drivers(
        drivers.clone(),
        meta,
        cfg.driver_fingerprint_interval,
        shutdown.clone(),
    ));
    let (tx, rx) = mpsc::unbounded_channel();
    let updater_stop = CancellationToken::new();
    let updater = tokio::spawn(
        alloc_updates::AllocUpdater {
            rpc: rpc.clone(),
            node_id: node.id.clone(),
            interval: cfg.alloc_update_interval,
            updates: rx,
            shutdown: updater_stop.clone(),
        }
        .run(),
    );
    let runners = alloc_watcher::AllocWatcher {
        rpc,
        node,
        cfg,
        drivers,
        updates: tx,
        shutdown,
        index,
        state,
    }
    .run()
    .await;
    let stop = stop_tasks.load(Ordering::SeqCst);
    for r in runners {
        r.shutdown(stop).await;
    }
    updater_stop.cancel();
    let _ = updater.await;
    let _ = heartbeats.await;
    let _ = driver_health.await;
}

/// Fingerprints the drivers again every `every` (Nomad's driver manager does so on each
/// driver's own period) and re-registers the node when one's health or attributes changed.
async fn watch_drivers(
    drivers: DriverRegistry,
    meta: Arc<node_meta::NodeMeta>,
    every: std::time::Duration,
    shutdown: CancellationToken,
) {
    let mut tick = tokio::time::interval(every);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    tick.tick().await;
    loop {
        tokio::select! {
            _ = shutdown.cancelled() => return,
            _ = tick.tick() => {}
        }
        let infos = fingerprint::fingerprint_drivers(&drivers).await;
        match meta.update_drivers(infos).await {
            Ok(true) => tracing::info!("driver health changed; node re-registered"),
            Ok(false) => {}
            Err(e) => tracing::warn!(error = %e, "failed to report new driver health"),
        }
    }
}

impl ClientHandle {
    pub fn node_id(&self) -> &str {
        &self.node.id
    }

    /// The node as fingerprinted at start.
    pub fn node(&self) -> Arc<Node> {
        self.node.clone()
    }

    pub fn node_meta(&self) -> Arc<node_meta::NodeMeta> {
        self.meta.clone()
    }

    /// A live alloc's runner controls (exec, stats, signal, restart).
    pub fn alloc_control(&self, alloc_id: &str) -> Option<control::AllocControl> {
        self.index
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(alloc_id)
            .cloned()
    }

    /// The client's configuration.
    pub fn config(&self) -> &ClientConfig {
        &self.cfg
    }

    /// `<data_dir>/alloc/<alloc_id>` if this client has (had) that alloc.
    pub fn alloc_dir(&self, alloc_id: &str) -> Option<PathBuf> {
        // Alloc IDs become path components: only UUID characters are accepted.
        if alloc_id.is_empty() || !alloc_id.chars().all(|c| c.is_ascii_hexdigit() || c == '-') {
            return None;
        }
        let dir = self.cfg.alloc_dir(alloc_id);
        dir.is_dir().then_some(dir)
    }

    /// Stops the client. `stop_tasks` (dev mode): kill every task and send the final alloc
    /// updates first; otherwise tasks keep running for a later client to recover.
    pub async fn shutdown(self, stop_tasks: bool) {
        self.stop_tasks.store(stop_tasks, Ordering::SeqCst);
        self.shutdown.cancel();
        let _ = self.main.await;
    }
}

#[cfg(test)]
#[path = "client_tests.rs"]
mod tests;
