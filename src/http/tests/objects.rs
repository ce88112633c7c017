use std::sync::Arc;
use std::time::Duration;

use axum::http::StatusCode;

use super::*;
use crate::api::{AllocatedResources, Allocation, Node, TaskState};
use crate::server::endpoints::node as node_ep;
use crate::server::fsm::Command;

const NODE_ID: &str = "83eb3a53-2847-f536-325e-66e629dc2e62";
const SECRET: &str = "5c1e7c4e-0000-4000-8000-00000000abcd";

async fn add_node(server: &Server) {
    let node = Node {
        id: NODE_ID.into(),
        secret_id: SECRET.into(),
        name: "vm".into(),
        datacenter: "dc1".into(),
        status: "ready".into(),
        ..Default::default()
    };
    node_ep::register(server, node)
        .await
        .expect("node registers");
}

/// Place one alloc of `job_id` on the node directly through the FSM (the shim scheduler of
/// this branch places nothing).
async fn place_alloc(server: &Server, job_id: &str, alloc_id: &str) -> u64 {
    let snap = server.state().snapshot();
    let job = snap.job_by_id("default", job_id).expect("job exists");
    let eval_id = snap.evals_for_job("default", job_id)[0].id.clone();
    let alloc = Allocation {
        id: alloc_id.into(),
        namespace: "default".into(),
        eval_id,
        name: format!("{job_id}.web[0]"),
        node_id: NODE_ID.into(),
        node_name: "vm".into(),
        job_id: job_id.into(),
        job: Some(job.clone()),
        task_group: "web".into(),
        desired_status: "run".into(),
        client_status: "pending".into(),
        task_states: Some([("server".to_string(), TaskState::default())].into()),
        allocated_resources: Some(AllocatedResources::default()),
        ..Default::default()
    };
    server
        .propose(Command::ApplyPlan {
            job: Some(Arc::clone(&job)),
            stopped: vec![],
            placed: vec![Arc::new(alloc)],
            evals: vec![],
            time: 1,
            deployment: None,
            deployment_updates: Vec::new(),
        })
        .await
        .expect("plan applies")
        .index
}

#[tokio::test]
async fn node_secret_id_is_blanked_everywhere() {
    let server = start_server().await;
    let app = app(Some(server.clone()), None);
    add_node(&server).await;

    let r = get(&app, &format!("/v1/node/{NODE_ID}")).await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.json()["SecretID"], "");
    assert_eq!(r.json()["ID"], NODE_ID);
    for uri in [
        format!("/v1/node/{NODE_ID}"),
        "/v1/nodes".to_string(),
        "/v1/nodes?resources=true".to_string(),
        format!("/v1/node/{NODE_ID}/allocations"),
    ] {
        let r = get(&app, &uri).await;
        assert_eq!(r.status, StatusCode::OK, "{uri}");
        assert!(!r.text().contains(SECRET), "{uri} leaks the secret");
    }
    // The state store keeps it: the client needs it for its RPCs.
    let stored = server.state().snapshot().node_by_id(NODE_ID).expect("node");
    assert_eq!(stored.secret_id, SECRET);
    server.shutdown().await;
}

#[tokio::test]
async fn nodes_list_prefix_and_resources() {
    let server = start_server().await;
    let app = app(Some(server.clone()), None);
    add_node(&server).await;
    let l = get(&app, "/v1/nodes").await.json();
    assert_eq!(l[0]["ID"], NODE_ID);
    assert!(l[0].get("NodeResources").is_none());
    let r = get(&app, "/v1/nodes?resources=true").await.json();
    assert!(r[0]["NodeResources"].is_object());
    assert!(r[0]["ReservedResources"].is_object());
    assert_eq!(
        get(&app, "/v1/nodes?prefix=83eb").await.json()[0]["ID"],
        NODE_ID
    );
    assert_eq!(get(&app, "/v1/nodes?prefix=ffff").await.text(), "[]");
    let nf = get(&app, "/v1/node/nope").await;
    assert_eq!(
        (nf.status, nf.text()),
        (StatusCode::NOT_FOUND, "node not found".into())
    );
    server.shutdown().await;
}

#[tokio::test]
async fn allocations_list_get_and_options() {
    let server = start_server().await;
    let app = app(Some(server.clone()), None);
    add_node(&server).await;
    register(&app, "example").await;
    let alloc_id = "0dfb874c-22c5-84f4-be02-3dc0b95cc830";
    place_alloc(&server, "example", alloc_id).await;

    let l = get(&app, "/v1/allocations").await.json();
    assert_eq!(l[0]["ID"], alloc_id);
    assert_eq!(l[0]["JobType"], "service");
    assert!(l[0]["TaskStates"].is_object());
    assert!(l[0].get("AllocatedResources").is_none());
    let nt = get(&app, "/v1/allocations?task_states=false").await.json();
    assert_eq!(nt[0]["TaskStates"], serde_json::Value::Null);
    let res = get(&app, "/v1/allocations?resources=true").await.json();
    assert!(res[0].get("AllocatedResources").is_some());
    assert_eq!(
        get(&app, "/v1/allocations?prefix=0dfb").await.json()[0]["ID"],
        alloc_id
    );
    assert_eq!(get(&app, "/v1/allocations?prefix=aaaa").await.text(), "[]");
    assert_eq!(
        get(&app, "/v1/allocations?namespace=prod").await.text(),
        "[]"
    );

    let a = get(&app, &format!("/v1/allocation/{alloc_id}")).await;
    assert_eq!(a.status, StatusCode::OK);
    assert_eq!(a.json()["Job"]["ID"], "example");
    let nf = get(&app, "/v1/allocation/nope").await;
    assert_eq!(
        (nf.status, nf.text()),
        (StatusCode::NOT_FOUND, "alloc not found".into())
    );

    let by_job = get(&app, "/v1/job/example/allocations").await.json();
    assert_eq!(by_job[0]["ID"], alloc_id);
    let by_node = get(&app, &format!("/v1/node/{NODE_ID}/allocations"))
        .await
        .json();
    // Full allocations, not stubs.
    assert_eq!(by_node[0]["Job"]["ID"], "example");
    server.shutdown().await;
}

