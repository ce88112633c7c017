use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use tokio::sync::mpsc;

use super::*;
use crate::api::{Job, RestartPolicy, Task, TaskGroup, SECOND};
use crate::drivers::DriverConfig;

fn mock_task(name: &str, config: serde_json::Value) -> Task {
    Task {
        name: name.into(),
        driver: "mock_driver".into(),
        config: Some(match config {
            serde_json::Value::Object(m) => m.into_iter().collect(),
            _ => Default::default(),
        }),
        ..Default::default()
    }
}

fn alloc_with(tasks: Vec<Task>, attempts: i32, kind: &str) -> Allocation {
    let job = Job {
        id: "j".into(),
        name: "j".into(),
        r#type: kind.into(),
        task_groups: vec![TaskGroup {
            name: "g".into(),
            restart_policy: Some(RestartPolicy {
                attempts,
                delay: SECOND,
                interval: 60 * SECOND,
                mode: "fail".into(),
                render_templates: false,
            }),
            tasks,
            ..Default::default()
        }],
        ..Default::default()
    };
    Allocation {
        id: crate::api::generate_id(),
        name: "j.g[0]".into(),
        task_group: "g".into(),
        desired_status: "run".into(),
        job: Some(Arc::new(job)),
        ..Default::default()
    }
}

struct Harness {
    handle: AllocRunnerHandle,
    rx: mpsc::UnboundedReceiver<Allocation>,
    _tmp: tempfile::TempDir,
}

fn spawn(alloc: Allocation) -> Harness {
    let tmp = tempfile::tempdir().unwrap();
    let (tx, rx) = mpsc::unbounded_channel();
    let handle = AllocRunner::spawn(AllocRunnerParams {
        alloc_dir: AllocDir::new(tmp.path().join(&alloc.id)),
        alloc: Arc::new(alloc),
        node: Arc::new(Node {
            id: "node".into(),
            ..Default::default()
        }),
        region: "global".into(),
        drivers: DriverRegistry::from_config(&DriverConfig::dev()),
        max_kill_timeout: Duration::from_secs(30),
        updates: tx,
        services: None,
        state: None,
        restored: Default::default(),
        rpc: None,
    });
    Harness {
        handle,
        rx,
        _tmp: tmp,
    }
}

impl Harness {
    /// Updates until one has `status`.
    async fn until_status(&mut self, status: &str) -> Allocation {
        tokio::time::timeout(Duration::from_secs(20), async {
            loop {
                let u = self.rx.recv().await.expect("runner hung up");
                if u.client_status == status {
                    return u;
                }
            }
        })
        .await
        .unwrap_or_else(|_| panic!("never reached {status}"))
    }
}

#[tokio::test(start_paused = true)]
async fn failing_service_task_restarts_per_policy_then_fails() {
    let mut h = spawn(alloc_with(
        vec![mock_task("t", json!({ "run_for": "10ms", "exit_code": 1 }))],
        1,
        "service",
    ));
    let failed = h.until_status("failed").await;
    let ts = &failed.task_states.unwrap()["t"];
    let kinds: Vec<&str> = ts.events.iter().map(|e| e.r#type.as_str()).collect();
    assert_eq!(
        kinds,
        [
            "Received",
            "Task Setup",
            "Started",
            "Terminated",
            "Restarting",
            "Started",
            "Terminated",
            "Not Restarting"
        ]
    );
    assert_eq!(ts.events[3].display_message, "Exit Code: 1");
    let restarting = &ts.events[4].display_message;
    assert!(
        restarting.starts_with("Task restarting in 1"),
        "{restarting}"
    );
    assert_eq!(
        ts.events[7].display_message,
        "Exceeded allowed attempts 1 in interval 1m0s and mode is \"fail\""
    );
    assert_eq!(ts.restarts, 1);
    assert!(ts.failed);
    assert_eq!(failed.client_description, "Failed tasks");
    h.handle.shutdown(false).await;
}

#[tokio::test]
async fn a_failed_task_kills_its_siblings() {
    let mut h = spawn(alloc_with(
        vec![
            mock_task("bad", json!({ "run_for": "50ms", "exit_code": 3 })),
            mock_task("good", json!({ "run_for": "1h" })),
        ],
        0,
        "batch",
    ));
    let failed = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            let u = h.until_status("failed").await;
            let states = u.task_states.clone().unwrap();
            if states.values().all(|s| s.state == "dead") {
                return u;
            }
        }
    })
    .await
    .expect("siblings not killed");
    let states = failed.task_states.unwrap();
    let good: Vec<&str> = states["good"]
        .events
        .iter()
        .map(|e| e.r#type.as_str())
        .collect();
    assert_eq!(
        good[3..],
        ["Sibling Task Failed", "Killing", "Terminated", "Killed"]
    );
    assert_eq!(
        states["good"].events[3].display_message,
        "Task's sibling \"bad\" failed"
    );
    assert!(!states["good"].failed);
    assert!(states["bad"].failed);
    h.handle.shutdown(false).await;
}

