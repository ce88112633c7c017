use super::*;
use crate::api::{ALLOC_CLIENT_RUNNING, ALLOC_DESIRED_STOP};
use crate::scheduler::testing::{alloc, job};
use serde_json::json;

fn run(
    job: Option<&Job>,
    allocs: &[Arc<Allocation>],
    tainted: &BTreeMap<String, Taint>,
    decision: UpdateDecision,
) -> ReconcileResult {
    let input = ReconcileInput {
        job_id: "web",
        job,
        allocs,
        tainted,
        now: 1_000,
        deployment: None,
        new_deployment_id: "d1",
    };
    reconcile(&input, &mut |_, _| decision.clone())
}

fn names(r: &ReconcileResult) -> Vec<String> {
    r.placements.iter().map(|p| p.name.clone()).collect()
}

#[test]
fn places_missing_with_lowest_free_indexes() {
    let j = Arc::new(job(4));
    let allocs = vec![Arc::new(alloc(&j, 1, "n1")), Arc::new(alloc(&j, 3, "n1"))];
    let r = run(Some(&j), &allocs, &BTreeMap::new(), UpdateDecision::Ignore);
    assert_eq!(names(&r), vec!["web.g[0]", "web.g[2]"]);
    assert!(r.stops.is_empty());
}

#[test]
fn scale_down_stops_highest_indexes() {
    let j = Arc::new(job(1));
    let allocs: Vec<_> = (0..3).map(|i| Arc::new(alloc(&j, i, "n1"))).collect();
    let r = run(Some(&j), &allocs, &BTreeMap::new(), UpdateDecision::Ignore);
    let mut stopped: Vec<_> = r.stops.iter().map(|s| s.alloc.name.clone()).collect();
    stopped.sort();
    assert_eq!(stopped, vec!["web.g[1]", "web.g[2]"]);
    assert!(r
        .stops
        .iter()
        .all(|s| s.description == STATUS_ALLOC_NOT_NEEDED));
    assert!(r.placements.is_empty());
}

#[test]
fn stopped_or_missing_job_stops_everything() {
    let j = Arc::new(job(2));
    let allocs: Vec<_> = (0..2).map(|i| Arc::new(alloc(&j, i, "n1"))).collect();
    let mut stopped = (*j).clone();
    stopped.stop = true;
    for job in [Some(&stopped), None] {
        let r = run(job, &allocs, &BTreeMap::new(), UpdateDecision::Ignore);
        assert_eq!(r.stops.len(), 2);
        assert!(r.placements.is_empty());
    }
}

#[test]
fn lost_allocs_stop_as_lost_and_are_replaced() {
    let j = Arc::new(job(1));
    let allocs = vec![Arc::new(alloc(&j, 0, "gone"))];
    let tainted = [("gone".to_string(), Taint::Lost)].into();
    let r = run(Some(&j), &allocs, &tainted, UpdateDecision::Ignore);
    assert_eq!(r.stops.len(), 1);
    assert_eq!(r.stops[0].description, STATUS_ALLOC_LOST);
    assert_eq!(r.stops[0].client_status, Some(ALLOC_CLIENT_LOST));
    assert_eq!(names(&r), vec!["web.g[0]"]);
    assert_eq!(
        r.placements[0].previous.as_ref().map(|a| a.id.clone()),
        Some(allocs[0].id.clone())
    );
}

#[test]
fn batch_complete_is_not_replaced_but_failed_is() {
    let mut bj = job(2);
    bj.r#type = "batch".into();
    let bj = Arc::new(bj);
    let mut done = alloc(&bj, 0, "n1");
    done.client_status = ALLOC_CLIENT_COMPLETE.into();
    let mut failed = alloc(&bj, 1, "n1");
    failed.client_status = ALLOC_CLIENT_FAILED.into();
    // It failed long enough ago for the batch default delay (5s) to have passed.
    failed.modify_time = 1_000 - 10 * crate::api::SECOND;
    let allocs = vec![Arc::new(done), Arc::new(failed)];
    let r = run(Some(&bj), &allocs, &BTreeMap::new(), UpdateDecision::Ignore);
    assert_eq!(names(&r), vec!["web.g[1]"]);
    assert!(r.placements[0].reschedule);
    assert_eq!(r.stops.len(), 1);
    assert_eq!(r.stops[0].description, STATUS_ALLOC_RESCHEDULED);
}

