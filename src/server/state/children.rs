//! The children counts of periodic and parameterized jobs (Nomad's JobSummary.Children):
//! how many launched or dispatched children are pending, running or dead, kept up to date
//! whenever a child's status changes or a child is removed.

use std::sync::Arc;

use super::{key, StateSnapshot};
use crate::api::{JobChildrenSummary, JOB_STATUS_DEAD, JOB_STATUS_PENDING, JOB_STATUS_RUNNING};

impl StateSnapshot {
    pub(crate) fn recount_children(&mut self, index: u64, ns: &str, parent_id: &str) {
        let k = key(ns, parent_id);
        let Some(existing) = self.job_summaries.get(&k).cloned() else {
            return;
        };
        let mut counts = JobChildrenSummary::default();
        for child in self
            .jobs(Some(ns))
            .iter()
            .filter(|j| j.parent_id == parent_id)
        {
            match child.status.as_str() {
                JOB_STATUS_PENDING => counts.pending += 1,
                JOB_STATUS_RUNNING => counts.running += 1,
                JOB_STATUS_DEAD => counts.dead += 1,
                _ => {}
            }
        }
        if counts != existing.children {
            let mut s = (*existing).clone();
            s.children = counts;
            s.modify_index = index;
            self.job_summaries.insert(k, Arc::new(s));
            self.touch(super::Table::JobSummaries, index);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::Job;

    fn job(id: &str, parent: &str) -> Job {
        Job {
            id: id.into(),
            namespace: "default".into(),
            r#type: "batch".into(),
            parent_id: parent.into(),
            parameterized_job: parent.is_empty().then(|| serde_json::json!({})),
            ..Default::default()
        }
    }

    #[test]
    fn children_are_counted_by_status_and_forgotten_when_purged() {
        let mut s = StateSnapshot::default();
        s.upsert_job(1, job("p", ""), 0);
        s.upsert_job(2, job("p/dispatch-1-aaaaaaaa", "p"), 0);
        s.refresh_job(2, &key("default", "p/dispatch-1-aaaaaaaa"));
        s.upsert_job(3, job("p/dispatch-2-bbbbbbbb", "p"), 0);
        s.refresh_job(3, &key("default", "p/dispatch-2-bbbbbbbb"));
        let children =
            |s: &StateSnapshot| s.job_summary("default", "p").map(|x| x.children.clone());
        // Without evals or allocs a child is pending.
        assert_eq!(children(&s).map(|c| c.pending), Some(2));
        s.delete_job(4, "default", "p/dispatch-1-aaaaaaaa");
        assert_eq!(children(&s).map(|c| c.pending), Some(1));
    }
}
