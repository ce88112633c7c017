//! A service's `connect` block (native, sidecar_service with its proxy, sidecar_task), kept as
//! JSON in Nomad's stored shape (`structs.ConsulConnect`) like the rest of the service.
//! `gateway` is decoded in `services_gateway`.

use hcl_edit::structure::Block;
use serde_json::{json, Value};

use super::body::{Decoder, Schema};

const CONNECT_SCHEMA: Schema = Schema {
    attrs: &["native"],
    blocks: &[
        ("sidecar_service", &[]),
        ("sidecar_task", &[]),
        ("gateway", &[]),
    ],
    pending: &[],
};

const SIDECAR_SERVICE_SCHEMA: Schema = Schema {
    attrs: &["tags", "port", "disable_default_tcp_check", "meta"],
    blocks: &[("proxy", &[]), ("meta", &[])],
    pending: &[],
};

const PROXY_SCHEMA: Schema = Schema {
    attrs: &["local_service_address", "local_service_port"],
    blocks: &[
        ("expose", &[]),
        ("upstreams", &[]),
        ("transparent_proxy", &[]),
        ("config", &[]),
    ],
    pending: &[],
};

const EXPOSE_SCHEMA: Schema = Schema {
    attrs: &[],
    blocks: &[("path", &[])],
    pending: &[],
};

const EXPOSE_PATH_SCHEMA: Schema = Schema {
    attrs: &["path", "protocol", "local_path_port", "listener_port"],
    blocks: &[],
    pending: &[],
};

const UPSTREAM_SCHEMA: Schema = Schema {
    attrs: &[
        "destination_name",
        "destination_namespace",
        "destination_peer",
        "destination_partition",
        "destination_type",
        "local_bind_port",
        "datacenter",
        "local_bind_address",
        "local_bind_socket_path",
        "local_bind_socket_mode",
    ],
    blocks: &[("mesh_gateway", &[]), ("config", &[])],
    pending: &[],
};

const MESH_GATEWAY_SCHEMA: Schema = Schema {
    attrs: &["mode"],
    blocks: &[],
    pending: &[],
};

const TRANSPARENT_PROXY_SCHEMA: Schema = Schema {
    attrs: &[
        "uid",
        "outbound_port",
        "exclude_inbound_ports",
        "exclude_outbound_ports",
        "exclude_outbound_cidrs",
        "exclude_uids",
        "no_dns",
    ],
    blocks: &[],
    pending: &[],
};

const SIDECAR_TASK_SCHEMA: Schema = Schema {
    attrs: &[
        "name",
        "driver",
        "user",
        "kill_timeout",
        "shutdown_delay",
        "kill_signal",
        "env",
        "meta",
    ],
    blocks: &[
        ("config", &[]),
        ("env", &[]),
        ("meta", &[]),
        ("resources", &[]),
        ("logs", &[]),
        ("volume_mount", &[]),
        ("identity", &[]),
    ],
    pending: &[],
};

const WEIGHTS_SCHEMA: Schema = Schema {
    attrs: &["passing", "warning"],
    blocks: &[],
    pending: &[],
};

/// A service's `weights` block, with api ServiceWeights.Canonicalize's floor of 1 (applied
/// here: a written block is always completed, and 0 cannot be told from unset later).
pub fn weights(dec: &mut Decoder, b: &Block) -> Value {
    let c = dec.content(&b.body, &WEIGHTS_SCHEMA);
    let floor = |n: Option<i64>| n.filter(|n| *n > 0).unwrap_or(1);
    json!({
        "Passing": floor(dec.int(c.attr("passing"))),
        "Warning": floor(dec.int(c.attr("warning"))),
    })
}

fn opt<T: Into<Value>>(v: Option<T>) -> Value {
    v.map(Into::into).unwrap_or(Value::Null)
}

fn free_form(dec: &mut Decoder, b: Option<&Block>) -> Value {
    opt(b
        .and_then(|b| dec.free_form_block(b))
        .map(|m| Value::Object(m.into_iter().collect())))
}

fn map_value(m: Option<std::collections::BTreeMap<String, String>>) -> Value {
    opt(m.map(|m| json!(m)))
}

