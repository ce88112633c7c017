//! The periodic dispatcher (leader only): launches a child `<parent>/periodic-<unix>` of each
//! active periodic job whenever one of its cron specs comes due, skipping a launch while an
//! earlier child still runs if the job prohibits overlap.
//!
//! ```text
//!   state (jobs) --sync--> PeriodicTracker { job -> next launch } --due(now)--> launches
//!                                                                       |
//!   prohibit_overlap && running child? --yes--> skip ---------------------+--no--> JobRegister
//! ```
//! [`PeriodicTracker`] is the pure core (jobs and a time in, launches out), driven by tests
//! with fixed times; [`run`] is the shell that reads the clock, syncs from state, and proposes
//! the children. The clock is injected so tests can move time.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use super::eval_broker::Clock;
use super::fsm::Command;
use super::state::StateSnapshot;
use super::{Server, ServerError};
use crate::api::cron::PeriodicSpec;
use crate::api::*;

/// The trigger of a periodic launch's eval (Nomad's EvalTriggerPeriodicJob).
pub const TRIGGER_PERIODIC_JOB: &str = "periodic-job";
/// The ID infix of periodic children (Nomad's PeriodicLaunchSuffix).
pub const PERIODIC_LAUNCH_SUFFIX: &str = "/periodic-";

/// Longest sleep between checks, so a job registered meanwhile is picked up soon.
const MAX_SLEEP: Duration = Duration::from_secs(1);

type JobKey = (String, String);

struct Tracked {
    job: Arc<Job>,
    spec: PeriodicSpec,
    /// Unix nanoseconds of the next launch; `None` when no spec ever matches again.
    next: Option<i64>,
}

/// Which periodic jobs are active and when each launches next.
#[derive(Default)]
pub struct PeriodicTracker {
    jobs: BTreeMap<JobKey, Tracked>,
}

/// A periodic job is active when it is enabled, not stopped and not a parameterized template.
pub fn is_active(job: &Job) -> bool {
    job.is_periodic()
        && !job.stop
        && !job.is_parameterized()
        && PeriodicSpec::from_job(job)
            .ok()
            .flatten()
            .is_some_and(|s| s.enabled)
}

impl PeriodicTracker {
    /// Track the active periodic jobs among `jobs` (all jobs in state); a job that is new or
    /// changed gets its next launch counted from `now`, one that is gone is dropped.
    ///
    /// `last_launch` gives, for a job first seen, when it last launched (the state's launch
    /// table): its next launch counts from then, and a launch that came due meanwhile (while no
    /// leader ran it) happens now, once, as Nomad's leader restores its periodic dispatcher. A
    /// job first seen because it was just registered has its registration time there, which is
    /// the same as counting from now; a changed job counts from now.
    pub fn sync(&mut self, jobs: &[Arc<Job>], now: i64, last_launch: impl Fn(&Job) -> Option<i64>) {
        let mut seen = BTreeMap::new();
        for job in jobs.iter().filter(|j| is_active(j)) {
            let key = (job.namespace.clone(), job.id.clone());
            let unchanged = self
                .jobs
                .get(&key)
                .is_some_and(|t| t.job.job_modify_index == job.job_modify_index);
            if !unchanged {
                let first_seen = !self.jobs.contains_key(&key);
                if let Ok(Some(spec)) = PeriodicSpec::from_job(job) {
                    let last = if first_seen { last_launch(job) } else { None };
                    let next = match last {
                        Some(last) => spec.next_after(last).map(|n| n.max(now)),
                        None => spec.next_after(now),
                    };
                    let tracked = Tracked {
                        job: job.clone(),
                        spec,
                        next,
                    };
                    self.jobs.insert(key.clone(), tracked);
                }
            }
            seen.insert(key, ());
        }
        self.jobs.retain(|k, _| seen.contains_key(k));
    }

    /// The launches due at `now`, each with its launch time; their next launches move on.
    pub fn due(&mut self, now: i64) -> Vec<(Arc<Job>, i64)> {
        let mut out = Vec::new();
        for t in self.jobs.values_mut() {
            if let Some(at) = t.next.filter(|at| *at <= now) {
                out.push((t.job.clone(), at));
                // A launch missed by more than one period runs once, not once per period.
                t.next = t.spec.next_after(at.max(now));
            }
        }
        out
    }

    /// When the earliest tracked launch is.
    pub fn next_wakeup(&self) -> Option<i64> {
        self.jobs.values().filter_map(|t| t.next).min()
    }

    pub fn tracked(&self) -> usize {
        self.jobs.len()
    }
}

/// The launch time (Unix nanoseconds) a periodic child's ID carries.
pub fn launch_time(child_id: &str) -> Option<i64> {
    let (_, secs) = child_id.rsplit_once(PERIODIC_LAUNCH_SUFFIX)?;
    secs.parse::<i64>().ok()?.checked_mul(1_000_000_000)
}

