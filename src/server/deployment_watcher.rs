//! The deployment watcher (leader only): decides alloc health for running deployments, fails
//! them on unhealthy allocs or a missed progress deadline (auto-reverting to the last stable
//! version when asked), auto-promotes healthy canaries, and creates evals so the scheduler
//! keeps rolling. The scheduler itself marks a deployment successful once every group is
//! healthy. System job deployments (Nomad >= 1.11) are watched the same way: their health
//! evals are what lets the system scheduler replace the next `max_parallel` nodes, and their
//! canaries (a percentage of the nodes) are promoted like service canaries.
//!
//! Health follows Nomad's `task_states` check: an alloc is healthy once every task has been
//! running for `min_healthy_time`, unhealthy if a task failed, the alloc stopped, or it was
//! not healthy by `healthy_deadline`. Nomad's client makes this call; here the leader makes
//! it from the task states the client reports (the same inputs). With `health_check =
//! "checks"` and Nomad service checks the client judges (`client::alloc_health`: only it
//! sees the check results) and reports `DeploymentStatus.Healthy`, which is respected as
//! is; with `manual` the operator does.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::Arc;
use std::time::Duration;

use chrono::DateTime;

use super::endpoints::deployment::{promote, set_alloc_health};
use super::state::{AllocsVersion, StateSnapshot};
use super::Server;
use crate::api::{
    now_nanos, Allocation, Deployment, DEPLOYMENT_STATUS_PAUSED, DEPLOYMENT_STATUS_RUNNING,
    DESC_FAILED_ALLOCATIONS, DESC_PROGRESS_DEADLINE, TASK_STATE_RUNNING,
};

const TICK: Duration = Duration::from_millis(500);

pub(crate) async fn run(server: Server) {
    let mut tick = tokio::time::interval(TICK);
    tick.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
    let mut idle = IdleDeployments::default();
    loop {
        tokio::select! {
            _ = server.shutdown_token().cancelled() => return,
            _ = tick.tick() => {}
        }
        if !server.is_leader() {
            idle.0.clear();
            continue;
        }
        let snap = server.state().snapshot();
        let deployments = snap.deployments(None);
        let live: HashSet<&str> = deployments.iter().map(|d| d.id.as_str()).collect();
        idle.0.retain(|id, _| live.contains(id.as_str()));
        for d in &deployments {
            // A paused deployment still learns its allocs' health (Nomad's clients keep
            // reporting it); it only stops moving on.
            if d.status != DEPLOYMENT_STATUS_RUNNING && d.status != DEPLOYMENT_STATUS_PAUSED {
                continue;
            }
            let now = now_nanos();
            let allocs = snap.job_allocs_version(&d.namespace, &d.job_id);
            if idle.unchanged(d, &allocs, now) {
                continue;
            }
            let dec = decide(&snap, d, now);
            if dec.idle() {
                idle.0.insert(
                    d.id.clone(),
                    Idle {
                        deployment: d.clone(),
                        allocs,
                        recheck_at: dec.recheck_at,
                    },
                );
                continue;
            }
            idle.0.remove(&d.id);
            if let Err(e) = act(&server, d, dec, now).await {
                tracing::warn!(deployment = %d.id, error = %e, "deployment watcher");
            }
        }
    }
}

/// Deployments the watcher last found with nothing to do, and what that finding rested on:
/// the deployment's version, its job's allocs' version, and the first time a timer (min
/// healthy time, healthy deadline, progress deadline) could change it. While all three hold,
/// deciding again would decide the same, so a cluster with thousands of quiet deployments
/// costs the watcher a map lookup per deployment per tick, not a walk over all their allocs.
#[derive(Default)]
struct IdleDeployments(HashMap<String, Idle>);

struct Idle {
    deployment: Arc<Deployment>,
    allocs: AllocsVersion,
    /// None: only a state change can give the deployment something to do.
    recheck_at: Option<i64>,
}

impl IdleDeployments {
    fn unchanged(&self, d: &Arc<Deployment>, allocs: &AllocsVersion, now: i64) -> bool {
        self.0.get(&d.id).is_some_and(|idle| {
            Arc::ptr_eq(&idle.deployment, d)
                && idle.allocs.same(allocs)
                && idle.recheck_at.is_none_or(|t| now < t)
        })
    }
}

/// What the watcher decided for one deployment.
#[derive(Debug, Default, PartialEq)]
pub(crate) struct Decision {
    pub healthy: Vec<String>,
    pub unhealthy: Vec<String>,
    pub deadline_missed: bool,
    pub auto_promote: bool,
    /// With nothing to do: the first time a timer could change that without a state change.
    pub recheck_at: Option<i64>,
}

