//! Deployments through the real agent: canaries with manual promotion, auto-revert of a
//! failing update to the last stable version, and `deployment status -monitor` following both.

use std::time::Duration;

use serde_json::Value;

use crate::harness::*;

fn job_hcl(run_for: &str, exit_code: i32, update: &str) -> String {
    format!(
        r#"job "web" {{
  datacenters = ["dc*"]
  group "g" {{
    count = 2
    update {{
{update}
    }}
    restart {{
      attempts = 0
      mode     = "fail"
    }}
    reschedule {{
      attempts  = 0
      unlimited = false
    }}
    task "t" {{
      driver = "mock_driver"
      config {{
        run_for   = "{run_for}"
        exit_code = {exit_code}
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

fn run_job(agent: &Agent, hcl: &str) {
    agent.run_detached("web.nomad.hcl", hcl);
}

/// The job's deployment for `version`, once `pred` holds for it.
fn wait_deployment(
    agent: &Agent,
    version: u64,
    what: &str,
    pred: impl Fn(&Value) -> bool,
) -> Value {
    wait_until(Duration::from_secs(90), what, || {
        let list = agent.get("/v1/job/web/deployments");
        list.as_array()?
            .iter()
            .find(|d| d["JobVersion"] == version && pred(d))
            .cloned()
    })
}

fn running_at(agent: &Agent, version: u64) -> usize {
    let allocs = agent.get("/v1/job/web/allocations");
    allocs
        .as_array()
        .map(|a| {
            a.iter()
                .filter(|a| a["ClientStatus"] == "running" && a["DesiredStatus"] == "run")
                .filter(|a| a["JobVersion"] == version)
                .count()
        })
        .unwrap_or(0)
}

const CANARY: &str = r#"      max_parallel     = 1
      canary           = 1
      auto_promote     = false
      min_healthy_time = "1s"
      healthy_deadline = "30s"
      progress_deadline = "60s""#;

#[test]
fn canary_waits_for_promotion_then_rolls_the_rest() {
    let agent = Agent::dev();
    run_job(&agent, &job_hcl("1h", 0, CANARY));
    let d0 = wait_deployment(&agent, 0, "first deployment successful", |d| {
        d["Status"] == "successful"
    });
    assert_eq!(d0["StatusDescription"], "Deployment completed successfully");
    let history = stdout(&agent.nomad(&["job", "history", "web"]));
    assert!(history.contains("Stable      = true"), "{history}");

    run_job(&agent, &job_hcl("2h", 0, CANARY));
    let d1 = wait_deployment(&agent, 1, "healthy canary awaiting promotion", |d| {
        d["TaskGroups"]["g"]["HealthyAllocs"] == 1 && d["TaskGroups"]["g"]["DesiredCanaries"] == 1
    });
    assert_eq!(
        d1["StatusDescription"],
        "Deployment is running but requires manual promotion"
    );
    // The canary runs beside both old allocs; nothing else moved.
    std::thread::sleep(Duration::from_secs(2));
    assert_eq!(running_at(&agent, 0), 2);
    assert_eq!(running_at(&agent, 1), 1);
    let id = d1["ID"].as_str().expect("deployment ID").to_string();

    let status = stdout(&agent.nomad(&["deployment", "status", &id[..8]]));
    for needle in [
        "Promoted",
        "Canaries",
        "requires manual promotion",
        "Deployed",
    ] {
        assert!(status.contains(needle), "{needle:?} in:\n{status}");
    }
    let list = stdout(&agent.nomad(&["deployment", "list"]));
    assert!(list.contains(&id[..8]), "{list}");
    let js = stdout(&agent.nomad(&["job", "status", "web"]));
    assert!(js.contains("Latest Deployment"), "{js}");

    let out = agent.nomad(&["job", "promote", "-detach", "web"]);
    assert_exit(&out, 0);
    assert!(stdout(&out).contains("Evaluation ID:"), "{}", stdout(&out));

    wait_deployment(&agent, 1, "promoted deployment successful", |d| {
        d["Status"] == "successful"
    });
    wait_until(Duration::from_secs(30), "all allocs on version 1", || {
        (running_at(&agent, 1) == 2 && running_at(&agent, 0) == 0).then_some(())
    });
    let d = agent.get(&format!("/v1/deployment/{id}"));
    assert_eq!(d["TaskGroups"]["g"]["Promoted"], true);
    let allocs = agent.get(&format!("/v1/deployment/allocations/{id}"));
    assert_eq!(allocs.as_array().map(Vec::len), Some(2));
}

#[test]
fn failing_update_auto_reverts_to_the_stable_version() {
    let agent = Agent::dev();
    let update = r#"      max_parallel     = 1
      auto_revert      = true
      min_healthy_time = "1s"
      healthy_deadline = "20s"
      progress_deadline = "60s""#;
    run_job(&agent, &job_hcl("1h", 0, update));
    wait_deployment(&agent, 0, "first deployment successful", |d| {
        d["Status"] == "successful"
    });

    // Version 1 exits with an error at once: its alloc is unhealthy. `deployment status
    // -monitor` follows it to "failed" and then the rollback's deployment to "successful";
    // like Nomad it exits 0 either way.
    run_job(&agent, &job_hcl("200ms", 1, update));
    let d1 = wait_deployment(&agent, 1, "deployment of version 1", |_| true);
    let d1_id = d1["ID"].as_str().expect("deployment ID").to_string();
    let out = agent.nomad(&["deployment", "status", "-monitor", "-wait", "1s", &d1_id]);
    assert_exit(&out, 0);
    let text = stdout(&out);
    let first = text.lines().next().unwrap_or_default();
    assert!(
        first.ends_with(&format!(": Monitoring deployment {:?}", &d1_id[..8])),
        "{text}"
    );
    let failed_at = text.find("Status      = failed").expect("failed block");
    let revert_at = text.rfind("Job Version = 2").expect("rollback block");
    let success_at = text
        .rfind("Status      = successful")
        .expect("success block");
    assert!(failed_at < revert_at && revert_at < success_at, "{text}");
    let bad = agent.nomad(&["deployment", "status", "-monitor", "-json", &d1_id]);
    assert_exit(&bad, 1);
    assert_eq!(
        stderr(&bad).trim(),
        "The monitor flag cannot be used with the '-json' or '-t' flags"
    );
    let failed = wait_deployment(&agent, 1, "failed deployment", |d| d["Status"] == "failed");
    assert_eq!(
        failed["StatusDescription"],
        "Failed due to unhealthy allocations - rolling back to job version 0"
    );
    // The revert registered version 0's spec as version 2, which rolls out and succeeds.
    let job = wait_until(Duration::from_secs(30), "job version 2", || {
        let j = agent.get("/v1/job/web");
        (j["Version"] == 2).then_some(j)
    });
    assert_eq!(
        job["TaskGroups"][0]["Tasks"][0]["Config"]["run_for"], "1h",
        "{job}"
    );
    wait_deployment(&agent, 2, "revert deployment successful", |d| {
        d["Status"] == "successful"
    });
    wait_until(Duration::from_secs(30), "two allocs on version 2", || {
        (running_at(&agent, 2) == 2).then_some(())
    });

    // `job revert` to version 1 registers its spec again as version 3; the current
    // version cannot be reverted to.
    let out = agent.nomad(&["job", "revert", "-detach", "web", "1"]);
    assert_exit(&out, 0);
    assert!(stdout(&out).contains("Evaluation ID:"), "{}", stdout(&out));
    let history = stdout(&agent.nomad(&["job", "history", "-version", "3", "web"]));
    assert!(history.contains("Version     = 3"), "{history}");
    let out = agent.nomad(&["job", "revert", "web", "3"]);
    assert_exit(&out, 1);
    assert!(
        stderr(&out).contains("can't revert to current version"),
        "{}",
        stderr(&out)
    );
}

fn checked_job(check_path: &str) -> String {
    format!(
        r#"job "web" {{
  datacenters = ["dc*"]
  group "g" {{
    count = 2
    network {{
      port "http" {{}}
    }}
    update {{
      health_check      = "checks"
      min_healthy_time  = "1s"
      healthy_deadline  = "6s"
      progress_deadline = "8s"
    }}
    service {{
      name     = "web"
      port     = "http"
      provider = "nomad"
      check {{
        type     = "http"
        path     = "{check_path}"
        interval = "500ms"
        timeout  = "2s"
      }}
    }}
    task "server" {{
      driver = "raw_exec"
      config {{
        command = "python3"
        args    = ["-m", "http.server", "${{NOMAD_PORT_http}}", "--bind", "${{NOMAD_IP_http}}"]
      }}
      resources {{
        cpu    = 50
        memory = 64
      }}
    }}
  }}
}}
"#
    )
}

#[test]
fn checks_health_waits_for_passing_service_checks() {
    let agent = Agent::dev();
    run_job(&agent, &checked_job("/"));
    let d = wait_deployment(&agent, 0, "deployment successful", |d| {
        d["Status"] == "successful"
    });
    assert_eq!(d["TaskGroups"]["g"]["HealthyAllocs"], 2);
    let allocs = agent.get("/v1/job/web/allocations");
    for a in allocs.as_array().expect("allocs") {
        let full = agent.get(&format!("/v1/allocation/{}", a["ID"].as_str().expect("ID")));
        assert_eq!(full["DeploymentStatus"]["Healthy"], true, "{full}");
        assert_eq!(full["DeploymentStatus"]["Canary"], false);
    }

    // A new version whose check keeps failing never becomes healthy, though its task runs:
    // the deployment fails (task_states alone would have passed it).
    run_job(&agent, &checked_job("/missing"));
    let d = wait_deployment(&agent, 1, "deployment failed", |d| d["Status"] == "failed");
    assert_eq!(d["TaskGroups"]["g"]["HealthyAllocs"], 0, "{d}");
    let unhealthy = agent
        .get("/v1/job/web/allocations")
        .as_array()
        .expect("allocs")
        .iter()
        .filter(|a| a["JobVersion"] == 1)
        .map(|a| agent.get(&format!("/v1/allocation/{}", a["ID"].as_str().expect("ID"))))
        .find(|a| a["DeploymentStatus"]["Healthy"] == false);
    assert!(
        unhealthy.is_some(),
        "an alloc of version 1 reported unhealthy"
    );
}

const ROLLING: &str = r#"      max_parallel      = 1
      min_healthy_time  = "1s"
      healthy_deadline  = "30s"
      progress_deadline = "60s""#;

#[test]
fn pause_holds_a_rolling_update_resume_continues_and_fail_stops_it() {
    let agent = Agent::dev();
    run_job(&agent, &job_hcl("1h", 0, ROLLING));
    wait_deployment(&agent, 0, "first deployment successful", |d| {
        d["Status"] == "successful"
    });

    run_job(&agent, &job_hcl("2h", 0, ROLLING));
    let d = wait_deployment(&agent, 1, "the rolling update started", |d| {
        d["Status"] == "running" && d["TaskGroups"]["g"]["PlacedAllocs"] == 1
    });
    let id = d["ID"].as_str().expect("ID").to_string();
    let out = agent.nomad(&["deployment", "pause", &id]);
    assert_exit(&out, 0);
    assert_eq!(stdout(&out).trim(), format!("Deployment \"{id}\" paused"));
    let paused = agent.get(&format!("/v1/deployment/{id}"));
    assert_eq!(paused["Status"], "paused");
    assert_eq!(paused["StatusDescription"], "Deployment is paused");
    // Paused: the first new alloc becomes healthy, but no second one is placed.
    wait_until(
        Duration::from_secs(30),
        "the first new alloc healthy",
        || {
            let d = agent.get(&format!("/v1/deployment/{id}"));
            (d["TaskGroups"]["g"]["HealthyAllocs"] == 1).then_some(())
        },
    );
    std::thread::sleep(Duration::from_secs(2));
    let d = agent.get(&format!("/v1/deployment/{id}"));
    assert_eq!(d["TaskGroups"]["g"]["PlacedAllocs"], 1, "{d}");
    assert_eq!(running_at(&agent, 0), 1);

    let out = agent.nomad(&["deployment", "resume", &id]);
    assert_exit(&out, 0);
    // Without -detach the CLI then monitors the eval it created, as Nomad's does.
    let resumed = stdout(&out);
    assert!(
        resumed.starts_with(&format!("Deployment \"{id}\" resumed")),
        "{resumed}"
    );
    assert!(resumed.contains("Monitoring evaluation"), "{resumed}");
    wait_deployment(&agent, 1, "resumed deployment successful", |d| {
        d["Status"] == "successful"
    });
    assert_eq!(running_at(&agent, 1), 2);

    // A third version, failed by hand mid-way: it stops rolling.
    run_job(&agent, &job_hcl("3h", 0, ROLLING));
    let d = wait_deployment(&agent, 2, "the third rolling update started", |d| {
        d["Status"] == "running" && d["TaskGroups"]["g"]["PlacedAllocs"] == 1
    });
    let id = d["ID"].as_str().expect("ID").to_string();
    let out = agent.nomad(&["deployment", "fail", &id]);
    assert_exit(&out, 0);
    assert!(stdout(&out).starts_with(&format!("Deployment \"{id}\" failed")));
    let failed = agent.get(&format!("/v1/deployment/{id}"));
    assert_eq!(failed["Status"], "failed");
    assert_eq!(failed["StatusDescription"], "Deployment marked as failed");
    std::thread::sleep(Duration::from_secs(3));
    let d = agent.get(&format!("/v1/deployment/{id}"));
    assert_eq!(d["TaskGroups"]["g"]["PlacedAllocs"], 1, "{d}");
    // Nothing else of version 2 was placed; version 1 keeps the alloc it still has.
    assert_eq!(running_at(&agent, 1), 1);

    // Failing a deployment that is no longer running is an error, as in Nomad.
    let out = agent.nomad(&["deployment", "fail", &id]);
    assert_exit(&out, 1);
    assert!(
        stderr(&out).contains("can't fail terminal deployment"),
        "{}",
        stderr(&out)
    );
}

/// `job run` without `-detach` goes on from the eval to its deployment, as Nomad's monitor:
/// exit 0 once the deployment is successful, 1 when it fails; `job stop` of the job exits 0
/// even though it cancels a running deployment (the end it asked for).
#[test]
fn job_run_follows_the_deployment_and_exits_by_its_outcome() {
    let agent = Agent::dev();
    let path = agent.path("web.nomad.hcl");
    let update = "      min_healthy_time = \"100ms\"\n      healthy_deadline = \"5s\"\n      progress_deadline = \"10s\"";
    std::fs::write(&path, job_hcl("600s", 0, update)).expect("write job");
    let out = agent.nomad(&["job", "run", path.to_str().expect("path")]);
    assert_exit(&out, 0);
    let text = stdout(&out);
    for needle in [
        "Evaluation within deployment:",
        "Monitoring deployment",
        "Status      = successful",
        "Description = Deployment completed successfully",
    ] {
        assert!(text.contains(needle), "job run lacks {needle:?}:\n{text}");
    }
    // The plain (non-TTY) blocks carry Nomad's output prefix on their first line.
    assert!(text.contains("\n    \n"), "{text}");

    // A version whose tasks fail: the deployment fails and so does `job run`.
    std::fs::write(&path, job_hcl("50ms", 1, update)).expect("write job");
    let out = agent.nomad(&["job", "run", path.to_str().expect("path")]);
    assert_exit(&out, 1);
    let text = stdout(&out);
    assert!(text.contains("Status      = failed"), "{text}");

    // A third version with a deployment still running when the job is stopped.
    let slow = "      min_healthy_time = \"60s\"\n      healthy_deadline = \"120s\"\n      progress_deadline = \"180s\"";
    std::fs::write(&path, job_hcl("600s", 0, slow)).expect("write job");
    assert_exit(
        &agent.nomad(&["job", "run", "-detach", path.to_str().expect("path")]),
        0,
    );
    wait_deployment(&agent, 2, "version 2 deployment running", |d| {
        d["Status"] == "running"
    });
    let out = agent.nomad(&["job", "stop", "web"]);
    assert_exit(&out, 0);
    let text = stdout(&out);
    assert!(
        text.contains("Description = Cancelled because job is stopped"),
        "{text}"
    );
}
