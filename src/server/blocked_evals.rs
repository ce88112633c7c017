//! The blocked evals tracker (Nomad's `nomad/blocked_evals.go`): evals whose placements
//! failed wait here until capacity that might fit them appears, then go back to the broker.
//!
//! One blocked eval per job: the newer one (by create index) wins and the other is handed back
//! to be canceled. A capacity change on computed class `C` at raft index `i` releases every
//! eval that escaped computed classes, did not see `C`, or found `C` eligible. An eval that
//! was scheduled on a snapshot older than such a change is released as soon as it is blocked
//! (the "missed unblock" check), so a change racing with the scheduler is never lost.
//!
//! A plain struct with `&mut self` methods: its owner (the leader loop) holds it behind its
//! lock and feeds released evals into the eval broker. Only the leader's tracker is enabled.

use std::collections::{BTreeMap, HashMap};

use crate::api::Evaluation;

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BlockedStats {
    /// Every blocked eval tracked.
    pub total_blocked: usize,
    /// Of those, the ones whose constraints escaped computed classes.
    pub total_escaped: usize,
}

/// What blocking an eval led to.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BlockOutcome {
    /// An eval of the same job that is superseded: the caller cancels it.
    pub superseded: Option<Evaluation>,
    /// The eval itself when it missed an unblock: the caller enqueues it right away.
    pub ready: Option<Evaluation>,
}

#[derive(Debug, Default)]
pub struct BlockedEvals {
    enabled: bool,
    /// Eval ID -> eval, for every tracked eval.
    evals: BTreeMap<String, Evaluation>,
    /// (namespace, job) -> the job's one blocked eval.
    jobs: HashMap<(String, String), String>,
    /// Computed class -> raft index of its latest capacity change.
    unblock_indexes: HashMap<String, u64>,
}

impl BlockedEvals {
    pub fn new() -> Self {
        Self::default()
    }

    pub fn enabled(&self) -> bool {
        self.enabled
    }

    /// Enabling starts tracking; disabling (losing leadership) forgets everything.
    pub fn set_enabled(&mut self, enabled: bool) {
        if !enabled {
            *self = Self::default();
        }
        self.enabled = enabled;
    }

    /// Tracks a blocked eval. Ignored when disabled.
    pub fn block(&mut self, eval: Evaluation) -> BlockOutcome {
        let mut out = BlockOutcome::default();
        if !self.enabled || self.evals.contains_key(&eval.id) {
            return out;
        }
        let key = (eval.namespace.clone(), eval.job_id.clone());
        if let Some(existing_id) = self.jobs.get(&key).cloned() {
            let existing_newer = self
                .evals
                .get(&existing_id)
                .is_some_and(|e| e.create_index > eval.create_index);
            if existing_newer {
                out.superseded = Some(eval);
                return out;
            }
            out.superseded = self.evals.remove(&existing_id);
            self.jobs.remove(&key);
        }
        if self.missed_unblock(&eval) {
            out.ready = Some(eval);
            return out;
        }
        self.jobs.insert(key, eval.id.clone());
        self.evals.insert(eval.id.clone(), eval);
        out
    }

    /// Whether a capacity change newer than the eval's snapshot could fit it.
    fn missed_unblock(&self, eval: &Evaluation) -> bool {
        let mut max = 0;
        for (class, &index) in &self.unblock_indexes {
            max = max.max(index);
            if eval.snapshot_index >= index {
                continue;
            }
            match eval.class_eligibility.as_ref().and_then(|c| c.get(class)) {
                None | Some(true) => return true,
                Some(false) => {}
            }
        }
        eval.escaped_computed_class && eval.snapshot_index < max
    }

    fn may_fit(eval: &Evaluation, class: &str) -> bool {
        if eval.escaped_computed_class {
            return true;
        }
        match eval.class_eligibility.as_ref().and_then(|c| c.get(class)) {
            None | Some(true) => true,
            Some(false) => false,
        }
    }

    /// Capacity changed for nodes of `computed_class` at raft `index` (a node registered,
    /// became ready, or allocs there stopped). Returns the evals to enqueue, in ID order.
    pub fn unblock(&mut self, computed_class: &str, index: u64) -> Vec<Evaluation> {
        if !self.enabled {
            return Vec::new();
        }
        let entry = self
            .unblock_indexes
            .entry(computed_class.to_string())
            .or_insert(0);
        *entry = (*entry).max(index);
        let released: Vec<String> = self
            .evals
            .values()
            .filter(|e| Self::may_fit(e, computed_class))
            .map(|e| e.id.clone())
            .collect();
        self.release(released)
    }

    /// Capacity changed on one node: releases evals that were blocked for that node
    /// (system-style evals carrying a NodeID) plus, through its class, the class-based ones.
    pub fn unblock_node(
        &mut self,
        node_id: &str,
        computed_class: &str,
        index: u64,
    ) -> Vec<Evaluation> {
        if !self.enabled {
            return Vec::new();
        }
        let for_node: Vec<String> = self
            .evals
            .values()
            .filter(|e| !e.node_id.is_empty() && e.node_id == node_id)
            .map(|e| e.id.clone())
            .collect();
        let mut out = self.release(for_node);
        out.extend(self.unblock(computed_class, index));
        out.sort_by(|a, b| a.id.cmp(&b.id));
        out
    }

