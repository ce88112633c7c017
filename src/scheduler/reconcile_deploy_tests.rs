//! Reconciler tests for the `update` block and deployments.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::api::{
    AllocDeploymentStatus, Allocation, Deployment, Job, UpdateStrategy,
    DEPLOYMENT_STATUS_CANCELLED, DEPLOYMENT_STATUS_FAILED, DEPLOYMENT_STATUS_RUNNING,
    DEPLOYMENT_STATUS_SUCCESSFUL, DESC_NEWER_JOB, DESC_RUNNING_NEEDS_PROMOTION, DESC_STOPPED_JOB,
    MINUTE, SECOND,
};
use crate::scheduler::reconcile::{reconcile, ReconcileInput, ReconcileResult, UpdateDecision};
use crate::scheduler::testing::{alloc, job};

fn with_update(count: i32, max_parallel: i32, canary: i32) -> Job {
    let mut j = job(count);
    j.task_groups[0].update = Some(UpdateStrategy {
        max_parallel,
        canary,
        health_check: "task_states".into(),
        min_healthy_time: 10 * SECOND,
        healthy_deadline: 5 * MINUTE,
        progress_deadline: 10 * MINUTE,
        ..Default::default()
    });
    j
}

/// The job at a new version (a destructive change).
fn bump(j: &Job) -> Job {
    let mut n = j.clone();
    n.version += 1;
    n.job_modify_index += 10;
    n
}

fn run(job: Option<&Job>, allocs: &[Arc<Allocation>], d: Option<&Deployment>) -> ReconcileResult {
    let tainted = BTreeMap::new();
    let input = ReconcileInput {
        job_id: "web",
        job,
        allocs,
        tainted: &tainted,
        now: 1_000,
        deployment: d,
        new_deployment_id: "dep-new",
    };
    reconcile(&input, &mut |_, _| UpdateDecision::Destructive)
}

fn running(j: &Arc<Job>, n: u32) -> Vec<Arc<Allocation>> {
    (0..n)
        .map(|i| {
            let mut a = alloc(j, i, "n1");
            a.client_status = "running".into();
            Arc::new(a)
        })
        .collect()
}

fn in_deployment(
    mut a: Allocation,
    d: &str,
    canary: bool,
    healthy: Option<bool>,
) -> Arc<Allocation> {
    a.id = format!("{}-v{}", a.id, a.job_version());
    a.deployment_id = d.into();
    a.client_status = "running".into();
    a.deployment_status = Some(
        AllocDeploymentStatus {
            canary,
            healthy,
            ..Default::default()
        }
        .to_value(),
    );
    Arc::new(a)
}

#[test]
fn new_job_creates_a_deployment_and_places_everything() {
    let j = with_update(3, 1, 0);
    let r = run(Some(&j), &[], None);
    assert_eq!(r.placements.len(), 3, "new placements are not limited");
    let d = r.deployment.expect("deployment");
    assert_eq!(d.id, "dep-new");
    assert_eq!(d.status, DEPLOYMENT_STATUS_RUNNING);
    assert_eq!(d.task_groups["g"].desired_total, 3);
    assert_eq!(r.deployment_id, "dep-new");
}

#[test]
fn job_without_update_block_gets_no_deployment() {
    let j = job(2);
    let r = run(Some(&j), &[], None);
    assert!(r.deployment.is_none());
    assert_eq!(r.deployment_id, "");
}

#[test]
fn max_parallel_limits_destructive_updates() {
    let v0 = Arc::new(with_update(4, 2, 0));
    let allocs = running(&v0, 4);
    let v1 = bump(&v0);
    let r = run(Some(&v1), &allocs, None);
    assert_eq!(r.placements.len(), 2);
    assert!(r.placements.iter().all(|p| p.stop_previous.is_some()));
    assert!(r.deployment.is_some(), "a spec change creates a deployment");
}

#[test]
fn unhealthy_progress_counts_against_max_parallel() {
    let v0 = Arc::new(with_update(4, 2, 0));
    let v1 = Arc::new(bump(&v0));
    let d = crate::scheduler::reconcile_deploy::new_deployment(&v1, "dep1", 0);
    let mut d = d;
    d.task_groups.insert(
        "g".into(),
        crate::api::DeploymentState {
            desired_total: 4,
            ..Default::default()
        },
    );
    // Two old allocs remain; index 0 is new and healthy, index 1 new and not yet healthy.
    let mut allocs = running(&v0, 4).split_off(2);
    allocs.push(in_deployment(
        alloc(&v1, 0, "n1"),
        "dep1",
        false,
        Some(true),
    ));
    allocs.push(in_deployment(alloc(&v1, 1, "n1"), "dep1", false, None));
    let r = run(Some(&v1), &allocs, Some(&d));
    assert_eq!(r.placements.len(), 1, "2 parallel less 1 pending");
    // An unhealthy alloc halts the rollout.
    let last = allocs.len() - 1;
    allocs[last] = in_deployment(alloc(&v1, 1, "n1"), "dep1", false, Some(false));
    let r = run(Some(&v1), &allocs, Some(&d));
    assert!(r.placements.is_empty());
}

