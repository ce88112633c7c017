use super::*;
use crate::api::{Constraint, JOB_TYPE_SERVICE, NODE_ELIGIBLE, NODE_INELIGIBLE};
use crate::scheduler::testing::{alloc, eval_for, job, node, TestState};

const NOW: i64 = 1_700_000_000_000_000_000;

fn ctx() -> SchedulerContext {
    SchedulerContext { now: NOW, seed: 7 }
}

fn sys_job(kind: &str) -> Job {
    let mut j = job(1);
    j.id = "sys".into();
    j.name = "sys".into();
    j.r#type = kind.into();
    j
}

fn run(j: &Job, nodes: Vec<Node>, allocs: Vec<Allocation>) -> SchedulerResult {
    let state = TestState {
        index: 100,
        jobs: vec![Arc::new(j.clone())],
        nodes: nodes.into_iter().map(Arc::new).collect(),
        allocs: allocs.into_iter().map(Arc::new).collect(),
        ..Default::default()
    };
    super::super::process_eval(&eval_for(j), &state, ctx()).expect("system scheduler runs")
}

fn placed_nodes(r: &SchedulerResult) -> Vec<String> {
    let mut v: Vec<String> = r
        .plan
        .node_allocation
        .values()
        .flatten()
        .map(|a| a.node_id.clone())
        .collect();
    v.sort();
    v
}

fn stops(r: &SchedulerResult) -> Vec<(String, String)> {
    r.plan
        .node_update
        .values()
        .flatten()
        .map(|a| (a.node_id.clone(), a.desired_description.clone()))
        .collect()
}

#[test]
fn places_one_alloc_per_ready_node_named_index_zero() {
    let j = sys_job(JOB_TYPE_SYSTEM);
    let mut down = node("n3");
    down.status = "down".into();
    let mut other_dc = node("n4");
    other_dc.datacenter = "dc9".into();
    let r = run(&j, vec![node("n1"), node("n2"), down, other_dc], vec![]);
    assert_eq!(placed_nodes(&r), vec!["n1", "n2"]);
    for a in r.plan.node_allocation.values().flatten() {
        assert_eq!(a.name, "sys.g[0]");
        assert_eq!(a.metrics.as_ref().map(|m| m.nodes_evaluated), Some(1));
    }
    assert!(r.blocked_eval.is_none());
    assert_eq!(r.eval.status, EVAL_STATUS_COMPLETE);
    assert!(r.eval.failed_tg_allocs.is_none());
}

#[test]
fn existing_alloc_of_current_version_is_kept_and_new_node_gets_one() {
    let j = sys_job(JOB_TYPE_SYSTEM);
    let arc = Arc::new(j.clone());
    let r = run(&j, vec![node("n1"), node("n2")], vec![alloc(&arc, 0, "n1")]);
    assert_eq!(placed_nodes(&r), vec!["n2"]);
    assert!(r.plan.node_update.is_empty());
}

#[test]
fn node_that_became_infeasible_has_its_alloc_stopped() {
    let mut j = sys_job(JOB_TYPE_SYSTEM);
    j.constraints = Some(vec![Constraint {
        l_target: "${attr.kernel.name}".into(),
        operand: "=".into(),
        r_target: "linux".into(),
    }]);
    let arc = Arc::new(j.clone());
    let mut n2 = node("n2");
    n2.attributes.insert("kernel.name".into(), "windows".into());
    let r = run(
        &j,
        vec![node("n1"), n2],
        vec![alloc(&arc, 0, "n1"), alloc(&arc, 0, "n2")],
    );
    assert!(r.plan.node_allocation.is_empty());
    assert_eq!(
        stops(&r),
        vec![("n2".to_string(), STATUS_ALLOC_NODE_INFEASIBLE.to_string())]
    );
    // Filtered nodes are not failures while the group runs somewhere.
    assert!(r.eval.failed_tg_allocs.is_none());
}

