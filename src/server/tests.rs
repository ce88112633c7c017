//! The server end to end in one process: real raft (in memory), state store, broker, workers
//! and plan applier, driven through its endpoints and the client RPC seam.

use std::collections::BTreeMap;
use std::time::Duration;

use super::endpoints::job;
use super::state::Table;
use super::{Command, Server, ServerConfig};
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

async fn wait<T>(what: &str, mut f: impl FnMut() -> Option<T>) -> T {
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

fn live(server: &Server, job: &str) -> Vec<std::sync::Arc<Allocation>> {
    server
        .state()
        .snapshot()
        .allocs_for_job("default", job)
        .into_iter()
        .filter(|a| !a.terminal())
        .collect()
}

#[tokio::test]
async fn register_places_then_stop_stops_and_capacity_unblocks() {
    let server = Server::start(ServerConfig {
        num_schedulers: 2,
        ..Default::default()
    })
    .await
    .expect("server");
    let rpc = server.rpc();
    rpc.node_register(node("n1", 1000, 1000))
        .await
        .expect("register node");

    let resp = job::register(
        &server,
        JobRegisterRequest {
            job: Some(mock_job("web", 3, 100)),
            ..Default::default()
        },
    )
    .await
    .expect("register job");
    assert!(!resp.eval_id.is_empty());
    assert_eq!(resp.job_modify_index, resp.index);
    wait("3 placed", || {
        (live(&server, "web").len() == 3).then_some(())
    })
    .await;
    let eval = wait("eval complete", || {
        server
            .state()
            .snapshot()
            .eval_by_id(&resp.eval_id)
            .filter(|e| e.status == EVAL_STATUS_COMPLETE)
    })
    .await;
    assert_eq!(
        eval.queued_allocations
            .as_ref()
            .and_then(|q| q.get("g"))
            .copied(),
        Some(0)
    );

    // The client sees its allocs through the blocking query.
    let got = rpc
        .node_get_client_allocs("n1", 0, Duration::from_secs(1))
        .await
        .expect("client allocs");
    assert_eq!(got.allocs.len(), 3);
    let again = tokio::time::timeout(
        Duration::from_millis(300),
        rpc.node_get_client_allocs("n1", got.index, Duration::from_millis(100)),
    )
    .await
    .expect("blocking query honours its timeout")
    .expect("allocs");
    assert_eq!(again.index, got.index);

    // Too big for the node: blocked, with the exhausted dimension named.
    let big = job::register(
        &server,
        JobRegisterRequest {
            job: Some(mock_job("big", 1, 900)),
            ..Default::default()
        },
    )
    .await
    .expect("register big");
    let failed = wait("placement failure", || {
        server
            .state()
            .snapshot()
            .eval_by_id(&big.eval_id)
            .filter(|e| e.terminal() && e.failed_tg_allocs.is_some())
    })
    .await;
    let metric = &failed.failed_tg_allocs.as_ref().expect("failed")["g"];
    assert_eq!(
        metric
            .dimension_exhausted
            .as_ref()
            .and_then(|d| d.get("memory"))
            .copied(),
        Some(1)
    );
    assert!(!failed.blocked_eval.is_empty());

    // Stopping "web" frees memory: its allocs finish on the client, and the blocked eval fits.
    job::deregister(&server, "default", "web", Default::default())
        .await
        .expect("stop web");
    wait("web stopped", || {
        live(&server, "web").is_empty().then_some(())
    })
    .await;
    let done: Vec<Allocation> = server
        .state()
        .snapshot()
        .allocs_for_job("default", "web")
        .iter()
        .map(|a| Allocation {
            id: a.id.clone(),
            client_status: ALLOC_CLIENT_COMPLETE.into(),
            ..Default::default()
        })
        .collect();
    rpc.node_update_alloc("n1", done)
        .await
        .expect("client update");
    wait("big placed after capacity freed", || {
        (live(&server, "big").len() == 1).then_some(())
    })
    .await;
    let snap = server.state().snapshot();
    assert_eq!(
        snap.job_by_id("default", "web").expect("web").status,
        JOB_STATUS_DEAD
    );
    assert!(snap.table_index(Table::Allocs) > 1);
    server.shutdown().await;
}

#[tokio::test]
async fn restart_from_data_dir_restores_state_and_keeps_scheduling() {
    let dir = tempfile::tempdir().expect("tmp");
    let config = ServerConfig {
        data_dir: Some(dir.path().to_path_buf()),
        ..Default::default()
    };
    let server = Server::start(config.clone()).await.expect("server");
    server
        .rpc()
        .node_register(node("n1", 4000, 4000))
        .await
        .expect("node");
    job::register(
        &server,
        JobRegisterRequest {
            job: Some(mock_job("a", 2, 100)),
            ..Default::default()
        },
    )
    .await
    .expect("job");
    wait("placed", || (live(&server, "a").len() == 2).then_some(())).await;
    // Compare with the state as it was when the server stopped: workers may still have been
    // committing eval updates after the placements were seen.
    server.shutdown().await;
    let before = server.state().snapshot();
    drop(server);

    let server = Server::start(config).await.expect("restart");
    let after = server.state().snapshot();
    assert_eq!(after.jobs(None), before.jobs(None));
    assert_eq!(after.allocs(None), before.allocs(None));
    assert_eq!(after.evals(None), before.evals(None));
    assert_eq!(after.nodes_list().len(), 1);
    job::register(
        &server,
        JobRegisterRequest {
            job: Some(mock_job("b", 1, 100)),
            ..Default::default()
        },
    )
    .await
    .expect("job b");
    wait("b placed after restart", || {
        (live(&server, "b").len() == 1).then_some(())
    })
    .await;
    server.shutdown().await;
}

#[tokio::test]
async fn check_index_and_validation_errors() {
    let server = Server::start(ServerConfig::default())
        .await
        .expect("server");
    let bad = JobRegisterRequest {
        job: Some(Job {
            id: "x".into(),
            task_groups: vec![TaskGroup {
                name: "g".into(),
                count: -1,
                ..Default::default()
            }],
            ..Default::default()
        }),
        ..Default::default()
    };
    let err = job::register(&server, bad).await.expect_err("invalid");
    let text = err.to_string();
    assert!(text.contains("Missing tasks for task group"), "{text}");
    assert!(text.contains("count"), "every problem is listed: {text}");
    assert!(
        server.state().snapshot().jobs(None).is_empty(),
        "nothing registered"
    );

    let first = job::register(
        &server,
        JobRegisterRequest {
            job: Some(mock_job("c", 1, 10)),
            enforce_index: true,
            ..Default::default()
        },
    )
    .await
    .expect("create with index 0");
    let conflict = job::register(
        &server,
        JobRegisterRequest {
            job: Some(mock_job("c", 2, 10)),
            enforce_index: true,
            job_modify_index: first.job_modify_index + 100,
            ..Default::default()
        },
    )
    .await
    .expect_err("stale index");
    assert!(
        conflict
            .to_string()
            .contains("conflicting job modify index"),
        "{conflict}"
    );
    // An unchanged job keeps its version and gets only a new eval.
    let same = job::register(
        &server,
        JobRegisterRequest {
            job: Some(mock_job("c", 1, 10)),
            ..Default::default()
        },
    )
    .await
    .expect("same");
    assert_eq!(same.job_modify_index, first.job_modify_index);
    assert_eq!(
        server
            .state()
            .snapshot()
            .job_by_id("default", "c")
            .expect("c")
            .version,
        0
    );
    server.shutdown().await;
}

#[tokio::test]
async fn evals_superseded_in_the_broker_are_canceled_not_left_pending() {
    let server = Server::start(ServerConfig::default())
        .await
        .expect("server");
    server
        .rpc()
        .node_register(node("n1", 1000, 1000))
        .await
        .expect("register node");
    let job = mock_job("web", 1, 100);
    job::register(
        &server,
        JobRegisterRequest {
            job: Some(job.clone()),
            ..Default::default()
        },
    )
    .await
    .expect("register job");
    let pause = |paused: bool| Command::SchedulerSetConfig {
        config: SchedulerConfiguration {
            pause_eval_broker: paused,
            ..Default::default()
        },
        cas: None,
    };
    server.propose(pause(true)).await.expect("pause broker");
    // Three evals of one job wait while the broker is paused; unpaused, one runs and the
    // others are either run after it or superseded, never stranded.
    let evals: Vec<Evaluation> = [(50, "e-1"), (70, "e-2"), (60, "e-3")]
        .into_iter()
        .map(|(priority, id)| Evaluation {
            id: format!("00000000-0000-4000-8000-00000000{}", &id[2..].repeat(4)),
            namespace: "default".into(),
            job_id: "web".into(),
            r#type: "service".into(),
            priority,
            triggered_by: TRIGGER_JOB_REGISTER.into(),
            status: EVAL_STATUS_PENDING.into(),
            ..Default::default()
        })
        .collect();
    let ids: Vec<String> = evals.iter().map(|e| e.id.clone()).collect();
    server
        .propose(Command::EvalUpsert { evals })
        .await
        .expect("evals");
    server.propose(pause(false)).await.expect("unpause broker");
    let done = wait("every eval terminal", || {
        let snap = server.state().snapshot();
        let evals: Vec<_> = ids.iter().filter_map(|id| snap.eval_by_id(id)).collect();
        (evals.len() == 3 && evals.iter().all(|e| e.terminal())).then_some(evals)
    })
    .await;
    for e in done {
        if e.status == EVAL_STATUS_CANCELED {
            assert_eq!(
                e.status_description,
                "canceled after more recent eval was processed"
            );
        } else {
            assert_eq!(e.status, EVAL_STATUS_COMPLETE, "{e:?}");
        }
    }
}
