use serde_json::json;

use super::*;
use crate::api::{CheckQueryResult, Task, UpdateStrategy, CHECK_FAILURE, CHECK_PENDING, SECOND};

fn group(health_check: &str) -> TaskGroup {
    TaskGroup {
        name: "web".into(),
        update: Some(UpdateStrategy {
            health_check: health_check.into(),
            min_healthy_time: 10 * SECOND,
            healthy_deadline: 60 * SECOND,
            ..Default::default()
        }),
        services: Some(json!([{
            "Name": "web", "Provider": "nomad",
            "Checks": [{"Name": "alive", "OnUpdate": "require_healthy"},
                       {"Name": "ready", "OnUpdate": "ignore"}]
        }])),
        tasks: vec![
            Task {
                name: "server".into(),
                ..Default::default()
            },
            Task {
                name: "init".into(),
                lifecycle: Some(json!({"Hook": "prestart", "Sidecar": false})),
                ..Default::default()
            },
        ],
        ..Default::default()
    }
}

fn states(server: &str, failed: bool) -> BTreeMap<String, TaskState> {
    BTreeMap::from([
        (
            "server".to_string(),
            TaskState {
                state: server.into(),
                failed,
                ..Default::default()
            },
        ),
        (
            "init".to_string(),
            TaskState {
                state: "dead".into(),
                ..Default::default()
            },
        ),
    ])
}

fn checks(alive: &str) -> AllocCheckResults {
    let r = |id: &str, mode: &str, status: &str| CheckQueryResult {
        id: id.into(),
        mode: mode.into(),
        status: status.into(),
        ..Default::default()
    };
    BTreeMap::from([
        ("a".to_string(), r("a", CHECK_HEALTHINESS, alive)),
        // A failing readiness check does not decide health.
        ("b".to_string(), r("b", "readiness", CHECK_FAILURE)),
    ])
}

fn observe(
    t: &mut HealthTracker,
    tg: &TaskGroup,
    s: &BTreeMap<String, TaskState>,
    c: &AllocCheckResults,
    now: i64,
) -> Option<bool> {
    t.observe(&Observation {
        tg,
        client_status: "running",
        states: s,
        checks: c,
        timings: timings(tg, true),
        since_created: 0,
        now,
    })
}

#[test]
fn only_nomad_healthiness_checks_in_checks_mode_need_the_client() {
    assert_eq!(nomad_health_checks(&group("checks")), 1);
    assert!(needs_client_health(&group("checks")));
    assert!(needs_client_health(&group("")));
    assert!(!needs_client_health(&group("task_states")));
    assert!(!needs_client_health(&group("manual")));
    let mut consul = group("checks");
    consul.services = Some(json!([{"Provider": "consul", "Checks": [{"Name": "x"}]}]));
    assert!(!needs_client_health(&consul));
}

#[test]
fn healthy_after_min_healthy_time_of_passing_checks() {
    let tg = group("checks");
    let mut t = HealthTracker::default();
    let s = states("running", false);
    assert_eq!(
        observe(&mut t, &tg, &s, &checks(CHECK_PENDING), SECOND),
        None
    );
    assert_eq!(
        observe(&mut t, &tg, &s, &checks(CHECK_SUCCESS), 2 * SECOND),
        None
    );
    // A failing check in between restarts the clock.
    assert_eq!(
        observe(&mut t, &tg, &s, &checks(CHECK_FAILURE), 5 * SECOND),
        None
    );
    assert_eq!(
        observe(&mut t, &tg, &s, &checks(CHECK_SUCCESS), 6 * SECOND),
        None
    );
    assert_eq!(
        observe(&mut t, &tg, &s, &checks(CHECK_SUCCESS), 15 * SECOND),
        None
    );
    assert_eq!(
        observe(&mut t, &tg, &s, &checks(CHECK_SUCCESS), 16 * SECOND),
        Some(true)
    );
    // The verdict stands.
    assert_eq!(
        observe(&mut t, &tg, &s, &checks(CHECK_FAILURE), 17 * SECOND),
        Some(true)
    );
}

#[test]
fn unhealthy_on_a_failed_task_or_past_the_deadline() {
    let tg = group("checks");
    let mut t = HealthTracker::default();
    let failed = states("dead", true);
    assert_eq!(
        observe(&mut t, &tg, &failed, &checks(CHECK_SUCCESS), SECOND),
        Some(false)
    );
    let mut t = HealthTracker::default();
    let s = states("running", false);
    assert_eq!(
        observe(&mut t, &tg, &s, &checks(CHECK_FAILURE), 59 * SECOND),
        None
    );
    assert_eq!(
        observe(&mut t, &tg, &s, &checks(CHECK_FAILURE), 61 * SECOND),
        Some(false)
    );
    // Checks not yet reported count as not passing.
    let mut t = HealthTracker::default();
    assert_eq!(
        observe(&mut t, &tg, &s, &AllocCheckResults::new(), 30 * SECOND),
        None
    );
}

#[test]
fn outside_deployments_the_migrate_block_decides() {
    let mut tg = group("task_states");
    assert!(
        needs_client_migrate_health(&tg),
        "migrate defaults to checks"
    );
    assert_eq!(
        timings(&tg, false),
        Timings {
            min_healthy_time: 10 * SECOND,
            healthy_deadline: 300 * SECOND,
        }
    );
    tg.migrate = Some(crate::api::MigrateStrategy {
        health_check: "task_states".into(),
        ..default_migrate()
    });
    assert!(!needs_client_migrate_health(&tg));
    assert_eq!(
        timings(&group("checks"), true),
        Timings {
            min_healthy_time: 10 * SECOND,
            healthy_deadline: 60 * SECOND,
        }
    );
}
