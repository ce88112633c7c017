//! Tests of the jobspec module against the examples in jobs-examples/ and facts recorded from
//! a real Nomad (shared/reference samples, restated here as literals).

use std::path::Path;

use serde_json::{json, Value};

use super::*;
use crate::api::{HOUR, MINUTE, SECOND};

fn parse(src: &str) -> Job {
    match parse_str(src, "test.hcl", &[]) {
        Ok(j) => j,
        Err(e) => panic!("parse failed: {e}"),
    }
}

fn parse_err(src: &str) -> String {
    match parse_str(src, "test.hcl", &[]) {
        Ok(_) => panic!("parse unexpectedly succeeded"),
        Err(e) => e.to_string(),
    }
}

fn to_json<T: serde::Serialize>(v: &T) -> Value {
    serde_json::to_value(v).expect("api types serialise")
}

fn examples() -> Vec<std::path::PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("jobs-examples");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("jobs-examples exists")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.to_string_lossy().ends_with(".nomad.hcl"))
        .collect();
    files.sort();
    files
}

#[test]
fn every_example_parses_canonicalizes_and_validates() {
    let files = examples();
    assert!(
        files.len() >= 5,
        "expected the example jobs, found {files:?}"
    );
    for path in files {
        let mut job = parse_file(&path, &[]).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        canonicalize(&mut job);
        if let Err(e) = validate(&job) {
            panic!("{} does not validate:\n{e}", path.display());
        }
    }
}

#[test]
fn init_examples_parse_and_validate() {
    for short in [true, false] {
        let mut job = parse(init_job(short));
        assert_eq!(job.id, "example");
        let task = &job.task_groups[0].tasks[0];
        assert_eq!(task.driver, "raw_exec");
        assert_eq!(
            task.resources.as_ref().map(|r| (r.cpu, r.memory_mb)),
            Some((100, 64))
        );
        canonicalize(&mut job);
        assert_eq!(validate(&job), Ok(vec![]));
    }
    assert!(init_job(false).contains("# "));
    assert!(!init_job(true).contains('#'));
}

/// The reference `example` job (without its `service` block, a later issue).
const REFERENCE_EXAMPLE: &str = r#"job "example" {
  datacenters = ["*"]
  type        = "service"

  group "web" {
    count = 1

    network {
      port "http" {}
    }

    task "server" {
      driver = "raw_exec"

      config {
        command = "/bin/sh"
        args    = ["-c", "echo hello; exec sleep 1000"]
      }

      resources {
        cpu    = 100
        memory = 64
      }
    }
  }
}
"#;