/// The child a launch at `launch` (Unix nanoseconds) creates.
pub fn derive_child(parent: &Job, launch: i64) -> Job {
    let mut child = parent.clone();
    child.parent_id = parent.id.clone();
    child.id = format!(
        "{}{PERIODIC_LAUNCH_SUFFIX}{}",
        parent.id,
        launch.div_euclid(1_000_000_000)
    );
    child.name = child.id.clone();
    child.periodic = None;
    child.status = String::new();
    child.status_description = String::new();
    child
}

/// Whether an earlier child of `parent` still has a live eval or alloc.
pub fn running_children(snap: &StateSnapshot, parent: &Job) -> bool {
    let prefix = format!("{}{PERIODIC_LAUNCH_SUFFIX}", parent.id);
    snap.jobs(Some(&parent.namespace))
        .iter()
        .filter(|c| c.parent_id == parent.id && c.id.starts_with(&prefix))
        .any(|c| {
            snap.evals_for_job(&c.namespace, &c.id)
                .iter()
                .any(|e| !e.terminal())
                || snap
                    .allocs_for_job(&c.namespace, &c.id)
                    .iter()
                    .any(|a| !a.terminal())
        })
}

/// Register the child of a launch with its eval. Returns the eval.
pub async fn launch(
    server: &Server,
    parent: &Job,
    at: i64,
) -> Result<(Evaluation, u64), ServerError> {
    let child = derive_child(parent, at);
    let now = now_nanos();
    let eval = Evaluation {
        id: generate_id(),
        namespace: child.namespace.clone(),
        priority: child.priority,
        r#type: child.r#type.clone(),
        triggered_by: TRIGGER_PERIODIC_JOB.to_string(),
        job_id: child.id.clone(),
        status: EVAL_STATUS_PENDING.to_string(),
        create_time: now,
        modify_time: now,
        ..Default::default()
    };
    let resp = server
        .propose(Command::JobRegister {
            job: child,
            eval: Some(eval.clone()),
            submit_time: now,
        })
        .await?;
    Ok((eval, resp.index))
}

/// Periodic.Force: launch a child of a periodic job now, whatever its schedule.
pub async fn force(
    server: &Server,
    namespace: &str,
    job_id: &str,
) -> Result<PeriodicForceResponse, ServerError> {
    if job_id.is_empty() {
        return Err(ServerError::BadRequest(
            "missing job ID for evaluation".to_string(),
        ));
    }
    let snap = server.state().snapshot();
    let job = snap
        .job_by_id(namespace, job_id)
        .ok_or_else(|| ServerError::NotFound("job not found".to_string()))?;
    if !job.is_periodic() {
        return Err(ServerError::BadRequest(
            "can't force launch non-periodic job".to_string(),
        ));
    }
    if !is_active(&job) {
        return Err(ServerError::BadRequest(format!(
            "force launch for job {job_id:?} failed: can't force run non-tracked job {job_id:?} ({namespace})"
        )));
    }
    let (eval, index) = launch(server, &job, now_nanos()).await?;
    Ok(PeriodicForceResponse {
        eval_create_index: index,
        eval_id: eval.id,
        index,
    })
}

/// The leader's loop: sync with state, launch what is due, sleep until the next launch (at
/// most a second). Not leading, it tracks nothing, so a new leader starts from its own now.
pub(crate) async fn run(server: Server, clock: Arc<dyn Clock>) {
    let mut tracker = PeriodicTracker::default();
    loop {
        if server.is_leader() {
            let now = clock.unix_nanos();
            let snap = server.state().snapshot();
            // A job the tracker has not seen (all of them on gaining leadership, even those
            // whose log entries are applied only after it) counts from its last launch.
            tracker.sync(&snap.jobs(None), now, |j| {
                snap.periodic_launch(&j.namespace, &j.id)
            });
            for (job, at) in tracker.due(now) {
                if is_overlap_prohibited(&job) && running_children(&snap, &job) {
                    tracing::debug!(job = %job.id, "skipping periodic launch: a child still runs");
                    continue;
                }
                if let Err(e) = launch(&server, &job, at).await {
                    tracing::warn!(job = %job.id, error = %e, "periodic launch failed");
                }
            }
        } else if tracker.tracked() > 0 {
            tracker = PeriodicTracker::default();
        }
        let sleep = tracker
            .next_wakeup()
            .map(|at| Duration::from_nanos((at - clock.unix_nanos()).max(0) as u64))
            .map_or(MAX_SLEEP, |d| d.min(MAX_SLEEP));
        tokio::select! {
            _ = server.shutdown_token().cancelled() => return,
            _ = tokio::time::sleep(sleep) => {}
        }
    }
}

fn is_overlap_prohibited(job: &Job) -> bool {
    PeriodicSpec::from_job(job)
        .ok()
        .flatten()
        .is_some_and(|s| s.prohibit_overlap)
}

#[cfg(test)]
mod tests {
    use super::*;

    const SEC: i64 = 1_000_000_000;
    /// 2026-12-03T06:00:00Z.
    const T0: i64 = 1_796_277_600 * SEC;

