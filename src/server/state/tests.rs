//! FSM apply against the state store: indexes, versions, summaries, job status, snapshots.

use std::sync::Arc;

use super::{StateStore, Table};
use crate::api::*;
use crate::server::fsm::{Command, Fsm};

fn job(id: &str) -> Job {
    Job {
        id: id.to_string(),
        name: id.to_string(),
        namespace: "default".to_string(),
        r#type: "service".to_string(),
        priority: 50,
        task_groups: vec![TaskGroup {
            name: "web".to_string(),
            count: 1,
            ..Default::default()
        }],
        ..Default::default()
    }
}

fn eval(id: &str, job_id: &str, status: &str) -> Evaluation {
    Evaluation {
        id: id.to_string(),
        namespace: "default".to_string(),
        job_id: job_id.to_string(),
        status: status.to_string(),
        ..Default::default()
    }
}

fn alloc(id: &str, job: &Arc<Job>, node: &str) -> Allocation {
    Allocation {
        id: id.to_string(),
        namespace: job.namespace.clone(),
        job_id: job.id.clone(),
        job: Some(job.clone()),
        task_group: "web".to_string(),
        name: format!("{}.web[0]", job.id),
        node_id: node.to_string(),
        desired_status: ALLOC_DESIRED_RUN.to_string(),
        client_status: ALLOC_CLIENT_PENDING.to_string(),
        ..Default::default()
    }
}

#[test]
fn job_register_sets_indexes_versions_and_summary() {
    let store = StateStore::new();
    let r = store.apply(
        5,
        &Command::JobRegister {
            job: job("web"),
            eval: Some(eval("e1", "web", "pending")),
            submit_time: 7,
        },
    );
    assert_eq!(r.error, "");
    let s = store.snapshot();
    let j = s.job_by_id("default", "web").expect("job stored");
    assert_eq!(
        (
            j.create_index,
            j.modify_index,
            j.job_modify_index,
            j.version,
            j.submit_time
        ),
        (5, 5, 5, 0, 7)
    );
    assert_eq!(j.status, JOB_STATUS_PENDING);
    assert_eq!(s.table_index(Table::Jobs), 5);
    assert_eq!(
        s.job_summary("default", "web")
            .expect("summary")
            .summary
            .keys()
            .collect::<Vec<_>>(),
        vec!["web"]
    );
    assert_eq!(s.evals_for_job("default", "web").len(), 1);

    let mut changed = job("web");
    changed.priority = 70;
    store.apply(
        6,
        &Command::JobRegister {
            job: changed,
            eval: None,
            submit_time: 8,
        },
    );
    let s = store.snapshot();
    let j = s.job_by_id("default", "web").expect("job stored");
    assert_eq!((j.create_index, j.modify_index, j.version), (5, 6, 1));
    assert_eq!(
        s.job_versions("default", "web")
            .iter()
            .map(|j| j.version)
            .collect::<Vec<_>>(),
        vec![1, 0]
    );
}

