//! Mutations of a `StateSnapshot`. Called only from the FSM's apply, with the raft index the
//! change belongs to; each keeps the secondary indexes and table indexes in step.

use std::sync::Arc;

use super::{key, Id, JobKey, NodeAllocs, StateSnapshot, Table};
use crate::api::{Allocation, Evaluation, Job, JobSummary, Node, NodeEvent};
use crate::scheduler::rank::HeldResources;

impl StateSnapshot {
    pub(crate) fn set_index(&mut self, index: u64) {
        self.index = index;
    }

    pub(super) fn touch(&mut self, table: Table, index: u64) {
        if table == Table::Nodes {
            self.ready_memo = Default::default();
        }
        self.table_index.insert(table, index);
    }

    /// Insert or update a job. The version is bumped when an existing job changes, so every
    /// server computes the same version from the same log.
    pub(crate) fn upsert_job(&mut self, index: u64, mut job: Job, submit_time: i64) -> Arc<Job> {
        let k = key(&job.namespace, &job.id);
        let was_active = self
            .jobs
            .get(&k)
            .is_some_and(|j| crate::server::periodic::is_active(j));
        match self.jobs.get(&k) {
            Some(existing) => {
                job.create_index = existing.create_index;
                job.version = existing.version + 1;
            }
            None => {
                job.create_index = index;
                job.version = 0;
            }
        }
        job.modify_index = index;
        job.job_modify_index = index;
        job.submit_time = submit_time;
        job.stable = false;
        job.status = self.job_status(&job);
        let job = Arc::new(job);
        self.jobs.insert(k.clone(), job.clone());
        self.job_versions
            .insert((k.0.clone(), k.1.clone(), job.version), job.clone());
        self.touch(Table::Jobs, index);
        self.touch(Table::JobVersions, index);
        self.ensure_summary(index, &job);
        self.record_periodic_launch(&job, was_active, submit_time);
        job
    }

    /// An active periodic job's first entry is its registration time (again when it becomes
    /// active after being stopped or disabled, so nothing "missed" meanwhile launches); each
    /// launch of a child (named `<parent>/periodic-<unix seconds>`) then moves the parent's
    /// entry to that time.
    fn record_periodic_launch(&mut self, job: &Job, was_active: bool, submit_time: i64) {
        let k = key(&job.namespace, &job.id);
        let active = crate::server::periodic::is_active(job);
        if active && (!was_active || !self.periodic_launches.contains_key(&k)) {
            self.periodic_launches.insert(k, submit_time);
        }
        if job.parent_id.is_empty() {
            return;
        }
        let pk = key(&job.namespace, &job.parent_id);
        let periodic_parent = self
            .jobs
            .get(&pk)
            .is_some_and(|p| p.is_periodic() && !p.is_parameterized());
        if let (true, Some(at)) = (
            periodic_parent,
            crate::server::periodic::launch_time(&job.id),
        ) {
            self.periodic_launches.insert(pk, at);
        }
    }

    pub(crate) fn delete_job(&mut self, index: u64, ns: &str, id: &str) {
        let k = key(ns, id);
        let Some(removed) = self.jobs.remove(&k) else {
            return;
        };
        let versions: Vec<_> = self
            .job_versions
            .range((ns.to_string(), id.to_string(), 0)..=(ns.to_string(), id.to_string(), u64::MAX))
            .map(|(k, _)| k.clone())
            .collect();
        for v in versions {
            self.job_versions.remove(&v);
        }
        self.job_summaries.remove(&k);
        self.scaling_events.remove(&k);
        self.periodic_launches.remove(&k);
        self.touch(Table::Jobs, index);
        self.touch(Table::JobVersions, index);
        self.touch(Table::JobSummaries, index);
        if !removed.parent_id.is_empty() {
            self.recount_children(index, ns, &removed.parent_id);
        }
    }

    pub(crate) fn upsert_node(&mut self, index: u64, mut node: Node, time: i64) {
        match self.nodes.get(&node.id) {
            Some(existing) => {
                node.create_index = existing.create_index;
                let mut events = existing.events.clone();
                if existing.status != node.status {
                    events.push(node_event(index, "Node re-registered", time));
                }
                node.events = trim_events(events);
            }
            None => {
                node.create_index = index;
                node.events = vec![node_event(index, "Node registered", time)];
            }
        }
        node.modify_index = index;
        self.nodes.insert(node.id.clone(), Arc::new(node));
        self.touch(Table::Nodes, index);
    }