#[tokio::test]
async fn stop_kills_tasks_and_completes() {
    let mut h = spawn(alloc_with(
        vec![mock_task("t", json!({ "run_for": "1h" }))],
        0,
        "service",
    ));
    h.until_status("running").await;
    h.handle.stop();
    let done = h.until_status("complete").await;
    let ts = &done.task_states.unwrap()["t"];
    assert_eq!(ts.events.last().unwrap().r#type, "Killed");
    assert_eq!(
        ts.events[3].display_message,
        "Sent interrupt. Waiting 5s before force killing"
    );
    h.handle.shutdown(false).await;
}

#[tokio::test]
async fn missing_task_group_fails_the_alloc() {
    let mut a = alloc_with(vec![], 0, "batch");
    a.task_group = "nope".into();
    let mut h = spawn(a);
    let u = h.until_status("failed").await;
    assert_eq!(u.client_description, "task group \"nope\" not found in job");
    h.handle.shutdown(false).await;
}

fn with_hook(mut t: Task, hook: &str, sidecar: bool) -> Task {
    t.lifecycle = Some(json!({ "Hook": hook, "Sidecar": sidecar }));
    t
}

/// When the event of this type happened to the task (the first one).
fn at(states: &BTreeMap<String, TaskState>, task: &str, kind: &str) -> i64 {
    states[task]
        .events
        .iter()
        .find(|e| e.r#type == kind)
        .unwrap_or_else(|| panic!("{task} has no {kind:?} event: {:?}", states[task].events))
        .time
}

fn kinds<'a>(states: &'a BTreeMap<String, TaskState>, task: &str) -> Vec<&'a str> {
    states[task]
        .events
        .iter()
        .map(|e| e.r#type.as_str())
        .collect()
}

impl Harness {
    /// Updates until every task is dead; returns the last.
    async fn until_all_dead(&mut self) -> Allocation {
        tokio::time::timeout(Duration::from_secs(20), async {
            loop {
                let u = self.rx.recv().await.expect("runner hung up");
                let states = u.task_states.clone().unwrap_or_default();
                if !states.is_empty() && states.values().all(|s| s.state == "dead") {
                    return u;
                }
            }
        })
        .await
        .expect("tasks never all died")
    }
}

#[tokio::test]
async fn lifecycle_hooks_run_in_order_and_sidecars_die_with_the_main_task() {
    let mut h = spawn(alloc_with(
        vec![
            mock_task("main", json!({ "run_for": "100ms" })),
            with_hook(
                mock_task("init", json!({ "run_for": "50ms" })),
                "prestart",
                false,
            ),
            with_hook(
                mock_task("proxy", json!({ "run_for": "1h" })),
                "prestart",
                true,
            ),
            with_hook(
                mock_task("announce", json!({ "run_for": "10ms" })),
                "poststart",
                false,
            ),
            with_hook(
                mock_task("cleanup", json!({ "run_for": "10ms" })),
                "poststop",
                false,
            ),
        ],
        0,
        "batch",
    ));
    let done = h.until_all_dead().await;
    assert_eq!(done.client_status, "complete", "{done:?}");
    let s = done.task_states.unwrap();
    // Main waits for the init task to succeed and the sidecar to run.
    assert!(at(&s, "main", "Started") >= at(&s, "init", "Terminated"));
    assert!(at(&s, "main", "Started") >= at(&s, "proxy", "Started"));
    // Poststart runs once main runs; poststop once everything else is dead.
    assert!(at(&s, "announce", "Started") >= at(&s, "main", "Started"));
    assert!(at(&s, "cleanup", "Started") >= at(&s, "main", "Terminated"));
    assert!(at(&s, "cleanup", "Started") >= at(&s, "proxy", "Killed"));
    // The sidecar is told why, then killed; ephemeral tasks ran once, not restarted.
    assert_eq!(
        kinds(&s, "proxy")[3..],
        ["Main Tasks Dead", "Killing", "Terminated", "Killed"]
    );
    for t in ["init", "announce", "cleanup", "main"] {
        assert_eq!(
            kinds(&s, t),
            ["Received", "Task Setup", "Started", "Terminated"],
            "{t}"
        );
        assert!(!s[t].failed, "{t}");
    }
    h.handle.shutdown(false).await;
}

#[tokio::test]
async fn a_failed_prestart_task_keeps_main_from_running_but_poststop_still_runs() {
    let mut h = spawn(alloc_with(
        vec![
            with_hook(
                mock_task("init", json!({ "run_for": "10ms", "exit_code": 2 })),
                "prestart",
                false,
            ),
            mock_task("main", json!({ "run_for": "1h" })),
            with_hook(
                mock_task("cleanup", json!({ "run_for": "10ms" })),
                "poststop",
                false,
            ),
        ],
        0,
        "service",
    ));
    let done = h.until_all_dead().await;
    assert_eq!(done.client_status, "failed");
    let s = done.task_states.unwrap();
    assert!(s["init"].failed);
    assert_eq!(
        kinds(&s, "main"),
        ["Received", "Sibling Task Failed", "Killing"],
        "main never started"
    );
    assert!(s["main"].started_at.is_none());
    assert_eq!(
        kinds(&s, "cleanup"),
        ["Received", "Task Setup", "Started", "Terminated"]
    );
    h.handle.shutdown(false).await;
}

#[tokio::test]
async fn a_stop_kills_the_leader_then_the_others_then_the_sidecars() {
    let mut leader = mock_task("leader", json!({ "run_for": "1h" }));
    leader.leader = true;
    let mut h = spawn(alloc_with(
        vec![
            with_hook(
                mock_task("proxy", json!({ "run_for": "1h" })),
                "prestart",
                true,
            ),
            mock_task("worker", json!({ "run_for": "1h" })),
            leader,
        ],
        0,
        "service",
    ));
    tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            let u = h.until_status("running").await;
            if u.task_states
                .unwrap()
                .values()
                .all(|s| s.state == "running")
            {
                return;
            }
        }
    })
    .await
    .expect("all tasks running");
    h.handle.stop();
    let done = h.until_all_dead().await;
    let s = done.task_states.unwrap();
    assert!(at(&s, "worker", "Killing") >= at(&s, "leader", "Killed"));
    assert!(at(&s, "proxy", "Killing") >= at(&s, "worker", "Killed"));
    assert_eq!(done.client_status, "complete");
    h.handle.shutdown(false).await;
}

