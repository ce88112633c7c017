//! The `sprig_`-prefixed functions Nomad's CLI registers for `-t` templates (all of sprig
//! there); this engine implements the string and list helpers templates commonly use.

use serde_json::Value;

use super::exec::{int_arg, print_json, str_arg, truth, want_args, Fail, V};

/// Sprig function names (without the `sprig_` prefix) that are implemented.
pub const SPRIG: &[&str] = &[
    "upper",
    "lower",
    "title",
    "trim",
    "trimPrefix",
    "trimSuffix",
    "replace",
    "contains",
    "hasPrefix",
    "hasSuffix",
    "join",
    "splitList",
    "quote",
    "squote",
    "default",
    "empty",
    "toJson",
    "toPrettyJson",
    "repeat",
    "trunc",
    "keys",
    "first",
    "last",
];

fn list_of(v: &V) -> Vec<Value> {
    match v {
        Some(Value::Array(a)) => a.clone(),
        None | Some(Value::Null) => Vec::new(),
        Some(other) => vec![other.clone()],
    }
}

pub fn sprig(name: &str, args: &[V]) -> Result<V, Fail> {
    let s = |v: Value| Ok(Some(v));
    let text = |i: usize| args.get(i).map(str_arg).unwrap_or_default();
    let n = |name: &str, k: usize| want_args(&format!("sprig_{name}"), args, k);
    match name {
        "upper" => n(name, 1).and_then(|_| s(Value::String(text(0).to_uppercase()))),
        "lower" => n(name, 1).and_then(|_| s(Value::String(text(0).to_lowercase()))),
        "title" => {
            n(name, 1)?;
            let mut out = String::new();
            let mut start = true;
            for c in text(0).chars() {
                if start {
                    out.extend(c.to_uppercase());
                } else {
                    out.push(c);
                }
                start = c.is_whitespace();
            }
            s(Value::String(out))
        }
        "trim" => n(name, 1).and_then(|_| s(Value::String(text(0).trim().to_string()))),
        "trimPrefix" => {
            n(name, 2)?;
            let (p, t) = (text(0), text(1));
            s(Value::String(t.strip_prefix(&p).unwrap_or(&t).to_string()))
        }
        "trimSuffix" => {
            n(name, 2)?;
            let (p, t) = (text(0), text(1));
            s(Value::String(t.strip_suffix(&p).unwrap_or(&t).to_string()))
        }
        "replace" => {
            n(name, 3)?;
            s(Value::String(text(2).replace(&text(0), &text(1))))
        }
        "contains" => n(name, 2).and_then(|_| s(Value::Bool(text(1).contains(&text(0))))),
        "hasPrefix" => n(name, 2).and_then(|_| s(Value::Bool(text(1).starts_with(&text(0))))),
        "hasSuffix" => n(name, 2).and_then(|_| s(Value::Bool(text(1).ends_with(&text(0))))),
        "join" => {
            n(name, 2)?;
            let parts: Vec<String> = list_of(&args[1]).iter().map(print_json).collect();
            s(Value::String(parts.join(&text(0))))
        }
        "splitList" => {
            n(name, 2)?;
            let parts = text(1)
                .split(text(0).as_str())
                .map(|p| Value::String(p.to_string()))
                .collect();
            s(Value::Array(parts))
        }
        "quote" | "squote" => {
            let q = if name == "quote" { '"' } else { '\'' };
            let parts: Vec<String> = args
                .iter()
                .filter(|a| !matches!(a, None | Some(Value::Null)))
                .map(|a| {
                    if q == '"' {
                        format!("{:?}", str_arg(a))
                    } else {
                        format!("'{}'", str_arg(a))
                    }
                })
                .collect();
            s(Value::String(parts.join(" ")))
        }
        "default" => {
            let Some(d) = args.first() else {
                return n(name, 1).map(|_| None);
            };
            match args.get(1) {
                Some(given) if truth(given) => Ok(given.clone()),
                _ => Ok(d.clone()),
            }
        }
        "empty" => n(name, 1).and_then(|_| s(Value::Bool(!truth(&args[0])))),
        "toJson" => {
            n(name, 1)?;
            let v = args[0].clone().unwrap_or(Value::Null);
            s(Value::String(serde_json::to_string(&v).unwrap_or_default()))
        }
        "toPrettyJson" => {
            n(name, 1)?;
            let v = args[0].clone().unwrap_or(Value::Null);
            s(Value::String(
                serde_json::to_string_pretty(&v).unwrap_or_default(),
            ))
        }
        "repeat" => {
            n(name, 2)?;
            let count = int_arg(&args[0]).unwrap_or(0).clamp(0, 10_000) as usize;
            s(Value::String(text(1).repeat(count)))
        }
        "trunc" => {
            n(name, 2)?;
            let k = int_arg(&args[0]).unwrap_or(0);
            let t = text(1);
            let chars: Vec<char> = t.chars().collect();
            let out: String = if k >= 0 {
                chars.iter().take(k as usize).collect()
            } else {
                let skip = chars.len().saturating_sub(k.unsigned_abs() as usize);
                chars.iter().skip(skip).collect()
            };
            s(Value::String(out))
        }
        "keys" => {
            let mut keys: Vec<String> = Vec::new();
            for a in args {
                if let Some(Value::Object(m)) = a {
                    keys.extend(m.keys().cloned());
                }
            }
            s(Value::Array(keys.into_iter().map(Value::String).collect()))
        }
        "first" => {
            n(name, 1)?;
            Ok(list_of(&args[0]).into_iter().next())
        }
        "last" => {
            n(name, 1)?;
            Ok(list_of(&args[0]).pop())
        }
        _ => Err(Fail::Plain(format!(
            "function \"sprig_{name}\" not defined"
        ))),
    }
}
