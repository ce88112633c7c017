//! The task runner end to end with the mock driver: driver task events recorded as Nomad's
//! "Driver" events in the order they happened, and artifacts fetched to destinations in the
//! shared alloc dir.

use std::sync::{Arc, Mutex};
use std::time::Duration;

use async_trait::async_trait;
use serde_json::json;
use tokio::sync::Notify;

use super::events::TASK_DRIVER_MESSAGE;
use super::*;
use crate::api::{Job, Node, TaskArtifact, TaskGroup, TASK_DRIVER_FAILURE, TASK_STARTED};
use crate::drivers::mock::MockDriver;
use crate::drivers::{Capabilities, Fingerprint, TaskConfig, TaskStatus};

/// The mock driver, emitting task events on every start (and, on request, later on).
struct EventingDriver {
    inner: MockDriver,
    on_start: Vec<(&'static str, &'static str)>,
    /// The last started task's config, to emit events while it runs.
    started: Mutex<Option<TaskConfig>>,
}

#[async_trait]
impl Driver for EventingDriver {
    fn name(&self) -> &'static str {
        self.inner.name()
    }
    fn capabilities(&self) -> Capabilities {
        self.inner.capabilities()
    }
    async fn fingerprint(&self) -> Fingerprint {
        self.inner.fingerprint().await
    }
    async fn start(&self, cfg: TaskConfig) -> Result<TaskHandle, DriverError> {
        for (msg, image) in &self.on_start {
            cfg.emit_event(msg, [("image", *image)]);
        }
        *self.started.lock().unwrap() = Some(cfg.clone());
        self.inner.start(cfg).await
    }
    async fn wait(&self, h: &TaskHandle) -> Result<ExitResult, DriverError> {
        self.inner.wait(h).await
    }
    async fn stop(&self, h: &TaskHandle, sig: &str, t: Duration) -> Result<(), DriverError> {
        self.inner.stop(h, sig, t).await
    }
    async fn destroy(&self, h: &TaskHandle, force: bool) -> Result<(), DriverError> {
        self.inner.destroy(h, force).await
    }
    async fn signal(&self, h: &TaskHandle, sig: &str) -> Result<(), DriverError> {
        self.inner.signal(h, sig).await
    }
    async fn inspect(&self, h: &TaskHandle) -> Result<TaskStatus, DriverError> {
        self.inner.inspect(h).await
    }
}

/// Alloc "alloc1" of job "j" (named `job_name`, of type `job_type`) whose group "g" runs
/// just `task`.
pub(super) fn one_task_alloc(task: &Task, job_name: &str, job_type: &str) -> Allocation {
    let job = Job {
        id: "j".into(),
        name: job_name.into(),
        r#type: job_type.into(),
        task_groups: vec![TaskGroup {
            name: "g".into(),
            tasks: vec![task.clone()],
            ..Default::default()
        }],
        ..Default::default()
    };
    Allocation {
        id: "alloc1".into(),
        namespace: "default".into(),
        task_group: "g".into(),
        job: Some(Arc::new(job)),
        ..Default::default()
    }
}

struct Run {
    handle: TaskRunnerHandle,
    changed: Arc<Notify>,
    alloc_dir: AllocDir,
    _tmp: tempfile::TempDir,
}

fn spawn(task: Task, driver: Arc<dyn Driver>) -> Run {
    let tmp = tempfile::tempdir().expect("tempdir");
    let alloc_dir = AllocDir::new(tmp.path().join("alloc1"));
    alloc_dir.build().expect("alloc dir");
    let alloc = one_task_alloc(&task, "web-job", "batch");
    let changed = Arc::new(Notify::new());
    let handle = TaskRunner::spawn(test_params(
        alloc,
        task,
        &alloc_dir,
        Some(driver),
        changed.clone(),
    ));
    Run {
        handle,
        changed,
        alloc_dir,
        _tmp: tmp,
    }
}

/// A fresh task runner's parameters for tests: a default node in "global", nothing restored,
/// no services, no start gate, a fixed seed.
pub(super) fn test_params(
    alloc: Allocation,
    task: Task,
    alloc_dir: &AllocDir,
    driver: Option<Arc<dyn Driver>>,
    changed: Arc<Notify>,
) -> TaskRunnerParams {
    TaskRunnerParams {
        alloc: Arc::new(alloc),
        task,
        node: Arc::new(Node::default()),
        region: "global".into(),
        alloc_dir: alloc_dir.clone(),
        driver,
        max_kill_timeout: Duration::from_secs(30),
        state_changed: changed,
        seed: 7,
        state: None,
        restored: None,
        services: None,
        start_gate: None,
    }
}

/// The task's state once `cond` holds for it, re-checked on every change; panics naming
/// `what` after `limit`.
pub(super) async fn task_state_until(
    handle: &TaskRunnerHandle,
    changed: &Notify,
    limit: Duration,
    what: &str,
    cond: impl Fn(&TaskState) -> bool,
) -> TaskState {
    let r = tokio::time::timeout(limit, async {
        loop {
            let s = handle.state();
            if cond(&s) {
                return s;
            }
            tokio::select! {
                _ = changed.notified() => {}
                _ = tokio::time::sleep(Duration::from_millis(50)) => {}
            }
        }
    })
    .await;
    r.unwrap_or_else(|_| panic!("never: {what}; state {:#?}", handle.state()))
}

impl Run {
    async fn until(&self, what: &str, cond: impl Fn(&TaskState) -> bool) -> TaskState {
        let limit = Duration::from_secs(30);
        task_state_until(&self.handle, &self.changed, limit, what, cond).await
    }
}

