//! Parsing: the jobspec language, the block schema and its diagnostics.

use std::path::Path;

use serde_json::json;

use super::*;

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
test.hcl:3,5-9: Unsupported argument; An argument named \"cont\" is not expected here. Did you mean \"count\"? (in job \"e\" -> group \"g\")\n\
test.hcl:5,7-12: Unsupported argument; An argument named \"drivr\" is not expected here. Did you mean \"driver\"? (in job \"e\" -> group \"g\" -> task \"t\")\n\
test.hcl:6,7-15: Unsupported block type; Blocks of type \"resource\" are not expected here. Did you mean \"resources\"? (in job \"e\" -> group \"g\" -> task \"t\")\n\
test.hcl:11,3-8: Unsupported block type; Blocks of type \"bogus\" are not expected here. (in job \"e\")"
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
    let err = parse_err("job \"a\" {\n  group \"g\" {\n    task \"t\" {\n      resources {\n        numa { afinity = \"prefer\" }\n      }\n    }\n  }\n}\n");
    assert!(err.contains("test.hcl:5,16-23: Unsupported argument; An argument named \"afinity\" is not expected here. Did you mean \"affinity\"?"), "{err}");
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

#[test]
fn deeply_nested_input_is_an_error_not_a_crash() {
    let depth = 5000;
    let src = format!(
        "job \"d\" {{\n  meta = {{ a = {}1{} }}\n}}\n",
        "[".repeat(depth),
        "]".repeat(depth)
    );
    assert!(parse_str(&src, "d.hcl", &[]).is_err());
}
