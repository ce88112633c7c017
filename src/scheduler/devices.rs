//! Device asks (Nomad's `DeviceChecker`): a group whose tasks ask for `device "vendor/type/name"`
//! blocks fits only a node whose device groups have that many healthy instances matching the
//! ask's ID and constraints; any other node is filtered as "missing devices".
//!
//! The ID of an ask is `type`, `vendor/type` or `vendor/type/name`; each part given must equal
//! the node group's. Constraints resolve `${device.model}`, `${device.vendor}`,
//! `${device.type}`, `${device.ids}` and `${device.attr.<name>}` against the device group and
//! use the node constraint operators; attribute values compare as their plain value (a unit
//! such as `GiB` is not normalised). The clients of this build fingerprint no device plugins,
//! so in practice every node lacks devices and such a group is not placed, rather than placed
//! without the device it needs. Device instances are not assigned to allocs.

use std::collections::BTreeMap;

use serde::Deserialize;
use serde_json::Value;

use crate::api::{Constraint, Node, TaskGroup};

use super::feasible::check_operand;

/// Nomad's filter reason when a node lacks a requested device.
pub const FILTER_MISSING_DEVICES: &str = "missing devices";

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
struct RequestedDevice {
    name: String,
    count: Option<u64>,
    constraints: Option<Vec<Constraint>>,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
struct DeviceInstance {
    #[serde(rename = "ID")]
    id: String,
    healthy: bool,
}

#[derive(Debug, Clone, Default, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
struct NodeDevice {
    vendor: String,
    #[serde(rename = "Type")]
    kind: String,
    name: String,
    instances: Vec<DeviceInstance>,
    attributes: BTreeMap<String, Value>,
}

impl NodeDevice {
    /// Nomad's `DeviceIdTuple.Matches` for an ask's name.
    fn matches_id(&self, ask: &str) -> bool {
        let parts: Vec<&str> = ask.split('/').collect();
        match parts.as_slice() {
            [kind] => *kind == self.kind,
            [vendor, kind] => *vendor == self.vendor && *kind == self.kind,
            [vendor, kind, name] => {
                *vendor == self.vendor && *kind == self.kind && *name == self.name
            }
            _ => false,
        }
    }

    fn resolve(&self, target: &str) -> Option<String> {
        let Some(inner) = target.strip_prefix("${").and_then(|t| t.strip_suffix('}')) else {
            return Some(target.to_string());
        };
        match inner {
            "device.ids" => Some(
                self.instances
                    .iter()
                    .map(|i| i.id.as_str())
                    .collect::<Vec<_>>()
                    .join(","),
            ),
            "device.model" => Some(self.name.clone()),
            "device.vendor" => Some(self.vendor.clone()),
            "device.type" => Some(self.kind.clone()),
            _ => inner
                .strip_prefix("device.attr.")
                .and_then(|name| self.attributes.get(name))
                .and_then(attribute_value),
        }
    }

