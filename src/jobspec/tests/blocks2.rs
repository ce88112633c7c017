//! The integration blocks (vault, consul, identity, csi_plugin, scaling, multiregion, ui,
//! action, schedule, secret): decoded with Nomad's JSON names, inherited as jobspec2 does,
//! and completed by `canonicalize`.

use serde_json::{json, Value};

use super::*;

fn group(job: &Value, i: usize) -> &Value {
    &job["TaskGroups"][i]
}

fn task(job: &Value, g: usize, t: usize) -> &Value {
    &job["TaskGroups"][g]["Tasks"][t]
}

const JOB: &str = r#"job "a" {
  multiregion {
    strategy {
      max_parallel = 1
      on_failure   = "fail_all"
    }
    region "west" {
      count       = 2
      datacenters = ["w1"]
      meta {
        k = "v"
      }
    }
    region "east" {}
  }
  ui {
    description = "A *job*"
    link {
      label = "Docs"
      url   = "https://example.com"
    }
  }
  vault {
    policies = ["job"]
  }
  secret "jobsec" {
    provider = "nomad"
    path     = "p/job"
  }
  group "g" {
    scaling {
      min     = 2
      max     = 10
      enabled = false
      policy {
        cooldown = "1m"
        check "cpu" {
          source = "prometheus"
        }
      }
    }
    consul {
      namespace = "ns"
    }
    secret "grpsec" {
      provider = "vault"
      path     = "p/grp"
      env {
        A = "b"
      }
    }
    task "inherits" {
      driver = "raw_exec"
    }
    task "own" {
      driver = "raw_exec"
      vault {
        role        = "r"
        change_mode = "signal"
        change_signal = "SIGUSR1"
      }
      consul {
        cluster = "other"
      }
      csi_plugin {
        id   = "ebs"
        type = "monolith"
      }
      scaling "cpu" {
        max = 500
        policy {
          strategy = "x"
        }
      }
      scaling "mem" {
        enabled = false
        max     = 1024
      }
      identity {
        env = true
      }
      identity {
        name = "vault_default"
        aud  = ["vault.io"]
        ttl  = "1h"
        change_mode   = "signal"
        change_signal = "sighup"
      }
      action "hello" {
        command = "/bin/echo"
        args    = ["hi"]
      }
      schedule {
        cron {
          start    = "0 9 * * *"
          end      = "0 17"
          timezone = "Europe/Berlin"
        }
      }
      secret "own" {
        provider = "nomad"
        path     = "p/own"
        config {
          ttl = 30
        }
      }
    }
  }
}
"#;

#[test]
fn job_blocks_decode_with_nomads_names() {
    let job = to_json(&parse(JOB));
    assert_eq!(
        job["Multiregion"],
        json!({
            "Strategy": {"MaxParallel": 1, "OnFailure": "fail_all"},
            "Regions": [
                {"Name": "west", "Count": 2, "Datacenters": ["w1"], "NodePool": "",
                 "Meta": {"k": "v"}},
                {"Name": "east", "Count": null, "Datacenters": null, "NodePool": "",
                 "Meta": null}
            ]
        })
    );
    assert_eq!(
        job["UI"],
        json!({"Description": "A *job*",
               "Links": [{"Label": "Docs", "URL": "https://example.com"}]})
    );
}

#[test]
fn group_scaling_and_consul() {
    let job = to_json(&parse(JOB));
    let g = group(&job, 0);
    // count is missing, so it is the scaling minimum.
    assert_eq!(g["Count"], 2);
    assert_eq!(g["Scaling"]["Min"], 2);
    assert_eq!(g["Scaling"]["Max"], 10);
    assert_eq!(g["Scaling"]["Enabled"], false);
    assert_eq!(g["Scaling"]["Type"], "horizontal");
    assert_eq!(
        g["Scaling"]["Policy"],
        json!({"cooldown": "1m", "check": [{"cpu": [{"source": "prometheus"}]}]})
    );
    assert_eq!(
        g["Consul"],
        json!({"Namespace": "ns", "Cluster": "", "Partition": ""})
    );
}

#[test]
fn vault_and_secrets_are_inherited() {
    let job = to_json(&parse(JOB));
    let inherits = task(&job, 0, 0);
    assert_eq!(inherits["Vault"]["Policies"], json!(["job"]));
    // jobspec2's normalizeVault defaults.
    assert_eq!(inherits["Vault"]["Env"], true);
    assert_eq!(inherits["Vault"]["DisableFile"], false);
    assert_eq!(inherits["Vault"]["ChangeMode"], "restart");
    assert_eq!(inherits["Vault"]["ChangeSignal"], Value::Null);
    let names: Vec<&str> = inherits["Secrets"]
        .as_array()
        .expect("secrets")
        .iter()
        .map(|s| s["Name"].as_str().unwrap_or_default())
        .collect();
    assert_eq!(names, ["grpsec", "jobsec"]);
    assert_eq!(inherits["Secrets"][0]["Env"], json!({"A": "b"}));
    let own = task(&job, 0, 1);
    assert_eq!(own["Vault"]["Role"], "r");
    assert_eq!(own["Vault"]["Policies"], Value::Null);
    assert_eq!(own["Vault"]["ChangeSignal"], "SIGUSR1");
    assert_eq!(own["Secrets"][0]["Config"], json!({"ttl": 30}));
    assert_eq!(own["Secrets"].as_array().map(Vec::len), Some(3));
}

