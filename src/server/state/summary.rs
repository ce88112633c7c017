//! Derived state: a job's status and its summary counts, recomputed from its allocs and evals
//! whenever they change (Nomad's getJobStatus and job summary upkeep).

use std::collections::BTreeMap;
use std::sync::Arc;

use super::{key, JobKey, StateSnapshot, Table};
use crate::api::*;

impl StateSnapshot {
    /// Nomad's job status rule: running while any alloc is live, pending while any eval is
    /// live, dead once everything it ever had is terminal, pending if it never had anything.
    pub(crate) fn job_status(&self, job: &Job) -> String {
        if job.r#type == JOB_TYPE_SYSTEM || job.is_template() {
            return if job.stop {
                JOB_STATUS_DEAD
            } else {
                JOB_STATUS_RUNNING
            }
            .to_string();
        }
        let allocs = self.allocs_for_job(&job.namespace, &job.id);
        if allocs.iter().any(|a| !a.terminal()) {
            return JOB_STATUS_RUNNING.to_string();
        }
        let evals = self.evals_for_job(&job.namespace, &job.id);
        if evals.iter().any(|e| !e.terminal()) {
            return JOB_STATUS_PENDING.to_string();
        }
        if !allocs.is_empty() || !evals.is_empty() {
            return JOB_STATUS_DEAD.to_string();
        }
        JOB_STATUS_PENDING.to_string()
    }

    /// Recount the per-group client-status counts from the job's allocs (queued is kept: it
    /// comes from the newest eval).
    pub(crate) fn recount_summary(&mut self, index: u64, k: &JobKey) {
        let Some(existing) = self.job_summaries.get(k).cloned() else {
            return;
        };
        let mut counts: BTreeMap<String, TaskGroupSummary> = existing
            .summary
            .iter()
            .map(|(name, s)| {
                (
                    name.clone(),
                    TaskGroupSummary {
                        queued: s.queued,
                        ..Default::default()
                    },
                )
            })
            .collect();
        let job = self.jobs.get(k).cloned();
        for alloc in self.allocs_for_job(&k.0, &k.1) {
            // Allocs of a purged-and-recreated job with other groups are not counted.
            if job
                .as_ref()
                .is_some_and(|j| j.lookup_task_group(&alloc.task_group).is_none())
            {
                continue;
            }
            let tg = counts.entry(alloc.task_group.clone()).or_default();
            match alloc.client_status.as_str() {
                ALLOC_CLIENT_PENDING => tg.starting += 1,
                ALLOC_CLIENT_RUNNING => tg.running += 1,
                ALLOC_CLIENT_COMPLETE => tg.complete += 1,
                ALLOC_CLIENT_FAILED => tg.failed += 1,
                ALLOC_CLIENT_LOST => tg.lost += 1,
                ALLOC_CLIENT_UNKNOWN => tg.unknown += 1,
                _ => {}
            }
        }
        if counts != existing.summary {
            let mut s = (*existing).clone();
            s.summary = counts;
            s.modify_index = index;
            self.job_summaries.insert(k.clone(), Arc::new(s));
            self.touch_summaries(index);
        }
    }

    pub(crate) fn set_queued(&mut self, index: u64, k: &JobKey, queued: &BTreeMap<String, i64>) {
        let Some(existing) = self.job_summaries.get(k).cloned() else {
            return;
        };
        let mut s = (*existing).clone();
        let mut changed = false;
        for (tg, n) in queued {
            if let Some(entry) = s.summary.get_mut(tg) {
                if entry.queued != *n {
                    entry.queued = *n;
                    changed = true;
                }
            }
        }
        if changed {
            s.modify_index = index;
            self.job_summaries.insert(k.clone(), Arc::new(s));
            self.touch_summaries(index);
        }
    }

    fn touch_summaries(&mut self, index: u64) {
        self.table_index.insert(Table::JobSummaries, index);
    }

    /// Job keys touched by a set of allocs and evals, deduplicated and ordered.
    pub(crate) fn keys_of<'a>(
        allocs: impl IntoIterator<Item = &'a Allocation>,
        evals: &[Evaluation],
    ) -> Vec<JobKey> {
        let mut keys: Vec<JobKey> = allocs
            .into_iter()
            .map(|a| key(&a.namespace, &a.job_id))
            .chain(evals.iter().map(|e| key(&e.namespace, &e.job_id)))
            .collect();
        keys.sort();
        keys.dedup();
        keys
    }
}
