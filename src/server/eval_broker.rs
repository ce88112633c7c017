//! TEMPORARY integration shim (replaced by the sched branch).
use std::collections::VecDeque;
use std::sync::Mutex;
use std::time::Duration;

use tokio::sync::Notify;

use crate::api::Evaluation;

#[derive(Default)]
pub struct EvalBroker {
    q: Mutex<VecDeque<Evaluation>>,
    n: Notify,
}

impl EvalBroker {
    pub fn new() -> Self {
        Self::default()
    }
    pub fn set_enabled(&self, _e: bool) {}
    pub fn enqueue(&self, eval: Evaluation) {
        if let Ok(mut q) = self.q.lock() {
            q.push_back(eval);
        }
        self.n.notify_one();
    }
    pub async fn dequeue(
        &self,
        _types: &[&str],
        timeout: Duration,
    ) -> Option<(Evaluation, String)> {
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            if let Some(e) = self.q.lock().ok().and_then(|mut q| q.pop_front()) {
                return Some((e, String::new()));
            }
            if tokio::time::timeout_at(deadline, self.n.notified())
                .await
                .is_err()
            {
                return None;
            }
        }
    }
    pub fn ack(&self, _id: &str, _token: &str) -> Result<(), String> {
        Ok(())
    }
}
impl EvalBroker {
    pub fn nack(&self, _id: &str, _token: &str) -> Result<(), String> {
        Ok(())
    }
}
