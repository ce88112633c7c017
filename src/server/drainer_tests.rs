use super::*;
use crate::server::fsm::{Command, Fsm};
use crate::server::state::StateStore;

const NOW: i64 = 1_000 * SECOND;

fn node(id: &str, drain: Option<DrainStrategy>) -> Node {
    Node {
        id: id.to_string(),
        name: id.to_string(),
        datacenter: "dc1".to_string(),
        status: NODE_STATUS_READY.to_string(),
        scheduling_eligibility: if drain.is_some() {
            NODE_INELIGIBLE
        } else {
            NODE_ELIGIBLE
        }
        .to_string(),
        drain: drain.is_some(),
        drain_strategy: drain,
        ..Default::default()
    }
}

fn strategy(deadline: i64, ignore_system: bool) -> DrainStrategy {
    DrainStrategy {
        deadline,
        ignore_system_jobs: ignore_system,
        force_deadline: if deadline > 0 {
            format_rfc3339(NOW - SECOND + deadline)
        } else {
            ZERO_TIME.to_string()
        },
        started_at: format_rfc3339(NOW - SECOND),
    }
}

fn job(id: &str, kind: &str, count: i32, max_parallel: i32) -> Job {
    Job {
        id: id.to_string(),
        name: id.to_string(),
        namespace: DEFAULT_NAMESPACE.to_string(),
        r#type: kind.to_string(),
        priority: 50,
        task_groups: vec![TaskGroup {
            name: "g".to_string(),
            count,
            migrate: Some(MigrateStrategy {
                health_check: "task_states".to_string(),
                healthy_deadline: 5 * MINUTE,
                max_parallel,
                min_healthy_time: 10 * SECOND,
            }),
            tasks: vec![Task {
                name: "t".to_string(),
                driver: "mock".to_string(),
                ..Default::default()
            }],
            ..Default::default()
        }],
        ..Default::default()
    }
}

/// A running alloc whose task started long enough ago to be healthy.
fn alloc(job: &Arc<Job>, i: usize, node: &str) -> Allocation {
    let state = TaskState {
        state: TASK_STATE_RUNNING.to_string(),
        started_at: Some(format_rfc3339(NOW - MINUTE)),
        ..Default::default()
    };
    Allocation {
        id: format!("{}-{i}", job.id),
        name: format!("{}.g[{i}]", job.id),
        namespace: job.namespace.clone(),
        job_id: job.id.clone(),
        job: Some(job.clone()),
        task_group: "g".to_string(),
        node_id: node.to_string(),
        desired_status: ALLOC_DESIRED_RUN.to_string(),
        client_status: ALLOC_CLIENT_RUNNING.to_string(),
        create_time: NOW - MINUTE,
        task_states: Some([("t".to_string(), state)].into()),
        ..Default::default()
    }
}

/// A store holding `nodes`, `jobs` and `allocs`, written through the FSM as raft would.
fn store(nodes: Vec<Node>, jobs: Vec<Job>, allocs: Vec<Allocation>) -> StateStore {
    let s = StateStore::new();
    let mut index = 1;
    for n in nodes {
        s.apply(index, &Command::NodeRegister { node: n, time: 0 });
        index += 1;
    }
    for job in jobs {
        let cmd = Command::JobRegister {
            job,
            eval: None,
            submit_time: 0,
        };
        s.apply(index, &cmd);
        index += 1;
    }
    let cmd = Command::ApplyPlan {
        job: None,
        stopped: Vec::new(),
        placed: allocs.into_iter().map(Arc::new).collect(),
        evals: vec![],
        time: 0,
        deployment: None,
        deployment_updates: Vec::new(),
    };
    s.apply(index, &cmd);
    s
}

fn ids(allocs: &[Arc<Allocation>]) -> Vec<String> {
    let mut v: Vec<String> = allocs.iter().map(|a| a.id.clone()).collect();
    v.sort();
    v
}