#[test]
fn parse_output_matches_nomad_run_output() {
    let job = parse(REFERENCE_EXAMPLE);
    // From `nomad job run -output`: unset fields stay unset.
    assert_eq!(job.id, "example");
    assert_eq!(job.name, "example");
    assert_eq!(job.r#type, "service");
    assert_eq!(job.priority, 0);
    assert_eq!(job.region, "");
    assert_eq!(job.namespace, "");
    assert!(job.update.is_none());
    assert_eq!(job.datacenters, Some(vec!["*".to_string()]));
    let tg = &job.task_groups[0];
    assert_eq!(tg.count, 1);
    assert!(tg.restart_policy.is_none());
    assert!(tg.ephemeral_disk.is_none());
    let net = &tg.networks.as_ref().expect("network")[0];
    assert_eq!(net.dynamic_ports.len(), 1);
    assert_eq!(net.dynamic_ports[0].label, "http");
    assert_eq!(net.dynamic_ports[0].host_network, "");
    let task = &tg.tasks[0];
    assert_eq!(
        to_json(&task.config),
        json!({"args": ["-c", "echo hello; exec sleep 1000"], "command": "/bin/sh"})
    );
    assert!(task.kill_timeout.is_none());
    assert!(task.log_config.is_none());
}

#[test]
fn canonicalize_matches_nomad_stored_job() {
    let mut job = parse(REFERENCE_EXAMPLE);
    canonicalize(&mut job);
    // Values from GET /v1/job/example on Nomad 2.0 (api-samples/GET_v1_job_ID.json).
    assert_eq!(job.namespace, "default");
    assert_eq!(job.region, "global");
    assert_eq!(job.priority, 50);
    assert_eq!(job.node_pool, "default");
    assert_eq!(
        to_json(&job.update),
        json!({"AutoPromote": false, "AutoRevert": false, "Canary": 0, "HealthCheck": "",
               "HealthyDeadline": 0, "MaxParallel": 1, "MinHealthyTime": 0,
               "ProgressDeadline": 0, "Stagger": 30000000000i64})
    );
    let tg = &job.task_groups[0];
    assert_eq!(
        to_json(&tg.ephemeral_disk),
        json!({"Migrate": false, "SizeMB": 300, "Sticky": false})
    );
    assert_eq!(
        to_json(&tg.migrate),
        json!({"HealthCheck": "checks", "HealthyDeadline": 300000000000i64, "MaxParallel": 1,
               "MinHealthyTime": 10000000000i64})
    );
    assert_eq!(
        to_json(&tg.reschedule_policy),
        json!({"Attempts": 0, "Delay": 30000000000i64, "DelayFunction": "exponential",
               "Interval": 0, "MaxDelay": 3600000000000i64, "Unlimited": true})
    );
    let restart = json!({"Attempts": 2, "Delay": 15000000000i64, "Interval": 1800000000000i64,
                         "Mode": "fail", "RenderTemplates": false});
    assert_eq!(to_json(&tg.restart_policy), restart);
    assert_eq!(
        to_json(&tg.update),
        json!({"AutoPromote": false, "AutoRevert": false, "Canary": 0, "HealthCheck": "checks",
               "HealthyDeadline": 300000000000i64, "MaxParallel": 1,
               "MinHealthyTime": 10000000000i64, "ProgressDeadline": 600000000000i64,
               "Stagger": 30000000000i64})
    );
    assert_eq!(
        to_json(&tg.networks),
        json!([{"DynamicPorts": [{"HostNetwork": "default", "Label": "http"}]}])
    );
    let task = &tg.tasks[0];
    assert_eq!(to_json(&task.restart_policy), restart);
    assert_eq!(task.kill_timeout, Some(5_000_000_000));
    assert_eq!(
        to_json(&task.log_config),
        json!({"Disabled": false, "MaxFileSizeMB": 10, "MaxFiles": 10})
    );
    let r = task.resources.as_ref().expect("resources");
    assert_eq!((r.cpu, r.memory_mb, r.cores, r.disk_mb), (100, 64, 0, 0));
}

#[test]
fn canonicalize_is_idempotent() {
    for path in examples() {
        let mut once = parse_file(&path, &[]).expect("example parses");
        canonicalize(&mut once);
        let mut twice = once.clone();
        canonicalize(&mut twice);
        assert_eq!(once, twice, "{}", path.display());
    }
}

#[test]
fn batch_defaults_differ_from_service() {
    let mut job = parse(
        r#"job "b" {
  type = "batch"
  group "g" {
    task "t" {
      driver = "raw_exec"
    }
  }
}"#,
    );
    canonicalize(&mut job);
    let tg = &job.task_groups[0];
    assert_eq!(
        tg.restart_policy.as_ref().map(|r| (r.attempts, r.interval)),
        Some((3, 24 * HOUR))
    );
    let rp = tg.reschedule_policy.as_ref().expect("batch reschedule");
    assert_eq!(
        (
            rp.attempts,
            rp.interval,
            rp.delay,
            rp.delay_function.as_str(),
            rp.unlimited
        ),
        (1, 24 * HOUR, 5 * SECOND, "constant", false)
    );
    assert!(tg.migrate.is_none());
    assert!(tg.update.is_none());
    assert_eq!(job.update, Some(crate::api::UpdateStrategy::default()));
    let r = tg.tasks[0].resources.as_ref().expect("default resources");
    assert_eq!((r.cpu, r.memory_mb), (100, 300));
}

