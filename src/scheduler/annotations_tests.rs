//! The plan annotations every scheduled eval carries (Nomad's `DesiredTGUpdates` and
//! `PreemptedAllocs`), counted per group as Nomad's reconcilers count them.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::api::{
    Allocation, DesiredUpdates, Evaluation, Job, Node, PlanAnnotations, SchedulerConfiguration,
    UpdateStrategy, JOB_TYPE_SYSBATCH, JOB_TYPE_SYSTEM, SECOND,
};
use crate::scheduler::testing::{alloc, eval_for, job, node, TestState};
use crate::scheduler::{process_eval, SchedulerContext, SchedulerResult};

const NOW: i64 = 1_700_000_000_000_000_000;

fn state(j: &Job, nodes: Vec<Node>, allocs: Vec<Allocation>) -> TestState {
    TestState {
        index: 100,
        jobs: vec![Arc::new(j.clone())],
        nodes: nodes.into_iter().map(Arc::new).collect(),
        allocs: allocs.into_iter().map(Arc::new).collect(),
        ..Default::default()
    }
}

fn run_eval(e: &Evaluation, s: &TestState) -> SchedulerResult {
    process_eval(e, s, SchedulerContext { now: NOW, seed: 3 }).expect("scheduler runs")
}

fn run(j: &Job, nodes: Vec<Node>, allocs: Vec<Allocation>) -> SchedulerResult {
    run_eval(&eval_for(j), &state(j, nodes, allocs))
}

fn annotations(r: &SchedulerResult) -> &PlanAnnotations {
    r.eval
        .plan_annotations
        .as_ref()
        .expect("the eval carries plan annotations")
}

/// The counts of the one group `g`, checked to be the only group annotated.
fn group(r: &SchedulerResult) -> DesiredUpdates {
    let all = &annotations(r).desired_tg_updates;
    assert_eq!(all.keys().collect::<Vec<_>>(), ["g"], "{all:?}");
    all["g"].clone()
}

/// Version 1 of `old`, with a task change that replaces its allocs.
fn destructive_version(old: &Job) -> Job {
    let mut new = old.clone();
    new.version = 1;
    new.job_modify_index = 20;
    new.task_groups[0].tasks[0].env = Some([("A".to_string(), "1".to_string())].into());
    new
}

#[test]
fn a_count_change_counts_places_and_stops() {
    let j = Arc::new(job(3));
    let existing = vec![alloc(&j, 0, "n1"), alloc(&j, 1, "n1")];
    let up = run(&j, vec![node("n1")], existing.clone());
    let want = DesiredUpdates {
        ignore: 2,
        place: 1,
        ..Default::default()
    };
    assert_eq!(group(&up), want);
    assert_eq!(annotations(&up).preempted_allocs, None);

    let down = run(&job(1), vec![node("n1")], existing);
    let want = DesiredUpdates {
        ignore: 1,
        stop: 1,
        ..Default::default()
    };
    assert_eq!(group(&down), want);
}

#[test]
fn a_job_update_counts_destructive_and_in_place_updates() {
    let old = Arc::new(job(2));
    let existing = vec![alloc(&old, 0, "n1"), alloc(&old, 1, "n1")];
    let new = destructive_version(&old);
    let r = run(&new, vec![node("n1")], existing.clone());
    let want = DesiredUpdates {
        destructive_update: 2,
        ..Default::default()
    };
    assert_eq!(group(&r), want);

    let mut in_place = (*old).clone();
    in_place.version = 1;
    in_place.job_modify_index = 20;
    in_place.task_groups[0].tasks[0].kill_timeout = Some(5 * SECOND);
    let r = run(&in_place, vec![node("n1")], existing.clone());
    let want = DesiredUpdates {
        in_place_update: 2,
        ..Default::default()
    };
    assert_eq!(group(&r), want);

    // max_parallel = 1: the second update waits for a later pass and counts as ignored.
    let mut rolling = new.clone();
    rolling.task_groups[0].update = Some(UpdateStrategy {
        max_parallel: 1,
        ..Default::default()
    });
    let r = run(&rolling, vec![node("n1")], existing.clone());
    let want = DesiredUpdates {
        ignore: 1,
        destructive_update: 1,
        ..Default::default()
    };
    assert_eq!(group(&r), want);

    // A canary goes first; the old allocs stay until it is promoted.
    let mut canary = rolling;
    if let Some(u) = canary.task_groups[0].update.as_mut() {
        u.canary = 1;
    }
    let r = run(&canary, vec![node("n1")], existing);
    let want = DesiredUpdates {
        ignore: 2,
        canary: 1,
        ..Default::default()
    };
    assert_eq!(group(&r), want);
}

