//! The event stream's source (Nomad's `nomad/stream` event broker): every applied raft entry
//! becomes one batch of events, kept in a bounded ring buffer for subscribers that start at
//! an older index and fanned out to live subscribers.
//!
//! ```text
//!  ServerFsm::apply ─> events_from::for_command (changed rows, typed by the entry's Command)
//!                  ─> EventBroker::publish ─> ring buffer (last RING_SIZE batches)
//!                                          └> broadcast ─> Subscription::next ─> HTTP NDJSON
//! ```
//! Payloads hold the stored `Arc`s, so publishing costs no copies; JSON is produced only for
//! subscribers. A subscriber that falls more than `LIVE_BACKLOG` batches behind is dropped
//! (its `next` fails) instead of holding memory or the FSM back.

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use serde::ser::SerializeMap;
use serde::{Serialize, Serializer};
use tokio::sync::broadcast;

use crate::api::{Allocation, Deployment, Evaluation, Job, Node};

/// Batches kept for subscribers starting at an older index (Nomad's `event_buffer_size`).
pub const RING_SIZE: usize = 100;
/// Batches a live subscriber may fall behind before it is dropped.
const LIVE_BACKLOG: usize = 1024;

pub const TOPIC_JOB: &str = "Job";
pub const TOPIC_ALLOCATION: &str = "Allocation";
pub const TOPIC_EVALUATION: &str = "Evaluation";
pub const TOPIC_DEPLOYMENT: &str = "Deployment";
pub const TOPIC_NODE: &str = "Node";

/// The object an event carries, serialised as `{"<Kind>": object}` like Nomad's payloads.
#[derive(Debug, Clone)]
pub enum Payload {
    Job(Arc<Job>),
    /// Serialised without its embedded job, as Nomad strips it.
    Allocation(Arc<Allocation>),
    Evaluation(Arc<Evaluation>),
    Deployment(Arc<Deployment>),
    /// Serialised without its SecretID.
    Node(Arc<Node>),
}

impl Serialize for Payload {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut m = s.serialize_map(Some(1))?;
        match self {
            Payload::Job(j) => m.serialize_entry("Job", &**j)?,
            Payload::Allocation(a) => {
                let stripped = Allocation {
                    job: None,
                    ..(**a).clone()
                };
                m.serialize_entry("Allocation", &stripped)?
            }
            Payload::Evaluation(e) => m.serialize_entry("Evaluation", &**e)?,
            Payload::Deployment(d) => m.serialize_entry("Deployment", &**d)?,
            Payload::Node(n) => {
                let sanitized = Node {
                    secret_id: String::new(),
                    ..(**n).clone()
                };
                m.serialize_entry("Node", &sanitized)?
            }
        }
        m.end()
    }
}

/// One event (Nomad's `structs.Event`), fields in the order Nomad's JSON prints them.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct Event {
    /// Other keys a `topic=T:key` filter matches (job ID, deployment ID).
    pub filter_keys: Option<Vec<String>>,
    pub index: u64,
    pub key: String,
    /// Empty for Node events, which belong to no namespace.
    pub namespace: String,
    pub payload: Payload,
    pub topic: &'static str,
    pub r#type: &'static str,
}

/// The events of one raft entry.
#[derive(Debug, Clone, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct EventBatch {
    pub events: Vec<Event>,
    pub index: u64,
}

/// What a subscriber asked for: `topic=Topic[:key]` pairs (`*` matches anything) and a
/// namespace (`*` = all).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EventFilter {
    pub topics: Vec<(String, String)>,
    pub namespace: String,
}

impl EventFilter {
    /// Nomad's `topic` parameters: `Job:example`, `Job` (= `Job:*`); none means `*:*`.
    pub fn parse(topics: &[&str], namespace: &str) -> EventFilter {
        let mut parsed: Vec<(String, String)> = topics
            .iter()
            .map(|t| match t.split_once(':') {
                Some((topic, key)) => (topic.to_string(), key.to_string()),
                None => (t.to_string(), "*".to_string()),
            })
            .collect();
        if parsed.is_empty() {
            parsed.push(("*".to_string(), "*".to_string()));
        }
        EventFilter {
            topics: parsed,
            namespace: namespace.to_string(),
        }
    }

    pub fn matches(&self, e: &Event) -> bool {
        let ns_ok =
            self.namespace == "*" || e.namespace.is_empty() || e.namespace == self.namespace;
        ns_ok
            && self.topics.iter().any(|(topic, key)| {
                (topic == "*" || topic == e.topic)
                    && (key == "*"
                        || *key == e.key
                        || e.filter_keys.as_ref().is_some_and(|k| k.contains(key)))
            })
    }

    /// The batch's events this filter lets through; `None` when nothing is left.
    pub fn apply(&self, batch: &EventBatch) -> Option<EventBatch> {
        let events: Vec<Event> = batch
            .events
            .iter()
            .filter(|e| self.matches(e))
            .cloned()
            .collect();
        (!events.is_empty()).then_some(EventBatch {
            events,
            index: batch.index,
        })
    }
}

/// Why a subscription ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum SubscriptionError {
    #[error("subscriber fell too far behind the event stream")]
    TooSlow,
    #[error("event broker closed")]
    Closed,
}

#[derive(Debug)]
pub struct EventBroker {
    ring: Mutex<VecDeque<Arc<EventBatch>>>,
    live: broadcast::Sender<Arc<EventBatch>>,
}

impl Default for EventBroker {
    fn default() -> Self {
        EventBroker::new()
    }
}

impl EventBroker {
    pub fn new() -> Self {
        EventBroker {
            ring: Mutex::new(VecDeque::with_capacity(RING_SIZE)),
            live: broadcast::channel(LIVE_BACKLOG).0,
        }
    }

    pub fn publish(&self, batch: EventBatch) {
        if batch.events.is_empty() {
            return;
        }
        let batch = Arc::new(batch);
        let mut ring = match self.ring.lock() {
            Ok(r) => r,
            Err(p) => p.into_inner(),
        };
        if ring.len() == RING_SIZE {
            ring.pop_front();
        }
        ring.push_back(batch.clone());
        // No receivers is not an error: nobody is listening.
        let _ = self.live.send(batch);
    }

    /// Subscribe from `index`: buffered batches at or after it first (all of them for 0),
    /// then live ones. Taken under the ring's lock, so nothing is missed or repeated.
    pub fn subscribe(&self, index: u64) -> Subscription {
        let ring = match self.ring.lock() {
            Ok(r) => r,
            Err(p) => p.into_inner(),
        };
        let rx = self.live.subscribe();
        let replay = ring.iter().filter(|b| b.index >= index).cloned().collect();
        Subscription { replay, rx }
    }
}

pub struct Subscription {
    replay: VecDeque<Arc<EventBatch>>,
    rx: broadcast::Receiver<Arc<EventBatch>>,
}

impl Subscription {
    pub async fn next(&mut self) -> Result<Arc<EventBatch>, SubscriptionError> {
        if let Some(b) = self.replay.pop_front() {
            return Ok(b);
        }
        match self.rx.recv().await {
            Ok(b) => Ok(b),
            Err(broadcast::error::RecvError::Lagged(_)) => Err(SubscriptionError::TooSlow),
            Err(broadcast::error::RecvError::Closed) => Err(SubscriptionError::Closed),
        }
    }
}

#[cfg(test)]
#[path = "events_tests.rs"]
mod tests;