    fn meets(&self, ask: &RequestedDevice) -> bool {
        self.matches_id(&ask.name)
            && ask.constraints.iter().flatten().all(|c| {
                let l = self.resolve(&c.l_target);
                let r = self.resolve(&c.r_target);
                check_operand(&c.operand, l.as_deref(), r.as_deref())
            })
    }
}

/// A device attribute (`{"String": ..}`, `{"Int": .., "Unit": ..}`, ...) as a plain value.
fn attribute_value(v: &Value) -> Option<String> {
    ["String", "Int", "Float", "Bool"]
        .iter()
        .find_map(|k| v.get(k).filter(|x| !x.is_null()))
        .map(|x| match x {
            Value::String(s) => s.clone(),
            other => other.to_string(),
        })
}

fn asks(tg: &TaskGroup) -> Vec<RequestedDevice> {
    tg.tasks
        .iter()
        .filter_map(|t| t.resources.as_ref()?.devices.as_ref())
        .filter_map(|v| serde_json::from_value::<Vec<RequestedDevice>>(v.clone()).ok())
        .flatten()
        .collect()
}

/// Whether the group asks for any device.
pub fn wants_devices(tg: &TaskGroup) -> bool {
    tg.tasks.iter().any(|t| {
        t.resources
            .as_ref()
            .and_then(|r| r.devices.as_ref())
            .and_then(Value::as_array)
            .is_some_and(|a| !a.is_empty())
    })
}

/// Whether `node` has healthy device instances for every ask of the group's tasks.
pub fn has_devices(node: &Node, tg: &TaskGroup) -> bool {
    if !wants_devices(tg) {
        return true;
    }
    let asks = asks(tg);
    let devices: Vec<NodeDevice> = node
        .node_resources
        .devices
        .as_ref()
        .and_then(|v| serde_json::from_value(v.clone()).ok())
        .unwrap_or_default();
    let mut free: Vec<u64> = devices
        .iter()
        .map(|d| d.instances.iter().filter(|i| i.healthy).count() as u64)
        .collect();
    asks.iter().all(|ask| {
        let mut wanted = ask.count.unwrap_or(1);
        for (d, left) in devices.iter().zip(free.iter_mut()) {
            if wanted == 0 {
                break;
            }
            if *left == 0 || !d.meets(ask) {
                continue;
            }
            let take = wanted.min(*left);
            *left -= take;
            wanted -= take;
        }
        wanted == 0
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::{Resources, Task};
    use serde_json::json;

    fn group(devices: Value) -> TaskGroup {
        TaskGroup {
            name: "g".into(),
            tasks: vec![Task {
                name: "t".into(),
                resources: Some(Resources {
                    devices: Some(devices),
                    ..Default::default()
                }),
                ..Default::default()
            }],
            ..Default::default()
        }
    }

    fn node(devices: Value) -> Node {
        let mut n = Node::default();
        n.node_resources.devices = Some(devices);
        n
    }

    fn gpus(healthy: &[bool]) -> Value {
        json!([{
            "Vendor": "nvidia", "Type": "gpu", "Name": "1080ti",
            "Instances": healthy.iter().enumerate()
                .map(|(i, h)| json!({"ID": format!("GPU-{i}"), "Healthy": h}))
                .collect::<Vec<_>>(),
            "Attributes": {"memory": {"Int": 11, "Unit": "GiB"}, "cuda": {"String": "12.1"}}
        }])
    }

    #[test]
    fn a_group_without_asks_fits_any_node() {
        let tg = group(json!([]));
        assert!(!wants_devices(&tg));
        assert!(has_devices(&Node::default(), &tg));
    }

    #[test]
    fn a_node_without_devices_is_missing_them() {
        let tg = group(json!([{"Name": "nvidia/gpu", "Count": 1}]));
        assert!(wants_devices(&tg));
        assert!(!has_devices(&Node::default(), &tg));
    }

    #[test]
    fn ids_match_by_type_vendor_and_name() {
        let n = node(gpus(&[true]));
        for (name, fits) in [
            ("gpu", true),
            ("nvidia/gpu", true),
            ("nvidia/gpu/1080ti", true),
            ("amd/gpu", false),
            ("nvidia/gpu/2080", false),
            ("fpga", false),
            ("a/b/c/d", false),
        ] {
            let tg = group(json!([{"Name": name, "Count": 1}]));
            assert_eq!(has_devices(&n, &tg), fits, "{name}");
        }
    }

    #[test]
    fn only_healthy_instances_count_and_asks_share_them() {
        let n = node(gpus(&[true, false, true]));
        assert!(has_devices(
            &n,
            &group(json!([{"Name": "gpu", "Count": 2}]))
        ));
        assert!(!has_devices(
            &n,
            &group(json!([{"Name": "gpu", "Count": 3}]))
        ));
        let two_asks = json!([{"Name": "gpu", "Count": 1}, {"Name": "nvidia/gpu", "Count": 2}]);
        assert!(!has_devices(&n, &group(two_asks)));
    }

    #[test]
    fn constraints_read_the_device_group() {
        let n = node(gpus(&[true]));
        let ask = |l: &str, op: &str, r: &str| {
            group(json!([{"Name": "gpu", "Count": 1, "Constraints": [
                {"LTarget": l, "Operand": op, "RTarget": r}
            ]}]))
        };
        assert!(has_devices(&n, &ask("${device.model}", "=", "1080ti")));
        assert!(!has_devices(&n, &ask("${device.vendor}", "=", "amd")));
        assert!(has_devices(&n, &ask("${device.attr.memory}", ">=", "8")));
        assert!(has_devices(
            &n,
            &ask("${device.attr.cuda}", "version", ">= 12.0")
        ));
        assert!(has_devices(
            &n,
            &ask("${device.ids}", "set_contains", "GPU-0")
        ));
        assert!(!has_devices(&n, &ask("${device.attr.missing}", "=", "x")));
    }
}
