//! The names a docker task's `config { }` block may use, nested blocks included, as Nomad's
//! `taskConfigSpec` (drivers/docker/config.go) lists them. Nomad decodes the block against
//! that spec and fails the task on any other name; so does `check_keys`. Keys Nomad accepts
//! but this driver does not act on yet are accepted too, so no valid job is refused.

use serde_json::Value;

/// What a name holds: a value of any shape (attributes, and maps whose keys are the user's,
/// such as `labels` or `storage_opt`), or a block whose own names are checked in turn.
enum Spec {
    Attr,
    Block(&'static [(&'static str, Spec)]),
}

use Spec::{Attr, Block};

const AUTH: &[(&str, Spec)] = &[
    ("username", Attr),
    ("password", Attr),
    ("email", Attr),
    ("server_address", Attr),
];

const DEVICES: &[(&str, Spec)] = &[
    ("host_path", Attr),
    ("container_path", Attr),
    ("cgroup_permissions", Attr),
];

const HEALTHCHECKS: &[(&str, Spec)] = &[("disable", Attr)];

const LOGGING: &[(&str, Spec)] = &[("type", Attr), ("driver", Attr), ("config", Attr)];

const MOUNT: &[(&str, Spec)] = &[
    ("type", Attr),
    ("target", Attr),
    ("source", Attr),
    ("readonly", Attr),
    ("bind_options", Block(&[("propagation", Attr)])),
    ("tmpfs_options", Block(&[("size", Attr), ("mode", Attr)])),
    (
        "volume_options",
        Block(&[
            ("no_copy", Attr),
            ("labels", Attr),
            ("driver_config", Block(&[("name", Attr), ("options", Attr)])),
        ]),
    ),
];

const TASK_CONFIG: &[(&str, Spec)] = &[
    ("image", Attr),
    ("advertise_ipv6_address", Attr),
    ("args", Attr),
    ("auth", Block(AUTH)),
    ("auth_soft_fail", Attr),
    ("cap_add", Attr),
    ("cap_drop", Attr),
    ("cgroupns", Attr),
    ("command", Attr),
    ("cpuset_cpus", Attr),
    ("cpu_hard_limit", Attr),
    ("cpu_cfs_period", Attr),
    ("container_exists_attempts", Attr),
    ("devices", Block(DEVICES)),
    ("dns_search_domains", Attr),
    ("dns_options", Attr),
    ("dns_servers", Attr),
    ("entrypoint", Attr),
    ("extra_hosts", Attr),
    ("force_pull", Attr),
    ("group_add", Attr),
    ("healthchecks", Block(HEALTHCHECKS)),
    ("hostname", Attr),
    ("init", Attr),
    ("interactive", Attr),
    ("ipc_mode", Attr),
    ("ipv4_address", Attr),
    ("ipv6_address", Attr),
    ("isolation", Attr),
    ("labels", Attr),
    ("load", Attr),
    ("logging", Block(LOGGING)),
    ("mac_address", Attr),
    ("memory_hard_limit", Attr),
    ("mount", Block(MOUNT)),
    ("mounts", Block(MOUNT)),
    ("network_aliases", Attr),
    ("network_mode", Attr),
    ("oom_score_adj", Attr),
    ("runtime", Attr),
    ("pids_limit", Attr),
    ("pid_mode", Attr),
    ("ports", Attr),
    ("port_map", Attr),
    ("privileged", Attr),
    ("image_pull_timeout", Attr),
    ("readonly_rootfs", Attr),
    ("security_opt", Attr),
    ("shm_size", Attr),
    ("storage_opt", Attr),
    ("sysctl", Attr),
    ("tty", Attr),
    ("ulimit", Attr),
    ("uts_mode", Attr),
    ("userns_mode", Attr),
    ("volumes", Attr),
    ("volume_driver", Attr),
    ("work_dir", Attr),
];

/// The names in a task's `config` (and in its nested blocks) that Nomad's docker driver
/// does not know, in the order met.
pub fn unknown_keys<'a>(config: impl IntoIterator<Item = (&'a String, &'a Value)>) -> Vec<String> {
    let mut out = Vec::new();
    check(config, TASK_CONFIG, &mut out);
    out
}

fn check<'a>(
    body: impl IntoIterator<Item = (&'a String, &'a Value)>,
    spec: &[(&str, Spec)],
    out: &mut Vec<String>,
) {
    for (key, value) in body {
        match spec.iter().find(|(name, _)| name == key) {
            None => out.push(key.clone()),
            Some((_, Attr)) => {}
            // A block arrives as an object, or as a list of them when repeated or written
            // in the pre-1.0 `mounts = [{ ... }]` form.
            Some((_, Block(inner))) => match value {
                Value::Object(m) => check(m, inner, out),
                Value::Array(items) => {
                    for m in items.iter().filter_map(Value::as_object) {
                        check(m, inner, out);
                    }
                }
                _ => {}
            },
        }
    }
}

/// Nomad's message for each unknown name (hcldec's diagnostic on a JSON body, as Nomad's
/// `formattedDiagnosticErrors` renames it), behind the task runner's prefix.
pub fn unknown_keys_message(keys: &[String]) -> String {
    let each: Vec<String> = keys
        .iter()
        .map(|k| format!("Invalid label: No argument or block type is named {k:?}."))
        .collect();
    format!("failed to parse config: {}", each.join("; "))
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use serde_json::json;

    use super::*;

    fn unknown(config: Value) -> Vec<String> {
        let m: BTreeMap<String, Value> = serde_json::from_value(config).expect("object");
        unknown_keys(&m)
    }

    #[test]
    fn every_name_nomad_accepts_is_accepted() {
        let all: serde_json::Map<String, Value> = TASK_CONFIG
            .iter()
            .map(|(k, _)| (k.to_string(), json!(null)))
            .collect();
        assert_eq!(unknown(Value::Object(all)), Vec::<String>::new());
        let nested = json!({
            "image": "busybox",
            "auth": [{"username": "u", "password": "p", "email": "e", "server_address": "s"}],
            "devices": [{"host_path": "/dev/fuse", "container_path": "/dev/fuse", "cgroup_permissions": "rwm"}],
            "healthchecks": [{"disable": true}],
            "logging": [{"type": "json-file", "driver": "d", "config": [{"max-size": "1m"}]}],
            "labels": [{"any.key": "v"}],
            "storage_opt": [{"size": "1G"}],
            "sysctl": [{"net.core.somaxconn": "16384"}],
            "mount": [{
                "type": "volume", "target": "/t", "source": "s", "readonly": false,
                "bind_options": [{"propagation": "rshared"}],
                "tmpfs_options": [{"size": 1, "mode": 2}],
                "volume_options": [{"no_copy": true, "labels": [{"free": "x"}],
                    "driver_config": [{"name": "local", "options": [{"free": "y"}]}]}],
            }],
            "mounts": [{"type": "tmpfs", "target": "/m"}],
        });
        assert_eq!(unknown(nested), Vec::<String>::new());
    }

    #[test]
    fn unknown_names_are_found_at_any_depth() {
        let found = unknown(json!({
            "image": "busybox",
            "bogus": 1,
            "mount": [{"target": "/t", "sorce": "typo",
                       "volume_options": [{"driver_config": [{"nam": "local"}]}]}],
            "logging": {"typ": "syslog"},
        }));
        assert_eq!(found, vec!["bogus", "typ", "sorce", "nam"]);
        assert_eq!(
            unknown_keys_message(&found[..1]),
            "failed to parse config: Invalid label: No argument or block type is named \"bogus\"."
        );
    }
}
