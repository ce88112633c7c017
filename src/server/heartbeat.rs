//! The leader's heartbeat timers: a node that stops heartbeating is marked down, which makes
//! the scheduler replace its allocs.

use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

use rand::Rng;
use tokio::sync::Notify;
use tokio::time::Instant;

use super::state::StateSnapshot;
use super::{Server, ServerConfig};
use crate::api::NODE_STATUS_DOWN;

/// After a leader change, nodes get this long to check in (Nomad's failover_heartbeat_ttl).
const FAILOVER_TTL: Duration = Duration::from_secs(300);

pub(crate) struct Heartbeater {
    deadlines: Mutex<HashMap<String, Instant>>,
    changed: Notify,
    min_ttl: Duration,
    grace: Duration,
    per_second: f64,
}

impl Heartbeater {
    pub(crate) fn new(config: &ServerConfig) -> Self {
        Heartbeater {
            deadlines: Mutex::new(HashMap::new()),
            changed: Notify::new(),
            min_ttl: config.min_heartbeat_ttl,
            grace: config.heartbeat_grace,
            per_second: config.max_heartbeats_per_second.max(1.0),
        }
    }

    /// The TTL for one node: scaled so all nodes together heartbeat at most `per_second`
    /// times a second, never below `min_ttl`, plus a random stagger (Nomad's rule).
    fn ttl(&self, nodes: usize) -> Duration {
        let scaled = Duration::from_secs_f64(nodes as f64 / self.per_second).max(self.min_ttl);
        let stagger = rand::rng().random_range(0.0..1.0) * scaled.as_secs_f64();
        scaled + Duration::from_secs_f64(stagger)
    }

    pub(crate) fn reset(&self, node_id: &str, nodes: usize) -> Duration {
        let ttl = self.ttl(nodes);
        self.set(node_id, Instant::now() + ttl + self.grace);
        ttl
    }

    fn set(&self, node_id: &str, deadline: Instant) {
        if let Ok(mut d) = self.deadlines.lock() {
            d.insert(node_id.to_string(), deadline);
        }
        self.changed.notify_one();
    }

    pub(crate) fn initialize(&self, snap: &StateSnapshot) {
        let deadline = Instant::now() + FAILOVER_TTL;
        for node in snap.nodes_list() {
            if node.status != NODE_STATUS_DOWN {
                self.set(&node.id, deadline);
            }
        }
    }

    pub(crate) fn clear(&self) {
        if let Ok(mut d) = self.deadlines.lock() {
            d.clear();
        }
    }

    /// Remove and return the nodes whose deadline passed, and the next deadline.
    fn expired(&self, now: Instant) -> (Vec<String>, Option<Instant>) {
        let Ok(mut d) = self.deadlines.lock() else {
            return (Vec::new(), None);
        };
        let expired: Vec<String> = d
            .iter()
            .filter(|(_, t)| **t <= now)
            .map(|(id, _)| id.clone())
            .collect();
        for id in &expired {
            d.remove(id);
        }
        (expired, d.values().min().copied())
    }
}

pub(crate) async fn run(server: Server) {
    let hb = server.heartbeats();
    loop {
        let (expired, next) = hb.expired(Instant::now());
        for node_id in expired {
            if !server.is_leader() {
                continue;
            }
            tracing::warn!(node_id = %node_id, "node heartbeat missed, marking down");
            if let Err(e) =
                super::endpoints::node::update_status(&server, &node_id, NODE_STATUS_DOWN).await
            {
                tracing::error!(node_id = %node_id, error = %e, "failed to mark node down");
            }
        }
        let sleep_until = next.unwrap_or_else(|| Instant::now() + Duration::from_secs(3600));
        tokio::select! {
            _ = server.shutdown_token().cancelled() => return,
            _ = hb.changed.notified() => {}
            _ = tokio::time::sleep_until(sleep_until) => {}
        }
    }
}
