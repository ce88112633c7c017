//! System and sysbatch jobs through the real agent: a sysbatch job runs to completion once
//! on the node and is not run again for the same version; a system job runs on the node,
//! is updated in place when nothing destructive changed, and stops with the job; a system job
//! update rolls out as a deployment that becomes successful (Nomad >= 1.11).

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

fn node_agent_hcl(run_for: &str) -> String {
    format!(
        r#"job "nodeagent" {{
  type = "system"
  group "g" {{
    update {{
      max_parallel      = 1
      min_healthy_time  = "1s"
      healthy_deadline  = "30s"
      progress_deadline = "60s"
    }}
    task "t" {{
      driver = "mock_driver"
      config {{
        run_for = "{run_for}"
      }}
      resources {{
        cpu    = 20
        memory = 20
      }}
    }}
  }}
}}
"#
    )
}

/// The job's deployment of `version` once it is successful.
fn successful_deployment(agent: &Agent, version: u64) -> serde_json::Value {
    wait_until(
        Duration::from_secs(60),
        &format!("deployment of version {version} successful"),
        || {
            agent
                .get("/v1/job/nodeagent/deployments")
                .as_array()?
                .iter()
                .find(|d| d["JobVersion"] == version && d["Status"] == "successful")
                .cloned()
        },
    )
}

#[test]
fn system_job_update_rolls_out_as_a_deployment_that_succeeds() {
    let agent = Agent::dev();
    let path = agent.path("nodeagent.nomad.hcl");
    let run = |run_for: &str| {
        std::fs::write(&path, node_agent_hcl(run_for)).expect("write job");
        assert_exit(
            &agent.nomad(&["job", "run", "-detach", path.to_str().expect("path")]),
            0,
        );
    };
    run("1h");
    let d0 = successful_deployment(&agent, 0);
    assert_eq!(d0["TaskGroups"]["g"]["DesiredTotal"], 1, "{d0}");
    assert_eq!(d0["TaskGroups"]["g"]["HealthyAllocs"], 1, "{d0}");

    // A destructive change: the alloc on the node is replaced within a new deployment.
    run("2h");
    let d1 = successful_deployment(&agent, 1);
    let id = d1["ID"].as_str().expect("deployment ID").to_string();
    assert_ne!(d1["ID"], d0["ID"]);
    assert_eq!(d1["StatusDescription"], "Deployment completed successfully");
    let g = &d1["TaskGroups"]["g"];
    assert_eq!(
        (&g["DesiredTotal"], &g["PlacedAllocs"], &g["HealthyAllocs"]),
        (&1.into(), &1.into(), &1.into()),
        "{d1}"
    );
    let all = allocs(&agent, "nodeagent");
    let live: Vec<_> = all.iter().filter(|a| a["DesiredStatus"] == "run").collect();
    assert_eq!(live.len(), 1, "{all:?}");
    assert_eq!(live[0]["JobVersion"], 1);
    let alloc_id = live[0]["ID"].as_str().expect("alloc ID");
    let full = agent.get(&format!("/v1/allocation/{alloc_id}"));
    assert_eq!(full["DeploymentID"], id.as_str());
    assert_eq!(full["DeploymentStatus"]["Healthy"], true);
    let old: Vec<_> = all.iter().filter(|a| a["JobVersion"] == 0).collect();
    assert_eq!(old.len(), 1);
    assert_eq!(old[0]["DesiredStatus"], "stop");
    let history = stdout(&agent.nomad(&["job", "history", "nodeagent"]));
    assert!(history.contains("Stable      = true"), "{history}");

    // The CLI shows it as Nomad does.
    let list = stdout(&agent.nomad(&["deployment", "list"]));
    let row = list
        .lines()
        .find(|l| l.starts_with(&id[..8]))
        .unwrap_or_else(|| panic!("deployment {id} in:\n{list}"));
    for needle in [
        "nodeagent",
        "successful",
        "Deployment completed successfully",
    ] {
        assert!(row.contains(needle), "{needle:?} in {row:?}");
    }
    let status = stdout(&agent.nomad(&["deployment", "status", &id[..8]]));
    for needle in [
        "Job ID      = nodeagent",
        "Job Version = 1",
        "Status      = successful",
        "Description = Deployment completed successfully",
        "Deployed",
        "Desired",
        "Healthy",
    ] {
        assert!(status.contains(needle), "{needle:?} in:\n{status}");
    }
    let js = stdout(&agent.nomad(&["job", "status", "nodeagent"]));
    assert!(js.contains("Latest Deployment"), "{js}");

    // Stopping the job leaves the finished deployment as it is.
    assert_exit(&agent.nomad(&["job", "stop", "-detach", "nodeagent"]), 0);
    wait_until(Duration::from_secs(20), "alloc stopped", || {
        allocs(&agent, "nodeagent")
            .iter()
            .all(|a| a["DesiredStatus"] == "stop")
            .then_some(())
    });
    assert_eq!(
        agent.get(&format!("/v1/deployment/{id}"))["Status"],
        "successful"
    );
}
