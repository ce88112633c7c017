//! Scaling events: what `job scale` (or an autoscaler) did to each group, kept per job with
//! the newest first and at most [`MAX_EVENTS_PER_GROUP`] per group (Nomad's
//! JobTrackedScalingEvents). Removed with the job.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::{key, StateSnapshot, Table};
use crate::api::ScalingEvent;

pub const MAX_EVENTS_PER_GROUP: usize = 20;

/// Group name -> events, newest first.
pub type ScalingEvents = BTreeMap<String, Vec<ScalingEvent>>;

impl StateSnapshot {
    pub fn scaling_events(&self, ns: &str, job_id: &str) -> ScalingEvents {
        self.scaling_events
            .get(&key(ns, job_id))
            .map(|e| (**e).clone())
            .unwrap_or_default()
    }

    pub(crate) fn add_scaling_event(
        &mut self,
        index: u64,
        ns: &str,
        job_id: &str,
        group: &str,
        mut event: ScalingEvent,
    ) {
        event.create_index = index;
        let k = key(ns, job_id);
        let mut all = self.scaling_events(ns, job_id);
        let list = all.entry(group.to_string()).or_default();
        list.insert(0, event);
        list.truncate(MAX_EVENTS_PER_GROUP);
        self.scaling_events.insert(k, Arc::new(all));
        self.touch(Table::Jobs, index);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_are_newest_first_and_bounded() {
        let mut s = StateSnapshot::default();
        for i in 0..25 {
            let e = ScalingEvent {
                count: Some(i),
                ..Default::default()
            };
            s.add_scaling_event(100 + i as u64, "default", "web", "g", e);
        }
        let events = s.scaling_events("default", "web");
        let g = &events["g"];
        assert_eq!(g.len(), MAX_EVENTS_PER_GROUP);
        assert_eq!((g[0].count, g[0].create_index), (Some(24), 124));
        // A restored snapshot keeps them.
        let back = StateSnapshot::from_bytes(&s.to_bytes()).expect("restore");
        assert_eq!(back.scaling_events("default", "web"), events);
        assert!(s.scaling_events("default", "other").is_empty());
    }
}