#[test]
fn canaries_are_placed_beside_old_allocs_until_promotion() {
    let v0 = Arc::new(with_update(3, 1, 1));
    let allocs = running(&v0, 3);
    let v1 = Arc::new(bump(&v0));
    let r = run(Some(&v1), &allocs, None);
    assert_eq!(r.placements.len(), 1);
    assert!(r.placements[0].canary);
    assert!(r.placements[0].previous.is_none());
    assert!(
        r.stops.is_empty(),
        "old allocs keep running beside the canary"
    );
    let d = r.deployment.expect("deployment");
    assert_eq!(d.task_groups["g"].desired_canaries, 1);
    assert_eq!(d.status_description, DESC_RUNNING_NEEDS_PROMOTION);

    // With the canary placed and healthy but not promoted, nothing else happens.
    let mut allocs2 = allocs.clone();
    allocs2.push(in_deployment(alloc(&v1, 0, "n1"), &d.id, true, Some(true)));
    let r = run(Some(&v1), &allocs2, Some(&d));
    assert!(r.placements.is_empty() && r.stops.is_empty());
    assert!(
        r.deployment_updates.is_empty(),
        "not complete before promotion"
    );

    // Promoted: the old alloc sharing the canary's name stops and the rest roll.
    let mut promoted = d.clone();
    if let Some(st) = promoted.task_groups.get_mut("g") {
        st.promoted = true;
    }
    let r = run(Some(&v1), &allocs2, Some(&promoted));
    assert_eq!(r.stops.len(), 1);
    assert_eq!(r.stops[0].alloc.name, "web.g[0]");
    assert_eq!(r.placements.len(), 1, "max_parallel 1, canary healthy");
    assert_eq!(r.placements[0].name, "web.g[1]");
}

#[test]
fn failed_deployment_stops_canaries_and_updates_nothing() {
    let v0 = Arc::new(with_update(2, 1, 1));
    let v1 = Arc::new(bump(&v0));
    let mut d = crate::scheduler::reconcile_deploy::new_deployment(&v1, "dep1", 0);
    d.status = DEPLOYMENT_STATUS_FAILED.into();
    let mut allocs = running(&v0, 2);
    allocs.push(in_deployment(
        alloc(&v1, 0, "n1"),
        "dep1",
        true,
        Some(false),
    ));
    let r = run(Some(&v1), &allocs, Some(&d));
    assert!(r.placements.is_empty());
    assert_eq!(r.stops.len(), 1);
    assert!(r.stops[0].alloc.is_canary());
}

#[test]
fn complete_deployment_is_marked_successful() {
    let v1 = Arc::new(with_update(2, 1, 0));
    let mut d = crate::scheduler::reconcile_deploy::new_deployment(&v1, "dep1", 0);
    d.task_groups.insert(
        "g".into(),
        crate::api::DeploymentState {
            desired_total: 2,
            healthy_allocs: 2,
            ..Default::default()
        },
    );
    let allocs: Vec<_> = (0..2)
        .map(|i| in_deployment(alloc(&v1, i, "n1"), "dep1", false, Some(true)))
        .collect();
    let r = run(Some(&v1), &allocs, Some(&d));
    assert_eq!(r.deployment_updates.len(), 1);
    assert_eq!(r.deployment_updates[0].status, DEPLOYMENT_STATUS_SUCCESSFUL);
}

#[test]
fn older_or_stopped_deployments_are_cancelled() {
    let v0 = Arc::new(with_update(1, 1, 0));
    let d = crate::scheduler::reconcile_deploy::new_deployment(&v0, "dep0", 0);
    let v1 = bump(&v0);
    let r = run(Some(&v1), &running(&v0, 1), Some(&d));
    assert_eq!(r.deployment_updates[0].status, DEPLOYMENT_STATUS_CANCELLED);
    assert_eq!(r.deployment_updates[0].status_description, DESC_NEWER_JOB);
    let mut stopped = (*v0).clone();
    stopped.stop = true;
    let r = run(Some(&stopped), &running(&v0, 1), Some(&d));
    assert_eq!(r.deployment_updates[0].status_description, DESC_STOPPED_JOB);
    assert!(
        r.deployment.is_none(),
        "a stopped job gets no new deployment"
    );
}
