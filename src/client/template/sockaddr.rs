//! `sockaddr` as consul-template has it: its arguments, joined by spaces, are a go-sockaddr
//! template (`{{ <args> }}`) evaluated over the host's interface addresses.
//!
//! Supported: the sources `GetAllInterfaces`, `GetDefaultInterfaces`,
//! `GetPrivateInterfaces`, `GetPublicInterfaces`; the helpers `GetPrivateIP(s)`,
//! `GetPublicIP(s)`, `GetInterfaceIP(s)`; and the pipeline functions `include`/`exclude`
//! (selectors `name`, `address`, `type`, `flag(s)`, `network`, `rfc(s)` with RFC 1918 and
//! 6890), `sort`, `limit`, `offset`, `unique`, `attr` and `join`. go-sockaddr's remaining
//! functions (`math`, selectors `port`/`size`, other RFC tables) fail naming the function.
//!
//! The default interface is the one the main IPv4 routing table's default route uses
//! (go-sockaddr asks `ip route` for the same thing).

use std::cmp::Ordering;
use std::net::IpAddr;

use super::ifaddr::{
    contains, in_blocks, parse_cidr, rfc_blocks, Host, IfAddr, FORWARDING_BLACKLIST, RFC6890,
};

/// What a pipeline stage yields.
#[derive(Debug, Clone)]
enum Val {
    Addrs(Vec<IfAddr>),
    Str(String),
}

/// consul-template's `sockaddr`: evaluates `args` joined by spaces over the host.
pub fn sockaddr(args: &[String]) -> Result<String, String> {
    let input = args.join(" ");
    let host = Host::read()?;
    eval(&input, &host)
}

/// Evaluates a go-sockaddr pipeline (`Source | func "arg" ...`) over `host`.
pub fn eval(input: &str, host: &Host) -> Result<String, String> {
    let shown = format!("{{{{ {input} }}}}");
    let stages = split_pipeline(input).map_err(|e| {
        format!(
            "unable to parse template {}: {e}",
            super::gofmt::go_quote(&shown)
        )
    })?;
    let mut prev: Option<Val> = None;
    for words in stages {
        let (name, args) = words.split_first().ok_or_else(|| {
            format!(
                "unable to parse template {}: missing command",
                super::gofmt::go_quote(&shown)
            )
        })?;
        prev = Some(call(name, args, prev, host).map_err(|e| {
            format!(
                "unable to execute sockaddr input {}: error calling {name}: {e}",
                super::gofmt::go_quote(&shown)
            )
        })?);
    }
    Ok(match prev {
        Some(Val::Str(s)) => s,
        Some(Val::Addrs(a)) => format!(
            "[{}]",
            a.iter()
                .map(IfAddr::go_string)
                .collect::<Vec<_>>()
                .join(" ")
        ),
        None => String::new(),
    })
}

/// Splits `a "x" | b 1` into stages of words, unquoting Go string literals.
fn split_pipeline(input: &str) -> Result<Vec<Vec<String>>, String> {
    let mut stages = vec![Vec::new()];
    let mut chars = input.chars().peekable();
    while let Some(&c) = chars.peek() {
        match c {
            c if c.is_whitespace() => {
                chars.next();
            }
            '|' => {
                chars.next();
                stages.push(Vec::new());
            }
            '"' => {
                chars.next();
                let mut s = String::new();
                loop {
                    match chars.next() {
                        None => return Err("unterminated quoted string".into()),
                        Some('"') => break,
                        Some('\\') => match chars.next() {
                            Some('n') => s.push('\n'),
                            Some('t') => s.push('\t'),
                            Some(o) => s.push(o),
                            None => return Err("unterminated quoted string".into()),
                        },
                        Some(o) => s.push(o),
                    }
                }
                stages.last_mut().expect("stage").push(s);
            }
            '`' => {
                chars.next();
                let s: String = chars.by_ref().take_while(|c| *c != '`').collect();
                stages.last_mut().expect("stage").push(s);
            }
            _ => {
                let mut w = String::new();
                while let Some(&c) = chars.peek() {
                    if c.is_whitespace() || c == '|' {
                        break;
                    }
                    w.push(c);
                    chars.next();
                }
                stages.last_mut().expect("stage").push(w);
            }
        }
    }
    Ok(stages)
}

