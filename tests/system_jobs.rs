//! System and sysbatch jobs through the real agent: a sysbatch job runs to completion once
//! on the node and is not run again for the same version; a system job runs on the node,
//! is updated in place when nothing destructive changed, and stops with the job.

use std::time::Duration;

use crate::harness::*;

fn allocs(agent: &Agent, job: &str) -> Vec<serde_json::Value> {
    agent
        .get(&format!("/v1/job/{job}/allocations"))
        .as_array()
        .cloned()
        .unwrap_or_default()
}

#[test]
fn sysbatch_runs_once_per_node_and_version() {
    let agent = Agent::dev();
    let path = agent.path("sweep.nomad.hcl");
    let write = |word: &str| {
        std::fs::write(
            &path,
            format!(
                r#"job "sweep" {{
  type = "sysbatch"
  group "g" {{
    task "t" {{
      driver = "raw_exec"
      config {{
        command = "/bin/sh"
        args    = ["-c", "echo {word}"]
      }}
    }}
  }}
}}
"#
            ),
        )
        .expect("write job")
    };
    write("first");
    assert_exit(
        &agent.nomad(&["job", "run", path.to_str().expect("path")]),
        0,
    );
    let done = agent.wait_alloc("sweep", "sysbatch alloc complete", |a| {
        a["ClientStatus"] == "complete"
    });
    let id = done["ID"].as_str().expect("ID").to_string();
    assert_eq!(
        stdout(&agent.nomad(&["alloc", "logs", &id])).trim(),
        "first"
    );
    assert!(done["Name"].as_str().expect("name").ends_with(".g[0]"));
    wait_until(Duration::from_secs(10), "job dead", || {
        (agent.get("/v1/job/sweep")["Status"] == "dead").then_some(())
    });

    // Evaluating the same version again places nothing: it already ran on this node.
    assert_exit(&agent.nomad(&["job", "eval", "sweep"]), 0);
    std::thread::sleep(Duration::from_secs(1));
    assert_eq!(allocs(&agent, "sweep").len(), 1);

    // A new version runs once more.
    write("second");
    assert_exit(
        &agent.nomad(&["job", "run", path.to_str().expect("path")]),
        0,
    );
    let again = wait_until(Duration::from_secs(30), "second version complete", || {
        allocs(&agent, "sweep")
            .into_iter()
            .find(|a| a["JobVersion"] == 1 && a["ClientStatus"] == "complete")
    });
    let id = again["ID"].as_str().expect("ID").to_string();
    assert_eq!(
        stdout(&agent.nomad(&["alloc", "logs", &id])).trim(),
        "second"
    );
    assert_eq!(allocs(&agent, "sweep").len(), 2);
}

#[test]
fn system_job_runs_on_the_node_updates_in_place_and_stops() {
    let agent = Agent::dev();
    let path = agent.path("agentd.nomad.hcl");
    let write = |kill_timeout: &str| {
        std::fs::write(
            &path,
            format!(
                r#"job "agentd" {{
  type = "system"
  group "g" {{
    task "t" {{
      driver       = "raw_exec"
      kill_timeout = "{kill_timeout}"
      config {{
        command = "/bin/sh"
        args    = ["-c", "exec sleep 3600"]
      }}
    }}
  }}
}}
"#
            ),
        )
        .expect("write job")
    };
    write("5s");
    assert_exit(
        &agent.nomad(&["job", "run", path.to_str().expect("path")]),
        0,
    );
    let running = agent.wait_alloc("agentd", "system alloc running", |a| {
        a["ClientStatus"] == "running"
    });
    let id = running["ID"].as_str().expect("ID").to_string();

    // Only kill_timeout changed: the same alloc moves to version 1, its task untouched.
    write("10s");
    assert_exit(
        &agent.nomad(&["job", "run", path.to_str().expect("path")]),
        0,
    );
    wait_until(Duration::from_secs(20), "alloc at version 1", || {
        let a = agent.get(&format!("/v1/allocation/{id}"));
        (a["Job"]["Version"] == 1).then_some(())
    });
    let all = allocs(&agent, "agentd");
    assert_eq!(all.len(), 1, "updated in place, nothing replaced");
    let a = agent.get(&format!("/v1/allocation/{id}"));
    assert_eq!(a["ClientStatus"], "running");
    assert_eq!(a["TaskStates"]["t"]["Restarts"], 0);

    assert_exit(&agent.nomad(&["job", "stop", "agentd"]), 0);
    wait_until(Duration::from_secs(20), "system alloc stopped", || {
        let a = agent.get(&format!("/v1/allocation/{id}"));
        (a["ClientStatus"] == "complete" && a["DesiredStatus"] == "stop").then_some(())
    });
}
