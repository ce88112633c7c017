//! System jobs end to end: the real server places a system job on every node, on a node
//! that joins later, and both same-ID jobs in two namespaces land on a new node.

use std::collections::BTreeMap;
use std::time::Duration;

use super::endpoints::job;
use super::{Server, ServerConfig};
use crate::api::*;

pub(super) fn node(id: &str, cpu: i64, mem: i64) -> Node {
    Node {
        id: id.to_string(),
        secret_id: format!("secret-{id}"),
        name: id.to_string(),
        datacenter: "dc1".to_string(),
        node_pool: "default".to_string(),
        status: NODE_STATUS_READY.to_string(),
        scheduling_eligibility: NODE_ELIGIBLE.to_string(),
        computed_class: "v1:1".to_string(),
        attributes: BTreeMap::from([
            ("kernel.name".to_string(), "linux".to_string()),
            ("driver.mock_driver".to_string(), "1".to_string()),
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
                cpu_shares: cpu,
                total_cpu_cores: 2,
                ..Default::default()
            },
            memory: NodeMemoryResources { memory_mb: mem },
            disk: NodeDiskResources { disk_mb: 10_000 },
            min_dynamic_port: 20000,
            max_dynamic_port: 32000,
            networks: vec![NetworkResource {
                device: "lo".into(),
                ip: "127.0.0.1".into(),
                mode: "host".into(),
                ..Default::default()
            }],
            ..Default::default()
        },
        ..Default::default()
    }
}

pub(super) fn mock_job(id: &str, count: i32, mem: i64) -> Job {
    Job {
        id: id.to_string(),
        task_groups: vec![TaskGroup {
            name: "g".to_string(),
            count,
            tasks: vec![Task {
                name: "t".to_string(),
                driver: "mock_driver".to_string(),
                resources: Some(Resources {
                    cpu: 100,
                    memory_mb: mem,
                    ..Default::default()
                }),
                ..Default::default()
            }],
            ..Default::default()
        }],
        ..Default::default()
    }
}

pub(super) async fn wait<T>(what: &str, mut f: impl FnMut() -> Option<T>) -> T {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        if let Some(v) = f() {
            return v;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "timed out waiting for {what}"
        );
        tokio::time::sleep(Duration::from_millis(5)).await;
    }
}

pub(super) fn live(server: &Server, job: &str) -> Vec<std::sync::Arc<Allocation>> {
    server
        .state()
        .snapshot()
        .allocs_for_job("default", job)
        .into_iter()
        .filter(|a| !a.terminal())
        .collect()
}

fn live_ns(server: &Server, ns: &str, job: &str) -> Vec<std::sync::Arc<Allocation>> {
    server
        .state()
        .snapshot()
        .allocs_for_job(ns, job)
        .into_iter()
        .filter(|a| !a.terminal())
        .collect()
}

pub(super) fn system_job(ns: &str, id: &str) -> Job {
    let mut j = mock_job(id, 1, 50);
    j.r#type = JOB_TYPE_SYSTEM.to_string();
    j.namespace = ns.to_string();
    j.datacenters = Some(vec!["dc1".to_string()]);
    j
}

async fn two_worker_server() -> Server {
    Server::start(ServerConfig {
        num_schedulers: 2,
        ..Default::default()
    })
    .await
    .expect("server")
}

pub(super) fn on_nodes(allocs: &[std::sync::Arc<Allocation>]) -> Vec<String> {
    let mut v: Vec<String> = allocs.iter().map(|a| a.node_id.clone()).collect();
    v.sort();
    v
}

#[tokio::test]
async fn system_job_lands_on_every_node_and_on_a_node_that_joins_later() {
    let server = two_worker_server().await;
    let rpc = server.rpc();
    for id in ["n1", "n2"] {
        rpc.node_register(node(id, 1000, 1000))
            .await
            .expect("register node");
    }
    let mut other_dc = node("far", 1000, 1000);
    other_dc.datacenter = "dc9".to_string();
    rpc.node_register(other_dc).await.expect("register node");

    job::register(
        &server,
        JobRegisterRequest {
            job: Some(system_job("default", "sys")),
            ..Default::default()
        },
    )
    .await
    .expect("register job");
    wait("placed on n1 and n2", || {
        (on_nodes(&live(&server, "sys")) == ["n1", "n2"]).then_some(())
    })
    .await;

    rpc.node_register(node("n3", 1000, 1000))
        .await
        .expect("register late node");
    wait("placed on the late node", || {
        (on_nodes(&live(&server, "sys")) == ["n1", "n2", "n3"]).then_some(())
    })
    .await;
    // Nothing ever lands outside the job's datacenters, and each node has exactly one.
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert_eq!(on_nodes(&live(&server, "sys")), ["n1", "n2", "n3"]);
}

