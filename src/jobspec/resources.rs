//! `network` blocks (ports, dns, cni) and a task's `resources` `device` blocks, decoded as
//! jobspec2 does.

use hcl_edit::structure::Block;
use hcl_edit::Span;
use serde_json::{json, Value};

use crate::api::{Affinity, DnsConfig, NetworkResource, Port, RequestedDevice};

use super::blocks::{affinity, json_list, to_json};
use super::body::{Content, Decoder};
use super::decode::constraints;
use super::schema::*;

fn port(dec: &mut Decoder, pb: &Block) -> Port {
    let pc = dec.content(&pb.body, &PORT_SCHEMA);
    let port = Port {
        label: Decoder::label(pb),
        value: dec.int32(pc.attr("static")).unwrap_or(0),
        to: dec.int32(pc.attr("to")).unwrap_or(0),
        host_network: dec.string(pc.attr("host_network")).unwrap_or_default(),
        ignore_collision: dec.bool(pc.attr("ignore_collision")).unwrap_or(false),
    };
    if port.label.is_empty() {
        dec.push(
            "Missing name for port",
            "All port blocks must have 1 labels (name).".to_string(),
            pb.ident.span(),
        );
    }
    port
}

/// A `network` block. `port` blocks with a `static` value are reserved ports, the rest
/// dynamic (jobspec2's normalizeNetworkPorts). As there, once any `port` block is given the
/// reserved list is rebuilt from them, so `reserved_ports` blocks only count without one.
pub fn network(dec: &mut Decoder, b: &Block) -> NetworkResource {
    let c = dec.content(&b.body, &NETWORK_SCHEMA);
    let dns = dec.single(&c, "dns").and_then(|db| {
        let dc = dec.content(&db.body, &DNS_SCHEMA);
        to_json(&DnsConfig {
            servers: dec.string_list(dc.attr("servers")),
            searches: dec.string_list(dc.attr("searches")),
            options: dec.string_list(dc.attr("options")),
        })
    });
    let cni = dec.single(&c, "cni").map(|cb| {
        let cc = dec.content(&cb.body, &CNI_SCHEMA);
        let args = cc.attr("args").and_then(|a| dec.string_map_attr(a));
        json!({ "Args": args })
    });
    let mut net = NetworkResource {
        mode: dec.string(c.attr("mode")).unwrap_or_default(),
        mbits: dec.int(c.attr("mbits")).unwrap_or(0),
        device: dec.string(c.attr("device")).unwrap_or_default(),
        cidr: dec.string(c.attr("cidr")).unwrap_or_default(),
        ip: dec.string(c.attr("ip")).unwrap_or_default(),
        hostname: dec.string(c.attr("hostname")).unwrap_or_default(),
        dns,
        cni,
        ..NetworkResource::default()
    };
    net.reserved_ports = c
        .blocks("reserved_ports")
        .into_iter()
        .map(|pb| port(dec, pb))
        .collect();
    let ports: Vec<Port> = c
        .blocks("port")
        .into_iter()
        .map(|pb| port(dec, pb))
        .collect();
    if !ports.is_empty() {
        let (reserved, dynamic) = ports.into_iter().partition(|p| p.value > 0);
        net.reserved_ports = reserved;
        net.dynamic_ports = dynamic;
    }
    net
}

/// A task's `resources` `numa` block as the api's NUMAResource: `Affinity` is a plain
/// string there (empty when unset), `Devices` a list (null when unset).
pub fn numa(dec: &mut Decoder, b: &Block) -> Value {
    let c = dec.content(&b.body, &NUMA_SCHEMA);
    let affinity = dec.string(c.attr("affinity")).unwrap_or_default();
    let devices = c
        .attr("devices")
        .map(|a| Value::from(dec.string_list(Some(a))))
        .unwrap_or(Value::Null);
    json!({ "Affinity": affinity, "Devices": devices })
}

/// A `resources` block's `device "name"` blocks, each with its own constraints and
/// affinities.
pub fn devices(dec: &mut Decoder, c: &Content) -> Option<Value> {
    let list: Vec<RequestedDevice> = c
        .blocks("device")
        .into_iter()
        .map(|b| {
            let dc = dec.content(&b.body, &DEVICE_SCHEMA);
            let count = dc.attr("count").and_then(|a| {
                let n = dec.int(Some(a))?;
                match u64::try_from(n) {
                    Ok(n) => Some(n),
                    Err(_) => {
                        dec.push(
                            "Unsuitable value type",
                            "Unsuitable value: value must be a whole number, between 0 and 18446744073709551615 inclusive".to_string(),
                            a.value.span(),
                        );
                        None
                    }
                }
            });
            let affinities: Vec<Affinity> = dc
                .blocks("affinity")
                .into_iter()
                .map(|ab| affinity(dec, ab))
                .collect();
            RequestedDevice {
                name: Decoder::label(b),
                count,
                constraints: constraints(dec, &dc),
                affinities: (!affinities.is_empty()).then_some(affinities),
            }
        })
        .collect();
    json_list(list)
}