#[test]
fn partial_blocks_take_defaults_per_field() {
    let mut job = parse_file(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("jobs-examples/restart-policy.nomad.hcl"),
        &[],
    )
    .expect("parses");
    let tg = &job.task_groups[0];
    let rp = tg.restart_policy.clone().expect("group restart");
    assert_eq!(
        (rp.attempts, rp.interval, rp.delay, rp.mode.as_str()),
        (5, 10 * MINUTE, 20 * SECOND, "delay")
    );
    // The task's block overrides only `attempts`; the rest comes from the group's.
    let trp = tg.tasks[0].restart_policy.clone().expect("task restart");
    assert_eq!(
        (trp.attempts, trp.interval, trp.delay, trp.mode.as_str()),
        (1, 10 * MINUTE, 20 * SECOND, "delay")
    );
    let rs = tg.reschedule_policy.clone().expect("reschedule");
    assert_eq!(
        (
            rs.delay,
            rs.delay_function.as_str(),
            rs.max_delay,
            rs.unlimited
        ),
        (MINUTE, "constant", HOUR, true)
    );
    assert_eq!(tg.ephemeral_disk.as_ref().map(|d| d.size_mb), Some(200));
    assert_eq!(tg.tasks[0].kill_timeout, Some(10 * SECOND));
    let logs = tg.tasks[0].log_config.clone().expect("logs");
    assert_eq!((logs.max_files, logs.max_file_size_mb), (3, 5));
    canonicalize(&mut job);
    let tg = &job.task_groups[0];
    // The group inherits the job's update block merged over the defaults.
    let u = tg.update.clone().expect("inherited update");
    assert_eq!(
        (u.max_parallel, u.stagger, u.health_check.as_str()),
        (2, 20 * SECOND, "checks")
    );
    let ju = job.update.clone().expect("job update");
    assert_eq!(
        (ju.max_parallel, ju.stagger, ju.healthy_deadline),
        (2, 20 * SECOND, 0)
    );
    assert_eq!(
        tg.migrate.as_ref().map(|m| m.health_check.as_str()),
        Some("task_states")
    );
}

#[test]
fn constraints_use_nomad_shorthands() {
    let job = parse_file(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("jobs-examples/constraint.nomad.hcl"),
        &[],
    )
    .expect("parses");
    assert_eq!(
        to_json(&job.constraints),
        json!([{"LTarget": "${attr.kernel.name}", "Operand": "=", "RTarget": "linux"}])
    );
    assert_eq!(
        to_json(&job.task_groups[0].constraints),
        json!([{"LTarget": "", "Operand": "distinct_hosts", "RTarget": "true"},
               {"LTarget": "${attr.nomad.version}", "Operand": "version", "RTarget": ">= 1.0.0"}])
    );
    assert_eq!(job.priority, 70);
    assert_eq!(
        job.meta
            .as_ref()
            .and_then(|m| m.get("owner"))
            .map(String::as_str),
        Some("platform")
    );
}

#[test]
fn config_blocks_map_like_nomad() {
    let job = parse(
        r#"job "c" {
  group "g" {
    task "t" {
      driver = "docker"
      config {
        image  = "redis:7"
        ports  = ["db"]
        labels = { a = "b" }
        port_map {
          db = 6379
        }
        mount {
          type   = "bind"
          source = "/a"
        }
        mount {
          type   = "bind"
          source = "/b"
        }
        logging "json" {
          max = 1.5
        }
      }
    }
  }
}"#,
    );
    assert_eq!(
        to_json(&job.task_groups[0].tasks[0].config),
        json!({
            "image": "redis:7",
            "labels": [{"a": "b"}],
            "logging": [{"json": [{"max": 1.5}]}],
            "mount": [{"source": "/a", "type": "bind"}, {"source": "/b", "type": "bind"}],
            "port_map": [{"db": 6379}],
            "ports": ["db"]
        })
    );
}

#[test]
fn runtime_interpolations_stay_literal() {
    let job = parse(
        r#"job "r" {
  group "g" {
    task "t" {
      driver = "raw_exec"
      env {
        A = "${NOMAD_ALLOC_ID}-x"
        B = "${attr.kernel.name}"
        C = "${env["HOME"]}"
        D = "${meta.rack}/${node.unique.name}"
        E = "$${literal}"
      }
    }
  }
}"#,
    );
    let env = job.task_groups[0].tasks[0].env.clone().expect("env");
    assert_eq!(env["A"], "${NOMAD_ALLOC_ID}-x");
    assert_eq!(env["B"], "${attr.kernel.name}");
    assert_eq!(env["C"], "${env[\"HOME\"]}");
    assert_eq!(env["D"], "${meta.rack}/${node.unique.name}");
    assert_eq!(env["E"], "${literal}");
}

