//! Bad input gets a clear error, Nomad's exit code, and nothing registered.

use crate::harness::*;

#[test]
fn malformed_hcl_is_a_positioned_parse_error_and_registers_nothing() {
    let agent = Agent::dev();
    let job = agent.path("broken.nomad.hcl");
    std::fs::write(
        &job,
        "job \"broken\" {\n  group \"g\" {\n    count = \n  }\n",
    )
    .expect("write");
    let out = agent.nomad(&["job", "run", job.to_str().expect("path")]);
    assert_exit(&out, 1);
    let err = stderr(&out) + &stdout(&out);
    assert!(err.contains("Error"), "{err}");
    assert!(
        err.contains("broken.nomad.hcl:"),
        "names the file and position: {err}"
    );
    assert_eq!(agent.get("/v1/jobs"), serde_json::json!([]));
}

#[test]
fn invalid_job_lists_every_problem() {
    let agent = Agent::dev();
    let job = agent.path("invalid.nomad.hcl");
    std::fs::write(
        &job,
        "job \"invalid\" {\n  group \"a\" {\n    count = -1\n    task \"t\" {\n      driver = \"rwa_exec\"\n    }\n  }\n  group \"b\" {\n  }\n}\n",
    )
    .expect("write");
    let out = agent.nomad(&["job", "validate", job.to_str().expect("path")]);
    assert_exit(&out, 1);
    let err = stderr(&out) + &stdout(&out);
    assert!(err.contains("count"), "count < 0 reported: {err}");
    assert!(
        err.to_lowercase().contains("missing tasks"),
        "empty group reported: {err}"
    );
    let out = agent.nomad(&["job", "run", job.to_str().expect("path")]);
    assert_exit(&out, 1);
    assert_eq!(agent.get("/v1/jobs"), serde_json::json!([]));
}

#[test]
fn api_rejects_bad_json_and_invalid_jobs_with_400() {
    let agent = Agent::dev();
    let (code, body) = http(
        "PUT",
        &format!("{}/v1/jobs", agent.addr()),
        Some("{\"Job\": {"),
    )
    .expect("PUT");
    assert_eq!(code, 400, "{body}");
    assert!(!body.is_empty());
    let job = r#"{"Job":{"ID":"x","Name":"x","Type":"service","TaskGroups":[{"Name":"web","Count":1,"Tasks":[]}]}}"#;
    let (code, body) = http("PUT", &format!("{}/v1/jobs", agent.addr()), Some(job)).expect("PUT");
    assert_eq!(code, 400, "{body}");
    assert!(body.contains("Missing tasks for task group"), "{body}");
    let (code, body) = http_get(&format!("{}/v1/job/nope", agent.addr())).expect("GET");
    assert_eq!((code, body.as_str()), (404, "job not found"));
    assert_eq!(agent.get("/v1/jobs"), serde_json::json!([]));
}

#[test]
fn unknown_command_and_flag_exit_1() {
    let agent = Agent::dev();
    assert_exit(&agent.nomad(&["job", "status", "-no-such-flag"]), 1);
    let out = agent.nomad(&["job", "status", "nope"]);
    assert_exit(&out, 1);
    assert!((stdout(&out) + &stderr(&out)).contains("No job(s) with prefix or ID \"nope\" found"));
}

/// A static port another process on the host already holds: the docker task's start fails
/// with a Driver Failure that says the address is in use, and the alloc fails (no hang).
#[test]
fn a_static_port_held_by_another_process_is_a_driver_failure_naming_it() {
    if !crate::docker::docker_ready() {
        return;
    }
    let holder = std::net::TcpListener::bind("0.0.0.0:0").expect("bind a port");
    let port = holder.local_addr().expect("addr").port();
    let agent = Agent::dev();
    let job = agent.path("clash.nomad.hcl");
    std::fs::write(
        &job,
        format!(
            r#"job "clash" {{
  group "g" {{
    network {{
      port "http" {{
        static = {port}
        to     = 8080
      }}
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
      driver = "docker"
      config {{
        image   = "nomad-rs-busybox:latest"
        command = "sleep"
        args    = ["600"]
        ports   = ["http"]
      }}
    }}
  }}
}}
"#
        ),
    )
    .expect("write job");
    assert_exit(
        &agent.nomad(&["job", "run", "-detach", job.to_str().expect("path")]),
        0,
    );
    let alloc = agent.wait_alloc("clash", "alloc failed", |a| a["ClientStatus"] == "failed");
    let id = alloc["ID"].as_str().expect("ID");
    let full = agent.get(&format!("/v1/allocation/{id}"));
    let failure = task_event(&full, "t", "Driver Failure");
    let msg = failure["DisplayMessage"].as_str().unwrap_or_default();
    assert!(
        msg.contains(&port.to_string())
            && (msg.contains("address already in use") || msg.contains("already allocated")),
        "{msg}"
    );
    let status = stdout(&agent.nomad(&["alloc", "status", id]));
    assert!(status.contains("Driver Failure"), "{status}");
    drop(holder);
}