#[test]
fn migrate_max_parallel_is_respected() {
    let web = Arc::new(job("web", JOB_TYPE_SERVICE, 4, 2));
    let allocs = (0..4).map(|i| alloc(&web, i, "drain")).collect();
    let nodes = vec![node("drain", Some(strategy(HOUR, false))), node("ok", None)];
    let s = store(nodes, vec![(*web).clone()], allocs);
    let p = plan(&s.snapshot(), NOW);
    assert_eq!(
        p.migrate.len(),
        2,
        "count 4, max_parallel 2: two move at once"
    );
    assert!(p.complete.is_empty());
    assert_eq!(p.next_deadline, Some(NOW - SECOND + HOUR));

    // Once two are marked, none more move until replacements are healthy.
    let marks = p
        .migrate
        .iter()
        .map(|a| {
            let t = DesiredTransition {
                migrate: Some(true),
                ..Default::default()
            };
            (a.id.clone(), t)
        })
        .collect();
    let cmd = Command::AllocUpdateDesiredTransition {
        transitions: marks,
        evals: Vec::new(),
        time: NOW,
    };
    assert!(s.apply(100, &cmd).error.is_empty());
    assert!(plan(&s.snapshot(), NOW).migrate.is_empty());
}

#[test]
fn unhealthy_allocs_do_not_count_until_min_healthy_time() {
    let web = Arc::new(job("web", JOB_TYPE_SERVICE, 2, 1));
    let mut fresh = alloc(&web, 1, "ok");
    if let Some(ts) = fresh.task_states.as_mut() {
        for t in ts.values_mut() {
            t.started_at = Some(format_rfc3339(NOW - SECOND));
        }
    }
    let allocs = vec![alloc(&web, 0, "drain"), fresh];
    let nodes = vec![node("drain", Some(strategy(HOUR, false))), node("ok", None)];
    let s = store(nodes, vec![(*web).clone()], allocs);
    assert!(
        plan(&s.snapshot(), NOW).migrate.is_empty(),
        "the replacement is not healthy yet: keep count - max_parallel healthy"
    );
    assert_eq!(plan(&s.snapshot(), NOW + 10 * SECOND).migrate.len(), 1);
}

#[test]
fn system_allocs_move_last_and_the_drain_completes() {
    let web = Arc::new(job("web", JOB_TYPE_SERVICE, 1, 1));
    let sys = Arc::new(job("sys", JOB_TYPE_SYSTEM, 1, 1));
    let mut done = alloc(&web, 0, "drain");
    done.client_status = ALLOC_CLIENT_COMPLETE.to_string();
    let running = vec![alloc(&web, 1, "drain"), alloc(&sys, 0, "drain")];
    let nodes = vec![node("drain", Some(strategy(HOUR, false)))];
    let s = store(
        nodes.clone(),
        vec![(*web).clone(), (*sys).clone()],
        running.clone(),
    );
    let p = plan(&s.snapshot(), NOW);
    assert_eq!(ids(&p.migrate), vec!["web-1"], "the service alloc first");
    assert!(p.complete.is_empty());

    let s = store(
        nodes,
        vec![(*web).clone(), (*sys).clone()],
        vec![done, alloc(&sys, 0, "drain")],
    );
    let p = plan(&s.snapshot(), NOW);
    assert_eq!(ids(&p.migrate), vec!["sys-0"], "then the system alloc");
    assert_eq!(p.complete, vec![("drain".to_string(), false)]);
}

#[test]
fn ignore_system_leaves_system_allocs() {
    let sys = Arc::new(job("sys", JOB_TYPE_SYSTEM, 1, 1));
    let nodes = vec![node("drain", Some(strategy(HOUR, true)))];
    let s = store(nodes, vec![(*sys).clone()], vec![alloc(&sys, 0, "drain")]);
    let p = plan(&s.snapshot(), NOW);
    assert!(p.migrate.is_empty());
    assert_eq!(p.complete, vec![("drain".to_string(), false)]);
}