#[test]
fn variables_defaults_and_var_flags() {
    let src = std::fs::read_to_string(
        Path::new(env!("CARGO_MANIFEST_DIR")).join("jobs-examples/variables.nomad.hcl"),
    )
    .expect("example exists");
    let job = parse(&src);
    assert_eq!(job.task_groups[0].count, 1);
    let args =
        |j: &Job| to_json(&j.task_groups[0].tasks[0].config.as_ref().expect("config")["args"]);
    assert_eq!(
        args(&job),
        json!(["-c", "echo 'hello, world' from ${NOMAD_ALLOC_ID}"])
    );

    let vars = vec![
        ("message".to_string(), "bye".to_string()),
        ("count".to_string(), "3".to_string()),
    ];
    let job = parse_str(&src, "vars.hcl", &vars).expect("parses with -var");
    assert_eq!(job.task_groups[0].count, 3);
    assert_eq!(
        args(&job),
        json!(["-c", "echo 'bye, world' from ${NOMAD_ALLOC_ID}"])
    );

    let err = parse_str(&src, "vars.hcl", &[("nope".to_string(), "1".to_string())])
        .expect_err("undeclared -var")
        .to_string();
    assert!(
        err.contains(
            "<nil>: Undefined -var variable; A \"nope\" variable was passed in the command line"
        ),
        "{err}"
    );

    let err = parse_str(
        &src,
        "vars.hcl",
        &[("count".to_string(), "many".to_string())],
    )
    .expect_err("bad number")
    .to_string();
    assert!(
        err.contains("Invalid argument value for -var variable"),
        "{err}"
    );

    let err = parse_err("variable \"x\" {}\njob \"j\" {\n  type = var.x\n}\n");
    assert!(
        err.contains("test.hcl:1,1-13: Unset variable \"x\""),
        "{err}"
    );

    let err = parse_err("job \"j\" {\n  type = var.missing\n}\n");
    assert!(
        err.contains("test.hcl:2,10-21: Unsupported attribute; This object does not have an attribute named \"missing\"."),
        "{err}"
    );
}

#[test]
fn unknown_names_are_reported_with_positions_and_suggestions() {
    let err = parse_err(
        r#"job "e" {
  group "g" {
    cont = 2
    task "t" {
      drivr = "raw_exec"
      resource {
        cpu = 100
      }
    }
  }
  bogus {}
}
"#,
    );
    assert_eq!(
        err,
        "Error parsing job file from test.hcl:\n\
test.hcl:3,5-9: Unsupported argument; An argument named \"cont\" is not expected here. Did you mean \"count\"?\n\
test.hcl:5,7-12: Unsupported argument; An argument named \"drivr\" is not expected here. Did you mean \"driver\"?\n\
test.hcl:6,7-15: Unsupported block type; Blocks of type \"resource\" are not expected here. Did you mean \"resources\"?\n\
test.hcl:11,3-8: Unsupported block type; Blocks of type \"bogus\" are not expected here."
    );
}

#[test]
fn value_errors_have_positions() {
    let err = parse_err(
        r#"job "e" {
  priority = "high"
  group "g" {
    restart {
      delay = "5 minutes"
    }
    task "t" {
      driver = "raw_exec"
      kill_timeout = "10"
    }
  }
}
"#,
    );
    assert!(
        err.contains(
            "test.hcl:2,14-20: Unsuitable value type; Unsuitable value: a number is required"
        ),
        "{err}"
    );
    assert!(err.contains("test.hcl:5,15-26: Unsuitable value type; Unsuitable duration value: time: unknown unit \" minutes\" in duration \"5 minutes\""), "{err}");
    assert!(err.contains("test.hcl:9,22-26: Unsuitable value type; Unsuitable duration value: time: missing unit in duration \"10\""), "{err}");
}