/// A service's `connect` block.
pub fn connect(dec: &mut Decoder, b: &Block) -> Value {
    let c = dec.content(&b.body, &CONNECT_SCHEMA);
    let sidecar_service = dec
        .single(&c, "sidecar_service")
        .map(|sb| sidecar_service(dec, sb));
    let sidecar_task = dec
        .single(&c, "sidecar_task")
        .map(|tb| sidecar_task(dec, tb));
    let gateway = dec
        .single(&c, "gateway")
        .map(|gb| super::services_gateway::gateway(dec, gb));
    json!({
        "Gateway": opt(gateway),
        "Native": dec.bool(c.attr("native")).unwrap_or(false),
        "SidecarService": opt(sidecar_service),
        "SidecarTask": opt(sidecar_task),
    })
}

fn sidecar_service(dec: &mut Decoder, b: &Block) -> Value {
    let c = dec.content(&b.body, &SIDECAR_SERVICE_SCHEMA);
    let proxy = dec.single(&c, "proxy").map(|pb| proxy(dec, pb));
    json!({
        "DisableDefaultTCPCheck": dec.bool(c.attr("disable_default_tcp_check")).unwrap_or(false),
        "Meta": map_value(dec.string_map(&c, "meta")),
        "Port": dec.string(c.attr("port")).unwrap_or_default(),
        "Proxy": opt(proxy),
        "Tags": opt(dec.string_list(c.attr("tags"))),
    })
}

fn proxy(dec: &mut Decoder, b: &Block) -> Value {
    let c = dec.content(&b.body, &PROXY_SCHEMA);
    let expose = dec.single(&c, "expose").map(|eb| {
        let ec = dec.content(&eb.body, &EXPOSE_SCHEMA);
        let paths: Vec<Value> = ec
            .blocks("path")
            .into_iter()
            .map(|pb| {
                let pc = dec.content(&pb.body, &EXPOSE_PATH_SCHEMA);
                json!({
                    "ListenerPort": dec.string(pc.attr("listener_port")).unwrap_or_default(),
                    "LocalPathPort": dec.int(pc.attr("local_path_port")).unwrap_or(0),
                    "Path": dec.string(pc.attr("path")).unwrap_or_default(),
                    "Protocol": dec.string(pc.attr("protocol")).unwrap_or_default(),
                })
            })
            .collect();
        json!({ "Paths": if paths.is_empty() { Value::Null } else { Value::Array(paths) } })
    });
    let upstreams: Vec<Value> = c
        .blocks("upstreams")
        .into_iter()
        .map(|ub| upstream(dec, ub))
        .collect();
    let tproxy = dec.single(&c, "transparent_proxy").map(|tb| {
        let tc = dec.content(&tb.body, &TRANSPARENT_PROXY_SCHEMA);
        // A list of port numbers, kept as evaluated.
        let outbound_ports = tc
            .attr("exclude_outbound_ports")
            .and_then(|a| dec.eval(&a.value));
        json!({
            "ExcludeInboundPorts": opt(dec.string_list(tc.attr("exclude_inbound_ports"))),
            "ExcludeOutboundCIDRs": opt(dec.string_list(tc.attr("exclude_outbound_cidrs"))),
            "ExcludeOutboundPorts": opt(outbound_ports),
            "ExcludeUIDs": opt(dec.string_list(tc.attr("exclude_uids"))),
            "NoDNS": dec.bool(tc.attr("no_dns")).unwrap_or(false),
            "OutboundPort": dec.int(tc.attr("outbound_port")).unwrap_or(0),
            "UID": dec.string(tc.attr("uid")).unwrap_or_default(),
        })
    });
    let config = dec.single(&c, "config");
    json!({
        "Config": free_form(dec, config),
        "Expose": opt(expose),
        "LocalServiceAddress": dec.string(c.attr("local_service_address")).unwrap_or_default(),
        "LocalServicePort": dec.int(c.attr("local_service_port")).unwrap_or(0),
        "TransparentProxy": opt(tproxy),
        "Upstreams": if upstreams.is_empty() { Value::Null } else { Value::Array(upstreams) },
    })
}

