//! Runs one check once, within the check's timeout, giving Nomad's result and output texts:
//! an HTTP request (2xx/3xx success, otherwise failure), a TCP connect, or a script run
//! inside the check's task through its driver's exec.
//!
//! Script checks follow Consul's convention, as Nomad's Consul script checks do: exit code 0
//! passes, 1 warns, anything else (or a run that fails or times out) is critical. The checks
//! API has no warning status (success, failure, pending), so a warning is reported there as
//! a failure; `check_restart { ignore_warnings = true }` still tells the two apart.

use std::sync::Arc;
use std::time::Duration;

use crate::api::{CheckQueryResult, CHECK_FAILURE, CHECK_PENDING, CHECK_SUCCESS};
use crate::drivers::{Driver, DriverError, ExecTaskResult, TaskHandle};

use super::spec::{CheckKind, CheckTarget};

/// Nomad's `ErrTaskNotRunning`: a script check whose task is not running.
pub const TASK_NOT_RUNNING: &str = "Task not running";
/// The status `check_restart` reads for a warning (the Consul status Nomad's watcher knows).
pub const STATUS_WARNING: &str = "warning";

/// How one run went; finer than the checks API's status, which cannot say "warning".
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Health {
    Passing,
    Warning,
    Critical,
}

impl Health {
    /// The status the checks API reports (`success` or `failure`).
    pub fn status(self) -> &'static str {
        match self {
            Health::Passing => CHECK_SUCCESS,
            Health::Warning | Health::Critical => CHECK_FAILURE,
        }
    }

    /// The status `check_restart` is fed: the API's, except that a warning stays a warning.
    pub fn restart_status(self) -> &'static str {
        match self {
            Health::Warning => STATUS_WARNING,
            Health::Passing | Health::Critical => self.status(),
        }
    }
}

/// One run's result as the checks API shows it, plus its health for `check_restart`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckRun {
    pub result: CheckQueryResult,
    pub health: Health,
}

/// Where a script check runs: its task's driver and live handle.
#[derive(Clone)]
pub struct ScriptTask {
    pub driver: Arc<dyn Driver>,
    pub handle: TaskHandle,
}

/// A script's exit code as its health: 0 passing, 1 warning, anything else critical.
pub fn script_health(exit_code: i32) -> Health {
    match exit_code {
        0 => Health::Passing,
        1 => Health::Warning,
        _ => Health::Critical,
    }
}

/// A script run's health and output (Nomad's script check callback): the command's stdout
/// (for drivers that combine them, its stderr too), or the error that stopped it, which is
/// always critical.
pub fn script_outcome(run: Result<ExecTaskResult, DriverError>) -> (Health, String) {
    match run {
        Ok(r) => (
            script_health(r.exit_code),
            String::from_utf8_lossy(&r.stdout).into_owned(),
        ),
        Err(e) => (Health::Critical, e.to_string()),
    }
}

/// How much of a response body becomes the check's output (Nomad's `outputSizeLimit`).
const OUTPUT_LIMIT: usize = 3 * 1024;
/// Requests never outlive this, whatever the check's timeout (Nomad's `maxTimeoutHTTP`).
const MAX_HTTP_TIMEOUT: Duration = Duration::from_secs(600);

/// Runs checks; holds the HTTP client so connections are pooled across runs.
#[derive(Debug, Clone)]
pub struct Checker {
    http: reqwest::Client,
    insecure: reqwest::Client,
}

fn client(insecure: bool) -> reqwest::Client {
    reqwest::Client::builder()
        .timeout(MAX_HTTP_TIMEOUT)
        .redirect(reqwest::redirect::Policy::limited(10))
        .tls_danger_accept_invalid_certs(insecure)
        .user_agent(concat!("Nomad/", env!("CARGO_PKG_VERSION")))
        .build()
        .unwrap_or_default()
}

impl Default for Checker {
    fn default() -> Self {
        Checker {
            http: client(false),
            insecure: client(true),
        }
    }
}

fn now_secs() -> i64 {
    chrono::Utc::now().timestamp()
}

/// The error and its causes, as one line (`a: b: c`).
fn chain(e: &dyn std::error::Error) -> String {
    let mut out = e.to_string();
    let mut cur = e.source();
    while let Some(s) = cur {
        let text = s.to_string();
        if !out.contains(&text) {
            out.push_str(": ");
            out.push_str(&text);
        }
        cur = s.source();
    }
    out
}

/// The result stub of a run of `t`, with the target's labels.
fn labelled(t: &CheckTarget) -> CheckQueryResult {
    CheckQueryResult {
        id: t.id.clone(),
        mode: t.mode().to_string(),
        status: CHECK_PENDING.to_string(),
        timestamp: now_secs(),
        group: t.group.clone(),
        task: t.task.clone(),
        service: t.service.clone(),
        check: t.spec.name.clone(),
        ..Default::default()
    }
}