#[test]
fn structural_errors() {
    let err = parse_err("job \"a\" {}\njob \"b\" {}\n");
    assert!(err.contains("test.hcl:2,1-8: Duplicate job block; Only one block of type \"job\" is allowed. Previous definition was at test.hcl:1,1-8."), "{err}");
    let err = parse_err("job {}\n");
    assert!(err.contains("Missing name for job"), "{err}");
    let err = parse_err("variable \"x\" { default = 1 }\n");
    assert!(
        err.contains("<nil>: Missing job block; A job block is required"),
        "{err}"
    );
    let err = parse_err("job \"a\" {\n  type = \"batch\"\n  type = \"service\"\n}\n");
    assert!(err.contains("test.hcl:3,3-7: Attribute redefined; The argument \"type\" was already set at test.hcl:2,3-7. Each argument may be set only once."), "{err}");
    let err = parse_err("job \"a\" {\n  group \"g\" {\n    service {}\n  }\n}\n");
    assert!(err.contains("test.hcl:3,5-12: Unsupported block type; Blocks of type \"service\" are valid in Nomad but not supported"), "{err}");
}

#[test]
fn syntax_errors_have_positions() {
    let err = parse_err("job \"a\" {\n  type = \n}\n");
    assert!(
        err.starts_with("Error parsing job file from test.hcl:\ntest.hcl:"),
        "{err}"
    );
    assert!(
        err.ends_with("test.hcl:2,10-3,1: Invalid expression; Expected `\"`, `[`, `{`, `-`, `!`, `(`, `_`, `<`, letter or digit."),
        "{err}"
    );
    let err = parse_err("job \"a\" {\n  group \"g\" {\n");
    assert!(
        err.contains("test.hcl:2,14-3,1: Invalid block body; "),
        "{err}"
    );
}

fn valid_base() -> Job {
    let mut job = parse(REFERENCE_EXAMPLE);
    canonicalize(&mut job);
    job
}

#[test]
fn missing_tasks_text_matches_nomad() {
    let mut job = valid_base();
    job.task_groups[0].tasks.clear();
    let err = validate(&job).expect_err("invalid");
    // Byte-for-byte the body of Nomad's 500 response (PUT_v1_jobs_missing_tasks_500).
    assert_eq!(
        err.to_string(),
        "1 error occurred:\n\t* Task group web validation failed: 1 error occurred:\n\t* Missing tasks for task group\n\n\n\n"
    );
}

#[test]
fn validation_lists_every_problem() {
    let mut job = valid_base();
    job.priority = 500;
    let mut second = job.task_groups[0].clone();
    second.count = -1;
    second.tasks[0].driver.clear();
    job.task_groups.push(second);
    let err = validate(&job).expect_err("invalid");
    assert_eq!(
        err.errors,
        vec![
            "Job task group 2 redefines 'web' from group 1".to_string(),
            "Task group web validation failed: 2 errors occurred:\n\t* Task group count can't be negative\n\t* Task server validation failed: 1 error occurred:\n\t* Missing task driver\n\n\n\n".to_string(),
            "job priority must be between [1, 100]".to_string(),
        ]
    );
    assert!(err
        .to_string()
        .starts_with("3 errors occurred:\n\t* Job task group 2 redefines"));

    let mut job = valid_base();
    job.id.clear();
    job.task_groups.clear();
    let err = validate(&job).expect_err("invalid");
    assert_eq!(
        err.errors,
        vec!["Missing job ID", "Missing job task groups"]
    );
}

#[test]
fn policy_validation_uses_go_durations() {
    let mut job = valid_base();
    if let Some(r) = job.task_groups[0].restart_policy.as_mut() {
        r.interval = SECOND;
        r.mode = "sometimes".to_string();
    }
    let err = validate(&job).expect_err("invalid");
    let text = &err.errors[0];
    assert!(
        text.contains("Unsupported restart mode: \"sometimes\""),
        "{text}"
    );
    assert!(
        text.contains("Interval can not be less than 5s (got 1s)"),
        "{text}"
    );
    assert!(
        text.contains(
            "Nomad can't restart the TaskGroup 2 times in an interval of 1s with a delay of 15s"
        ),
        "{text}"
    );
}

#[test]
fn warnings_are_returned() {
    let mut job = valid_base();
    job.task_groups[0].count = 2;
    if let Some(u) = job.task_groups[0].update.as_mut() {
        u.max_parallel = 3;
    }
    let warnings = validate(&job).expect("valid");
    assert_eq!(warnings.len(), 1);
    assert!(warnings[0].starts_with("Group \"web\" has warnings: 1 error occurred:\n\t* Update max parallel count is greater than task group count (3 > 2)."));
    assert_eq!(format_warnings(&["w".to_string()]), "1 warning:\n\n* w");
}

