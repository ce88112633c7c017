//! Nomad-native service checks through the real agent: a raw_exec task serving HTTP
//! (python3's http.server) is probed by http and tcp checks (`nomad alloc checks`,
//! `/v1/client/allocation/<id>/checks`), and a check that keeps failing restarts its task
//! through `check_restart` with Nomad's event; script checks run inside their raw_exec task
//! and restart it the same way, and an unknown check type is refused at validation.

use std::time::Duration;

use serde_json::Value;

use crate::harness::*;

fn job(name: &str, check_path: &str, check_restart: &str) -> String {
    format!(
        r#"job "{name}" {{
  datacenters = ["dc*"]
  group "web" {{
    network {{
      port "http" {{}}
    }}
    restart {{
      attempts = 5
      delay    = "1s"
      mode     = "fail"
    }}
    service {{
      name     = "{name}-web"
      port     = "http"
      provider = "nomad"
      check {{
        name     = "alive"
        type     = "http"
        path     = "{check_path}"
        interval = "1s"
        timeout  = "2s"
        task     = "server"
        {check_restart}
      }}
      check {{
        name     = "port"
        type     = "tcp"
        interval = "1s"
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

fn run_job(agent: &Agent, name: &str, hcl: &str) -> String {
    agent.run_detached(&format!("{name}.nomad.hcl"), hcl);
    let alloc = agent.wait_alloc(name, "alloc running", |a| a["ClientStatus"] == "running");
    alloc["ID"].as_str().expect("alloc id").to_string()
}

fn checks(agent: &Agent, alloc_id: &str) -> Value {
    agent.get(&format!("/v1/client/allocation/{alloc_id}/checks"))
}

fn status_of<'a>(checks: &'a Value, name: &str) -> Option<&'a Value> {
    checks.as_object()?.values().find(|c| c["Check"] == name)
}

#[test]
fn alloc_checks_reports_http_and_tcp_checks_passing() {
    let agent = Agent::dev();
    let alloc_id = run_job(&agent, "site", &job("site", "/", ""));
    let all = wait_until(Duration::from_secs(60), "both checks pass", || {
        let c = checks(&agent, &alloc_id);
        let ok = ["alive", "port"]
            .iter()
            .all(|n| status_of(&c, n).is_some_and(|s| s["Status"] == "success"));
        ok.then_some(c)
    });
    let http = status_of(&all, "alive").expect("alive");
    assert_eq!(http["StatusCode"], 200);
    assert_eq!(http["Output"], "nomad: http ok");
    assert_eq!(http["Mode"], "healthiness");
    assert_eq!(http["Group"], "site.web[0]");
    assert_eq!(http["Service"], "site-web");
    assert_eq!(http["ID"].as_str().map(str::len), Some(64), "{http}");
    let tcp = status_of(&all, "port").expect("port");
    assert_eq!(tcp["Output"], "nomad: tcp ok");
    assert!(tcp.get("StatusCode").is_none(), "omitted when zero: {tcp}");

    let out = agent.nomad(&["alloc", "checks", &alloc_id[..8]]);
    assert_exit(&out, 0);
    let text = stdout(&out);
    assert!(
        text.starts_with("Status of 2 Nomad Service Checks\n\n"),
        "{text}"
    );
    assert!(text.contains("Name        =  alive"), "{text}");
    assert!(text.contains("Task        =  (group)"), "{text}");
    assert!(text.contains("Status      =  success"), "{text}");
    assert!(text.contains("StatusCode  =  200"), "{text}");
    assert!(text.contains("Output      =  nomad: http ok"), "{text}");

    let json = agent.nomad(&["alloc", "checks", "-json", &alloc_id]);
    assert_exit(&json, 0);
    let v: Value = serde_json::from_str(&stdout(&json)).expect("json");
    let tcp = status_of(&v, "port").expect("port in -json");
    assert_eq!(
        tcp["StatusCode"], 0,
        "the API client's struct has no omitempty"
    );
    assert_eq!(tcp["Task"], "");

    let none = agent.nomad(&["alloc", "checks"]);
    assert_exit(&none, 1);
    assert!(stderr(&none).contains("An allocation ID is required"));
}

#[test]
fn failing_check_restarts_its_task_with_nomads_event() {
    let agent = Agent::dev();
    let restart = "check_restart {\n          limit = 2\n          grace = \"1s\"\n        }";
    let alloc_id = run_job(&agent, "broken", &job("broken", "/missing", restart));
    let c = wait_until(Duration::from_secs(60), "check fails", || {
        let c = checks(&agent, &alloc_id);
        status_of(&c, "alive")
            .filter(|s| s["Status"] == "failure" && s["StatusCode"] == 404)
            .cloned()
    });
    assert!(
        c["Output"].as_str().is_some_and(|o| o.contains("404")),
        "{c}"
    );
    let (_, signaled) = restart_signaled(&agent, &alloc_id, "server");
    assert_eq!(
        signaled["Details"]["restart_reason"],
        "healthcheck: check \"alive\" unhealthy"
    );
}

const SCRIPT_JOB: &str = r#"job "scripted" {
  datacenters = ["dc*"]
  group "g" {
    restart {
      attempts = 5
      delay    = "1s"
      mode     = "fail"
    }
    task "worker" {
      driver = "raw_exec"
      config {
        command = "/bin/sh"
        args    = ["-c", "exec sleep 600"]
      }
      service {
        name     = "scripted-worker"
        provider = "nomad"
        check {
          name     = "fine"
          type     = "script"
          command  = "/bin/sh"
          args     = ["-c", "exit 0"]
          interval = "1s"
          timeout  = "2s"
        }
        check {
          name     = "alive"
          type     = "script"
          command  = "/bin/sh"
          args     = ["-c", "echo unhealthy-${NOMAD_TASK_NAME}; exit 2"]
          interval = "1s"
          timeout  = "2s"
          check_restart {
            limit = 2
            grace = "1s"
          }
        }
      }
      resources {
        cpu    = 20
        memory = 32
      }
    }
  }
}
"#;

#[test]
fn script_checks_run_in_their_task_and_a_failing_one_restarts_it() {
    let agent = Agent::dev();
    let alloc_id = run_job(&agent, "scripted", SCRIPT_JOB);
    let all = wait_until(Duration::from_secs(60), "script checks ran", || {
        let c = checks(&agent, &alloc_id);
        let fine = status_of(&c, "fine").is_some_and(|s| s["Status"] == "success");
        let alive = status_of(&c, "alive").is_some_and(|s| s["Status"] == "failure");
        (fine && alive).then_some(c)
    });
    let fine = status_of(&all, "fine").expect("fine");
    assert_eq!(fine["Output"], "", "{fine}");
    assert_eq!(fine["Task"], "worker");
    assert_eq!(fine["Service"], "scripted-worker");
    assert_eq!(fine["Mode"], "healthiness");
    assert!(fine.get("StatusCode").is_none(), "{fine}");
    let alive = status_of(&all, "alive").expect("alive");
    assert_eq!(alive["Output"], "unhealthy-worker\n", "{alive}");

    let (alloc, signaled) = restart_signaled(&agent, &alloc_id, "worker");
    assert_eq!(
        signaled["Details"]["restart_reason"],
        "healthcheck: check \"alive\" unhealthy"
    );
    // The passing check never restarted anything: one restart reason, the failing check's.
    let events = alloc["TaskStates"]["worker"]["Events"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    assert!(
        events
            .iter()
            .filter(|e| e["Type"] == "Restart Signaled")
            .all(|e| e["Details"]["restart_reason"] == "healthcheck: check \"alive\" unhealthy"),
        "{events:?}"
    );

    let out = agent.nomad(&["alloc", "checks", &alloc_id]);
    assert_exit(&out, 0);
    let text = stdout(&out);
    let field = |name: &str, value: &str| {
        text.lines()
            .any(|l| l.starts_with(name) && l.ends_with(&format!("=  {value}")))
    };
    assert!(field("Name", "fine") && field("Name", "alive"), "{text}");
    assert!(field("Task", "worker"), "{text}");
    assert!(field("Output", "unhealthy-worker"), "{text}");
}

#[test]
fn unknown_check_type_of_a_nomad_service_is_rejected_naming_service_and_type() {
    let agent = Agent::dev();
    let path = agent.path("grpc.nomad.hcl");
    std::fs::write(
        &path,
        SCRIPT_JOB
            .replace("job \"scripted\"", "job \"grpcjob\"")
            .replace("type     = \"script\"\n          command  = \"/bin/sh\"\n          args     = [\"-c\", \"exit 0\"]", "type     = \"grpc\""),
    )
    .expect("write job");
    let out = agent.nomad(&["job", "run", "-detach", path.to_str().expect("path")]);
    assert_exit(&out, 1);
    let err = stderr(&out);
    assert!(
        err.contains("service[0] \"scripted-worker\" validation failed: 1 error occurred:"),
        "{err}"
    );
    assert!(
        err.contains("invalid check type (\"grpc\"), must be one of tcp, http, script"),
        "{err}"
    );
    // Nothing was registered.
    let (code, _) = http_get(&format!("{}/v1/job/grpcjob", agent.addr())).expect("GET");
    assert_eq!(code, 404);
}

#[test]
fn script_check_runs_inside_a_docker_container() {
    if !crate::docker::docker_ready() {
        return;
    }
    let agent = Agent::dev();
    let job = r#"job "boxcheck" {
  datacenters = ["dc*"]
  group "g" {
    task "box" {
      driver = "docker"
      config {
        image   = "nomad-rs-busybox:latest"
        command = "sh"
        args    = ["-c", "echo in-the-box > /tmp/marker; exec sleep 600"]
      }
      service {
        name     = "boxcheck"
        provider = "nomad"
        check {
          name     = "marker"
          type     = "script"
          command  = "cat"
          args     = ["/tmp/marker"]
          interval = "1s"
          timeout  = "5s"
        }
      }
      resources {
        cpu    = 20
        memory = 32
      }
    }
  }
}
"#;
    let alloc_id = run_job(&agent, "boxcheck", job);
    let _guard = crate::docker::ContainerGuard(format!("box-{alloc_id}"));
    let c = wait_until(Duration::from_secs(60), "script check passes", || {
        let c = checks(&agent, &alloc_id);
        status_of(&c, "marker")
            .filter(|s| s["Status"] == "success")
            .cloned()
    });
    // The file exists only inside the container: the check ran there.
    assert_eq!(c["Output"], "in-the-box\n", "{c}");
}

/// Once the task has restarted, the alloc and the task's "Restart Signaled" event.
fn restart_signaled(agent: &Agent, alloc_id: &str, task: &str) -> (Value, Value) {
    let alloc = wait_until(Duration::from_secs(60), "task restarted", || {
        let a = agent.get(&format!("/v1/allocation/{alloc_id}"));
        (a["TaskStates"][task]["Restarts"].as_u64() >= Some(1)).then_some(a)
    });
    let signaled = task_event(&alloc, task, "Restart Signaled");
    (alloc, signaled)
}
