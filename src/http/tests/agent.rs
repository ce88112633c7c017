use axum::http::StatusCode;

use super::*;

#[tokio::test]
async fn status_and_regions() {
    let server = start_server().await;
    let app = app(Some(server.clone()), None);
    let l = get(&app, "/v1/status/leader").await;
    assert_eq!(l.status, StatusCode::OK);
    assert_eq!(l.text(), "\"127.0.0.1:4647\"");
    assert_eq!(l.header("x-nomad-index"), None);
    assert_eq!(
        get(&app, "/v1/status/peers").await.text(),
        "[\"127.0.0.1:4647\"]"
    );
    assert_eq!(get(&app, "/v1/regions").await.text(), "[\"global\"]");
    let m = call(&app, "PUT", "/v1/status/leader", "").await;
    assert_eq!(m.status, StatusCode::METHOD_NOT_ALLOWED);
    server.shutdown().await;
}

#[tokio::test]
async fn health_reports_both_roles() {
    let server = start_server().await;
    let app = app(Some(server.clone()), None);
    let h = get(&app, "/v1/agent/health").await;
    assert_eq!(h.status, StatusCode::OK);
    assert_eq!(
        h.text(),
        r#"{"client":{"message":"ok","ok":true},"server":{"message":"ok","ok":true}}"#
    );
    let s = get(&app, "/v1/agent/health?type=server").await;
    assert_eq!(s.text(), r#"{"server":{"message":"ok","ok":true}}"#);

    // A client that knows no server is unhealthy: 500 with the JSON as its text.
    let mut info = agent_info();
    info.known_servers.clear();
    let lonely = router(HttpState {
        server: Some(server.clone()),
        client_logs: None,
        agent: Arc::new(info),
        client_ops: None,
    });
    let u = get(&lonely, "/v1/agent/health").await;
    assert_eq!(u.status, StatusCode::INTERNAL_SERVER_ERROR);
    assert_eq!(
        u.text(),
        r#"{"client":{"message":"no known servers","ok":false},"server":{"message":"ok","ok":true}}"#
    );
    // Asking for the server role of a client-only agent fails the same way.
    let client_only = app_without_server();
    let c = get(&client_only, "/v1/agent/health?type=server").await;
    assert_eq!(c.status, StatusCode::INTERNAL_SERVER_ERROR);
    assert_eq!(
        c.text(),
        r#"{"server":{"message":"server not enabled","ok":false}}"#
    );
    server.shutdown().await;
}

fn app_without_server() -> Router {
    let mut info = agent_info();
    info.server_enabled = false;
    router(HttpState {
        server: None,
        client_logs: None,
        agent: Arc::new(info),
        client_ops: None,
    })
}

#[tokio::test]
async fn members_and_self_shapes() {
    let server = start_server().await;
    let app = app(Some(server.clone()), None);
    let m = get(&app, "/v1/agent/members").await;
    assert_eq!(m.status, StatusCode::OK);
    let v = m.json();
    let keys: Vec<&str> = v
        .as_object()
        .expect("object")
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, ["Members", "ServerDC", "ServerName", "ServerRegion"]);
    assert_eq!(v["ServerName"], "vm");
    assert_eq!(v["Members"][0]["Name"], "vm.global");
    assert_eq!(v["Members"][0]["Addr"], "127.0.0.1");
    assert_eq!(v["Members"][0]["Port"], 4648);
    assert_eq!(v["Members"][0]["Status"], "alive");
    assert_eq!(v["Members"][0]["Tags"]["role"], "nomad");
    assert_eq!(v["Members"][0]["Tags"]["port"], "4647");
    assert_eq!(v["Members"][0]["Tags"]["rpc_addr"], "127.0.0.1");
    assert_eq!(v["Members"][0]["Tags"]["build"], crate::VERSION);

    let s = get(&app, "/v1/agent/self").await.json();
    let keys: Vec<&str> = s
        .as_object()
        .expect("object")
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, ["config", "member", "stats"]);
    assert_eq!(s["config"]["Region"], "global");
    assert_eq!(s["member"]["Name"], "vm.global");
    assert_eq!(s["stats"]["nomad"]["leader"], "true");
    assert_eq!(s["stats"]["nomad"]["leader_addr"], "127.0.0.1:4647");
    assert_eq!(s["stats"]["raft"]["state"], "Leader");
    assert_eq!(s["stats"]["client"]["known_servers"], "127.0.0.1:4647");

    // Without a server: an empty member and no server stats.
    let c = get(&app_without_server(), "/v1/agent/self").await.json();
    assert_eq!(c["member"]["Status"], "none");
    assert_eq!(c["member"]["Addr"], serde_json::Value::Null);
    assert!(c["stats"].get("nomad").is_none());
    server.shutdown().await;
}
