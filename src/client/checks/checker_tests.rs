use std::sync::Arc;
use std::time::Duration;

use axum::http::{HeaderMap, Method, StatusCode};
use axum::routing::any;
use axum::Router;

use super::*;
use crate::client::checks::spec::{CheckSpec, CheckTarget};
use crate::drivers::{DriverError, ExecTaskResult, TaskHandle};

/// A local HTTP server on a free port, alive until the test's runtime ends.
async fn server() -> String {
    let app = Router::new()
        .route("/ok", any(|| async { "fine" }))
        .route(
            "/created",
            any(|| async { (StatusCode::CREATED, "made it") }),
        )
        .route(
            "/missing",
            any(|| async { (StatusCode::NOT_FOUND, "nope") }),
        )
        .route(
            "/busy",
            any(|| async { (StatusCode::TOO_MANY_REQUESTS, "slow down") }),
        )
        .route(
            "/slow",
            any(|| async {
                tokio::time::sleep(Duration::from_secs(30)).await;
                "late"
            }),
        )
        .route(
            "/echo",
            any(|m: Method, h: HeaderMap, body: String| async move {
                let hv = h
                    .get("x-probe")
                    .and_then(|v| v.to_str().ok())
                    .unwrap_or("")
                    .to_string();
                (StatusCode::ACCEPTED, format!("{m} {hv} {body}"))
            }),
        );
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    tokio::spawn(async move {
        let _ = axum::serve(listener, app).await;
    });
    addr
}

fn target(kind: &str, addr: &str, path: &str) -> CheckTarget {
    CheckTarget {
        id: "abc".into(),
        group: "example.web[0]".into(),
        task: "web".into(),
        service: "web-svc".into(),
        spec: CheckSpec {
            name: "alive".into(),
            kind: kind.into(),
            path: path.into(),
            protocol: if kind == "http" {
                "http".into()
            } else {
                String::new()
            },
            timeout: Duration::from_secs(2),
            interval: Duration::from_secs(1),
            ..Default::default()
        },
        address: Ok(addr.to_string()),
    }
}

#[tokio::test]
async fn http_200_is_success_with_nomads_output() {
    let addr = server().await;
    let r = Checker::default().run(&target("http", &addr, "/ok")).await;
    assert_eq!(r.status, "success");
    assert_eq!(r.status_code, 200);
    assert_eq!(r.output, "nomad: http ok");
    assert_eq!(
        (r.id.as_str(), r.group.as_str(), r.task.as_str()),
        ("abc", "example.web[0]", "web")
    );
    assert_eq!((r.service.as_str(), r.check.as_str()), ("web-svc", "alive"));
    assert_eq!(r.mode, "healthiness");
    assert!(r.timestamp > 1_600_000_000);
}

#[tokio::test]
async fn http_other_2xx_succeeds_with_the_body_and_4xx_fails() {
    let addr = server().await;
    let c = Checker::default();
    let r = c.run(&target("http", &addr, "/created")).await;
    assert_eq!((r.status.as_str(), r.status_code), ("success", 201));
    assert_eq!(r.output, "made it");
    let r = c.run(&target("http", &addr, "missing")).await;
    assert_eq!((r.status.as_str(), r.status_code), ("failure", 404));
    assert_eq!(r.output, "nope");
    // Nomad's native checks have no warning state: 429 is a failure.
    let r = c.run(&target("http", &addr, "/busy")).await;
    assert_eq!((r.status.as_str(), r.status_code), ("failure", 429));
}

#[tokio::test]
async fn http_sends_method_headers_and_body() {
    let addr = server().await;
    let mut t = target("http", &addr, "/echo");
    t.spec.method = "POST".into();
    t.spec.headers = vec![("X-Probe".into(), "yes".into())];
    t.spec.body = "hello".into();
    t.spec.on_update = "ignore".into();
    let r = Checker::default().run(&t).await;
    assert_eq!((r.status.as_str(), r.status_code), ("success", 202));
    assert_eq!(r.output, "POST yes hello");
    assert_eq!(r.mode, "readiness");
}

#[tokio::test]
async fn http_times_out() {
    let addr = server().await;
    let mut t = target("http", &addr, "/slow");
    t.spec.timeout = Duration::from_millis(200);
    let started = std::time::Instant::now();
    let r = Checker::default().run(&t).await;
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(r.status, "failure");
    assert_eq!(r.status_code, 0);
    assert!(r.output.starts_with("nomad: Get \"http://"), "{}", r.output);
    assert!(
        r.output.ends_with("context deadline exceeded"),
        "{}",
        r.output
    );
}