    /// Returns false when the node does not exist.
    pub(crate) fn update_node_status(
        &mut self,
        index: u64,
        node_id: &str,
        status: &str,
        time: i64,
    ) -> bool {
        let Some(existing) = self.nodes.get(node_id) else {
            return false;
        };
        if existing.status == status {
            return true;
        }
        let mut node = (**existing).clone();
        let mut events = node.events.clone();
        events.push(node_event(
            index,
            &format!("Node status changed to {status}"),
            time,
        ));
        node.events = trim_events(events);
        node.status = status.to_string();
        node.status_updated_at = time / 1_000_000_000;
        node.modify_index = index;
        self.nodes.insert(node.id.clone(), Arc::new(node));
        self.touch(Table::Nodes, index);
        true
    }

    /// Insert or replace an alloc as the server sees it (plans). An alloc without a job gets
    /// `job` (the plan's job, for placements) or keeps the one it had (stops); either way the
    /// `Arc` is the version table's, so allocs of one version share one job.
    pub(crate) fn upsert_alloc(
        &mut self,
        index: u64,
        mut alloc: Allocation,
        job: Option<&Arc<Job>>,
    ) {
        let existing = self.allocs.get(alloc.id.as_str()).cloned();
        if let Some(existing) = &existing {
            alloc.create_index = existing.create_index;
            alloc.create_time = existing.create_time;
            // The client owns these; a plan sets them only to mark an alloc lost.
            if alloc.client_status.is_empty() {
                alloc.client_status = existing.client_status.clone();
                alloc.client_description = existing.client_description.clone();
            }
            if alloc.task_states.is_none() {
                alloc.task_states = existing.task_states.clone();
            }
        } else {
            alloc.create_index = index;
        }
        if alloc.job.is_none() {
            alloc.job = job
                .cloned()
                .or_else(|| existing.as_ref().and_then(|e| e.job.clone()));
        }
        if let Some(j) = &alloc.job {
            if let Some(shared) =
                self.job_versions
                    .get(&(j.namespace.clone(), j.id.clone(), j.version))
            {
                alloc.job = Some(shared.clone());
            }
        }
        alloc.modify_index = index;
        alloc.alloc_modify_index = index;
        // A replacement names itself on the alloc it replaces (Nomad's NextAllocation), so
        // `alloc status` and `job restart -reschedule` can follow the chain.
        if existing.is_none() && !alloc.previous_allocation.is_empty() {
            if let Some(prev) = self.allocs.get(alloc.previous_allocation.as_str()) {
                if prev.next_allocation != alloc.id {
                    let mut prev = (**prev).clone();
                    prev.next_allocation = alloc.id.clone();
                    prev.modify_index = index;
                    self.put_alloc(Arc::new(prev));
                }
            }
        }
        self.put_alloc(Arc::new(alloc));
        self.touch(Table::Allocs, index);
    }

    /// Stores an alloc in the table and in both indexes, which hold the same `Arc`, so
    /// reading a node's or job's allocs is one map walk, not a lookup per alloc.
    pub(super) fn put_alloc(&mut self, alloc: Arc<Allocation>) {
        if let Some(old) = self.allocs.get(alloc.id.as_str()) {
            if old.node_id != alloc.node_id
                || old.namespace != alloc.namespace
                || old.job_id != alloc.job_id
            {
                let old = old.clone();
                self.unindex_alloc(&old);
            }
        }
        // Keys already in the tables are shared, not allocated again.
        let id = match self.allocs.get_key_value(alloc.id.as_str()) {
            Some((k, _)) => k.clone(),
            None => Id::from(alloc.id.as_str()),
        };
        if !self.allocs_by_node.contains_key(alloc.node_id.as_str()) {
            self.allocs_by_node
                .insert(Id::from(alloc.node_id.as_str()), NodeAllocs::default());
        }
        let Some(on_node) = self.allocs_by_node.get_mut(alloc.node_id.as_str()) else {
            return;
        };
        if let Some(old) = on_node.allocs.insert(id.clone(), alloc.clone()) {
            if HeldResources::holds(&old) {
                on_node.held.remove(&old);
            }
        }
        if HeldResources::holds(&alloc) {
            on_node.held.add(&alloc);
        }
        self.allocs_by_job
            .entry(key(&alloc.namespace, &alloc.job_id))
            .or_default()
            .insert(id.clone(), alloc.clone());
        self.allocs.insert(id, alloc);
    }

