//! Watches the node's allocations with `Node.GetClientAllocs` blocking queries and keeps the
//! set of alloc runners in line with them: new allocs start a runner, desired stop/evict
//! stops it, a changed alloc (e.g. an in-place job update) is handed to its runner.
//!
//! Owns every alloc runner; returns them to the client when it stops so the client decides
//! whether their tasks are stopped or left running.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::alloc_dir::AllocDir;
use super::alloc_runner::{AllocRunner, AllocRunnerHandle, AllocRunnerParams};
use super::config::ClientConfig;
use super::state::{PersistedTask, StateDb};
use crate::api::{Allocation, Node};
use crate::drivers::DriverRegistry;
use crate::server::rpc::{RpcError, ServerRpc};

const RETRY: Duration = Duration::from_secs(1);

#[derive(Default)]
struct Runners {
    live: BTreeMap<String, AllocRunnerHandle>,
    /// Runners of GC'd allocs, shutting down.
    retired: Vec<AllocRunnerHandle>,
    services: Option<super::services::ServiceRegistrar>,
}

pub struct AllocWatcher {
    pub rpc: Arc<dyn ServerRpc>,
    pub node: Arc<Node>,
    pub cfg: Arc<ClientConfig>,
    pub drivers: DriverRegistry,
    pub updates: mpsc::UnboundedSender<Allocation>,
    pub shutdown: CancellationToken,
    /// Live allocs for the client's interactive endpoints.
    pub index: super::control::AllocIndex,
    /// The client's persisted state: allocs restored from it at start, kept in it after.
    pub state: Option<Arc<StateDb>>,
}

/// What about an alloc, when it changes, the runner must hear.
fn version_key(a: &Allocation) -> (u64, &str, u64) {
    (
        a.alloc_modify_index,
        a.desired_status.as_str(),
        a.job_version(),
    )
}

impl AllocWatcher {
    /// Runs until shutdown; returns the live runners plus those still finishing for
    /// garbage-collected allocs, for the client to shut down and join.
    pub async fn run(self) -> Vec<AllocRunnerHandle> {
        let mut state = Runners {
            services: Some(super::services::ServiceRegistrar::spawn(
                self.rpc.clone(),
                self.node.id.clone(),
                self.shutdown.clone(),
            )),
            ..Default::default()
        };
        self.restore(&mut state);
        self.watch(&mut state).await;
        let Runners { live, retired, .. } = state;
        live.into_values().chain(retired).collect()
    }

    async fn watch(&self, state: &mut Runners) {
        let mut index = 0u64;
        loop {
            let query =
                self.rpc
                    .node_get_client_allocs(&self.node.id, index, self.cfg.alloc_watch_timeout);
            let resp = tokio::select! {
                _ = self.shutdown.cancelled() => return,
                r = query => r,
            };
            match resp {
                Ok(resp) => {
                    if index == 0 || resp.index > index {
                        self.apply(state, resp.allocs);
                    }
                    index = resp.index.max(1);
                }
                Err(RpcError::Shutdown) => return,
                Err(e) => {
                    tracing::warn!(error = %e, "error querying node allocations");
                    tokio::select! {
                        _ = self.shutdown.cancelled() => return,
                        _ = tokio::time::sleep(RETRY) => {}
                    }
                }
            }
        }
    }

    fn spawn_runner(
        &self,
        alloc: Arc<Allocation>,
        restored: BTreeMap<String, PersistedTask>,
        services: Option<super::services::ServiceRegistrar>,
    ) -> AllocRunnerHandle {
        let handle = AllocRunner::spawn(AllocRunnerParams {
            alloc_dir: AllocDir::new(self.cfg.alloc_dir(&alloc.id)),
            alloc,
            node: self.node.clone(),
            region: self.cfg.region.clone(),
            drivers: self.drivers.clone(),
            max_kill_timeout: self.cfg.max_kill_timeout,
            updates: self.updates.clone(),
            state: self.state.clone(),
            restored,
            services,
            rpc: Some(self.rpc.clone()),
        });
        self.index
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .insert(handle.alloc_id.clone(), handle.control());
        handle
    }

    /// Runners for every alloc the persisted state holds, before the server is asked:
    /// their tasks are re-attached (or reported as exited) rather than started again. The
    /// first answer from the server then updates, stops or drops them like any runner.
    fn restore(&self, state: &mut Runners) {
        let Some(db) = &self.state else { return };
        let restored = match db.load() {
            Ok(r) => r,
            Err(e) => {
                tracing::error!(error = %e, "failed to restore client state");
                return;
            }
        };
        for r in restored {
            tracing::info!(alloc_id = %r.alloc.id, tasks = r.tasks.len(), "restoring alloc");
            let handle = self.spawn_runner(Arc::new(r.alloc), r.tasks, state.services.clone());
            state.live.insert(handle.alloc_id.clone(), handle);
        }
    }

    fn apply(&self, state: &mut Runners, allocs: Vec<Allocation>) {
        let runners = &mut state.live;
        let mut seen = std::collections::BTreeSet::new();
        for alloc in allocs {
            seen.insert(alloc.id.clone());
            match runners.get_mut(&alloc.id) {
                None if alloc.terminal() => {}
                None => {
                    let handle =
                        self.spawn_runner(Arc::new(alloc), BTreeMap::new(), state.services.clone());
                    runners.insert(handle.alloc_id.clone(), handle);
                }
                Some(r) if version_key(&r.alloc) != version_key(&alloc) => {
                    r.update(Arc::new(alloc));
                }
                Some(_) => {}
            }
        }
        // Allocs the server garbage-collected: nothing should run for them any more. Their
        // runners stop their tasks and exit; finished ones are dropped (already joined).
        let gone: Vec<String> = runners
            .keys()
            .filter(|id| !seen.contains(*id))
            .cloned()
            .collect();
        for id in gone {
            self.index
                .write()
                .unwrap_or_else(|e| e.into_inner())
                .remove(&id);
            if let Some(r) = runners.remove(&id) {
                r.begin_shutdown(true);
                if let Some(db) = &self.state {
                    if let Err(e) = db.delete_alloc(&id) {
                        tracing::warn!(alloc_id = %id, error = %e, "failed to forget alloc");
                    }
                }
                state.retired.push(r);
            }
        }
        state.retired.retain(|r| !r.is_finished());
    }
}
