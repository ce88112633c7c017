//! The end-to-end C1M-style run shared by `cargo bench --bench scheduler` (after its
//! scheduler-only grid) and `cargo bench --bench c1m` (this run alone): the real server in
//! one process (raft with its on-disk log and fsync in a temp data dir, state store, eval
//! broker, scheduler workers, plan applier), simulated nodes registered through the
//! Node.Register endpoint (3 datacenters, 4 classes, the mock driver's resource shape), then
//! service jobs registered through Job.Register. The clock runs from the first job register
//! until every placement is committed (non-terminal allocs in the state store); eval latency
//! is create -> complete time of each register eval.
//!
//! Prints `key: value` lines, `placements_per_sec` last. `-- --nodes N --jobs N --count N`
//! override the scale; `C1M_TIMEOUT_S` bounds the wait (it then reports how far it got).

use std::collections::BTreeMap;
use std::time::{Duration, Instant};

use nomad::api::*;
use nomad::server::endpoints::{job, node};
use nomad::server::{Server, ServerConfig};

/// Simulated node `i`: 3 datacenters, 4 classes, the mock driver's resource shape.
pub fn sim_node(i: usize) -> Node {
    let class = ["small", "medium", "large", "gpu"][i % 4];
    let dc = ["dc1", "dc2", "dc3"][i % 3];
    Node {
        id: format!("{:08x}-0000-4000-8000-{:012x}", i, i),
        secret_id: format!("{:08x}-0000-4000-9000-{:012x}", i, i),
        name: format!("node-{i}"),
        datacenter: dc.to_string(),
        node_pool: DEFAULT_NODE_POOL.to_string(),
        node_class: class.to_string(),
        computed_class: format!("v1:{class}-{dc}"),
        status: NODE_STATUS_READY.to_string(),
        http_addr: format!("10.{}.{}.{}:4646", i / 65536, (i / 256) % 256, i % 256),
        attributes: BTreeMap::from([
            ("kernel.name".to_string(), "linux".to_string()),
            ("kernel.version".to_string(), "6.1.0-28-amd64".to_string()),
            ("arch".to_string(), "amd64".to_string()),
            ("cpu.arch".to_string(), "amd64".to_string()),
            ("cpu.numcores".to_string(), "8".to_string()),
            ("cpu.frequency".to_string(), "2000".to_string()),
            ("cpu.totalcompute".to_string(), "16000".to_string()),
            ("memory.totalbytes".to_string(), "34359738368".to_string()),
            ("nomad.version".to_string(), "1.9.3".to_string()),
            ("os.name".to_string(), "ubuntu".to_string()),
            ("os.version".to_string(), "22.04".to_string()),
            ("driver.mock_driver".to_string(), "1".to_string()),
            ("unique.hostname".to_string(), format!("host-{i}")),
            (
                "unique.network.ip-address".to_string(),
                format!("10.{}.{}.{}", i / 65536, (i / 256) % 256, i % 256),
            ),
        ]),
        drivers: BTreeMap::from([(
            "mock_driver".to_string(),
            DriverInfo {
                detected: true,
                healthy: true,
                ..Default::default()
            },
        )]),
        node_resources: NodeResources {
            cpu: NodeCpuResources {
                cpu_shares: 16_000,
                total_cpu_cores: 8,
                ..Default::default()
            },
            memory: NodeMemoryResources { memory_mb: 32_768 },
            disk: NodeDiskResources { disk_mb: 100_000 },
            min_dynamic_port: 20000,
            max_dynamic_port: 32000,
            ..Default::default()
        },
        ..Default::default()
    }
}

/// Service job `i` of `count` allocs.
pub fn service_job(i: usize, count: i32) -> Job {
    Job {
        id: format!("c1m-{i:05}"),
        name: format!("c1m-{i:05}"),
        namespace: "default".to_string(),
        r#type: JOB_TYPE_SERVICE.to_string(),
        priority: 50,
        datacenters: Some(vec!["dc1".into(), "dc2".into(), "dc3".into()]),
        constraints: Some(vec![Constraint {
            l_target: "${attr.kernel.name}".into(),
            operand: "=".into(),
            r_target: "linux".into(),
        }]),
        task_groups: vec![TaskGroup {
            name: "g".to_string(),
            count,
            tasks: vec![Task {
                name: "t".to_string(),
                driver: "mock_driver".to_string(),
                resources: Some(Resources {
                    cpu: 100,
                    memory_mb: 64,
                    ..Default::default()
                }),
                ..Default::default()
            }],
            ..Default::default()
        }],
        ..Default::default()
    }
}

