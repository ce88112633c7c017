//! Task events a driver emits while it works on a task (Nomad's `drivers.TaskEvent`, what
//! `DriverPlugin.TaskEvents` streams), e.g. the docker driver's "Downloading image". The
//! task runner hands every start a [`TaskEventSink`] inside the `TaskConfig` and records
//! what arrives as task events of type "Driver" (Nomad's `TaskDriverMessage`).
//!
//! A sink is per task runner rather than one driver-wide stream: the runner is the only
//! consumer, so no routing by alloc and task name is needed. A config without a sink
//! (tests, a handle read back from disk before the runner sets one) drops events.

use std::collections::BTreeMap;

use tokio::sync::mpsc;

/// One event a driver emitted for a task (Nomad's `drivers.TaskEvent`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DriverTaskEvent {
    pub task_id: String,
    pub alloc_id: String,
    pub task_name: String,
    /// Unix nanoseconds.
    pub timestamp: i64,
    pub message: String,
    /// Become the task event's `Details` (e.g. `image` for the docker driver).
    pub annotations: BTreeMap<String, String>,
}

/// Where a driver sends the events of one task. Cloning shares the destination.
#[derive(Clone, Default)]
pub struct TaskEventSink(Option<mpsc::UnboundedSender<DriverTaskEvent>>);

impl TaskEventSink {
    /// A sink and the receiving end its events arrive at, in emission order.
    pub fn channel() -> (TaskEventSink, mpsc::UnboundedReceiver<DriverTaskEvent>) {
        let (tx, rx) = mpsc::unbounded_channel();
        (TaskEventSink(Some(tx)), rx)
    }

    /// Sends the event; dropped without a receiver (the task runner is gone).
    pub fn send(&self, event: DriverTaskEvent) {
        if let Some(tx) = &self.0 {
            let _ = tx.send(event);
        }
    }

    pub fn is_connected(&self) -> bool {
        self.0.as_ref().is_some_and(|tx| !tx.is_closed())
    }
}

impl std::fmt::Debug for TaskEventSink {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(if self.0.is_some() {
            "TaskEventSink(connected)"
        } else {
            "TaskEventSink(none)"
        })
    }
}

/// Where the events go is no part of what the task is: two configs that differ only in
/// their sinks describe the same task.
impl PartialEq for TaskEventSink {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::drivers::TaskConfig;

    #[test]
    fn a_config_emits_events_naming_its_task_in_order() {
        let (sink, mut rx) = TaskEventSink::channel();
        let cfg = TaskConfig {
            id: "a1/web/x".into(),
            name: "web".into(),
            alloc_id: "a1".into(),
            events: sink,
            ..Default::default()
        };
        cfg.emit_event("Downloading image", [("image", "busybox:1")]);
        cfg.emit_event("second", []);
        let first = rx.try_recv().expect("first event");
        assert_eq!(
            (first.task_id.as_str(), first.alloc_id.as_str()),
            ("a1/web/x", "a1")
        );
        assert_eq!(first.task_name, "web");
        assert_eq!(first.message, "Downloading image");
        assert_eq!(first.annotations["image"], "busybox:1");
        assert!(first.timestamp > 0);
        assert_eq!(rx.try_recv().expect("second event").message, "second");
    }

    #[test]
    fn without_a_receiver_events_are_dropped_and_the_sink_is_not_part_of_equality() {
        let cfg = TaskConfig::default();
        assert!(!cfg.events.is_connected());
        cfg.emit_event("nobody listens", []);
        let (sink, rx) = TaskEventSink::channel();
        let with_sink = TaskConfig {
            events: sink,
            ..Default::default()
        };
        assert!(with_sink.events.is_connected());
        drop(rx);
        assert!(!with_sink.events.is_connected());
        with_sink.emit_event("receiver gone", []);
        assert_eq!(with_sink, cfg);
        // A persisted handle carries no sink: it is not serialised.
        let json = serde_json::to_value(&with_sink).expect("serialises");
        assert!(json.get("events").is_none(), "{json}");
    }
}