/// A port nothing listens on: bind one, then close it.
fn closed_port() -> String {
    let l = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    l.local_addr().unwrap().to_string()
}

#[tokio::test]
async fn http_connection_refused_fails() {
    let addr = closed_port();
    let r = Checker::default().run(&target("http", &addr, "/")).await;
    assert_eq!(r.status, "failure");
    assert!(r.output.starts_with("nomad: Get "), "{}", r.output);
}

#[tokio::test]
async fn tcp_connects_or_fails() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let r = Checker::default().run(&target("tcp", &addr, "")).await;
    assert_eq!(
        (r.status.as_str(), r.output.as_str()),
        ("success", "nomad: tcp ok")
    );
    assert_eq!(r.status_code, 0);
    drop(listener);
    let r = Checker::default().run(&target("tcp", &addr, "")).await;
    assert_eq!(r.status, "failure");
    assert!(
        r.output.starts_with(&format!("dial tcp {addr}: ")),
        "{}",
        r.output
    );
}

#[tokio::test]
async fn unresolvable_address_is_a_failure_naming_it() {
    let mut t = target("tcp", "", "");
    t.address = Err("invalid port \"web\": port label not found".into());
    let r = Checker::default().run(&t).await;
    assert_eq!(r.status, "failure");
    assert_eq!(r.output, "invalid port \"web\": port label not found");
}

#[test]
fn script_exit_codes_map_to_consuls_states_and_the_apis_statuses() {
    assert_eq!(script_health(0), Health::Passing);
    assert_eq!(script_health(1), Health::Warning);
    for code in [2, 126, 127, 137, 255, -1] {
        assert_eq!(script_health(code), Health::Critical, "exit {code}");
    }
    // The checks API has only success, failure and pending.
    assert_eq!(Health::Passing.status(), "success");
    assert_eq!(Health::Warning.status(), "failure");
    assert_eq!(Health::Critical.status(), "failure");
    // check_restart still sees a warning as one.
    assert_eq!(Health::Warning.restart_status(), "warning");
    assert_eq!(Health::Critical.restart_status(), "failure");
    assert_eq!(Health::Passing.restart_status(), "success");
}

#[test]
fn script_output_is_its_stdout_or_the_error() {
    let ran = ExecTaskResult {
        stdout: b"all good\n".to_vec(),
        stderr: b"ignored\n".to_vec(),
        exit_code: 1,
    };
    assert_eq!(
        script_outcome(Ok(ran)),
        (Health::Warning, "all good\n".to_string())
    );
    assert_eq!(
        script_outcome(Err(DriverError::DeadlineExceeded)),
        (Health::Critical, "context deadline exceeded".to_string())
    );
    assert_eq!(
        script_outcome(Err(DriverError::TaskNotFound)),
        (Health::Critical, "task not found for given id".to_string())
    );
}

/// A driver whose only working operation is `exec`: it records the command and answers
/// with a canned result after `delay`.
struct ScriptDriver {
    result: ExecTaskResult,
    delay: Duration,
    seen: std::sync::Mutex<Vec<Vec<String>>>,
}

#[async_trait::async_trait]
impl crate::drivers::Driver for ScriptDriver {
    fn name(&self) -> &'static str {
        "script_test"
    }
    fn capabilities(&self) -> crate::drivers::Capabilities {
        crate::drivers::Capabilities {
            send_signals: false,
            exec: true,
            fs_isolation: crate::drivers::FsIsolation::None,
        }
    }
    async fn fingerprint(&self) -> crate::drivers::Fingerprint {
        crate::drivers::Fingerprint::healthy("script_test")
    }
    async fn start(&self, _: crate::drivers::TaskConfig) -> Result<TaskHandle, DriverError> {
        Err(DriverError::Unsupported("start"))
    }
    async fn wait(&self, _: &TaskHandle) -> Result<crate::drivers::ExitResult, DriverError> {
        Err(DriverError::Unsupported("wait"))
    }
    async fn stop(&self, _: &TaskHandle, _: &str, _: Duration) -> Result<(), DriverError> {
        Err(DriverError::Unsupported("stop"))
    }
    async fn destroy(&self, _: &TaskHandle, _: bool) -> Result<(), DriverError> {
        Err(DriverError::Unsupported("destroy"))
    }
    async fn signal(&self, _: &TaskHandle, _: &str) -> Result<(), DriverError> {
        Err(DriverError::Unsupported("signal"))
    }
    async fn inspect(&self, _: &TaskHandle) -> Result<crate::drivers::TaskStatus, DriverError> {
        Err(DriverError::Unsupported("inspect"))
    }
    async fn exec(
        &self,
        _: &TaskHandle,
        command: Vec<String>,
        _: Duration,
    ) -> Result<ExecTaskResult, DriverError> {
        self.seen.lock().unwrap().push(command);
        tokio::time::sleep(self.delay).await;
        Ok(self.result.clone())
    }
}

