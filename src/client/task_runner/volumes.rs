//! The task's host volume mounts (Nomad's volume hook): each `volume_mount` of a group
//! `volume { type = "host" }` becomes a mount of the node's configured path, read-only if
//! the node, the request or the mount says so.

use serde_json::Value;

use crate::api::{Allocation, Node, Task, TaskGroup, VolumeMount, VolumeRequest};
use crate::drivers::MountConfig;
use crate::scheduler::host_volumes::source_for;

/// The mounts for `task`, or Nomad's error when the node lacks a requested volume.
pub fn host_volume_mounts(
    alloc: &Allocation,
    tg: &TaskGroup,
    task: &Task,
    node: &Node,
) -> Result<Vec<MountConfig>, String> {
    let requests: Vec<(String, VolumeRequest)> = match &tg.volumes {
        Some(Value::Object(vols)) => vols
            .iter()
            .filter_map(|(alias, v)| {
                serde_json::from_value::<VolumeRequest>(v.clone())
                    .ok()
                    .map(|r| (alias.clone(), r))
            })
            .filter(|(_, r)| r.r#type == "host")
            .collect(),
        _ => Vec::new(),
    };
    if requests.is_empty() {
        return Ok(Vec::new());
    }
    let offered = node.host_volumes.as_ref().and_then(Value::as_object);
    let missing: Vec<String> = requests
        .iter()
        .map(|(_, r)| source_for(r, &alloc.name))
        .filter(|src| offered.is_none_or(|o| !o.contains_key(src)))
        .map(|src| format!("missing {src}"))
        .collect();
    if !missing.is_empty() {
        return Err(format!(
            "host volume validation error: {}",
            missing.join(", ")
        ));
    }
    let mounts: Vec<VolumeMount> = task
        .volume_mounts
        .as_ref()
        .and_then(|v| serde_json::from_value(v.clone()).ok())
        .unwrap_or_default();
    let mut out = Vec::new();
    for m in mounts {
        let alias = m.volume.clone().unwrap_or_default();
        let Some((_, req)) = requests.iter().find(|(a, _)| *a == alias) else {
            continue; // a CSI volume's mount, or one another hook serves
        };
        let source = source_for(req, &alloc.name);
        let Some(cfg) = offered.and_then(|o| o.get(&source)) else {
            return Err(format!("no host volume named: {source}"));
        };
        let path = cfg.get("Path").and_then(Value::as_str).unwrap_or("");
        let node_ro = cfg
            .get("ReadOnly")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        out.push(MountConfig {
            task_path: m.destination.clone().unwrap_or_default(),
            host_path: path.into(),
            readonly: node_ro || req.read_only || m.read_only.unwrap_or(false),
            propagation_mode: m
                .propagation_mode
                .clone()
                .unwrap_or_else(|| "private".to_string()),
        });
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn fixture(per_alloc: bool) -> (Allocation, TaskGroup, Task, Node) {
        let task = Task {
            name: "t".into(),
            volume_mounts: Some(json!([
                {"Volume": "data", "Destination": "/srv", "ReadOnly": false},
                {"Volume": "other", "Destination": "/x"}
            ])),
            ..Default::default()
        };
        let tg = TaskGroup {
            name: "g".into(),
            volumes: Some(json!({
                "data": {"Name": "data", "Type": "host", "Source": "shared", "PerAlloc": per_alloc},
                "other": {"Name": "other", "Type": "csi", "Source": "vol"}
            })),
            tasks: vec![task.clone()],
            ..Default::default()
        };
        let alloc = Allocation {
            name: "j.g[2]".into(),
            ..Default::default()
        };
        let node = Node {
            host_volumes: Some(json!({
                "shared": {"Name": "shared", "Path": "/mnt/shared", "ReadOnly": true},
                "shared[2]": {"Name": "shared[2]", "Path": "/mnt/two", "ReadOnly": false}
            })),
            ..Default::default()
        };
        (alloc, tg, task, node)
    }

    #[test]
    fn mounts_take_the_node_path_and_the_strictest_read_only() {
        let (alloc, tg, task, node) = fixture(false);
        let m = host_volume_mounts(&alloc, &tg, &task, &node).expect("mounts");
        assert_eq!(
            m,
            vec![MountConfig {
                task_path: "/srv".into(),
                host_path: "/mnt/shared".into(),
                readonly: true,
                propagation_mode: "private".into(),
            }]
        );
        let (alloc, tg, task, node) = fixture(true);
        let m = host_volume_mounts(&alloc, &tg, &task, &node).expect("mounts");
        assert_eq!(m[0].host_path, std::path::PathBuf::from("/mnt/two"));
        assert!(!m[0].readonly);
    }

    #[test]
    fn a_missing_volume_is_named() {
        let (alloc, tg, task, mut node) = fixture(false);
        node.host_volumes = Some(json!({}));
        assert_eq!(
            host_volume_mounts(&alloc, &tg, &task, &node),
            Err("host volume validation error: missing shared".to_string())
        );
    }
}
