//! The plan applier through a real server: pipelined plans never over-commit a node, and a
//! plan that commits in full carries its eval's outcome in the same raft entry.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::fsm::Command;
use super::tests::{mock_job, node};
use super::{Server, ServerConfig};
use crate::api::*;

/// A server with one node and one job; no evals exist, so the test is the only one
/// submitting plans.
async fn server_with_node(cpu: i64, mem: i64) -> (Server, Arc<Job>) {
    let server = Server::start(ServerConfig::default())
        .await
        .expect("server");
    server
        .rpc()
        .node_register(node("n1", cpu, mem))
        .await
        .expect("register node");
    let job = Job {
        namespace: "default".into(),
        ..mock_job("web", 1, 100)
    };
    server
        .propose(Command::JobRegister {
            job: job.clone(),
            eval: None,
            submit_time: now_nanos(),
        })
        .await
        .expect("register job");
    let stored = server
        .state()
        .snapshot()
        .job_by_id("default", "web")
        .expect("job stored");
    (server, stored)
}

fn alloc(i: usize, job: &Arc<Job>, mem: i64) -> Allocation {
    Allocation {
        id: format!("alloc-{i:03}"),
        namespace: "default".into(),
        job_id: job.id.clone(),
        task_group: "g".into(),
        name: format!("web.g[{i}]"),
        node_id: "n1".into(),
        desired_status: ALLOC_DESIRED_RUN.into(),
        client_status: ALLOC_CLIENT_PENDING.into(),
        allocated_resources: Some(AllocatedResources {
            tasks: BTreeMap::from([(
                "t".to_string(),
                AllocatedTaskResources {
                    cpu: AllocatedCpuResources {
                        cpu_shares: 100,
                        ..Default::default()
                    },
                    memory: AllocatedMemoryResources {
                        memory_mb: mem,
                        ..Default::default()
                    },
                    ..Default::default()
                },
            )]),
            ..Default::default()
        }),
        ..Default::default()
    }
}

fn plan(job: &Arc<Job>, allocs: Vec<Allocation>) -> Plan {
    Plan {
        job: Some(job.clone()),
        node_allocation: BTreeMap::from([("n1".to_string(), allocs)]),
        ..Default::default()
    }
}

fn complete_eval(id: &str) -> Evaluation {
    Evaluation {
        id: id.into(),
        namespace: "default".into(),
        job_id: "web".into(),
        status: EVAL_STATUS_COMPLETE.into(),
        ..Default::default()
    }
}

#[tokio::test]
async fn concurrent_plans_fill_a_node_exactly_and_never_beyond() {
    // Room for 10 allocs of 100 MB; 30 one-alloc plans arrive at once.
    let (server, job) = server_with_node(100_000, 1000).await;
    let submits = (0..30).map(|i| {
        let server = server.clone();
        let p = plan(&job, vec![alloc(i, &job, 100)]);
        async move { server.plans().submit(p, vec![]).await }
    });
    let results = futures::future::join_all(submits).await;
    let committed: usize = results
        .iter()
        .map(|r| {
            let c = r.as_ref().expect("plan applied");
            c.placed
        })
        .sum();
    let rejected = results
        .iter()
        .filter(|r| {
            r.as_ref()
                .is_ok_and(|c| !c.result.rejected_nodes.is_empty())
        })
        .count();
    assert_eq!(committed, 10, "placements committed");
    assert_eq!(rejected, 20, "plans refused");
    let live = server
        .state()
        .snapshot()
        .allocs_for_node("n1")
        .iter()
        .filter(|a| !a.terminal())
        .count();
    assert_eq!(live, 10, "allocs in the state");
    server.shutdown().await;
}

#[tokio::test]
async fn full_commit_writes_the_evals_in_the_plan_entry_and_partial_writes_none() {
    let (server, job) = server_with_node(100_000, 1000).await;

    let c = server
        .plans()
        .submit(
            plan(&job, vec![alloc(0, &job, 400)]),
            vec![complete_eval("e1")],
        )
        .await
        .expect("plan applied");
    assert!(c.evals_written);
    let snap = server.state().snapshot();
    let e1 = snap.eval_by_id("e1").expect("eval written with the plan");
    assert_eq!(e1.modify_index, c.result.alloc_index, "same raft entry");
    assert_eq!(
        snap.alloc_by_id("alloc-000").map(|a| a.modify_index),
        Some(c.result.alloc_index)
    );

    // 400 + 2 x 400 > 1000: the node is refused, the eval is not written.
    let c = server
        .plans()
        .submit(
            plan(&job, vec![alloc(1, &job, 400), alloc(2, &job, 400)]),
            vec![complete_eval("e2")],
        )
        .await
        .expect("plan applied");
    assert!(!c.evals_written);
    assert_eq!(c.result.rejected_nodes, vec!["n1".to_string()]);
    let snap = server.state().snapshot();
    assert!(snap.eval_by_id("e2").is_none());
    assert!(snap.alloc_by_id("alloc-001").is_none());
    server.shutdown().await;
}
