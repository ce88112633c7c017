//! validate: the scaling, volume, csi_plugin, identity and secret checks, in Nomad's words.

use super::*;

#[test]
fn valid_blocks_pass() {
    let e = errors(
        "    scaling {\n      min = 1\n      max = 3\n    }\n    volume \"v\" {\n      type = \"csi\"\n      source = \"s\"\n      access_mode = \"single-node-writer\"\n      attachment_mode = \"file-system\"\n      per_alloc = true\n    }",
        "      csi_plugin {\n        id = \"p\"\n        type = \"node\"\n      }\n      identity {\n        name = \"consul\"\n        aud = [\"consul.io\"]\n      }",
    );
    assert_eq!(e, "");
}

#[test]
fn scaling_min_above_max() {
    let e = errors("    scaling {\n      min = 5\n      max = 2\n    }", "");
    assert!(e.contains("Task group scaling policy validation failed: 2 errors occurred:\n\t* Scaling policy invalid: maximum count must not be less than minimum count\n\t* Scaling policy invalid: task group count must not be less than minimum count in scaling policy"), "{e}");
}

#[test]
fn scaling_negative_max() {
    let e = errors("    scaling {\n      min = 0\n      max = -1\n    }", "");
    assert!(
        e.contains("Scaling policy invalid: maximum count must be specified and non-negative"),
        "{e}"
    );
}

#[test]
fn volume_rules() {
    let e = errors(
        "    volume \"h\" {\n      type = \"host\"\n      source = \"\"\n      per_alloc = true\n      sticky = true\n      access_mode = \"multi-node-reader-only\"\n      mount_options {\n        fs_type = \"ext4\"\n      }\n    }",
        "",
    );
    assert!(e.contains("Task group volume validation for h failed: 4 errors occurred:\n\t* volume has an empty source\n\t* volume cannot be per_alloc and sticky at the same time\n\t* host volumes cannot have mount options\n\t* host volumes cannot be mounted with multi-node-reader-only access mode"), "{e}");
    let e = errors(
        "    volume \"c\" {\n      type = \"csi\"\n      source = \"s\"\n      access_mode = \"single-node-reader-only\"\n    }",
        "",
    );
    assert!(
        e.contains("* CSI volumes must have an attachment mode"),
        "{e}"
    );
    assert!(
        e.contains("* single-node-reader-only volumes must be read-only"),
        "{e}"
    );
    let e = errors("    volume \"x\" {\n      type = \"nfs\"\n    }", "");
    assert!(
        e.contains("Task group volume validation for x failed: volume has unrecognized type nfs"),
        "{e}"
    );
}

#[test]
fn csi_plugin_rules() {
    let e = errors(
        "",
        "      csi_plugin {\n        type = \"agent\"\n        mount_dir = \"/csi\"\n        stage_publish_base_dir = \"/csi/stage\"\n      }",
    );
    assert!(
        e.contains("* CSIPluginConfig must have a non-empty PluginID"),
        "{e}"
    );
    assert!(e.contains("* CSIPluginConfig PluginType must be one of 'node', 'controller', or 'monolith', got: \"agent\""), "{e}");
    assert!(e.contains("* CSIPluginConfig StagePublishBaseDir must not be a subdirectory of MountDir, got: StagePublishBaseDir=\"/csi/stage\" MountDir=\"/csi\""), "{e}");
}

#[test]
fn identity_and_secret_rules() {
    let e = errors(
        "",
        "      identity {\n        name = \"a b\"\n        change_mode = \"signal\"\n      }\n      identity {\n        name = \"default\"\n      }\n      identity {\n        ttl = \"1h\"\n      }\n      secret \"s\" {\n        provider = \"nomad\"\n      }\n      secret \"s\" {\n        provider = \"nomad\"\n      }",
    );
    assert!(e.contains("Identity \"default\" is invalid: 1 error occurred:\n\t* ttl for default identity not yet supported"), "{e}");
    assert!(e.contains("Duplicate default identities found"), "{e}");
    assert!(e.contains("Identity \"a b\" is invalid: 2 errors occurred:\n\t* invalid name \"a b\". Must match regex ^[a-zA-Z0-9-_]{1,128}$\n\t* change_signal must be specified when using change_mode=\"signal\""), "{e}");
    assert!(e.contains("Duplicate secret \"s\" found"), "{e}");
}

#[test]
fn vault_change_mode_rules() {
    // api Canonicalize gives an unset signal SIGHUP, so only an explicit empty one fails.
    let signal = "      vault {\n        change_mode = \"signal\"\n      }";
    assert_eq!(errors("", signal), "");
    let empty =
        "      vault {\n        change_mode = \"signal\"\n        change_signal = \"\"\n      }";
    let e = errors("", empty);
    assert!(e.contains("Vault validation failed: 1 error occurred:\n\t* Signal must be specified when using change mode \"signal\""), "{e}");
    let e = errors(
        "",
        "      vault {\n        change_mode = \"reload\"\n      }",
    );
    assert!(e.contains("* Unknown change mode \"reload\""), "{e}");
    assert_eq!(
        errors("", "      vault {\n        policies = [\"p\"]\n      }"),
        ""
    );
}

#[test]
fn multiregion_is_unlicensed() {
    let src = REFERENCE_EXAMPLE.replace(
        "  type        = \"service\"\n",
        "  type        = \"service\"\n  multiregion {\n    region \"west\" {}\n  }\n",
    );
    let mut job = parse(&src);
    canonicalize(&mut job);
    let e = validate(&job)
        .map(|_| String::new())
        .unwrap_or_else(|e| e.to_string());
    assert!(e.contains("* Multiregion jobs are unlicensed."), "{e}");
}