impl Decision {
    fn idle(&self) -> bool {
        self.healthy.is_empty()
            && self.unhealthy.is_empty()
            && !self.deadline_missed
            && !self.auto_promote
    }

    /// Moves `recheck_at` to `t` if that is sooner.
    fn recheck_by(&mut self, t: i64) {
        self.recheck_at = Some(self.recheck_at.map_or(t, |r| r.min(t)));
    }
}

/// Carries out a decision that is not idle: health, failure on a missed deadline, or
/// auto-promotion.
async fn act(
    server: &Server,
    d: &Deployment,
    dec: Decision,
    now: i64,
) -> Result<(), super::endpoints::deployment::DeploymentError> {
    if !dec.healthy.is_empty() || !dec.unhealthy.is_empty() {
        set_alloc_health(
            server,
            &d.id,
            dec.healthy,
            dec.unhealthy,
            DESC_FAILED_ALLOCATIONS,
        )
        .await?;
    } else if dec.deadline_missed {
        // A missed deadline fails like unhealthy allocs, with its own description.
        let snap = server.state().snapshot();
        let (update, job) =
            super::endpoints::deployment::failure(&snap, d, DESC_PROGRESS_DEADLINE, &[]);
        let eval_job = job.clone().or_else(|| {
            snap.job_by_id(&d.namespace, &d.job_id)
                .map(|j| (*j).clone())
        });
        let eval = eval_job.map(|j| super::endpoints::deployment::deployment_eval(&j, &d.id, now));
        let resp = server
            .propose(super::fsm::Command::DeploymentStatusUpdate {
                update,
                job,
                eval,
                time: now,
            })
            .await?;
        if !resp.error.is_empty() {
            tracing::warn!(deployment = %d.id, error = %resp.error, "failing deployment");
        }
    } else if dec.auto_promote {
        promote(server, &d.id, Vec::new()).await?;
    }
    Ok(())
}

/// Pure decision for one running deployment at `now`.
pub(crate) fn decide(snap: &StateSnapshot, d: &Deployment, now: i64) -> Decision {
    let mut dec = Decision::default();
    let allocs: Vec<_> = snap
        .job_allocs_iter(&d.namespace, &d.job_id)
        .filter(|a| a.deployment_id == d.id)
        .collect();
    for a in &allocs {
        if a.deployment_healthy().is_some() || a.server_terminal() {
            continue;
        }
        let health = alloc_health_at(a, now);
        match health.decided {
            Some(true) => dec.healthy.push(a.id.clone()),
            Some(false) => dec.unhealthy.push(a.id.clone()),
            None => {}
        }
        if let Some(t) = health.recheck_at {
            dec.recheck_by(t);
        }
    }
    if !dec.healthy.is_empty() || !dec.unhealthy.is_empty() || d.status != DEPLOYMENT_STATUS_RUNNING
    {
        return dec;
    }
    let canaries_healthy = |group: &str, want: i64| {
        allocs
            .iter()
            .filter(|a| a.task_group == group && a.is_canary())
            .filter(|a| a.deployment_healthy() == Some(true))
            .count() as i64
            >= want
    };
    for (group, st) in &d.task_groups {
        let waiting_promotion =
            st.desired_canaries > 0 && !st.promoted && canaries_healthy(group, st.desired_canaries);
        let done =
            st.healthy_allocs >= st.desired_total && (st.desired_canaries == 0 || st.promoted);
        if st.progress_deadline > 0 && !done && !waiting_promotion {
            if let Ok(t) = DateTime::parse_from_rfc3339(&st.require_progress_by) {
                let by = t.timestamp_nanos_opt().unwrap_or(i64::MAX);
                if by > 0 && now > by {
                    dec.deadline_missed = true;
                } else if by > 0 {
                    dec.recheck_by(by.saturating_add(1));
                }
            }
        }
    }
    if !dec.deadline_missed && d.requires_promotion() && d.has_auto_promote() {
        dec.auto_promote = d
            .task_groups
            .iter()
            .filter(|(_, st)| st.desired_canaries > 0)
            .all(|(g, st)| canaries_healthy(g, st.desired_canaries));
    }
    dec
}

fn parse_nanos(s: &Option<String>) -> Option<i64> {
    s.as_deref()
        .and_then(|s| DateTime::parse_from_rfc3339(s).ok())
        .and_then(|t| t.timestamp_nanos_opt())
}

/// Nomad's `task_states` health: `Some(true)` healthy, `Some(false)` unhealthy, `None` not
/// decided yet.
#[cfg(test)]
pub(crate) fn alloc_health(a: &Allocation, now: i64) -> Option<bool> {
    alloc_health_at(a, now).decided
}