fn script_target(command: &str, args: &[&str]) -> CheckTarget {
    let mut t = target("script", "", "");
    t.address = Ok(String::new());
    t.spec.command = command.into();
    t.spec.args = args.iter().map(|a| a.to_string()).collect();
    t.spec.task_name = "web".into();
    t
}

fn script_task(exit_code: i32, stdout: &str, delay: Duration) -> (Arc<ScriptDriver>, ScriptTask) {
    let driver = Arc::new(ScriptDriver {
        result: ExecTaskResult {
            stdout: stdout.as_bytes().to_vec(),
            stderr: Vec::new(),
            exit_code,
        },
        delay,
        seen: Default::default(),
    });
    let handle = TaskHandle {
        version: 1,
        driver: "script_test".into(),
        config: Default::default(),
        driver_state: serde_json::Value::Null,
    };
    let task = ScriptTask {
        driver: driver.clone(),
        handle,
    };
    (driver, task)
}

#[tokio::test]
async fn script_check_runs_its_command_in_the_task() {
    let t = script_target("/bin/check", &["-v", "x y"]);
    let (driver, task) = script_task(0, "healthy\n", Duration::ZERO);
    let run = Checker::default().run_check(&t, Some(task)).await;
    assert_eq!(
        driver.seen.lock().unwrap().as_slice(),
        [vec!["/bin/check".to_string(), "-v".into(), "x y".into()]]
    );
    assert_eq!(run.health, Health::Passing);
    let r = run.result;
    assert_eq!(
        (r.status.as_str(), r.output.as_str()),
        ("success", "healthy\n")
    );
    assert_eq!(r.status_code, 0);
    assert_eq!(
        (
            r.id.as_str(),
            r.group.as_str(),
            r.task.as_str(),
            r.check.as_str()
        ),
        ("abc", "example.web[0]", "web", "alive")
    );
    assert_eq!(r.mode, "healthiness");

    let (_, task) = script_task(1, "degraded\n", Duration::ZERO);
    let run = Checker::default().run_check(&t, Some(task)).await;
    assert_eq!(run.health, Health::Warning);
    assert_eq!(
        (run.result.status.as_str(), run.result.output.as_str()),
        ("failure", "degraded\n")
    );
    let (_, task) = script_task(2, "down\n", Duration::ZERO);
    let run = Checker::default().run_check(&t, Some(task)).await;
    assert_eq!(run.health, Health::Critical);
    assert_eq!(run.result.status, "failure");
}

#[tokio::test]
async fn script_check_times_out_and_needs_a_running_task() {
    let mut t = script_target("/bin/sleep", &["60"]);
    t.spec.timeout = Duration::from_millis(200);
    let (_, task) = script_task(0, "", Duration::from_secs(30));
    let started = std::time::Instant::now();
    let run = Checker::default().run_check(&t, Some(task)).await;
    assert!(started.elapsed() < Duration::from_secs(10));
    assert_eq!(run.health, Health::Critical);
    assert_eq!(
        (run.result.status.as_str(), run.result.output.as_str()),
        ("failure", "context deadline exceeded")
    );
    let run = Checker::default().run_check(&t, None).await;
    assert_eq!(
        (run.result.status.as_str(), run.result.output.as_str()),
        ("failure", "Task not running")
    );
}

#[tokio::test]
async fn network_checks_ignore_the_task() {
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let addr = listener.local_addr().unwrap().to_string();
    let (driver, task) = script_task(2, "", Duration::ZERO);
    let run = Checker::default()
        .run_check(&target("tcp", &addr, ""), Some(task))
        .await;
    assert_eq!(run.health, Health::Passing);
    assert_eq!(run.result.output, "nomad: tcp ok");
    assert!(driver.seen.lock().unwrap().is_empty());
}
