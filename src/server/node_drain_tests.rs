//! Eligibility and drains through the real server (raft, broker, workers, drainer), without
//! a client: a node made eligible again gets its system jobs, and a forced drain that ignores
//! system jobs moves the service alloc and leaves the system one.

use super::endpoints::{job, node_drain};
use super::system_tests::{live, mock_job, node, on_nodes, system_job, wait};
use super::{Server, ServerConfig};
use crate::api::*;

async fn server() -> Server {
    Server::start(ServerConfig {
        num_schedulers: 2,
        ..Default::default()
    })
    .await
    .expect("server")
}

async fn register(server: &Server, j: Job) {
    let req = JobRegisterRequest {
        job: Some(j),
        ..Default::default()
    };
    job::register(server, req).await.expect("register job");
}

#[tokio::test]
async fn a_node_made_eligible_gets_its_system_jobs() {
    let server = server().await;
    server
        .rpc()
        .node_register(node("n1", 1000, 1000))
        .await
        .expect("register node");
    node_drain::update_eligibility(&server, "n1", NODE_INELIGIBLE)
        .await
        .expect("ineligible");
    register(&server, system_job("default", "sys")).await;
    wait("system eval done", || {
        let snap = server.state().snapshot();
        let evals = snap.evals_for_job("default", "sys");
        evals
            .iter()
            .all(|e| e.status == EVAL_STATUS_COMPLETE)
            .then_some(())
    })
    .await;
    assert!(
        live(&server, "sys").is_empty(),
        "ineligible: nothing placed"
    );

    let out = node_drain::update_eligibility(&server, "n1", NODE_ELIGIBLE)
        .await
        .expect("eligible");
    assert_eq!(out.eval_ids.map(|v| v.len()), Some(1));
    wait("placed once eligible", || {
        (on_nodes(&live(&server, "sys")) == ["n1"]).then_some(())
    })
    .await;
    let err = node_drain::update_eligibility(&server, "n1", "maybe").await;
    assert!(err.is_err());
}

#[tokio::test]
async fn forced_drain_ignoring_system_jobs_moves_only_the_service_alloc() {
    let server = server().await;
    for id in ["n1", "n2"] {
        server
            .rpc()
            .node_register(node(id, 1000, 1000))
            .await
            .expect("register node");
    }
    register(&server, system_job("default", "sys")).await;
    let mut web = mock_job("web", 1, 50);
    web.datacenters = Some(vec!["dc1".to_string()]);
    register(&server, web).await;
    wait("system on both nodes", || {
        (on_nodes(&live(&server, "sys")) == ["n1", "n2"]).then_some(())
    })
    .await;
    let first = wait("web placed", || live(&server, "web").first().cloned()).await;
    let (drained, other) = if first.node_id == "n1" {
        ("n1", "n2")
    } else {
        ("n2", "n1")
    };

    let spec = DrainSpec {
        deadline: -SECOND,
        ignore_system_jobs: true,
    };
    node_drain::update_drain(&server, drained, Some(spec), true, Default::default())
        .await
        .expect("drain");
    wait("web moved to the other node", || {
        let l = live(&server, "web");
        (l.len() == 1 && l[0].node_id == other).then_some(())
    })
    .await;
    let n = wait("drain complete", || {
        let n = server.state().snapshot().node_by_id(drained)?;
        n.drain_strategy.is_none().then_some(n)
    })
    .await;
    assert_eq!(n.scheduling_eligibility, NODE_INELIGIBLE);
    let last = n.last_drain.clone().expect("last drain");
    assert_eq!(last.status, DRAIN_STATUS_COMPLETE);
    assert_eq!(
        on_nodes(&live(&server, "sys")),
        ["n1", "n2"],
        "-ignore-system keeps the system alloc"
    );
}
