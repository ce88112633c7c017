//! Decoding of affinity, spread, periodic, parameterized, dispatch_payload, lifecycle,
//! template, artifact, volume, volume_mount and disconnect, checked against the JSON
//! `nomad job run -output` prints for the same blocks.

use serde_json::{json, Value};

use super::*;

fn job_json(src: &str) -> Value {
    to_json(&parse(src))
}

#[test]
fn affinities_at_every_level() {
    let v = job_json(
        r#"job "a" {
  affinity {
    attribute = "${node.datacenter}"
    value     = "us-west1"
    weight    = 100
  }
  group "g" {
    affinity {
      attribute = "${meta.rack}"
      operator  = "!="
      value     = "r1"
    }
    task "t" {
      driver = "raw_exec"
      affinity {
        attribute        = "${meta.tags}"
        set_contains_any = "a,b"
        weight           = -50.7
      }
    }
  }
}
"#,
    );
    assert_eq!(
        v["Affinities"],
        json!([{"LTarget": "${node.datacenter}", "RTarget": "us-west1", "Operand": "=", "Weight": 100}])
    );
    let g = &v["TaskGroups"][0];
    assert_eq!(
        g["Affinities"],
        json!([{"LTarget": "${meta.rack}", "RTarget": "r1", "Operand": "!=", "Weight": null}])
    );
    assert_eq!(
        g["Tasks"][0]["Affinities"],
        json!([{"LTarget": "${meta.tags}", "RTarget": "a,b", "Operand": "set_contains_any", "Weight": -50}])
    );
}

#[test]
fn spread_with_targets() {
    let v = job_json(
        r#"job "a" {
  spread {
    attribute = "${node.datacenter}"
    weight    = 70
    target "dc1" {
      percent = 60
    }
    target "dc2" {
      percent = 40
    }
  }
  group "g" {
    spread {
      attribute = "${meta.rack}"
    }
    task "t" { driver = "raw_exec" }
  }
}
"#,
    );
    assert_eq!(
        v["Spreads"],
        json!([{"Attribute": "${node.datacenter}", "Weight": 70, "SpreadTarget": [
            {"Value": "dc1", "Percent": 60}, {"Value": "dc2", "Percent": 40}]}])
    );
    assert_eq!(
        v["TaskGroups"][0]["Spreads"],
        json!([{"Attribute": "${meta.rack}", "Weight": null, "SpreadTarget": null}])
    );
    let err = parse_err(
        "job \"a\" {\n  spread {\n    target \"x\" {\n      percent = 300\n    }\n  }\n}\n",
    );
    assert!(
        err.contains("test.hcl:4,17-20: Unsuitable value type"),
        "{err}"
    );
}

#[test]
fn periodic_and_parameterized() {
    let v = job_json(
        r#"job "a" {
  type = "batch"
  periodic {
    crons            = ["*/15 * * * *", "0 1 * * *"]
    prohibit_overlap = true
    time_zone        = "America/New_York"
  }
  parameterized {
    payload       = "required"
    meta_required = ["a"]
    meta_optional = ["b", "c"]
  }
  group "g" {
    task "t" {
      driver = "raw_exec"
      dispatch_payload {
        file = "input.txt"
      }
    }
  }
}
"#,
    );
    assert_eq!(
        v["Periodic"],
        json!({"Enabled": null, "Spec": null, "Specs": ["*/15 * * * *", "0 1 * * *"],
               "SpecType": "cron", "ProhibitOverlap": true, "TimeZone": "America/New_York"})
    );
    assert_eq!(
        v["ParameterizedJob"],
        json!({"Payload": "required", "MetaRequired": ["a"], "MetaOptional": ["b", "c"]})
    );
    assert_eq!(
        v["TaskGroups"][0]["Tasks"][0]["DispatchPayload"],
        json!({"File": "input.txt"})
    );
    let v =
        job_json("job \"a\" {\n  periodic {\n    cron = \"@daily\"\n    enabled = false\n  }\n}\n");
    assert_eq!(v["Periodic"]["Spec"], "@daily");
    assert_eq!(v["Periodic"]["SpecType"], "cron");
    assert_eq!(v["Periodic"]["Enabled"], false);
    // No spec, no spec type.
    let v = job_json("job \"a\" {\n  periodic {\n    time_zone = \"UTC\"\n  }\n}\n");
    assert_eq!(v["Periodic"]["SpecType"], Value::Null);
}

