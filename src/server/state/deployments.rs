//! The deployments table: reads, writes, and the per-group counters Nomad keeps in step with
//! the allocs of a deployment (placed, canaries, healthy, unhealthy).

use std::sync::Arc;

use super::{key, JobKey, StateSnapshot, Table};
use crate::api::{
    format_rfc3339, AllocDeploymentStatus, Deployment, DeploymentStatusUpdate,
    DEPLOYMENT_STATUS_RUNNING,
};

impl StateSnapshot {
    pub fn deployment_by_id(&self, id: &str) -> Option<Arc<Deployment>> {
        self.deployments.get(id).cloned()
    }

    /// Deployments in ID order; `ns = None` or `"*"` means every namespace.
    pub fn deployments(&self, ns: Option<&str>) -> Vec<Arc<Deployment>> {
        self.deployments
            .values()
            .filter(|d| super::ns_matches(ns, &d.namespace))
            .cloned()
            .collect()
    }

    /// A job's deployments, newest (highest create index) first.
    pub fn deployments_for_job(&self, ns: &str, job_id: &str) -> Vec<Arc<Deployment>> {
        let mut out: Vec<Arc<Deployment>> = self
            .deployments_by_job
            .get(&key(ns, job_id))
            .map(|ids| {
                ids.iter()
                    .filter_map(|id| self.deployments.get(id).cloned())
                    .collect()
            })
            .unwrap_or_default();
        out.sort_by(|a, b| b.create_index.cmp(&a.create_index).then(a.id.cmp(&b.id)));
        out
    }

    /// The job's most recent deployment.
    pub fn latest_deployment(&self, ns: &str, job_id: &str) -> Option<Arc<Deployment>> {
        self.deployments_for_job(ns, job_id).into_iter().next()
    }

    pub(crate) fn upsert_deployment(&mut self, index: u64, mut d: Deployment, time: i64) {
        match self.deployments.get(&d.id) {
            Some(existing) => {
                d.create_index = existing.create_index;
                d.create_time = existing.create_time;
            }
            None => {
                d.create_index = index;
                if d.create_time == 0 {
                    d.create_time = time;
                }
            }
        }
        d.modify_index = index;
        d.modify_time = time;
        self.deployments_by_job
            .entry(key(&d.namespace, &d.job_id))
            .or_default()
            .insert(d.id.clone());
        self.deployments.insert(d.id.clone(), Arc::new(d));
        self.touch(Table::Deployments, index);
    }

    /// Returns false when the deployment does not exist.
    pub(crate) fn update_deployment_status(
        &mut self,
        index: u64,
        u: &DeploymentStatusUpdate,
        time: i64,
    ) -> bool {
        let Some(existing) = self.deployments.get(&u.deployment_id) else {
            return false;
        };
        let mut d = (**existing).clone();
        d.status = u.status.clone();
        d.status_description = u.status_description.clone();
        self.upsert_deployment(index, d, time);
        true
    }

    /// Mark the canaries of `groups` (all groups when empty) promoted.
    pub(crate) fn promote_deployment(
        &mut self,
        index: u64,
        id: &str,
        groups: &[String],
        time: i64,
    ) -> Result<(), String> {
        let Some(existing) = self.deployments.get(id) else {
            return Err(format!("deployment {id} not found"));
        };
        let mut d = (**existing).clone();
        for (name, st) in d.task_groups.iter_mut() {
            if st.desired_canaries > 0 && (groups.is_empty() || groups.contains(name)) {
                st.promoted = true;
            }
        }
        if d.status == DEPLOYMENT_STATUS_RUNNING {
            d.status_description = crate::api::DESC_RUNNING.to_string();
        }
        self.upsert_deployment(index, d, time);
        Ok(())
    }

    /// Record health for allocs of a deployment (from the watcher or an operator).
    pub(crate) fn set_alloc_health(
        &mut self,
        index: u64,
        healthy: &[String],
        unhealthy: &[String],
        time: i64,
    ) {
        for (ids, h) in [(healthy, true), (unhealthy, false)] {
            for id in ids {
                let Some(existing) = self.allocs.get(id.as_str()) else {
                    continue;
                };
                let mut a = (**existing).clone();
                let mut st = AllocDeploymentStatus::of(&a).unwrap_or_default();
                st.healthy = Some(h);
                st.timestamp = format_rfc3339(time);
                st.modify_index = index;
                a.deployment_status = Some(st.to_value());
                a.modify_index = index;
                a.modify_time = time;
                self.put_alloc(Arc::new(a));
                self.touch(Table::Allocs, index);
            }
        }
    }

    /// Recount the deployment counters of a job's deployments from its allocs. When a group
    /// gained a healthy alloc, its progress deadline moves to `time + ProgressDeadline`.
    pub(crate) fn recount_deployments(&mut self, index: u64, k: &JobKey, time: i64) {
        let ids: Vec<String> = self
            .deployments_by_job
            .get(k)
            .map(|s| s.iter().cloned().collect())
            .unwrap_or_default();
        if ids.is_empty() {
            return;
        }
        let allocs = self.allocs_for_job(&k.0, &k.1);
        for id in ids {
            let Some(existing) = self.deployments.get(&id).cloned() else {
                continue;
            };
            let mut d = (*existing).clone();
            let active = d.active();
            for (group, st) in d.task_groups.iter_mut() {
                let mine: Vec<_> = allocs
                    .iter()
                    .filter(|a| a.deployment_id == id && &a.task_group == group)
                    .collect();
                let canaries: Vec<String> = mine
                    .iter()
                    .filter(|a| a.is_canary())
                    .map(|a| a.id.clone())
                    .collect();
                let healthy = mine
                    .iter()
                    .filter(|a| a.deployment_healthy() == Some(true))
                    .count() as i64;
                let unhealthy = mine
                    .iter()
                    .filter(|a| a.deployment_healthy() == Some(false))
                    .count() as i64;
                if healthy > st.healthy_allocs && st.progress_deadline > 0 && active {
                    st.require_progress_by =
                        format_rfc3339(time.saturating_add(st.progress_deadline));
                }
                st.placed_allocs = mine.len() as i64;
                st.placed_canaries = (!canaries.is_empty()).then_some(canaries);
                st.healthy_allocs = healthy;
                st.unhealthy_allocs = unhealthy;
            }
            if d != *existing {
                self.upsert_deployment(index, d, time);
            }
        }
    }

    pub(crate) fn delete_job_deployments(&mut self, index: u64, k: &JobKey) {
        if let Some(ids) = self.deployments_by_job.remove(k) {
            for id in ids {
                self.deployments.remove(&id);
            }
            self.touch(Table::Deployments, index);
        }
    }
}

impl StateSnapshot {
    /// Mark one job version stable (a deployment of it succeeded), in the versions table and,
    /// when it is the current version, in the jobs table.
    pub(crate) fn set_job_stable(&mut self, index: u64, ns: &str, id: &str, version: u64) {
        let vk = (ns.to_string(), id.to_string(), version);
        let Some(v) = self.job_versions.get(&vk).cloned() else {
            return;
        };
        if v.stable {
            return;
        }
        let mut j = (*v).clone();
        j.stable = true;
        let j = Arc::new(j);
        self.job_versions.insert(vk, j.clone());
        let k = key(ns, id);
        if let Some(cur) = self.jobs.get(&k).cloned() {
            if cur.version == version {
                let mut c = (*cur).clone();
                c.stable = true;
                c.modify_index = index;
                self.jobs.insert(k, Arc::new(c));
            }
        }
        self.touch(Table::Jobs, index);
        self.touch(Table::JobVersions, index);
    }
}
