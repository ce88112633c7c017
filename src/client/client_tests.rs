//! End to end through the client against an in-test fake of the server side of `ServerRpc`.

use std::collections::BTreeMap;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::Mutex;
use std::time::Duration;

use async_trait::async_trait;
use serde_json::json;
use tokio::sync::watch;

use super::*;
use crate::api::{Allocation, Job, RestartPolicy, Task, TaskGroup};
use crate::drivers::testutil::wait_until;
use crate::server::rpc::{ClientAllocs, NodeUpdateResponse, RpcError};

#[derive(Default)]
struct FakeServer {
    /// (index, allocs for the node); a change wakes blocked queries.
    allocs: Mutex<(u64, Vec<Allocation>)>,
    changed: Mutex<Option<watch::Sender<u64>>>,
    updates: Mutex<Vec<Allocation>>,
    registrations: AtomicU64,
    heartbeats: AtomicU64,
    forget_node_once: AtomicBool,
    ttl: Mutex<Duration>,
    last_node: Mutex<Option<Node>>,
}

impl FakeServer {
    fn new(ttl: Duration) -> Arc<Self> {
        let s = FakeServer::default();
        *s.changed.lock().unwrap() = Some(watch::channel(0).0);
        *s.ttl.lock().unwrap() = ttl;
        Arc::new(s)
    }

    fn set_allocs(&self, allocs: Vec<Allocation>) {
        let mut g = self.allocs.lock().unwrap();
        g.0 += 1;
        g.1 = allocs;
        let idx = g.0;
        drop(g);
        if let Some(tx) = self.changed.lock().unwrap().as_ref() {
            tx.send_replace(idx);
        }
    }

    fn updates_for(&self, alloc_id: &str) -> Vec<Allocation> {
        self.updates
            .lock()
            .unwrap()
            .iter()
            .filter(|a| a.id == alloc_id)
            .cloned()
            .collect()
    }

    fn last_status(&self, alloc_id: &str) -> Option<String> {
        self.updates_for(alloc_id)
            .last()
            .map(|a| a.client_status.clone())
    }
}

#[async_trait]
impl ServerRpc for FakeServer {
    async fn node_register(&self, node: Node) -> Result<NodeUpdateResponse, RpcError> {
        self.registrations.fetch_add(1, Ordering::SeqCst);
        *self.last_node.lock().unwrap() = Some(node);
        Ok(NodeUpdateResponse {
            heartbeat_ttl: *self.ttl.lock().unwrap(),
            index: 1,
        })
    }

    async fn node_update_status(
        &self,
        node_id: &str,
        _status: &str,
    ) -> Result<NodeUpdateResponse, RpcError> {
        self.heartbeats.fetch_add(1, Ordering::SeqCst);
        if self.forget_node_once.swap(false, Ordering::SeqCst) {
            return Err(RpcError::UnknownNode(node_id.to_string()));
        }
        Ok(NodeUpdateResponse {
            heartbeat_ttl: *self.ttl.lock().unwrap(),
            index: 1,
        })
    }

    async fn node_update_alloc(
        &self,
        _node_id: &str,
        allocs: Vec<Allocation>,
    ) -> Result<u64, RpcError> {
        self.updates.lock().unwrap().extend(allocs);
        Ok(1)
    }

    async fn node_get_client_allocs(
        &self,
        _node_id: &str,
        min_index: u64,
        timeout: Duration,
    ) -> Result<ClientAllocs, RpcError> {
        let mut rx = self
            .changed
            .lock()
            .unwrap()
            .as_ref()
            .map(|tx| tx.subscribe())
            .ok_or(RpcError::Shutdown)?;
        let _ = tokio::time::timeout(timeout, async {
            while *rx.borrow_and_update() <= min_index {
                if rx.changed().await.is_err() {
                    return;
                }
            }
        })
        .await;
        let g = self.allocs.lock().unwrap();
        Ok(ClientAllocs {
            allocs: g.1.clone(),
            index: g.0,
        })
    }
}

