//! Job operations through the real agent: `job plan` (text and exit codes), `job run
//! -check-index`, `job dispatch`, `job periodic force` and `job scale`.

use serde_json::Value;

use crate::harness::*;

fn job_hcl(count: u32, sleep: &str) -> String {
    format!(
        r#"job "example" {{
  group "web" {{
    count = {count}
    task "server" {{
      driver = "mock_driver"
      config {{
        run_for = "{sleep}"
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

fn write(agent: &Agent, name: &str, text: &str) -> String {
    let path = agent.path(name);
    std::fs::write(&path, text).expect("write file");
    path.to_str().expect("utf-8 path").to_string()
}

fn job_modify_index(agent: &Agent, id: &str) -> u64 {
    agent.get(&format!("/v1/job/{id}"))["JobModifyIndex"]
        .as_u64()
        .expect("JobModifyIndex")
}

#[test]
fn plan_prints_the_diff_and_exits_by_whether_allocs_change() {
    let agent = Agent::dev();
    let v1 = write(&agent, "v1.hcl", &job_hcl(1, "1000s"));

    // A new job: everything is added and one alloc would be created.
    let out = agent.nomad(&["job", "plan", &v1]);
    assert_exit(&out, 1);
    let text = stdout(&out);
    assert!(
        text.starts_with(
            "+ Job: \"example\"\n+ Task Group: \"web\" (1 create)\n  + Task: \"server\" (forces create)\n\nScheduler dry-run:\n- All tasks successfully allocated.\n\nJob Modify Index: 0\n"
        ),
        "{text}"
    );
    // Nothing was registered.
    let (code, _) = http_get(&format!("{}/v1/job/example", agent.addr())).expect("get");
    assert_eq!(code, 404);

    assert_exit(&agent.nomad(&["job", "run", "-detach", &v1]), 0);
    agent.wait_alloc("example", "alloc running", |a| {
        a["ClientStatus"] == "running"
    });
    let index = job_modify_index(&agent, "example");

    // The same job again: no change, exit 0, and the index to check against.
    let out = agent.nomad(&["job", "plan", &v1]);
    assert_exit(&out, 0);
    let text = stdout(&out);
    assert!(
        text.starts_with("Job: \"example\"\nTask Group: \"web\" (1 ignore)\n  Task: \"server\"\n"),
        "{text}"
    );
    assert!(text.contains(&format!(
        "Job Modify Index: {index}\nTo submit the job with version verification run:\n\nnomad job run -check-index {index} {v1}\n"
    )));

    // A config change replaces the alloc; Nomad's layout of the Config object.
    let v2 = write(&agent, "v2.hcl", &job_hcl(1, "2000s"));
    let out = agent.nomad(&["job", "plan", &v2]);
    assert_exit(&out, 1);
    let want = "+/- Job: \"example\"\n\
+/- Task Group: \"web\" (1 create/destroy update)\n  \
+/- Task: \"server\" (forces create/destroy update)\n    \
+/- Config {\n      \
+/- run_for: \"1000s\" => \"2000s\"\n        \
}\n\nScheduler dry-run:\n- All tasks successfully allocated.\n";
    assert!(stdout(&out).starts_with(want), "{}", stdout(&out));

    // A count change is a create annotated on the field.
    let v3 = write(&agent, "v3.hcl", &job_hcl(3, "1000s"));
    let out = agent.nomad(&["job", "plan", &v3]);
    assert_exit(&out, 1);
    assert!(
        stdout(&out).contains("  +/- Count: \"1\" => \"3\" (forces create)\n"),
        "{}",
        stdout(&out)
    );

    // -check-index: a stale index is refused with Nomad's text, the current one runs.
    let out = agent.nomad(&[
        "job",
        "run",
        "-detach",
        "-check-index",
        &(index - 1).to_string(),
        &v2,
    ]);
    assert_exit(&out, 1);
    assert!(stderr(&out).contains(&format!(
        "Enforcing job modify index {}: job exists with conflicting job modify index: {index}",
        index - 1
    )));
    let out = agent.nomad(&[
        "job",
        "run",
        "-detach",
        "-check-index",
        &index.to_string(),
        &v2,
    ]);
    assert_exit(&out, 0);

    // Errors exit 255.
    let out = agent.nomad(&["job", "plan", "/nonexistent/job.hcl"]);
    assert_exit(&out, 255);
    assert!(stderr(&out).contains("Error getting job struct"));
}

#[test]
fn plan_reports_placement_failures_over_http() {
    let agent = Agent::dev();
    let hcl = job_hcl(2, "10s").replace(
        "    task \"server\"",
        "    constraint {\n      attribute = \"${attr.kernel.name}\"\n      value     = \"plan9\"\n    }\n    task \"server\"",
    );
    let path = write(&agent, "c.hcl", &hcl);
    let out = agent.nomad(&["job", "plan", &path]);
    assert_exit(&out, 1);
    let text = stdout(&out);
    assert!(
        text.contains("- WARNING: Failed to place all allocations.\n  Task Group \"web\" (failed to place 2 allocations):\n    * Constraint \"${attr.kernel.name} = plan9\": 1 nodes excluded by filter\n"),
        "{text}"
    );
    let out = agent.nomad(&["job", "plan", "-json-output", &path]);
    let resp: Value = serde_json::from_str(&stdout(&out)).expect("json");
    assert_eq!(resp["Annotations"]["DesiredTGUpdates"]["web"]["Place"], 2);
    assert_eq!(resp["Diff"]["Type"], "Added");
    assert_eq!(resp["FailedTGAllocs"]["web"]["CoalescedFailures"], 1);
    // Still nothing registered, and no evals were left behind.
    assert_eq!(
        agent.get("/v1/evaluations").as_array().map(Vec::len),
        Some(0)
    );
}