#[tokio::test(start_paused = true)]
async fn a_stop_waits_out_the_group_and_task_shutdown_delays() {
    let mut task = mock_task("t", json!({ "run_for": "1h" }));
    task.shutdown_delay = 2 * SECOND;
    let mut alloc = alloc_with(vec![task], 0, "service");
    let mut job = (**alloc.job.as_ref().unwrap()).clone();
    job.task_groups[0].shutdown_delay = Some(3 * SECOND);
    alloc.job = Some(Arc::new(job));
    let mut h = spawn(alloc);
    h.until_status("running").await;
    let stopped_at = tokio::time::Instant::now();
    h.handle.stop();
    let done = h.until_status("complete").await;
    assert!(
        stopped_at.elapsed() >= Duration::from_secs(5),
        "{:?}",
        stopped_at.elapsed()
    );
    let s = done.task_states.unwrap();
    assert_eq!(
        kinds(&s, "t")[3..],
        [
            "Killing",
            "Waiting for shutdown delay",
            "Terminated",
            "Killed"
        ]
    );
    assert_eq!(
        s["t"].events[4].display_message,
        "Waiting for shutdown_delay of 2s before killing the task."
    );
    h.handle.shutdown(false).await;
}

#[tokio::test(start_paused = true)]
async fn no_shutdown_delay_skips_both_delays() {
    let mut task = mock_task("t", json!({ "run_for": "1h" }));
    task.shutdown_delay = 20 * SECOND;
    let mut alloc = alloc_with(vec![task], 0, "service");
    let mut job = (**alloc.job.as_ref().unwrap()).clone();
    job.task_groups[0].shutdown_delay = Some(30 * SECOND);
    alloc.job = Some(Arc::new(job));
    let mut h = spawn(alloc.clone());
    h.until_status("running").await;
    let stopped_at = tokio::time::Instant::now();
    alloc.desired_status = "stop".into();
    alloc.desired_transition.no_shutdown_delay = Some(true);
    h.handle.update(Arc::new(alloc));
    let done = h.until_status("complete").await;
    assert!(stopped_at.elapsed() < Duration::from_secs(20));
    let s = done.task_states.unwrap();
    assert_eq!(kinds(&s, "t")[4], "Skipping shutdown delay");
    h.handle.shutdown(false).await;
}

