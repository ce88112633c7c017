//! Task lifecycle hooks and shutdown delays through the real agent: prestart tasks finish
//! before the main task starts, sidecars die with the main task, poststop runs last.

use std::time::Duration;

use crate::harness::*;

#[test]
fn batch_job_runs_prestart_main_sidecar_and_poststop_in_order() {
    let agent = Agent::dev();
    let job = agent.path("lifecycle.nomad.hcl");
    std::fs::write(
        &job,
        r#"job "hooks" {
  type = "batch"
  group "g" {
    task "init" {
      driver = "raw_exec"
      lifecycle {
        hook = "prestart"
      }
      config {
        command = "/bin/sh"
        args    = ["-c", "sleep 0.2; echo initialised > ${NOMAD_ALLOC_DIR}/ready"]
      }
    }
    task "proxy" {
      driver = "raw_exec"
      lifecycle {
        hook    = "prestart"
        sidecar = true
      }
      config {
        command = "/bin/sh"
        args    = ["-c", "exec sleep 3600"]
      }
    }
    task "main" {
      driver = "raw_exec"
      config {
        command = "/bin/sh"
        args    = ["-c", "cat ${NOMAD_ALLOC_DIR}/ready"]
      }
    }
    task "cleanup" {
      driver = "raw_exec"
      lifecycle {
        hook = "poststop"
      }
      config {
        command = "/bin/sh"
        args    = ["-c", "echo cleaned > ${NOMAD_ALLOC_DIR}/cleaned"]
      }
    }
  }
}
"#,
    )
    .expect("write job");
    let out = agent.nomad(&["job", "run", job.to_str().expect("path")]);
    assert_exit(&out, 0);
    let alloc = agent.wait_alloc("hooks", "alloc complete with every task dead", |a| {
        a["ClientStatus"] == "complete"
            && ["init", "proxy", "main", "cleanup"]
                .iter()
                .all(|t| a["TaskStates"][t]["State"] == "dead")
    });
    let id = alloc["ID"].as_str().expect("ID");
    // Main ran after the init task wrote its file, so it could read it.
    let logs = stdout(&agent.nomad(&["alloc", "logs", id, "main"]));
    assert_eq!(logs.trim(), "initialised");
    let full = agent.get(&format!("/v1/allocation/{id}"));
    let proxy = task_event_types(&full, "proxy");
    assert_eq!(
        proxy[proxy.len() - 4..],
        ["Main Tasks Dead", "Killing", "Terminated", "Killed"],
        "{proxy:?}"
    );
    let cleaned = stdout(&agent.nomad(&["alloc", "fs", id, "alloc/cleaned"]));
    assert_eq!(cleaned.trim(), "cleaned");
    for t in ["init", "main", "cleanup"] {
        assert_eq!(full["TaskStates"][t]["Failed"], false, "{t}");
        assert_eq!(
            task_event_types(&full, t),
            ["Received", "Task Setup", "Started", "Terminated"],
            "{t}"
        );
    }
    // `alloc status` lists the lifecycle tasks like any other.
    let status = stdout(&agent.nomad(&["alloc", "status", id]));
    assert!(
        status.contains("Task \"cleanup\" (poststop) is \"dead\""),
        "{status}"
    );
    assert!(
        status.contains("Task \"proxy\" (prestart sidecar) is \"dead\""),
        "{status}"
    );
}

#[test]
fn job_stop_waits_for_the_shutdown_delay_unless_told_not_to() {
    let agent = Agent::dev();
    let job = agent.path("delay.nomad.hcl");
    std::fs::write(
        &job,
        r#"job "delay" {
  group "g" {
    task "t" {
      driver         = "raw_exec"
      shutdown_delay = "1s"
      config {
        command = "/bin/sh"
        args    = ["-c", "exec sleep 3600"]
      }
    }
  }
}
"#,
    )
    .expect("write job");
    assert_exit(
        &agent.nomad(&["job", "run", job.to_str().expect("path")]),
        0,
    );
    agent.wait_alloc("delay", "running", |a| a["ClientStatus"] == "running");
    let started = std::time::Instant::now();
    assert_exit(&agent.nomad(&["job", "stop", "delay"]), 0);
    let alloc = agent.wait_alloc("delay", "complete", |a| a["ClientStatus"] == "complete");
    assert!(started.elapsed() >= Duration::from_secs(1));
    let id = alloc["ID"].as_str().expect("ID");
    let full = agent.get(&format!("/v1/allocation/{id}"));
    let types = task_event_types(&full, "t");
    assert!(
        types.iter().any(|t| t == "Waiting for shutdown delay"),
        "{types:?}"
    );

    // Run it again and stop it skipping the delay.
    assert_exit(
        &agent.nomad(&["job", "run", job.to_str().expect("path")]),
        0,
    );
    let running = wait_until(Duration::from_secs(20), "a new alloc running", || {
        let allocs = agent.get("/v1/job/delay/allocations");
        allocs
            .as_array()?
            .iter()
            .find(|a| a["ClientStatus"] == "running")
            .cloned()
    });
    let id = running["ID"].as_str().expect("ID").to_string();
    assert_exit(
        &agent.nomad(&["alloc", "stop", "-no-shutdown-delay", &id]),
        0,
    );
    let skipped = wait_until(Duration::from_secs(20), "alloc stopped", || {
        let a = agent.get(&format!("/v1/allocation/{id}"));
        (a["TaskStates"]["t"]["State"] == "dead").then_some(a)
    });
    let types = task_event_types(&skipped, "t");
    assert!(
        types.iter().any(|t| t == "Skipping shutdown delay"),
        "{types:?}"
    );
}