fn job(kind: &str, driver: &str, config: serde_json::Value) -> Job {
    Job {
        id: "example".into(),
        name: "example".into(),
        namespace: "default".into(),
        r#type: kind.into(),
        version: 0,
        task_groups: vec![TaskGroup {
            name: "web".into(),
            count: 1,
            restart_policy: Some(RestartPolicy {
                attempts: 0,
                delay: crate::api::SECOND,
                interval: crate::api::MINUTE,
                mode: "fail".into(),
                render_templates: false,
            }),
            tasks: vec![Task {
                name: "server".into(),
                driver: driver.into(),
                config: Some(match config {
                    serde_json::Value::Object(m) => m.into_iter().collect(),
                    _ => BTreeMap::new(),
                }),
                kill_timeout: Some(2 * crate::api::SECOND),
                ..Default::default()
            }],
            ..Default::default()
        }],
        ..Default::default()
    }
}

fn alloc(node_id: &str, job: Job) -> Allocation {
    Allocation {
        id: crate::api::generate_id(),
        name: "example.web[0]".into(),
        namespace: "default".into(),
        node_id: node_id.into(),
        job_id: job.id.clone(),
        task_group: "web".into(),
        desired_status: "run".into(),
        client_status: "pending".into(),
        alloc_modify_index: 10,
        job: Some(Arc::new(job)),
        ..Default::default()
    }
}

async fn start(tmp: &Path, server: &Arc<FakeServer>) -> ClientHandle {
    let mut cfg = ClientConfig::dev(tmp);
    cfg.alloc_update_interval = Duration::from_millis(50);
    let rpc: Arc<dyn ServerRpc> = server.clone();
    let client = Client::start(cfg, rpc).await.unwrap();
    assert!(
        wait_until(Duration::from_secs(5), || async {
            server.registrations.load(Ordering::SeqCst) > 0
        })
        .await
    );
    client
}

use std::path::Path;
use std::sync::atomic::Ordering;

