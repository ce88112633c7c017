//! TEMPORARY integration shim (replaced by the raft branch): applies commands directly.
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;
use std::time::Duration;

use tokio::sync::{watch, Mutex};

use super::fsm::{ApplyResponse, Command, Fsm};

#[derive(Debug, thiserror::Error)]
pub enum RaftError {
    #[error("not leader")]
    NotLeader { leader: Option<String> },
}

pub struct RaftConfig {
    pub node_id: u64,
    pub addr: String,
    pub data_dir: Option<std::path::PathBuf>,
    pub snapshot_logs: u64,
}

#[derive(Clone)]
pub struct RaftHandle {
    fsm: Arc<dyn Fsm>,
    lock: Arc<Mutex<()>>,
    index: Arc<AtomicU64>,
    addr: String,
    leader: watch::Sender<bool>,
}

impl RaftHandle {
    pub async fn start(cfg: RaftConfig, fsm: Arc<dyn Fsm>) -> Result<RaftHandle, RaftError> {
        Ok(RaftHandle {
            fsm,
            lock: Arc::new(Mutex::new(())),
            index: Arc::new(AtomicU64::new(0)),
            addr: cfg.addr,
            leader: watch::channel(true).0,
        })
    }
    pub async fn propose(&self, cmd: Command) -> Result<ApplyResponse, RaftError> {
        let _g = self.lock.lock().await;
        let i = self.index.fetch_add(1, Ordering::SeqCst) + 1;
        Ok(self.fsm.apply(i, &cmd))
    }
    pub fn is_leader(&self) -> bool {
        true
    }
    pub fn leader_addr(&self) -> Option<String> {
        Some(self.addr.clone())
    }
    pub fn peers(&self) -> Vec<String> {
        vec![self.addr.clone()]
    }
    pub fn last_contact(&self) -> Duration {
        Duration::ZERO
    }
    pub fn leadership(&self) -> watch::Receiver<bool> {
        self.leader.subscribe()
    }
    pub async fn shutdown(&self) -> Result<(), RaftError> {
        Ok(())
    }
}