#[test]
fn lifecycle_requires_hook() {
    let v = job_json(
        "job \"a\" {\n  group \"g\" {\n    task \"t\" {\n      driver = \"raw_exec\"\n      lifecycle {\n        hook    = \"prestart\"\n        sidecar = true\n      }\n    }\n  }\n}\n",
    );
    assert_eq!(
        v["TaskGroups"][0]["Tasks"][0]["Lifecycle"],
        json!({"Hook": "prestart", "Sidecar": true})
    );
    let err = parse_err(
        "job \"a\" {\n  group \"g\" {\n    task \"t\" {\n      lifecycle {\n        sidecar = true\n      }\n    }\n  }\n}\n",
    );
    assert!(
        err.contains("test.hcl:4,17-17: Missing required argument; The argument \"hook\" is required, but no definition was found."),
        "{err}"
    );
}

#[test]
fn templates_get_jobspec2_defaults() {
    let v = job_json(
        r#"job "a" {
  group "g" {
    task "t" {
      driver = "raw_exec"
      template {
        data          = "X={{ env \"HOME\" }}"
        destination   = "local/x.env"
        env           = true
        change_mode   = "signal"
        change_signal = "SIGHUP"
        uid           = 1000
        gid           = 1000
        left_delimiter  = "[["
        right_delimiter = "]]"
        wait {
          min = "2s"
          max = "10s"
        }
      }
      template {
        source      = "local/in.tpl"
        destination = "local/out"
        perms       = "0600"
        splay       = "1s"
      }
    }
  }
}
"#,
    );
    let t = &v["TaskGroups"][0]["Tasks"][0]["Templates"];
    assert_eq!(
        t[0],
        json!({
            "SourcePath": null, "DestPath": "local/x.env", "EmbeddedTmpl": "X={{ env \"HOME\" }}",
            "ChangeMode": "signal", "ChangeScript": null, "ChangeSignal": "SIGHUP", "Once": null,
            "Splay": 5_000_000_000i64, "Perms": "0644", "Uid": 1000, "Gid": 1000,
            "LeftDelim": "[[", "RightDelim": "]]", "Envvars": true, "VaultGrace": null,
            "Wait": {"Min": 2_000_000_000i64, "Max": 10_000_000_000i64}, "ErrMissingKey": false
        })
    );
    assert_eq!(t[1]["SourcePath"], "local/in.tpl");
    assert_eq!(t[1]["ChangeMode"], "restart");
    assert_eq!(t[1]["Perms"], "0600");
    assert_eq!(t[1]["Splay"], 1_000_000_000i64);
    assert_eq!(t[1]["Wait"], Value::Null);
}

#[test]
fn artifacts_with_options_and_headers() {
    let v = job_json(
        r#"job "a" {
  group "g" {
    task "t" {
      driver = "raw_exec"
      artifact {
        source      = "https://example.com/app.tar.gz"
        destination = "local/app"
        mode        = "dir"
        chown       = true
        options {
          checksum = "sha256:abc"
        }
        headers = {
          User-Agent = "nomad"
        }
      }
      artifact {
        source = "git::https://example.com/repo"
      }
    }
  }
}
"#,
    );
    let a = &v["TaskGroups"][0]["Tasks"][0]["Artifacts"];
    assert_eq!(
        a[0],
        json!({
            "GetterSource": "https://example.com/app.tar.gz", "RelativeDest": "local/app",
            "GetterMode": "dir", "GetterInsecure": null, "Chown": true,
            "GetterOptions": {"checksum": "sha256:abc"}, "GetterHeaders": {"User-Agent": "nomad"}
        })
    );
    assert_eq!(
        a[1],
        json!({
            "GetterSource": "git::https://example.com/repo", "RelativeDest": null,
            "GetterMode": null, "GetterInsecure": null, "Chown": false,
            "GetterOptions": null, "GetterHeaders": null
        })
    );
}

