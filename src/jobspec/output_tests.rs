//! `output` against JSON derived from Nomad's api structs, and the recorded
//! `POST /v1/jobs/parse` sample of real Nomad 2.0.6 (copied to tests/fixtures/output).

use serde_json::{json, Value};

use super::output::{api_canonical, run_output, uncanonicalized};
use super::{canonicalize, parse_str_recording};

fn as_parsed(src: &str) -> Value {
    let (job, presence) = parse_str_recording(src, "t.nomad.hcl", &[]).expect("job parses");
    uncanonicalized(&job, &presence).to_value()
}

const MINIMAL: &str = r#"
job "m" {
  group "g" {
    task "t" {
      driver = "raw_exec"
    }
  }
}
"#;

fn nulls(keys: &[&str]) -> serde_json::Map<String, Value> {
    keys.iter().map(|k| (k.to_string(), Value::Null)).collect()
}

#[test]
fn minimal_job_prints_every_unset_pointer_as_null() {
    let mut task = nulls(&[
        "Lifecycle",
        "Config",
        "Constraints",
        "Affinities",
        "Env",
        "Services",
        "Resources",
        "RestartPolicy",
        "Meta",
        "KillTimeout",
        "LogConfig",
        "Artifacts",
        "Vault",
        "Consul",
        "Templates",
        "DispatchPayload",
        "VolumeMounts",
        "ScalingPolicies",
        "Secrets",
        "Identity",
        "Identities",
        "Actions",
        "Schedule",
    ]);
    for (k, v) in [
        ("Name", json!("t")),
        ("Driver", json!("raw_exec")),
        ("User", json!("")),
        ("Leader", json!(false)),
        ("ShutdownDelay", json!(0)),
        ("KillSignal", json!("")),
        ("Kind", json!("")),
    ] {
        task.insert(k.to_string(), v);
    }
    let mut group = nulls(&[
        "Count",
        "Constraints",
        "Affinities",
        "Spreads",
        "Volumes",
        "RestartPolicy",
        "Disconnect",
        "ReschedulePolicy",
        "EphemeralDisk",
        "Update",
        "Migrate",
        "Networks",
        "Meta",
        "Services",
        "ShutdownDelay",
        "MaxRunDuration",
        "StopAfterClientDisconnect",
        "MaxClientDisconnect",
        "Scaling",
        "Consul",
        "PreventRescheduleOnLost",
    ]);
    group.insert("Name".into(), json!("g"));
    group.insert("Tasks".into(), json!([task]));
    let mut job = nulls(&[
        "Region",
        "Namespace",
        "Type",
        "Priority",
        "AllAtOnce",
        "Datacenters",
        "NodePool",
        "Constraints",
        "Affinities",
        "Update",
        "Multiregion",
        "Spreads",
        "Periodic",
        "ParameterizedJob",
        "Reschedule",
        "Migrate",
        "Meta",
        "UI",
        "Stop",
        "ParentID",
        "DispatchIdempotencyToken",
        "Payload",
        "ConsulNamespace",
        "VaultNamespace",
        "NomadTokenID",
        "Status",
        "StatusDescription",
        "Stable",
        "Version",
        "SubmitTime",
        "CreateIndex",
        "ModifyIndex",
        "JobModifyIndex",
        "VersionTag",
    ]);
    job.insert("ID".into(), json!("m"));
    job.insert("Name".into(), json!("m"));
    job.insert("Dispatched".into(), json!(false));
    job.insert("TaskGroups".into(), json!([group]));
    assert_eq!(as_parsed(MINIMAL), Value::Object(job));
}

#[test]
fn run_output_is_go_marshal_indent_in_declaration_order() {
    let (job, presence) = parse_str_recording(MINIMAL, "t.nomad.hcl", &[]).expect("parses");
    let text = run_output(&job, &presence);
    assert!(
        text.starts_with("{\n    \"Job\": {\n        \"Region\": null,\n        \"Namespace\": null,\n        \"ID\": \"m\",\n        \"Name\": \"m\",\n        \"Type\": null,"),
        "{text}"
    );
    assert!(
        text.ends_with("        \"VersionTag\": null\n    }\n}"),
        "{text}"
    );
    let keys: Vec<&str> = text
        .lines()
        .filter(|l| l.starts_with("        \"") && !l.starts_with("         "))
        .filter_map(|l| l.trim().strip_prefix('"')?.split('"').next())
        .collect();
    assert_eq!(keys.len(), 38, "{keys:?}");
    assert_eq!(&keys[..5], ["Region", "Namespace", "ID", "Name", "Type"]);
}