fn vm_hwm_mb() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1))
                .and_then(|kb| kb.parse::<f64>().ok())
        })
        .map(|kb| kb / 1024.0)
        .unwrap_or(0.0)
}

fn arg(args: &[String], name: &str) -> Option<usize> {
    args.iter()
        .position(|a| a == name)
        .and_then(|i| args.get(i + 1))
        .and_then(|v| v.parse().ok())
}

fn percentile(sorted: &[f64], p: f64) -> f64 {
    if sorted.is_empty() {
        return 0.0;
    }
    let idx = ((sorted.len() as f64 - 1.0) * p).round() as usize;
    sorted[idx.min(sorted.len() - 1)]
}

/// How many simulated nodes, jobs and allocs per job.
#[derive(Clone, Copy)]
pub struct Scale {
    pub nodes: usize,
    pub jobs: usize,
    pub count: usize,
}

/// The default scale: 5,000 nodes, 1,000 jobs x 100 allocs (100,000 placements).
pub const DEFAULT: Scale = Scale {
    nodes: 5_000,
    jobs: 1_000,
    count: 100,
};

/// `QUICK=1`: 1,000 nodes, 200 jobs x 100 allocs (20,000 placements).
pub const QUICK: Scale = Scale {
    nodes: 1_000,
    jobs: 200,
    count: 100,
};

/// `default`, with `--nodes`, `--jobs` and `--count` from the command line applied.
pub fn scale_from_args(default: Scale) -> Scale {
    let args: Vec<String> = std::env::args().collect();
    Scale {
        nodes: arg(&args, "--nodes").unwrap_or(default.nodes),
        jobs: arg(&args, "--jobs").unwrap_or(default.jobs),
        count: arg(&args, "--count").unwrap_or(default.count),
    }
}

/// Runs the end-to-end scenario at `scale` and prints its figures; `default_timeout_s`
/// bounds the wait for placements unless `C1M_TIMEOUT_S` says otherwise.
pub fn run_and_print(scale: Scale, default_timeout_s: u64) {
    let timeout = Duration::from_secs(
        std::env::var("C1M_TIMEOUT_S")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(default_timeout_s),
    );
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .expect("tokio runtime");
    rt.block_on(run(scale.nodes, scale.jobs, scale.count as i32, timeout));
}

