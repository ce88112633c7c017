//! Version constraints for the `version` and `semver` operators.
//!
//! `version` follows hashicorp/go-version: lenient versions (`1.2`, `v1.2.3-beta+meta`),
//! comma-separated constraints with `=`, `!=`, `>`, `<`, `>=`, `<=`, `~>`, and the rule that a
//! pre-release version only satisfies an ordering constraint that names a pre-release of the
//! same base. `semver` follows Nomad's strict Semver 2.0 flavour: `MAJOR.MINOR.PATCH` only,
//! no `~>`, and pre-releases ordered as Semver says with no extra rule.

use std::cmp::Ordering;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum VersionFlavor {
    Go,
    Semver,
}

#[derive(Debug, Clone, PartialEq, Eq)]
struct Version {
    /// Always at least three segments (zero padded), as go-version.
    segments: Vec<u64>,
    /// How many segments were written, for `~>`.
    written: usize,
    pre: String,
}

fn parse_version(flavor: VersionFlavor, s: &str) -> Option<Version> {
    let s = s.trim();
    let s = match flavor {
        VersionFlavor::Go => s.strip_prefix('v').unwrap_or(s),
        VersionFlavor::Semver => s,
    };
    // Build metadata never affects precedence.
    let s = s.split_once('+').map(|(v, _)| v).unwrap_or(s);
    let (core, pre) = match s.find(|c: char| c == '-' || c.is_ascii_alphabetic() || c == '~') {
        Some(i) => {
            let pre = s[i..].strip_prefix('-').unwrap_or(&s[i..]);
            (&s[..i], pre)
        }
        None => (s, ""),
    };
    if core.is_empty() || (flavor == VersionFlavor::Semver && s[core.len()..].starts_with('~')) {
        return None;
    }
    let mut segments = Vec::new();
    for part in core.split('.') {
        if part.is_empty() || !part.bytes().all(|b| b.is_ascii_digit()) {
            return None;
        }
        segments.push(part.parse::<u64>().ok()?);
    }
    if flavor == VersionFlavor::Semver && segments.len() != 3 {
        return None;
    }
    if !pre
        .bytes()
        .all(|b| b.is_ascii_alphanumeric() || b == b'.' || b == b'-' || b == b'~')
    {
        return None;
    }
    let written = segments.len();
    while segments.len() < 3 {
        segments.push(0);
    }
    Some(Version {
        segments,
        written,
        pre: pre.to_string(),
    })
}

fn compare_pre(a: &str, b: &str) -> Ordering {
    match (a.is_empty(), b.is_empty()) {
        (true, true) => return Ordering::Equal,
        (true, false) => return Ordering::Greater,
        (false, true) => return Ordering::Less,
        _ => {}
    }
    let mut ai = a.split('.');
    let mut bi = b.split('.');
    loop {
        match (ai.next(), bi.next()) {
            (None, None) => return Ordering::Equal,
            (None, Some(_)) => return Ordering::Less,
            (Some(_), None) => return Ordering::Greater,
            (Some(x), Some(y)) => {
                let ord = match (x.parse::<u64>(), y.parse::<u64>()) {
                    (Ok(m), Ok(n)) => m.cmp(&n),
                    (Ok(_), Err(_)) => Ordering::Less,
                    (Err(_), Ok(_)) => Ordering::Greater,
                    (Err(_), Err(_)) => x.cmp(y),
                };
                if ord != Ordering::Equal {
                    return ord;
                }
            }
        }
    }
}

fn compare(a: &Version, b: &Version) -> Ordering {
    let n = a.segments.len().max(b.segments.len());
    for i in 0..n {
        let x = a.segments.get(i).copied().unwrap_or(0);
        let y = b.segments.get(i).copied().unwrap_or(0);
        if x != y {
            return x.cmp(&y);
        }
    }
    compare_pre(&a.pre, &b.pre)
}

/// go-version's pre-release rule for ordering operators.
fn prerelease_ok(v: &Version, c: &Version) -> bool {
    match (!v.pre.is_empty(), !c.pre.is_empty()) {
        (true, true) => v.segments == c.segments,
        (true, false) => false,
        _ => true,
    }
}

fn check_one(flavor: VersionFlavor, v: &Version, constraint: &str) -> Option<bool> {
    let c = constraint.trim();
    let ops = ["~>", ">=", "<=", "!=", "=", ">", "<"];
    let (op, rest) = ops
        .iter()
        .find_map(|op| c.strip_prefix(op).map(|r| (*op, r)))
        .unwrap_or(("=", c));
    if op == "~>" && flavor == VersionFlavor::Semver {
        return None;
    }
    let cv = parse_version(flavor, rest)?;
    let ord = compare(v, &cv);
    let pre_ok = flavor == VersionFlavor::Semver || prerelease_ok(v, &cv);
    Some(match op {
        "=" => ord == Ordering::Equal,
        "!=" => ord != Ordering::Equal,
        ">" => pre_ok && ord == Ordering::Greater,
        "<" => pre_ok && ord == Ordering::Less,
        ">=" => pre_ok && ord != Ordering::Less,
        "<=" => pre_ok && ord != Ordering::Greater,
        // `~> 1.2` is `>= 1.2, < 2.0`; `~> 1.2.3` is `>= 1.2.3, < 1.3.0`.
        _ => {
            if !pre_ok || ord == Ordering::Less {
                return Some(false);
            }
            let fixed = cv.written.saturating_sub(1).max(1);
            v.segments[..fixed.min(v.segments.len())] == cv.segments[..fixed.min(cv.segments.len())]
        }
    })
}

/// Whether version `v` satisfies every comma-separated constraint in `constraints`. Anything
/// unparsable does not match.
pub fn version_matches(flavor: VersionFlavor, v: &str, constraints: &str) -> bool {
    let Some(v) = parse_version(flavor, v) else {
        return false;
    };
    if constraints.trim().is_empty() {
        return false;
    }
    constraints
        .split(',')
        .all(|c| check_one(flavor, &v, c).unwrap_or(false))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_version_table() {
        let cases = [
            ("1.2.3", ">= 1.0", true),
            ("1.2.3", ">= 1.0, < 1.2", false),
            ("1.2", "= 1.2.0", true),
            ("v1.2.3", "1.2.3", true),
            ("1.2.3", "!= 1.2.3", false),
            ("1.2.3", "~> 1.2", true),
            ("2.0.0", "~> 1.2", false),
            ("1.2.9", "~> 1.2.3", true),
            ("1.3.0", "~> 1.2.3", false),
            ("1.2.3-beta", ">= 1.0", false),
            ("1.2.3-beta", ">= 1.2.3-alpha", true),
            ("1.2.3+ent", "= 1.2.3", true),
            ("0.10.0", "> 0.9.0", true),
            ("garbage", ">= 1.0", false),
            ("1.2.3", "bogus", false),
        ];
        for (v, c, want) in cases {
            assert_eq!(version_matches(VersionFlavor::Go, v, c), want, "{v} {c}");
        }
    }

    #[test]
    fn semver_table() {
        let cases = [
            ("1.2.3", ">= 1.0.0", true),
            ("1.2", ">= 1.0.0", false),
            ("1.2.3-beta", ">= 1.0.0", true),
            ("1.2.3-beta", "< 1.2.3", true),
            ("1.2.3-alpha.10", "> 1.2.3-alpha.9", true),
            ("1.2.3", "~> 1.2.0", false),
        ];
        for (v, c, want) in cases {
            assert_eq!(
                version_matches(VersionFlavor::Semver, v, c),
                want,
                "{v} {c}"
            );
        }
    }
}