#[test]
fn plan_and_client_updates_drive_summary_and_job_status() {
    let store = StateStore::new();
    store.apply(
        1,
        &Command::JobRegister {
            job: job("web"),
            eval: Some(eval("e1", "web", "pending")),
            submit_time: 1,
        },
    );
    let j = store.snapshot().job_by_id("default", "web").expect("job");
    let mut done = eval("e1", "web", EVAL_STATUS_COMPLETE);
    done.queued_allocations = Some([("web".to_string(), 0)].into());
    store.apply(2, &Command::EvalUpsert { evals: vec![done] });
    store.apply(
        3,
        &Command::ApplyPlan {
            job: Some(j.clone()),
            stopped: vec![],
            placed: vec![Arc::new(Allocation {
                job: None,
                ..alloc("a1", &j, "n1")
            })],
            evals: vec![],
            time: 10,
            deployment: None,
            deployment_updates: Vec::new(),
        },
    );
    let s = store.snapshot();
    let a = s.alloc_by_id("a1").expect("alloc placed");
    assert!(
        Arc::ptr_eq(a.job.as_ref().expect("job attached"), &j),
        "allocs share the version's job"
    );
    assert_eq!((a.create_index, a.alloc_modify_index), (3, 3));
    assert_eq!(s.allocs_for_node("n1").len(), 1);
    assert_eq!(
        s.job_by_id("default", "web").expect("job").status,
        JOB_STATUS_RUNNING
    );
    assert_eq!(
        s.job_summary("default", "web").expect("summary").summary["web"].starting,
        1
    );

    let update = Allocation {
        id: "a1".to_string(),
        client_status: ALLOC_CLIENT_RUNNING.to_string(),
        client_description: "Tasks are running".to_string(),
        ..Default::default()
    };
    store.apply(
        4,
        &Command::AllocClientUpdate {
            allocs: vec![update],
            evals: vec![],
            time: 11,
        },
    );
    let s = store.snapshot();
    let a = s.alloc_by_id("a1").expect("alloc");
    assert_eq!(a.client_status, ALLOC_CLIENT_RUNNING);
    assert_eq!(
        a.alloc_modify_index, 3,
        "client updates do not move AllocModifyIndex"
    );
    assert_eq!(a.task_group, "web", "server fields are kept");
    let tg = &s.job_summary("default", "web").expect("summary").summary["web"];
    assert_eq!((tg.starting, tg.running), (0, 1));

    // Stop: the alloc is server-terminal, so the job is dead at once (as in Nomad).
    store.apply(
        5,
        &Command::JobDeregister {
            namespace: "default".into(),
            job_id: "web".into(),
            purge: false,
            eval: Some(eval("e2", "web", "pending")),
            time: 12,
        },
    );
    let mut stop = (*store.snapshot().alloc_by_id("a1").expect("alloc")).clone();
    stop.desired_status = ALLOC_DESIRED_STOP.to_string();
    store.apply(
        6,
        &Command::ApplyPlan {
            job: None,
            stopped: vec![stop],
            placed: vec![],
            evals: vec![],
            time: 13,
            deployment: None,
            deployment_updates: Vec::new(),
        },
    );
    store.apply(
        7,
        &Command::EvalUpsert {
            evals: vec![eval("e2", "web", EVAL_STATUS_COMPLETE)],
        },
    );
    let s = store.snapshot();
    let j = s.job_by_id("default", "web").expect("job");
    assert!(j.stop);
    assert_eq!(j.status, JOB_STATUS_DEAD);
    assert_eq!(
        s.alloc_by_id("a1").expect("alloc").job_version(),
        0,
        "a stopped alloc keeps its version"
    );
}

#[test]
fn unknown_node_status_update_is_an_error_and_changes_nothing() {
    let store = StateStore::new();
    let r = store.apply(
        1,
        &Command::NodeUpdateStatus {
            node_id: "x".into(),
            status: "down".into(),
            evals: vec![],
            time: 0,
        },
    );
    assert_eq!(r.error, "node x not found");
    assert!(store.snapshot().nodes_list().is_empty());
}

#[test]
fn snapshot_round_trip_restores_everything() {
    let store = StateStore::new();
    store.apply(
        1,
        &Command::JobRegister {
            job: job("web"),
            eval: Some(eval("e1", "web", "pending")),
            submit_time: 1,
        },
    );
    let node = Node {
        id: "n1".into(),
        name: "n1".into(),
        datacenter: "dc1".into(),
        status: "ready".into(),
        ..Default::default()
    };
    store.apply(
        2,
        &Command::NodeRegister {
            node,
            time: 1_000_000_000,
        },
    );
    let j = store.snapshot().job_by_id("default", "web").expect("job");
    store.apply(
        3,
        &Command::ApplyPlan {
            job: Some(j.clone()),
            stopped: vec![],
            placed: vec![Arc::new(alloc("a1", &j, "n1"))],
            evals: vec![],
            time: 2,
            deployment: None,
            deployment_updates: Vec::new(),
        },
    );

    let bytes = Fsm::snapshot(&store);
    let restored = StateStore::new();
    restored.restore(&bytes).expect("restore");
    let (a, b) = (store.snapshot(), restored.snapshot());
    assert_eq!(b.latest_index(), 3);
    assert_eq!(a.jobs(None), b.jobs(None));
    assert_eq!(a.nodes_list(), b.nodes_list());
    assert_eq!(a.allocs(None), b.allocs(None));
    assert_eq!(a.evals(None), b.evals(None));
    assert_eq!(b.allocs_for_node("n1").len(), 1);
    assert_eq!(b.table_index(Table::Allocs), 3);
    let restored_alloc = b.alloc_by_id("a1").expect("alloc");
    let shared = b.job_version("default", "web", 0).expect("version");
    assert!(Arc::ptr_eq(
        restored_alloc.job.as_ref().expect("job"),
        &shared
    ));
    assert!(restored.restore(b"not json").is_err());
}