#[test]
fn task_blocks_decode() {
    let job = to_json(&parse(JOB));
    let t = task(&job, 0, 1);
    assert_eq!(t["Consul"]["Cluster"], "other");
    assert_eq!(
        t["CSIPluginConfig"],
        json!({"ID": "ebs", "Type": "monolith", "MountDir": "", "StagePublishBaseDir": "",
               "HealthTimeout": 0})
    );
    let sp = t["ScalingPolicies"].as_array().expect("policies");
    assert_eq!(sp[0]["Type"], "vertical_cpu");
    assert_eq!(sp[0]["Max"], 500);
    assert_eq!(sp[0]["Policy"], json!({"strategy": "x"}));
    assert_eq!(sp[1]["Type"], "vertical_mem");
    assert_eq!(sp[1]["Enabled"], false);
    // The unnamed identity is the default one, moved to Identity.
    assert_eq!(t["Identity"]["Env"], true);
    assert_eq!(t["Identity"]["Name"], "");
    assert_eq!(t["Identities"][0]["Name"], "vault_default");
    assert_eq!(t["Identities"][0]["Audience"], json!(["vault.io"]));
    assert_eq!(t["Identities"][0]["TTL"], 3_600_000_000_000i64);
    assert_eq!(
        t["Actions"],
        json!([{"Name": "hello", "Command": "/bin/echo", "Args": ["hi"]}])
    );
    assert_eq!(
        t["Schedule"],
        json!({"Cron": {"Start": "0 9 * * *", "End": "0 17", "Timezone": "Europe/Berlin"}})
    );
}

#[test]
fn canonicalize_fills_block_defaults() {
    let mut job = parse(JOB);
    canonicalize(&mut job);
    let once = to_json(&job);
    canonicalize(&mut job);
    assert_eq!(to_json(&job), once, "idempotent");
    let job = once;
    assert_eq!(job["Multiregion"]["Regions"][1]["Count"], 1);
    assert_eq!(job["Multiregion"]["Regions"][1]["Datacenters"], json!([]));
    assert_eq!(job["Multiregion"]["Regions"][1]["Meta"], json!({}));
    assert_eq!(group(&job, 0)["Consul"]["Cluster"], "default");
    let inherits = task(&job, 0, 0);
    assert_eq!(inherits["Vault"]["Cluster"], "default");
    assert_eq!(inherits["Vault"]["Namespace"], "");
    assert_eq!(inherits["Vault"]["ChangeSignal"], "SIGHUP");
    assert_eq!(inherits["Vault"]["AllowTokenExpiration"], false);
    let t = task(&job, 0, 1);
    assert_eq!(t["Consul"]["Cluster"], "other");
    assert_eq!(t["CSIPluginConfig"]["MountDir"], "/csi");
    assert_eq!(t["CSIPluginConfig"]["StagePublishBaseDir"], "/local/csi");
    assert_eq!(t["CSIPluginConfig"]["HealthTimeout"], 30_000_000_000i64);
    assert_eq!(t["Identity"]["Name"], "default");
    assert_eq!(t["Identity"]["Audience"], json!(["nomadproject.io"]));
    assert_eq!(t["Identities"][0]["ChangeSignal"], "SIGHUP");
}

#[test]
fn group_scaling_min_defaults_to_count() {
    let mut job = parse(
        r#"job "a" {
  group "g" {
    count = 3
    scaling {
      max = 5
    }
    task "t" {
      driver = "raw_exec"
    }
  }
}"#,
    );
    canonicalize(&mut job);
    let job = to_json(&job);
    let s = &group(&job, 0)["Scaling"];
    assert_eq!(group(&job, 0)["Count"], 3);
    assert_eq!(s["Min"], 3);
    assert_eq!(s["Enabled"], true);
    assert_eq!(s["Type"], "horizontal");
}

fn one_task(body: &str) -> String {
    format!("job \"a\" {{\n  group \"g\" {{\n    task \"t\" {{\n      driver = \"raw_exec\"\n{body}\n    }}\n  }}\n}}\n")
}

