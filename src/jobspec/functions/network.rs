//! CIDR functions (cidrhost, cidrnetmask, cidrsubnet, cidrsubnets), on u128 addresses so
//! IPv4 and IPv6 share one implementation.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr};

use serde_json::Value;

use super::*;

/// A parsed prefix: its network address (host bits cleared), prefix length and address width.
struct Prefix {
    net: u128,
    len: u32,
    bits: u32,
}

fn prefix_arg(a: &[Value], i: usize) -> Result<Prefix, FnError> {
    let st = str_arg(a, i, "prefix")?;
    let bad = || arg_err(i, "prefix", format!("invalid CIDR address: {st}"));
    let (addr, len) = st.split_once('/').ok_or_else(bad)?;
    let ip: IpAddr = addr.parse().map_err(|_| bad())?;
    let len: u32 = len.parse().map_err(|_| bad())?;
    let (raw, bits) = match ip {
        IpAddr::V4(v) => (u32::from(v) as u128, 32),
        IpAddr::V6(v) => (u128::from(v), 128),
    };
    if len > bits {
        return Err(bad());
    }
    Ok(Prefix {
        net: raw & mask(len, bits),
        len,
        bits,
    })
}

fn mask(len: u32, bits: u32) -> u128 {
    let all = if bits == 128 {
        u128::MAX
    } else {
        (1u128 << bits) - 1
    };
    if len == 0 {
        0
    } else {
        all & !((1u128 << (bits - len)) - 1).min(all)
    }
}

fn render(addr: u128, bits: u32) -> String {
    if bits == 32 {
        Ipv4Addr::from(addr as u32).to_string()
    } else {
        Ipv6Addr::from(addr).to_string()
    }
}

pub(super) fn cidrhost(a: &[Value]) -> FnResult {
    let p = prefix_arg(a, 0)?;
    let n = int_arg(a, 1, "hostnum")?;
    let host_bits = p.bits - p.len;
    let size: i128 = if host_bits >= 127 {
        i128::MAX
    } else {
        1i128 << host_bits
    };
    let idx = if n < 0 { size + n as i128 } else { n as i128 };
    if idx < 0 || idx >= size {
        return Err(FnError::Call(format!(
            "prefix of {} does not accommodate a host numbered {n}",
            p.len
        )));
    }
    Ok(s(render(p.net + idx as u128, p.bits)))
}

pub(super) fn cidrnetmask(a: &[Value]) -> FnResult {
    let p = prefix_arg(a, 0)?;
    if p.bits != 32 {
        return Err(FnError::Call("only IPv4 networks are supported".into()));
    }
    Ok(s(render(mask(p.len, 32), 32)))
}

fn subnet(p: &Prefix, newbits: i64, num: i64) -> Result<(u128, u32), FnError> {
    if newbits < 0 || p.len as i64 + newbits > p.bits as i64 {
        return Err(FnError::Call(format!(
            "insufficient address space to extend prefix of {} by {newbits}",
            p.len
        )));
    }
    let len = p.len + newbits as u32;
    if num < 0 || (newbits < 64 && num as u128 >= 1u128 << newbits) {
        return Err(FnError::Call(format!(
            "prefix extension of {newbits} does not accommodate a subnet numbered {num}"
        )));
    }
    Ok((p.net | ((num as u128) << (p.bits - len)), len))
}

pub(super) fn cidrsubnet(a: &[Value]) -> FnResult {
    let p = prefix_arg(a, 0)?;
    let (net, len) = subnet(&p, int_arg(a, 1, "newbits")?, int_arg(a, 2, "netnum")?)?;
    Ok(s(format!("{}/{len}", render(net, p.bits))))
}

/// Consecutive subnets of the given sizes, each aligned to its own size, as Terraform does.
pub(super) fn cidrsubnets(a: &[Value]) -> FnResult {
    let p = prefix_arg(a, 0)?;
    let end = p.net | !mask(p.len, p.bits) & mask(p.bits, p.bits);
    let mut next = p.net;
    let mut out = Vec::new();
    for i in 1..a.len() {
        let nb = int_arg(a, i, "newbits")?;
        if nb < 1 || p.len as i64 + nb > p.bits as i64 {
            return Err(arg_err(
                i,
                "newbits",
                format!(
                    "would extend prefix to {} bits, which is too long for an IPv{} address",
                    p.len as i64 + nb,
                    if p.bits == 32 { 4 } else { 6 }
                ),
            ));
        }
        let len = p.len + nb as u32;
        let size = 1u128 << (p.bits - len);
        let start = next.div_ceil(size) * size;
        if start > end || start + (size - 1) > end {
            return Err(arg_err(
                i,
                "newbits",
                "not enough remaining address space for a subnet with a prefix of that length"
                    .into(),
            ));
        }
        out.push(s(format!("{}/{len}", render(start, p.bits))));
        next = start + size;
    }
    Ok(Value::Array(out))
}
