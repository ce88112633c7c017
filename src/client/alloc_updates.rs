//! Batches alloc status changes into `Node.UpdateAlloc` calls: changes are coalesced per
//! alloc (newest wins) and flushed every `interval`; a failed flush keeps them for the next.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use crate::api::Allocation;
use crate::server::rpc::ServerRpc;

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
        let mut pending: BTreeMap<String, Allocation> = BTreeMap::new();
        let mut ticker = tokio::time::interval(self.interval);
        ticker.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        loop {
            tokio::select! {
                // The tick first, so a steady stream of updates cannot starve the flush.
                biased;
                _ = ticker.tick() => self.flush(&mut pending).await,
                u = self.updates.recv() => match u {
                    Some(a) => { pending.insert(a.id.clone(), a); }
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
