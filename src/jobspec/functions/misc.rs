//! Number, encoding and filesystem functions.

use serde_json::Value;

use super::*;
use std::path::{Path, PathBuf};

// ---- numbers ------------------------------------------------------------------------------

pub(super) fn minmax(a: &[Value], max: bool) -> FnResult {
    if a.is_empty() {
        return Err(FnError::Call("must pass at least one number".into()));
    }
    let mut best = num_arg(a, 0, "numbers")?;
    for i in 1..a.len() {
        let n = num_arg(a, i, "numbers")?;
        if (max && n > best) || (!max && n < best) {
            best = n;
        }
    }
    Ok(float_value(best))
}

pub(super) fn parseint(a: &[Value]) -> FnResult {
    let st = str_arg(a, 0, "number")?;
    let base = int_arg(a, 1, "base")?;
    if !(2..=62).contains(&base) {
        return Err(arg_err(
            1,
            "base",
            "base must be a whole number between 2 and 62 inclusive".into(),
        ));
    }
    let (neg, digits) = match st.strip_prefix('-') {
        Some(d) => (true, d),
        None => (false, st.strip_prefix('+').unwrap_or(&st)),
    };
    let mut n: i128 = 0;
    for c in digits.chars() {
        // Go's big.Int SetString: 0-9, a-z, A-Z (case-insensitive up to base 36).
        let d = match c {
            '0'..='9' => c as i128 - '0' as i128,
            'a'..='z' => c as i128 - 'a' as i128 + 10,
            'A'..='Z' if base <= 36 => c as i128 - 'A' as i128 + 10,
            'A'..='Z' => c as i128 - 'A' as i128 + 36,
            _ => 99,
        };
        if d >= base as i128 || n > i128::MAX / 64 {
            return Err(arg_err(
                0,
                "number",
                format!("cannot parse {st:?} as a base {base} integer"),
            ));
        }
        n = n * base as i128 + d;
    }
    if digits.is_empty() {
        return Err(arg_err(
            0,
            "number",
            format!("cannot parse {st:?} as a base {base} integer"),
        ));
    }
    Ok(float_value(if neg { -n } else { n } as f64))
}

// ---- encoding -----------------------------------------------------------------------------

pub(super) fn base64decode(a: &[Value]) -> FnResult {
    let st = str_arg(a, 0, "str")?;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(st.as_bytes())
        .map_err(|_| FnError::Call(format!("failed to decode base64 data {st:?}")))?;
    String::from_utf8(bytes).map(s).map_err(|_| {
        FnError::Call("the result of decoding the provided string is not valid UTF-8".into())
    })
}

/// Go's url.QueryEscape: spaces become `+`, everything but unreserved bytes is %XX.
pub(super) fn urlencode(st: &str) -> String {
    let mut out = String::new();
    for b in st.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(b as char)
            }
            b' ' => out.push('+'),
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

// ---- filesystem ---------------------------------------------------------------------------

/// A path for a function that reads the disk, relative to the job file's dir. Fails when the
/// job text came over the API (Nomad answers the same: "filesystem function disabled").
pub(super) fn resolve(c: &FnContext, p: &str) -> Result<PathBuf, FnError> {
    if !c.allow_fs {
        return Err(FnError::Call("filesystem function disabled".to_string()));
    }
    let p = PathBuf::from(pathexpand(p));
    Ok(if p.is_absolute() {
        p
    } else {
        c.base_dir.join(p)
    })
}

pub(super) fn read_file(c: &FnContext, p: &str) -> Result<Vec<u8>, FnError> {
    let path = resolve(c, p)?;
    std::fs::read(&path).map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            arg_err(0, "path", format!("no file exists at {}; this function works only with files that are distributed as part of the configuration source code, so if this file will be created by a resource in this configuration you must instead obtain this result from an attribute of that resource", path.display()))
        } else {
            arg_err(0, "path", format!("failed to read {}", path.display()))
        }
    })
}

pub(super) fn abspath(a: &[Value]) -> FnResult {
    let p = PathBuf::from(str_arg(a, 0, "path")?);
    let full = if p.is_absolute() {
        p
    } else {
        std::env::current_dir()
            .map_err(|e| FnError::Call(e.to_string()))?
            .join(p)
    };
    Ok(s(clean(&full)))
}

/// Go's filepath.Clean for absolute paths: drop `.`, resolve `..` lexically.
pub(super) fn clean(p: &Path) -> String {
    let mut parts: Vec<String> = Vec::new();
    for c in p.components() {
        match c {
            std::path::Component::Normal(x) => parts.push(x.to_string_lossy().into_owned()),
            std::path::Component::ParentDir => {
                parts.pop();
            }
            _ => {}
        }
    }
    format!("/{}", parts.join("/"))
}

pub(super) fn basename(p: &str) -> String {
    let t = p.trim_end_matches('/');
    if p.is_empty() {
        return ".".into();
    }
    if t.is_empty() {
        return "/".into();
    }
    t.rsplit('/').next().unwrap_or(t).to_string()
}

pub(super) fn dirname(p: &str) -> String {
    match p.rfind('/') {
        None => ".".into(),
        Some(0) => "/".into(),
        Some(i) => {
            let d = p[..i].trim_end_matches('/');
            if d.is_empty() {
                "/".into()
            } else {
                d.to_string()
            }
        }
    }
}

