//! FSM apply of deployment commands: creation with a plan, counters from allocs and health,
//! promotion, success marking the job version stable, and snapshots.

use std::sync::Arc;

use super::StateStore;
use crate::api::*;
use crate::server::fsm::{Command, Fsm};

fn setup() -> (StateStore, Arc<Job>) {
    let store = StateStore::new();
    let job = Job {
        id: "web".into(),
        name: "web".into(),
        namespace: "default".into(),
        r#type: "service".into(),
        task_groups: vec![TaskGroup {
            name: "g".into(),
            count: 2,
            ..Default::default()
        }],
        ..Default::default()
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
    (store, job)
}

fn deployment(job: &Job) -> Deployment {
    let mut d = Deployment {
        id: "d1".into(),
        namespace: job.namespace.clone(),
        job_id: job.id.clone(),
        job_version: job.version,
        job_create_index: job.create_index,
        status: DEPLOYMENT_STATUS_RUNNING.into(),
        status_description: DESC_RUNNING.into(),
        ..Default::default()
    };
    d.task_groups.insert(
        "g".into(),
        DeploymentState {
            desired_total: 2,
            desired_canaries: 1,
            progress_deadline: 600 * SECOND,
            ..Default::default()
        },
    );
    d
}

fn alloc(id: &str, job: &Arc<Job>, canary: bool) -> Allocation {
    Allocation {
        id: id.into(),
        namespace: job.namespace.clone(),
        job_id: job.id.clone(),
        task_group: "g".into(),
        name: "web.g[0]".into(),
        node_id: "n1".into(),
        deployment_id: "d1".into(),
        deployment_status: canary.then(|| {
            AllocDeploymentStatus {
                canary: true,
                ..Default::default()
            }
            .to_value()
        }),
        desired_status: ALLOC_DESIRED_RUN.into(),
        client_status: ALLOC_CLIENT_PENDING.into(),
        ..Default::default()
    }
}

#[test]
fn deployment_lifecycle_through_the_fsm() {
    let (store, job) = setup();
    let r = store.apply(
        2,
        &Command::ApplyPlan {
            job: Some(job.clone()),
            stopped: Vec::new(),
            placed: vec![Arc::new(alloc("a1", &job, true))],
            evals: vec![],
            time: 10,
            deployment: Some(deployment(&job)),
            deployment_updates: Vec::new(),
        },
    );
    assert_eq!(r.error, "");
    let snap = store.snapshot();
    let d = snap.deployment_by_id("d1").expect("deployment");
    assert_eq!(d.create_index, 2);
    let st = &d.task_groups["g"];
    assert_eq!(st.placed_allocs, 1);
    assert_eq!(st.placed_canaries, Some(vec!["a1".to_string()]));
    assert_eq!(snap.deployments_for_job("default", "web").len(), 1);

    // Health moves the counters and the progress deadline.
    store.apply(
        3,
        &Command::DeploymentAllocHealth {
            deployment_id: "d1".into(),
            healthy: vec!["a1".into()],
            unhealthy: Vec::new(),
            update: None,
            job: None,
            eval: None,
            time: 100,
        },
    );
    let snap = store.snapshot();
    let d = snap.deployment_by_id("d1").expect("deployment");
    assert_eq!(d.task_groups["g"].healthy_allocs, 1);
    assert_eq!(
        d.task_groups["g"].require_progress_by,
        format_rfc3339(100 + 600 * SECOND)
    );
    let a = snap.alloc_by_id("a1").expect("alloc");
    assert_eq!(a.deployment_healthy(), Some(true));
    assert!(a.is_canary(), "health keeps the canary flag");

    store.apply(
        4,
        &Command::DeploymentPromote {
            deployment_id: "d1".into(),
            groups: Vec::new(),
            eval: Some(Evaluation {
                id: "e-promote".into(),
                namespace: "default".into(),
                job_id: "web".into(),
                status: EVAL_STATUS_PENDING.into(),
                ..Default::default()
            }),
            time: 200,
        },
    );
    let snap = store.snapshot();
    assert!(snap.deployment_by_id("d1").expect("d").task_groups["g"].promoted);
    assert!(snap.eval_by_id("e-promote").is_some());

    store.apply(
        5,
        &Command::DeploymentStatusUpdate {
            update: DeploymentStatusUpdate {
                deployment_id: "d1".into(),
                status: DEPLOYMENT_STATUS_SUCCESSFUL.into(),
                status_description: DESC_SUCCESSFUL.into(),
            },
            job: None,
            eval: None,
            time: 300,
        },
    );
    let snap = store.snapshot();
    assert_eq!(
        snap.deployment_by_id("d1").expect("d").status,
        DEPLOYMENT_STATUS_SUCCESSFUL
    );
    assert!(snap.job_by_id("default", "web").expect("job").stable);
    assert!(snap.job_version("default", "web", 0).expect("v0").stable);

    // Deployments survive a snapshot round trip.
    let bytes = store.snapshot();
    let restored = StateStore::new();
    restored.restore(&bytes.to_bytes()).expect("restore");
    assert_eq!(
        restored.snapshot().deployment_by_id("d1"),
        snap.deployment_by_id("d1")
    );
    assert_eq!(
        restored
            .snapshot()
            .deployments_for_job("default", "web")
            .len(),
        1
    );

    // An unknown deployment is an error.
    let r = store.apply(
        6,
        &Command::DeploymentPromote {
            deployment_id: "nope".into(),
            groups: Vec::new(),
            eval: None,
            time: 1,
        },
    );
    assert!(!r.error.is_empty());
}
