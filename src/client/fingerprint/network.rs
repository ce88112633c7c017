//! Network fingerprint: the host's interfaces and addresses (getifaddrs(3)), link speeds
//! (/sys/class/net), the bridge kernel module, and from them the node's `Networks` (every
//! address of the client's `network_interface`), `NodeNetworks` (interfaces that carry an
//! alias) and `unique.network.ip-address`, as Nomad's client builds them.
//!
//! Also picks the interface when the agent config names none: the one carrying the default
//! IPv4 route, falling back to loopback.

use std::ffi::CStr;
use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};
use std::path::Path;

use crate::api::{NetworkResource, NodeNetworkAddress, NodeNetworkResource};

/// Nomad's speed for a link whose speed the kernel does not report (loopback, most VMs).
pub const DEFAULT_LINK_MBITS: i64 = 1000;

/// One interface as getifaddrs(3) lists it.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Interface {
    pub name: String,
    /// Empty for interfaces without one (loopback's is all zeroes, which Go also drops).
    pub mac: String,
    /// In the kernel's order: IPv4 first, then IPv6.
    pub addrs: Vec<IpAddr>,
}

/// The interface carrying the default route, from /proc/net/route.
fn default_route_interface() -> Option<String> {
    let text = std::fs::read_to_string("/proc/net/route").ok()?;
    text.lines().skip(1).find_map(|l| {
        let mut f = l.split_whitespace();
        let iface = f.next()?;
        let dest = f.next()?;
        (dest == "00000000").then(|| iface.to_string())
    })
}

fn format_mac(bytes: &[u8]) -> String {
    if bytes.iter().all(|b| *b == 0) {
        return String::new();
    }
    bytes
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect::<Vec<_>>()
        .join(":")
}

/// The host's interfaces in index order with their addresses and MACs.
pub fn interfaces() -> Vec<Interface> {
    let mut out: Vec<Interface> = Vec::new();
    let mut head: *mut libc::ifaddrs = std::ptr::null_mut();
    // SAFETY: getifaddrs fills `head` with a list we walk read-only and free exactly once;
    // each sockaddr is read as the type its family names.
    unsafe {
        if libc::getifaddrs(&mut head) != 0 {
            return out;
        }
        let mut cur = head;
        while !cur.is_null() {
            let ifa = &*cur;
            cur = ifa.ifa_next;
            if ifa.ifa_name.is_null() {
                continue;
            }
            let name = CStr::from_ptr(ifa.ifa_name).to_string_lossy().into_owned();
            let idx = match out.iter().position(|i| i.name == name) {
                Some(i) => i,
                None => {
                    out.push(Interface {
                        name,
                        ..Default::default()
                    });
                    out.len() - 1
                }
            };
            if ifa.ifa_addr.is_null() {
                continue;
            }
            match i32::from((*ifa.ifa_addr).sa_family) {
                libc::AF_INET => {
                    let sin = &*(ifa.ifa_addr as *const libc::sockaddr_in);
                    let ip = Ipv4Addr::from(u32::from_be(sin.sin_addr.s_addr));
                    out[idx].addrs.push(IpAddr::V4(ip));
                }
                libc::AF_INET6 => {
                    let sin6 = &*(ifa.ifa_addr as *const libc::sockaddr_in6);
                    out[idx]
                        .addrs
                        .push(IpAddr::V6(Ipv6Addr::from(sin6.sin6_addr.s6_addr)));
                }
                libc::AF_PACKET => {
                    let ll = &*(ifa.ifa_addr as *const libc::sockaddr_ll);
                    let len = usize::from(ll.sll_halen).min(ll.sll_addr.len());
                    out[idx].mac = format_mac(&ll.sll_addr[..len]);
                }
                _ => {}
            }
        }
        libc::freeifaddrs(head);
    }
    // getifaddrs lists IPv4 before IPv6, but keep that true whatever the libc does.
    for iface in &mut out {
        iface.addrs.sort_by_key(|a| a.is_ipv6());
    }
    out
}

/// Link speed in Mbit/s from /sys/class/net/<dev>/speed; 0 when unknown.
pub fn link_speed(sys_class_net: &Path, device: &str) -> i64 {
    std::fs::read_to_string(sys_class_net.join(device).join("speed"))
        .ok()
        .and_then(|s| s.lines().next()?.trim().parse::<i64>().ok())
        .filter(|mbits| *mbits > 0)
        .unwrap_or(0)
}

fn is_link_local(ip: &IpAddr) -> bool {
    match ip {
        IpAddr::V4(v4) => v4.is_link_local() || (v4.octets()[0] == 224 && v4.octets()[1] == 0),
        IpAddr::V6(v6) => {
            let s = v6.segments();
            (s[0] & 0xffc0) == 0xfe80 || (s[0] & 0xff0f) == 0xff02
        }
    }
}