    /// Takes an alloc out of both indexes (not out of the table).
    pub(super) fn unindex_alloc(&mut self, alloc: &Allocation) {
        if let Some(on_node) = self.allocs_by_node.get_mut(alloc.node_id.as_str()) {
            if let Some(old) = on_node.allocs.remove(alloc.id.as_str()) {
                if HeldResources::holds(&old) {
                    on_node.held.remove(&old);
                }
            }
            if on_node.allocs.is_empty() {
                self.allocs_by_node.remove(alloc.node_id.as_str());
            }
        }
        let k = key(&alloc.namespace, &alloc.job_id);
        if let Some(m) = self.allocs_by_job.get_mut(&k) {
            m.remove(alloc.id.as_str());
            if m.is_empty() {
                self.allocs_by_job.remove(&k);
            }
        }
    }

    /// Merge a client's report into an alloc: only client-owned fields are taken.
    /// Returns the updated alloc, or None if the alloc is unknown.
    pub(crate) fn update_alloc_from_client(
        &mut self,
        index: u64,
        update: &Allocation,
        time: i64,
    ) -> Option<Arc<Allocation>> {
        let existing = self.allocs.get(update.id.as_str())?;
        let mut alloc = (**existing).clone();
        alloc.client_status = update.client_status.clone();
        alloc.client_description = update.client_description.clone();
        if update.task_states.is_some() {
            alloc.task_states = update.task_states.clone();
        }
        if update.network_status.is_some() {
            alloc.network_status = update.network_status.clone();
        }
        if let Some(reported) = crate::api::AllocDeploymentStatus::of(update) {
            // The client owns the health verdict; whether the alloc is a canary is the
            // scheduler's.
            let mut status = crate::api::AllocDeploymentStatus::of(&alloc).unwrap_or_default();
            if reported.healthy.is_some() && status.healthy.is_none() {
                status.healthy = reported.healthy;
                status.timestamp = reported.timestamp;
                status.modify_index = index;
                alloc.deployment_status = Some(status.to_value());
            }
        }
        alloc.modify_index = index;
        alloc.modify_time = time;
        let alloc = Arc::new(alloc);
        self.put_alloc(alloc.clone());
        self.touch(Table::Allocs, index);
        Some(alloc)
    }

    pub(crate) fn upsert_eval(&mut self, index: u64, mut eval: Evaluation) {
        match self.evals.get(&eval.id) {
            Some(existing) => eval.create_index = existing.create_index,
            None => eval.create_index = index,
        }
        eval.modify_index = index;
        let k = key(&eval.namespace, &eval.job_id);
        self.evals_by_job
            .entry(k.clone())
            .or_default()
            .insert(eval.id.clone());
        if let Some(queued) = &eval.queued_allocations {
            self.set_queued(index, &k, queued);
        }
        self.evals.insert(eval.id.clone(), Arc::new(eval));
        self.touch(Table::Evals, index);
    }

    /// Recompute a job's status and summary after its allocs or evals changed.
    pub(crate) fn refresh_job(&mut self, index: u64, k: &JobKey) {
        let Some(job) = self.jobs.get(k).cloned() else {
            return;
        };
        let status = self.job_status(&job);
        if status != job.status {
            let mut j = (*job).clone();
            j.status = status;
            j.modify_index = index;
            // Only the jobs table follows the status; the version entry stays the job as
            // registered, which the allocs of that version share.
            self.jobs.insert(k.clone(), Arc::new(j));
            self.touch(Table::Jobs, index);
        }
        self.recount_summary(index, k);
        if !job.parent_id.is_empty() {
            self.recount_children(index, &k.0, &job.parent_id);
        }
    }

    fn ensure_summary(&mut self, index: u64, job: &Job) {
        let k = key(&job.namespace, &job.id);
        let mut summary = self
            .job_summaries
            .get(&k)
            .map(|s| (**s).clone())
            .unwrap_or_else(|| JobSummary {
                job_id: job.id.clone(),
                namespace: job.namespace.clone(),
                create_index: index,
                ..Default::default()
            });
        for tg in &job.task_groups {
            summary.summary.entry(tg.name.clone()).or_default();
        }
        summary
            .summary
            .retain(|name, _| job.lookup_task_group(name).is_some());
        summary.modify_index = index;
        self.job_summaries.insert(k, Arc::new(summary));
        self.touch(Table::JobSummaries, index);
    }
}

fn node_event(index: u64, message: &str, time: i64) -> NodeEvent {
    NodeEvent {
        create_index: index,
        details: None,
        message: message.to_string(),
        subsystem: "Cluster".to_string(),
        timestamp: crate::api::format_rfc3339(time),
    }
}

/// Nomad keeps the last 10 node events.
fn trim_events(mut events: Vec<NodeEvent>) -> Vec<NodeEvent> {
    if events.len() > 10 {
        events.drain(..events.len() - 10);
    }
    events
}