impl Checker {
    /// Runs any check once; `task` is where a script check runs (`None`: its task is not
    /// running, which is a critical result). Network checks ignore it.
    pub async fn run_check(&self, t: &CheckTarget, task: Option<ScriptTask>) -> CheckRun {
        if t.spec.check_kind() != CheckKind::Script {
            let result = self.run(t).await;
            let health = if result.status == CHECK_SUCCESS {
                Health::Passing
            } else {
                Health::Critical
            };
            return CheckRun { result, health };
        }
        let mut result = labelled(t);
        let (health, output) = match task {
            None => (Health::Critical, TASK_NOT_RUNNING.to_string()),
            Some(task) => {
                let command: Vec<String> = std::iter::once(t.spec.command.clone())
                    .chain(t.spec.args.iter().cloned())
                    .collect();
                let timeout = t.spec.timeout;
                let exec = task.driver.exec(&task.handle, command, timeout);
                // The driver bounds the run too; this is for one that does not.
                let run = tokio::time::timeout(timeout, exec)
                    .await
                    .unwrap_or(Err(DriverError::DeadlineExceeded));
                script_outcome(run)
            }
        };
        result.status = health.status().to_string();
        result.output = output;
        CheckRun { result, health }
    }

    /// Runs a network check (http, or tcp for any other type) once. The result always
    /// carries the target's labels; its status is never `pending` (that is only the stub
    /// before the first run).
    pub async fn run(&self, t: &CheckTarget) -> CheckQueryResult {
        let mut r = labelled(t);
        let addr = match &t.address {
            Ok(a) => a.clone(),
            Err(e) => {
                r.status = CHECK_FAILURE.to_string();
                r.output = e.clone();
                return r;
            }
        };
        let (status, code, output) = if t.spec.check_kind() == CheckKind::Http {
            self.http(t, &addr).await
        } else {
            tcp(&addr, t.spec.timeout).await
        };
        r.status = status.to_string();
        r.status_code = code;
        r.output = output;
        r
    }

    async fn http(&self, t: &CheckTarget, addr: &str) -> (&'static str, i32, String) {
        let c = &t.spec;
        let path = if c.path.starts_with('/') || c.path.is_empty() {
            c.path.clone()
        } else {
            format!("/{}", c.path)
        };
        let url = format!("{}://{addr}{path}", c.protocol);
        let method = if c.method.is_empty() {
            "GET"
        } else {
            &c.method
        };
        let method = match reqwest::Method::from_bytes(method.as_bytes()) {
            Ok(m) => m,
            Err(_) => {
                return (
                    CHECK_FAILURE,
                    0,
                    format!("nomad: net/http: invalid method {method:?}"),
                )
            }
        };
        let client = if c.tls_skip_verify {
            &self.insecure
        } else {
            &self.http
        };
        let mut req = client
            .request(method.clone(), &url)
            .timeout(c.timeout)
            .body(c.body.clone());
        for (k, v) in &c.headers {
            req = req.header(k, v);
        }
        let resp = match req.send().await {
            Ok(r) => r,
            Err(e) => {
                let what = if e.is_timeout() {
                    "context deadline exceeded".to_string()
                } else {
                    chain(&e)
                };
                return (
                    CHECK_FAILURE,
                    0,
                    format!("nomad: {} {url:?}: {what}", title(method.as_str())),
                );
            }
        };
        let code = i32::from(resp.status().as_u16());
        if code == 200 {
            return (CHECK_SUCCESS, code, "nomad: http ok".to_string());
        }
        let status = if code < 400 {
            CHECK_SUCCESS
        } else {
            CHECK_FAILURE
        };
        (status, code, limited_body(resp).await)
    }
}

/// Go's request error names the method as `Get`, `Post`, ...
fn title(method: &str) -> String {
    let lower = method.to_ascii_lowercase();
    let mut chars = lower.chars();
    match chars.next() {
        Some(first) => first.to_ascii_uppercase().to_string() + chars.as_str(),
        None => String::new(),
    }
}

async fn limited_body(mut resp: reqwest::Response) -> String {
    let mut out = Vec::new();
    while out.len() < OUTPUT_LIMIT {
        match resp.chunk().await {
            Ok(Some(chunk)) => out.extend_from_slice(&chunk),
            Ok(None) => break,
            Err(e) => return format!("nomad: {}", chain(&e)),
        }
    }
    out.truncate(OUTPUT_LIMIT);
    String::from_utf8_lossy(&out).into_owned()
}

async fn tcp(addr: &str, timeout: Duration) -> (&'static str, i32, String) {
    match tokio::time::timeout(timeout, tokio::net::TcpStream::connect(addr)).await {
        Ok(Ok(_)) => (CHECK_SUCCESS, 0, "nomad: tcp ok".to_string()),
        Ok(Err(e)) => (CHECK_FAILURE, 0, format!("dial tcp {addr}: connect: {e}")),
        Err(_) => (CHECK_FAILURE, 0, format!("dial tcp {addr}: i/o timeout")),
    }
}

#[cfg(test)]
#[path = "checker_tests.rs"]
mod tests;
