//! The per-driver table of live tasks and the one-shot exit cell every waiter reads.

use std::collections::HashMap;
use std::sync::{Arc, Mutex, MutexGuard};

use tokio::sync::watch;

use super::{DriverError, ExitResult};

/// Task id -> driver-specific task. A std mutex: it is held only for map operations.
pub(crate) struct TaskStore<T> {
    tasks: Mutex<HashMap<String, Arc<T>>>,
}

impl<T> Default for TaskStore<T> {
    fn default() -> Self {
        TaskStore {
            tasks: Mutex::new(HashMap::new()),
        }
    }
}

impl<T> TaskStore<T> {
    fn lock(&self) -> MutexGuard<'_, HashMap<String, Arc<T>>> {
        // A panic while holding this lock leaves the map itself consistent.
        self.tasks.lock().unwrap_or_else(|e| e.into_inner())
    }

    pub fn insert_new(&self, id: &str, task: Arc<T>) -> Result<(), DriverError> {
        let mut tasks = self.lock();
        if tasks.contains_key(id) {
            return Err(DriverError::AlreadyStarted(id.to_string()));
        }
        tasks.insert(id.to_string(), task);
        Ok(())
    }

    pub fn contains(&self, id: &str) -> bool {
        self.lock().contains_key(id)
    }

    pub fn get(&self, id: &str) -> Result<Arc<T>, DriverError> {
        self.lock()
            .get(id)
            .cloned()
            .ok_or(DriverError::TaskNotFound)
    }

    pub fn remove(&self, id: &str) -> Option<Arc<T>> {
        self.lock().remove(id)
    }
}

/// Set once when the task exits; `wait` clones the receiver and awaits the value.
pub(crate) struct ExitCell {
    tx: watch::Sender<Option<ExitResult>>,
}

impl Default for ExitCell {
    fn default() -> Self {
        ExitCell {
            tx: watch::channel(None).0,
        }
    }
}

impl ExitCell {
    pub fn set(&self, result: ExitResult) {
        self.tx.send_replace(Some(result));
    }

    pub fn get(&self) -> Option<ExitResult> {
        self.tx.borrow().clone()
    }

    pub async fn wait(&self) -> ExitResult {
        let mut rx = self.tx.subscribe();
        loop {
            if let Some(r) = rx.borrow_and_update().clone() {
                return r;
            }
            // The sender lives as long as `self`, so `changed` cannot fail while we borrow it.
            if rx.changed().await.is_err() {
                return ExitResult {
                    exit_code: 0,
                    signal: 0,
                    oom_killed: false,
                    err: Some("task exit status lost".to_string()),
                };
            }
        }
    }
}