#[test]
fn lost_draining_and_out_of_scope_nodes() {
    let j = sys_job(JOB_TYPE_SYSTEM);
    let arc = Arc::new(j.clone());
    let mut down = node("down");
    down.status = "down".into();
    let mut drain = node("drain");
    drain.drain = true;
    let mut moved = node("moved");
    moved.datacenter = "dc2".into();
    let mut inel = node("inel");
    inel.scheduling_eligibility = NODE_INELIGIBLE.into();
    let mut drain_kept = node("drain-kept");
    drain_kept.drain = true;
    let mut allocs: Vec<_> = ["down", "drain", "moved", "inel", "gone", "drain-kept"]
        .iter()
        .map(|n| alloc(&arc, 0, n))
        .collect();
    // Only the alloc the drainer marked moves; the other draining node keeps its alloc.
    allocs[1].desired_transition.migrate = Some(true);
    let r = run(&j, vec![down, drain, moved, inel, drain_kept], allocs);
    let mut got = stops(&r);
    got.sort();
    assert_eq!(
        got,
        vec![
            ("down".into(), STATUS_ALLOC_LOST.to_string()),
            ("drain".into(), STATUS_ALLOC_MIGRATING.to_string()),
            ("gone".into(), STATUS_ALLOC_LOST.to_string()),
            ("moved".into(), STATUS_ALLOC_NOT_NEEDED.to_string()),
        ]
    );
    assert!(
        r.plan.node_allocation.is_empty(),
        "ineligible node keeps its alloc"
    );
}

#[test]
fn job_update_replaces_on_the_same_node() {
    let mut j = sys_job(JOB_TYPE_SYSTEM);
    let old = Arc::new(j.clone());
    j.job_modify_index = 20;
    j.task_groups[0].tasks[0].env = Some([("V".to_string(), "2".to_string())].into());
    let r = run(&j, vec![node("n1")], vec![alloc(&old, 0, "n1")]);
    assert_eq!(placed_nodes(&r), vec!["n1"]);
    assert_eq!(stops(&r), vec![("n1".into(), STATUS_ALLOC_UPDATING.into())]);
    let new = r
        .plan
        .node_allocation
        .values()
        .flatten()
        .next()
        .expect("one");
    assert_eq!(new.previous_allocation, "alloc-0-n1");
}

#[test]
fn stopped_job_stops_everything() {
    let mut j = sys_job(JOB_TYPE_SYSTEM);
    j.stop = true;
    let arc = Arc::new(j.clone());
    let r = run(&j, vec![node("n1")], vec![alloc(&arc, 0, "n1")]);
    assert_eq!(
        stops(&r),
        vec![("n1".into(), STATUS_ALLOC_NOT_NEEDED.into())]
    );
    assert!(r.plan.node_allocation.is_empty());
}

#[test]
fn sysbatch_is_not_replaced_after_success_but_is_after_failure_of_old_version() {
    let j = sys_job(JOB_TYPE_SYSBATCH);
    let arc = Arc::new(j.clone());
    let mut done = alloc(&arc, 0, "n1");
    done.client_status = ALLOC_CLIENT_COMPLETE.into();
    let mut old_job = j.clone();
    old_job.job_modify_index = 1;
    let mut old_done = alloc(&Arc::new(old_job), 0, "n2");
    old_done.client_status = ALLOC_CLIENT_COMPLETE.into();
    let r = run(
        &j,
        vec![node("n1"), node("n2"), node("n3")],
        vec![done, old_done],
    );
    assert_eq!(placed_nodes(&r), vec!["n2", "n3"]);

    // A system job re-places over a finished alloc.
    let s = sys_job(JOB_TYPE_SYSTEM);
    let sarc = Arc::new(s.clone());
    let mut fin = alloc(&sarc, 0, "n1");
    fin.client_status = ALLOC_CLIENT_COMPLETE.into();
    assert_eq!(
        placed_nodes(&run(&s, vec![node("n1")], vec![fin])),
        vec!["n1"]
    );
}

#[test]
fn exhausted_nodes_are_failed_placements_coalesced() {
    let mut j = sys_job(JOB_TYPE_SYSTEM);
    if let Some(r) = j.task_groups[0].tasks[0].resources.as_mut() {
        r.memory_mb = 100_000;
    }
    let r = run(&j, vec![node("n1"), node("n2"), node("n3")], vec![]);
    let failed = r.eval.failed_tg_allocs.expect("failures");
    let m = &failed["g"];
    assert_eq!(m.nodes_exhausted, 1);
    assert_eq!(m.coalesced_failures, 2);
    assert_eq!(m.dimension_exhausted.as_ref().map(|d| d["memory"]), Some(1));
    assert_eq!(r.eval.queued_allocations.as_ref().map(|q| q["g"]), Some(3));
    assert!(r.blocked_eval.is_none());
}

