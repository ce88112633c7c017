//! Node operations through the real agent: a drain that migrates a service job's allocs and
//! completes, scheduling eligibility, and an event stream subscriber that sees the job's
//! registration and the drain.

use std::io::{Read, Write};
use std::net::TcpStream;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use crate::harness::*;

const WEB: &str = r#"job "web" {
  datacenters = ["dc*"]
  group "g" {
    count = 2
    migrate {
      max_parallel     = 2
      min_healthy_time = "1s"
    }
    task "t" {
      driver = "mock_driver"
      config {
        run_for = "1h"
      }
      resources {
        cpu    = 20
        memory = 20
      }
    }
  }
}
"#;

fn node_id(agent: &Agent) -> String {
    wait_until(Duration::from_secs(30), "node registered", || {
        let nodes = agent.get("/v1/nodes");
        nodes.as_array()?.first()?["ID"]
            .as_str()
            .map(str::to_string)
    })
}

/// Read `/v1/event/stream?<query>` on a thread until every needle was seen (or 90s passed);
/// the receiver gets the text read so far.
fn subscribe(agent: &Agent, query: &str, needles: &[&str]) -> mpsc::Receiver<String> {
    let host = agent.addr().trim_start_matches("http://").to_string();
    let path = format!("/v1/event/stream?{query}");
    let needles: Vec<String> = needles.iter().map(|s| s.to_string()).collect();
    let (tx, rx) = mpsc::channel();
    let (ready_tx, ready_rx) = mpsc::channel();
    std::thread::spawn(move || {
        let mut seen = String::new();
        let Ok(mut stream) = TcpStream::connect(&host) else {
            let _ = tx.send(seen);
            return;
        };
        let _ = stream.set_read_timeout(Some(Duration::from_secs(1)));
        let _ = write!(
            stream,
            "GET {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\n\r\n"
        );
        let deadline = Instant::now() + Duration::from_secs(90);
        let mut buf = [0u8; 16384];
        let mut announced = false;
        while Instant::now() < deadline && !needles.iter().all(|n| seen.contains(n)) {
            match stream.read(&mut buf) {
                Ok(0) => break,
                Ok(n) => seen.push_str(&String::from_utf8_lossy(&buf[..n])),
                Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {}
                Err(e) if e.kind() == std::io::ErrorKind::TimedOut => {}
                Err(_) => break,
            }
            // The first heartbeat means the subscription is live.
            if !announced && seen.contains("{}\n") {
                announced = true;
                let _ = ready_tx.send(());
            }
        }
        let _ = tx.send(seen);
    });
    ready_rx
        .recv_timeout(Duration::from_secs(30))
        .expect("event stream opened");
    rx
}

