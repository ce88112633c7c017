//! `canonicalize` fills the api Canonicalize defaults of affinity, spread, periodic,
//! template, artifact, volume_mount and disconnect blocks.

use serde_json::{json, Value};

use super::*;

fn canonical(src: &str) -> Value {
    let mut job = parse(src);
    canonicalize(&mut job);
    let once = to_json(&job);
    // Idempotent, like the rest of canonicalize.
    canonicalize(&mut job);
    assert_eq!(to_json(&job), once);
    once
}

const JOB: &str = r#"job "a" {
  type = "batch"
  affinity {
    attribute = "${node.class}"
    value     = "big"
  }
  spread {
    attribute = "${node.datacenter}"
    weight    = 10
  }
  periodic {
    cron = "@hourly"
  }
  group "g" {
    disconnect {
      lost_after = "5m"
    }
    affinity {
      attribute = "${meta.x}"
      value     = "y"
      weight    = -20
    }
    spread {
      attribute = "${meta.rack}"
    }
    task "t" {
      driver = "raw_exec"
      affinity {
        attribute = "${meta.z}"
        value     = "1"
      }
      template {
        data        = "x"
        destination = "local/x"
        change_mode = "signal"
      }
      template {
        data          = "y"
        change_signal = "sigusr1"
      }
      artifact {
        source = "https://example.com/dir/tool.bin"
        mode   = "file"
      }
      artifact {
        source = "https://example.com/app.tar.gz"
        options {}
      }
      volume_mount {
        volume      = "data"
        destination = "/srv"
      }
    }
  }
}
"#;

#[test]
fn weights_default_to_fifty() {
    let v = canonical(JOB);
    assert_eq!(v["Affinities"][0]["Weight"], 50);
    assert_eq!(v["Spreads"][0]["Weight"], 10);
    let g = &v["TaskGroups"][0];
    assert_eq!(g["Affinities"][0]["Weight"], -20);
    assert_eq!(g["Spreads"][0]["Weight"], 50);
    assert_eq!(g["Tasks"][0]["Affinities"][0]["Weight"], 50);
}

#[test]
fn periodic_and_disconnect_defaults() {
    let v = canonical(JOB);
    assert_eq!(
        v["Periodic"],
        json!({"Enabled": true, "Spec": "@hourly", "Specs": [], "SpecType": "cron",
               "ProhibitOverlap": false, "TimeZone": "UTC"})
    );
    assert_eq!(
        v["TaskGroups"][0]["Disconnect"],
        json!({"LostAfter": 300_000_000_000i64, "StopOnClientAfter": null,
               "Replace": true, "Reconcile": "best_score"})
    );
    let v = canonical(
        "job \"a\" {\n  group \"g\" {\n    disconnect {\n      reconcile = \"\"\n    }\n  }\n}\n",
    );
    assert_eq!(
        v["TaskGroups"][0]["Disconnect"],
        json!({"LostAfter": 0, "StopOnClientAfter": null, "Replace": true, "Reconcile": "best_score"})
    );
}

#[test]
fn template_defaults() {
    let v = canonical(JOB);
    let t = &v["TaskGroups"][0]["Tasks"][0]["Templates"];
    assert_eq!(
        t[0],
        json!({
            "SourcePath": "", "DestPath": "local/x", "EmbeddedTmpl": "x",
            "ChangeMode": "signal", "ChangeScript": null, "ChangeSignal": "SIGHUP",
            "Once": false, "Splay": 5_000_000_000i64, "Perms": "0644", "Uid": null,
            "Gid": null, "LeftDelim": "{{", "RightDelim": "}}", "Envvars": false,
            "VaultGrace": 0, "Wait": null, "ErrMissingKey": false
        })
    );
    assert_eq!(t[1]["ChangeMode"], "restart");
    assert_eq!(t[1]["ChangeSignal"], "SIGUSR1");
    assert_eq!(t[1]["DestPath"], "");
}

#[test]
fn artifact_and_volume_mount_defaults() {
    let v = canonical(JOB);
    let task = &v["TaskGroups"][0]["Tasks"][0];
    let a = &task["Artifacts"];
    assert_eq!(a[0]["RelativeDest"], "local/tool.bin");
    assert_eq!(a[0]["GetterMode"], "file");
    assert_eq!(a[0]["GetterInsecure"], false);
    assert_eq!(a[1]["RelativeDest"], "local/");
    assert_eq!(a[1]["GetterMode"], "any");
    assert_eq!(a[1]["GetterOptions"], Value::Null);
    assert_eq!(
        task["VolumeMounts"],
        json!([{"Volume": "data", "Destination": "/srv", "ReadOnly": false,
                "PropagationMode": "private", "SELinuxLabel": ""}])
    );
}
