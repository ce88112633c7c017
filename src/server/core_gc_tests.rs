//! Core GC rules against a real state store, with fixed times.

use std::sync::Arc;

use super::core_gc::{collect, GcThresholds};
use super::fsm::{Command, Fsm};
use super::state::{StateStore, Table};
use crate::api::*;

const HOUR: i64 = 3_600_000_000_000;
/// "Now" in the tests: day 10.
const NOW: i64 = 240 * HOUR;

struct World {
    store: StateStore,
    index: u64,
}

impl World {
    fn new() -> Self {
        World {
            store: StateStore::new(),
            index: 1,
        }
    }

    fn apply(&mut self, cmd: Command) {
        self.index += 1;
        let r = self.store.apply(self.index, &cmd);
        assert_eq!(r.error, "", "{cmd:?}");
    }

    fn job(&mut self, id: &str, kind: &str, at: i64) -> Arc<Job> {
        let job = Job {
            id: id.into(),
            name: id.into(),
            namespace: "default".into(),
            r#type: kind.into(),
            priority: 50,
            task_groups: vec![TaskGroup {
                name: "web".into(),
                count: 1,
                ..Default::default()
            }],
            ..Default::default()
        };
        self.apply(Command::JobRegister {
            job,
            eval: None,
            submit_time: at,
        });
        self.store.snapshot().job_by_id("default", id).expect("job")
    }

    fn eval(&mut self, id: &str, job: &Job, status: &str, at: i64) {
        self.apply(Command::EvalUpsert {
            evals: vec![Evaluation {
                id: id.into(),
                namespace: job.namespace.clone(),
                job_id: job.id.clone(),
                r#type: job.r#type.clone(),
                status: status.into(),
                modify_time: at,
                ..Default::default()
            }],
        });
    }

    fn alloc(&mut self, id: &str, job: &Arc<Job>, eval: &str, node: &str, client: &str, at: i64) {
        let a = Allocation {
            id: id.into(),
            namespace: job.namespace.clone(),
            job_id: job.id.clone(),
            eval_id: eval.into(),
            task_group: "web".into(),
            name: format!("{}.web[0]", job.id),
            node_id: node.into(),
            desired_status: ALLOC_DESIRED_RUN.into(),
            client_status: ALLOC_CLIENT_PENDING.into(),
            ..Default::default()
        };
        self.apply(Command::ApplyPlan {
            job: Some(job.clone()),
            stopped: vec![],
            placed: vec![Arc::new(a.clone())],
            evals: vec![],
            time: at,
            deployment: None,
            deployment_updates: vec![],
        });
        self.apply(Command::AllocClientUpdate {
            allocs: vec![Allocation {
                client_status: client.into(),
                ..a
            }],
            evals: vec![],
            time: at,
        });
    }

    fn stop(&mut self, job: &Job, at: i64) {
        self.apply(Command::JobDeregister {
            namespace: job.namespace.clone(),
            job_id: job.id.clone(),
            purge: false,
            eval: None,
            time: at,
        });
    }
}

#[test]
fn a_stopped_dead_job_goes_whole_once_old_enough() {
    let mut w = World::new();
    let job = w.job("web", JOB_TYPE_SERVICE, NOW - 10 * HOUR);
    w.eval("e1", &job, EVAL_STATUS_COMPLETE, NOW - 9 * HOUR);
    w.alloc(
        "a1",
        &job,
        "e1",
        "n1",
        ALLOC_CLIENT_COMPLETE,
        NOW - 9 * HOUR,
    );
    w.stop(&job, NOW - 8 * HOUR);
    let snap = w.store.snapshot();
    assert_eq!(
        snap.job_by_id("default", "web").expect("job").status,
        JOB_STATUS_DEAD
    );

    let r = collect(&snap, NOW, &GcThresholds::default());
    assert_eq!(r.jobs, vec![("default".to_string(), "web".to_string())]);
    assert_eq!(r.evals, vec!["e1".to_string()]);
    assert_eq!(r.allocs, vec!["a1".to_string()]);

    // Submitted less than job_gc_threshold (4h) ago: the job stays; its eval and alloc are
    // past eval_gc_threshold (1h) and go.
    let young = collect(&snap, NOW - 7 * HOUR, &GcThresholds::default());
    assert!(young.jobs.is_empty(), "{young:?}");
    assert_eq!(young.evals, vec!["e1".to_string()]);

    w.apply(Command::Reap(r));
    let snap = w.store.snapshot();
    assert!(snap.job_by_id("default", "web").is_none());
    assert!(snap.eval_by_id("e1").is_none());
    assert!(snap.alloc_by_id("a1").is_none());
    assert!(snap.allocs_for_node("n1").is_empty());
    assert!(snap.evals_for_job("default", "web").is_empty());
    assert!(snap.job_versions("default", "web").is_empty());
    assert_eq!(snap.table_index(Table::Allocs), w.index);
}