fn want(name: &str, args: &[String], n: usize) -> Result<(), String> {
    if args.len() != n {
        return Err(format!(
            "wrong number of args for {name}: want {n} got {}",
            args.len()
        ));
    }
    Ok(())
}

fn addrs_arg(prev: Option<Val>) -> Result<Vec<IfAddr>, String> {
    match prev {
        Some(Val::Addrs(a)) => Ok(a),
        Some(Val::Str(s)) => Err(format!(
            "wrong type for value; expected sockaddr.IfAddrs; got string ({s:?})"
        )),
        None => Err("missing sockaddr.IfAddrs argument".into()),
    }
}

fn call(name: &str, args: &[String], prev: Option<Val>, host: &Host) -> Result<Val, String> {
    let ips = |list: Vec<IfAddr>| list.iter().map(|a| a.ip.to_string()).collect::<Vec<_>>();
    match name {
        "GetAllInterfaces" => Ok(Val::Addrs(host.addrs.clone())),
        "GetDefaultInterfaces" => default_interfaces(host).map(Val::Addrs),
        "GetPrivateInterfaces" => Ok(Val::Addrs(private_or_public(host, true))),
        "GetPublicInterfaces" => Ok(Val::Addrs(private_or_public(host, false))),
        "GetPrivateIP" | "GetPublicIP" => Ok(Val::Str(
            ips(private_or_public(host, name == "GetPrivateIP"))
                .into_iter()
                .next()
                .unwrap_or_default(),
        )),
        "GetPrivateIPs" | "GetPublicIPs" => {
            let mut list = host.addrs.clone();
            sort(&mut list, &[Key::Type, Key::Size], host);
            let private = name == "GetPrivateIPs";
            list.retain(|a| {
                in_blocks(RFC6890, a.ip) == private
                    && !(private && in_blocks(FORWARDING_BLACKLIST, a.ip))
            });
            Ok(Val::Str(ips(list).join(" ")))
        }
        "GetInterfaceIP" | "GetInterfaceIPs" => {
            want(name, args, 1)?;
            let re = regex::Regex::new(&args[0])
                .map_err(|e| format!("Unable to compile name regexp {:?}: {e}", args[0]))?;
            let mut list: Vec<IfAddr> = host
                .addrs
                .iter()
                .filter(|a| re.is_match(&a.name))
                .cloned()
                .collect();
            if name == "GetInterfaceIP" {
                list.retain(|a| !in_blocks(FORWARDING_BLACKLIST, a.ip));
            }
            sort(&mut list, &[Key::Type, Key::Size], host);
            Ok(Val::Str(if name == "GetInterfaceIP" {
                ips(list).into_iter().next().unwrap_or_default()
            } else {
                ips(list).join(" ")
            }))
        }
        "include" | "exclude" => {
            want(name, args, 2)?;
            let list = addrs_arg(prev)?;
            let (hit, miss) = select(&args[0], &args[1], list, name)?;
            Ok(Val::Addrs(if name == "include" { hit } else { miss }))
        }
        "sort" => {
            want(name, args, 1)?;
            let mut list = addrs_arg(prev)?;
            let keys = args[0]
                .split(',')
                .map(|c| parse_key(c.trim()))
                .collect::<Result<Vec<_>, _>>()?;
            sort(&mut list, &keys, host);
            Ok(Val::Addrs(list))
        }
        "limit" | "offset" => {
            want(name, args, 1)?;
            let list = addrs_arg(prev)?;
            let n: i64 = args[0]
                .parse()
                .map_err(|_| format!("invalid number {:?}", args[0]))?;
            Ok(Val::Addrs(if name == "limit" {
                list.into_iter().take(n.max(0) as usize).collect()
            } else if n >= 0 {
                list.into_iter().skip(n as usize).collect()
            } else {
                let keep = (-n) as usize;
                let skip = list.len().saturating_sub(keep);
                list.into_iter().skip(skip).collect()
            }))
        }
        "unique" => {
            want(name, args, 1)?;
            let list = addrs_arg(prev)?;
            let by = args[0].to_ascii_lowercase();
            let mut out: Vec<IfAddr> = Vec::new();
            let mut last = String::new();
            for a in list {
                let key = match by.as_str() {
                    "address" => a.sockaddr_string(),
                    "name" => a.name.clone(),
                    _ => return Err(format!("unsupported unique constraint {:?}", args[0])),
                };
                if last.is_empty() || last != key {
                    last = key;
                    out.push(a);
                }
            }
            Ok(Val::Addrs(out))
        }
        "attr" => {
            want(name, args, 1)?;
            let list = addrs_arg(prev)?;
            match list.first() {
                Some(a) => a.attr(&args[0]).map(Val::Str),
                None => Ok(Val::Str(String::new())),
            }
        }
        "join" => {
            want(name, args, 2)?;
            let list = addrs_arg(prev)?;
            let parts = list
                .iter()
                .map(|a| a.attr(&args[0]))
                .collect::<Result<Vec<_>, _>>()?;
            Ok(Val::Str(parts.join(&args[1])))
        }
        "math" => Err("math is not supported by this agent".into()),
        other => Err(format!("function {other:?} not defined")),
    }
}