#[test]
fn task_scaling_errors() {
    let err = parse_err(&one_task("      scaling \"disk\" {}"));
    assert!(err.contains("Invalid scaling policy name"), "{err}");
    assert!(
        err.contains("scaling policy name must be \"cpu\" or \"mem\""),
        "{err}"
    );
    assert!(err.contains("test.hcl:5,15-21"), "{err}");
    let err = parse_err(&one_task(
        "      scaling \"cpu\" {}\n      scaling \"CPU\" {}",
    ));
    assert!(err.contains("Duplicate scaling \"cpu\" block"), "{err}");
    assert!(
        err.contains("Only one scaling cpu block is allowed. Another was defined at test.hcl:5,7-"),
        "{err}"
    );
    let err = parse_err(&one_task(
        "      scaling \"mem\" {\n        type = \"horizontal\"\n      }",
    ));
    assert!(
        err.contains("Invalid policy type, expected \"horizontal\" but found \"vertical_mem\""),
        "{err}"
    );
}

#[test]
fn group_scaling_errors() {
    let err =
        parse_err("job \"a\" {\n  group \"g\" {\n    scaling {\n      min = 1\n    }\n  }\n}\n");
    assert!(err.contains("Missing required argument"), "{err}");
    assert!(err.contains("The argument \"max\" is required"), "{err}");
    let err = parse_err(
        "job \"a\" {\n  group \"g\" {\n    scaling {\n      max  = 1\n      type = \"vertical_cpu\"\n    }\n  }\n}\n",
    );
    assert!(err.contains("Invalid group scaling type"), "{err}");
    assert!(
        err.contains("task group scaling policy had invalid type: \"vertical_cpu\""),
        "{err}"
    );
}

#[test]
fn unknown_arguments_keep_did_you_mean() {
    let err = parse_err(&one_task(
        "      vault {\n        polices = [\"a\"]\n      }",
    ));
    assert!(err.contains("Unsupported argument"), "{err}");
    assert!(err.contains("Did you mean \"policies\"?"), "{err}");
    assert!(err.contains("test.hcl:6,9-16"), "{err}");
    let err = parse_err(&one_task("      action \"x\" {}"));
    assert!(
        err.contains("The argument \"command\" is required"),
        "{err}"
    );
}

const NET: &str = r#"job "a" {
  group "g" {
    network {
      mode     = "bridge"
      hostname = "h"
      dns {
        servers  = ["1.1.1.1"]
        searches = ["local"]
      }
      cni {
        args = { a = "b" }
      }
      port "http" {
        static           = 8080
        ignore_collision = true
      }
      port "dyn" {}
    }
    task "t" {
      driver = "raw_exec"
      resources {
        device "nvidia/gpu" {
          count = 2
          constraint {
            attribute = "${device.attr.memory}"
            operator  = ">="
            value     = "2 GiB"
          }
          affinity {
            attribute = "${device.model}"
            value     = "Tesla"
          }
        }
        device "fpga" {}
      }
    }
  }
}
"#;

#[test]
fn network_dns_cni_and_ports() {
    let job = to_json(&parse(NET));
    let n = &group(&job, 0)["Networks"][0];
    assert_eq!(n["Hostname"], "h");
    assert_eq!(
        n["DNS"],
        json!({"Servers": ["1.1.1.1"], "Searches": ["local"], "Options": null})
    );
    assert_eq!(n["CNI"], json!({"Args": {"a": "b"}}));
    assert_eq!(
        n["ReservedPorts"],
        json!([{"Label": "http", "Value": 8080, "IgnoreCollision": true}])
    );
    assert_eq!(n["DynamicPorts"], json!([{"Label": "dyn"}]));
}

#[test]
fn reserved_ports_blocks_count_without_port_blocks() {
    let job = to_json(&parse(
        "job \"a\" {\n  group \"g\" {\n    network {\n      reserved_ports \"x\" {\n        static = 22\n      }\n    }\n  }\n}\n",
    ));
    assert_eq!(
        group(&job, 0)["Networks"][0]["ReservedPorts"],
        json!([{"Label": "x", "Value": 22}])
    );
}

#[test]
fn resources_devices_with_constraints_and_affinities() {
    let mut job = parse(NET);
    let decoded = to_json(&job);
    let d = &task(&decoded, 0, 0)["Resources"]["Devices"];
    assert_eq!(d[0]["Name"], "nvidia/gpu");
    assert_eq!(d[0]["Count"], 2);
    assert_eq!(
        d[0]["Constraints"],
        json!([{"LTarget": "${device.attr.memory}", "Operand": ">=", "RTarget": "2 GiB"}])
    );
    assert_eq!(d[0]["Affinities"][0]["Weight"], Value::Null);
    assert_eq!(d[1]["Count"], Value::Null);
    canonicalize(&mut job);
    let job = to_json(&job);
    let d = &task(&job, 0, 0)["Resources"]["Devices"];
    assert_eq!(d[1]["Count"], 1);
    assert_eq!(d[0]["Affinities"][0]["Weight"], 50);
}