    fn release(&mut self, ids: Vec<String>) -> Vec<Evaluation> {
        let mut out = Vec::with_capacity(ids.len());
        for id in ids {
            if let Some(e) = self.evals.remove(&id) {
                self.jobs.remove(&(e.namespace.clone(), e.job_id.clone()));
                out.push(e);
            }
        }
        out
    }

    /// Stops tracking the job's blocked eval (the job was deregistered); returns it.
    pub fn untrack(&mut self, namespace: &str, job_id: &str) -> Option<Evaluation> {
        let id = self
            .jobs
            .remove(&(namespace.to_string(), job_id.to_string()))?;
        self.evals.remove(&id)
    }

    /// The job's blocked eval, if any.
    pub fn get(&self, namespace: &str, job_id: &str) -> Option<&Evaluation> {
        let id = self
            .jobs
            .get(&(namespace.to_string(), job_id.to_string()))?;
        self.evals.get(id)
    }

    pub fn stats(&self) -> BlockedStats {
        BlockedStats {
            total_blocked: self.evals.len(),
            total_escaped: self
                .evals
                .values()
                .filter(|e| e.escaped_computed_class)
                .count(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blocked(id: &str, job: &str, create_index: u64, classes: &[(&str, bool)]) -> Evaluation {
        Evaluation {
            id: id.into(),
            namespace: "default".into(),
            job_id: job.into(),
            status: "blocked".into(),
            create_index,
            snapshot_index: create_index,
            class_eligibility: Some(classes.iter().map(|(c, e)| (c.to_string(), *e)).collect()),
            ..Default::default()
        }
    }

    fn enabled() -> BlockedEvals {
        let mut b = BlockedEvals::new();
        b.set_enabled(true);
        b
    }

    #[test]
    fn disabled_tracks_nothing() {
        let mut b = BlockedEvals::new();
        assert_eq!(
            b.block(blocked("e1", "j", 10, &[])),
            BlockOutcome::default()
        );
        assert_eq!(b.stats().total_blocked, 0);
    }

    #[test]
    fn newer_eval_replaces_older_per_job() {
        let mut b = enabled();
        assert!(b.block(blocked("e1", "j", 10, &[])).superseded.is_none());
        let out = b.block(blocked("e2", "j", 20, &[]));
        assert_eq!(out.superseded.map(|e| e.id), Some("e1".to_string()));
        // An older one arriving late is itself superseded.
        let out = b.block(blocked("e0", "j", 5, &[]));
        assert_eq!(out.superseded.map(|e| e.id), Some("e0".to_string()));
        assert_eq!(b.get("default", "j").map(|e| e.id.as_str()), Some("e2"));
        assert_eq!(b.stats().total_blocked, 1);
    }

    #[test]
    fn unblock_respects_class_eligibility() {
        let mut b = enabled();
        b.block(blocked("e1", "a", 10, &[("c1", true)]));
        b.block(blocked("e2", "b", 10, &[("c1", false)]));
        b.block(blocked("e3", "c", 10, &[("c2", false)]));
        let mut escaped = blocked("e4", "d", 10, &[]);
        escaped.escaped_computed_class = true;
        escaped.class_eligibility = None;
        b.block(escaped);
        assert_eq!(b.stats().total_escaped, 1);

        let ids: Vec<_> = b.unblock("c1", 20).into_iter().map(|e| e.id).collect();
        // e2 found c1 ineligible; e3 never saw c1, so it may fit there.
        assert_eq!(ids, vec!["e1", "e3", "e4"]);
        assert_eq!(b.stats().total_blocked, 1);
        assert!(b.get("default", "a").is_none());
    }

    #[test]
    fn missed_unblock_releases_immediately() {
        let mut b = enabled();
        assert!(b.unblock("c1", 50).is_empty());
        // Scheduled at index 40, before the change at 50 on a class it could use.
        let out = b.block(blocked("e1", "a", 40, &[("c1", true)]));
        assert_eq!(out.ready.map(|e| e.id), Some("e1".to_string()));
        // Ineligible for c1: stays blocked.
        let out = b.block(blocked("e2", "b", 40, &[("c1", false)]));
        assert!(out.ready.is_none());
        // Scheduled after the change: stays blocked.
        let out = b.block(blocked("e3", "c", 60, &[("c1", true)]));
        assert!(out.ready.is_none());
        assert_eq!(b.stats().total_blocked, 2);
    }

    #[test]
    fn unblock_node_and_untrack() {
        let mut b = enabled();
        let mut sys = blocked("e1", "sys", 10, &[("c9", false)]);
        sys.node_id = "n1".into();
        b.block(sys);
        b.block(blocked("e2", "web", 10, &[("c9", false)]));
        let ids: Vec<_> = b
            .unblock_node("n1", "c9", 20)
            .into_iter()
            .map(|e| e.id)
            .collect();
        assert_eq!(ids, vec!["e1"]);
        assert_eq!(
            b.untrack("default", "web").map(|e| e.id),
            Some("e2".to_string())
        );
        assert_eq!(b.stats(), BlockedStats::default());
        b.block(blocked("e3", "x", 30, &[]));
        b.set_enabled(false);
        assert_eq!(b.stats(), BlockedStats::default());
        assert!(!b.enabled());
    }
}