#[test]
fn placements_that_fail_still_count_and_a_reblocked_eval_keeps_its_own() {
    let j = job(2);
    let r = run(&j, vec![], vec![]);
    assert!(r.blocked_eval.is_some());
    let want = DesiredUpdates {
        place: 2,
        ..Default::default()
    };
    assert_eq!(group(&r), want);
    assert_eq!(
        r.blocked_eval
            .as_ref()
            .and_then(|b| b.plan_annotations.as_ref()),
        None,
        "the blocked eval is new: nothing scheduled it yet"
    );

    // A blocked eval that still cannot place everything is re-blocked as it was (Nomad's
    // ReblockEval does not touch its annotations).
    let mut blocked = eval_for(&j);
    blocked.status = "blocked".into();
    blocked.triggered_by = "queued-allocs".into();
    let earlier = annotations(&r).clone();
    blocked.plan_annotations = Some(earlier.clone());
    let again = run_eval(&blocked, &state(&j, vec![], vec![]));
    assert_eq!(again.eval.status, "blocked");
    assert_eq!(again.eval.plan_annotations, Some(earlier));
}

#[test]
fn lost_migrating_and_failed_allocs() {
    let j = Arc::new(job(1));
    let mut down = node("n1");
    down.status = "down".into();
    let lost = run(&j, vec![down, node("n2")], vec![alloc(&j, 0, "n1")]);
    let want = DesiredUpdates {
        stop: 1,
        place: 1,
        ..Default::default()
    };
    assert_eq!(group(&lost), want);

    let mut marked = alloc(&j, 0, "n1");
    marked.desired_transition.migrate = Some(true);
    let migrated = run(&j, vec![node("n1"), node("n2")], vec![marked]);
    let want = DesiredUpdates {
        migrate: 1,
        ..Default::default()
    };
    assert_eq!(group(&migrated), want);

    // A failed alloc whose reschedule delay (30 s for services) has not passed keeps its
    // slot until a follow-up eval replaces it.
    let mut failed = alloc(&j, 0, "n1");
    failed.client_status = "failed".into();
    failed.modify_time = NOW;
    let later = run(&j, vec![node("n1")], vec![failed.clone()]);
    assert_eq!(later.followup_evals.len(), 1);
    let want = DesiredUpdates {
        ignore: 1,
        reschedule_later: 1,
        ..Default::default()
    };
    assert_eq!(group(&later), want);

    // Once it is due, it is stopped and replaced.
    failed.modify_time = NOW - 60 * SECOND;
    let now = run(&j, vec![node("n1")], vec![failed]);
    let want = DesiredUpdates {
        stop: 1,
        place: 1,
        ..Default::default()
    };
    assert_eq!(group(&now), want);
}

#[test]
fn a_stopped_or_purged_job_counts_its_stops() {
    let j = Arc::new(job(2));
    let existing = vec![alloc(&j, 0, "n1"), alloc(&j, 1, "n1")];
    let mut stopped = (*j).clone();
    stopped.stop = true;
    let r = run(&stopped, vec![node("n1")], existing.clone());
    let want = DesiredUpdates {
        stop: 2,
        ..Default::default()
    };
    assert_eq!(group(&r), want);

    let purged = TestState {
        jobs: vec![],
        ..state(&j, vec![node("n1")], existing)
    };
    let r = run_eval(&eval_for(&j), &purged);
    assert_eq!(group(&r), want);
}

/// A node full with one alloc of a priority-20 job, and that alloc.
fn full_node_with_low_priority() -> (Node, Allocation) {
    let mut low = job(1);
    low.id = "low".into();
    low.priority = 20;
    if let Some(r) = low.task_groups[0].tasks[0].resources.as_mut() {
        r.cpu = 3800;
        r.memory_mb = 1000;
    }
    (node("n1"), alloc(&Arc::new(low), 0, "n1"))
}

