//! Dynamic node metadata (Nomad's `/v1/client/metadata`): operators set or unset meta keys
//! on a running client. The client persists the dynamic entries in its state directory (so
//! they survive a restart), merges them over the static meta from the agent config, and
//! re-registers the node, which lets the server re-evaluate system jobs whose constraints
//! read `meta.*`.

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

use crate::api::{Node, NodeMetaResponse, NODE_STATUS_READY};
use crate::server::rpc::{RpcError, ServerRpc};

use super::fingerprint::computed_class;

const FILE: &str = "node_meta.json";

#[derive(Debug, thiserror::Error)]
pub enum NodeMetaError {
    #[error("metadata key must not be empty")]
    EmptyKey,
    #[error("failed to persist node metadata to {path}: {source}")]
    Persist {
        path: String,
        source: std::io::Error,
    },
    #[error("failed to update node registration: {0}")]
    Register(#[from] RpcError),
}

/// Dynamic entries: `Some(v)` sets a key, `None` unsets a static one.
pub type DynamicMeta = BTreeMap<String, Option<String>>;

pub struct NodeMeta {
    /// The meta of the agent config, as fingerprinted.
    static_meta: BTreeMap<String, String>,
    inner: Mutex<State>,
    path: PathBuf,
    rpc: Arc<dyn ServerRpc>,
}

struct State {
    dynamic: DynamicMeta,
    /// The node as last registered, with the merged meta.
    node: Arc<Node>,
}

/// Static meta with the dynamic entries applied.
pub fn merged(
    static_meta: &BTreeMap<String, String>,
    dynamic: &DynamicMeta,
) -> BTreeMap<String, String> {
    let mut out = static_meta.clone();
    for (k, v) in dynamic {
        match v {
            Some(v) => out.insert(k.clone(), v.clone()),
            None => out.remove(k),
        };
    }
    out
}

impl NodeMeta {
    /// Load persisted dynamic meta from `state_dir` and apply it to the fingerprinted node.
    /// A missing or unreadable file means no dynamic meta (logged when unreadable).
    pub fn load(state_dir: PathBuf, mut node: Node, rpc: Arc<dyn ServerRpc>) -> (NodeMeta, Node) {
        let path = state_dir.join(FILE);
        let dynamic: DynamicMeta = match std::fs::read(&path) {
            Ok(bytes) => serde_json::from_slice(&bytes).unwrap_or_else(|e| {
                tracing::warn!(path = %path.display(), error = %e, "ignoring unreadable node metadata");
                DynamicMeta::new()
            }),
            Err(_) => DynamicMeta::new(),
        };
        let static_meta = node.meta.clone();
        node.meta = merged(&static_meta, &dynamic);
        node.computed_class = computed_class(&node);
        let meta = NodeMeta {
            static_meta,
            inner: Mutex::new(State {
                dynamic,
                node: Arc::new(node.clone()),
            }),
            path,
            rpc,
        };
        (meta, node)
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        match self.inner.lock() {
            Ok(g) => g,
            Err(p) => p.into_inner(),
        }
    }

    pub fn node_id(&self) -> String {
        self.lock().node.id.clone()
    }

    /// The node as it should be registered now (with the latest dynamic meta).
    pub fn current(&self) -> Arc<Node> {
        self.lock().node.clone()
    }

    pub fn read(&self) -> NodeMetaResponse {
        let st = self.lock();
        NodeMetaResponse {
            meta: merged(&self.static_meta, &st.dynamic),
            dynamic: st.dynamic.clone(),
            static_: self.static_meta.clone(),
        }
    }

    /// Apply changes, persist them, and re-register the node with the new meta.
    pub async fn apply(&self, changes: DynamicMeta) -> Result<NodeMetaResponse, NodeMetaError> {
        if changes.keys().any(|k| k.is_empty()) {
            return Err(NodeMetaError::EmptyKey);
        }
        let node = {
            let mut st = self.lock();
            let mut dynamic = st.dynamic.clone();
            dynamic.extend(changes);
            self.persist(&dynamic)?;
            let mut node = (*st.node).clone();
            node.meta = merged(&self.static_meta, &dynamic);
            node.computed_class = computed_class(&node);
            node.status = NODE_STATUS_READY.to_string();
            st.dynamic = dynamic;
            st.node = Arc::new(node.clone());
            node
        };
        self.rpc.node_register(node).await?;
        Ok(self.read())
    }

    /// Takes a new fingerprint of the drivers: when a driver's health or attributes
    /// changed, the node is re-registered with them (so the scheduler sees a docker daemon
    /// that came up or went away). Returns whether it changed.
    pub async fn update_drivers(
        &self,
        drivers: BTreeMap<String, crate::api::DriverInfo>,
    ) -> Result<bool, NodeMetaError> {
        let node = {
            let mut st = self.lock();
            if !super::fingerprint::drivers_changed(&st.node.drivers, &drivers) {
                return Ok(false);
            }
            let mut node = (*st.node).clone();
            super::fingerprint::apply_driver_attributes(&mut node.attributes, &drivers);
            node.drivers = drivers;
            node.computed_class = computed_class(&node);
            node.status = NODE_STATUS_READY.to_string();
            st.node = Arc::new(node.clone());
            node
        };
        self.rpc.node_register(node).await?;
        Ok(true)
    }

    fn persist(&self, dynamic: &DynamicMeta) -> Result<(), NodeMetaError> {
        let err = |source| NodeMetaError::Persist {
            path: self.path.display().to_string(),
            source,
        };
        let bytes = serde_json::to_vec_pretty(dynamic).map_err(|e| err(e.into()))?;
        let tmp = self.path.with_extension("json.tmp");
        std::fs::write(&tmp, bytes).map_err(err)?;
        std::fs::rename(&tmp, &self.path).map_err(err)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dynamic_entries_set_and_unset_static_ones() {
        let st: BTreeMap<String, String> = [
            ("a".to_string(), "1".to_string()),
            ("b".to_string(), "2".to_string()),
        ]
        .into();
        let dynamic: DynamicMeta = [
            ("a".to_string(), None),
            ("c".to_string(), Some("3".to_string())),
        ]
        .into();
        let m = merged(&st, &dynamic);
        assert_eq!(
            m,
            [
                ("b".to_string(), "2".to_string()),
                ("c".to_string(), "3".to_string())
            ]
            .into()
        );
    }
}
