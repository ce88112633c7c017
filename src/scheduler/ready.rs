//! The nodes a service or batch job may be placed on: ready, not draining, in the job's pool
//! and datacenters. The list depends only on the nodes table and the (pool, datacenters)
//! pair, so the state store memoizes it per nodes-table version (`StateView::ready_nodes`)
//! and every eval between two node changes shares one, with its ID index.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::api::Node;

use super::feasible::{node_in_any_dc, node_in_pool};

/// Ready nodes in ID order, their count per datacenter, and a position index by ID hash.
#[derive(Debug, Default)]
pub struct ReadyNodes {
    pub nodes: Vec<Arc<Node>>,
    pub by_dc: BTreeMap<String, i64>,
    /// (hash of node ID, position in `nodes`), sorted.
    by_id: Vec<(u64, u32)>,
}

impl ReadyNodes {
    /// The nodes of `all` that are ready, not draining, in `pool` and in one of `dcs`.
    pub fn select<'a>(
        all: impl IntoIterator<Item = &'a Arc<Node>>,
        pool: &str,
        dcs: &[String],
    ) -> Self {
        let nodes: Vec<Arc<Node>> = all
            .into_iter()
            .filter(|n| n.ready() && n.drain_strategy.is_none())
            .filter(|n| node_in_pool(n, pool) && node_in_any_dc(n, dcs))
            .cloned()
            .collect();
        Self::of(nodes)
    }

    /// Indexes `nodes` as given (already chosen).
    pub fn of(nodes: Vec<Arc<Node>>) -> Self {
        let mut by_dc = BTreeMap::new();
        for n in &nodes {
            *by_dc.entry(n.datacenter.clone()).or_insert(0) += 1;
        }
        let mut by_id: Vec<(u64, u32)> = nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (id_hash(&n.id), i as u32))
            .collect();
        by_id.sort_unstable();
        ReadyNodes {
            nodes,
            by_dc,
            by_id,
        }
    }

    pub fn len(&self) -> usize {
        self.nodes.len()
    }

    pub fn is_empty(&self) -> bool {
        self.nodes.is_empty()
    }

    /// The position in `nodes` of the node with ID `id`, if it is one of them.
    pub fn position(&self, id: &str) -> Option<usize> {
        let h = id_hash(id);
        let from = self.by_id.partition_point(|(k, _)| *k < h);
        self.by_id[from..]
            .iter()
            .take_while(|(k, _)| *k == h)
            .map(|&(_, i)| i as usize)
            .find(|&i| self.nodes[i].id == id)
    }
}

/// 64-bit FNV-1a of a node ID (for the position index only).
fn id_hash(id: &str) -> u64 {
    id.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Memoized [`ReadyNodes`] by (pool, datacenters), for one version of the nodes table. A
/// state snapshot holds one behind an `Arc` and replaces it whenever a node changes, so the
/// snapshots between two node changes share it.
#[derive(Debug, Default)]
pub struct ReadyMemo(std::sync::Mutex<Vec<(MemoKey, Arc<ReadyNodes>)>>);

/// (pool, datacenters) a memoized list was selected for.
type MemoKey = (String, Vec<String>);

impl ReadyMemo {
    /// The memoized list for (`pool`, `dcs`), built by `build` on first use.
    pub fn get_or_build(
        &self,
        pool: &str,
        dcs: &[String],
        build: impl FnOnce() -> ReadyNodes,
    ) -> Arc<ReadyNodes> {
        let mut memo = match self.0.lock() {
            Ok(m) => m,
            Err(p) => p.into_inner(),
        };
        if let Some((_, r)) = memo.iter().find(|((p, d), _)| p == pool && d == dcs) {
            return r.clone();
        }
        let ready = Arc::new(build());
        // Few (pool, datacenters) pairs are in use at once; keep the memo small.
        if memo.len() >= 16 {
            memo.remove(0);
        }
        memo.push(((pool.to_string(), dcs.to_vec()), ready.clone()));
        ready
    }
}
