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
