//! Plan annotations over HTTP: on the evals a worker finished, and on a job plan, in the shape
//! of the recorded Nomad 2.0 responses.

use axum::http::StatusCode;
use serde_json::{json, Value};

use super::*;
use crate::server::endpoints::node as node_ep;

const NODE_ID: &str = "5b0c6c3e-31d5-4a8e-9a53-0d6c1e0f4a11";

/// The keys of one group's `DesiredUpdates` in the recorded GET /v1/evaluation/:id.
const DESIRED_UPDATES_KEYS: [&str; 12] = [
    "Canary",
    "DestructiveUpdate",
    "Disconnect",
    "Ignore",
    "InPlaceUpdate",
    "Migrate",
    "Place",
    "Preemptions",
    "Reconnect",
    "RescheduleLater",
    "RescheduleNow",
    "Stop",
];

fn keys(v: &Value) -> Vec<&str> {
    v.as_object()
        .map(|o| o.keys().map(String::as_str).collect())
        .unwrap_or_default()
}

/// A ready node with 4000 MHz and 8 GB that runs raw_exec.
async fn add_node(server: &Server) {
    let mut node = crate::scheduler::testing::node(NODE_ID);
    node.secret_id = "5c1e7c4e-0000-4000-8000-00000000beef".into();
    node_ep::register(server, node)
        .await
        .expect("node registers");
}

/// `job_body(id)` of `type`, `priority`, asking `cpu` MHz and `mem` MB.
fn sized_job(id: &str, r#type: &str, priority: i64, cpu: i64, mem: i64) -> Value {
    let mut body: Value = serde_json::from_str(&job_body(id)).expect("job body");
    let job = &mut body["Job"];
    job["Type"] = json!(r#type);
    job["Priority"] = json!(priority);
    job["TaskGroups"][0]["Tasks"][0]["Resources"] = json!({"CPU": cpu, "MemoryMB": mem});
    body
}

#[tokio::test]
async fn a_finished_eval_carries_plan_annotations_as_nomad_records_them() {
    let server = start_server().await;
    let app = app(Some(server.clone()), None);
    add_node(&server).await;
    let r = register(&app, "example").await;
    let eval_id = r.json()["EvalID"].as_str().unwrap_or_default().to_string();

    let eval = get(&app, &format!("/v1/evaluation/{eval_id}")).await;
    assert_eq!(eval.status, StatusCode::OK);
    let eval = eval.json();
    let annotations = &eval["PlanAnnotations"];
    assert_eq!(
        keys(annotations),
        ["DesiredTGUpdates", "PreemptedAllocs"],
        "{eval}"
    );
    assert_eq!(annotations["PreemptedAllocs"], Value::Null);
    let web = &annotations["DesiredTGUpdates"]["web"];
    assert_eq!(keys(web), DESIRED_UPDATES_KEYS, "{web}");
    assert_eq!(web["Place"], 1);
    assert_eq!(web["Ignore"], 0);

    // The eval lists carry them too, as Nomad's do.
    let listed = get(&app, "/v1/evaluations").await.json();
    let ours = listed
        .as_array()
        .and_then(|l| l.iter().find(|e| e["ID"] == eval_id.as_str()))
        .expect("eval listed");
    assert_eq!(&ours["PlanAnnotations"], annotations);
    server.shutdown().await;
}

#[tokio::test]
async fn a_job_plan_that_preempts_lists_what_it_would_evict() {
    let server = start_server().await;
    let app = app(Some(server.clone()), None);
    add_node(&server).await;
    // A low-priority job fills the node.
    let low = sized_job("low", "service", 20, 3800, 1000);
    register_body(&app, "low", &low.to_string()).await;
    let allocs = get(&app, "/v1/job/low/allocations").await.json();
    let victim = allocs[0]["ID"].as_str().expect("low is placed").to_string();

    // A system job of priority 90 fits only by evicting it.
    let mut body = sized_job("sys", "system", 90, 3800, 1000);
    body["Diff"] = json!(true);
    let r = call(&app, "POST", "/v1/job/sys/plan", &body.to_string()).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text());
    let plan = r.json();
    let annotations = &plan["Annotations"];
    assert_eq!(annotations["DesiredTGUpdates"]["web"]["Place"], 1, "{plan}");
    assert_eq!(annotations["DesiredTGUpdates"]["web"]["Preemptions"], 1);
    let preempted = annotations["PreemptedAllocs"].as_array().expect("listed");
    assert_eq!(preempted.len(), 1, "{annotations}");
    assert_eq!(preempted[0]["ID"], victim.as_str());
    assert_eq!(preempted[0]["JobID"], "low");
    assert_eq!(preempted[0]["NodeID"], NODE_ID);
    assert_eq!(plan["Diff"]["TaskGroups"][0]["Updates"]["create"], 1);

    // A plan changes nothing: the victim still runs.
    let alloc = get(&app, &format!("/v1/allocation/{victim}")).await.json();
    assert_eq!(alloc["DesiredStatus"], "run");
    server.shutdown().await;
}