#[tokio::test]
async fn same_system_job_id_in_two_namespaces_both_land_on_a_new_node() {
    let server = two_worker_server().await;
    for ns in ["default", "prod"] {
        job::register(
            &server,
            JobRegisterRequest {
                job: Some(system_job(ns, "agent")),
                ..Default::default()
            },
        )
        .await
        .expect("register job");
    }
    server
        .rpc()
        .node_register(node("n1", 1000, 1000))
        .await
        .expect("register node");
    wait("both namespaces placed", || {
        let a = live_ns(&server, "default", "agent").len();
        let b = live_ns(&server, "prod", "agent").len();
        (a == 1 && b == 1).then_some(())
    })
    .await;
}

#[tokio::test]
async fn a_node_moved_to_another_pool_loses_the_system_job_of_its_old_pool() {
    let server = server_running_sys(&["n1", "n2"]).await;
    let rpc = server.rpc();
    let mut moved = node("n2", 1000, 1000);
    moved.node_pool = "batch-pool".to_string();
    rpc.node_register(moved).await.expect("re-register node");
    wait("the alloc on the moved node stopped", || {
        (on_nodes(&live(&server, "sys")) == ["n1"]).then_some(())
    })
    .await;
}

/// A system job whose rollout the operator judges (`health_check = "manual"`), one node at a
/// time; `version` goes into the task's env, so each new one is a destructive change.
fn rolling_system_job(version: &str) -> Job {
    let mut j = system_job("default", "roll");
    let tg = &mut j.task_groups[0];
    tg.update = Some(UpdateStrategy {
        max_parallel: 1,
        health_check: "manual".to_string(),
        stagger: 30 * SECOND,
        healthy_deadline: 300 * SECOND,
        ..Default::default()
    });
    tg.tasks[0].env = Some(BTreeMap::from([("V".to_string(), version.to_string())]));
    j
}

async fn register(server: &Server, job: Job) {
    job::register(
        server,
        JobRegisterRequest {
            job: Some(job),
            ..Default::default()
        },
    )
    .await
    .expect("register job");
}

/// The job's latest deployment once it is of `version` and `pred` holds, with every eval of
/// the job finished (so nothing else is about to move).
async fn settled_deployment(
    server: &Server,
    version: u64,
    what: &str,
    pred: impl Fn(&Deployment) -> bool,
) -> Deployment {
    wait(what, || {
        let snap = server.state().snapshot();
        let d = snap.latest_deployment("default", "roll")?;
        let idle = snap
            .evals_for_job("default", "roll")
            .iter()
            .all(|e| e.status != EVAL_STATUS_PENDING);
        (idle && d.job_version == version && pred(&d)).then(|| (*d).clone())
    })
    .await
}

fn at_version(server: &Server, version: u64) -> Vec<std::sync::Arc<Allocation>> {
    live(server, "roll")
        .into_iter()
        .filter(|a| a.job.as_ref().is_some_and(|j| j.version == version))
        .collect()
}

async fn mark_healthy(server: &Server, d: &Deployment, allocs: &[std::sync::Arc<Allocation>]) {
    let ids = allocs.iter().map(|a| a.id.clone()).collect();
    super::endpoints::deployment::set_alloc_health(
        server,
        &d.id,
        ids,
        Vec::new(),
        DESC_FAILED_ALLOCATIONS,
    )
    .await
    .expect("set alloc health");
}

