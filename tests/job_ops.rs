//! Job operations through the real agent: `job plan` (text and exit codes), `job run
//! -check-index`, `job dispatch`, `job periodic force` and `job scale`.

use std::time::Duration;

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
    let evals = agent.nomad(&["eval", "list", "-job", "example"]);
    assert_exit(&evals, 0);
    let text = stdout(&evals);
    assert!(
        text.starts_with("ID        Priority  Triggered By  Job ID   Namespace  Node ID  Status    Placement Failures\n"),
        "{text}"
    );
    assert!(
        text.contains("  50        job-register  example  default    <none>   complete  false"),
        "{text}"
    );
    let none = agent.nomad(&["eval", "list", "-job", "nope"]);
    assert_eq!(stdout(&none), "No evals found\n");

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

const PARAMETERIZED: &str = r#"job "report" {
  type = "batch"
  parameterized {
    payload       = "required"
    meta_required = ["customer"]
    meta_optional = ["region"]
  }
  group "g" {
    task "t" {
      driver = "raw_exec"
      config {
        command = "/bin/sh"
        args    = ["-c", "cat ${NOMAD_TASK_DIR}/input.txt; echo \" for ${NOMAD_META_customer}\""]
      }
      dispatch_payload {
        file = "input.txt"
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
fn dispatch_runs_a_child_with_meta_and_the_payload_file() {
    let agent = Agent::dev();
    let path = write(&agent, "report.hcl", PARAMETERIZED);
    assert_exit(&agent.nomad(&["job", "run", &path]), 0);
    // The template itself is never scheduled.
    assert_eq!(
        agent
            .get("/v1/job/report/allocations")
            .as_array()
            .map(Vec::len),
        Some(0)
    );
    let input = write(&agent, "in.txt", "quarterly numbers");

    let out = agent.nomad(&[
        "job",
        "dispatch",
        "-meta",
        "customer=acme",
        "report",
        &input,
    ]);
    assert_exit(&out, 0);
    let text = stdout(&out);
    let child = text
        .lines()
        .find_map(|l| l.strip_prefix("Dispatched Job ID = "))
        .expect("dispatched ID line")
        .to_string();
    let (parent, suffix) = child.split_once("/dispatch-").expect("child ID form");
    assert_eq!(parent, "report");
    let (unix, hex) = suffix.split_once('-').expect("time-hex");
    assert!(unix.parse::<u64>().is_ok() && hex.len() == 8, "{child}");
    assert!(text.contains("finished with status \"complete\""), "{text}");

    let escaped = child.replace('/', "%2F");
    let alloc = agent.wait_alloc(&escaped, "dispatched alloc completes", |a| {
        a["ClientStatus"] == "complete"
    });
    let id = alloc["ID"].as_str().expect("alloc ID");
    let logs = agent.nomad(&["alloc", "logs", id, "t"]);
    assert_eq!(stdout(&logs), "quarterly numbers for acme\n");
    let job = agent.get(&format!("/v1/job/{escaped}"));
    assert_eq!(job["ParentID"], "report");
    assert_eq!(job["Dispatched"], true);
    assert_eq!(job["Meta"]["customer"], "acme");

    // Nomad's validation messages, exit 1.
    let out = agent.nomad(&["job", "dispatch", "-meta", "customer=acme", "report"]);
    assert_exit(&out, 1);
    assert!(stderr(&out).contains("Payload is not provided but required by parameterized job"));
    let out = agent.nomad(&["job", "dispatch", "-meta", "color=red", "report", &input]);
    assert_exit(&out, 1);
    assert!(stderr(&out).contains("Dispatch request included unpermitted metadata keys: [color]"));
    let out = agent.nomad(&["job", "dispatch", "report", &input]);
    assert!(stderr(&out).contains("Dispatch did not provide required meta keys: [customer]"));

    // The same idempotency token twice gives the same child.
    let token_run = |token: &str| {
        let out = agent.nomad(&[
            "job",
            "dispatch",
            "-detach",
            "-idempotency-token",
            token,
            "-meta",
            "customer=x",
            "report",
            &input,
        ]);
        assert_exit(&out, 0);
        stdout(&out).lines().next().unwrap_or_default().to_string()
    };
    assert_eq!(token_run("abc"), token_run("abc"));
    // The template counts its children: both finish (the token reused the second).
    wait_until(Duration::from_secs(30), "children counted dead", || {
        let c = agent.get("/v1/job/report/summary")["Children"].clone();
        (c["Dead"] == 2 && c["Pending"] == 0 && c["Running"] == 0).then_some(())
    });
    let status = stdout(&agent.nomad(&["job", "status", "report"]));
    assert!(
        status
            .lines()
            .any(|l| l.starts_with("Parameterized ") && l.ends_with("= true")),
        "{status}"
    );
    assert!(status.contains(&child), "{status}");
}

#[test]
fn periodic_jobs_launch_on_schedule_and_on_force() {
    let agent = Agent::dev();
    // Every two seconds (the seven-field form has seconds), never overlapping.
    let hcl = r#"job "tick" {
  type = "batch"
  periodic {
    crons            = ["*/2 * * * * * *"]
    prohibit_overlap = true
    time_zone        = "America/New_York"
  }
  group "g" {
    task "t" {
      driver = "mock_driver"
      config {
        run_for = "1s"
      }
      resources {
        cpu    = 20
        memory = 20
      }
    }
  }
}
"#;
    let path = write(&agent, "tick.hcl", hcl);
    assert_exit(&agent.nomad(&["job", "run", &path]), 0);
    let children = |agent: &Agent| -> Vec<String> {
        let jobs = agent.get("/v1/jobs?prefix=tick/periodic-");
        jobs.as_array()
            .map(|a| {
                a.iter()
                    .filter_map(|j| j["ID"].as_str().map(String::from))
                    .collect()
            })
            .unwrap_or_default()
    };
    let launched = wait_until(Duration::from_secs(20), "two periodic launches", || {
        let c = children(&agent);
        (c.len() >= 2).then_some(c)
    });
    for id in &launched {
        let job = agent.get(&format!("/v1/job/{}", id.replace('/', "%2F")));
        assert_eq!(job["ParentID"], "tick");
        assert!(job["Periodic"].is_null());
        let unix: i64 = id["tick/periodic-".len()..].parse().expect("unix seconds");
        assert_eq!(unix % 2, 0, "launched off schedule: {id}");
    }
    let status = stdout(&agent.nomad(&["job", "status", "tick"]));
    assert!(status.contains("Next Periodic Launch = "), "{status}");
    assert!(status.contains("Previously Launched Jobs"), "{status}");

    let out = agent.nomad(&["job", "periodic", "force", "-detach", "tick"]);
    assert_exit(&out, 0);
    let text = stdout(&out);
    assert!(
        text.starts_with("Force periodic successful\nEvaluation ID: "),
        "{text}"
    );
    let eval_id = text
        .trim()
        .rsplit(' ')
        .next()
        .unwrap_or_default()
        .to_string();
    let eval = agent.get(&format!("/v1/evaluation/{eval_id}"));
    assert_eq!(eval["TriggeredBy"], "periodic-job");

    let plain = write(&agent, "plain.hcl", &job_hcl(1, "10s"));
    assert_exit(&agent.nomad(&["job", "run", "-detach", &plain]), 0);
    let out = agent.nomad(&["job", "periodic", "force", "example"]);
    assert_exit(&out, 1);
    assert!(stderr(&out).contains("No periodic job(s) with prefix or ID \"example\" found"));
}

#[test]
fn scale_changes_the_count_within_policy_and_records_events() {
    let agent = Agent::dev();
    let hcl = job_hcl(1, "1000s").replace(
        "    count = 1\n",
        "    count = 1\n    scaling {\n      min = 1\n      max = 4\n    }\n    update {\n      min_healthy_time = \"1s\"\n    }\n",
    );
    let path = write(&agent, "s.hcl", &hcl);
    assert_exit(&agent.nomad(&["job", "run", &path]), 0);
    // Scaling waits for the first deployment to finish (Nomad blocks it while active).
    wait_until(Duration::from_secs(30), "deployment done", || {
        let d = agent.get("/v1/job/example/deployment");
        (d["Status"] == "successful").then_some(())
    });

    let out = agent.nomad(&["job", "scale", "-detach", "example", "9"]);
    assert_exit(&out, 1);
    assert!(stderr(&out).contains("group count was greater than scaling policy maximum: 9 > 4"));

    let out = agent.nomad(&["job", "scale", "example", "web", "3"]);
    assert_exit(&out, 0);
    assert!(
        stdout(&out).contains("finished with status \"complete\""),
        "{}",
        stdout(&out)
    );
    let running = wait_until(Duration::from_secs(30), "three running", || {
        let s = agent.get("/v1/job/example/scale");
        (s["TaskGroups"]["web"]["Running"] == 3).then_some(s)
    });
    let web = &running["TaskGroups"]["web"];
    assert_eq!(web["Desired"], 3);
    let event = &web["Events"][0];
    assert_eq!(
        (event["Count"].as_i64(), event["PreviousCount"].as_i64()),
        (Some(3), Some(1))
    );
    assert_eq!(event["Message"], "submitted using the Nomad CLI");
    assert!(event["EvalID"].is_string());

    let out = agent.nomad(&["job", "scale", "example", "nope", "2"]);
    assert_exit(&out, 1);
    assert!(stderr(&out).contains("Group nope not found within job"));

    let events = agent.nomad(&["job", "scaling-events", "example"]);
    assert_exit(&events, 0);
    let text = stdout(&events);
    let lines: Vec<&str> = text.lines().collect();
    assert!(
        lines[0].starts_with("Task Group  Count  PrevCount  Date"),
        "{text}"
    );
    assert!(
        lines[1].starts_with("web         3      1          "),
        "{text}"
    );

    let deps = agent.nomad(&["job", "deployments", "example"]);
    assert_exit(&deps, 0);
    let text = stdout(&deps);
    assert!(
        text.starts_with("ID        Job ID   Job Version  Status"),
        "{text}"
    );
    assert!(text.lines().count() >= 3, "two deployments: {text}");
    let latest = agent.nomad(&["job", "deployments", "-latest", "example"]);
    assert_exit(&latest, 0);
    assert!(
        stdout(&latest).contains("Job Version = 1"),
        "{}",
        stdout(&latest)
    );
}

#[test]
fn job_eval_inspect_versions_and_run_stop_options() {
    let agent = Agent::dev();
    let path = write(&agent, "j.hcl", &job_hcl(1, "1000s"));
    assert_exit(&agent.nomad(&["job", "run", "-detach", &path]), 0);
    // A re-run with -preserve-counts keeps the running count; -eval-priority sets the eval's.
    let path3 = write(&agent, "j3.hcl", &job_hcl(3, "2000s"));
    let out = agent.nomad(&[
        "job",
        "run",
        "-detach",
        "-preserve-counts",
        "-eval-priority",
        "77",
        &path3,
    ]);
    assert_exit(&out, 0);
    let job = agent.get("/v1/job/example");
    assert_eq!(
        (
            job["Version"].as_u64(),
            job["TaskGroups"][0]["Count"].as_u64()
        ),
        (Some(1), Some(1))
    );
    let evals = agent.get("/v1/job/example/evaluations");
    assert!(
        evals
            .as_array()
            .expect("evals")
            .iter()
            .any(|e| e["Priority"] == 77),
        "{evals}"
    );
    let bad = agent.nomad(&["job", "run", "-eval-priority", "101", &path3]);
    assert_exit(&bad, 1);
    assert!(
        stderr(&bad).contains("Eval priority must be between 1 and 100 inclusively"),
        "{}",
        stderr(&bad)
    );

    // inspect -version picks an older version; a missing one is an error.
    let v0 = agent.nomad(&["job", "inspect", "-json", "-version", "0", "example"]);
    assert_exit(&v0, 0);
    let v0: Value = serde_json::from_str(&stdout(&v0)).expect("json");
    assert_eq!(v0["Version"], 0);
    assert_eq!(
        v0["TaskGroups"][0]["Tasks"][0]["Config"]["run_for"],
        "1000s"
    );
    let none = agent.nomad(&["job", "inspect", "-version", "9", "example"]);
    assert_exit(&none, 1);
    assert!(
        stderr(&none).contains(r#"job "example" with version 9 couldn't be found"#),
        "{}",
        stderr(&none)
    );

    // job eval: a new eval, monitored or detached. The earlier evals must be done first: a
    // lower-priority eval still pending behind the priority-77 one would be superseded by it
    // (canceled), as in Nomad's broker.
    wait_until(Duration::from_secs(30), "earlier evals terminal", || {
        let evals = agent.get("/v1/job/example/evaluations");
        evals
            .as_array()?
            .iter()
            .all(|e| !matches!(e["Status"].as_str(), Some("pending" | "blocked")))
            .then_some(())
    });
    let out = agent.nomad(&["job", "eval", "example"]);
    assert_exit(&out, 0);
    assert!(
        stdout(&out).contains("finished with status \"complete\""),
        "{}",
        stdout(&out)
    );
    let out = agent.nomad(&["job", "eval", "-detach", "-force-reschedule", "example"]);
    assert_exit(&out, 0);
    assert!(
        stdout(&out).starts_with("Created eval ID: \""),
        "{}",
        stdout(&out)
    );
    let (code, body) = http(
        "PUT",
        &format!("{}/v1/job/example/evaluate", agent.addr()),
        Some(r#"{"JobID":"other"}"#),
    )
    .expect("evaluate");
    assert_eq!((code, body.as_str()), (400, "JobID not same as job name"));

    // stop with an eval priority and no shutdown delay.
    let out = agent.nomad(&[
        "job",
        "stop",
        "-detach",
        "-eval-priority",
        "88",
        "-no-shutdown-delay",
        "example",
    ]);
    assert_exit(&out, 0);
    let eval_id = stdout(&out).trim().to_string();
    let eval = agent.get(&format!("/v1/evaluation/{eval_id}"));
    assert_eq!(
        (eval["Priority"].as_i64(), eval["TriggeredBy"].as_str()),
        (Some(88), Some("job-deregister"))
    );
    let allocs = agent.get("/v1/job/example/allocations");
    assert!(
        allocs
            .as_array()
            .expect("allocs")
            .iter()
            .filter(|a| a["JobVersion"] == 1)
            .all(|a| a["DesiredTransition"]["NoShutdownDelay"] == true),
        "{allocs}"
    );
}

#[test]
fn a_periodic_launch_missed_while_no_leader_ran_happens_on_restart() {
    let mut agent = Agent::start(AgentOpts {
        dev: false,
        data_dir: true,
        ..Default::default()
    });
    // One launch, a few seconds from now (seconds, minute, hour, day, month, weekday, year).
    let at = chrono::Utc::now() + chrono::Duration::seconds(4);
    let spec = at.format("%S %M %H %d %m * %Y").to_string();
    let hcl = format!(
        r#"job "once" {{
  type = "batch"
  periodic {{
    crons = ["{spec}"]
  }}
  group "g" {{
    task "t" {{
      driver = "mock_driver"
      config {{
        run_for = "100ms"
      }}
      resources {{
        cpu    = 20
        memory = 20
      }}
    }}
  }}
}}
"#
    );
    let path = write(&agent, "once.hcl", &hcl);
    assert_exit(&agent.nomad(&["job", "run", "-detach", &path]), 0);
    // The only server goes down before the launch time and comes back after it.
    agent.kill9();
    wait_until(Duration::from_secs(30), "the launch time to pass", || {
        (chrono::Utc::now() > at + chrono::Duration::seconds(1)).then_some(())
    });
    agent.restart();
    let child = wait_until(Duration::from_secs(30), "the missed launch", || {
        let jobs = agent.get("/v1/jobs?prefix=once/periodic-");
        let ids: Vec<String> = jobs
            .as_array()?
            .iter()
            .filter_map(|j| j["ID"].as_str().map(String::from))
            .collect();
        (ids.len() == 1).then(|| ids[0].clone())
    });
    let unix: i64 = child["once/periodic-".len()..]
        .parse()
        .expect("unix seconds");
    assert!(unix >= at.timestamp(), "{child} launched before {at}");
}

#[test]
fn job_restart_restarts_in_place_and_reschedules_in_batches() {
    let agent = Agent::dev();
    let hcl = job_hcl(2, "1000s").replace(
        "    count = 2\n",
        "    count = 2\n    update {\n      min_healthy_time = \"1s\"\n    }\n",
    );
    let path = write(&agent, "r.hcl", &hcl);
    assert_exit(&agent.nomad(&["job", "run", &path]), 0);
    let deployment_done = || {
        wait_until(Duration::from_secs(30), "deployment done", || {
            let d = agent.get("/v1/job/example/deployment");
            (d["Status"] == "successful").then_some(())
        })
    };
    deployment_done();

    // Not a terminal and no -yes: "ask" cannot be used.
    let out = agent.nomad(&["job", "restart", "example"]);
    assert_exit(&out, 1);
    assert!(stderr(&out).contains("\"ask\" cannot be used when terminal is not interactive"));

    let out = agent.nomad(&["job", "restart", "-yes", "-batch-size", "50%", "example"]);
    assert_exit(&out, 0);
    let text = stdout(&out);
    assert!(text.contains(": Restarting 2 allocations"), "{text}");
    assert!(
        text.contains("Restarting running tasks in allocation"),
        "{text}"
    );
    assert!(text.ends_with("Job restarted successfully!\n"), "{text}");
    wait_until(Duration::from_secs(30), "both tasks restarted", || {
        let allocs = agent.get("/v1/job/example/allocations");
        let restarted = allocs
            .as_array()?
            .iter()
            .filter(|a| a["TaskStates"]["server"]["Restarts"] == 1)
            .count();
        (restarted == 2).then_some(())
    });

    let out = agent.nomad(&[
        "job",
        "restart",
        "-yes",
        "-reschedule",
        "-group",
        "web",
        "example",
    ]);
    assert_exit(&out, 0);
    let text = stdout(&out);
    assert!(text.contains("Rescheduling allocation"), "{text}");
    assert!(text.contains("is \"running\""), "{text}");
    let allocs = agent.get("/v1/job/example/allocations");
    let running = allocs
        .as_array()
        .expect("allocs")
        .iter()
        .filter(|a| a["ClientStatus"] == "running")
        .count();
    assert_eq!(running, 2, "{allocs}");
    let replaced = allocs
        .as_array()
        .expect("allocs")
        .iter()
        .filter(|a| !a["NextAllocation"].as_str().unwrap_or("").is_empty())
        .count();
    assert_eq!(replaced, 2, "{allocs}");

    let none = agent.nomad(&["job", "restart", "-yes", "-group", "nope", "example"]);
    assert_exit(&none, 0);
    assert_eq!(stdout(&none).trim(), "No allocations to restart");
}