/// An alloc's health at some time, and when it could next change without a state change.
#[derive(Debug, Default, Clone, Copy, PartialEq)]
pub(crate) struct Health {
    pub decided: Option<bool>,
    /// Undecided only: when `min_healthy_time` or `healthy_deadline` runs out.
    pub recheck_at: Option<i64>,
}

impl Health {
    fn decided(healthy: bool) -> Health {
        Health {
            decided: Some(healthy),
            recheck_at: None,
        }
    }
}

fn alloc_health_at(a: &Allocation, now: i64) -> Health {
    let Some(tg) = a
        .job
        .as_ref()
        .and_then(|j| j.lookup_task_group(&a.task_group))
    else {
        return Health::default();
    };
    let default;
    let u = match &tg.update {
        Some(u) => u,
        None => {
            default = crate::api::UpdateStrategy::default();
            &default
        }
    };
    // `checks` with Nomad service checks: the client judges (it runs the checks), and
    // `manual`: the operator does. Either way an alloc that stopped is unhealthy.
    if u.health_check == "manual" || crate::client::alloc_health::needs_client_health(tg) {
        return Health {
            decided: a.client_terminal().then_some(false),
            recheck_at: None,
        };
    }
    task_states_health_at(a, tg, u.min_healthy_time, u.healthy_deadline, now)
}

/// The `task_states` health check with explicit timings (the drainer uses the group's
/// `migrate` block).
pub(crate) fn task_states_health(
    a: &Allocation,
    tg: &crate::api::TaskGroup,
    min_healthy_time: i64,
    healthy_deadline: i64,
    now: i64,
) -> Option<bool> {
    task_states_health_at(a, tg, min_healthy_time, healthy_deadline, now).decided
}

