//! Deployments of system jobs (Nomad >= 1.11's `SystemScheduler` deployment handling and the
//! node reconciler's `createDeployment` / `cancelUnnededSystemDeployments`).
//!
//! A system job whose group has `update { max_parallel > 0 }` (the default update block gives
//! every system job one) gets a deployment per job version, created by the first eval of that
//! version that has something to place on a node without an alloc of the version, or an alloc
//! to update. Unlike service deployments, what a system deployment wants is only known once
//! nodes are filtered: `DesiredTotal` is the number of feasible nodes of the group, recomputed
//! every pass.
//!
//! ```text
//!             version changes / first run
//!   (none) ---------------------------------> running --all nodes healthy--> successful
//!                                              |  ^  \--unhealthy, deadline, operator--> failed
//!                                      pause   v  | resume
//!                                             paused      (job stopped / newer version: cancelled)
//! ```
//!
//! Destructive updates go `max_parallel` at a time, less the deployment's allocs whose health
//! is not known yet; the watcher's health updates create the evals that place the next batch.
//! Canaries: `canary` is a PERCENTAGE for system jobs: `ceil(canary% x nodes to update)`,
//! capped by `max_parallel`, of the destructive updates are made first (on their own nodes,
//! flagged canary) and the rest wait for promotion. A paused or failed deployment makes no
//! destructive updates (Nomad's system scheduler only stops creating deployments then; we keep
//! the service semantics the operator expects from `deployment pause/fail`).

use std::collections::{BTreeMap, BTreeSet};

use crate::api::{
    Allocation, Deployment, DeploymentState, DeploymentStatusUpdate, Job, TaskGroup,
    UpdateStrategy, DEPLOYMENT_STATUS_RUNNING, DEPLOYMENT_STATUS_SUCCESSFUL, DESC_SUCCESSFUL,
    JOB_TYPE_SYSTEM,
};

use super::reconcile_deploy::{
    deploy_view, new_deployment, new_group_state, running_description, DeployView,
};

/// The update strategy that gives a system group deployments: `max_parallel > 0`, system jobs
/// only (sysbatch jobs may not have an update block).
pub(super) fn system_strategy<'a>(job: &Job, tg: &'a TaskGroup) -> Option<&'a UpdateStrategy> {
    tg.update
        .as_ref()
        .filter(|u| u.max_parallel > 0 && job.r#type == JOB_TYPE_SYSTEM)
}

/// Destructive updates one pass may make in a group without a deployment: the group's
/// `max_parallel`, else the job's, else all of them.
pub(super) fn base_limit(job: &Job, tg: &TaskGroup) -> usize {
    let group = tg.update.as_ref().map(|u| u.max_parallel).unwrap_or(0);
    let job_level = job.update.as_ref().map(|u| u.max_parallel).unwrap_or(0);
    match (group, job_level) {
        (g, _) if g > 0 => g as usize,
        (_, j) if j > 0 => j as usize,
        _ => usize::MAX,
    }
}

/// Nomad's canary count for system jobs: `canary` percent of the allocs being replaced
/// (existing canaries included), rounded up, at most `max_parallel`.
pub(super) fn required_canaries(u: &UpdateStrategy, destructive: usize, existing: usize) -> usize {
    let pct = u.canary.max(0) as usize;
    let wanted = (pct * (destructive + existing)).div_ceil(100);
    wanted.min(u.max_parallel.max(0) as usize)
}

/// What one group of the pass tells the deployment.
#[derive(Debug, Clone, Default)]
pub(super) struct GroupTally {
    /// Feasible nodes that run (or will run) the group: kept, updated in place, replaced
    /// (placed or still waiting for their batch) and newly placed (Nomad's candidate count).
    pub candidates: i64,
    /// The group is in its canary phase this pass.
    pub canarying: bool,
    pub required_canaries: i64,
    /// Canaries that exist (kept) and that this pass placed.
    pub canary_ids: Vec<String>,
}

/// The job's deployment as one system pass sees and changes it.
#[derive(Debug, Default)]
pub(super) struct SystemDeploy {
    /// The deployment of the job's current version (loaded or created by this pass).
    current: Option<Deployment>,
    changed: bool,
    paused: bool,
    failed: bool,
    /// A finished deployment of this very version exists: no second one is made.
    finished_same_version: bool,
    /// Status changes: older deployments cancelled, this one successful.
    updates: Vec<DeploymentStatusUpdate>,
}

impl SystemDeploy {
    /// Cancels an active deployment of an older version or of a stopped job, as Nomad does.
    pub fn new(job: Option<&Job>, latest: Option<&Deployment>) -> Self {
        let DeployView {
            current,
            paused,
            failed,
            updates,
        } = deploy_view(job, latest);
        let finished_same_version = current.is_none()
            && latest.zip(job).is_some_and(|(d, j)| {
                !j.stop && d.job_version == j.version && d.job_create_index == j.create_index
            });
        SystemDeploy {
            current,
            changed: false,
            paused,
            failed,
            finished_same_version,
            updates,
        }
    }

    /// The status updates alone, for a stopped or purged job (its deployment is cancelled).
    pub fn into_updates(self) -> (Option<Deployment>, Vec<DeploymentStatusUpdate>) {
        (None, self.updates)
    }

    /// The deployment ID new and in-place updated allocs carry ("" without an active one).
    pub fn alloc_deployment_id(&self) -> String {
        self.current
            .as_ref()
            .filter(|d| d.active())
            .map(|d| d.id.clone())
            .unwrap_or_default()
    }

