//! Handler tests through the router (`tower::ServiceExt::oneshot`) against a real in-process
//! server.

mod agent;
mod annotations;
mod jobs;
mod logs;
mod objects;
mod serve;

use std::collections::BTreeMap;
use std::sync::Arc;

use axum::body::Body;
use axum::http::{HeaderMap, Request, StatusCode};
use axum::Router;
use tower::ServiceExt;

use super::{router, AgentInfo, HttpState, LogSource};
use crate::server::{Server, ServerConfig};

pub(crate) struct Reply {
    pub status: StatusCode,
    pub headers: HeaderMap,
    pub body: Vec<u8>,
}

impl Reply {
    pub fn text(&self) -> String {
        String::from_utf8_lossy(&self.body).into_owned()
    }
    pub fn json(&self) -> serde_json::Value {
        serde_json::from_slice(&self.body)
            .unwrap_or_else(|e| panic!("not JSON ({e}): {}", self.text()))
    }
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers.get(name).and_then(|v| v.to_str().ok())
    }
}

pub(crate) async fn start_server() -> Server {
    Server::start(ServerConfig {
        num_schedulers: 1,
        ..Default::default()
    })
    .await
    .expect("server starts")
}

pub(crate) fn agent_info() -> AgentInfo {
    AgentInfo {
        node_name: "vm".into(),
        region: "global".into(),
        datacenter: "dc1".into(),
        version: crate::VERSION.into(),
        http_addr: "127.0.0.1:4646".into(),
        rpc_addr: "127.0.0.1:4647".into(),
        serf_addr: "127.0.0.1:4648".into(),
        server_enabled: true,
        client_enabled: true,
        config: serde_json::json!({"Region": "global", "Datacenter": "dc1"}),
        member_tags: BTreeMap::from([
            ("region".to_string(), "global".to_string()),
            ("dc".to_string(), "dc1".to_string()),
            ("role".to_string(), "nomad".to_string()),
        ]),
        client_node_id: None,
        known_servers: vec!["127.0.0.1:4647".into()],
    }
}

pub(crate) fn app(server: Option<Server>, logs: Option<Arc<dyn LogSource>>) -> Router {
    router(HttpState {
        server,
        client_logs: logs,
        agent: Arc::new(agent_info()),
        client_ops: None,
    })
}

pub(crate) async fn call(app: &Router, method: &str, uri: &str, body: &str) -> Reply {
    let req = Request::builder()
        .method(method)
        .uri(uri)
        .body(Body::from(body.to_string()))
        .expect("request builds");
    let resp = app
        .clone()
        .oneshot(req)
        .await
        .expect("router is infallible");
    let status = resp.status();
    let headers = resp.headers().clone();
    let body = axum::body::to_bytes(resp.into_body(), usize::MAX)
        .await
        .expect("body reads")
        .to_vec();
    Reply {
        status,
        headers,
        body,
    }
}

pub(crate) async fn get(app: &Router, uri: &str) -> Reply {
    call(app, "GET", uri, "").await
}

/// A minimal valid job body as `nomad job run -output` would send it.
pub(crate) fn job_body(id: &str) -> String {
    serde_json::json!({
        "Job": {
            "ID": id,
            "Name": id,
            "Type": "service",
            "Datacenters": ["*"],
            "TaskGroups": [{
                "Name": "web",
                "Count": 1,
                "Tasks": [{
                    "Name": "server",
                    "Driver": "raw_exec",
                    "Config": {"command": "/bin/sh", "args": ["-c", "sleep 1000"]},
                    "Resources": {"CPU": 100, "MemoryMB": 64}
                }]
            }]
        }
    })
    .to_string()
}

/// Register a job and wait until the worker has finished its eval, so the job's status
/// (and index) no longer moves under the test.
pub(crate) async fn register(app: &Router, id: &str) -> Reply {
    register_body(app, id, &job_body(id)).await
}

/// [`register`] with the job's own register body.
pub(crate) async fn register_body(app: &Router, id: &str, body: &str) -> Reply {
    let r = call(app, "PUT", "/v1/jobs", body).await;
    assert_eq!(r.status, StatusCode::OK, "register {id}: {}", r.text());
    let eval_id = r.json()["EvalID"].as_str().unwrap_or_default().to_string();
    let mut index = 0;
    for _ in 0..50 {
        let e = get(
            app,
            &format!("/v1/evaluation/{eval_id}?index={index}&wait=2s"),
        )
        .await;
        if e.json()["Status"] == "complete" {
            return r;
        }
        index = e
            .header("x-nomad-index")
            .and_then(|i| i.parse().ok())
            .unwrap_or(0);
    }
    panic!("eval {eval_id} of {id} did not complete");
}
