//! Task benchmark: alloc received -> task running through the real client and driver, per
//! driver, the client's RSS and CPU with many idle tasks, and the RSS of the per-task
//! supervisor (`nomad executor`). Prints `key: value` lines, `supervisor_rss_kb` last.
//! `QUICK=1` takes fewer samples and 100 idle tasks instead of 500.
//!
//! The client runs in-process against a fake server (`ServerRpc`) so the figure is the
//! client's own work: the alloc watch answer, alloc and task runner setup, task env, the
//! client state writes (redb, durable), the driver start (for raw_exec: spawning the
//! supervisor, which spawns the task) and the status update reporting `running`.

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use async_trait::async_trait;
use nomad::api::{Allocation, Job, Node, RestartPolicy, Task, TaskGroup};
use nomad::client::{Client, ClientConfig};
use nomad::drivers::{DriverConfig, DriverRegistry, HealthState};
use nomad::server::rpc::{ClientAllocs, NodeUpdateResponse, RpcError, ServerRpc};
use serde_json::{json, Value};
use tokio::sync::watch;

const DOCKER_IMAGE: &str = "nomad-rs-busybox:latest";

/// The server side as the client sees it: allocs to hand out, updates received.
struct FakeServer {
    allocs: Mutex<(u64, Vec<Allocation>)>,
    changed: watch::Sender<u64>,
    /// (alloc id, client status) -> when it was first reported.
    reported: Mutex<BTreeMap<(String, String), Instant>>,
}

impl FakeServer {
    fn set_allocs(&self, allocs: Vec<Allocation>) {
        let idx = {
            let mut g = self.allocs.lock().unwrap_or_else(|e| e.into_inner());
            g.0 += 1;
            g.1 = allocs;
            g.0
        };
        self.changed.send_replace(idx);
    }

    fn reported_at(&self, alloc_id: &str, status: &str) -> Option<Instant> {
        let g = self.reported.lock().unwrap_or_else(|e| e.into_inner());
        g.get(&(alloc_id.to_string(), status.to_string())).copied()
    }
}

#[async_trait]
impl ServerRpc for FakeServer {
    async fn node_register(&self, _: Node) -> Result<NodeUpdateResponse, RpcError> {
        Ok(NodeUpdateResponse {
            heartbeat_ttl: Duration::from_secs(60),
            index: 1,
        })
    }

    async fn node_update_status(&self, _: &str, _: &str) -> Result<NodeUpdateResponse, RpcError> {
        Ok(NodeUpdateResponse {
            heartbeat_ttl: Duration::from_secs(60),
            index: 1,
        })
    }

    async fn node_update_alloc(&self, _: &str, allocs: Vec<Allocation>) -> Result<u64, RpcError> {
        let now = Instant::now();
        let mut g = self.reported.lock().unwrap_or_else(|e| e.into_inner());
        for a in allocs {
            g.entry((a.id, a.client_status)).or_insert(now);
        }
        Ok(1)
    }

    async fn node_get_client_allocs(
        &self,
        _: &str,
        min_index: u64,
        timeout: Duration,
    ) -> Result<ClientAllocs, RpcError> {
        let mut rx = self.changed.subscribe();
        let _ = tokio::time::timeout(timeout, async {
            while *rx.borrow_and_update() <= min_index {
                if rx.changed().await.is_err() {
                    return;
                }
            }
        })
        .await;
        let g = self.allocs.lock().unwrap_or_else(|e| e.into_inner());
        Ok(ClientAllocs {
            allocs: g.1.clone(),
            index: g.0,
        })
    }
}

fn alloc(node_id: &str, n: usize, driver: &str, config: Value) -> Allocation {
    let job = Job {
        id: "bench".into(),
        name: "bench".into(),
        namespace: "default".into(),
        r#type: "service".into(),
        task_groups: vec![TaskGroup {
            name: "g".into(),
            count: 1,
            restart_policy: Some(RestartPolicy {
                attempts: 0,
                delay: 1_000_000_000,
                interval: 60_000_000_000,
                mode: "fail".into(),
                render_templates: false,
            }),
            tasks: vec![Task {
                name: "t".into(),
                driver: driver.into(),
                config: Some(match config {
                    Value::Object(m) => m.into_iter().collect(),
                    _ => BTreeMap::new(),
                }),
                kill_timeout: Some(1_000_000_000),
                ..Default::default()
            }],
            ..Default::default()
        }],
        ..Default::default()
    };
    Allocation {
        id: nomad::api::generate_id(),
        name: format!("bench.g[{n}]"),
        namespace: "default".into(),
        node_id: node_id.into(),
        job_id: "bench".into(),
        task_group: "g".into(),
        desired_status: "run".into(),
        client_status: "pending".into(),
        alloc_modify_index: 10,
        job: Some(Arc::new(job)),
        ..Default::default()
    }
}

