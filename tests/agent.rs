//! The agent process itself: banner, clean shutdown, start-up errors.

use std::process::{Command, Stdio};
use std::time::Duration;

use crate::harness::*;

#[test]
fn sigterm_stops_a_dev_agents_tasks_and_exits_0() {
    let mut agent = Agent::dev();
    let job = agent.path("pid.nomad.hcl");
    std::fs::write(
        &job,
        "job \"pid\" {\n  group \"g\" {\n    task \"t\" {\n      driver = \"raw_exec\"\n      config {\n        command = \"/bin/sh\"\n        args = [\"-c\", \"echo $$; exec sleep 600\"]\n      }\n    }\n  }\n}\n",
    )
    .expect("write job");
    assert_exit(
        &agent.nomad(&["job", "run", job.to_str().expect("path")]),
        0,
    );
    let alloc = agent.wait_alloc("pid", "task running", |a| a["ClientStatus"] == "running");
    let id = alloc["ID"].as_str().expect("ID").to_string();
    let pid: i32 = wait_until(Duration::from_secs(10), "task pid in its log", || {
        stdout(&agent.nomad(&["alloc", "logs", &id]))
            .trim()
            .parse()
            .ok()
    });
    assert!(std::path::Path::new(&format!("/proc/{pid}")).exists());

    let status = agent.terminate();
    assert_eq!(status.code(), Some(0), "log:\n{}", agent.log());
    let log = agent.log();
    assert!(log.contains("==> Caught signal: terminated"), "{log}");
    assert!(
        log.contains("==> Gracefully shutting down agent..."),
        "{log}"
    );
    // Zombie or gone: the task does not run on.
    let running = std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .map(|s| !s.contains(") Z "))
        .unwrap_or(false);
    assert!(!running, "task {pid} still running after the agent stopped");
}

#[test]
fn dev_banner_names_addresses_region_and_roles() {
    let agent = Agent::dev();
    let log = agent.log();
    for needle in [
        "==> Loaded configuration from",
        "==> Starting Nomad agent...",
        "==> Nomad agent configuration:",
        &format!(
            "Advertise Addrs: HTTP: 127.0.0.1:{}; RPC: 127.0.0.1:{}",
            agent.http_port, agent.rpc_port
        ),
        "Client: true",
        "Server: true",
        "Region: global (DC: dc1)",
        "==> Nomad agent started! Log data will stream in below:",
    ] {
        assert!(log.contains(needle), "banner lacks {needle:?}:\n{log}");
    }
}

#[test]
fn http_port_in_use_fails_start_with_exit_1() {
    let busy = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
    let port = busy.local_addr().expect("addr").port();
    let dir = tempfile::tempdir().expect("tmp");
    let cfg = dir.path().join("agent.hcl");
    std::fs::write(
        &cfg,
        format!(
            "ports {{\n  http = {port}\n  rpc = {}\n  serf = {}\n}}\n",
            free_port(),
            free_port()
        ),
    )
    .expect("config");
    let out = Command::new(BIN)
        .args(["agent", "-dev"])
        .arg(format!("-config={}", cfg.display()))
        .stdin(Stdio::null())
        .output()
        .expect("run agent");
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out) + &stderr(&out);
    assert!(
        text.contains(&format!("127.0.0.1:{port}")),
        "names the address: {text}"
    );
}

#[test]
fn bad_agent_config_is_a_clear_error() {
    let dir = tempfile::tempdir().expect("tmp");
    let cfg = dir.path().join("agent.hcl");
    std::fs::write(&cfg, "server {\n  enabled = \n").expect("config");
    let out = Command::new(BIN)
        .args(["agent"])
        .arg(format!("-config={}", cfg.display()))
        .stdin(Stdio::null())
        .output()
        .expect("run");
    assert_eq!(out.status.code(), Some(1));
    let text = stdout(&out) + &stderr(&out);
    assert!(text.contains("agent.hcl"), "names the file: {text}");
}

#[test]
fn agent_flags_override_the_config_file() {
    let data = tempfile::tempdir().expect("tmp");
    let agent = Agent::start(AgentOpts {
        dev: false,
        data_dir: false,
        flags: [
            "-server",
            "-client",
            "-bootstrap-expect=1",
            "-bind=127.0.0.1",
            "-node=flagged",
            "-dc=dc7",
            "-region=r1",
            "-log-level=WARN",
        ]
        .iter()
        .map(|s| s.to_string())
        .chain([format!("-data-dir={}", data.path().display())])
        .collect(),
    });
    let me = agent.get("/v1/agent/self");
    assert_eq!(me["config"]["Region"], "r1");
    assert_eq!(me["config"]["Datacenter"], "dc7");
    assert_eq!(me["config"]["NodeName"], "flagged");
    let nodes = agent.get("/v1/nodes?region=r1");
    assert_eq!(nodes[0]["Name"], "flagged");
    assert_eq!(nodes[0]["Datacenter"], "dc7");
    assert!(
        data.path().join("server").is_dir(),
        "raft state under -data-dir"
    );
}
