//! A connect `gateway` block (proxy, ingress, terminating, mesh) in Nomad's stored shape
//! (`structs.ConsulGateway`). Ingress services' header modifiers, SDS and connection limits
//! are recognised but not decoded yet.

use hcl_edit::structure::Block;
use serde_json::{json, Map, Value};

use super::body::{Decoder, Schema};
use crate::api::SECOND;

const GATEWAY_SCHEMA: Schema = Schema {
    attrs: &[],
    blocks: &[
        ("proxy", &[]),
        ("ingress", &[]),
        ("terminating", &[]),
        ("mesh", &[]),
    ],
    pending: &[],
};

const PROXY_SCHEMA: Schema = Schema {
    attrs: &[
        "connect_timeout",
        "envoy_gateway_bind_tagged_addresses",
        "envoy_gateway_no_default_bind",
        "envoy_dns_discovery_type",
    ],
    blocks: &[("envoy_gateway_bind_addresses", &["name"]), ("config", &[])],
    pending: &[],
};

const BIND_ADDRESS_SCHEMA: Schema = Schema {
    attrs: &["address", "port"],
    blocks: &[],
    pending: &[],
};

const INGRESS_SCHEMA: Schema = Schema {
    attrs: &[],
    blocks: &[("tls", &[]), ("listener", &[])],
    pending: &[],
};

const TLS_SCHEMA: Schema = Schema {
    attrs: &[
        "enabled",
        "tls_min_version",
        "tls_max_version",
        "cipher_suites",
    ],
    blocks: &[("sds", &[])],
    pending: &[],
};

const SDS_SCHEMA: Schema = Schema {
    attrs: &["cluster_name", "cert_resource"],
    blocks: &[],
    pending: &[],
};

const HEADERS_SCHEMA: Schema = Schema {
    attrs: &["remove"],
    blocks: &[("add", &[]), ("set", &[])],
    pending: &[],
};

const LISTENER_SCHEMA: Schema = Schema {
    attrs: &["port", "protocol"],
    blocks: &[("service", &[])],
    pending: &[],
};

const INGRESS_SERVICE_SCHEMA: Schema = Schema {
    attrs: &[
        "name",
        "hosts",
        "max_connections",
        "max_pending_requests",
        "max_concurrent_requests",
    ],
    blocks: &[
        ("tls", &[]),
        ("request_headers", &[]),
        ("response_headers", &[]),
    ],
    pending: &[],
};

const TERMINATING_SCHEMA: Schema = Schema {
    attrs: &[],
    blocks: &[("service", &[])],
    pending: &[],
};

const LINKED_SERVICE_SCHEMA: Schema = Schema {
    attrs: &["name", "ca_file", "cert_file", "key_file", "sni"],
    blocks: &[],
    pending: &[],
};

const MESH_SCHEMA: Schema = Schema {
    attrs: &[],
    blocks: &[],
    pending: &[],
};

fn list(items: Vec<Value>) -> Value {
    if items.is_empty() {
        Value::Null
    } else {
        Value::Array(items)
    }
}

fn opt<T: Into<Value>>(v: Option<T>) -> Value {
    v.map(Into::into).unwrap_or(Value::Null)
}

/// A connect block's `gateway`.
pub fn gateway(dec: &mut Decoder, b: &Block) -> Value {
    let c = dec.content(&b.body, &GATEWAY_SCHEMA);
    let proxy = dec.single(&c, "proxy").map(|pb| proxy(dec, pb));
    let ingress = dec.single(&c, "ingress").map(|ib| ingress(dec, ib));
    let terminating = dec.single(&c, "terminating").map(|tb| {
        let tc = dec.content(&tb.body, &TERMINATING_SCHEMA);
        let services = tc
            .blocks("service")
            .into_iter()
            .map(|sb| {
                let sc = dec.content(&sb.body, &LINKED_SERVICE_SCHEMA);
                let mut s = |name: &str| dec.string(sc.attr(name)).unwrap_or_default();
                json!({
                    "CAFile": s("ca_file"),
                    "CertFile": s("cert_file"),
                    "KeyFile": s("key_file"),
                    "Name": s("name"),
                    "SNI": s("sni"),
                })
            })
            .collect();
        json!({ "Services": list(services) })
    });
    let mesh = dec.single(&c, "mesh").map(|mb| {
        dec.content(&mb.body, &MESH_SCHEMA);
        json!({})
    });
    json!({
        "Ingress": opt(ingress),
        "Mesh": opt(mesh),
        "Proxy": opt(proxy),
        "Terminating": opt(terminating),
    })
}