#[test]
fn node_drain_migrates_allocs_completes_and_is_streamed_as_events() {
    let agent = Agent::dev();
    let node = node_id(&agent);
    let events = subscribe(
        &agent,
        "topic=Job:web&topic=Node",
        &[r#""Type":"JobRegistered""#, r#""Type":"NodeDrain""#],
    );

    agent.run_detached("web.nomad.hcl", WEB);
    wait_until(Duration::from_secs(30), "two allocs running", || {
        let allocs = agent.get("/v1/job/web/allocations");
        let running = allocs
            .as_array()?
            .iter()
            .filter(|a| a["ClientStatus"] == "running")
            .count();
        (running == 2).then_some(())
    });

    let out = agent.nomad(&[
        "node",
        "drain",
        "-enable",
        "-yes",
        "-deadline",
        "1m",
        "-m",
        "maint",
        &node,
    ]);
    assert_exit(&out, 0);
    let text = stdout(&out);
    for needle in [
        format!("Node {node:?} drain strategy set"),
        "marked for migration".to_string(),
        "status running -> complete".to_string(),
        format!("All allocations on node {node:?} have stopped"),
        format!("Drain complete for node {node}"),
    ] {
        assert!(text.contains(&needle), "missing {needle:?} in:\n{text}");
    }

    let allocs = agent.get("/v1/job/web/allocations");
    for a in allocs.as_array().expect("allocs") {
        if a["NodeID"] == node.as_str() {
            assert_eq!(a["DesiredStatus"], "stop", "{a}");
            assert_eq!(a["DesiredTransition"]["Migrate"], true, "{a}");
        }
    }
    let n = agent.get(&format!("/v1/node/{node}"));
    assert!(n["DrainStrategy"].is_null(), "{}", n["DrainStrategy"]);
    assert_eq!(n["Drain"], false);
    assert_eq!(n["SchedulingEligibility"], "ineligible");
    assert_eq!(n["LastDrain"]["Status"], "complete");
    assert_eq!(n["LastDrain"]["Meta"]["message"], "maint");
    let messages: Vec<&str> = n["Events"]
        .as_array()
        .expect("events")
        .iter()
        .filter_map(|e| e["Message"].as_str())
        .collect();
    assert!(
        messages.contains(&"Node drain strategy set"),
        "{messages:?}"
    );
    assert!(messages.contains(&"Node drain complete"), "{messages:?}");

    let seen = events
        .recv_timeout(Duration::from_secs(120))
        .expect("event stream reader");
    assert!(seen.contains(r#""Type":"JobRegistered""#), "{seen}");
    assert!(seen.contains(r#""Type":"NodeDrain""#), "{seen}");
    assert!(seen.contains(r#""Topic":"Node""#), "{seen}");
    assert!(
        !seen.contains(r#""Topic":"Allocation""#),
        "topic filter: {seen}"
    );

    // Disabling the drain marks the node eligible again (no -keep-ineligible).
    let out = agent.nomad(&["node", "drain", "-disable", "-yes", &node]);
    assert_exit(&out, 0);
    assert!(stdout(&out).contains(&format!("Node {node:?} drain strategy unset")));
    let n = agent.get(&format!("/v1/node/{node}"));
    assert_eq!(n["SchedulingEligibility"], "eligible");
}

#[test]
fn node_eligibility_toggles_and_bad_drain_flags_fail() {
    let agent = Agent::dev();
    let node = node_id(&agent);

    let out = agent.nomad(&["node", "eligibility", "-disable", &node]);
    assert_exit(&out, 0);
    assert_eq!(
        stdout(&out).trim(),
        format!("Node {node:?} scheduling eligibility set: ineligible for scheduling")
    );
    assert_eq!(
        agent.get(&format!("/v1/node/{node}"))["SchedulingEligibility"],
        "ineligible"
    );
    let out = agent.nomad(&["node", "eligibility", "-enable", &node]);
    assert_exit(&out, 0);
    assert!(stdout(&out).contains("eligible for scheduling"));
    assert_eq!(
        agent.get(&format!("/v1/node/{node}"))["SchedulingEligibility"],
        "eligible"
    );

    let out = agent.nomad(&["node", "eligibility", &node]);
    assert_exit(&out, 1);
    assert!(stderr(&out).contains("Either the '-enable' or '-disable' flag must be set"));
    let out = agent.nomad(&["node", "drain", "-enable", "-force", "-no-deadline", &node]);
    assert_exit(&out, 1);
    assert!(stderr(&out).contains("-force and -no-deadline are mutually exclusive"));
    let out = agent.nomad(&["node", "drain", "-enable", "-yes", "ffffffff-0000"]);
    assert_exit(&out, 1);
    assert!(
        stderr(&out).contains("No node(s) with prefix or id"),
        "{}",
        stderr(&out)
    );
}

const SYS: &str = r#"job "sys" {
  datacenters = ["dc*"]
  type        = "system"
  constraint {
    attribute = "${meta.role}"
    value     = "web"
  }
  group "g" {
    task "t" {
      driver = "mock_driver"
      config {
        run_for = "1h"
      }
      resources {
        cpu    = 20
        memory = 20
      }
    }
  }
}
"#;

#[test]
fn node_meta_apply_read_and_system_job_follows_the_new_meta() {
    let agent = Agent::dev();
    let node = node_id(&agent);
    agent.run_detached("sys.nomad.hcl", SYS);
    wait_until(Duration::from_secs(30), "system job evaluated", || {
        let evals = agent.get("/v1/job/sys/evaluations");
        let done = evals.as_array()?.iter().any(|e| e["Status"] == "complete");
        done.then_some(())
    });
    let allocs = agent.get("/v1/job/sys/allocations");
    assert_eq!(
        allocs.as_array().map(Vec::len),
        Some(0),
        "no node has meta.role yet"
    );

    let out = agent.nomad(&["node", "meta", "apply", "role=web", "team=a"]);
    assert_exit(&out, 0);
    agent.wait_alloc("sys", "system alloc placed once meta.role is set", |a| {
        a["NodeID"] == node.as_str() && a["ClientStatus"] == "running"
    });
    assert_eq!(
        agent.get(&format!("/v1/node/{node}"))["Meta"]["role"],
        "web"
    );

    let out = agent.nomad(&["node", "meta", "apply", "-node-id", &node, "-unset", "team"]);
    assert_exit(&out, 0);
    let out = agent.nomad(&["node", "meta", "read"]);
    assert_exit(&out, 0);
    let text = stdout(&out);
    // The client's Connect defaults are static meta, as on Nomad's nodes.
    let all = text
        .strip_prefix("All Meta\n")
        .and_then(|t| t.split("\n\n").next())
        .unwrap_or_default();
    assert!(
        all.lines()
            .any(|l| l.starts_with("connect.log_level ") && l.ends_with(" = info")),
        "{text}"
    );
    assert!(
        all.lines()
            .any(|l| l.starts_with("role ") && l.ends_with(" = web")),
        "{text}"
    );
    assert!(
        text.contains("\n\nDynamic Meta\nrole = web\nteam = <unset>\n\nStatic Meta\nconnect."),
        "{text}"
    );
    let out = agent.nomad(&["node", "meta", "read", "-json"]);
    let v: serde_json::Value = serde_json::from_str(&stdout(&out)).expect("json");
    assert!(
        v["Dynamic"]["team"].is_null() && v["Meta"].get("team").is_none(),
        "{v}"
    );

    let out = agent.nomad(&["node", "meta", "apply"]);
    assert_exit(&out, 1);
    assert!(stderr(&out).contains("Must specify -unset or at least 1 key=value pair"));
}

#[test]
fn node_status_shows_the_os_pages_and_prints_detailed_stats() {
    let agent = Agent::dev();
    let node = node_id(&agent);
    let os_name = agent.get(&format!("/v1/node/{node}"))["Attributes"]["os.name"]
        .as_str()
        .expect("os.name")
        .to_string();
    let out = agent.nomad(&["node", "status", "-os"]);
    assert_exit(&out, 0);
    let text = stdout(&out);
    assert!(
        text.lines()
            .next()
            .is_some_and(|l| l.contains("Class   OS")),
        "{text}"
    );
    assert!(text.contains(&format!(" {os_name} ")), "{text}");
    let stubs = agent.get("/v1/nodes?os=true");
    assert_eq!(stubs[0]["Attributes"]["os.name"], os_name.as_str());
    assert!(agent.get("/v1/nodes")[0].get("Attributes").is_none());
    // One node fits one page: no next token, no hint.
    let paged = agent.nomad(&["node", "status", "-per-page", "1"]);
    assert_exit(&paged, 0);
    assert!(!stdout(&paged).contains("Results have been paginated"));

    let out = agent.nomad(&["node", "status", "-stats", &node]);
    assert_exit(&out, 0);
    let text = stdout(&out);
    for section in [
        "\nCPU Stats\nCPU    = cpu0",
        "\nMemory Stats\nTotal ",
        "\nDisk Stats\nDevice ",
    ] {
        assert!(text.contains(section), "{section:?} in {text}");
    }
}

#[test]
fn node_status_verbose_lists_the_fingerprint_as_the_node_api_reports_it() {
    let agent = Agent::dev();
    let node = node_id(&agent);
    let api = agent.get(&format!("/v1/node/{node}"));
    let attrs = api["Attributes"].as_object().expect("Attributes");
    for key in [
        "cpu.numcores",
        "cpu.totalcompute",
        "memory.totalbytes",
        "kernel.version",
        "numa.node.count",
        "unique.hostname",
        "unique.network.ip-address",
        "unique.storage.volume",
        "unique.storage.bytestotal",
    ] {
        assert!(attrs.contains_key(key), "{key} in {attrs:?}");
    }
    // The resources' shapes are Nomad's.
    let res = &api["NodeResources"];
    assert_eq!(res["Networks"].as_array().map(Vec::is_empty), Some(false));
    let lo = res["NodeNetworks"]
        .as_array()
        .and_then(|n| n.iter().find(|n| n["Mode"] == "host"))
        .expect("a host NodeNetwork");
    assert_eq!(lo["Device"], "lo");
    assert_eq!(lo["Addresses"][0]["Alias"], "default");
    let cores = res["Processors"]["Topology"]["Cores"]
        .as_array()
        .expect("Cores");
    assert_eq!(cores.len().to_string(), attrs["cpu.numcores"]);
    assert_eq!(
        res["Disk"]["DiskMB"].as_u64(),
        attrs["unique.storage.bytestotal"]
            .as_str()
            .and_then(|b| b.parse::<u64>().ok())
            .map(|b| b / 1024 / 1024)
    );

    let out = agent.nomad(&["node", "status", "-self", "-verbose"]);
    assert_exit(&out, 0);
    let text = stdout(&out);
    let section = text
        .split("\nAttributes\n")
        .nth(1)
        .and_then(|s| s.split("\n\nMeta\n").next())
        .expect("an Attributes section");
    let width = attrs.keys().map(String::len).max().unwrap_or(0);
    let want: Vec<String> = attrs
        .iter()
        .map(|(k, v)| format!("{k:width$} = {}", v.as_str().unwrap_or_default()))
        .collect();
    let got: Vec<&str> = section.lines().collect();
    assert_eq!(got, want, "every attribute, sorted, aligned like Nomad's");
}