#[tokio::test]
async fn mock_batch_alloc_runs_then_completes_and_logs_output() {
    let tmp = tempfile::tempdir().unwrap();
    let server = FakeServer::new(Duration::from_secs(30));
    let client = start(tmp.path(), &server).await;
    let a = alloc(
        client.node_id(),
        job(
            "batch",
            "mock_driver",
            json!({ "run_for": "500ms", "stdout_string": "hello from ${NOMAD_TASK_NAME}\n" }),
        ),
    );
    let id = a.id.clone();
    server.set_allocs(vec![a]);
    assert!(
        wait_until(Duration::from_secs(10), || async {
            server.last_status(&id).as_deref() == Some("complete")
        })
        .await,
        "updates: {:?}",
        server.updates_for(&id)
    );
    let statuses: Vec<String> = server
        .updates_for(&id)
        .iter()
        .map(|u| u.client_status.clone())
        .collect();
    let running = statuses
        .iter()
        .position(|s| s == "running")
        .expect("never running");
    let complete = statuses.iter().position(|s| s == "complete").unwrap();
    assert!(running < complete, "{statuses:?}");
    let last = server.updates_for(&id).pop().unwrap();
    assert_eq!(last.client_description, "All tasks have completed");
    let ts = &last.task_states.unwrap()["server"];
    assert_eq!(ts.state, "dead");
    assert!(!ts.failed);
    let kinds: Vec<&str> = ts.events.iter().map(|e| e.r#type.as_str()).collect();
    assert_eq!(kinds, ["Received", "Task Setup", "Started", "Terminated"]);
    assert_eq!(
        stdout_of(&client, &id).as_deref(),
        Some(&b"hello from server\n"[..])
    );
    let dir = client.alloc_dir(&id).unwrap();
    for d in [
        "alloc/data",
        "alloc/logs",
        "alloc/tmp",
        "server/local",
        "server/secrets",
        "server/tmp",
    ] {
        assert!(dir.join(d).is_dir(), "{d}");
    }
    client.shutdown(false).await;
}

#[tokio::test]
async fn raw_exec_service_is_killed_when_the_server_stops_it() {
    let tmp = tempfile::tempdir().unwrap();
    let server = FakeServer::new(Duration::from_secs(30));
    let client = start(tmp.path(), &server).await;
    let mut a = alloc(
        client.node_id(),
        job(
            "service",
            "raw_exec",
            json!({ "command": "/bin/sh", "args": ["-c", "echo hello $NOMAD_ALLOC_INDEX; exec sleep 1000"] }),
        ),
    );
    let id = a.id.clone();
    server.set_allocs(vec![a.clone()]);
    assert!(
        wait_until(Duration::from_secs(10), || async {
            server.last_status(&id).as_deref() == Some("running")
        })
        .await
    );
    assert!(
        wait_until(Duration::from_secs(5), || async {
            stdout_of(&client, &id).as_deref() == Some(&b"hello 0\n"[..])
        })
        .await
    );
    a.desired_status = "stop".into();
    a.alloc_modify_index = 11;
    server.set_allocs(vec![a]);
    assert!(
        wait_until(Duration::from_secs(10), || async {
            server.last_status(&id).as_deref() == Some("complete")
        })
        .await,
        "{:?}",
        server.updates_for(&id)
    );
    let last = server.updates_for(&id).pop().unwrap();
    let ts = &last.task_states.unwrap()["server"];
    let tail: Vec<(&str, &str)> = ts
        .events
        .iter()
        .skip(3)
        .map(|e| (e.r#type.as_str(), e.display_message.as_str()))
        .collect();
    assert_eq!(
        tail,
        [
            ("Killing", "Sent interrupt. Waiting 2s before force killing"),
            ("Terminated", "Exit Code: 130, Signal: 2"),
            ("Killed", "Task successfully killed"),
        ]
    );
    assert!(ts.finished_at.is_some());
    client.shutdown(false).await;
}

#[tokio::test]
async fn missing_binary_fails_the_alloc_with_a_driver_failure() {
    let tmp = tempfile::tempdir().unwrap();
    let server = FakeServer::new(Duration::from_secs(30));
    let client = start(tmp.path(), &server).await;
    let a = alloc(
        client.node_id(),
        job(
            "service",
            "raw_exec",
            json!({ "command": "no-such-binary-here" }),
        ),
    );
    let id = a.id.clone();
    server.set_allocs(vec![a]);
    assert!(
        wait_until(Duration::from_secs(10), || async {
            server.last_status(&id).as_deref() == Some("failed")
        })
        .await
    );
    let last = server.updates_for(&id).pop().unwrap();
    assert_eq!(last.client_description, "Failed tasks");
    let ts = &last.task_states.unwrap()["server"];
    assert!(ts.failed);
    let failure = ts
        .events
        .iter()
        .find(|e| e.r#type == "Driver Failure")
        .unwrap();
    assert_eq!(
        failure.display_message,
        "binary \"no-such-binary-here\" could not be found"
    );
    client.shutdown(false).await;
}

#[tokio::test]
async fn shutdown_with_stop_tasks_kills_tasks_and_sends_final_updates() {
    let tmp = tempfile::tempdir().unwrap();
    let server = FakeServer::new(Duration::from_secs(30));
    let client = start(tmp.path(), &server).await;
    let a = alloc(
        client.node_id(),
        job(
            "service",
            "raw_exec",
            json!({ "command": "/bin/sleep", "args": ["1000"] }),
        ),
    );
    let id = a.id.clone();
    server.set_allocs(vec![a]);
    assert!(
        wait_until(Duration::from_secs(10), || async {
            server.last_status(&id).as_deref() == Some("running")
        })
        .await
    );
    tokio::time::timeout(Duration::from_secs(10), client.shutdown(true))
        .await
        .expect("shutdown hung");
    assert_eq!(server.last_status(&id).as_deref(), Some("complete"));
}

#[tokio::test]
async fn heartbeats_and_reregisters_when_the_server_forgets_the_node() {
    let tmp = tempfile::tempdir().unwrap();
    let server = FakeServer::new(Duration::from_millis(100));
    server.forget_node_once.store(true, Ordering::SeqCst);
    let client = start(tmp.path(), &server).await;
    assert!(
        wait_until(Duration::from_secs(10), || async {
            server.registrations.load(Ordering::SeqCst) >= 2
                && server.heartbeats.load(Ordering::SeqCst) >= 2
        })
        .await
    );
    client.shutdown(false).await;
}

#[tokio::test]
async fn mock_driver_output_keeps_coming_while_it_runs() {
    let tmp = tempfile::tempdir().unwrap();
    let server = FakeServer::new(Duration::from_secs(30));
    let client = start(tmp.path(), &server).await;
    let a = alloc(
        client.node_id(),
        job(
            "service",
            "mock_driver",
            json!({ "run_for": "1h", "stdout_string": "tick\n", "stdout_repeat": 1000,
                    "stdout_repeat_duration": "20ms" }),
        ),
    );
    let id = a.id.clone();
    server.set_allocs(vec![a]);
    assert!(
        wait_until(Duration::from_secs(10), || async {
            stdout_of(&client, &id)
                .is_some_and(|out| out.windows(5).filter(|w| w == b"tick\n").count() >= 5)
        })
        .await
    );
    assert!(
        client.alloc_dir("../etc").is_none(),
        "alloc IDs never escape the alloc root"
    );
    client.shutdown(true).await;
}

/// The task's first stdout file, as the log pump wrote it.
fn stdout_of(client: &ClientHandle, alloc_id: &str) -> Option<Vec<u8>> {
    std::fs::read(
        client
            .alloc_dir(alloc_id)?
            .join("alloc/logs/server.stdout.0"),
    )
    .ok()
}

#[tokio::test]
async fn in_place_update_keeps_the_task_running() {
    let tmp = tempfile::tempdir().unwrap();
    let server = FakeServer::new(Duration::from_secs(30));
    let client = start(tmp.path(), &server).await;
    let mut a = alloc(
        client.node_id(),
        job("service", "mock_driver", json!({ "run_for": "1h" })),
    );
    let id = a.id.clone();
    server.set_allocs(vec![a.clone()]);
    assert!(
        wait_until(Duration::from_secs(10), || async {
            server.last_status(&id).as_deref() == Some("running")
        })
        .await
    );
    // A new job version delivered in place (same alloc), then a stop: the stop is only
    // seen after the update, so a restart caused by the update would show in the events.
    let mut j = (**a.job.as_ref().unwrap()).clone();
    j.version = 1;
    a.job = Some(Arc::new(j));
    a.alloc_modify_index = 11;
    server.set_allocs(vec![a.clone()]);
    a.desired_status = "stop".into();
    a.alloc_modify_index = 12;
    server.set_allocs(vec![a]);
    assert!(
        wait_until(Duration::from_secs(10), || async {
            server.last_status(&id).as_deref() == Some("complete")
        })
        .await
    );
    let ts = server.updates_for(&id).pop().unwrap().task_states.unwrap()["server"].clone();
    let kinds: Vec<&str> = ts.events.iter().map(|e| e.r#type.as_str()).collect();
    assert_eq!(
        kinds,
        [
            "Received",
            "Task Setup",
            "Started",
            "Killing",
            "Terminated",
            "Killed"
        ]
    );
    assert_eq!(ts.restarts, 0);
    client.shutdown(false).await;
}

#[tokio::test]
async fn allocs_the_server_forgets_are_stopped() {
    let tmp = tempfile::tempdir().unwrap();
    let server = FakeServer::new(Duration::from_secs(30));
    let client = start(tmp.path(), &server).await;
    let a = alloc(
        client.node_id(),
        job("service", "mock_driver", json!({ "run_for": "1h" })),
    );
    let id = a.id.clone();
    server.set_allocs(vec![a]);
    assert!(
        wait_until(Duration::from_secs(10), || async {
            server.last_status(&id).as_deref() == Some("running")
        })
        .await
    );
    server.set_allocs(vec![]);
    assert!(
        wait_until(Duration::from_secs(10), || async {
            server.last_status(&id).as_deref() == Some("complete")
        })
        .await
    );
    client.shutdown(false).await;
}

/// A non-dev client (state persisted) with raw_exec enabled, on `tmp`.
async fn start_persistent(tmp: &Path, server: &Arc<FakeServer>) -> ClientHandle {
    let mut cfg = ClientConfig::new(tmp);
    cfg.drivers.plugins.insert(
        "raw_exec".into(),
        [("enabled".to_string(), json!(true))].into(),
    );
    cfg.network_interface = "lo".into();
    cfg.network_ip = "127.0.0.1".into();
    cfg.alloc_update_interval = Duration::from_millis(50);
    let rpc: Arc<dyn ServerRpc> = server.clone();
    Client::start(cfg, rpc).await.unwrap()
}

#[tokio::test]
async fn a_restarted_client_reattaches_to_running_tasks_and_stops_them_when_told() {
    let tmp = tempfile::tempdir().unwrap();
    let server = FakeServer::new(Duration::from_secs(30));
    let client = start_persistent(tmp.path(), &server).await;
    let script = json!({ "command": "/bin/sh", "args": ["-c", "echo $$ > pid; exec sleep 60"] });
    let a = alloc(client.node_id(), job("service", "raw_exec", script));
    server.set_allocs(vec![a.clone()]);
    assert!(
        wait_until(Duration::from_secs(10), || async {
            server.last_status(&a.id).as_deref() == Some("running")
        })
        .await
    );
    let pid_file = tmp.path().join("alloc").join(&a.id).join("server/pid");
    assert!(
        wait_until(Duration::from_secs(5), || async {
            std::fs::read_to_string(&pid_file).is_ok_and(|s| s.ends_with('\n'))
        })
        .await
    );
    let pid: i32 = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    // Not dev mode: shutting down leaves the task to a later client.
    client.shutdown(false).await;
    let before = server.updates_for(&a.id).last().cloned().unwrap();
    let seen = server.updates_for(&a.id).len();

    let client = start_persistent(tmp.path(), &server).await;
    assert!(
        wait_until(Duration::from_secs(10), || async {
            server.updates_for(&a.id).len() > seen
        })
        .await,
        "the restored runner reports"
    );
    let after = server.updates_for(&a.id).last().cloned().unwrap();
    assert_eq!(after.client_status, "running");
    let events = |a: &Allocation| {
        a.task_states
            .as_ref()
            .and_then(|t| t.get("server"))
            .map(|t| t.events.clone())
            .unwrap_or_default()
    };
    assert!(!events(&before).is_empty());
    assert_eq!(
        events(&after),
        events(&before),
        "re-attached without new events"
    );
    assert_eq!(
        nix::sys::signal::kill(nix::unistd::Pid::from_raw(pid), None),
        Ok(())
    );

    // The server stopped the alloc: the re-attached task is stopped.
    let mut stopped = a.clone();
    stopped.desired_status = "stop".into();
    stopped.alloc_modify_index += 1;
    server.set_allocs(vec![stopped]);
    assert!(
        wait_until(Duration::from_secs(10), || async {
            server.last_status(&a.id).as_deref() == Some("complete")
        })
        .await
    );
    client.shutdown(true).await;
}

#[tokio::test]
async fn a_driver_whose_health_changes_reregisters_the_node() {
    use crate::api::DriverInfo;
    let server = FakeServer::new(Duration::from_secs(10));
    let tmp = tempfile::tempdir().unwrap();
    let info = |healthy: bool, version: &str| DriverInfo {
        detected: healthy,
        healthy,
        attributes: BTreeMap::from([("driver.docker.version".to_string(), version.to_string())]),
        update_time: format!("t-{version}"),
        ..Default::default()
    };
    let mut node = Node {
        id: "n1".into(),
        ..Default::default()
    };
    node.drivers = BTreeMap::from([("docker".to_string(), info(false, ""))]);
    let (meta, _) =
        super::node_meta::NodeMeta::load(tmp.path().to_path_buf(), node, server.clone());

    // Same health, a new timestamp only: nothing to report.
    let same = BTreeMap::from([("docker".to_string(), {
        let mut i = info(false, "");
        i.update_time = "later".into();
        i
    })]);
    assert!(!meta.update_drivers(same).await.unwrap());
    assert_eq!(server.registrations.load(Ordering::SeqCst), 0);

    // The daemon came up: the node is registered with the driver and its attributes.
    let up = BTreeMap::from([("docker".to_string(), info(true, "20.10"))]);
    assert!(meta.update_drivers(up).await.unwrap());
    let registered = server.last_node.lock().unwrap().clone().unwrap();
    assert!(registered.drivers["docker"].healthy);
    assert_eq!(registered.attributes["driver.docker"], "1");
    assert_eq!(registered.attributes["driver.docker.version"], "20.10");
    assert_eq!(meta.current().attributes["driver.docker"], "1");

    // And went away again: its attributes go with it.
    let down = BTreeMap::from([("docker".to_string(), info(false, ""))]);
    assert!(meta.update_drivers(down).await.unwrap());
    let registered = server.last_node.lock().unwrap().clone().unwrap();
    assert!(!registered.attributes.contains_key("driver.docker"));
    assert!(!registered.attributes.contains_key("driver.docker.version"));
    assert_eq!(server.registrations.load(Ordering::SeqCst), 2);
}