fn proxy(dec: &mut Decoder, b: &Block) -> Value {
    let c = dec.content(&b.body, &PROXY_SCHEMA);
    let mut binds = Map::new();
    for bb in c.blocks("envoy_gateway_bind_addresses") {
        let bc = dec.content(&bb.body, &BIND_ADDRESS_SCHEMA);
        binds.insert(
            Decoder::label(bb),
            json!({
                "Address": dec.string(bc.attr("address")).unwrap_or_default(),
                "Port": dec.int(bc.attr("port")).unwrap_or(0),
            }),
        );
    }
    let config = dec
        .single(&c, "config")
        .and_then(|cb| dec.free_form_block(cb))
        .map(|m| Value::Object(m.into_iter().collect()));
    json!({
        "Config": opt(config),
        "ConnectTimeout": opt(dec.duration(c.attr("connect_timeout"))),
        "EnvoyDNSDiscoveryType": dec.string(c.attr("envoy_dns_discovery_type")).unwrap_or_default(),
        "EnvoyGatewayBindAddresses": if binds.is_empty() { Value::Null } else { Value::Object(binds) },
        "EnvoyGatewayBindTaggedAddresses": dec.bool(c.attr("envoy_gateway_bind_tagged_addresses")).unwrap_or(false),
        "EnvoyGatewayNoDefaultBind": dec.bool(c.attr("envoy_gateway_no_default_bind")).unwrap_or(false),
    })
}

fn tls(dec: &mut Decoder, b: &Block) -> Value {
    let c = dec.content(&b.body, &TLS_SCHEMA);
    json!({
        "CipherSuites": opt(dec.string_list(c.attr("cipher_suites"))),
        "Enabled": dec.bool(c.attr("enabled")).unwrap_or(false),
        "SDS": c.blocks("sds").first().map(|sb| {
            let sc = dec.content(&sb.body, &SDS_SCHEMA);
            json!({
                "CertResource": dec.string(sc.attr("cert_resource")).unwrap_or_default(),
                "ClusterName": dec.string(sc.attr("cluster_name")).unwrap_or_default(),
            })
        }).unwrap_or(Value::Null),
        "TLSMaxVersion": dec.string(c.attr("tls_max_version")).unwrap_or_default(),
        "TLSMinVersion": dec.string(c.attr("tls_min_version")).unwrap_or_default(),
    })
}

/// ConsulHTTPHeaderModifiers: `add` and `set` blocks of header names to values, and a
/// `remove` list.
fn headers(dec: &mut Decoder, b: &Block) -> Value {
    let c = dec.content(&b.body, &HEADERS_SCHEMA);
    let add = dec.string_map(&c, "add");
    let set = dec.string_map(&c, "set");
    let to_map = |m: Option<std::collections::BTreeMap<String, String>>| {
        m.map(|m| Value::Object(m.into_iter().map(|(k, v)| (k, Value::String(v))).collect()))
            .unwrap_or(Value::Null)
    };
    json!({
        "Add": to_map(add),
        "Remove": opt(dec.string_list(c.attr("remove"))),
        "Set": to_map(set),
    })
}

/// A `*uint32` attribute: a whole number in 0..=4294967295.
fn uint32(dec: &mut Decoder, a: Option<&hcl_edit::structure::Attribute>) -> Option<i64> {
    let a = a?;
    let n = dec.int(Some(a))?;
    if !(0..=u32::MAX as i64).contains(&n) {
        dec.push(
            "Unsuitable value type",
            "Unsuitable value: value must be a whole number, between 0 and 4294967295 inclusive"
                .to_string(),
            hcl_edit::Span::span(&a.value),
        );
        return None;
    }
    Some(n)
}

fn ingress(dec: &mut Decoder, b: &Block) -> Value {
    let c = dec.content(&b.body, &INGRESS_SCHEMA);
    let tls_block = dec.single(&c, "tls").map(|tb| tls(dec, tb));
    let listeners = c
        .blocks("listener")
        .into_iter()
        .map(|lb| {
            let lc = dec.content(&lb.body, &LISTENER_SCHEMA);
            let services = lc
                .blocks("service")
                .into_iter()
                .map(|sb| {
                    let sc = dec.content(&sb.body, &INGRESS_SERVICE_SCHEMA);
                    let service_tls = dec.single(&sc, "tls").map(|tb| tls(dec, tb));
                    let request = dec
                        .single(&sc, "request_headers")
                        .map(|hb| headers(dec, hb));
                    let response = dec
                        .single(&sc, "response_headers")
                        .map(|hb| headers(dec, hb));
                    json!({
                        "Hosts": opt(dec.string_list(sc.attr("hosts"))),
                        "MaxConcurrentRequests": opt(uint32(dec, sc.attr("max_concurrent_requests"))),
                        "MaxConnections": opt(uint32(dec, sc.attr("max_connections"))),
                        "MaxPendingRequests": opt(uint32(dec, sc.attr("max_pending_requests"))),
                        "Name": dec.string(sc.attr("name")).unwrap_or_default(),
                        "RequestHeaders": opt(request),
                        "ResponseHeaders": opt(response),
                        "TLS": opt(service_tls),
                    })
                })
                .collect();
            json!({
                "Port": dec.int(lc.attr("port")).unwrap_or(0),
                "Protocol": dec.string(lc.attr("protocol")).unwrap_or_default(),
                "Services": list(services),
            })
        })
        .collect();
    json!({ "Listeners": list(listeners), "TLS": opt(tls_block) })
}

/// api ConsulGatewayProxy.Canonicalize: Consul's default connect timeout.
pub fn canonicalize_gateway(gateway: &mut Value) {
    if let Some(p) = gateway.get_mut("Proxy").and_then(Value::as_object_mut) {
        if p.get("ConnectTimeout").is_none_or(Value::is_null) {
            p.insert("ConnectTimeout".to_string(), json!(5 * SECOND));
        }
    }
}