#[tokio::test]
async fn restart_all_tasks_runs_the_prestart_task_again_before_main() {
    let mut h = spawn(alloc_with(
        vec![
            with_hook(
                mock_task("init", json!({ "run_for": "20ms" })),
                "prestart",
                false,
            ),
            mock_task("main", json!({ "run_for": "1h" })),
        ],
        0,
        "service",
    ));
    let started = |u: &Allocation, task: &str| {
        u.task_states.as_ref().map_or(0, |s| {
            s[task]
                .events
                .iter()
                .filter(|e| e.r#type == "Started")
                .count()
        })
    };
    tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            let u = h.rx.recv().await.expect("runner");
            if started(&u, "main") == 1 && u.task_states.as_ref().unwrap()["init"].state == "dead" {
                return;
            }
        }
    })
    .await
    .expect("main running after init");
    h.handle.control().restart("", true).expect("restart all");
    let u = tokio::time::timeout(Duration::from_secs(10), async {
        loop {
            let u = h.rx.recv().await.expect("runner");
            if started(&u, "main") == 2 && u.client_status == "running" {
                return u;
            }
        }
    })
    .await
    .expect("main started again");
    let s = u.task_states.unwrap();
    assert_eq!(
        started(
            &Allocation {
                task_states: Some(s.clone()),
                ..Default::default()
            },
            "init"
        ),
        2
    );
    let second = |task: &str, kind: &str| {
        s[task]
            .events
            .iter()
            .filter(|e| e.r#type == kind)
            .nth(1)
            .map(|e| e.time)
            .unwrap_or_else(|| panic!("{task}: no second {kind}: {:?}", s[task].events))
    };
    assert!(second("main", "Started") >= second("init", "Terminated"));
    let init_kinds = kinds(&s, "init");
    assert!(init_kinds.contains(&"Restart Signaled"), "{init_kinds:?}");
    assert!(!s["init"].failed && !s["main"].failed);
    h.handle.shutdown(false).await;
}