#[test]
fn a_running_job_keeps_evals_with_live_allocs() {
    let mut w = World::new();
    let job = w.job("web", JOB_TYPE_SERVICE, NOW - 10 * HOUR);
    w.eval("live", &job, EVAL_STATUS_COMPLETE, NOW - 9 * HOUR);
    w.alloc(
        "a-run",
        &job,
        "live",
        "n1",
        ALLOC_CLIENT_RUNNING,
        NOW - 9 * HOUR,
    );
    w.eval("done", &job, EVAL_STATUS_COMPLETE, NOW - 9 * HOUR);
    w.alloc(
        "a-done",
        &job,
        "done",
        "n1",
        ALLOC_CLIENT_COMPLETE,
        NOW - 9 * HOUR,
    );
    w.eval("pending", &job, EVAL_STATUS_PENDING, NOW - 9 * HOUR);

    let r = collect(&w.store.snapshot(), NOW, &GcThresholds::default());
    assert!(r.jobs.is_empty());
    assert_eq!(r.evals, vec!["done".to_string()]);
    assert_eq!(r.allocs, vec!["a-done".to_string()]);
}

#[test]
fn a_failed_alloc_waiting_for_its_reschedule_is_kept() {
    let mut w = World::new();
    let mut job = (*w.job("web", JOB_TYPE_SERVICE, NOW - 10 * HOUR)).clone();
    job.task_groups[0].reschedule_policy = Some(ReschedulePolicy {
        attempts: 0,
        unlimited: true,
        ..Default::default()
    });
    w.apply(Command::JobRegister {
        job,
        eval: None,
        submit_time: NOW - 10 * HOUR,
    });
    let job = w.store.snapshot().job_by_id("default", "web").expect("job");
    // Another alloc keeps the job running (a dead job's allocs all go).
    w.eval("e0", &job, EVAL_STATUS_COMPLETE, NOW - 9 * HOUR);
    w.alloc("a0", &job, "e0", "n1", ALLOC_CLIENT_RUNNING, NOW - 9 * HOUR);
    w.eval("e1", &job, EVAL_STATUS_COMPLETE, NOW - 9 * HOUR);
    w.alloc("a1", &job, "e1", "n1", ALLOC_CLIENT_FAILED, NOW - 9 * HOUR);
    let r = collect(&w.store.snapshot(), NOW, &GcThresholds::default());
    assert!(r.evals.is_empty() && r.allocs.is_empty(), "{r:?}");
}

#[test]
fn a_live_batch_job_keeps_its_current_allocs_until_it_is_dead_and_stopped() {
    let mut w = World::new();
    let job = w.job("report", JOB_TYPE_BATCH, NOW - 100 * HOUR);
    w.eval("e1", &job, EVAL_STATUS_COMPLETE, NOW - 90 * HOUR);
    w.alloc(
        "a1",
        &job,
        "e1",
        "n1",
        ALLOC_CLIENT_COMPLETE,
        NOW - 90 * HOUR,
    );
    let snap = w.store.snapshot();
    assert_eq!(
        snap.job_by_id("default", "report").expect("job").status,
        JOB_STATUS_DEAD
    );
    // Dead but not stopped: eval GC keeps the current version's allocs (else it would run
    // again); job GC (allow_batch) takes the whole job once past job_gc_threshold.
    let r = collect(&snap, NOW, &GcThresholds::default());
    assert_eq!(r.jobs, vec![("default".to_string(), "report".to_string())]);
    let long_jobs = GcThresholds {
        job: std::time::Duration::from_secs(1000 * 3600),
        ..Default::default()
    };
    let r = collect(&snap, NOW, &long_jobs);
    assert!(r.evals.is_empty() && r.allocs.is_empty(), "{r:?}");
}

