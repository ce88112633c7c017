//! The README's quickstart, end to end: job init, run, status, alloc status, logs, stop.

use std::time::Duration;

use crate::harness::*;

#[test]
fn quickstart_job_init_run_status_logs_stop() {
    let agent = Agent::dev();
    let work = tempfile::tempdir().expect("work dir");

    let out = agent.nomad_in(work.path(), &["job", "init", "-short"]);
    assert_exit(&out, 0);
    assert!(
        stdout(&out).contains("Example job file written to example.nomad.hcl"),
        "{}",
        stdout(&out)
    );
    assert!(work.path().join("example.nomad.hcl").exists());
    // A second init refuses to overwrite.
    assert_exit(&agent.nomad_in(work.path(), &["job", "init", "-short"]), 1);

    let out = agent.nomad_in(work.path(), &["job", "run", "example.nomad.hcl"]);
    assert_exit(&out, 0);
    let text = stdout(&out);
    assert!(text.contains("Monitoring evaluation"), "{text}");
    assert!(text.contains("finished with status \"complete\""), "{text}");
    // A service job's `job run` follows its deployment to the end, as Nomad's.
    assert!(text.contains("Monitoring deployment"), "{text}");
    assert!(text.contains("Status      = successful"), "{text}");

    let alloc = agent.wait_alloc("example", "alloc running", |a| {
        a["ClientStatus"] == "running"
    });
    let alloc_id = alloc["ID"].as_str().expect("alloc ID").to_string();

    let status = stdout(&agent.nomad(&["job", "status", "example"]));
    for needle in [
        "ID            = example",
        "Type          = service",
        "Summary",
        "Allocations",
        "running",
    ] {
        assert!(
            status.contains(needle),
            "job status lacks {needle:?}:\n{status}"
        );
    }
    assert!(
        status.contains(&alloc_id[..8]),
        "short alloc ID in job status:\n{status}"
    );
    assert!(
        !status.contains(&alloc_id),
        "full alloc ID only with -verbose:\n{status}"
    );

    let astatus = agent.nomad(&["alloc", "status", &alloc_id[..8]]);
    assert_exit(&astatus, 0);
    let astatus = stdout(&astatus);
    assert!(astatus.contains("Client Status"), "{astatus}");
    assert!(astatus.contains("is \"running\""), "{astatus}");
    assert!(
        astatus.contains("Started"),
        "task events listed:\n{astatus}"
    );

    let logs = wait_until(Duration::from_secs(20), "task output in logs", || {
        let out = agent.nomad(&["alloc", "logs", &alloc_id]);
        let text = stdout(&out);
        (out.status.success() && !text.trim().is_empty()).then_some(text)
    });
    assert!(!logs.is_empty());

    let out = agent.nomad(&["job", "stop", "example"]);
    assert_exit(&out, 0);
    agent.wait_alloc("example", "alloc stopped", |a| {
        a["ID"] == alloc_id.as_str() && a["ClientStatus"] == "complete"
    });
    let job = agent.get("/v1/job/example");
    assert_eq!(job["Stop"], true);
    assert_eq!(job["Status"], "dead");
}

#[test]
fn batch_job_runs_to_completion_and_keeps_its_output() {
    let agent = Agent::dev();
    let job = agent.path("batch.nomad.hcl");
    std::fs::write(
        &job,
        r#"job "once" {
  type = "batch"
  group "once" {
    task "once" {
      driver = "raw_exec"
      config {
        command = "/bin/sh"
        args    = ["-c", "echo batch-done-$NOMAD_ALLOC_INDEX"]
      }
      resources {
        cpu    = 100
        memory = 64
      }
    }
  }
}
"#,
    )
    .expect("write job");
    let out = agent.nomad(&["job", "run", job.to_str().expect("path")]);
    assert_exit(&out, 0);
    let alloc = agent.wait_alloc("once", "batch alloc complete", |a| {
        a["ClientStatus"] == "complete"
    });
    let id = alloc["ID"].as_str().expect("ID");
    let logs = stdout(&agent.nomad(&["alloc", "logs", id]));
    assert_eq!(logs.trim(), "batch-done-0");
    let job = wait_until(Duration::from_secs(10), "job dead", || {
        let j = agent.get("/v1/job/once");
        (j["Status"] == "dead").then_some(j)
    });
    assert_eq!(job["Type"], "batch");
    let summary = agent.get("/v1/job/once/summary");
    assert_eq!(summary["Summary"]["once"]["Complete"], 1);
}

