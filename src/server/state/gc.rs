//! Removing garbage: the state side of core GC and `nomad eval delete`. What to remove is
//! decided by the leader (`server::core_gc`); this only deletes, keeping the indexes true.

use serde::{Deserialize, Serialize};

use super::{key, JobKey, StateSnapshot, Table};

/// Objects to remove in one raft entry.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Reap {
    pub jobs: Vec<JobKey>,
    pub evals: Vec<String>,
    pub allocs: Vec<String>,
    pub deployments: Vec<String>,
    pub nodes: Vec<String>,
}

impl Reap {
    pub fn is_empty(&self) -> bool {
        self.jobs.is_empty()
            && self.evals.is_empty()
            && self.allocs.is_empty()
            && self.deployments.is_empty()
            && self.nodes.is_empty()
    }
}

impl StateSnapshot {
    /// Delete everything `r` names; unknown IDs are skipped (an object may already be gone
    /// when a second GC pass races the first).
    pub(crate) fn reap(&mut self, index: u64, r: &Reap) {
        for id in &r.allocs {
            self.delete_alloc(index, id);
        }
        for id in &r.evals {
            self.delete_eval(index, id);
        }
        for id in &r.deployments {
            self.delete_deployment(index, id);
        }
        for (ns, id) in &r.jobs {
            self.delete_job(index, ns, id);
            self.delete_job_deployments(index, &key(ns, id));
        }
        for id in &r.nodes {
            if self.nodes.remove(id).is_some() {
                self.allocs_by_node.remove(id.as_str());
                self.touch(Table::Nodes, index);
            }
        }
    }

    fn delete_alloc(&mut self, index: u64, id: &str) {
        let Some(alloc) = self.allocs.remove(id) else {
            return;
        };
        self.unindex_alloc(&alloc);
        self.touch(Table::Allocs, index);
    }

    fn delete_eval(&mut self, index: u64, id: &str) {
        let Some(eval) = self.evals.remove(id) else {
            return;
        };
        let k = key(&eval.namespace, &eval.job_id);
        if let Some(set) = self.evals_by_job.get_mut(&k) {
            set.remove(id);
            if set.is_empty() {
                self.evals_by_job.remove(&k);
            }
        }
        self.touch(Table::Evals, index);
    }

    fn delete_deployment(&mut self, index: u64, id: &str) {
        let Some(d) = self.deployments.remove(id) else {
            return;
        };
        let k = key(&d.namespace, &d.job_id);
        if let Some(set) = self.deployments_by_job.get_mut(&k) {
            set.remove(id);
            if set.is_empty() {
                self.deployments_by_job.remove(&k);
            }
        }
        self.touch(Table::Deployments, index);
    }
}