fn default_interfaces(host: &Host) -> Result<Vec<IfAddr>, String> {
    let name = host
        .default_if
        .as_ref()
        .ok_or_else(|| "No default interface found".to_string())?;
    Ok(host
        .addrs
        .iter()
        .filter(|a| &a.name == name)
        .cloned()
        .collect())
}

/// `GetPrivateInterfaces` / `GetPublicInterfaces`: forwardable addresses of up
/// interfaces, the default interface first, IPv4 before IPv6, smaller networks first;
/// private ones in RFC 6890's blocks, public ones outside them.
fn private_or_public(host: &Host, private: bool) -> Vec<IfAddr> {
    let mut list: Vec<IfAddr> = host
        .addrs
        .iter()
        .filter(|a| !in_blocks(FORWARDING_BLACKLIST, a.ip) && a.flags.up)
        .cloned()
        .collect();
    sort(&mut list, &[Key::Default, Key::Type, Key::Size], host);
    list.retain(|a| in_blocks(RFC6890, a.ip) == private);
    list
}

fn select(
    selector: &str,
    param: &str,
    list: Vec<IfAddr>,
    func: &str,
) -> Result<(Vec<IfAddr>, Vec<IfAddr>), String> {
    let pred: Box<dyn Fn(&IfAddr) -> bool> = match selector.to_ascii_lowercase().as_str() {
        "name" | "address" => {
            let re = regex::Regex::new(param)
                .map_err(|e| format!("Unable to compile {selector} regexp {param:?}: {e}"))?;
            if selector.eq_ignore_ascii_case("name") {
                Box::new(move |a| re.is_match(&a.name))
            } else {
                Box::new(move |a| re.is_match(&a.sockaddr_string()))
            }
        }
        "type" => {
            let types: Vec<String> = param.split('|').map(|t| t.to_ascii_lowercase()).collect();
            for t in &types {
                if !matches!(t.as_str(), "ip" | "ipv4" | "ipv6") {
                    return Err(format!("unsupported type {t:?} {param:?}"));
                }
            }
            Box::new(move |a| {
                types.iter().any(|t| match t.as_str() {
                    "ipv4" => a.ip.is_ipv4(),
                    "ipv6" => a.ip.is_ipv6(),
                    _ => true,
                })
            })
        }
        "flag" | "flags" => {
            let wanted: Vec<String> = param.split('|').map(|f| f.to_ascii_lowercase()).collect();
            for f in &wanted {
                if !matches!(
                    f.as_str(),
                    "up" | "down"
                        | "broadcast"
                        | "loopback"
                        | "multicast"
                        | "point-to-point"
                        | "forwardable"
                ) {
                    return Err(format!("Unknown interface flag: {f:?}"));
                }
            }
            Box::new(move |a| {
                wanted.iter().any(|f| match f.as_str() {
                    "up" => a.flags.up,
                    "down" => !a.flags.up,
                    "broadcast" => a.flags.broadcast,
                    "loopback" => a.flags.loopback || a.ip.is_loopback(),
                    "multicast" => a.flags.multicast,
                    "point-to-point" => a.flags.point_to_point,
                    _ => !in_blocks(FORWARDING_BLACKLIST, a.ip),
                })
            })
        }
        "network" => {
            let net = parse_cidr(param)
                .ok_or_else(|| format!("Unable to create a network from {param:?}"))?;
            Box::new(move |a| contains(net, a.ip) && a.prefix >= net.1)
        }
        "rfc" | "rfcs" => {
            let blocks = param
                .split('|')
                .map(rfc_blocks)
                .collect::<Result<Vec<_>, _>>()?;
            Box::new(move |a| blocks.iter().any(|b| in_blocks(b, a.ip)))
        }
        _ => return Err(format!("invalid {func} selector {selector:?}")),
    };
    Ok(list.into_iter().partition(|a| pred(a)))
}