const FULL: &str = r#"
job "full" {
  region      = "eu"
  type        = "batch"
  datacenters = ["dc1"]
  meta { owner = "ops" }

  constraint {
    attribute = "${attr.kernel.name}"
    value     = "linux"
  }
  update { max_parallel = 2 }
  reschedule { attempts = 4 }
  migrate { max_parallel = 3 }
  periodic {
    crons = ["*/5 * * * *"]
  }

  task "lone" {
    driver = "exec"
  }

  group "g" {
    count = 2
    restart { attempts = 1 }
    reschedule { delay = "10s" }
    ephemeral_disk { size = 500 }
    network {
      mode = "bridge"
      port "http" { static = 8080 }
      port "grpc" {}
    }
    service {
      name = "svc"
      check {
        type     = "tcp"
        interval = "5s"
        timeout  = "1s"
      }
    }
    task "t" {
      driver       = "docker"
      kill_timeout = "20s"
      config { image = "redis" }
      env { A = "1" }
      logs { max_files = 2 }
      resources {
        memory = 256
      }
      template {
        data        = "x"
        destination = "local/x"
      }
    }
  }
}
"#;

#[test]
fn full_job_keeps_only_what_the_file_set() {
    let v = as_parsed(FULL);
    assert_eq!(v["Region"], json!("eu"));
    assert_eq!(v["Type"], json!("batch"));
    assert_eq!(v["Datacenters"], json!(["dc1"]));
    assert_eq!(v["Meta"], json!({"owner": "ops"}));
    assert_eq!(v["Priority"], Value::Null);
    assert_eq!(
        v["Constraints"],
        json!([{"LTarget": "${attr.kernel.name}", "RTarget": "linux", "Operand": "="}])
    );
    let update = &v["Update"];
    assert_eq!(update["MaxParallel"], json!(2));
    assert_eq!(update["Stagger"], Value::Null);
    // Job-level policies stay on the job, with only the attributes written.
    assert_eq!(v["Reschedule"]["Attempts"], json!(4));
    assert_eq!(v["Reschedule"]["Delay"], Value::Null);
    assert_eq!(v["Migrate"]["MaxParallel"], json!(3));
    assert_eq!(v["Migrate"]["HealthCheck"], Value::Null);
    assert_eq!(v["Periodic"]["Specs"], json!(["*/5 * * * *"]));
    assert_eq!(v["Periodic"]["SpecType"], json!("cron"));

    // jobspec2 makes the lone task a group of its own, listed first, with only a name.
    let lone = &v["TaskGroups"][0];
    assert_eq!(lone["Name"], json!("lone"));
    assert_eq!(lone["Count"], Value::Null);
    assert_eq!(lone["ReschedulePolicy"], Value::Null);
    assert_eq!(lone["Tasks"][0]["Driver"], json!("exec"));

    let g = &v["TaskGroups"][1];
    assert_eq!(g["Count"], json!(2));
    assert_eq!(
        g["Update"],
        Value::Null,
        "the job's update is not copied down"
    );
    assert_eq!(
        g["RestartPolicy"],
        json!({"Interval": null, "Attempts": 1, "Delay": null, "Mode": null, "RenderTemplates": null})
    );
    assert_eq!(g["ReschedulePolicy"]["Delay"], json!(10_000_000_000_i64));
    assert_eq!(
        g["ReschedulePolicy"]["Attempts"],
        Value::Null,
        "not merged from the job"
    );
    assert_eq!(
        g["EphemeralDisk"],
        json!({"Sticky": null, "Migrate": null, "SizeMB": 500})
    );
    let net = &g["Networks"][0];
    assert_eq!(net["Mode"], json!("bridge"));
    assert_eq!(net["MBits"], Value::Null);
    assert_eq!(net["ReservedPorts"][0]["Value"], json!(8080));
    assert_eq!(net["DynamicPorts"][0]["Label"], json!("grpc"));
    let svc = &g["Services"][0];
    assert_eq!(
        svc["Provider"],
        json!(""),
        "defaults are the server's business"
    );
    assert_eq!(svc["Checks"][0]["Interval"], json!(5_000_000_000_i64));
    assert_eq!(svc["Checks"][0]["CheckRestart"], Value::Null);

    let t = &g["Tasks"][0];
    assert_eq!(t["KillTimeout"], json!(20_000_000_000_i64));
    assert_eq!(t["Config"], json!({"image": "redis"}));
    assert_eq!(t["Env"], json!({"A": "1"}));
    assert_eq!(
        t["LogConfig"],
        json!({"MaxFiles": 2, "MaxFileSizeMB": null, "Enabled": null, "Disabled": null})
    );
    assert_eq!(t["Resources"]["MemoryMB"], json!(256));
    assert_eq!(t["Resources"]["CPU"], Value::Null);
    assert_eq!(
        t["RestartPolicy"],
        Value::Null,
        "the group's restart is not copied down"
    );
    // jobspec2's normalizeTemplates fills these.
    let tmpl = &t["Templates"][0];
    assert_eq!(tmpl["ChangeMode"], json!("restart"));
    assert_eq!(tmpl["Perms"], json!("0644"));
    assert_eq!(tmpl["Splay"], json!(5_000_000_000_i64));
    assert_eq!(tmpl["ErrMissingKey"], json!(false));
    assert_eq!(tmpl["Uid"], Value::Null);
}