    fn periodic(id: &str, cron: &str, index: u64) -> Arc<Job> {
        let cfg = PeriodicConfig {
            spec: Some(cron.to_string()),
            enabled: Some(true),
            ..Default::default()
        };
        Arc::new(Job {
            id: id.into(),
            namespace: "default".into(),
            periodic: serde_json::to_value(cfg).ok(),
            job_modify_index: index,
            ..Default::default()
        })
    }

    #[test]
    fn launches_come_due_on_the_cron_schedule() {
        let mut t = PeriodicTracker::default();
        let jobs = vec![
            periodic("every5", "*/5 * * * *", 1),
            periodic("hourly", "@hourly", 1),
        ];
        t.sync(&jobs, T0 + 30 * SEC, |_| None);
        assert_eq!(t.tracked(), 2);
        assert_eq!(t.next_wakeup(), Some(T0 + 300 * SEC));
        assert!(t.due(T0 + 299 * SEC).is_empty());
        let due = t.due(T0 + 300 * SEC);
        assert_eq!(due.len(), 1);
        assert_eq!((due[0].0.id.as_str(), due[0].1), ("every5", T0 + 300 * SEC));
        assert_eq!(t.next_wakeup(), Some(T0 + 600 * SEC));
        // Woken late past several periods: one launch, then back on schedule.
        let due = t.due(T0 + 3600 * SEC + 5 * SEC);
        let ids: Vec<_> = due.iter().map(|(j, at)| (j.id.as_str(), *at)).collect();
        assert_eq!(
            ids,
            vec![("every5", T0 + 600 * SEC), ("hourly", T0 + 3600 * SEC)]
        );
        assert_eq!(t.next_wakeup(), Some(T0 + 3900 * SEC));
    }

    #[test]
    fn sync_keeps_unchanged_jobs_and_drops_inactive_ones() {
        let mut t = PeriodicTracker::default();
        t.sync(&[periodic("a", "*/5 * * * *", 1)], T0, |_| None);
        // Unchanged: the schedule is not recomputed from the later now.
        t.sync(&[periodic("a", "*/5 * * * *", 1)], T0 + 299 * SEC, |_| None);
        assert_eq!(t.next_wakeup(), Some(T0 + 300 * SEC));
        // Changed spec: recomputed.
        t.sync(&[periodic("a", "0 7 * * *", 2)], T0 + 299 * SEC, |_| None);
        assert_eq!(t.next_wakeup(), Some(T0 + 3600 * SEC));
        let mut stopped = (*periodic("a", "0 7 * * *", 3)).clone();
        stopped.stop = true;
        t.sync(&[Arc::new(stopped)], T0, |_| None);
        assert_eq!(t.tracked(), 0);
        let mut param = (*periodic("p", "@daily", 1)).clone();
        param.parameterized_job = Some(serde_json::json!({}));
        t.sync(&[Arc::new(param)], T0, |_| None);
        assert_eq!(t.tracked(), 0);
    }

    #[test]
    fn a_new_leader_launches_once_what_came_due_while_none_ran() {
        let job = periodic("every5", "*/5 * * * *", 1);
        // Last launched at T0; the leader that would have launched at T0+5m was gone until
        // T0+17m: one launch now, then back on schedule.
        let mut t = PeriodicTracker::default();
        t.sync(std::slice::from_ref(&job), T0 + 17 * 60 * SEC, |_| Some(T0));
        let due = t.due(T0 + 17 * 60 * SEC);
        assert_eq!(due.len(), 1);
        assert_eq!(due[0].1, T0 + 17 * 60 * SEC);
        assert_eq!(t.next_wakeup(), Some(T0 + 20 * 60 * SEC));
        // Nothing was missed: the next launch counts from the last one, as usual.
        let mut t = PeriodicTracker::default();
        t.sync(std::slice::from_ref(&job), T0 + 60 * SEC, |_| Some(T0));
        assert!(t.due(T0 + 60 * SEC).is_empty());
        assert_eq!(t.next_wakeup(), Some(T0 + 300 * SEC));
        // A changed job counts from now, whatever its last launch.
        let changed = periodic("every5", "*/10 * * * *", 2);
        t.sync(std::slice::from_ref(&changed), T0 + 17 * 60 * SEC, |_| {
            Some(T0)
        });
        assert_eq!(t.next_wakeup(), Some(T0 + 20 * 60 * SEC));
        assert!(t.due(T0 + 17 * 60 * SEC).is_empty());
        assert_eq!(launch_time("every5/periodic-1796277600"), Some(T0));
        assert_eq!(launch_time("every5"), None);
    }

    #[test]
    fn children_are_named_by_launch_time_and_not_periodic() {
        let parent = periodic("batchy", "@daily", 1);
        let c = derive_child(&parent, T0 + 123_456_789);
        assert_eq!(c.id, "batchy/periodic-1796277600");
        assert_eq!(c.name, c.id);
        assert_eq!(c.parent_id, "batchy");
        assert!(c.periodic.is_none() && !is_active(&c));
    }
}
