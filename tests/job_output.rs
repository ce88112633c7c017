//! `nomad job run -output` and `POST /v1/jobs/parse` print the job as Nomad's api structs
//! hold it: unset fields `null` until canonicalized.

use serde_json::Value;

use crate::harness::{assert_exit, http, stdout, Agent};

const JOB: &str = r#"
job "out" {
  group "g" {
    task "t" {
      driver = "raw_exec"
      config {
        command = "/bin/true"
      }
      resources {
        memory = 64
      }
    }
  }
}
"#;

#[test]
fn run_output_prints_the_uncanonicalized_request_body() {
    let agent = Agent::dev();
    let file = agent.path("out.nomad.hcl");
    std::fs::write(&file, JOB).expect("write job file");
    let path = file.display().to_string();
    let o = agent.nomad(&["job", "run", "-output", &path]);
    assert_exit(&o, 0);
    let text = stdout(&o);
    assert!(
        text.starts_with("{\n    \"Job\": {\n        \"Region\": null,\n        \"Namespace\": null,\n        \"ID\": \"out\","),
        "{text}"
    );
    let v: Value = serde_json::from_str(&text).expect("-output is JSON");
    let job = &v["Job"];
    assert_eq!(job["Type"], Value::Null);
    assert_eq!(job["Priority"], Value::Null);
    let task = &job["TaskGroups"][0]["Tasks"][0];
    assert_eq!(task["Resources"]["MemoryMB"], 64);
    assert_eq!(task["Resources"]["CPU"], Value::Null);
    assert_eq!(task["KillTimeout"], Value::Null);
    // Nothing was registered.
    let (status, body) =
        http("GET", &format!("{}/v1/job/out", agent.addr()), None).expect("agent answers");
    assert_eq!(status, 404, "{body}");
}

#[test]
fn jobs_parse_answers_as_parsed_or_api_canonicalized() {
    let agent = Agent::dev();
    let url = format!("{}/v1/jobs/parse", agent.addr());
    let parse = |canonicalize: bool| -> Value {
        let req = serde_json::json!({"JobHCL": JOB, "Canonicalize": canonicalize});
        let (status, body) = http("POST", &url, Some(&req.to_string())).expect("agent answers");
        assert_eq!(status, 200, "{body}");
        serde_json::from_str(&body).expect("JSON job")
    };
    let raw = parse(false);
    assert_eq!(raw["Type"], Value::Null);
    assert_eq!(raw["TaskGroups"][0]["Count"], Value::Null);
    assert_eq!(
        raw["TaskGroups"][0]["Tasks"][0]["Resources"]["CPU"],
        Value::Null
    );

    let canon = parse(true);
    assert_eq!(canon["Type"], "service");
    assert_eq!(canon["Priority"], 50);
    assert_eq!(
        canon["NodePool"], "",
        "the api's Canonicalize leaves the pool to the server"
    );
    assert_eq!(canon["Meta"], Value::Null);
    let tg = &canon["TaskGroups"][0];
    assert_eq!(tg["Count"], 1);
    assert_eq!(tg["Constraints"], Value::Null);
    assert_eq!(tg["Tasks"][0]["Resources"]["CPU"], 100);
    assert_eq!(tg["Tasks"][0]["Resources"]["DiskMB"], Value::Null);
    assert_eq!(canon["Update"]["HealthCheck"], "checks");
}