fn sample(name: &str) -> Value {
    let path = format!(
        "{}/tests/fixtures/output/{name}",
        env!("CARGO_MANIFEST_DIR")
    );
    let text = std::fs::read_to_string(&path).expect("recorded sample");
    serde_json::from_str(&text).expect("sample is JSON")
}

#[test]
fn canonical_parse_matches_the_recorded_nomad_answer() {
    let req = sample("POST_v1_jobs_parse.request.json");
    let hcl = req["JobHCL"].as_str().expect("JobHCL");
    let (job, presence) = parse_str_recording(hcl, "input.hcl", &[]).expect("parses");
    let mut canonical = job.clone();
    canonicalize(&mut canonical);
    let got = api_canonical(&job, &canonical, &presence).to_value();
    let want = sample("POST_v1_jobs_parse.response.json");
    assert_eq!(
        got,
        want,
        "{}",
        serde_json::to_string_pretty(&got).unwrap_or_default()
    );
}

#[test]
fn logs_enabled_numa_iops_and_task_networks_print_as_the_api_holds_them() {
    let src = r#"
job "r" {
  group "g" {
    task "t" {
      driver = "docker"
      logs {
        enabled = false
      }
      resources {
        iops = 5
        numa {
          affinity = "prefer"
        }
        network {
          port "http" {}
        }
      }
    }
  }
}
"#;
    let out = as_parsed(src);
    let task = &out["TaskGroups"][0]["Tasks"][0];
    assert_eq!(
        task["LogConfig"],
        json!({"MaxFiles": null, "MaxFileSizeMB": null, "Enabled": false, "Disabled": null})
    );
    let r = &task["Resources"];
    assert_eq!(r["IOPS"], json!(5));
    assert_eq!(r["NUMA"], json!({"Affinity": "prefer", "Devices": null}));
    assert_eq!(r["Networks"][0]["DynamicPorts"][0]["Label"], json!("http"));
    // The server keeps only `Disabled` (structs.LogConfig has no `Enabled`).
    let (mut job, _) = parse_str_recording(src, "t.nomad.hcl", &[]).expect("parses");
    canonicalize(&mut job);
    let stored = serde_json::to_value(&job.task_groups[0].tasks[0].log_config).expect("json");
    assert_eq!(
        stored,
        json!({"Disabled": false, "MaxFileSizeMB": 10, "MaxFiles": 10})
    );
}

#[test]
fn json_job_files_print_as_go_decodes_them() {
    let input = json!({
        "ID": "j",
        "name": "j",
        "Priority": 70,
        "Unknown": true,
        "TaskGroups": [{
            "Name": "g",
            "Tasks": [{"Name": "t", "Driver": "exec", "Resources": {"CPU": 10}}]
        }]
    });
    let out = super::from_api_json(&input).to_value();
    // Keys match without regard to case; unknown keys are dropped.
    assert_eq!(out["Name"], json!("j"));
    assert_eq!(out["Priority"], json!(70));
    assert!(out.get("Unknown").is_none());
    // Unset pointers are null, unset value fields their zero.
    assert_eq!(out["Type"], Value::Null);
    let g = &out["TaskGroups"][0];
    assert_eq!(g["Count"], Value::Null);
    let t = &g["Tasks"][0];
    assert_eq!(t["User"], json!(""));
    assert_eq!(t["Resources"]["CPU"], json!(10));
    assert_eq!(t["Resources"]["MemoryMB"], Value::Null);
    assert_eq!(t["Resources"]["Networks"], Value::Null);
    let text = super::run_output_json(&input);
    assert!(
        text.starts_with("{\n    \"Job\": {\n        \"Region\": null,"),
        "{text}"
    );
}