#[test]
fn filtered_everywhere_reports_merged_filter_metrics() {
    let mut j = sys_job(JOB_TYPE_SYSTEM);
    j.task_groups[0].tasks[0].driver = "docker".into();
    let r = run(&j, vec![node("n1"), node("n2")], vec![]);
    let failed = r.eval.failed_tg_allocs.expect("reported");
    assert_eq!(failed["g"].nodes_filtered, 2);
    assert_eq!(failed["g"].nodes_evaluated, 2);
    assert_eq!(r.eval.queued_allocations.as_ref().map(|q| q["g"]), Some(0));
}

#[test]
fn entry_dispatches_service_to_generic() {
    let mut j = sys_job(JOB_TYPE_SERVICE);
    j.task_groups[0].count = 1;
    let r = run(&j, vec![node("n1"), node("n2")], vec![]);
    assert_eq!(placed_nodes(&r).len(), 1);
    assert_eq!(NODE_ELIGIBLE, "eligible");
}

#[test]
fn a_non_destructive_job_update_is_made_in_place() {
    let mut j = sys_job(JOB_TYPE_SYSTEM);
    let old = Arc::new(j.clone());
    j.job_modify_index = 20;
    // kill_timeout is read on the next stop: no new task needed.
    j.task_groups[0].tasks[0].kill_timeout = Some(30 * crate::api::SECOND);
    let existing = alloc(&old, 0, "n1");
    let r = run(&j, vec![node("n1")], vec![existing.clone()]);
    assert!(stops(&r).is_empty(), "nothing is stopped: {:?}", stops(&r));
    let updated: Vec<_> = r.plan.node_allocation.values().flatten().collect();
    assert_eq!(updated.len(), 1);
    assert_eq!(updated[0].id, existing.id, "same alloc, updated in place");
    assert_eq!(
        updated[0].job.as_ref().map(|j| j.job_modify_index),
        Some(20)
    );
}

#[test]
fn destructive_updates_roll_max_parallel_at_a_time_then_follow_up_after_stagger() {
    let mut j = sys_job(JOB_TYPE_SYSTEM);
    let old = Arc::new(j.clone());
    j.job_modify_index = 20;
    j.task_groups[0].tasks[0].env = Some([("V".to_string(), "2".to_string())].into());
    j.task_groups[0].update = Some(crate::api::UpdateStrategy {
        max_parallel: 2,
        stagger: 10 * crate::api::SECOND,
        ..Default::default()
    });
    let nodes: Vec<Node> = ["n1", "n2", "n3", "n4", "n5"]
        .into_iter()
        .map(node)
        .collect();
    let allocs = ["n1", "n2", "n3", "n4", "n5"]
        .into_iter()
        .enumerate()
        .map(|(i, n)| alloc(&old, i as u32, n))
        .collect();
    let r = run(&j, nodes, allocs);
    assert_eq!(placed_nodes(&r).len(), 2, "two replaced in this eval");
    assert_eq!(stops(&r).len(), 2);
    let follow = r
        .followup_evals
        .iter()
        .find(|e| e.triggered_by == TRIGGER_ROLLING_UPDATE)
        .expect("a rolling-update eval follows");
    assert_eq!(follow.wait_until, NOW + 10 * crate::api::SECOND);
    assert_eq!(follow.job_id, "sys");

    // Without max_parallel every node is replaced at once and nothing follows.
    let mut all = j.clone();
    all.task_groups[0].update = None;
    let nodes: Vec<Node> = ["n1", "n2", "n3"].into_iter().map(node).collect();
    let allocs = ["n1", "n2", "n3"]
        .into_iter()
        .enumerate()
        .map(|(i, n)| alloc(&old, i as u32, n))
        .collect();
    let r = run(&all, nodes, allocs);
    assert_eq!(placed_nodes(&r).len(), 3);
    assert!(r.followup_evals.is_empty());
}