#[test]
fn down_nodes_go_only_without_live_allocs() {
    let mut w = World::new();
    for id in ["gone", "busy"] {
        w.apply(Command::NodeRegister {
            node: Node {
                id: id.into(),
                name: id.into(),
                status: NODE_STATUS_READY.into(),
                ..Default::default()
            },
            time: NOW - 30 * HOUR,
        });
    }
    let job = w.job("web", JOB_TYPE_SERVICE, NOW - 30 * HOUR);
    w.eval("e1", &job, EVAL_STATUS_COMPLETE, NOW - 29 * HOUR);
    w.alloc(
        "a1",
        &job,
        "e1",
        "busy",
        ALLOC_CLIENT_RUNNING,
        NOW - 29 * HOUR,
    );
    for id in ["gone", "busy"] {
        w.apply(Command::NodeUpdateStatus {
            node_id: id.into(),
            status: NODE_STATUS_DOWN.into(),
            evals: vec![],
            time: NOW - 25 * HOUR,
        });
    }
    let snap = w.store.snapshot();
    let r = collect(&snap, NOW, &GcThresholds::default());
    assert_eq!(r.nodes, vec!["gone".to_string()]);
    // Two hours earlier the node had been down only 23h: under node_gc_threshold (24h).
    let r = collect(&snap, NOW - 2 * HOUR, &GcThresholds::default());
    assert!(r.nodes.is_empty(), "{r:?}");
    w.apply(Command::Reap(collect(&snap, NOW, &GcThresholds::default())));
    assert!(w.store.snapshot().node_by_id("gone").is_none());
    assert!(w.store.snapshot().node_by_id("busy").is_some());
}

#[test]
fn terminal_deployments_go_and_active_ones_stay() {
    let mut w = World::new();
    let job = w.job("web", JOB_TYPE_SERVICE, NOW - 10 * HOUR);
    for (id, status) in [
        ("d-old", DEPLOYMENT_STATUS_SUCCESSFUL),
        ("d-run", DEPLOYMENT_STATUS_RUNNING),
    ] {
        w.apply(Command::ApplyPlan {
            job: Some(job.clone()),
            stopped: vec![],
            placed: vec![],
            evals: vec![],
            time: NOW - 5 * HOUR,
            deployment: Some(Deployment {
                id: id.into(),
                namespace: "default".into(),
                job_id: "web".into(),
                status: status.into(),
                ..Default::default()
            }),
            deployment_updates: vec![],
        });
    }
    let r = collect(&w.store.snapshot(), NOW, &GcThresholds::default());
    assert_eq!(r.deployments, vec!["d-old".to_string()]);
    w.apply(Command::Reap(r));
    let snap = w.store.snapshot();
    assert!(snap.deployment_by_id("d-old").is_none());
    assert_eq!(snap.deployments_for_job("default", "web").len(), 1);
}

#[test]
fn forced_gc_ignores_age() {
    let mut w = World::new();
    let job = w.job("web", JOB_TYPE_SERVICE, NOW - HOUR / 60);
    w.eval("e1", &job, EVAL_STATUS_COMPLETE, NOW - HOUR / 60);
    w.alloc(
        "a1",
        &job,
        "e1",
        "n1",
        ALLOC_CLIENT_COMPLETE,
        NOW - HOUR / 60,
    );
    w.stop(&job, NOW - HOUR / 60);
    let snap = w.store.snapshot();
    assert!(collect(&snap, NOW, &GcThresholds::default()).is_empty());
    let r = collect(&snap, NOW, &GcThresholds::forced());
    assert_eq!(r.jobs.len(), 1);
    assert_eq!(r.allocs, vec!["a1".to_string()]);
}