#[test]
fn batch_failed_past_attempts_keeps_its_slot() {
    let mut bj = job(1);
    bj.r#type = "batch".into();
    let bj = Arc::new(bj);
    let mut failed = alloc(&bj, 0, "n1");
    failed.client_status = ALLOC_CLIENT_FAILED.into();
    // One reschedule already happened within the 24h interval of the default policy.
    failed.reschedule_tracker = Some(json!({"Events": [{"RescheduleTime": 900}]}));
    let r = run(
        Some(&bj),
        &[Arc::new(failed)],
        &BTreeMap::new(),
        UpdateDecision::Ignore,
    );
    assert!(r.placements.is_empty());
    assert!(r.stops.is_empty());
}

#[test]
fn server_terminal_allocs_free_their_slot() {
    let j = Arc::new(job(1));
    let mut old = alloc(&j, 0, "n1");
    old.desired_status = ALLOC_DESIRED_STOP.into();
    old.client_status = ALLOC_CLIENT_RUNNING.into();
    let r = run(
        Some(&j),
        &[Arc::new(old)],
        &BTreeMap::new(),
        UpdateDecision::Ignore,
    );
    assert_eq!(names(&r), vec!["web.g[0]"]);
}

#[test]
fn job_change_asks_update_fn() {
    let old = Arc::new(job(1));
    let mut new = (*old).clone();
    new.job_modify_index = 20;
    let allocs = vec![Arc::new(alloc(&old, 0, "n1"))];
    let r = run(
        Some(&new),
        &allocs,
        &BTreeMap::new(),
        UpdateDecision::Destructive,
    );
    assert_eq!(names(&r), vec!["web.g[0]"]);
    assert_eq!(r.placements[0].stop_previous, Some(STATUS_ALLOC_UPDATING));
    assert!(
        r.stops.is_empty(),
        "destructive stops are staged with the placement"
    );

    let inplace = UpdateDecision::InPlace(Box::new((*allocs[0]).clone()));
    let r = run(Some(&new), &allocs, &BTreeMap::new(), inplace);
    assert!(r.placements.is_empty());
    assert_eq!(r.inplace.len(), 1);

    // Same JobModifyIndex: the update fn is not consulted at all.
    let r = run(
        Some(&old),
        &allocs,
        &BTreeMap::new(),
        UpdateDecision::Destructive,
    );
    assert!(r.placements.is_empty());
}

#[test]
fn removed_group_allocs_stop() {
    let j = Arc::new(job(1));
    let mut other = alloc(&j, 0, "n1");
    other.task_group = "gone".into();
    other.name = "web.gone[0]".into();
    let allocs = vec![Arc::new(alloc(&j, 0, "n1")), Arc::new(other)];
    let r = run(Some(&j), &allocs, &BTreeMap::new(), UpdateDecision::Ignore);
    assert_eq!(r.stops.len(), 1);
    assert_eq!(r.stops[0].alloc.task_group, "gone");
}

#[test]
fn failed_alloc_within_its_delay_waits_for_a_follow_up_eval() {
    let j = Arc::new(job(1));
    let mut failed = alloc(&j, 0, "n1");
    failed.client_status = ALLOC_CLIENT_FAILED.into();
    failed.modify_time = 1_000;
    let failed = Arc::new(failed);
    let r = run(
        Some(&j),
        std::slice::from_ref(&failed),
        &BTreeMap::new(),
        UpdateDecision::Ignore,
    );
    assert!(r.placements.is_empty(), "not replaced before the delay");
    assert!(r.stops.is_empty());
    // The service default delay is 30s from the failure.
    assert_eq!(
        r.reschedule_later,
        vec![(failed.clone(), 1_000 + 30 * crate::api::SECOND)]
    );
    // Once it has a follow-up eval, no second one is asked for.
    let mut waiting = (*failed).clone();
    waiting.followup_eval_id = "f1".into();
    let r = run(
        Some(&j),
        &[Arc::new(waiting)],
        &BTreeMap::new(),
        UpdateDecision::Ignore,
    );
    assert!(r.reschedule_later.is_empty() && r.placements.is_empty());
}
