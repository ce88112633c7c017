//! The host's interface addresses as go-sockaddr models them (`IfAddr`: an address with
//! its prefix and its `net.Interface`), their attributes and printed forms, and the
//! address blocks (RFC 1918, RFC 6890, the forwarding blacklist) its filters use.

use std::net::IpAddr;

/// One address of one interface: go-sockaddr's `IfAddr`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IfAddr {
    pub ip: IpAddr,
    pub prefix: u8,
    pub index: u32,
    pub mtu: u32,
    pub name: String,
    /// `aa:bb:...`, empty when the interface has none (loopback).
    pub hardware: String,
    pub flags: Flags,
}

/// The interface flags Go's `net.Flags` knows.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Flags {
    pub up: bool,
    pub broadcast: bool,
    pub loopback: bool,
    pub point_to_point: bool,
    pub multicast: bool,
    pub running: bool,
}

impl std::fmt::Display for Flags {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let names = [
            (self.up, "up"),
            (self.broadcast, "broadcast"),
            (self.loopback, "loopback"),
            (self.point_to_point, "pointtopoint"),
            (self.multicast, "multicast"),
            (self.running, "running"),
        ];
        let set: Vec<&str> = names
            .iter()
            .filter(|(on, _)| *on)
            .map(|(_, n)| *n)
            .collect();
        if set.is_empty() {
            return f.write_str("0");
        }
        f.write_str(&set.join("|"))
    }
}

impl IfAddr {
    fn bits(&self) -> u8 {
        if self.ip.is_ipv4() {
            32
        } else {
            128
        }
    }

    /// go-sockaddr's `String()` of the address: the prefix only when not a host address.
    pub(super) fn sockaddr_string(&self) -> String {
        if self.prefix == self.bits() {
            self.ip.to_string()
        } else {
            format!("{}/{}", self.ip, self.prefix)
        }
    }

    pub(super) fn network(&self) -> IpAddr {
        mask(self.ip, self.prefix)
    }

    /// The number of addresses in the network, as go-sockaddr's `size` prints it.
    pub(super) fn size(&self) -> u128 {
        let host_bits = u32::from(self.bits() - self.prefix);
        if host_bits >= 128 {
            u128::MAX
        } else {
            1u128 << host_bits
        }
    }

    pub(super) fn attr(&self, name: &str) -> Result<String, String> {
        Ok(match name.to_ascii_lowercase().as_str() {
            "address" => self.ip.to_string(),
            "name" => self.name.clone(),
            "flags" => self.flags.to_string(),
            "network" => self.network().to_string(),
            "mask_bits" => self.prefix.to_string(),
            "netmask" => mask(full(self.ip), self.prefix).to_string(),
            "size" => self.size().to_string(),
            "type" => if self.ip.is_ipv4() { "IPv4" } else { "IPv6" }.to_string(),
            "string" => self.sockaddr_string(),
            "host" => self.ip.to_string(),
            "port" => "0".to_string(),
            other => return Err(format!("unsupported attribute name {other:?}")),
        })
    }

    /// fmt's `%v` of an `IfAddr`: its address, then the `net.Interface` struct.
    pub(super) fn go_string(&self) -> String {
        format!(
            "{} {{{} {} {} {} {}}}",
            self.sockaddr_string(),
            self.index,
            self.mtu,
            self.name,
            self.hardware,
            self.flags
        )
    }
}

fn full(ip: IpAddr) -> IpAddr {
    match ip {
        IpAddr::V4(_) => IpAddr::V4(std::net::Ipv4Addr::BROADCAST),
        IpAddr::V6(_) => IpAddr::V6(std::net::Ipv6Addr::from(u128::MAX)),
    }
}

pub(super) fn mask(ip: IpAddr, prefix: u8) -> IpAddr {
    match ip {
        IpAddr::V4(v4) => {
            let m = if prefix == 0 {
                0
            } else {
                u32::MAX << (32 - u32::from(prefix.min(32)))
            };
            IpAddr::V4((u32::from(v4) & m).into())
        }
        IpAddr::V6(v6) => {
            let m = if prefix == 0 {
                0
            } else {
                u128::MAX << (128 - u32::from(prefix.min(128)))
            };
            IpAddr::V6((u128::from(v6) & m).into())
        }
    }
}

pub(super) fn contains(net: (IpAddr, u8), ip: IpAddr) -> bool {
    net.0.is_ipv4() == ip.is_ipv4() && mask(ip, net.1) == mask(net.0, net.1)
}

pub(super) fn parse_cidr(s: &str) -> Option<(IpAddr, u8)> {
    let (ip, bits) = match s.split_once('/') {
        Some((ip, bits)) => (ip.parse::<IpAddr>().ok()?, bits.parse::<u8>().ok()?),
        None => {
            let ip = s.parse::<IpAddr>().ok()?;
            (ip, if ip.is_ipv4() { 32 } else { 128 })
        }
    };
    Some((ip, bits))
}

pub(super) const RFC1918: &[&str] = &["10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16"];