async fn wait_for(what: &str, timeout: Duration, mut cond: impl FnMut() -> bool) {
    let deadline = Instant::now() + timeout;
    while !cond() {
        if Instant::now() > deadline {
            panic!("timed out waiting for {what}");
        }
        tokio::time::sleep(Duration::from_micros(200)).await;
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

/// Median ms from handing the client an alloc to its `running` report, over `samples`
/// allocs run one after another (each stopped before the next).
async fn start_ms(
    server: &FakeServer,
    node_id: &str,
    samples: usize,
    driver: &str,
    config: Value,
) -> f64 {
    let mut times = Vec::new();
    for n in 0..samples {
        let a = alloc(node_id, n, driver, config.clone());
        let id = a.id.clone();
        let t0 = Instant::now();
        server.set_allocs(vec![a.clone()]);
        wait_for(
            &format!("{driver} alloc running"),
            Duration::from_secs(60),
            || {
                server.reported_at(&id, "running").is_some()
                    || server.reported_at(&id, "failed").is_some()
            },
        )
        .await;
        let Some(t1) = server.reported_at(&id, "running") else {
            panic!("{driver} task failed to start");
        };
        times.push((t1 - t0).as_secs_f64() * 1000.0);
        let mut stopped = a;
        stopped.desired_status = "stop".into();
        stopped.alloc_modify_index += 1;
        server.set_allocs(vec![stopped]);
        wait_for(
            &format!("{driver} alloc stopped"),
            Duration::from_secs(30),
            || {
                server.reported_at(&id, "complete").is_some()
                    || server.reported_at(&id, "failed").is_some()
            },
        )
        .await;
    }
    median(times)
}

fn rss_kb(pid: i32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1)?.parse().ok())
        })
        .unwrap_or(0)
}

/// User + system CPU seconds this process (every thread of it) has used.
fn cpu_seconds() -> f64 {
    // SAFETY: getrusage fills the zeroed struct it is given.
    let ru = unsafe {
        let mut ru: libc::rusage = std::mem::zeroed();
        libc::getrusage(libc::RUSAGE_SELF, &mut ru);
        ru
    };
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    secs(ru.ru_utime) + secs(ru.ru_stime)
}