#[test]
fn periodic_launches_are_recorded_survive_snapshots_and_go_with_the_job() {
    let store = StateStore::new();
    let mut parent = job("nightly");
    parent.r#type = "batch".into();
    parent.periodic =
        Some(serde_json::json!({"Enabled": true, "Spec": "@daily", "SpecType": "cron"}));
    let register = |index, job: Job, submit_time| {
        store.apply(
            index,
            &Command::JobRegister {
                job,
                eval: None,
                submit_time,
            },
        )
    };
    register(1, parent.clone(), 11);
    assert_eq!(
        store.snapshot().periodic_launch("default", "nightly"),
        Some(11)
    );
    // Re-registering keeps the entry; launching a child moves it to the launch time.
    register(2, parent.clone(), 22);
    assert_eq!(
        store.snapshot().periodic_launch("default", "nightly"),
        Some(11)
    );
    let child = crate::server::periodic::derive_child(&parent, 1_800_000_000 * SECOND);
    register(3, child, 33);
    let s = store.snapshot();
    assert_eq!(
        s.periodic_launch("default", "nightly"),
        Some(1_800_000_000 * SECOND)
    );
    // A plain job gets no entry.
    assert_eq!(
        s.periodic_launch("default", "nightly/periodic-1800000000"),
        None
    );

    let restored = StateStore::new();
    restored.restore(&Fsm::snapshot(&store)).expect("restore");
    assert_eq!(
        restored.snapshot().periodic_launch("default", "nightly"),
        Some(1_800_000_000 * SECOND)
    );
    // Stopped, then started again: counted from the new registration, so the launches that
    // fell while it was stopped are not "missed".
    let mut stopped = parent.clone();
    stopped.stop = true;
    register(10, stopped, 100);
    register(11, parent.clone(), 111);
    assert_eq!(
        store.snapshot().periodic_launch("default", "nightly"),
        Some(111)
    );

    store.apply(
        4,
        &Command::JobDeregister {
            namespace: "default".into(),
            job_id: "nightly".into(),
            purge: true,
            eval: None,
            time: 44,
        },
    );
    assert_eq!(store.snapshot().periodic_launch("default", "nightly"), None);
}

