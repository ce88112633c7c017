//! Registration and heartbeats. Registers the node (retrying until a server answers), then
//! calls `Node.UpdateStatus` at about half the TTL the server hands out, with jitter so a
//! fleet of clients does not beat in step; a server that forgot the node gets it again.

use std::sync::Arc;
use std::time::Duration;

use rand::Rng;
use tokio_util::sync::CancellationToken;

use crate::api::{Node, NODE_STATUS_READY};
use crate::server::rpc::{NodeUpdateResponse, RpcError, ServerRpc};

/// Used until a server tells us the real TTL.
const DEFAULT_TTL: Duration = Duration::from_secs(10);
const MIN_RETRY: Duration = Duration::from_secs(1);

/// `base` plus up to `base` of random stagger (Nomad's `helper.RandomStagger` added on top).
fn stagger(base: Duration) -> Duration {
    let nanos = base.as_nanos().min(u64::MAX as u128) as u64;
    if nanos == 0 {
        return base;
    }
    base + Duration::from_nanos(rand::rng().random_range(0..nanos))
}

/// About half the TTL, minus up to 10% jitter, never under a second.
pub fn next_heartbeat(ttl: Duration) -> Duration {
    let ttl = if ttl.is_zero() { DEFAULT_TTL } else { ttl };
    let half = ttl / 2;
    let jitter_max = (half / 10).as_nanos().min(u64::MAX as u128) as u64;
    let jitter = if jitter_max == 0 {
        0
    } else {
        rand::rng().random_range(0..jitter_max)
    };
    half.saturating_sub(Duration::from_nanos(jitter))
        .max(MIN_RETRY)
}

/// Registers until it succeeds; `None` if shut down first.
pub async fn register(
    rpc: &dyn ServerRpc,
    node: &Node,
    shutdown: &CancellationToken,
) -> Option<NodeUpdateResponse> {
    loop {
        match rpc.node_register(node.clone()).await {
            Ok(resp) => {
                tracing::info!(node_id = %node.id, "node registration complete");
                return Some(resp);
            }
            Err(e) => tracing::warn!(error = %e, "error registering node"),
        }
        tokio::select! {
            _ = shutdown.cancelled() => return None,
            _ = tokio::time::sleep(stagger(MIN_RETRY)) => {}
        }
    }
}

pub async fn run(
    rpc: Arc<dyn ServerRpc>,
    // The node as it is now: dynamic meta may have changed it since start.
    node: Arc<super::node_meta::NodeMeta>,
    // The TTL registration handed out; the first heartbeat goes at once regardless.
    _registered_ttl: Duration,
    shutdown: CancellationToken,
) {
    // The first heartbeat goes out at once: it is what moves the node from "initializing"
    // to "ready", so the node is schedulable as soon as it registered.
    let mut wait = Duration::ZERO;
    loop {
        tokio::select! {
            _ = shutdown.cancelled() => return,
            _ = tokio::time::sleep(wait) => {}
        }
        let node_id = node.node_id();
        match rpc.node_update_status(&node_id, NODE_STATUS_READY).await {
            Ok(resp) => {
                wait = next_heartbeat(resp.heartbeat_ttl);
            }
            Err(RpcError::UnknownNode(_)) => {
                tracing::warn!(node_id = %node_id, "server does not know this node; re-registering");
                match register(rpc.as_ref(), &node.current(), &shutdown).await {
                    Some(resp) => {
                        wait = next_heartbeat(resp.heartbeat_ttl);
                    }
                    None => return,
                }
            }
            Err(e) => {
                tracing::warn!(error = %e, "error heartbeating");
                wait = stagger(MIN_RETRY);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn heartbeat_is_about_half_the_ttl() {
        for _ in 0..100 {
            let d = next_heartbeat(Duration::from_secs(20));
            assert!(
                d <= Duration::from_secs(10) && d > Duration::from_secs(9),
                "{d:?}"
            );
        }
        assert_eq!(next_heartbeat(Duration::from_millis(100)), MIN_RETRY);
    }
}
