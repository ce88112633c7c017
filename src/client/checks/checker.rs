//! Runs one check once: an HTTP request (2xx/3xx success, otherwise failure) or a TCP
//! connect, within the check's timeout, giving Nomad's result and output texts.

use std::time::Duration;

use crate::api::{CheckQueryResult, CHECK_FAILURE, CHECK_PENDING, CHECK_SUCCESS};

use super::spec::CheckTarget;

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

impl Checker {
    /// Runs `t` once. The result always carries the target's labels; its status is never
    /// `pending` (that is only the stub before the first run).
    pub async fn run(&self, t: &CheckTarget) -> CheckQueryResult {
        let mut r = CheckQueryResult {
            id: t.id.clone(),
            mode: t.mode().to_string(),
            status: CHECK_PENDING.to_string(),
            timestamp: now_secs(),
            group: t.group.clone(),
            task: t.task.clone(),
            service: t.service.clone(),
            check: t.spec.name.clone(),
            ..Default::default()
        };
        let addr = match &t.address {
            Ok(a) => a.clone(),
            Err(e) => {
                r.status = CHECK_FAILURE.to_string();
                r.output = e.clone();
                return r;
            }
        };
        let (status, code, output) = if t.spec.kind == "http" {
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