/// Wait (polling every 50 ms) until every alloc reported one of `statuses`.
async fn wait_all(server: &FakeServer, allocs: &[Allocation], statuses: &[&str], what: &str) {
    let deadline = Instant::now() + Duration::from_secs(300);
    while !allocs.iter().all(|a| {
        statuses
            .iter()
            .any(|s| server.reported_at(&a.id, s).is_some())
    }) {
        if Instant::now() > deadline {
            panic!("timed out waiting for {what}");
        }
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

/// `n` raw_exec tasks running at once on the client, then this process's VmRSS (the client
/// runs in it) and its CPU use over an idle window of `window`. Returns (MB, percent of one
/// core).
async fn idle_tasks(server: &FakeServer, node_id: &str, n: usize, window: Duration) -> (f64, f64) {
    let sleep = json!({ "command": "/bin/sleep", "args": ["600"] });
    let allocs: Vec<Allocation> = (0..n)
        .map(|i| alloc(node_id, i, "raw_exec", sleep.clone()))
        .collect();
    server.set_allocs(allocs.clone());
    wait_all(
        server,
        &allocs,
        &["running", "failed"],
        "idle tasks running",
    )
    .await;
    if let Some(a) = allocs
        .iter()
        .find(|a| server.reported_at(&a.id, "running").is_none())
    {
        panic!("idle task {} failed to start", a.id);
    }
    // Let the status flushes and first stats settle before measuring.
    tokio::time::sleep(Duration::from_secs(1)).await;
    let (cpu0, t0) = (cpu_seconds(), Instant::now());
    tokio::time::sleep(window).await;
    let cpu = (cpu_seconds() - cpu0) / t0.elapsed().as_secs_f64() * 100.0;
    let rss_mb = rss_kb(std::process::id() as i32) as f64 / 1024.0;
    let stopped: Vec<Allocation> = allocs
        .iter()
        .cloned()
        .map(|mut a| {
            a.desired_status = "stop".into();
            a.alloc_modify_index += 1;
            a
        })
        .collect();
    server.set_allocs(stopped);
    wait_all(
        server,
        &allocs,
        &["complete", "failed"],
        "idle tasks stopped",
    )
    .await;
    (rss_mb, cpu)
}

/// VmRSS of a supervisor whose task has written a few hundred KB of logs.
async fn supervisor_rss(root: &Path) -> u64 {
    use nomad::drivers::{Driver, TaskConfig};
    let driver = nomad::drivers::raw_exec::RawExecDriver::new(true);
    let task_dir = root.join("rss/t");
    for d in ["local", "secrets", "tmp"] {
        std::fs::create_dir_all(task_dir.join(d)).expect("task dir");
    }
    std::fs::create_dir_all(root.join("rss/alloc/logs")).expect("log dir");
    let script = "i=0; while [ $i -lt 2000 ]; do echo line $i of output for the log rotator; i=$((i+1)); done; echo done; exec sleep 600";
    let cfg = TaskConfig {
        id: "rss/t/1".into(),
        name: "t".into(),
        alloc_id: "rss".into(),
        config: [
            ("command".to_string(), json!("/bin/sh")),
            ("args".to_string(), json!(["-c", script])),
        ]
        .into(),
        env: [("PATH".to_string(), "/usr/bin:/bin".to_string())].into(),
        task_dir,
        alloc_dir: root.join("rss"),
        ..Default::default()
    };
    let handle = driver.start(cfg).await.expect("start task");
    let log = root.join("rss/alloc/logs/t.stdout.0");
    wait_for("task output", Duration::from_secs(30), || {
        std::fs::read_to_string(&log).is_ok_and(|s| s.ends_with("done\n"))
    })
    .await;
    let pid = handle.driver_state["supervisor_pid"].as_i64().unwrap_or(0) as i32;
    // The steady state of a running task: the supervisor drops what serving the driver's
    // `wait` request faulted in a second after it (executor::supervisor::TRIM_DELAY).
    tokio::time::sleep(Duration::from_millis(1500)).await;
    let rss = rss_kb(pid);
    let _ = driver.stop(&handle, "SIGKILL", Duration::ZERO).await;
    let _ = driver.wait(&handle).await;
    let _ = driver.destroy(&handle, true).await;
    rss
}

/// Whether dockerd answers and has the benchmark image.
fn docker_image_present() -> bool {
    use std::io::{Read, Write};
    let Ok(mut s) = std::os::unix::net::UnixStream::connect("/var/run/docker.sock") else {
        return false;
    };
    let req = format!(
        "GET /images/{DOCKER_IMAGE}/json HTTP/1.1\r\nHost: docker\r\nConnection: close\r\n\r\n"
    );
    let mut resp = String::new();
    s.write_all(req.as_bytes()).is_ok()
        && s.read_to_string(&mut resp).is_ok()
        && resp.starts_with("HTTP/1.1 200")
}

async fn healthy(reg: &DriverRegistry, name: &str) -> bool {
    match reg.get(name) {
        Some(d) => d.fingerprint().await.health == HealthState::Healthy,
        None => false,
    }
}

#[tokio::main]
async fn main() {
    let quick = std::env::var("QUICK").is_ok_and(|v| v == "1");
    let samples = if quick { 5 } else { 21 };
    let tmp = tempfile::tempdir().expect("temp dir");

    let mut drivers = DriverConfig::default();
    for plugin in ["raw_exec", "exec"] {
        drivers
            .plugins
            .insert(plugin.into(), [("enabled".to_string(), json!(true))].into());
    }
    let registry = DriverRegistry::from_config(&drivers);
    let mut cfg = ClientConfig::new(tmp.path().join("data"));
    cfg.drivers = drivers;
    cfg.network_interface = "lo".into();
    cfg.network_ip = "127.0.0.1".into();
    cfg.alloc_watch_timeout = Duration::from_secs(5);

    let server = Arc::new(FakeServer {
        allocs: Mutex::new((1, Vec::new())),
        changed: watch::channel(1).0,
        reported: Mutex::new(BTreeMap::new()),
    });
    let rpc: Arc<dyn ServerRpc> = server.clone();
    let client = Client::start(cfg, rpc).await.expect("client start");
    let node_id = client.node_id().to_string();

    let sleep = json!({ "command": "/bin/sleep", "args": ["600"] });
    let raw = start_ms(&server, &node_id, samples, "raw_exec", sleep.clone()).await;
    println!("start_ms_raw_exec: {raw:.1}");
    if healthy(&registry, "exec").await {
        let exec = start_ms(&server, &node_id, samples, "exec", sleep.clone()).await;
        println!("start_ms_exec: {exec:.1}");
    }
    if healthy(&registry, "docker").await && docker_image_present() {
        let config = json!({ "image": DOCKER_IMAGE, "command": "sleep", "args": ["600"] });
        let n = samples.min(if quick { 3 } else { 11 });
        let docker = start_ms(&server, &node_id, n, "docker", config).await;
        println!("start_ms_docker: {docker:.1}");
    }
    let (tasks, window) = if quick {
        (100, Duration::from_secs(5))
    } else {
        (500, Duration::from_secs(10))
    };
    let (rss_mb, cpu_pct) = idle_tasks(&server, &node_id, tasks, window).await;
    println!("idle_tasks: {tasks}");
    println!("idle_agent_rss_mb: {rss_mb:.1}");
    println!("idle_agent_cpu_pct: {cpu_pct:.2}");
    server.set_allocs(Vec::new());
    client.shutdown(true).await;

    println!("supervisor_rss_kb: {}", supervisor_rss(tmp.path()).await);
}