#[tokio::test]
async fn blocking_alloc_query_wakes_on_placement() {
    let server = start_server().await;
    let app = app(Some(server.clone()), None);
    add_node(&server).await;
    register(&app, "example").await;
    let r = get(&app, "/v1/job/example/allocations").await;
    let index = r.header("x-nomad-index").expect("index").to_string();
    let uri = format!("/v1/job/example/allocations?index={index}&wait=20s");
    let (blocked, placed_at) = tokio::join!(get(&app, &uri), async {
        tokio::time::sleep(Duration::from_millis(100)).await;
        place_alloc(&server, "example", "11111111-2222-3333-4444-555555555555").await
    });
    assert_eq!(
        blocked.json()[0]["ID"],
        "11111111-2222-3333-4444-555555555555"
    );
    assert_eq!(
        blocked.header("x-nomad-index"),
        Some(placed_at.to_string().as_str())
    );
    server.shutdown().await;
}

/// GET `uri` until `pred` holds on its JSON (the scheduler works in the background).
async fn wait_json(
    app: &axum::Router,
    uri: &str,
    pred: impl Fn(&serde_json::Value) -> bool,
) -> serde_json::Value {
    let deadline = tokio::time::Instant::now() + Duration::from_secs(10);
    loop {
        let v = get(app, uri).await.json();
        if pred(&v) {
            return v;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "timed out waiting on {uri}: {v}"
        );
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

#[tokio::test]
async fn evaluations_list_filters_and_get() {
    let server = start_server().await;
    let app = app(Some(server.clone()), None);
    let reg = register(&app, "example").await.json();
    register(&app, "other").await;
    let eval_id = reg["EvalID"].as_str().expect("eval id").to_string();

    // No nodes: each register eval completes and leaves one blocked eval behind.
    let blocked = |v: &serde_json::Value| {
        v.as_array()
            .map(|a| a.iter().filter(|e| e["Status"] == "blocked").count())
            .unwrap_or(0)
    };
    let all = wait_json(&app, "/v1/evaluations", |v| blocked(v) == 2).await;
    assert_eq!(all.as_array().map(Vec::len), Some(4));
    let mine = get(&app, "/v1/evaluations?job=example").await.json();
    assert_eq!(mine.as_array().map(Vec::len), Some(2));
    assert!(mine
        .as_array()
        .expect("evals")
        .iter()
        .any(|e| e["ID"] == eval_id.as_str()));
    assert_eq!(get(&app, "/v1/evaluations?status=bogus").await.text(), "[]");
    let p = &eval_id[..4];
    assert!(get(&app, &format!("/v1/evaluations?prefix={p}"))
        .await
        .json()[0]["ID"]
        .is_string());

    let e = get(&app, &format!("/v1/evaluation/{eval_id}")).await;
    assert_eq!(e.status, StatusCode::OK);
    assert_eq!(e.json()["JobID"], "example");
    assert_eq!(
        get(&app, &format!("/v1/evaluation/{eval_id}/allocations"))
            .await
            .text(),
        "[]"
    );
    let nf = get(&app, "/v1/evaluation/nope").await;
    assert_eq!(
        (nf.status, nf.text()),
        (StatusCode::NOT_FOUND, "eval not found".into())
    );
    server.shutdown().await;
}

#[tokio::test]
async fn an_eval_lists_its_related_evals_only_when_asked() {
    let server = start_server().await;
    let app = app(Some(server.clone()), None);
    let reg = register(&app, "example").await.json();
    let eval_id = reg["EvalID"].as_str().expect("eval id").to_string();

    // No nodes: the register eval completes and links the blocked eval it left behind.
    let uri = format!("/v1/evaluation/{eval_id}");
    let done = wait_json(&app, &uri, |v| v["BlockedEval"].is_string()).await;
    let blocked_id = done["BlockedEval"].as_str().unwrap_or_default();
    assert!(done.get("RelatedEvals").is_none(), "{done}");

    let related = get(&app, &format!("{uri}?related=true")).await.json();
    let stubs = related["RelatedEvals"].as_array().expect("RelatedEvals");
    assert_eq!(stubs.len(), 1, "{related}");
    let stub = &stubs[0];
    assert_eq!(stub["ID"], blocked_id);
    assert_eq!(stub["PreviousEval"], eval_id.as_str());
    assert_eq!(stub["Status"], "blocked");
    // A stub keeps its empty keys, unlike the eval itself.
    assert_eq!(stub["NextEval"], "");
    assert_eq!(stub["WaitUntil"], "0001-01-01T00:00:00Z");

    // From the blocked eval the walk leads back to the register eval.
    let back = get(&app, &format!("/v1/evaluation/{blocked_id}?related=true"))
        .await
        .json();
    assert_eq!(back["RelatedEvals"][0]["ID"], eval_id.as_str());
    // Only the exact value `true` asks for them, as Nomad parses it.
    let other = get(&app, &format!("{uri}?related=1")).await.json();
    assert!(other.get("RelatedEvals").is_none(), "{other}");
    server.shutdown().await;
}
