use super::*;
use crate::api::{Constraint, NetworkResource, Node, Port, ALLOC_CLIENT_LOST, ALLOC_DESIRED_STOP};
use crate::scheduler::reconcile::{
    STATUS_ALLOC_LOST, STATUS_ALLOC_NOT_NEEDED, STATUS_ALLOC_UPDATING,
};
use crate::scheduler::testing::{alloc, eval_for, job, node, TestState};

const NOW: i64 = 1_700_000_000_000_000_000;

fn ctx() -> SchedulerContext {
    SchedulerContext { now: NOW, seed: 42 }
}

fn state(job: Job, nodes: Vec<Node>, allocs: Vec<Allocation>) -> TestState {
    TestState {
        index: 100,
        jobs: vec![Arc::new(job)],
        nodes: nodes.into_iter().map(Arc::new).collect(),
        allocs: allocs.into_iter().map(Arc::new).collect(),
        ..Default::default()
    }
}

fn placed(r: &SchedulerResult) -> Vec<&Allocation> {
    let mut v: Vec<&Allocation> = r.plan.node_allocation.values().flatten().collect();
    v.sort_by(|a, b| a.name.cmp(&b.name));
    v
}

fn stopped(r: &SchedulerResult) -> Vec<&Allocation> {
    let mut v: Vec<&Allocation> = r.plan.node_update.values().flatten().collect();
    v.sort_by(|a, b| a.name.cmp(&b.name));
    v
}

fn run(s: &TestState) -> SchedulerResult {
    let j = s.jobs[0].clone();
    process_eval(&eval_for(&j), s, ctx()).expect("scheduler runs")
}

#[test]
fn places_count_with_nomad_fields() {
    let s = state(job(3), vec![node("n1"), node("n2"), node("n3")], vec![]);
    let r = run(&s);
    let allocs = placed(&r);
    let names: Vec<_> = allocs.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(names, vec!["web.g[0]", "web.g[1]", "web.g[2]"]);
    let a = allocs[0];
    assert_eq!(a.desired_status, "run");
    assert_eq!(a.client_status, "pending");
    assert_eq!(a.eval_id, r.eval.id);
    assert_eq!(a.job_id, "web");
    assert_eq!(a.namespace, "default");
    assert_eq!(a.create_time, NOW);
    assert_eq!(a.node_name, format!("name-{}", a.node_id));
    assert!(uuid::Uuid::parse_str(&a.id).is_ok());
    let res = a.allocated_resources.as_ref().expect("resources");
    assert_eq!(res.tasks["t"].cpu.cpu_shares, 500);
    assert_eq!(res.tasks["t"].memory.memory_mb, 256);
    let m = a.metrics.as_ref().expect("metrics");
    assert_eq!(m.nodes_in_pool, 3);
    assert_eq!(m.nodes_available.get("dc1"), Some(&3));
    assert_eq!(m.node_pool, "default");
    assert!(m.nodes_evaluated >= 2);
    let meta = m.score_meta_data.as_ref().expect("scores");
    assert!(meta[0].scores.contains_key("binpack"));
    assert!(meta[0].scores.contains_key("job-anti-affinity"));
    assert!(meta[0].scores.contains_key("node-reschedule-penalty"));
    assert!(meta[0].scores.contains_key("node-affinity"));
    assert_eq!(r.eval.status, "complete");
    assert_eq!(r.eval.queued_allocations.as_ref().map(|q| q["g"]), Some(0));
    assert!(r.blocked_eval.is_none());
    // Anti-affinity spreads three allocs over three empty nodes.
    let nodes: BTreeSet<_> = allocs.iter().map(|a| a.node_id.clone()).collect();
    assert_eq!(nodes.len(), 3);
}

#[test]
fn same_inputs_same_plan() {
    let s = state(
        job(5),
        (0..8).map(|i| node(&format!("n{i}"))).collect(),
        vec![],
    );
    let a = run(&s);
    let b = run(&s);
    assert_eq!(a.plan, b.plan);
    assert_eq!(a.eval, b.eval);
}