fn mock_task(config: serde_json::Value) -> Task {
    Task {
        name: "web".into(),
        driver: "mock_driver".into(),
        config: Some(match config {
            serde_json::Value::Object(m) => m.into_iter().collect(),
            _ => Default::default(),
        }),
        ..Default::default()
    }
}

fn types(s: &TaskState) -> Vec<&str> {
    s.events.iter().map(|e| e.r#type.as_str()).collect()
}

fn eventing(on_start: Vec<(&'static str, &'static str)>) -> Arc<EventingDriver> {
    Arc::new(EventingDriver {
        inner: MockDriver::new(),
        on_start,
        started: Mutex::new(None),
    })
}

#[tokio::test]
async fn driver_events_of_a_failing_start_come_before_the_driver_failure() {
    let driver = eventing(vec![
        ("Downloading image", "busybox:1"),
        ("Docker image pull progress: No progress", "busybox:1"),
    ]);
    let task = mock_task(json!({"start_error": "Failed to pull `busybox:1`: no registry"}));
    let run = spawn(task, driver);
    let s = run
        .until("the task failed", |s| {
            types(s).contains(&TASK_DRIVER_FAILURE) && s.state == "dead"
        })
        .await;
    let kinds = types(&s);
    let first_driver = kinds.iter().position(|k| *k == TASK_DRIVER_MESSAGE);
    let failure = kinds.iter().position(|k| *k == TASK_DRIVER_FAILURE);
    assert!(
        matches!((first_driver, failure), (Some(d), Some(f)) if d < f),
        "{kinds:?}"
    );
    let driver_events: Vec<_> = s
        .events
        .iter()
        .filter(|e| e.r#type == TASK_DRIVER_MESSAGE)
        .collect();
    assert_eq!(driver_events.len(), 2, "{kinds:?}");
    let e = driver_events[0];
    assert_eq!(e.driver_message, "Downloading image");
    assert_eq!(e.display_message, "Downloading image");
    assert_eq!(
        e.details.get("image").map(String::as_str),
        Some("busybox:1")
    );
    assert!(e.time > 0);
    assert_eq!(
        driver_events[1].driver_message,
        "Docker image pull progress: No progress"
    );
}

#[tokio::test]
async fn a_driver_event_while_the_task_runs_is_recorded_too() {
    let driver = eventing(vec![("Downloading image", "busybox:1")]);
    let run = spawn(mock_task(json!({"run_for": "30s"})), driver.clone());
    run.until("started", |s| types(s).contains(&TASK_STARTED))
        .await;
    let cfg = driver.started.lock().unwrap().clone().expect("started");
    assert!(cfg.events.is_connected());
    cfg.emit_event("Container restarted by the runtime", []);
    let s = run
        .until("the later event", |s| {
            s.events
                .iter()
                .any(|e| e.driver_message == "Container restarted by the runtime")
        })
        .await;
    let kinds = types(&s);
    let started = kinds.iter().position(|k| *k == TASK_STARTED);
    let last = kinds.iter().rposition(|k| *k == TASK_DRIVER_MESSAGE);
    assert!(
        matches!((started, last), (Some(a), Some(b)) if a < b),
        "{kinds:?}"
    );
    run.handle.kill();
    run.until("dead", |s| s.state == "dead").await;
}

#[tokio::test]
async fn artifacts_land_in_the_shared_alloc_dir_and_an_escape_fails_with_nomads_words() {
    let src = tempfile::tempdir().expect("src");
    std::fs::write(src.path().join("seed.txt"), "seed\n").expect("seed");
    let source = src.path().join("seed.txt").display().to_string();
    let mut task = mock_task(json!({"run_for": "10ms"}));
    let artifacts = vec![
        TaskArtifact {
            getter_source: Some(source.clone()),
            relative_dest: Some("${NOMAD_ALLOC_DIR}/data".into()),
            ..Default::default()
        },
        TaskArtifact {
            getter_source: Some(source.clone()),
            relative_dest: Some("local/${NOMAD_JOB_NAME}".into()),
            ..Default::default()
        },
    ];
    task.artifacts = Some(serde_json::to_value(&artifacts).expect("artifacts"));
    let run = spawn(task, Arc::new(MockDriver::new()));
    run.until("finished", |s| s.state == "dead").await;
    let s = run.handle.state();
    assert!(!s.failed, "{:#?}", s.events);
    let shared = run.alloc_dir.shared().join("data/seed.txt");
    assert_eq!(
        std::fs::read_to_string(&shared).expect("in alloc/data"),
        "seed\n"
    );
    let local = run.alloc_dir.root.join("web/local/web-job/seed.txt");
    assert_eq!(
        std::fs::read_to_string(&local).expect("in local/<job>"),
        "seed\n"
    );

    let mut task = mock_task(json!({"run_for": "10ms"}));
    let escaping = vec![TaskArtifact {
        getter_source: Some(source.clone()),
        relative_dest: Some("../../outside".into()),
        ..Default::default()
    }];
    task.artifacts = Some(serde_json::to_value(&escaping).expect("artifacts"));
    let run = spawn(task, Arc::new(MockDriver::new()));
    let s = run
        .until("the artifact failure", |s| {
            s.events
                .iter()
                .any(|e| e.r#type == "Failed Artifact Download")
        })
        .await;
    let e = s
        .events
        .iter()
        .find(|e| e.r#type == "Failed Artifact Download")
        .expect("event");
    let want = format!(
        "failed to download artifact {source:?}: artifact destination path escapes alloc directory"
    );
    assert_eq!(e.display_message, want);
    assert_eq!(e.download_error, want);
    run.handle.kill();
}
