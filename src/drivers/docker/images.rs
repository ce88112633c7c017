//! Image garbage collection, as Nomad's docker coordinator does it: each image ID counts the
//! tasks using it; when the last of them is destroyed the image is removed after
//! `gc { image_delay }`, unless a task starts using it again meanwhile, which cancels the
//! removal. The removal is the daemon's forced delete by ID (every tag of the image goes,
//! as in Nomad), which the daemon refuses for an image a running container uses, so an
//! image still running anywhere on the host is never removed whatever the count says.
//!
//! This module owns the counts and the pending removals; it never touches containers.
//!
//! ```text
//!   unused --acquire--> used(n) --release, n = 0--> pending --image_delay--> removed
//!                         ^                            |
//!                         +----------acquire-----------+   (removal cancelled)
//! ```

use std::collections::{BTreeSet, HashMap};
use std::sync::Arc;
use std::time::Duration;

use hyper::Method;
use serde_json::Value;
use tokio::sync::Mutex;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::api::{self, q, DockerApi};

/// How often a removal the daemon failed for an unknown reason is tried (Nomad's).
const REMOVE_ATTEMPTS: u32 = 3;
const REMOVE_RETRY_WAIT: Duration = Duration::from_secs(3);

/// Which tasks use which image IDs: the pure core, without timers or the daemon.
#[derive(Debug, Default)]
pub struct ImageRefs {
    refs: HashMap<String, BTreeSet<String>>,
}

/// What releasing a task's reference left behind.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Released {
    /// Other tasks still use the image.
    StillUsed(usize),
    /// That was the last task: the image may be removed.
    Unused,
    /// The image was not counted (a task started before image GC was on, say).
    NotCounted,
}

impl ImageRefs {
    /// Counts `task_id` as a user of `image_id` (once, however often it is called); returns
    /// how many tasks use the image now.
    pub fn acquire(&mut self, image_id: &str, task_id: &str) -> usize {
        let users = self.refs.entry(image_id.to_string()).or_default();
        users.insert(task_id.to_string());
        users.len()
    }

    pub fn release(&mut self, image_id: &str, task_id: &str) -> Released {
        let Some(users) = self.refs.get_mut(image_id) else {
            return Released::NotCounted;
        };
        users.remove(task_id);
        if users.is_empty() {
            self.refs.remove(image_id);
            Released::Unused
        } else {
            Released::StillUsed(users.len())
        }
    }

    pub fn in_use(&self, image_id: &str) -> bool {
        self.refs.contains_key(image_id)
    }
}

/// The image GC of one driver. Dropping it cancels the removals still waiting.
pub struct ImageGc {
    inner: Arc<Inner>,
}

struct Inner {
    api: DockerApi,
    /// `gc { image }`: without it nothing is counted and nothing removed.
    enabled: bool,
    delay: Duration,
    /// Held across "is this image unused?" and the delete, and across "inspect the image"
    /// and counting a new user, so a task starting on an image never interleaves with its
    /// removal (Nomad's `imageLock`).
    state: Mutex<State>,
    /// Cancelled on drop: waiting removals end without removing anything.
    shutdown: CancellationToken,
}

#[derive(Default)]
struct State {
    refs: ImageRefs,
    pending: HashMap<String, Pending>,
    next_generation: u64,
}

/// A removal waiting out the delay.
struct Pending {
    /// Tells this removal from a later one of the same image.
    generation: u64,
    cancel: CancellationToken,
    /// Kept so the removal has an owner; it ends on its own once cancelled.
    _task: JoinHandle<()>,
}

impl State {
    fn cancel_pending(&mut self, image_id: &str) {
        if let Some(p) = self.pending.remove(image_id) {
            tracing::debug!(image_id, "cancelling removal of container image");
            p.cancel.cancel();
        }
    }

    fn is_pending(&self, image_id: &str, generation: u64) -> bool {
        self.pending
            .get(image_id)
            .is_some_and(|p| p.generation == generation)
    }
}

impl Drop for ImageGc {
    fn drop(&mut self) {
        self.inner.shutdown.cancel();
    }
}

impl ImageGc {
    pub fn new(api: DockerApi, enabled: bool, delay: Duration) -> Self {
        ImageGc {
            inner: Arc::new(Inner {
                api,
                enabled,
                delay,
                state: Mutex::new(State::default()),
                shutdown: CancellationToken::new(),
            }),
        }
    }

