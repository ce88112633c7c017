//! `nomad server join` and `nomad server force-leave` through the real agent, with Nomad's
//! answers for the agent's own address, unreachable servers and bad requests.

use crate::harness::*;

fn closed_port() -> u16 {
    let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    l.local_addr().expect("addr").port()
}

#[test]
fn join_counts_this_server_and_reports_unreachable_ones_like_nomad() {
    let agent = Agent::dev();
    let me = &agent.get("/v1/agent/members")["Members"][0];
    let serf = format!(
        "{}:{}",
        me["Addr"].as_str().expect("Addr"),
        me["Port"].as_u64().expect("Port")
    );
    let out = agent.nomad(&["server", "join", &serf]);
    assert_exit(&out, 0);
    assert_eq!(stdout(&out), "Joined 1 servers successfully\n");

    let port = closed_port();
    let out = agent.nomad(&["server", "join", &format!("127.0.0.1:{port}")]);
    assert_exit(&out, 1);
    assert_eq!(
        stderr(&out),
        format!(
            "Error joining: failed joining: 1 error occurred:\n\t* Failed to join 127.0.0.1:{port}: dial tcp 127.0.0.1:{port}: connect: connection refused\n\n\n"
        )
    );

    let out = agent.nomad(&["server", "join"]);
    assert_exit(&out, 1);
    assert!(
        stderr(&out).starts_with("One or more node addresses must be given as arguments\n"),
        "{}",
        stderr(&out)
    );

    let (code, body) = http("PUT", &format!("{}/v1/agent/join", agent.addr()), None)
        .expect("join without address");
    assert_eq!((code, body.as_str()), (400, "missing address to join"));
    let (code, _) = http(
        "GET",
        &format!("{}/v1/agent/join?address=x", agent.addr()),
        None,
    )
    .expect("GET join");
    assert_eq!(code, 405);
}

#[test]
fn force_leave_ignores_unknown_and_live_members_and_checks_its_parameters() {
    let agent = Agent::dev();
    for node in ["gone.global", "10.9.9.9:4647"] {
        let out = agent.nomad(&["server", "force-leave", "-prune", node]);
        assert_exit(&out, 0);
        assert_eq!(stdout(&out), "");
    }
    // This server is alive and stays the only peer.
    let rpc = format!("127.0.0.1:{}", agent.rpc_port);
    assert_exit(&agent.nomad(&["server", "force-leave", &rpc]), 0);
    let peers = agent.get("/v1/status/peers");
    assert_eq!(peers.as_array().map(Vec::len), Some(1), "{peers}");

    let (code, body) = http(
        "PUT",
        &format!("{}/v1/agent/force-leave", agent.addr()),
        None,
    )
    .expect("force-leave without node");
    assert_eq!((code, body.as_str()), (400, "missing node to force leave"));
    let (code, body) = http(
        "PUT",
        &format!("{}/v1/agent/force-leave?node=x&prune=maybe", agent.addr()),
        None,
    )
    .expect("bad prune");
    assert_eq!((code, body.as_str()), (400, "invalid prune value"));
    let out = agent.nomad(&["server", "force-leave"]);
    assert_exit(&out, 1);
}
