//! Batches alloc status changes into `Node.UpdateAlloc` calls: changes are coalesced per
//! alloc (newest wins) and flushed at most once per `interval`; a failed flush keeps them for
//! the next. A change of an alloc's client status (pending -> running -> complete) goes out
//! within `URGENT_GAP` instead of waiting out the window (Nomad always waits 200 ms), so `job
//! run` sees "running" at once; task-event-only changes still wait for the window, and a burst
//! of status changes still shares one call per gap.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::api::Allocation;
use crate::server::rpc::ServerRpc;

/// The least time between two flushes when a client status changed.
const URGENT_GAP: Duration = Duration::from_millis(5);

/// Attempts at the final flush on shutdown before the updates are dropped.
const FINAL_FLUSH_ATTEMPTS: u32 = 3;

pub struct AllocUpdater {
    pub rpc: Arc<dyn ServerRpc>,
    pub node_id: String,
    pub interval: Duration,
    pub updates: mpsc::UnboundedReceiver<Allocation>,
    /// Cancelled after every alloc runner has sent its last update.
    pub shutdown: CancellationToken,
}

impl AllocUpdater {
    pub async fn run(mut self) {
        use tokio::time::Instant;
        let mut pending: BTreeMap<String, Allocation> = BTreeMap::new();
        // The client status each alloc last had in a flushed update.
        let mut sent_status: BTreeMap<String, String> = BTreeMap::new();
        // No flush has happened yet, so the first change may go at once.
        let mut last_flush = Instant::now() - self.interval;
        let mut deadline: Option<Instant> = None;
        loop {
            let sleep_until =
                deadline.unwrap_or_else(|| Instant::now() + Duration::from_secs(3600));
            tokio::select! {
                // The flush first, so a steady stream of updates cannot starve it.
                biased;
                _ = tokio::time::sleep_until(sleep_until), if deadline.is_some() => {
                    let batch: Vec<(String, String)> =
                        pending.values().map(|a| (a.id.clone(), a.client_status.clone())).collect();
                    self.flush(&mut pending).await;
                    if pending.is_empty() {
                        for (id, status) in batch {
                            // A finished alloc changes no more: forget it, so the map stays as
                            // small as the set of live allocs.
                            if matches!(status.as_str(), "complete" | "failed" | "lost") {
                                sent_status.remove(&id);
                            } else {
                                sent_status.insert(id, status);
                            }
                        }
                    }
                    last_flush = Instant::now();
                    // A failed flush tries again one window later.
                    deadline = (!pending.is_empty()).then(|| last_flush + self.interval);
                }
                u = self.updates.recv() => match u {
                    Some(a) => {
                        pending.insert(a.id.clone(), a);
                        // Take whatever else is already queued into the same batch.
                        while let Ok(a) = self.updates.try_recv() {
                            pending.insert(a.id.clone(), a);
                        }
                        let urgent = pending
                            .values()
                            .any(|a| sent_status.get(&a.id) != Some(&a.client_status));
                        let gap = if urgent { URGENT_GAP } else { self.interval };
                        let due = (last_flush + gap).max(Instant::now());
                        deadline = Some(deadline.map_or(due, |d| d.min(due)));
                    }
                    None => break,
                },
                _ = self.shutdown.cancelled() => break,
            }
        }
        while let Ok(a) = self.updates.try_recv() {
            pending.insert(a.id.clone(), a);
        }
        for _ in 0..FINAL_FLUSH_ATTEMPTS {
            if pending.is_empty() {
                break;
            }
            self.flush(&mut pending).await;
        }
        if !pending.is_empty() {
            tracing::warn!(count = pending.len(), "dropping alloc updates at shutdown");
        }
    }

    async fn flush(&self, pending: &mut BTreeMap<String, Allocation>) {
        if pending.is_empty() {
            return;
        }
        let batch: Vec<Allocation> = pending.values().cloned().collect();
        match self.rpc.node_update_alloc(&self.node_id, batch).await {
            Ok(_) => pending.clear(),
            Err(e) => tracing::warn!(error = %e, "failed to update allocations"),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use async_trait::async_trait;
    use tokio::time::Instant;

    use super::*;
    use crate::api::Node;
    use crate::server::rpc::{ClientAllocs, NodeUpdateResponse, RpcError};

    /// One `Node.UpdateAlloc`: when it arrived, and (alloc ID, client status) pairs.
    type Call = (Instant, Vec<(String, String)>);

    /// Records every `Node.UpdateAlloc`.
    #[derive(Default)]
    struct Recorder {
        calls: Mutex<Vec<Call>>,
    }

    #[async_trait]
    impl ServerRpc for Recorder {
        async fn node_register(&self, _: Node) -> Result<NodeUpdateResponse, RpcError> {
            Ok(NodeUpdateResponse::default())
        }
        async fn node_update_status(
            &self,
            _: &str,
            _: &str,
        ) -> Result<NodeUpdateResponse, RpcError> {
            Ok(NodeUpdateResponse::default())
        }
        async fn node_update_alloc(
            &self,
            _: &str,
            allocs: Vec<Allocation>,
        ) -> Result<u64, RpcError> {
            let batch = allocs
                .into_iter()
                .map(|a| (a.id, a.client_status))
                .collect();
            self.calls
                .lock()
                .map(|mut c| c.push((Instant::now(), batch)))
                .ok();
            Ok(1)
        }
        async fn node_get_client_allocs(
            &self,
            _: &str,
            _: u64,
            _: Duration,
        ) -> Result<ClientAllocs, RpcError> {
            Ok(ClientAllocs::default())
        }
    }

    fn update(id: &str, status: &str) -> Allocation {
        Allocation {
            id: id.to_string(),
            client_status: status.to_string(),
            ..Default::default()
        }
    }

    #[tokio::test(start_paused = true)]
    async fn status_changes_go_out_at_once_and_event_only_changes_wait_for_the_window() {
        let rpc = Arc::new(Recorder::default());
        let (tx, rx) = mpsc::unbounded_channel();
        let shutdown = CancellationToken::new();
        let updater = AllocUpdater {
            rpc: rpc.clone(),
            node_id: "n".into(),
            interval: Duration::from_millis(200),
            updates: rx,
            shutdown: shutdown.clone(),
        };
        let task = tokio::spawn(updater.run());
        let t0 = Instant::now();
        let calls = || rpc.calls.lock().map(|c| c.clone()).unwrap_or_default();

        tx.send(update("a", "pending")).ok();
        tokio::time::sleep(Duration::from_millis(1)).await;
        tx.send(update("a", "running")).ok();
        tokio::time::sleep(Duration::from_millis(20)).await;
        let c = calls();
        assert_eq!(c.len(), 2, "{c:?}");
        assert!(
            c[1].0 - t0 <= URGENT_GAP + Duration::from_millis(2),
            "running sent at once: {:?}",
            c[1].0 - t0
        );

        // Same status, new task events only: coalesced into the next window.
        tx.send(update("a", "running")).ok();
        tx.send(update("a", "running")).ok();
        tokio::time::sleep(Duration::from_millis(100)).await;
        assert_eq!(calls().len(), 2, "not yet: the window is 200 ms");
        tokio::time::sleep(Duration::from_millis(150)).await;
        let c = calls();
        assert_eq!(c.len(), 3);
        assert_eq!(
            c[2].1,
            vec![("a".to_string(), "running".to_string())],
            "one coalesced update"
        );

        shutdown.cancel();
        task.await.ok();
    }
}
