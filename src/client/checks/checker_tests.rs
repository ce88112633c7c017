use std::time::Duration;

use axum::http::{HeaderMap, Method, StatusCode};
use axum::routing::any;
use axum::Router;

use super::*;
use crate::client::checks::spec::{CheckSpec, CheckTarget};

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