#[derive(Debug, Clone, Copy)]
enum Key {
    Address,
    Default,
    Name,
    Private,
    Size,
    Type,
    Desc(&'static Key),
}

fn parse_key(clause: &str) -> Result<Key, String> {
    let lower = clause.to_ascii_lowercase();
    let (desc, name) = match lower.strip_prefix('-') {
        Some(n) => (true, n),
        None => (false, lower.strip_prefix('+').unwrap_or(&lower)),
    };
    let (asc, desc_key): (Key, &'static Key) = match name {
        "address" => (Key::Address, &Key::Address),
        "default" => (Key::Default, &Key::Default),
        "name" => (Key::Name, &Key::Name),
        "private" => (Key::Private, &Key::Private),
        "size" => (Key::Size, &Key::Size),
        "type" => (Key::Type, &Key::Type),
        _ => return Err(format!("unknown sort type: {clause:?}")),
    };
    Ok(if desc { Key::Desc(desc_key) } else { asc })
}

fn compare(key: Key, a: &IfAddr, b: &IfAddr, host: &Host) -> Ordering {
    let by_default = |x: &IfAddr| host.default_if.as_deref() != Some(x.name.as_str());
    match key {
        Key::Address => match (a.ip, b.ip) {
            (IpAddr::V4(x), IpAddr::V4(y)) => x.cmp(&y),
            (IpAddr::V6(x), IpAddr::V6(y)) => x.cmp(&y),
            _ => Ordering::Equal,
        },
        Key::Default => by_default(a).cmp(&by_default(b)),
        Key::Name => a.name.cmp(&b.name),
        Key::Private => (!in_blocks(RFC6890, a.ip)).cmp(&!in_blocks(RFC6890, b.ip)),
        Key::Size => {
            if a.ip.is_ipv4() == b.ip.is_ipv4() {
                a.size().cmp(&b.size())
            } else {
                Ordering::Equal
            }
        }
        Key::Type => a.ip.is_ipv6().cmp(&b.ip.is_ipv6()),
        Key::Desc(k) => compare(*k, b, a, host),
    }
}

/// go-sockaddr's multi-key sort (stable here, where Go's `sort.Sort` is not).
fn sort(list: &mut [IfAddr], keys: &[Key], host: &Host) {
    list.sort_by(|a, b| {
        keys.iter()
            .map(|k| compare(*k, a, b, host))
            .find(|o| *o != Ordering::Equal)
            .unwrap_or(Ordering::Equal)
    });
}

#[cfg(test)]
mod tests {
    use super::super::ifaddr::Flags;
    use super::*;

    fn addr(name: &str, index: u32, cidr: &str, up: bool) -> IfAddr {
        let (ip, prefix) = parse_cidr(cidr).unwrap();
        IfAddr {
            ip,
            prefix,
            index,
            mtu: if name == "lo" { 65536 } else { 1500 },
            name: name.into(),
            hardware: if name == "lo" {
                String::new()
            } else {
                format!("02:42:ac:11:00:0{index}")
            },
            flags: Flags {
                up,
                broadcast: name != "lo",
                loopback: name == "lo",
                multicast: name != "lo",
                running: up,
                ..Default::default()
            },
        }
    }

    fn host() -> Host {
        Host {
            addrs: vec![
                addr("lo", 1, "127.0.0.1/8", true),
                addr("lo", 1, "::1/128", true),
                addr("eth0", 2, "10.0.0.5/24", true),
                addr("eth0", 2, "fe80::42:acff:fe11:2/64", true),
                addr("docker0", 3, "172.17.0.1/16", true),
                addr("eth1", 4, "203.0.114.9/24", true),
                addr("eth2", 5, "192.168.9.9/24", false),
            ],
            default_if: Some("eth0".into()),
        }
    }