#[test]
fn scale_up_and_down() {
    let j = Arc::new(job(3));
    let existing = vec![alloc(&j, 0, "n1"), alloc(&j, 1, "n1")];
    let r = run(&state((*j).clone(), vec![node("n1")], existing.clone()));
    assert_eq!(
        placed(&r)
            .iter()
            .map(|a| a.name.as_str())
            .collect::<Vec<_>>(),
        vec!["web.g[2]"]
    );

    let r = run(&state(job(1), vec![node("n1")], existing));
    let s = stopped(&r);
    assert_eq!(s.len(), 1);
    assert_eq!(s[0].name, "web.g[1]");
    assert_eq!(s[0].desired_status, ALLOC_DESIRED_STOP);
    assert_eq!(s[0].desired_description, STATUS_ALLOC_NOT_NEEDED);
    assert!(placed(&r).is_empty());
}

#[test]
fn job_stop_stops_all() {
    let j = Arc::new(job(2));
    let existing = vec![alloc(&j, 0, "n1"), alloc(&j, 1, "n1")];
    let mut stopped_job = (*j).clone();
    stopped_job.stop = true;
    let r = run(&state(stopped_job, vec![node("n1")], existing.clone()));
    assert_eq!(stopped(&r).len(), 2);
    assert!(placed(&r).is_empty());
    assert_eq!(r.eval.status, "complete");

    // Deregistered (purged) job: the eval still stops its allocs.
    let s = TestState {
        index: 100,
        jobs: vec![],
        nodes: vec![Arc::new(node("n1"))],
        allocs: existing.into_iter().map(Arc::new).collect(),
        ..Default::default()
    };
    let r = process_eval(&eval_for(&j), &s, ctx()).expect("runs");
    assert_eq!(stopped(&r).len(), 2);
}

#[test]
fn destructive_update_replaces_under_same_name() {
    let old = Arc::new(job(1));
    let mut new = (*old).clone();
    new.version = 1;
    new.job_modify_index = 20;
    new.task_groups[0].tasks[0].driver = "raw_exec".into();
    new.task_groups[0].tasks[0].env = Some([("A".to_string(), "1".to_string())].into());
    let r = run(&state(new, vec![node("n1")], vec![alloc(&old, 0, "n1")]));
    let s = stopped(&r);
    assert_eq!(s.len(), 1);
    assert_eq!(s[0].desired_description, STATUS_ALLOC_UPDATING);
    let p = placed(&r);
    assert_eq!(p.len(), 1);
    assert_eq!(p[0].name, "web.g[0]");
    assert_eq!(p[0].previous_allocation, "alloc-0-n1");
    assert_eq!(p[0].job_version(), 1);
}

#[test]
fn in_place_update_keeps_id_and_node() {
    let old = Arc::new(job(1));
    let mut new = (*old).clone();
    new.version = 1;
    new.job_modify_index = 20;
    new.task_groups[0].tasks[0].kill_timeout = Some(5_000_000_000);
    let r = run(&state(
        new,
        vec![node("n1"), node("n2")],
        vec![alloc(&old, 0, "n1")],
    ));
    assert!(stopped(&r).is_empty());
    let p = placed(&r);
    assert_eq!(p.len(), 1);
    assert_eq!(p[0].id, "alloc-0-n1");
    assert_eq!(p[0].node_id, "n1");
    assert_eq!(p[0].job_version(), 1);
    assert_eq!(p[0].eval_id, r.eval.id);
}

#[test]
fn lost_node_allocs_are_replaced() {
    let j = Arc::new(job(1));
    let mut down = node("n1");
    down.status = "down".into();
    let r = run(&state(
        (*j).clone(),
        vec![down, node("n2")],
        vec![alloc(&j, 0, "n1")],
    ));
    let s = stopped(&r);
    assert_eq!(s.len(), 1);
    assert_eq!(s[0].client_status, ALLOC_CLIENT_LOST);
    assert_eq!(s[0].desired_description, STATUS_ALLOC_LOST);
    let p = placed(&r);
    assert_eq!(p.len(), 1);
    assert_eq!(p[0].node_id, "n2");
    assert_eq!(p[0].name, "web.g[0]");
    assert_eq!(p[0].previous_allocation, "alloc-0-n1");
}