#[test]
fn a_service_preemption_counts_and_lists_the_victim() {
    let mut j = job(1);
    j.priority = 80;
    let (n, victim) = full_node_with_low_priority();
    let mut s = state(&j, vec![n], vec![victim.clone()]);
    s.config = SchedulerConfiguration::default();
    s.config.preemption_config.service_scheduler_enabled = true;
    let r = run_eval(&eval_for(&j), &s);
    assert_eq!(r.plan.node_allocation.values().flatten().count(), 1);
    let want = DesiredUpdates {
        place: 1,
        preemptions: 1,
        ..Default::default()
    };
    assert_eq!(group(&r), want);
    let listed = annotations(&r)
        .preempted_allocs
        .as_ref()
        .expect("victims listed");
    assert_eq!(listed.len(), 1);
    assert_eq!(listed[0].id, victim.id);
    assert_eq!(listed[0].job_id, "low");
    assert_eq!(listed[0].node_id, "n1");
    // As it was when preempted: the eviction is the plan's.
    assert_eq!(listed[0].desired_status, "run");
}

#[test]
fn system_preemptions_are_annotated_only_for_a_job_plan() {
    let mut j = job(1);
    j.r#type = JOB_TYPE_SYSTEM.into();
    j.priority = 90;
    let (n, victim) = full_node_with_low_priority();
    let s = state(&j, vec![n], vec![victim.clone()]);
    let r = run_eval(&eval_for(&j), &s);
    assert_eq!(r.plan.node_allocation.values().flatten().count(), 1);
    let want = DesiredUpdates {
        place: 1,
        ..Default::default()
    };
    assert_eq!(group(&r), want);
    assert_eq!(annotations(&r).preempted_allocs, None);

    let mut plan = eval_for(&j);
    plan.annotate_plan = true;
    let r = run_eval(&plan, &s);
    assert_eq!(group(&r).preemptions, 1);
    let listed = annotations(&r).preempted_allocs.clone().unwrap_or_default();
    assert_eq!(
        listed.iter().map(|a| a.id.as_str()).collect::<Vec<_>>(),
        [victim.id.as_str()]
    );
}

fn sys_job(kind: &str) -> Job {
    let mut j = job(1);
    j.id = "sys".into();
    j.name = "sys".into();
    j.r#type = kind.into();
    j
}

#[test]
fn system_place_counts_every_node_that_runs_the_group() {
    let j = Arc::new(sys_job(JOB_TYPE_SYSTEM));
    let nodes = vec![node("n1"), node("n2"), node("n3")];
    let r = run(&j, nodes.clone(), vec![alloc(&j, 0, "n1")]);
    // Nomad's candidate count: the node kept and the two placed on.
    let want = DesiredUpdates {
        ignore: 1,
        place: 3,
        ..Default::default()
    };
    assert_eq!(group(&r), want);

    let existing = vec![alloc(&j, 0, "n1"), alloc(&j, 0, "n2")];
    let r = run(&destructive_version(&j), nodes.clone(), existing);
    let want = DesiredUpdates {
        place: 3,
        destructive_update: 2,
        ..Default::default()
    };
    assert_eq!(group(&r), want);

    let mut down = node("n1");
    down.status = "down".into();
    let mut marked = alloc(&j, 0, "n2");
    marked.desired_transition.migrate = Some(true);
    let r = run(
        &j,
        vec![down, node("n2"), node("n3")],
        vec![alloc(&j, 0, "n1"), marked, alloc(&j, 0, "n3")],
    );
    // The lost alloc is not counted; the migrating one is, and its node gets a new one.
    let want = DesiredUpdates {
        ignore: 1,
        place: 2,
        migrate: 1,
        ..Default::default()
    };
    assert_eq!(group(&r), want);
}

#[test]
fn system_and_sysbatch_place_leave_out_filtered_nodes() {
    let mut no_driver = node("n2");
    no_driver.drivers.clear();
    for kind in [JOB_TYPE_SYSTEM, JOB_TYPE_SYSBATCH] {
        let r = run(&sys_job(kind), vec![node("n1"), no_driver.clone()], vec![]);
        let want = DesiredUpdates {
            place: 1,
            ..Default::default()
        };
        assert_eq!(group(&r), want, "{kind}");
    }
}

#[test]
fn a_system_job_with_nothing_to_decide_annotates_no_group() {
    let r = run(&sys_job(JOB_TYPE_SYSTEM), vec![], vec![]);
    assert_eq!(annotations(&r).desired_tg_updates, BTreeMap::new());
}

#[test]
fn an_unhandled_trigger_drops_earlier_annotations() {
    let j = job(1);
    let mut e = eval_for(&j);
    e.triggered_by = "no-such-trigger".into();
    e.plan_annotations = Some(PlanAnnotations::default());
    let r = run_eval(&e, &state(&j, vec![node("n1")], vec![]));
    assert_eq!(r.eval.status, "failed");
    assert_eq!(r.eval.plan_annotations, None);
}