    /// The ID of the local image `image`, counting `task_id` as its user (and cancelling a
    /// pending removal of it); `None` when the daemon has no such image.
    pub async fn use_local(&self, image: &str, task_id: &str) -> Option<String> {
        let mut state = self.inner.state.lock().await;
        let info = self
            .inner
            .api
            .get(&format!("/images/{}/json", q(image)))
            .await
            .ok()?;
        let id = info.get("Id").and_then(Value::as_str)?.to_string();
        if self.inner.enabled {
            state.cancel_pending(&id);
            let users = state.refs.acquire(&id, task_id);
            tracing::debug!(image, image_id = %id, references = users, "image reference count incremented");
        }
        Some(id)
    }

    /// Counts `task_id` as a user of an image known by ID (a recovered task's).
    pub async fn acquire(&self, image_id: &str, task_id: &str) {
        if !self.inner.enabled || image_id.is_empty() {
            return;
        }
        let mut state = self.inner.state.lock().await;
        state.cancel_pending(image_id);
        state.refs.acquire(image_id, task_id);
    }

    /// `task_id` no longer uses the image; the last user's release schedules its removal.
    pub async fn release(&self, image_id: &str, task_id: &str) {
        if !self.inner.enabled || image_id.is_empty() {
            return;
        }
        let mut state = self.inner.state.lock().await;
        match state.refs.release(image_id, task_id) {
            Released::StillUsed(n) => {
                tracing::debug!(
                    image_id,
                    references = n,
                    "image id reference count decremented"
                );
            }
            Released::NotCounted => {
                tracing::warn!(image_id, "RemoveImage on non-referenced counted image id");
            }
            Released::Unused => {
                state.cancel_pending(image_id);
                let generation = state.next_generation;
                state.next_generation += 1;
                let cancel = self.inner.shutdown.child_token();
                let task = tokio::spawn(remove_later(
                    self.inner.clone(),
                    image_id.to_string(),
                    generation,
                    cancel.clone(),
                ));
                state.pending.insert(
                    image_id.to_string(),
                    Pending {
                        generation,
                        cancel,
                        _task: task,
                    },
                );
            }
        }
    }
}

/// Waits out the delay, then removes the image unless the removal was cancelled.
async fn remove_later(
    inner: Arc<Inner>,
    image_id: String,
    generation: u64,
    cancel: CancellationToken,
) {
    tokio::select! {
        _ = cancel.cancelled() => return,
        _ = tokio::time::sleep(inner.delay) => {}
    }
    for attempt in 1..=REMOVE_ATTEMPTS {
        let state = inner.state.lock().await;
        if cancel.is_cancelled() || !state.is_pending(&image_id, generation) {
            return;
        }
        if state.refs.in_use(&image_id) {
            break;
        }
        let res = inner
            .api
            .call(
                Method::DELETE,
                &format!("/images/{}?force=1", q(&image_id)),
                None,
                api::API_TIMEOUT,
            )
            .await;
        drop(state);
        match res {
            Ok(_) => {
                tracing::debug!(image_id, "cleanup removed downloaded image");
                break;
            }
            Err(e) if e.status() == Some(404) => {
                tracing::debug!(image_id, "unable to cleanup image, does not exist");
                break;
            }
            Err(e) if e.status() == Some(409) => {
                tracing::debug!(image_id, error = %e, "unable to cleanup image, still in use");
                break;
            }
            Err(e) => {
                tracing::debug!(image_id, attempt, error = %e, "failed to remove image");
            }
        }
        tokio::select! {
            _ = cancel.cancelled() => return,
            _ = tokio::time::sleep(REMOVE_RETRY_WAIT) => {}
        }
    }
    let mut state = inner.state.lock().await;
    if state.is_pending(&image_id, generation) {
        state.pending.remove(&image_id);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_release_makes_an_image_unused() {
        let mut refs = ImageRefs::default();
        assert_eq!(refs.acquire("sha256:a", "t1"), 1);
        assert_eq!(refs.acquire("sha256:a", "t1"), 1, "a task counts once");
        assert_eq!(refs.acquire("sha256:a", "t2"), 2);
        assert_eq!(refs.release("sha256:a", "t1"), Released::StillUsed(1));
        assert!(refs.in_use("sha256:a"));
        assert_eq!(refs.release("sha256:a", "t2"), Released::Unused);
        assert!(!refs.in_use("sha256:a"));
        assert_eq!(refs.release("sha256:a", "t2"), Released::NotCounted);
    }

    #[test]
    fn images_are_counted_apart() {
        let mut refs = ImageRefs::default();
        refs.acquire("sha256:a", "t1");
        refs.acquire("sha256:b", "t1");
        assert_eq!(refs.release("sha256:a", "t1"), Released::Unused);
        assert!(refs.in_use("sha256:b"));
        assert_eq!(refs.release("sha256:b", "t9"), Released::StillUsed(1));
    }
}