#[test]
fn batch_complete_not_replaced() {
    let mut bj = job(2);
    bj.r#type = "batch".into();
    let bj = Arc::new(bj);
    let mut done = alloc(&bj, 0, "n1");
    done.client_status = "complete".into();
    let mut e = eval_for(&bj);
    e.r#type = "batch".into();
    let s = state((*bj).clone(), vec![node("n1")], vec![done]);
    let r = process_eval(&e, &s, ctx()).expect("runs");
    let p = placed(&r);
    assert_eq!(
        p.iter().map(|a| a.name.as_str()).collect::<Vec<_>>(),
        vec!["web.g[1]"]
    );
}

#[test]
fn placement_failure_creates_blocked_eval() {
    let mut j = job(3);
    j.task_groups[0].tasks[0].resources = Some(crate::api::Resources {
        cpu: 3000,
        memory_mb: 256,
        ..Default::default()
    });
    let mut windows = node("n3");
    windows
        .attributes
        .insert("kernel.name".into(), "windows".into());
    windows.computed_class = "v1:class-w".into();
    j.constraints = Some(vec![Constraint {
        l_target: "${attr.kernel.name}".into(),
        operand: "=".into(),
        r_target: "linux".into(),
    }]);
    let r = run(&state(j, vec![node("n1"), node("n2"), windows], vec![]));
    assert_eq!(placed(&r).len(), 2);
    let failed = r.eval.failed_tg_allocs.as_ref().expect("failed allocs");
    let m = &failed["g"];
    assert_eq!(m.coalesced_failures, 0);
    assert_eq!(
        m.constraint_filtered
            .as_ref()
            .map(|c| c["${attr.kernel.name} = linux"]),
        Some(1)
    );
    assert_eq!(m.dimension_exhausted.as_ref().map(|d| d["cpu"]), Some(2));
    assert_eq!(m.nodes_exhausted, 2);
    assert_eq!(m.nodes_filtered, 1);
    assert_eq!(m.nodes_evaluated, 3);
    assert_eq!(r.eval.queued_allocations.as_ref().map(|q| q["g"]), Some(1));
    assert_eq!(r.eval.status, "complete");
    let b = r.blocked_eval.as_ref().expect("blocked eval");
    assert_eq!(r.eval.blocked_eval, b.id);
    assert_eq!(b.status, "blocked");
    assert_eq!(b.triggered_by, "queued-allocs");
    assert_eq!(b.previous_eval, r.eval.id);
    assert_eq!(b.status_description, DESC_BLOCKED_EVAL_FAILED_PLACEMENTS);
    let classes = b.class_eligibility.as_ref().expect("classes");
    assert_eq!(classes.get("v1:class-a"), Some(&true));
    assert_eq!(classes.get("v1:class-w"), Some(&false));
}

#[test]
fn coalesced_failures_count_the_rest() {
    let s = state(job(4), vec![], vec![]);
    let r = run(&s);
    let m = &r.eval.failed_tg_allocs.as_ref().expect("failed")["g"];
    assert_eq!(m.coalesced_failures, 3);
    assert_eq!(r.eval.queued_allocations.as_ref().map(|q| q["g"]), Some(4));
}

#[test]
fn failed_destructive_update_keeps_old_alloc() {
    let old = Arc::new(job(1));
    let mut new = (*old).clone();
    new.job_modify_index = 20;
    new.task_groups[0].tasks[0].driver = "docker".into();
    let r = run(&state(new, vec![node("n1")], vec![alloc(&old, 0, "n1")]));
    assert!(stopped(&r).is_empty(), "no stop without a replacement");
    let m = &r.eval.failed_tg_allocs.as_ref().expect("failed")["g"];
    assert_eq!(
        m.constraint_filtered.as_ref().map(|c| c["missing drivers"]),
        Some(1)
    );
}

