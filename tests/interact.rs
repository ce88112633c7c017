//! Interactive access through the real agent: `alloc fs`, `alloc exec` (exit codes and stdin
//! passed through), `alloc signal`, `alloc restart`, `alloc stop`, stats, for raw_exec and
//! mock tasks, and docker exec when a daemon runs.

use std::io::Write;
use std::process::{Command, Stdio};
use std::time::Duration;

use serde_json::Value;

use crate::harness::*;

const BIN: &str = env!("CARGO_BIN_EXE_nomad");

fn run_job(agent: &Agent, name: &str, hcl: &str) -> String {
    agent.run_detached(&format!("{name}.nomad.hcl"), hcl);
    let alloc = agent.wait_alloc(name, "alloc running", |a| a["ClientStatus"] == "running");
    alloc["ID"].as_str().expect("alloc id").to_string()
}

fn events(agent: &Agent, alloc: &str, task: &str) -> Vec<String> {
    let a = agent.get(&format!("/v1/allocation/{alloc}"));
    a["TaskStates"][task]["Events"]
        .as_array()
        .map(|e| {
            e.iter()
                .filter_map(|e| e["Type"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

const TRAPPER: &str = r#"job "trapper" {
  group "g" {
    task "t" {
      driver = "raw_exec"
      config {
        command = "/bin/sh"
        args    = ["-c", "echo hi > local/greeting.txt; trap 'echo got-usr1' USR1; while true; do sleep 0.1; done"]
      }
    }
  }
}
"#;

#[test]
fn alloc_fs_lists_cats_stats_and_refuses_escapes() {
    let agent = Agent::dev();
    let id = run_job(&agent, "trapper", TRAPPER);
    wait_until(Duration::from_secs(10), "greeting written", || {
        let out = agent.nomad(&["alloc", "fs", &id, "t/local/greeting.txt"]);
        (stdout(&out) == "hi\n").then_some(())
    });
    let ls = agent.nomad(&["alloc", "fs", &id, "t/local"]);
    assert_exit(&ls, 0);
    let text = stdout(&ls);
    assert!(text.starts_with("Mode"), "{text}");
    assert!(
        text.contains("greeting.txt") && text.contains("3 B"),
        "{text}"
    );
    let root = stdout(&agent.nomad(&["alloc", "fs", &id]));
    assert!(root.contains("alloc/") && root.contains("t/"), "{root}");
    let stat = agent.nomad(&["alloc", "fs", "-stat", "-H", &id, "t/local/greeting.txt"]);
    assert_exit(&stat, 0);
    assert!(stdout(&stat).contains("Content Type"));
    assert!(stdout(&stat).contains("text/plain"), "{}", stdout(&stat));
    let tail = agent.nomad(&[
        "alloc",
        "fs",
        "-tail",
        "-c",
        "2",
        &id,
        "t/local/greeting.txt",
    ]);
    assert_eq!(stdout(&tail), "i\n");

    let escape = agent.nomad(&["alloc", "fs", &id, "../"]);
    assert_exit(&escape, 1);
    assert!(stderr(&escape).contains("Path escapes the alloc directory"));
    let base = agent.addr();
    let (code, body) = http_get(&format!(
        "{base}/v1/client/fs/cat/{id}?path=../../etc/passwd"
    ))
    .expect("GET");
    assert_eq!(
        (code, body.as_str()),
        (500, "Path escapes the alloc directory")
    );
    let (code, _) =
        http_get(&format!("{base}/v1/client/fs/cat/{id}?path=t/secrets/x")).expect("GET");
    assert_eq!(code, 500);
    let (code, body) = http_get(&format!(
        "{base}/v1/client/fs/readat/{id}?path=t/local/greeting.txt&offset=1&limit=1"
    ))
    .expect("GET");
    assert_eq!((code, body.as_str()), (200, "i"));
    let (code, body) = http_get(&format!(
        "{base}/v1/client/fs/stream/{id}?path=t/local/greeting.txt&follow=false"
    ))
    .expect("GET");
    assert_eq!(code, 200);
    assert!(
        body.starts_with(r#"{"Data":"aGkK","File":"t/local/greeting.txt""#),
        "{body}"
    );
    let (code, _) = http_get(&format!("{base}/v1/client/fs/ls/{id}?path=nope")).expect("GET");
    assert_eq!(code, 404);
}

#[test]
fn alloc_exec_passes_output_stdin_and_exit_codes() {
    let agent = Agent::dev();
    let id = run_job(&agent, "trapper", TRAPPER);
    let echo = agent.nomad(&[
        "alloc", "exec", "-i=false", "-t=false", &id, "echo", "hello", "-n",
    ]);
    assert_exit(&echo, 0);
    assert_eq!(stdout(&echo), "hello -n\n");
    let three = agent.nomad(&[
        "alloc",
        "exec",
        "-t=false",
        &id,
        "sh",
        "-c",
        "echo oops >&2; exit 3",
    ]);
    assert_exit(&three, 3);
    assert_eq!(stderr(&three), "oops\n");
    // The task's environment and working directory.
    let env = agent.nomad(&[
        "alloc",
        "exec",
        "-t=false",
        &id,
        "sh",
        "-c",
        "echo $NOMAD_TASK_NAME; ls local",
    ]);
    assert_eq!(stdout(&env), "t\ngreeting.txt\n");

    let mut child = Command::new(BIN)
        .args(["alloc", "exec", "-t=false", &id, "cat"])
        .env("NOMAD_ADDR", agent.addr())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .expect("spawn");
    child
        .stdin
        .take()
        .expect("stdin")
        .write_all(b"line one\nline two\n")
        .expect("write");
    let out = child.wait_with_output().expect("wait");
    assert_exit(&out, 0);
    assert_eq!(stdout(&out), "line one\nline two\n");

    // A TTY session: the command sees a terminal.
    let tty = agent.nomad(&[
        "alloc",
        "exec",
        "-i=true",
        "-t=true",
        &id,
        "sh",
        "-c",
        "test -t 1 && echo is-tty",
    ]);
    assert_exit(&tty, 0);
    assert!(stdout(&tty).contains("is-tty"), "{}", stdout(&tty));

    let missing = agent.nomad(&["alloc", "exec", "-t=false", "-task", "nope", &id, "true"]);
    assert_exit(&missing, 1);
    assert!(stderr(&missing).contains("Could not find task named: nope"));
    let nobin = agent.nomad(&["alloc", "exec", "-t=false", &id, "no-such-binary-xyz"]);
    assert_exit(&nobin, 1);
    assert!(
        stderr(&nobin).contains("no-such-binary-xyz"),
        "{}",
        stderr(&nobin)
    );
}

#[test]
fn alloc_signal_restart_and_stats_reach_the_task() {
    let agent = Agent::dev();
    let id = run_job(&agent, "trapper", TRAPPER);
    assert_exit(
        &agent.nomad(&["alloc", "signal", "-s", "SIGUSR1", &id, "t"]),
        0,
    );
    wait_until(Duration::from_secs(10), "trap output in logs", || {
        stdout(&agent.nomad(&["alloc", "logs", &id, "t"]))
            .contains("got-usr1")
            .then_some(())
    });
    wait_until(Duration::from_secs(10), "Signaling event", || {
        events(&agent, &id, "t")
            .contains(&"Signaling".to_string())
            .then_some(())
    });
    let bad = agent.nomad(&["alloc", "signal", "-s", "SIGNOPE", &id]);
    assert_exit(&bad, 1);
    assert!(stderr(&bad).contains("Error signalling allocation"));

    let stats = wait_until(Duration::from_secs(10), "task stats", || {
        let s = agent.get(&format!("/v1/client/allocation/{id}/stats"));
        (s["Tasks"]["t"]["ResourceUsage"]["MemoryStats"]["RSS"].as_u64()? > 0).then_some(s)
    });
    assert!(stats["ResourceUsage"]["MemoryStats"]["RSS"].as_u64() > Some(0));
    assert!(stats["Tasks"]["t"]["Pids"]
        .as_object()
        .is_some_and(|p| !p.is_empty()));
    assert!(stats["Timestamp"].as_i64() > Some(0));
    let host = agent.get("/v1/client/stats");
    assert!(host["Memory"]["Total"].as_u64() > Some(0));
    assert!(host["CPU"].as_array().is_some_and(|c| !c.is_empty()));
    let status = stdout(&agent.nomad(&["alloc", "status", "-stats", &id]));
    assert!(
        status.contains("Memory Stats") && status.contains("CPU Stats"),
        "{status}"
    );

    assert_exit(&agent.nomad(&["alloc", "restart", &id, "t"]), 0);
    let a = wait_until(Duration::from_secs(20), "task restarted", || {
        let a = agent.get(&format!("/v1/allocation/{id}"));
        let t = &a["TaskStates"]["t"];
        (t["Restarts"] == 1 && t["State"] == "running").then_some(a)
    });
    let evs = events(&agent, &id, "t");
    assert!(evs.contains(&"Restart Signaled".to_string()), "{evs:?}");
    assert_eq!(evs.iter().filter(|e| *e == "Started").count(), 2, "{evs:?}");
    assert_eq!(a["ClientStatus"], "running");
    let both = agent.nomad(&["alloc", "restart", "-all-tasks", &id, "t"]);
    assert_exit(&both, 1);
}

#[test]
fn alloc_stop_stops_and_reschedules() {
    let agent = Agent::dev();
    let id = run_job(&agent, "trapper", TRAPPER);
    let out = agent.nomad(&["alloc", "stop", "-detach", &id]);
    assert_exit(&out, 0);
    let eval_id = stdout(&out).trim().to_string();
    assert_eq!(eval_id.len(), 36, "{eval_id}");
    let eval = agent.get(&format!("/v1/evaluation/{eval_id}"));
    assert_eq!(eval["TriggeredBy"], "alloc-stop");
    let replacement = agent.wait_alloc("trapper", "replacement running", |a| {
        a["ID"] != Value::String(id.clone()) && a["ClientStatus"] == "running"
    });
    let full = agent.get(&format!(
        "/v1/allocation/{}",
        replacement["ID"].as_str().expect("id")
    ));
    assert_eq!(full["PreviousAllocation"], Value::String(id.clone()));
    let old = wait_until(Duration::from_secs(20), "old alloc stopped", || {
        let a = agent.get(&format!("/v1/allocation/{id}"));
        (a["DesiredStatus"] == "stop" && a["ClientStatus"] == "complete").then_some(a)
    });
    assert_eq!(old["DesiredTransition"]["Migrate"], true);
}

#[test]
fn mock_exec_runs_the_exec_command_block() {
    let agent = Agent::dev();
    let id = run_job(
        &agent,
        "mockexec",
        r#"job "mockexec" {
  group "g" {
    task "m" {
      driver = "mock_driver"
      config {
        run_for = "10m"
        exec_command {
          stdout_string = "from-mock\n"
          exit_code     = 7
        }
      }
    }
  }
}
"#,
    );
    let out = agent.nomad(&["alloc", "exec", "-i=false", "-t=false", &id, "anything"]);
    assert_exit(&out, 7);
    assert_eq!(stdout(&out), "from-mock\n");
    let show = agent.nomad(&["alloc", "exec", "-i=false", "-t=false", &id, "showinput"]);
    assert_exit(&show, 0);
    assert_eq!(stdout(&show), "TTY: false\nStdin:\n\n");
    let stats = agent.get(&format!("/v1/client/allocation/{id}/stats"));
    assert_eq!(
        stats["Tasks"]["m"]["ResourceUsage"]["MemoryStats"]["Measured"],
        serde_json::json!(["RSS"])
    );
}

#[test]
fn docker_exec_runs_in_the_container() {
    if !crate::docker::docker_ready() {
        return;
    }
    let agent = Agent::dev();
    let id = run_job(
        &agent,
        "dockexec",
        r#"job "dockexec" {
  group "g" {
    task "c" {
      driver = "docker"
      config {
        image   = "nomad-rs-busybox:latest"
        command = "sh"
        args    = ["-c", "exec sleep 600"]
      }
    }
  }
}
"#,
    );
    let out = agent.nomad(&[
        "alloc",
        "exec",
        "-i=false",
        "-t=false",
        &id,
        "sh",
        "-c",
        "echo in-$HOSTNAME-ok; ls /local >/dev/null; echo err >&2; exit 3",
    ]);
    assert_exit(&out, 3);
    assert!(stdout(&out).contains("-ok"), "{}", stdout(&out));
    assert_eq!(stderr(&out), "err\n");
    let tty = agent.nomad(&[
        "alloc",
        "exec",
        "-t=true",
        &id,
        "sh",
        "-c",
        "test -t 1 && echo is-tty",
    ]);
    assert_exit(&tty, 0);
    assert!(
        stdout(&tty).contains("is-tty"),
        "{}\n{}",
        stdout(&tty),
        stderr(&tty)
    );
    let stats = agent.get(&format!("/v1/client/allocation/{id}/stats"));
    assert!(stats["Tasks"]["c"]["ResourceUsage"]["MemoryStats"].is_object());
}