#[test]
fn deadline_forces_every_remaining_alloc() {
    let web = Arc::new(job("web", JOB_TYPE_SERVICE, 3, 1));
    let batch = Arc::new(job("batch", JOB_TYPE_BATCH, 1, 1));
    let allocs = vec![
        alloc(&web, 0, "drain"),
        alloc(&web, 1, "drain"),
        alloc(&web, 2, "drain"),
        alloc(&batch, 0, "drain"),
    ];
    let nodes = vec![node("drain", Some(strategy(MINUTE, false)))];
    let s = store(nodes, vec![(*web).clone(), (*batch).clone()], allocs);
    let before = plan(&s.snapshot(), NOW);
    assert_eq!(
        ids(&before.migrate),
        vec!["web-0"],
        "one at a time, batch waits"
    );
    let after = plan(&s.snapshot(), NOW + MINUTE);
    assert_eq!(
        ids(&after.migrate),
        vec!["batch-0", "web-0", "web-1", "web-2"]
    );
    assert_eq!(after.complete, vec![("drain".to_string(), true)]);
}

#[test]
fn force_drains_at_once() {
    let web = Arc::new(job("web", JOB_TYPE_SERVICE, 2, 1));
    let allocs = vec![alloc(&web, 0, "drain"), alloc(&web, 1, "drain")];
    let nodes = vec![node("drain", Some(strategy(-SECOND, false)))];
    let s = store(nodes, vec![(*web).clone()], allocs);
    let p = plan(&s.snapshot(), NOW);
    assert_eq!(p.migrate.len(), 2);
    assert_eq!(p.complete, vec![("drain".to_string(), true)]);
}

#[test]
fn drain_state_lifecycle_records_last_drain() {
    let s = store(vec![node("n", None)], Vec::new(), Vec::new());
    let set = NodeDrainUpdate {
        node_id: "n".to_string(),
        drain_strategy: Some(strategy(HOUR, false)),
        meta: [("message".to_string(), "maint".to_string())].into(),
        ..Default::default()
    };
    let cmd = Command::NodeUpdateDrain {
        updates: vec![set],
        evals: Vec::new(),
        time: NOW,
    };
    assert!(s.apply(10, &cmd).error.is_empty());
    let n = s.snapshot().node_by_id("n").expect("node");
    assert!(n.drain);
    assert_eq!(n.scheduling_eligibility, NODE_INELIGIBLE);
    let last = n.last_drain.clone().expect("last drain");
    assert_eq!(last.status, DRAIN_STATUS_DRAINING);
    assert_eq!(
        last.meta.as_ref().map(|m| m["message"].as_str()),
        Some("maint")
    );

    let done = NodeDrainUpdate {
        node_id: "n".to_string(),
        drain_complete: true,
        ..Default::default()
    };
    let cmd = Command::NodeUpdateDrain {
        updates: vec![done],
        evals: Vec::new(),
        time: NOW + SECOND,
    };
    assert!(s.apply(11, &cmd).error.is_empty());
    let n = s.snapshot().node_by_id("n").expect("node");
    assert!(!n.drain && n.drain_strategy.is_none());
    assert_eq!(
        n.scheduling_eligibility, NODE_INELIGIBLE,
        "stays ineligible"
    );
    let last = n.last_drain.clone().expect("last drain");
    assert_eq!(last.status, DRAIN_STATUS_COMPLETE);
    assert_eq!(last.started_at, format_rfc3339(NOW));
    assert_eq!(last.updated_at, format_rfc3339(NOW + SECOND));
    assert_eq!(
        last.meta.as_ref().map(|m| m["message"].as_str()),
        Some("maint")
    );

    let unknown = Command::NodeUpdateEligibility {
        node_id: "nope".to_string(),
        eligibility: NODE_ELIGIBLE.to_string(),
        event: None,
        evals: Vec::new(),
        time: NOW,
    };
    assert!(!s.apply(12, &unknown).error.is_empty());
}