#[test]
fn expressions_evaluate_at_parse_time() {
    let job = parse(
        r#"variable "ports" {
  type    = list(string)
  default = ["a", "b"]
}
locals {
  n    = 2 * 3 - 1
  tags = [for p in var.ports : "${p}-x" if p != "b"]
}
job "x" {
  meta = {
    "dotted.key" = 1
    flag         = true
  }
  group "g" {
    count = local.n > 4 ? local.n : 1
    task "t" {
      driver = "raw_exec"
      env = {
        FIRST = var.ports[0]
      }
      config {
        tags   = local.tags
        script = <<-EOT
          echo one
          echo ${var.ports[1]}
        EOT
      }
    }
  }
}"#,
    );
    let meta = job.meta.clone().expect("meta");
    assert_eq!(meta["dotted.key"], "1");
    assert_eq!(meta["flag"], "true");
    let tg = &job.task_groups[0];
    assert_eq!(tg.count, 5);
    let t = &tg.tasks[0];
    assert_eq!(
        t.env.as_ref().map(|e| e["FIRST"].clone()),
        Some("a".to_string())
    );
    let config = t.config.clone().expect("config");
    assert_eq!(config["tags"], json!(["a-x"]));
    assert_eq!(config["script"], json!("echo one\necho b\n"));

    let vars = vec![("ports".to_string(), "[\"z\"]".to_string())];
    let src = "variable \"ports\" {\n  type = list(string)\n}\njob \"x\" {\n  datacenters = var.ports\n}\n";
    let job = parse_str(src, "t.hcl", &vars).expect("structured -var");
    assert_eq!(job.datacenters, Some(vec!["z".to_string()]));
}

#[test]
fn template_directives_and_strip_markers() {
    let job = parse(
        r#"variable "names" {
  default = ["a", "b"]
}
job "t" {
  meta {
    list  = "%{ for n in var.names }${n},%{ endfor }"
    cond  = "%{ if length_ok }yes%{ else }no%{ endif }"
    strip = "x   ${~ "y" ~}   z"
  }
}"#
        .replace("length_ok", "true")
        .as_str(),
    );
    let meta = job.meta.expect("meta");
    assert_eq!(meta["list"], "a,b,");
    assert_eq!(meta["cond"], "yes");
    assert_eq!(meta["strip"], "xyz");
}

#[test]
fn environment_variables_lose_to_var_flags() {
    let src =
        "variable \"dc\" {\n  default = \"dc0\"\n}\njob \"e\" {\n  datacenters = [var.dc]\n}\n";
    let env = nomad_var_env(vec![
        ("NOMAD_VAR_dc".to_string(), "from-env".to_string()),
        ("NOMAD_VAR_undeclared".to_string(), "ignored".to_string()),
        ("HOME".to_string(), "/root".to_string()),
    ]);
    assert_eq!(env.len(), 2);
    let job = parse_str_with_env(src, "e.hcl", &[], &env).expect("env values parse");
    assert_eq!(job.datacenters, Some(vec!["from-env".to_string()]));
    let flags = vec![("dc".to_string(), "from-flag".to_string())];
    let job = parse_str_with_env(src, "e.hcl", &flags, &env).expect("flag wins");
    assert_eq!(job.datacenters, Some(vec!["from-flag".to_string()]));
}

#[test]
fn tasks_directly_in_the_job_get_their_own_group() {
    let job = parse(
        r#"job "solo" {
  type = "batch"
  reschedule {
    attempts = 0
  }
  task "lonely" {
    driver = "raw_exec"
  }
  group "g" {
    task "t" {
      driver = "raw_exec"
    }
  }
}"#,
    );
    let names: Vec<&str> = job.task_groups.iter().map(|g| g.name.as_str()).collect();
    assert_eq!(names, vec!["lonely", "g"]);
    assert_eq!(job.task_groups[0].tasks[0].name, "lonely");
    assert_eq!(job.task_groups[0].count, 1);
    for tg in &job.task_groups {
        let r = tg
            .reschedule_policy
            .as_ref()
            .expect("job reschedule inherited");
        assert_eq!((r.attempts, r.delay_function.as_str()), (0, "constant"));
    }
}
