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
