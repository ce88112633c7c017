//! State survives a crash: kill -9 the agent, start it again, every job and alloc is back.

use std::time::Duration;

use serde_json::Value;

use crate::harness::*;

fn ids(v: &Value) -> Vec<String> {
    let mut ids: Vec<String> = v
        .as_array()
        .map(|a| {
            a.iter()
                .filter_map(|x| x["ID"].as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default();
    ids.sort();
    ids
}

#[test]
fn kill_9_and_restart_restores_every_job_alloc_and_eval() {
    let mut agent = Agent::start(AgentOpts {
        dev: false,
        data_dir: true,
        ..Default::default()
    });
    for (name, count) in [("alpha", 2), ("beta", 1)] {
        let path = agent.path(&format!("{name}.nomad.hcl"));
        std::fs::write(
            &path,
            format!(
                "job \"{name}\" {{\n  group \"g\" {{\n    count = {count}\n    task \"t\" {{\n      driver = \"raw_exec\"\n      config {{\n        command = \"/bin/sleep\"\n        args = [\"600\"]\n      }}\n      resources {{\n        cpu = 50\n        memory = 32\n      }}\n    }}\n  }}\n}}\n"
            ),
        )
        .expect("write job");
        assert_exit(
            &agent.nomad(&["job", "run", "-detach", path.to_str().expect("path")]),
            0,
        );
    }
    wait_until(Duration::from_secs(30), "3 allocs running", || {
        let allocs = agent.get("/v1/allocations");
        (allocs
            .as_array()?
            .iter()
            .filter(|a| a["ClientStatus"] == "running")
            .count()
            == 3)
            .then_some(())
    });
    let jobs = ids(&agent.get("/v1/jobs"));
    let allocs = ids(&agent.get("/v1/allocations"));
    let evals = ids(&agent.get("/v1/evaluations"));
    let nodes = ids(&agent.get("/v1/nodes"));
    assert_eq!(jobs, vec!["alpha", "beta"]);

    agent.restart();

    assert_eq!(ids(&agent.get("/v1/jobs")), jobs);
    assert_eq!(ids(&agent.get("/v1/nodes")), nodes, "the node keeps its ID");
    let after = ids(&agent.get("/v1/allocations"));
    for id in &allocs {
        assert!(after.contains(id), "alloc {id} restored: {after:?}");
    }
    let after_evals = ids(&agent.get("/v1/evaluations"));
    for id in &evals {
        assert!(after_evals.contains(id), "eval {id} restored");
    }
    // The restored server keeps working: a new job is placed.
    let path = agent.path("gamma.nomad.hcl");
    std::fs::write(&path, "job \"gamma\" {\n  type = \"batch\"\n  group \"g\" {\n    task \"t\" {\n      driver = \"raw_exec\"\n      config {\n        command = \"/bin/true\"\n      }\n    }\n  }\n}\n").expect("write");
    assert_exit(
        &agent.nomad(&["job", "run", path.to_str().expect("path")]),
        0,
    );
    agent.wait_alloc("gamma", "gamma complete", |a| {
        a["ClientStatus"] == "complete"
    });
}
