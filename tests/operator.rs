//! `nomad operator scheduler get-config|set-config` and `/v1/operator/scheduler/configuration`
//! through the real agent: defaults, set with check-and-set, rejected registrations and the
//! paused eval broker; `nomad operator api`.

use std::time::Duration;

use serde_json::Value;

use crate::harness::*;

const JOB: &str = r#"job "op" {
  datacenters = ["dc*"]
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

fn config(agent: &Agent) -> Value {
    agent.get("/v1/operator/scheduler/configuration")
}

#[test]
fn get_and_set_scheduler_config() {
    let agent = Agent::dev();
    let body = config(&agent);
    let c = &body["SchedulerConfig"];
    assert_eq!(c["SchedulerAlgorithm"], "binpack");
    assert_eq!(c["PreemptionConfig"]["SystemSchedulerEnabled"], true);
    assert_eq!(c["PreemptionConfig"]["ServiceSchedulerEnabled"], false);
    assert_eq!(c["NodeLimitForFeasibilityChecks"], 0);
    assert_eq!(body["KnownLeader"], true);

    let out = agent.nomad(&["operator", "scheduler", "get-config"]);
    assert_exit(&out, 0);
    let text = stdout(&out);
    assert!(
        text.contains("Scheduler Algorithm               = binpack"),
        "{text}"
    );
    assert!(
        text.contains("Preemption System Scheduler       = true"),
        "{text}"
    );

    let out = agent.nomad(&[
        "operator",
        "scheduler",
        "set-config",
        "-scheduler-algorithm=spread",
        "-preempt-service-scheduler=true",
        "-memory-oversubscription",
    ]);
    assert_exit(&out, 0);
    assert_eq!(stdout(&out).trim(), "Scheduler configuration updated!");
    let c = config(&agent)["SchedulerConfig"].clone();
    assert_eq!(c["SchedulerAlgorithm"], "spread");
    assert_eq!(c["PreemptionConfig"]["ServiceSchedulerEnabled"], true);
    assert_eq!(c["PreemptionConfig"]["SystemSchedulerEnabled"], true);
    assert_eq!(c["MemoryOversubscriptionEnabled"], true);
    let modify = c["ModifyIndex"].as_u64().expect("index");
    assert!(modify > 0);

    let out = agent.nomad(&["operator", "scheduler", "get-config", "-json"]);
    assert_exit(&out, 0);
    let v: Value = serde_json::from_str(&stdout(&out)).expect("json");
    assert_eq!(v["SchedulerConfig"]["SchedulerAlgorithm"], "spread");

    // A stale check-index is refused by the CLI; a stale ?cas= is Updated: false.
    let stale = (modify - 1).to_string();
    let out = agent.nomad(&[
        "operator",
        "scheduler",
        "set-config",
        "-check-index",
        &stale,
        "-scheduler-algorithm=binpack",
    ]);
    assert_exit(&out, 1);
    assert!(
        stderr(&out).contains(&format!(
            "check-index {stale} does not match does not match current state value {modify}"
        )),
        "{}",
        stderr(&out)
    );
    let url = format!(
        "{}/v1/operator/scheduler/configuration?cas={stale}",
        agent.addr()
    );
    let (code, body) = http("PUT", &url, Some(r#"{"SchedulerAlgorithm":"binpack"}"#)).expect("PUT");
    assert_eq!(code, 200, "{body}");
    let v: Value = serde_json::from_str(&body).expect("json");
    assert_eq!(v["Updated"], false);
    assert_eq!(
        config(&agent)["SchedulerConfig"]["SchedulerAlgorithm"],
        "spread"
    );

    let (code, body) = http(
        "PUT",
        &format!("{}/v1/operator/scheduler/configuration", agent.addr()),
        Some(r#"{"SchedulerAlgorithm":"roundrobin"}"#),
    )
    .expect("PUT");
    assert_eq!(code, 400, "{body}");
    assert!(
        body.contains("invalid scheduler algorithm: roundrobin"),
        "{body}"
    );

    let out = agent.nomad(&["operator", "scheduler", "set-config", "-check-index=x"]);
    assert_exit(&out, 1);
    assert!(stderr(&out).contains("Error parsing check-index value \"x\""));
}

#[test]
fn reject_registration_and_pause_broker() {
    let agent = Agent::dev();
    let path = agent.path("op.nomad.hcl");
    std::fs::write(&path, JOB).expect("write job");
    let file = path.to_str().expect("path");

    let set = |flag: &str| {
        let out = agent.nomad(&["operator", "scheduler", "set-config", flag]);
        assert_exit(&out, 0);
    };
    set("-reject-job-registration=true");
    let out = agent.nomad(&["job", "run", "-detach", file]);
    assert_exit(&out, 1);
    assert!(
        stderr(&out).contains(
            "Job registration, dispatch, and scale are disabled by the scheduler configuration"
        ),
        "{}",
        stderr(&out)
    );
    set("-reject-job-registration=false");

    set("-pause-eval-broker=true");
    let text = stdout(&agent.nomad(&["operator", "scheduler", "get-config"]));
    assert!(
        text.contains("Pause Eval Broker                 = true"),
        "{text}"
    );
    assert_exit(&agent.nomad(&["job", "run", "-detach", file]), 0);
    let eval = wait_until(Duration::from_secs(10), "the job's eval", || {
        agent
            .get("/v1/job/op/evaluations")
            .as_array()?
            .first()
            .cloned()
    });
    // While paused no worker takes the eval; check it twice, a scheduling round apart.
    for _ in 0..2 {
        std::thread::sleep(Duration::from_millis(300));
        let id = eval["ID"].as_str().expect("id");
        assert_eq!(
            agent.get(&format!("/v1/evaluation/{id}"))["Status"],
            "pending"
        );
    }
    set("-pause-eval-broker=false");
    agent.wait_alloc("op", "alloc running after resume", |a| {
        a["ClientStatus"] == "running"
    });
}

#[test]
fn operator_api_queries_with_the_cli_address_and_filter() {
    let agent = Agent::dev();
    let out = agent.nomad(&["operator", "api", "/v1/status/leader"]);
    assert_exit(&out, 0);
    assert!(stdout(&out).starts_with('"'), "{}", stdout(&out));
    let nodes = agent.nomad(&[
        "operator",
        "api",
        "-filter",
        r#"Status == "ready""#,
        "/v1/nodes",
    ]);
    assert_exit(&nodes, 0);
    let list: serde_json::Value = serde_json::from_str(&stdout(&nodes)).expect("json");
    assert_eq!(list.as_array().map(Vec::len), Some(1));
    let none = agent.nomad(&[
        "operator",
        "api",
        "-filter",
        r#"Status == "down""#,
        "/v1/nodes",
    ]);
    assert_eq!(stdout(&none).trim(), "[]");
    let dry = agent.nomad(&["operator", "api", "-dryrun", "-X", "DELETE", "/v1/job/x"]);
    assert_exit(&dry, 0);
    assert_eq!(
        stdout(&dry).trim(),
        format!("curl \\\n  -X DELETE \\\n  {}/v1/job/x", agent.addr())
    );
    let missing = agent.nomad(&["operator", "api"]);
    assert_exit(&missing, 1);
    assert!(stderr(&missing).contains("A path or URL is required"));
}