fn upstream(dec: &mut Decoder, b: &Block) -> Value {
    let c = dec.content(&b.body, &UPSTREAM_SCHEMA);
    let mesh_gateway = dec.single(&c, "mesh_gateway").map(|mb| {
        let mc = dec.content(&mb.body, &MESH_GATEWAY_SCHEMA);
        json!({ "Mode": dec.string(mc.attr("mode")).unwrap_or_default() })
    });
    let config = dec.single(&c, "config");
    let s = |dec: &mut Decoder, name: &str| dec.string(c.attr(name)).unwrap_or_default();
    json!({
        "Config": free_form(dec, config),
        "Datacenter": s(dec, "datacenter"),
        "DestinationName": s(dec, "destination_name"),
        "DestinationNamespace": s(dec, "destination_namespace"),
        "DestinationPartition": s(dec, "destination_partition"),
        "DestinationPeer": s(dec, "destination_peer"),
        "DestinationType": s(dec, "destination_type"),
        "LocalBindAddress": s(dec, "local_bind_address"),
        "LocalBindPort": dec.int(c.attr("local_bind_port")).unwrap_or(0),
        "LocalBindSocketMode": s(dec, "local_bind_socket_mode"),
        "LocalBindSocketPath": s(dec, "local_bind_socket_path"),
        "MeshGateway": mesh_gateway.unwrap_or_else(|| json!({"Mode": ""})),
    })
}

fn sidecar_task(dec: &mut Decoder, b: &Block) -> Value {
    let c = dec.content(&b.body, &SIDECAR_TASK_SCHEMA);
    let config = dec.single(&c, "config");
    let resources = dec
        .single(&c, "resources")
        .map(|rb| super::decode::resources(dec, rb));
    let logs = dec
        .single(&c, "logs")
        .map(|lb| super::decode::logs(dec, lb).finish());
    let identities: Vec<Value> = c
        .blocks("identity")
        .into_iter()
        .filter_map(|ib| serde_json::to_value(super::job_blocks::identity(dec, ib)).ok())
        .collect();
    json!({
        "Config": free_form(dec, config),
        "Driver": dec.string(c.attr("driver")).unwrap_or_default(),
        "Identities": if identities.is_empty() { Value::Null } else { Value::Array(identities) },
        "VolumeMounts": opt(super::blocks::volume_mounts(dec, &c)),
        "Env": map_value(dec.string_map(&c, "env")),
        "KillSignal": dec.string(c.attr("kill_signal")).unwrap_or_default(),
        "KillTimeout": opt(dec.duration(c.attr("kill_timeout"))),
        "LogConfig": opt(logs.and_then(|l| serde_json::to_value(l).ok())),
        "Meta": map_value(dec.string_map(&c, "meta")),
        "Name": dec.string(c.attr("name")).unwrap_or_default(),
        "Resources": opt(resources.and_then(|r| serde_json::to_value(r).ok())),
        "ShutdownDelay": opt(dec.duration(c.attr("shutdown_delay"))),
        "User": dec.string(c.attr("user")).unwrap_or_default(),
    })
}

/// api SidecarTask.Canonicalize: default resources, log config, kill timeout and shutdown
/// delay for a sidecar task the user wrote (the given resources and logs were completed while
/// decoding).
pub fn canonicalize_connect(service: &mut serde_json::Map<String, Value>) {
    if let Some(g) = service
        .get_mut("Connect")
        .and_then(|c| c.get_mut("Gateway"))
        .filter(|g| !g.is_null())
    {
        super::services_gateway::canonicalize_gateway(g);
    }
    let Some(task) = service
        .get_mut("Connect")
        .and_then(|c| c.get_mut("SidecarTask"))
        .and_then(Value::as_object_mut)
    else {
        return;
    };
    let mut fill = |key: &str, v: Option<Value>| {
        if task.get(key).is_none_or(Value::is_null) {
            if let Some(v) = v {
                task.insert(key.to_string(), v);
            }
        }
    };
    fill(
        "Resources",
        serde_json::to_value(super::policies::default_resources()).ok(),
    );
    fill(
        "LogConfig",
        serde_json::to_value(super::policies::default_log_config()).ok(),
    );
    fill("KillTimeout", Some(json!(super::DEFAULT_KILL_TIMEOUT)));
    fill("ShutdownDelay", Some(json!(0)));
}
