//! The HTTP API's shapes and mechanics against the real agent.

use std::time::{Duration, Instant};

use crate::harness::*;

#[test]
fn agent_status_endpoints_answer_like_nomad() {
    let agent = Agent::dev();
    let health = agent.get("/v1/agent/health");
    assert_eq!(health["server"]["ok"], true);
    assert_eq!(health["client"]["ok"], true);
    let leader = agent.get("/v1/status/leader");
    assert_eq!(
        leader,
        serde_json::json!(format!("127.0.0.1:{}", agent.rpc_port))
    );
    assert_eq!(
        agent.get("/v1/status/peers"),
        serde_json::json!([format!("127.0.0.1:{}", agent.rpc_port)])
    );
    assert_eq!(agent.get("/v1/regions"), serde_json::json!(["global"]));
    let me = agent.get("/v1/agent/self");
    assert_eq!(me["config"]["Region"], "global");
    assert_eq!(me["config"]["Datacenter"], "dc1");
    let info = agent.nomad(&["agent-info"]);
    assert_exit(&info, 0);
    let text = stdout(&info);
    assert!(text.contains("nomad\n  bootstrap = true\n"), "{text}");
    assert!(text.contains("\n  leader = true\n"), "{text}");
    let members = agent.get("/v1/agent/members");
    assert_eq!(members["Members"].as_array().map(Vec::len), Some(1));
    let nodes = agent.get("/v1/nodes");
    let node = &nodes[0];
    assert_eq!(node["Datacenter"], "dc1");
    assert_eq!(node["NodePool"], "default");
    assert_eq!(node["Drivers"]["raw_exec"]["Healthy"], true);
    let full = agent.get(&format!(
        "/v1/node/{}",
        node["ID"].as_str().expect("node ID")
    ));
    assert_eq!(full["SecretID"], "", "secrets never leave the server");
    for attr in [
        "cpu.numcores",
        "memory.totalbytes",
        "kernel.name",
        "os.name",
        "cpu.arch",
        "unique.hostname",
        "driver.raw_exec",
    ] {
        assert!(
            full["Attributes"][attr].is_string(),
            "attribute {attr} fingerprinted"
        );
    }
}

#[test]
fn blocking_query_waits_for_a_change_and_times_out() {
    let agent = Agent::dev();
    let (code, _) = http_get(&format!("{}/v1/jobs", agent.addr())).expect("GET");
    assert_eq!(code, 200);
    // Nothing changes: the query returns after `wait` (plus Nomad's jitter of wait/16).
    let start = Instant::now();
    let (code, _) = http_get(&format!(
        "{}/v1/jobs?index=1000000&wait=300ms",
        agent.addr()
    ))
    .expect("GET");
    assert_eq!(code, 200);
    let waited = start.elapsed();
    assert!(
        waited >= Duration::from_millis(300),
        "returned early after {waited:?}"
    );
}