#[test]
fn static_port_collision_and_dynamic_ports() {
    let mut j = job(2);
    j.task_groups[0].networks = Some(vec![NetworkResource {
        reserved_ports: vec![Port {
            label: "http".into(),
            value: 8080,
            ..Default::default()
        }],
        dynamic_ports: vec![Port {
            label: "admin".into(),
            ..Default::default()
        }],
        ..Default::default()
    }]);
    let r = run(&state(j, vec![node("n1")], vec![]));
    let p = placed(&r);
    assert_eq!(p.len(), 1);
    let ports = &p[0].allocated_resources.as_ref().expect("res").shared.ports;
    assert_eq!(ports.len(), 2);
    assert_eq!(ports[0].value, 8080);
    assert!((20000..=32000).contains(&ports[1].value));
    assert_eq!(ports[0].host_ip, "127.0.0.1");
    let m = &r.eval.failed_tg_allocs.as_ref().expect("failed")["g"];
    assert_eq!(
        m.dimension_exhausted
            .as_ref()
            .map(|d| d["network: reserved port collision http=8080"]),
        Some(1)
    );
}

#[test]
fn datacenter_and_pool_filter_before_metrics() {
    let mut j = job(1);
    j.datacenters = Some(vec!["eu*".into()]);
    let mut eu = node("n2");
    eu.datacenter = "eu-west".into();
    let mut other_pool = node("n3");
    other_pool.datacenter = "eu-east".into();
    other_pool.node_pool = "gpu".into();
    let r = run(&state(j, vec![node("n1"), eu, other_pool], vec![]));
    let p = placed(&r);
    assert_eq!(p[0].node_id, "n2");
    assert_eq!(p[0].metrics.as_ref().map(|m| m.nodes_in_pool), Some(1));
}

#[test]
fn unknown_trigger_fails_eval() {
    let s = state(job(1), vec![node("n1")], vec![]);
    let mut e = eval_for(&s.jobs[0]);
    e.triggered_by = "bogus".into();
    let r = process_eval(&e, &s, ctx()).expect("runs");
    assert_eq!(r.eval.status, "failed");
    assert_eq!(
        r.eval.status_description,
        "scheduler cannot handle 'bogus' evaluation reason"
    );
    assert!(r.plan.is_no_op());
}

#[test]
fn system_jobs_are_rejected() {
    let s = state(job(1), vec![node("n1")], vec![]);
    let mut e = eval_for(&s.jobs[0]);
    e.r#type = "system".into();
    assert!(matches!(
        process_eval(&e, &s, ctx()),
        Err(SchedulerError::UnsupportedType { .. })
    ));
}

#[test]
fn limit_follows_nomad() {
    assert_eq!(Stack::new(vec![], false).limit(), 2);
    let nodes: Vec<Arc<Node>> = (0..100).map(|i| Arc::new(node(&format!("n{i}")))).collect();
    assert_eq!(Stack::new(nodes.clone(), false).limit(), 7);
    assert_eq!(Stack::new(nodes, true).limit(), 2);
}

#[test]
fn distinct_hosts_filters_nodes_with_the_group() {
    let mut j = job(3);
    j.constraints = Some(vec![Constraint {
        operand: "distinct_hosts".into(),
        ..Default::default()
    }]);
    let r = run(&state(j, vec![node("n1"), node("n2")], vec![]));
    let nodes: BTreeSet<_> = placed(&r).iter().map(|a| a.node_id.clone()).collect();
    assert_eq!(nodes.len(), 2);
    let m = &r.eval.failed_tg_allocs.as_ref().expect("failed")["g"];
    assert_eq!(
        m.constraint_filtered.as_ref().map(|c| c["distinct_hosts"]),
        Some(2)
    );
}

#[test]
fn anti_affinity_penalty_value() {
    // One node: the second alloc collides with the first.
    let r = run(&state(job(2), vec![node("n1")], vec![]));
    let p = placed(&r);
    let second = p.iter().find(|a| a.name == "web.g[1]").expect("second");
    let meta = &second
        .metrics
        .as_ref()
        .expect("m")
        .score_meta_data
        .as_ref()
        .expect("s")[0];
    assert_eq!(meta.scores["job-anti-affinity"], -1.0); // -(1 + 1) / 2
                                                        // binpack after two 500/256 allocs on 4000/8192.
    let used = crate::scheduler::rank::NodeUsage {
        cpu: 1000,
        memory_mb: 512,
        ..Default::default()
    };
    let binpack = crate::scheduler::rank::score_fit_binpack(&node("n1"), &used) / 18.0;
    assert!((meta.scores["binpack"] - binpack).abs() < 1e-12);
    assert!((meta.norm_score - (binpack - 1.0) / 2.0).abs() < 1e-12);
}

