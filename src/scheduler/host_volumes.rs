//! Static host volumes (Nomad's `HostVolumeChecker`): a group's `volume { type = "host" }`
//! requests need a node whose client config has that volume, writable unless the request
//! is read-only. Not cached per node class: volumes are per node.

use serde_json::Value;

use crate::api::{Node, TaskGroup, VolumeRequest};

/// Nomad's filter reason for a node without the group's host volumes.
pub const FILTER_HOST_VOLUMES: &str = "missing compatible host volumes";

/// The group's host volume requests.
pub fn host_requests(tg: &TaskGroup) -> Vec<VolumeRequest> {
    let Some(Value::Object(vols)) = &tg.volumes else {
        return Vec::new();
    };
    vols.values()
        .filter_map(|v| serde_json::from_value::<VolumeRequest>(v.clone()).ok())
        .filter(|r| r.r#type == "host")
        .collect()
}

/// The source a request names for one alloc: `per_alloc` volumes are `<source>[<index>]`.
pub fn source_for(req: &VolumeRequest, alloc_name: &str) -> String {
    if !req.per_alloc {
        return req.source.clone();
    }
    let suffix = alloc_name
        .rfind('[')
        .map(|i| &alloc_name[i..])
        .unwrap_or("");
    format!("{}{suffix}", req.source)
}

/// Whether `node` offers every host volume `tg` asks for, for the alloc `alloc_name`.
pub fn feasible(node: &Node, tg: &TaskGroup, alloc_name: &str) -> bool {
    let reqs = host_requests(tg);
    if reqs.is_empty() {
        return true;
    }
    let offered = node.host_volumes.as_ref().and_then(Value::as_object);
    reqs.iter().all(|req| {
        if req.sticky {
            // Sticky claims need dynamic host volumes, which this cluster does not create.
            return false;
        }
        let Some(cfg) = offered.and_then(|o| o.get(&source_for(req, alloc_name))) else {
            return false;
        };
        let node_read_only = cfg
            .get("ReadOnly")
            .and_then(Value::as_bool)
            .unwrap_or(false);
        req.read_only || !node_read_only
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn node(vols: Value) -> Node {
        Node {
            id: "n".into(),
            host_volumes: Some(vols),
            ..Default::default()
        }
    }

    fn group(vols: Value) -> TaskGroup {
        TaskGroup {
            name: "g".into(),
            volumes: Some(vols),
            ..Default::default()
        }
    }

    #[test]
    fn table() {
        let data = json!({"data": {"Name": "data", "Path": "/srv/data", "ReadOnly": false}});
        let ro = json!({"data": {"Name": "data", "Path": "/srv/data", "ReadOnly": true}});
        let want = |read_only: bool| {
            group(
                json!({"v": {"Name": "v", "Type": "host", "Source": "data", "ReadOnly": read_only}}),
            )
        };
        let cases = [
            ("no volumes asked", node(json!({})), group(json!({})), true),
            ("present, writable", node(data.clone()), want(false), true),
            ("present, read-only ask", node(ro.clone()), want(true), true),
            ("read-only node, writable ask", node(ro), want(false), false),
            ("missing", node(json!({"other": {}})), want(false), false),
            (
                "csi requests are not ours",
                node(json!({})),
                group(json!({"c": {"Name": "c", "Type": "csi", "Source": "x"}})),
                true,
            ),
        ];
        for (what, n, g, ok) in cases {
            assert_eq!(feasible(&n, &g, "j.g[0]"), ok, "{what}");
        }
    }

    #[test]
    fn per_alloc_sources_carry_the_alloc_index() {
        let g =
            group(json!({"v": {"Name": "v", "Type": "host", "Source": "disk", "PerAlloc": true}}));
        let n = node(json!({"disk[1]": {"Path": "/d1"}}));
        assert!(feasible(&n, &g, "web.g[1]"));
        assert!(!feasible(&n, &g, "web.g[0]"));
        let req = &host_requests(&g)[0];
        assert_eq!(source_for(req, "web.g[12]"), "disk[12]");
    }
}