#[tokio::test]
async fn system_update_rolls_one_node_per_healthy_batch_then_succeeds_and_stop_cancels() {
    let server = two_worker_server().await;
    let rpc = server.rpc();
    for id in ["n1", "n2", "n3"] {
        rpc.node_register(node(id, 1000, 1000))
            .await
            .expect("register node");
    }
    register(&server, rolling_system_job("0")).await;
    let d0 = settled_deployment(&server, 0, "first deployment placed", |d| {
        d.task_groups["g"].placed_allocs == 3
    })
    .await;
    assert_eq!(d0.task_groups["g"].desired_total, 3);
    mark_healthy(&server, &d0, &live(&server, "roll")).await;
    settled_deployment(&server, 0, "first deployment successful", |d| {
        d.status == DEPLOYMENT_STATUS_SUCCESSFUL
    })
    .await;

    register(&server, rolling_system_job("1")).await;
    for batch in 1..=3usize {
        let d = settled_deployment(&server, 1, "a batch placed", |d| {
            d.task_groups["g"].placed_allocs == batch as i64
        })
        .await;
        assert_eq!(d.status, DEPLOYMENT_STATUS_RUNNING);
        assert_eq!(d.task_groups["g"].desired_total, 3);
        let new = at_version(&server, 1);
        assert_eq!(new.len(), batch, "one node per healthy batch");
        assert_eq!(at_version(&server, 0).len(), 3 - batch);
        assert!(new.iter().all(|a| a.deployment_id == d.id));
        let unjudged: Vec<_> = new
            .into_iter()
            .filter(|a| a.deployment_healthy().is_none())
            .collect();
        mark_healthy(&server, &d, &unjudged).await;
    }
    let d1 = settled_deployment(&server, 1, "second deployment successful", |d| {
        d.status == DEPLOYMENT_STATUS_SUCCESSFUL
    })
    .await;
    assert_eq!(d1.status_description, DESC_SUCCESSFUL);
    assert_eq!(d1.task_groups["g"].healthy_allocs, 3);

    // A newer version's deployment is cancelled when the job stops mid-rollout.
    register(&server, rolling_system_job("2")).await;
    let d2 = settled_deployment(&server, 2, "third deployment running", |d| {
        d.task_groups["g"].placed_allocs == 1
    })
    .await;
    let mut stopped = rolling_system_job("2");
    stopped.stop = true;
    register(&server, stopped).await;
    let cancelled = wait("deployment cancelled", || {
        let d = server.state().snapshot().deployment_by_id(&d2.id)?;
        (d.status == DEPLOYMENT_STATUS_CANCELLED).then_some(d)
    })
    .await;
    assert_eq!(cancelled.status_description, DESC_STOPPED_JOB);
    wait("every alloc stopped", || {
        live(&server, "roll").is_empty().then_some(())
    })
    .await;
}

/// A two-worker server with `nodes` registered and the system job "sys" running on them.
async fn server_running_sys(nodes: &[&str]) -> Server {
    let server = two_worker_server().await;
    let rpc = server.rpc();
    for id in nodes {
        rpc.node_register(node(id, 1000, 1000))
            .await
            .expect("register node");
    }
    job::register(
        &server,
        JobRegisterRequest {
            job: Some(system_job("default", "sys")),
            ..Default::default()
        },
    )
    .await
    .expect("register job");
    wait("placed on every node", || {
        (on_nodes(&live(&server, "sys")) == nodes).then_some(())
    })
    .await;
    server
}

/// A failed system alloc is not replaced in a loop: system jobs have no reschedule policy, so
/// the failure creates no retry eval (Nomad's `RescheduleEligible` is false without one); the
/// node gets the job again when the job or the node changes.
#[tokio::test]
async fn a_failed_system_alloc_gets_no_retry_eval() {
    let server = server_running_sys(&["n1"]).await;
    let rpc = server.rpc();
    let placed = wait("placed on n1", || live(&server, "sys").into_iter().next()).await;
    let evals_before = server
        .state()
        .snapshot()
        .evals_for_job("default", "sys")
        .len();
    let mut failed = (*placed).clone();
    failed.client_status = ALLOC_CLIENT_FAILED.to_string();
    rpc.node_update_alloc("n1", vec![failed])
        .await
        .expect("update alloc");
    wait("the alloc is failed", || {
        let snap = server.state().snapshot();
        (snap.alloc_by_id(&placed.id)?.client_status == ALLOC_CLIENT_FAILED).then_some(())
    })
    .await;
    // A retry eval would have been written with the alloc update itself, so the state that
    // shows the failure shows any eval it caused; without one no scheduler pass runs.
    let snap = server.state().snapshot();
    assert_eq!(snap.evals_for_job("default", "sys").len(), evals_before);
    assert!(live(&server, "sys").is_empty(), "no replacement alloc");
}