async fn run(nodes: usize, jobs: usize, count: i32, timeout: Duration) {
    let dir = tempfile::tempdir().expect("temp data dir");
    let server = Server::start(ServerConfig {
        data_dir: Some(dir.path().to_path_buf()),
        // Simulated clients send no heartbeats during the run: a TTL longer than the run
        // keeps them ready (the endpoint still arms the heartbeat timer for each).
        min_heartbeat_ttl: Duration::from_secs(3600),
        heartbeat_grace: Duration::from_secs(3600),
        num_schedulers: std::env::var("NUM_SCHEDULERS")
            .ok()
            .and_then(|v| v.parse().ok())
            .unwrap_or(ServerConfig::default().num_schedulers),
        ..Default::default()
    })
    .await
    .expect("server start");
    let leader_deadline = Instant::now() + Duration::from_secs(30);
    while !server.is_leader() {
        assert!(
            Instant::now() < leader_deadline,
            "server never became leader"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }

    // Register nodes as their clients would, 64 in flight.
    let reg_start = Instant::now();
    let mut set: tokio::task::JoinSet<Result<_, nomad::server::ServerError>> =
        tokio::task::JoinSet::new();
    for i in 0..nodes {
        if set.len() >= 64 {
            if let Some(r) = set.join_next().await {
                r.expect("join").expect("node register");
            }
        }
        let s = server.clone();
        set.spawn(async move { node::register(&s, sim_node(i)).await });
    }
    while let Some(r) = set.join_next().await {
        r.expect("join").expect("node register");
    }
    let reg_s = reg_start.elapsed().as_secs_f64();
    let ready = server
        .state()
        .snapshot()
        .nodes_list()
        .iter()
        .filter(|n| n.status == NODE_STATUS_READY)
        .count();
    assert_eq!(ready, nodes, "every node registered and ready");

    // Register the jobs through the endpoint, 32 in flight (concurrent `job run`s).
    let want = jobs * count as usize;
    let start = Instant::now();
    let mut eval_ids = Vec::with_capacity(jobs);
    let mut set: tokio::task::JoinSet<Result<JobRegisterResponse, nomad::server::ServerError>> =
        tokio::task::JoinSet::new();
    for i in 0..jobs {
        if set.len() >= 32 {
            if let Some(r) = set.join_next().await {
                eval_ids.push(r.expect("join").expect("job register").eval_id);
            }
        }
        let s = server.clone();
        set.spawn(async move {
            job::register(
                &s,
                JobRegisterRequest {
                    job: Some(service_job(i, count)),
                    ..Default::default()
                },
            )
            .await
        });
    }
    while let Some(r) = set.join_next().await {
        eval_ids.push(r.expect("join").expect("job register").eval_id);
    }
    let submit_s = start.elapsed().as_secs_f64();

    // Wait until every placement is committed.
    let deadline = start + timeout;
    let mut placed;
    loop {
        let snap = server.state().snapshot();
        // Counting the table is O(1); the live allocs are counted (a walk over all of them)
        // only once the table is big enough, so the poll costs the server nothing meanwhile.
        placed = snap.alloc_count();
        let timed_out = Instant::now() > deadline;
        if placed >= want || timed_out {
            placed = snap.allocs(None).iter().filter(|a| !a.terminal()).count();
        }
        if placed >= want || timed_out {
            break;
        }
        drop(snap);
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    let elapsed = start.elapsed().as_secs_f64();
    let timed_out = placed < want;
    // The last evals' acks can trail their committed plans by a moment.
    let settle = Instant::now() + Duration::from_secs(10);
    while !timed_out && Instant::now() < settle {
        let snap = server.state().snapshot();
        let open = eval_ids
            .iter()
            .filter_map(|id| snap.eval_by_id(id))
            .any(|e| !e.terminal());
        if !open {
            break;
        }
        drop(snap);
        tokio::time::sleep(Duration::from_millis(20)).await;
    }

    // Eval latency: create time to modify time (complete) of each job-register eval.
    let snap = server.state().snapshot();
    let mut lat: Vec<f64> = eval_ids
        .iter()
        .filter_map(|id| snap.eval_by_id(id))
        .filter(|e| e.status == EVAL_STATUS_COMPLETE)
        .map(|e| (e.modify_time - e.create_time) as f64 / 1e6)
        .collect();
    lat.sort_by(|a, b| a.total_cmp(b));
    let blocked = snap
        .evals(None)
        .iter()
        .filter(|e| e.status == EVAL_STATUS_BLOCKED)
        .count();
    drop(snap);

    println!("nodes: {nodes}");
    println!("jobs: {jobs}");
    println!("allocs_per_job: {count}");
    println!("node_register_s: {reg_s:.2}");
    println!("job_submit_s: {submit_s:.2}");
    println!("evals_complete: {}", lat.len());
    println!("evals_blocked: {blocked}");
    println!("eval_p50_ms: {:.1}", percentile(&lat, 0.50));
    println!("eval_p99_ms: {:.1}", percentile(&lat, 0.99));
    println!("peak_rss_mb: {:.0}", vm_hwm_mb());
    println!("elapsed_s: {elapsed:.2}");
    if timed_out {
        println!("timed_out: true (placed {placed} of {want})");
    }
    println!("placements: {placed}");
    println!("placements_per_sec: {:.0}", placed as f64 / elapsed);
    server.shutdown().await;
}