pub(super) fn pathexpand(p: &str) -> String {
    if p == "~" || p.starts_with("~/") {
        if let Ok(home) = std::env::var("HOME") {
            return format!("{home}{}", &p[1..]);
        }
    }
    p.to_string()
}

/// RFC 4180 CSV with a header row, into a list of objects keyed by the header.
pub(super) fn csvdecode(a: &[Value]) -> FnResult {
    let st = str_arg(a, 0, "str")?;
    let mut rows: Vec<Vec<String>> = Vec::new();
    let (mut row, mut field, mut quoted, mut at_start) = (Vec::new(), String::new(), false, true);
    let mut chars = st.chars().peekable();
    while let Some(c) = chars.next() {
        if quoted {
            match c {
                '"' if chars.peek() == Some(&'"') => {
                    chars.next();
                    field.push('"');
                }
                '"' => quoted = false,
                _ => field.push(c),
            }
            continue;
        }
        match c {
            '"' if at_start => quoted = true,
            ',' => row.push(std::mem::take(&mut field)),
            '\r' if chars.peek() == Some(&'\n') => {}
            '\n' => {
                row.push(std::mem::take(&mut field));
                rows.push(std::mem::take(&mut row));
            }
            _ => field.push(c),
        }
        at_start = matches!(c, ',' | '\n');
        if c == '"' {
            at_start = false;
        }
    }
    if quoted {
        return Err(FnError::Call(
            "extraneous or missing \" in quoted-field".into(),
        ));
    }
    if !field.is_empty() || !row.is_empty() {
        row.push(field);
        rows.push(row);
    }
    let mut it = rows.into_iter();
    let Some(header) = it.next() else {
        return Err(FnError::Call("missing header line".into()));
    };
    let mut out = Vec::new();
    for (n, r) in it.enumerate() {
        if r.len() != header.len() {
            return Err(FnError::Call(format!(
                "record on line {}: wrong number of fields",
                n + 2
            )));
        }
        let obj: serde_json::Map<String, Value> =
            header.iter().cloned().zip(r.into_iter().map(s)).collect();
        out.push(Value::Object(obj));
    }
    Ok(Value::Array(out))
}

/// Files under `path` (relative to the job file) whose `/`-separated relative names match a
/// doublestar glob (`*`, `**`, `?`, `[...]`, `{a,b}`), sorted.
pub(super) fn fileset(c: &FnContext, a: &[Value]) -> FnResult {
    let base = str_arg(a, 0, "path")?;
    let pat = str_arg(a, 1, "pattern")?;
    let re = regex::Regex::new(&glob_regex(&pat))
        .map_err(|e| arg_err(1, "pattern", format!("failed to glob pattern {pat:?}: {e}")))?;
    let root = resolve(c, &base)?;
    let mut found = Vec::new();
    let mut stack = vec![(root.clone(), String::new())];
    while let Some((dir, rel)) = stack.pop() {
        let entries = std::fs::read_dir(&dir)
            .map_err(|e| FnError::Call(format!("failed to read {}: {e}", dir.display())))?;
        for entry in entries.flatten() {
            let name = entry.file_name().to_string_lossy().into_owned();
            let rel_name = if rel.is_empty() {
                name
            } else {
                format!("{rel}/{name}")
            };
            match entry.file_type() {
                Ok(t) if t.is_dir() => stack.push((entry.path(), rel_name)),
                Ok(t) if t.is_file() && re.is_match(&rel_name) => found.push(rel_name),
                _ => {}
            }
        }
        if found.len() > 10_000 {
            return Err(FnError::Call("too many matching files".into()));
        }
    }
    found.sort();
    Ok(Value::Array(found.into_iter().map(s).collect()))
}

fn glob_regex(pat: &str) -> String {
    let mut re = String::from("^");
    let chars: Vec<char> = pat.trim_start_matches("./").chars().collect();
    let mut i = 0;
    let mut in_brace = false;
    while i < chars.len() {
        let c = chars[i];
        match c {
            '*' if chars.get(i + 1) == Some(&'*') => {
                if chars.get(i + 2) == Some(&'/') {
                    re.push_str("(?:.*/)?");
                    i += 1;
                } else {
                    re.push_str(".*");
                }
                i += 1;
            }
            '*' => re.push_str("[^/]*"),
            '?' => re.push_str("[^/]"),
            '[' => {
                let close = chars[i..].iter().position(|x| *x == ']').map(|p| p + i);
                match close {
                    Some(end) => {
                        let class: String = chars[i + 1..end].iter().collect();
                        let class = class
                            .strip_prefix('!')
                            .map(|x| format!("^{x}"))
                            .unwrap_or(class);
                        re.push_str(&format!("[{}]", class.replace('\\', "\\\\")));
                        i = end;
                    }
                    None => re.push_str("\\["),
                }
            }
            '{' => {
                in_brace = true;
                re.push_str("(?:");
            }
            '}' if in_brace => {
                in_brace = false;
                re.push(')');
            }
            ',' if in_brace => re.push('|'),
            _ => re.push_str(&regex::escape(&c.to_string())),
        }
        i += 1;
    }
    re.push('$');
    re
}