    fn ev(input: &str) -> String {
        eval(input, &host()).unwrap_or_else(|e| panic!("{input}: {e}"))
    }

    #[test]
    fn the_helpers_pick_addresses_like_go_sockaddr() {
        assert_eq!(ev("GetPrivateIP"), "10.0.0.5");
        assert_eq!(ev("GetPublicIP"), "203.0.114.9");
        assert_eq!(ev(r#"GetInterfaceIP "eth0""#), "10.0.0.5");
        assert_eq!(ev(r#"GetInterfaceIP "docker0""#), "172.17.0.1");
        assert_eq!(ev(r#"GetInterfaceIP "nope""#), "");
        assert_eq!(
            ev(r#"GetInterfaceIPs "eth0""#),
            "10.0.0.5 fe80::42:acff:fe11:2"
        );
        assert_eq!(ev("GetPrivateIPs"), "10.0.0.5 192.168.9.9 172.17.0.1");
        assert_eq!(ev("GetPublicIPs"), "203.0.114.9");
    }

    #[test]
    fn sources_print_as_go_prints_ifaddrs() {
        assert_eq!(
            ev("GetDefaultInterfaces"),
            "[10.0.0.5/24 {2 1500 eth0 02:42:ac:11:00:02 up|broadcast|multicast|running} fe80::42:acff:fe11:2/64 {2 1500 eth0 02:42:ac:11:00:02 up|broadcast|multicast|running}]"
        );
        assert!(ev("GetAllInterfaces").starts_with(
            "[127.0.0.1/8 {1 65536 lo  up|loopback|running} ::1 {1 65536 lo  up|loopback|running} "
        ));
        let no_default = Host {
            addrs: vec![],
            default_if: None,
        };
        assert!(eval("GetDefaultInterfaces", &no_default)
            .unwrap_err()
            .ends_with("error calling GetDefaultInterfaces: No default interface found"));
    }

    #[test]
    fn pipelines_filter_sort_and_select_attributes() {
        assert_eq!(
            ev(r#"GetAllInterfaces | include "name" "eth0" | attr "address""#),
            "10.0.0.5"
        );
        assert_eq!(
            ev(
                r#"GetAllInterfaces | include "type" "IPv6" | exclude "flags" "loopback" | attr "address""#
            ),
            "fe80::42:acff:fe11:2"
        );
        assert_eq!(
            ev(
                r#"GetPrivateInterfaces | include "type" "IPv4" | sort "-size" | join "address" ",""#
            ),
            "172.17.0.1,10.0.0.5"
        );
        assert_eq!(
            ev(r#"GetAllInterfaces | include "network" "10.0.0.0/8" | attr "network""#),
            "10.0.0.0"
        );
        assert_eq!(
            ev(r#"GetAllInterfaces | include "rfc" "1918" | limit 2 | join "name" " ""#),
            "eth0 docker0"
        );
        assert_eq!(
            ev(r#"GetAllInterfaces | include "type" "IPv4" | offset -1 | attr "name""#),
            "eth2"
        );
        assert_eq!(
            ev(r#"GetAllInterfaces | unique "name" | join "name" ",""#),
            "lo,eth0,docker0,eth1,eth2"
        );
        assert_eq!(
            ev(r#"GetAllInterfaces | include "name" "^eth0$" | attr "size""#),
            "256"
        );
        assert!(eval(r#"GetAllInterfaces | include "colour" "x""#, &host())
            .unwrap_err()
            .contains("invalid include selector \"colour\""));
        assert!(eval("NoSuchThing", &host())
            .unwrap_err()
            .contains("function \"NoSuchThing\" not defined"));
    }

    #[test]
    fn the_real_host_has_a_loopback_address() {
        let host = Host::read().unwrap();
        assert!(host
            .addrs
            .iter()
            .any(|a| a.ip == IpAddr::V4(std::net::Ipv4Addr::LOCALHOST)));
        let out = eval(
            r#"GetAllInterfaces | include "name" "^lo$" | attr "address""#,
            &host,
        )
        .unwrap();
        assert_eq!(out, "127.0.0.1");
    }
}