fn task_states_health_at(
    a: &Allocation,
    tg: &crate::api::TaskGroup,
    min_healthy_time: i64,
    healthy_deadline: i64,
    now: i64,
) -> Health {
    if a.client_terminal() {
        return Health::decided(false);
    }
    let no_states = BTreeMap::new();
    let states = a.task_states.as_ref().unwrap_or(&no_states);
    if states.values().any(|s| s.failed) {
        return Health::decided(false);
    }
    let deadline = a.create_time.saturating_add(healthy_deadline);
    let mut since = 0i64;
    let mut all_running = !states.is_empty() && a.client_status == crate::api::ALLOC_CLIENT_RUNNING;
    for t in &tg.tasks {
        // Tasks with a lifecycle hook that is not a sidecar may finish; only main tasks count.
        let sidecar = |l: &serde_json::Value| {
            l.get("Sidecar")
                .and_then(serde_json::Value::as_bool)
                .unwrap_or(false)
        };
        if t.lifecycle
            .as_ref()
            .is_some_and(|l| !l.is_null() && !sidecar(l))
        {
            continue;
        }
        match states.get(&t.name) {
            Some(s) if s.state == TASK_STATE_RUNNING => {
                let start = parse_nanos(&s.last_restart)
                    .into_iter()
                    .chain(parse_nanos(&s.started_at))
                    .max()
                    .unwrap_or(now);
                since = since.max(start);
            }
            _ => all_running = false,
        }
    }
    if all_running && now.saturating_sub(since) >= min_healthy_time {
        return Health::decided(true);
    }
    if healthy_deadline > 0 && now > deadline {
        return Health::decided(false);
    }
    let healthy_at = all_running.then(|| since.saturating_add(min_healthy_time));
    let unhealthy_at = (healthy_deadline > 0).then(|| deadline.saturating_add(1));
    Health {
        decided: None,
        recheck_at: healthy_at.into_iter().chain(unhealthy_at).min(),
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::api::{format_rfc3339, Job, Task, TaskGroup, TaskState, UpdateStrategy, SECOND};

    fn alloc_with(state: &str, failed: bool, started: i64, client: &str) -> Allocation {
        let job = Job {
            task_groups: vec![TaskGroup {
                name: "g".into(),
                tasks: vec![Task {
                    name: "t".into(),
                    ..Default::default()
                }],
                update: Some(UpdateStrategy {
                    min_healthy_time: 10 * SECOND,
                    healthy_deadline: 60 * SECOND,
                    ..Default::default()
                }),
                ..Default::default()
            }],
            ..Default::default()
        };
        Allocation {
            job: Some(Arc::new(job)),
            task_group: "g".into(),
            client_status: client.into(),
            create_time: 0,
            task_states: Some(
                [(
                    "t".to_string(),
                    TaskState {
                        state: state.into(),
                        failed,
                        started_at: Some(format_rfc3339(started)),
                        ..Default::default()
                    },
                )]
                .into(),
            ),
            ..Default::default()
        }
    }

    #[test]
    fn task_states_health() {
        let s = SECOND;
        let a = alloc_with("running", false, 5 * s, "running");
        assert_eq!(alloc_health(&a, 10 * s), None, "not yet min_healthy_time");
        assert_eq!(alloc_health(&a, 16 * s), Some(true));
        let f = alloc_with("dead", true, 5 * s, "failed");
        assert_eq!(alloc_health(&f, 6 * s), Some(false));
        let p = alloc_with("pending", false, 0, "pending");
        assert_eq!(alloc_health(&p, 30 * s), None);
        assert_eq!(
            alloc_health(&p, 61 * s),
            Some(false),
            "past healthy_deadline"
        );
    }

    #[test]
    fn an_idle_deployment_is_skipped_until_its_allocs_change_or_a_timer_is_due() {
        use crate::api::{Deployment, ALLOC_DESIRED_RUN, JOB_TYPE_SERVICE};
        use crate::server::fsm::{Command, Fsm};
        use crate::server::state::StateStore;

        let s = SECOND;
        let store = StateStore::new();
        let template = alloc_with("running", false, 5 * s, "running");
        let job = Job {
            id: "web".into(),
            name: "web".into(),
            namespace: "default".into(),
            r#type: JOB_TYPE_SERVICE.into(),
            ..template.job.as_deref().cloned().unwrap_or_default()
        };
        store.apply(
            1,
            &Command::JobRegister {
                job,
                eval: None,
                submit_time: 1,
            },
        );
        let job = store.snapshot().job_by_id("default", "web").expect("job");
        let placed = Allocation {
            id: "a1".into(),
            namespace: "default".into(),
            job_id: "web".into(),
            node_id: "n1".into(),
            deployment_id: "d1".into(),
            desired_status: ALLOC_DESIRED_RUN.into(),
            ..template
        };
        store.apply(
            2,
            &Command::ApplyPlan {
                job: Some(job),
                stopped: Vec::new(),
                placed: vec![Arc::new(placed.clone())],
                evals: Vec::new(),
                time: 1,
                deployment: Some(Deployment {
                    id: "d1".into(),
                    namespace: "default".into(),
                    job_id: "web".into(),
                    status: DEPLOYMENT_STATUS_RUNNING.into(),
                    ..Default::default()
                }),
                deployment_updates: Vec::new(),
            },
        );
        let snap = store.snapshot();
        let d = snap.deployment_by_id("d1").expect("deployment");
        let dec = decide(&snap, &d, 6 * s);
        assert!(dec.idle(), "{dec:?}");
        assert_eq!(dec.recheck_at, Some(15 * s), "when min_healthy_time is up");

        let allocs = snap.job_allocs_version("default", "web");
        let mut idle = IdleDeployments::default();
        idle.0.insert(
            "d1".into(),
            Idle {
                deployment: d.clone(),
                allocs: allocs.clone(),
                recheck_at: dec.recheck_at,
            },
        );
        assert!(idle.unchanged(&d, &allocs, 14 * s));
        assert!(!idle.unchanged(&d, &allocs, 15 * s), "the timer is due");
        assert_eq!(decide(&snap, &d, 15 * s).healthy, vec!["a1".to_string()]);

        // A client update of one of the job's allocs is a change, whatever the time.
        store.apply(
            3,
            &Command::AllocClientUpdate {
                allocs: vec![Allocation {
                    client_status: "failed".into(),
                    ..placed
                }],
                evals: Vec::new(),
                time: 7 * s,
            },
        );
        let changed = store.snapshot().job_allocs_version("default", "web");
        assert!(!idle.unchanged(&d, &changed, 8 * s));
        assert!(!changed.same(&allocs));
        assert!(allocs.same(&snap.job_allocs_version("default", "web")));
    }

    #[test]
    fn undecided_health_says_when_a_timer_can_decide_it() {
        let s = SECOND;
        let running = alloc_with("running", false, 5 * s, "running");
        assert_eq!(
            alloc_health_at(&running, 10 * s),
            Health {
                decided: None,
                recheck_at: Some(15 * s)
            },
            "healthy once min_healthy_time has run since the start"
        );
        let pending = alloc_with("pending", false, 0, "pending");
        assert_eq!(
            alloc_health_at(&pending, 30 * s).recheck_at,
            Some(60 * s + 1),
            "unhealthy only past healthy_deadline"
        );
        assert_eq!(
            alloc_health_at(&running, 16 * s),
            Health {
                decided: Some(true),
                recheck_at: None
            }
        );
    }
}