#[test]
fn mock_driver_job_places_every_count_and_job_update_replaces_allocs() {
    let agent = Agent::dev();
    let job = agent.path("mock.nomad.hcl");
    let write = |run_for: &str| {
        std::fs::write(
            &job,
            format!(
                r#"job "mock" {{
  datacenters = ["dc*"]
  group "g" {{
    count = 3
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
            ),
        )
        .expect("write job")
    };
    write("1h");
    assert_exit(
        &agent.nomad(&["job", "run", job.to_str().expect("path")]),
        0,
    );
    let running = wait_until(Duration::from_secs(20), "3 running", || {
        let allocs = agent.get("/v1/job/mock/allocations");
        let ids: Vec<String> = allocs
            .as_array()?
            .iter()
            .filter(|a| a["ClientStatus"] == "running")
            .filter_map(|a| a["ID"].as_str().map(String::from))
            .collect();
        (ids.len() == 3).then_some(ids)
    });
    let names: Vec<String> = agent
        .get("/v1/job/mock/allocations")
        .as_array()
        .expect("allocs")
        .iter()
        .filter_map(|a| a["Name"].as_str().map(String::from))
        .collect();
    for i in 0..3 {
        assert!(names.contains(&format!("mock.g[{i}]")), "{names:?}");
    }
    // A changed task config is a destructive update: three new allocs replace the old ones.
    write("2h");
    assert_exit(
        &agent.nomad(&["job", "run", job.to_str().expect("path")]),
        0,
    );
    // The default update block rolls one alloc at a time after 10s of health.
    wait_until(
        Duration::from_secs(120),
        "replacement allocs running",
        || {
            let allocs = agent.get("/v1/job/mock/allocations");
            let allocs = allocs.as_array()?;
            let new_running = allocs
                .iter()
                .filter(|a| a["ClientStatus"] == "running" && a["JobVersion"] == 1)
                .count();
            let old_stopped = allocs
                .iter()
                .filter(|a| running.iter().any(|id| a["ID"] == id.as_str()))
                .all(|a| a["DesiredStatus"] == "stop");
            (new_running == 3 && old_stopped).then_some(())
        },
    );
}

#[test]
fn unplaceable_job_reports_placement_failure_and_exits_2() {
    let agent = Agent::dev();
    let job = agent.path("big.nomad.hcl");
    std::fs::write(
        &job,
        r#"job "big" {
  # A batch job has no deployment, so the monitor ends with the eval's exit code 2 (a
  # service job would go on to follow its deployment until the progress deadline fails it).
  type = "batch"
  group "g" {
    task "t" {
      driver = "mock_driver"
      config {
        run_for = "1h"
      }
      resources {
        cpu    = 100
        memory = 100000000
      }
    }
  }
}
"#,
    )
    .expect("write job");
    let out = agent.nomad(&["job", "run", job.to_str().expect("path")]);
    assert_exit(&out, 2);
    let text = stdout(&out);
    assert!(text.contains("failed to place 1 allocation"), "{text}");
    assert!(
        text.contains("memory"),
        "the exhausted dimension is named:\n{text}"
    );
    let evals = agent.get("/v1/job/big/evaluations");
    let evals = evals.as_array().expect("evals");
    assert!(
        evals.iter().any(|e| !e["FailedTGAllocs"].is_null()),
        "{evals:?}"
    );
    assert!(
        evals.iter().any(|e| e["Status"] == "blocked"),
        "a blocked eval waits for capacity: {evals:?}"
    );
}
