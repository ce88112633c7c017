//! Picks the host network tasks' ports live on when the agent config names none: the
//! interface of the default IPv4 route and its first address (Nomad's behaviour outside
//! `-dev`), falling back to loopback.

use std::ffi::CStr;
use std::net::Ipv4Addr;

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

/// (interface, IPv4) pairs of the host, from getifaddrs(3).
fn interface_addrs() -> Vec<(String, Ipv4Addr)> {
    let mut out = Vec::new();
    let mut head: *mut libc::ifaddrs = std::ptr::null_mut();
    // SAFETY: getifaddrs fills `head` with a list we walk read-only and free exactly once.
    unsafe {
        if libc::getifaddrs(&mut head) != 0 {
            return out;
        }
        let mut cur = head;
        while !cur.is_null() {
            let ifa = &*cur;
            if !ifa.ifa_addr.is_null() && i32::from((*ifa.ifa_addr).sa_family) == libc::AF_INET {
                let sin = &*(ifa.ifa_addr as *const libc::sockaddr_in);
                let ip = Ipv4Addr::from(u32::from_be(sin.sin_addr.s_addr));
                let name = CStr::from_ptr(ifa.ifa_name).to_string_lossy().into_owned();
                out.push((name, ip));
            }
            cur = ifa.ifa_next;
        }
        libc::freeifaddrs(head);
    }
    out
}

/// Fills in whichever of interface and IP is empty.
pub fn resolve(interface: &str, ip: &str) -> (String, String) {
    if !interface.is_empty() && !ip.is_empty() {
        return (interface.to_string(), ip.to_string());
    }
    let addrs = interface_addrs();
    if !ip.is_empty() {
        let dev = addrs
            .iter()
            .find(|(_, a)| a.to_string() == ip)
            .map(|(d, _)| d.clone())
            .unwrap_or_default();
        return (dev, ip.to_string());
    }
    let dev = if interface.is_empty() {
        default_route_interface().unwrap_or_else(|| "lo".to_string())
    } else {
        interface.to_string()
    };
    match addrs.iter().find(|(d, _)| *d == dev) {
        Some((d, a)) => (d.clone(), a.to_string()),
        None => ("lo".to_string(), "127.0.0.1".to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn resolves_loopback_both_ways() {
        assert_eq!(resolve("lo", ""), ("lo".into(), "127.0.0.1".into()));
        assert_eq!(resolve("", "127.0.0.1"), ("lo".into(), "127.0.0.1".into()));
        let (dev, ip) = resolve("", "");
        assert!(!dev.is_empty() && ip.parse::<Ipv4Addr>().is_ok());
    }
}