    /// The ID of the deployment this pass works on, for the eval ("" for none).
    pub fn id(&self) -> String {
        self.current
            .as_ref()
            .map(|d| d.id.clone())
            .unwrap_or_default()
    }

    pub fn group_state(&self, group: &str) -> Option<&DeploymentState> {
        self.current.as_ref().and_then(|d| d.task_groups.get(group))
    }

    /// Nomad's `createDeployment` for the groups that `want` one (they have updates, or
    /// placements on nodes that hold no alloc of this version): a group already in the
    /// current deployment, or a paused or failed one, gets none.
    pub fn create_for(&mut self, job: &Job, wanting: &[&TaskGroup], id: &str, now: i64) {
        if self.finished_same_version || self.paused || self.failed {
            return;
        }
        for tg in wanting {
            let Some(u) = system_strategy(job, tg) else {
                continue;
            };
            if self.group_state(&tg.name).is_some() {
                continue;
            }
            let d = self
                .current
                .get_or_insert_with(|| new_deployment(job, id, now));
            let mut st = new_group_state(u, tg, now);
            // Known once nodes are filtered (set in `finish`).
            st.desired_total = 0;
            d.task_groups.insert(tg.name.clone(), st);
            self.changed = true;
        }
    }

    /// Whether the group's destructive updates start with canaries this pass: a canary
    /// percentage, a deployment state not yet promoted, not the job's first version, and
    /// something to replace.
    pub fn canarying(&self, job: &Job, tg: &TaskGroup, destructive: usize) -> bool {
        let Some(u) = system_strategy(job, tg) else {
            return false;
        };
        u.canary > 0
            && job.version != 0
            && destructive > 0
            && !self.failed
            && self.group_state(&tg.name).is_some_and(|st| !st.promoted)
    }

    /// Nomad's `evictAndPlace` limit: `max_parallel` less the deployment's kept allocs whose
    /// health is not known yet (unhealthy ones do not count). Nothing while paused or failed.
    pub fn limit(&self, job: &Job, tg: &TaskGroup, kept: &[&Allocation]) -> usize {
        if self.paused || self.failed {
            return 0;
        }
        let mut limit = base_limit(job, tg);
        if let Some(d) = &self.current {
            let pending = kept
                .iter()
                .filter(|a| a.deployment_id == d.id && a.deployment_healthy().is_none())
                .count();
            limit = limit.saturating_sub(pending);
        }
        limit
    }

    /// Records what the pass found per group (desired totals, canaries), sets the running
    /// description, and marks the deployment successful once every group's nodes are healthy
    /// and no canary waits for promotion. Returns the deployment to write (if it changed) and
    /// the status updates.
    pub fn finish(
        mut self,
        job: &Job,
        groups: &BTreeMap<String, GroupTally>,
    ) -> (Option<Deployment>, Vec<DeploymentStatusUpdate>) {
        let Some(mut d) = self.current.take() else {
            return (None, self.updates);
        };
        let mut complete = true;
        for tg in &job.task_groups {
            let Some(tally) = groups.get(&tg.name).filter(|t| t.candidates > 0) else {
                continue;
            };
            let Some(st) = d.task_groups.get_mut(&tg.name) else {
                continue;
            };
            if st.desired_total != tally.candidates {
                st.desired_total = tally.candidates;
                self.changed = true;
            }
            if tally.canarying {
                // The store recounts PlacedCanaries from the allocs in its own order: only
                // a different set is a change worth writing.
                let set = |ids: &[String]| ids.iter().cloned().collect::<BTreeSet<String>>();
                let known = set(st.placed_canaries.as_deref().unwrap_or_default());
                if st.desired_canaries != tally.required_canaries || known != set(&tally.canary_ids)
                {
                    st.desired_canaries = tally.required_canaries;
                    st.placed_canaries =
                        (!tally.canary_ids.is_empty()).then(|| tally.canary_ids.clone());
                    self.changed = true;
                }
            }
            complete &= !tally.canarying && st.healthy_allocs >= st.desired_total;
        }
        if d.status == DEPLOYMENT_STATUS_RUNNING {
            let desc = running_description(&d);
            if d.status_description != desc {
                d.status_description = desc.to_string();
                self.changed = true;
            }
            if complete && !d.requires_promotion() {
                self.updates.push(DeploymentStatusUpdate {
                    deployment_id: d.id.clone(),
                    status: DEPLOYMENT_STATUS_SUCCESSFUL.to_string(),
                    status_description: DESC_SUCCESSFUL.to_string(),
                });
            }
        }
        (self.changed.then_some(d), self.updates)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canaries_are_a_percentage_of_the_nodes_rounded_up_and_capped_by_max_parallel() {
        let u = |canary, max_parallel| UpdateStrategy {
            canary,
            max_parallel,
            ..Default::default()
        };
        assert_eq!(required_canaries(&u(30, 2), 10, 0), 2, "3 capped by 2");
        assert_eq!(required_canaries(&u(30, 5), 10, 0), 3);
        assert_eq!(required_canaries(&u(30, 3), 7, 1), 3, "ceil(2.4)");
        assert_eq!(required_canaries(&u(50, 5), 1, 0), 1, "ceil(0.5)");
        assert_eq!(required_canaries(&u(100, 10), 4, 0), 4);
        assert_eq!(required_canaries(&u(0, 10), 4, 0), 0);
    }
}