#[test]
fn reschedule_penalises_previous_node() {
    let j = Arc::new(job(1));
    let mut failed = alloc(&j, 0, "n1");
    failed.client_status = "failed".into();
    let r = run(&state(
        (*j).clone(),
        vec![node("n1"), node("n2")],
        vec![failed],
    ));
    let s = stopped(&r);
    assert_eq!(
        s[0].desired_description,
        "alloc was rescheduled because it failed"
    );
    let p = placed(&r);
    assert_eq!(p.len(), 1);
    assert_eq!(p[0].node_id, "n2");
    assert_eq!(p[0].previous_allocation, "alloc-0-n1");
    let tracker = p[0].reschedule_tracker.as_ref().expect("tracker");
    assert_eq!(tracker["Events"][0]["PrevNodeID"], "n1");
    assert_eq!(tracker["Events"][0]["RescheduleTime"], NOW);
}

#[test]
fn blocked_eval_that_still_fails_is_reblocked() {
    let s = state(job(1), vec![], vec![]);
    let mut e = eval_for(&s.jobs[0]);
    e.status = "blocked".into();
    e.triggered_by = "queued-allocs".into();
    let r = process_eval(&e, &s, ctx()).expect("runs");
    assert_eq!(r.eval.status, "blocked");
    assert!(r.blocked_eval.is_none());
    assert!(r.eval.failed_tg_allocs.is_some());

    let s = state(job(1), vec![node("n1")], vec![]);
    let r = process_eval(&e, &s, ctx()).expect("runs");
    assert_eq!(r.eval.status, "complete");
    assert_eq!(placed(&r).len(), 1);
}

#[test]
fn plan_accounts_for_stops_and_earlier_placements() {
    // Node fits exactly 2 allocs of 2000 MHz; an existing alloc of another version
    // is stopped destructively, freeing room for its replacement plus one more.
    let mut big = job(2);
    big.task_groups[0].tasks[0].resources = Some(crate::api::Resources {
        cpu: 2000,
        memory_mb: 256,
        ..Default::default()
    });
    let old = Arc::new(big.clone());
    let mut new = big;
    new.job_modify_index = 20;
    new.task_groups[0].tasks[0].env = Some([("V".to_string(), "2".to_string())].into());
    let r = run(&state(new, vec![node("n1")], vec![alloc(&old, 0, "n1")]));
    assert_eq!(stopped(&r).len(), 1);
    assert_eq!(placed(&r).len(), 2);
    assert!(r.blocked_eval.is_none());
}

#[test]
fn same_seed_different_evals_get_different_ids() {
    let s = state(job(2), vec![node("n1"), node("n2")], vec![]);
    let e1 = eval_for(&s.jobs[0]);
    let mut e2 = e1.clone();
    e2.id = "00000000-0000-0000-0000-00000000e002".into();
    let a = process_eval(&e1, &s, ctx()).expect("runs");
    let b = process_eval(&e2, &s, ctx()).expect("runs");
    let ids_a: BTreeSet<_> = placed(&a).iter().map(|x| x.id.clone()).collect();
    let ids_b: BTreeSet<_> = placed(&b).iter().map(|x| x.id.clone()).collect();
    assert!(ids_a.is_disjoint(&ids_b));
}

#[test]
fn affinity_pulls_toward_matching_nodes() {
    let mut j = job(1);
    j.affinities = Some(serde_json::json!([
        {"LTarget": "${meta.rack}", "Operand": "=", "RTarget": "r2", "Weight": 50}
    ]));
    let mut nodes: Vec<Node> = (0..6).map(|i| node(&format!("n{i}"))).collect();
    nodes[4].meta.insert("rack".into(), "r2".into());
    let r = run(&state(j, nodes, vec![]));
    let p = placed(&r);
    assert_eq!(p[0].node_id, "n4");
    let meta = &p[0]
        .metrics
        .as_ref()
        .expect("m")
        .score_meta_data
        .as_ref()
        .expect("s")[0];
    assert_eq!(meta.scores["node-affinity"], 1.0);
    // Every node is scored when affinities exist.
    assert_eq!(p[0].metrics.as_ref().map(|m| m.nodes_evaluated), Some(6));
}
