//! String functions.

use serde_json::Value;

use super::*;

// ---- strings ------------------------------------------------------------------------------

pub(super) fn chomp(st: &str) -> String {
    st.trim_end_matches(['\n', '\r']).to_string()
}

/// Go's strings.Title: upper-case each rune that follows a separator (see `is_separator`).
pub(super) fn title(st: &str) -> String {
    let mut out = String::with_capacity(st.len());
    let mut prev_sep = true;
    for c in st.chars() {
        if prev_sep {
            out.extend(c.to_uppercase());
        } else {
            out.push(c);
        }
        prev_sep = is_separator(c);
    }
    out
}

/// Go's rule: ASCII letters, digits and `_` join words, other ASCII separates; beyond ASCII
/// letters and digits join, spaces separate, and everything else joins.
fn is_separator(c: char) -> bool {
    if c.is_ascii() {
        return !(c.is_ascii_alphanumeric() || c == '_');
    }
    if c.is_alphanumeric() {
        return false;
    }
    c.is_whitespace()
}

pub(super) fn indent(a: &[Value]) -> FnResult {
    let n = int_arg(a, 0, "spaces")?.max(0) as usize;
    let st = str_arg(a, 1, "str")?;
    let pad = " ".repeat(n);
    Ok(s(st.replace('\n', &format!("\n{pad}"))))
}

pub(super) fn join(a: &[Value]) -> FnResult {
    let sep = str_arg(a, 0, "separator")?;
    if a.len() < 2 {
        return Err(FnError::Call("at least one list is required".into()));
    }
    let mut parts = Vec::new();
    for i in 1..a.len() {
        for v in list_arg(a, i, "lists")? {
            match value_to_string(&v) {
                Some(x) => parts.push(x),
                None => return Err(arg_err(i, "lists", "element must not be null".into())),
            }
        }
    }
    Ok(s(parts.join(&sep)))
}

pub(super) fn split(a: &[Value]) -> FnResult {
    let sep = str_arg(a, 0, "separator")?;
    let st = str_arg(a, 1, "str")?;
    // Go's strings.Split with an empty separator splits into characters.
    let parts: Vec<Value> = if sep.is_empty() {
        st.chars().map(|c| s(c.to_string())).collect()
    } else {
        st.split(sep.as_str()).map(|p| s(p.to_string())).collect()
    };
    Ok(Value::Array(parts))
}

pub(super) fn replace(a: &[Value]) -> FnResult {
    let st = str_arg(a, 0, "str")?;
    let sub = str_arg(a, 1, "substr")?;
    let rep = str_arg(a, 2, "replace")?;
    // cty's replace is a plain substring replacement (Terraform's `/regex/` form is not
    // part of it; regex_replace is).
    Ok(s(st.replace(&sub, &rep)))
}

pub(super) fn substr(a: &[Value]) -> FnResult {
    let chars: Vec<char> = str_arg(a, 0, "str")?.chars().collect();
    let len = chars.len() as i64;
    let mut off = int_arg(a, 1, "offset")?;
    let length = int_arg(a, 2, "length")?;
    if off < 0 {
        off += len;
        if off < 0 {
            return Err(arg_err(1, "offset", "offset out of range".into()));
        }
    }
    if off > len {
        return Ok(s(String::new()));
    }
    let end = if length < 0 {
        len
    } else {
        (off + length).min(len)
    };
    Ok(s(chars[off as usize..end as usize].iter().collect()))
}

/// go-cty's regex_replace: every match of the pattern `substr` in `str` replaced by
/// `replace`, where `$1` / `${name}` expand to capture groups (Go's ReplaceAllString).
pub(super) fn regex_replace(a: &[Value]) -> FnResult {
    let st = str_arg(a, 0, "str")?;
    let pat = str_arg(a, 1, "substr")?;
    let rep = str_arg(a, 2, "replace")?;
    let re =
        regex::Regex::new(&pat).map_err(|e| FnError::Call(format!("error parsing regexp: {e}")))?;
    Ok(s(re.replace_all(&st, rep.as_str()).into_owned()))
}