/// The per-node sum of held resources stays equal to a fresh sum over the node's allocs
/// through seeded random placements, in-place and cross-node updates, client updates, stops,
/// deletes and node GC.
#[test]
fn node_held_matches_a_fresh_sum_through_random_changes() {
    use rand::rngs::StdRng;
    use rand::{Rng, SeedableRng};

    use crate::scheduler::rank::HeldResources;

    let mut rng = StdRng::seed_from_u64(7);
    let mut s = super::StateSnapshot::default();
    let j = Arc::new(job("web"));
    let nodes = ["n1", "n2", "n3"];
    let statuses = [
        ALLOC_CLIENT_PENDING,
        ALLOC_CLIENT_RUNNING,
        ALLOC_CLIENT_COMPLETE,
        ALLOC_CLIENT_FAILED,
    ];
    let mut index = 1;
    let mut nonempty = 0;
    for _ in 0..2_000 {
        index += 1;
        let id = format!("a{}", rng.random_range(0..40));
        let node = nodes[rng.random_range(0..nodes.len())];
        match rng.random_range(0..10) {
            0..=4 => {
                let mut a = alloc(&id, &j, node);
                let mut tasks = std::collections::BTreeMap::new();
                tasks.insert(
                    "t".to_string(),
                    AllocatedTaskResources {
                        cpu: AllocatedCpuResources {
                            cpu_shares: rng.random_range(1..500),
                            ..Default::default()
                        },
                        memory: AllocatedMemoryResources {
                            memory_mb: rng.random_range(1..500),
                            ..Default::default()
                        },
                        ..Default::default()
                    },
                );
                a.allocated_resources = Some(AllocatedResources {
                    shared: AllocatedSharedResources {
                        disk_mb: rng.random_range(0..300),
                        ports: (0..rng.random_range(0..3))
                            .map(|_| AllocatedPortMapping {
                                value: rng.random_range(20_000..20_010),
                                ..Default::default()
                            })
                            .collect(),
                        ..Default::default()
                    },
                    tasks,
                    ..Default::default()
                });
                if rng.random_bool(0.2) {
                    a.desired_status = ALLOC_DESIRED_STOP.to_string();
                }
                s.upsert_alloc(index, a, None);
            }
            5..=7 => {
                let mut update = alloc(&id, &j, node);
                update.client_status = statuses[rng.random_range(0..statuses.len())].to_string();
                s.update_alloc_from_client(index, &update, 0);
            }
            8 => s.reap(
                index,
                &super::gc::Reap {
                    allocs: vec![id],
                    ..Default::default()
                },
            ),
            _ => {
                if rng.random_bool(0.1) {
                    s.reap(
                        index,
                        &super::gc::Reap {
                            nodes: vec![node.to_string()],
                            ..Default::default()
                        },
                    );
                }
            }
        }
        for n in nodes {
            let allocs = s.allocs_for_node(n);
            let fresh = HeldResources::of(allocs.iter().map(|a| a.as_ref()));
            let kept = s.node_held(n).cloned().unwrap_or_default();
            assert_eq!(kept, fresh, "node {n} at index {index}");
            nonempty += usize::from(kept.cpu > 0 && !kept.ports.is_empty());
        }
    }
    assert!(
        nonempty > 1_000,
        "the walk rarely held anything: {nonempty}"
    );
}

/// The memoized ready-node list follows node changes: a snapshot taken after a node went down
/// does not see it, one taken before still does, and two snapshots without a node change in
/// between share one list.
#[test]
fn ready_nodes_are_memoized_per_nodes_version() {
    use crate::scheduler::StateView;

    let node = |id: &str, status: &str| Node {
        id: id.to_string(),
        datacenter: "dc1".to_string(),
        status: status.to_string(),
        scheduling_eligibility: NODE_ELIGIBLE.to_string(),
        ..Default::default()
    };
    let dcs = vec!["dc*".to_string()];
    let mut s = super::StateSnapshot::default();
    s.upsert_node(1, node("n1", NODE_STATUS_READY), 0);
    s.upsert_node(2, node("n2", NODE_STATUS_READY), 0);
    let before = s.clone();
    let first = before.ready_nodes("default", &dcs);
    assert_eq!(first.len(), 2);
    assert_eq!(first.by_dc.get("dc1"), Some(&2));
    assert_eq!(first.position("n2"), Some(1));
    assert_eq!(first.position("n3"), None);

    // An alloc write leaves the nodes alone: the list is shared.
    let j = Arc::new(job("web"));
    s.upsert_alloc(3, alloc("a1", &j, "n1"), None);
    assert!(Arc::ptr_eq(&first, &s.ready_nodes("default", &dcs)));
    assert!(s.ready_nodes("default", &["other".to_string()]).is_empty());

    s.upsert_node(4, node("n1", NODE_STATUS_DOWN), 0);
    let after = s.ready_nodes("default", &dcs);
    assert_eq!(
        after
            .nodes
            .iter()
            .map(|n| n.id.as_str())
            .collect::<Vec<_>>(),
        ["n2"]
    );
    assert_eq!(before.ready_nodes("default", &dcs).len(), 2);
}