/// RFC 6890's special-purpose blocks, as go-sockaddr lists them.
pub(super) const RFC6890: &[&str] = &[
    "0.0.0.0/8",
    "10.0.0.0/8",
    "100.64.0.0/10",
    "127.0.0.0/8",
    "169.254.0.0/16",
    "172.16.0.0/12",
    "192.0.0.0/24",
    "192.0.0.0/29",
    "192.0.2.0/24",
    "192.88.99.0/24",
    "192.168.0.0/16",
    "198.18.0.0/15",
    "198.51.100.0/24",
    "203.0.113.0/24",
    "240.0.0.0/4",
    "255.255.255.255/32",
    "::1/128",
    "::/128",
    "64:ff9b::/96",
    "::ffff:0:0/96",
    "100::/64",
    "2001::/16",
    "2001:2::/48",
    "2001:db8::/32",
    "2001:10::/28",
    "2002::/16",
    "fc00::/7",
    "fe80::/10",
];

/// go-sockaddr's pseudo-RFC of blocks that are never forwarded.
pub(super) const FORWARDING_BLACKLIST: &[&str] = &[
    "0.0.0.0/8",
    "127.0.0.0/8",
    "169.254.0.0/16",
    "192.0.0.0/24",
    "192.0.2.0/24",
    "198.51.100.0/24",
    "203.0.113.0/24",
    "240.0.0.0/4",
    "255.255.255.255/32",
    "::1/128",
    "::/128",
    "::ffff:0:0/96",
    "2001:db8::/32",
    "2001:10::/28",
    "fe80::/10",
];

pub(super) fn in_blocks(blocks: &[&str], ip: IpAddr) -> bool {
    blocks
        .iter()
        .filter_map(|b| parse_cidr(b))
        .any(|net| contains(net, ip))
}

pub(super) fn rfc_blocks(rfc: &str) -> Result<&'static [&'static str], String> {
    match rfc.trim() {
        "1918" => Ok(RFC1918),
        "6890" => Ok(RFC6890),
        "4294967295" => Ok(FORWARDING_BLACKLIST),
        other => Err(format!("unsupported RFC {other:?}")),
    }
}

/// The host's view: its addresses and the default route's interface.
pub struct Host {
    pub addrs: Vec<IfAddr>,
    pub default_if: Option<String>,
}

impl Host {
    /// Reads the interfaces (getifaddrs, ordered by interface index) and the default route.
    pub fn read() -> Result<Host, String> {
        use nix::net::if_::InterfaceFlags as F;
        let list = nix::ifaddrs::getifaddrs()
            .map_err(|e| format!("unable to query interface addresses: {e}"))?;
        let mut addrs = Vec::new();
        for a in list {
            let Some(addr) = a.address.as_ref() else {
                continue;
            };
            let (ip, prefix) = if let Some(v4) = addr.as_sockaddr_in() {
                let bits = a
                    .netmask
                    .as_ref()
                    .and_then(|m| m.as_sockaddr_in())
                    .map_or(32, |m| u32::from(m.ip()).count_ones() as u8);
                (IpAddr::V4(v4.ip()), bits)
            } else if let Some(v6) = addr.as_sockaddr_in6() {
                let bits = a
                    .netmask
                    .as_ref()
                    .and_then(|m| m.as_sockaddr_in6())
                    .map_or(128, |m| u128::from(m.ip()).count_ones() as u8);
                (IpAddr::V6(v6.ip()), bits)
            } else {
                continue;
            };
            let sys = format!("/sys/class/net/{}", a.interface_name);
            let read = |f: &str| std::fs::read_to_string(format!("{sys}/{f}")).unwrap_or_default();
            let hardware = read("address").trim().to_string();
            let hardware = if hardware.chars().all(|c| c == '0' || c == ':') {
                String::new()
            } else {
                hardware
            };
            addrs.push(IfAddr {
                ip,
                prefix,
                index: nix::net::if_::if_nametoindex(a.interface_name.as_str()).unwrap_or(0),
                mtu: read("mtu").trim().parse().unwrap_or(0),
                hardware,
                flags: Flags {
                    up: a.flags.contains(F::IFF_UP),
                    broadcast: a.flags.contains(F::IFF_BROADCAST),
                    loopback: a.flags.contains(F::IFF_LOOPBACK),
                    point_to_point: a.flags.contains(F::IFF_POINTOPOINT),
                    multicast: a.flags.contains(F::IFF_MULTICAST),
                    running: a.flags.contains(F::IFF_RUNNING),
                },
                name: a.interface_name,
            });
        }
        // Go lists interfaces by index, each interface's addresses IPv4 first.
        addrs.sort_by_key(|a| (a.index, a.ip.is_ipv6()));
        let default_if = std::fs::read_to_string("/proc/net/route")
            .ok()
            .and_then(|t| {
                t.lines().skip(1).find_map(|l| {
                    let f: Vec<&str> = l.split_whitespace().collect();
                    (f.len() > 7 && f[1] == "00000000" && f[7] == "00000000")
                        .then(|| f[0].to_string())
                })
            });
        Ok(Host { addrs, default_if })
    }
}