/// The addresses Nomad offers on an interface: the routable ones, or the link-local ones
/// when that is all there is.
fn offered(addrs: &[IpAddr]) -> Vec<IpAddr> {
    let (local, routable): (Vec<IpAddr>, Vec<IpAddr>) =
        addrs.iter().copied().partition(is_link_local);
    if routable.is_empty() {
        local
    } else {
        routable
    }
}

/// What the network fingerprint reports.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct NetworkFingerprint {
    pub networks: Vec<NetworkResource>,
    pub node_networks: Vec<NodeNetworkResource>,
    /// `unique.network.ip-address`: the first host network's address.
    pub ip_address: Option<String>,
}

/// The inputs: the host's interfaces and what the client config says about them.
pub struct NetworkInputs<'a> {
    pub interfaces: &'a [Interface],
    /// The resolved `network_interface`.
    pub device: &'a str,
    /// The advertised address (from `bind_addr` or the device); listed first.
    pub preferred_ip: &'a str,
    /// `network_speed`; 0 to detect.
    pub configured_mbits: i64,
    /// Some(bridge_network_name) when the bridge module is present.
    pub bridge: Option<&'a str>,
    pub sys_class_net: &'a Path,
}

pub fn fingerprint(input: &NetworkInputs<'_>) -> NetworkFingerprint {
    let mut fp = NetworkFingerprint::default();
    if let Some(bridge) = input.bridge {
        fp.networks.push(NetworkResource {
            mode: "bridge".to_string(),
            ..Default::default()
        });
        fp.node_networks.push(NodeNetworkResource {
            device: bridge.to_string(),
            mode: "bridge".to_string(),
            ..Default::default()
        });
    }
    let speed = |dev: &str| match link_speed(input.sys_class_net, dev) {
        0 => DEFAULT_LINK_MBITS,
        mbits => mbits,
    };
    let mut host: Vec<IpAddr> = input
        .interfaces
        .iter()
        .find(|i| i.name == input.device)
        .map(|i| offered(&i.addrs))
        .unwrap_or_default();
    // The advertised address leads, so it is the one ports are offered on; an address the
    // device does not hold (a bind_addr on another interface) is still advertised.
    if let Ok(pref) = input.preferred_ip.parse::<IpAddr>() {
        host.retain(|a| *a != pref);
        host.insert(0, pref);
    }
    let mbits = if input.configured_mbits > 0 {
        input.configured_mbits
    } else {
        speed(input.device)
    };
    for ip in &host {
        let bits = if ip.is_ipv4() { 32 } else { 128 };
        fp.networks.push(NetworkResource {
            cidr: format!("{ip}/{bits}"),
            device: input.device.to_string(),
            ip: ip.to_string(),
            mbits,
            mode: "host".to_string(),
            ..Default::default()
        });
    }
    fp.ip_address = host.first().map(IpAddr::to_string);
    // Without host_network blocks only the default interface carries an alias, and Nomad
    // leaves out interfaces with no aliased address.
    let device = input.interfaces.iter().find(|i| i.name == input.device);
    if let Some(iface) = device.filter(|_| !host.is_empty()) {
        fp.node_networks.push(NodeNetworkResource {
            addresses: Some(
                host.iter()
                    .map(|ip| NodeNetworkAddress {
                        address: ip.to_string(),
                        alias: "default".to_string(),
                        family: if ip.is_ipv4() { "ipv4" } else { "ipv6" }.to_string(),
                        ..Default::default()
                    })
                    .collect(),
            ),
            device: iface.name.clone(),
            mac_address: iface.mac.clone(),
            mode: "host".to_string(),
            speed: speed(&iface.name),
        });
    }
    fp
}

/// Fills in whichever of interface and IP is empty: the device of the default route (or
/// the one holding `ip`), and that device's first IPv4.
pub fn resolve(interface: &str, ip: &str) -> (String, String) {
    if !interface.is_empty() && !ip.is_empty() {
        return (interface.to_string(), ip.to_string());
    }
    let ifaces = interfaces();
    if !ip.is_empty() {
        let dev = ifaces
            .iter()
            .find(|i| i.addrs.iter().any(|a| a.to_string() == ip))
            .map(|i| i.name.clone())
            .unwrap_or_default();
        return (dev, ip.to_string());
    }
    let dev = if interface.is_empty() {
        default_route_interface().unwrap_or_else(|| "lo".to_string())
    } else {
        interface.to_string()
    };
    let first_v4 = |name: &str| {
        ifaces
            .iter()
            .find(|i| i.name == name)
            .and_then(|i| i.addrs.iter().find(|a| a.is_ipv4()).map(IpAddr::to_string))
    };
    match first_v4(&dev) {
        Some(ip) => (dev, ip),
        None => ("lo".to_string(), "127.0.0.1".to_string()),
    }
}

#[cfg(test)]
#[path = "network_tests.rs"]
mod tests;