#[test]
fn volumes_and_mounts() {
    let v = job_json(
        r#"job "a" {
  group "g" {
    volume "data" {
      type            = "csi"
      source          = "db"
      read_only       = true
      access_mode     = "single-node-writer"
      attachment_mode = "file-system"
      per_alloc       = true
      mount_options {
        fs_type     = "ext4"
        mount_flags = ["noatime"]
      }
    }
    volume "cache" {
      type   = "host"
      source = "cache"
    }
    task "t" {
      driver = "raw_exec"
      volume_mount {
        volume           = "data"
        destination      = "/srv"
        read_only        = true
        propagation_mode = "host-to-task"
      }
    }
  }
}
"#,
    );
    let g = &v["TaskGroups"][0];
    assert_eq!(
        g["Volumes"]["data"],
        json!({
            "Name": "data", "Type": "csi", "Source": "db", "ReadOnly": true, "Sticky": false,
            "AccessMode": "single-node-writer", "AttachmentMode": "file-system",
            "PerAlloc": true, "MountOptions": {"FSType": "ext4", "MountFlags": ["noatime"]}
        })
    );
    assert_eq!(g["Volumes"]["cache"]["Type"], "host");
    assert_eq!(g["Volumes"]["cache"]["MountOptions"], Value::Null);
    assert_eq!(
        g["Tasks"][0]["VolumeMounts"],
        json!([{"Volume": "data", "Destination": "/srv", "ReadOnly": true,
                "PropagationMode": "host-to-task", "SELinuxLabel": null}])
    );
    let err = parse_err("job \"a\" {\n  group \"g\" {\n    volume {}\n  }\n}\n");
    assert!(err.contains("Missing name for volume"), "{err}");
}

#[test]
fn disconnect_block_and_deprecated_attributes() {
    let v = job_json(
        r#"job "a" {
  group "g" {
    disconnect {
      lost_after           = "1h"
      stop_on_client_after = "30m"
      replace              = false
      reconcile            = "keep_original"
    }
    task "t" { driver = "raw_exec" }
  }
  group "old" {
    max_client_disconnect        = "2h"
    stop_after_client_disconnect = "90s"
    prevent_reschedule_on_lost   = true
    task "t" { driver = "raw_exec" }
  }
}
"#,
    );
    assert_eq!(
        v["TaskGroups"][0]["Disconnect"],
        json!({"LostAfter": 3_600_000_000_000i64, "StopOnClientAfter": 1_800_000_000_000i64,
               "Replace": false, "Reconcile": "keep_original"})
    );
    let old = &v["TaskGroups"][1];
    assert_eq!(old["Disconnect"], Value::Null);
    assert_eq!(old["MaxClientDisconnect"], 7_200_000_000_000i64);
    assert_eq!(old["StopAfterClientDisconnect"], 90_000_000_000i64);
    assert_eq!(old["PreventRescheduleOnLost"], true);
}

#[test]
fn unknown_arguments_in_new_blocks_are_reported() {
    let err = parse_err("job \"a\" {\n  affinity {\n    attribut = \"x\"\n  }\n}\n");
    assert!(
        err.contains("test.hcl:3,5-13: Unsupported argument; An argument named \"attribut\" is not expected here. Did you mean \"attribute\"?"),
        "{err}"
    );
}

#[test]
fn template_change_script() {
    let v = job_json(
        r#"job "a" {
  group "g" {
    task "t" {
      driver = "raw_exec"
      template {
        data        = "x"
        destination = "local/x"
        change_mode = "script"
        change_script {
          command       = "/bin/reload"
          fail_on_error = true
        }
      }
    }
  }
}
"#,
    );
    assert_eq!(
        v["TaskGroups"][0]["Tasks"][0]["Templates"][0]["ChangeScript"],
        json!({"Command": "/bin/reload", "Args": [], "Timeout": 5_000_000_000i64,
               "FailOnError": true, "RunOnFirstRender": false})
    );
    let err = parse_err(
        "job \"a\" {\n  task \"t\" {\n    template {\n      change_script {\n        command = \"x\"\n      }\n    }\n  }\n}\n",
    );
    assert!(
        err.contains(
            "test.hcl:4,21-21: Missing required argument; The argument \"fail_on_error\" is required"
        ),
        "{err}"
    );
}
