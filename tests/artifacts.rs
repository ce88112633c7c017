//! Artifacts through the real agent: a raw_exec task gets a file from a local HTTP server
//! (checksum verified) before it starts; a wrong checksum fails the task with Nomad's
//! "Failed Artifact Download" event.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpListener;

use crate::harness::*;

/// Serves `body` for every GET until the test ends; returns the base URL.
fn serve(body: &'static str) -> String {
    let listener = TcpListener::bind("127.0.0.1:0").expect("bind");
    let addr = listener.local_addr().expect("addr");
    std::thread::spawn(move || {
        for stream in listener.incoming() {
            let Ok(mut s) = stream else { continue };
            let mut reader = BufReader::new(s.try_clone().expect("clone"));
            let mut line = String::new();
            while reader.read_line(&mut line).is_ok() && line != "\r\n" && !line.is_empty() {
                line.clear();
            }
            let _ = write!(
                s,
                "HTTP/1.1 200 OK\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
                body.len()
            );
        }
    });
    format!("http://{addr}")
}

fn job(url: &str, checksum: &str) -> String {
    format!(
        r#"job "fetch" {{
  datacenters = ["dc*"]
  type        = "batch"
  group "g" {{
    restart {{
      attempts = 0
      mode     = "fail"
    }}
    reschedule {{
      attempts  = 0
      unlimited = false
    }}
    task "t" {{
      driver = "raw_exec"
      artifact {{
        source = "{url}/greeting.txt"
        options {{
          checksum = "{checksum}"
        }}
      }}
      config {{
        command = "/bin/cat"
        args    = ["local/greeting.txt"]
      }}
    }}
  }}
}}
"#
    )
}

fn run(agent: &Agent, hcl: &str) {
    let path = agent.path("fetch.nomad.hcl");
    std::fs::write(&path, hcl).expect("write job");
    assert_exit(
        &agent.nomad(&["job", "run", "-detach", path.to_str().expect("path")]),
        0,
    );
}

#[test]
fn an_http_artifact_lands_in_local_before_the_task_starts() {
    let url = serve("hello artifact\n");
    let agent = Agent::dev();
    // sha256 of "hello artifact\n"
    let sum = "sha256:51bc0fc1f19104fa6e89ce50be9aa1f57c3346c1ca51ab49f5f00e14ce8f8076";
    run(&agent, &job(&url, sum));
    let alloc = agent.wait_alloc("fetch", "task finished", |a| {
        a["ClientStatus"] == "complete" || a["ClientStatus"] == "failed"
    });
    let events = alloc["TaskStates"]["t"]["Events"].to_string();
    assert_eq!(alloc["ClientStatus"], "complete", "{events}");
    assert!(events.contains("Downloading Artifacts"), "{events}");
    let id = alloc["ID"].as_str().expect("id");
    let logs = agent.nomad(&["alloc", "logs", id, "t"]);
    assert_exit(&logs, 0);
    assert_eq!(stdout(&logs), "hello artifact\n");
}

#[test]
fn a_wrong_checksum_fails_the_task_with_a_download_event() {
    let url = serve("hello artifact\n");
    let agent = Agent::dev();
    run(&agent, &job(&url, "md5:0123"));
    let alloc = agent.wait_alloc("fetch", "task failed", |a| a["ClientStatus"] == "failed");
    let events = alloc["TaskStates"]["t"]["Events"].to_string();
    assert!(events.contains("Failed Artifact Download"), "{events}");
    assert!(
        events.contains("checksums did not match: expected 0123 got"),
        "{events}"
    );
    let status = agent.nomad(&["alloc", "status", alloc["ID"].as_str().expect("id")]);
    assert!(
        stdout(&status).contains("Failed Artifact Download"),
        "{}",
        stdout(&status)
    );
}
