//! Functions: text/template's builtins and consul-template's library as Nomad offers it.
//! `and`, `or` (short-circuit) and `executeTemplate` (needs the template set) live in exec.
//! Consul, Vault and Nomad-variable lookups fail with an error naming the function.

use std::cell::RefCell;
use std::collections::{BTreeMap, BTreeSet};
use std::path::{Component, Path, PathBuf};

use base64::Engine as _;

use super::brain::{Brain, Data, Dependency, ServiceEntry};
use super::value::Struct;
use super::{gofmt, Value};

/// What the data functions read and where they record their lookups.
pub struct Context<'a> {
    /// The task's environment (`env`): only these variables are visible, as Nomad masks
    /// the agent's own environment.
    pub env: &'a BTreeMap<String, String>,
    pub brain: &'a Brain,
    /// The task dir: `file` paths resolve inside it and may not leave it.
    pub sandbox: Option<&'a Path>,
    /// The client's `function_denylist` (Nomad's default: plugin, writeToFile).
    pub denylist: &'a [String],
    pub used: RefCell<BTreeSet<Dependency>>,
    pub missing: RefCell<BTreeSet<Dependency>>,
}

impl<'a> Context<'a> {
    pub fn new(env: &'a BTreeMap<String, String>, brain: &'a Brain) -> Self {
        Context {
            env,
            brain,
            sandbox: None,
            denylist: DEFAULT_DENYLIST_REF,
            used: RefCell::default(),
            missing: RefCell::default(),
        }
    }
}

const DEFAULT_DENYLIST_REF: &[String] = &[];

/// Nomad's default `template.function_denylist`.
pub const DEFAULT_DENYLIST: &[&str] = &["plugin", "writeToFile"];

/// How a call failed: bad arguments (Go reports these without "error calling") or the
/// function's own error.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum FuncError {
    Args(String),
    Call(String),
}

type R = Result<Value, FuncError>;

const BUILTINS: &[&str] = &[
    "and", "or", "not", "eq", "ne", "lt", "le", "gt", "ge", "len", "index", "slice", "print",
    "printf", "println", "html", "js", "urlquery", "call",
];

const LIBRARY: &[&str] = &[
    "env",
    "mustEnv",
    "envOrDefault",
    "file",
    "executeTemplate",
    "nomadService",
    "nomadServices",
    "timestamp",
    "toLower",
    "toUpper",
    "toTitle",
    "trimSpace",
    "trim",
    "trimPrefix",
    "trimSuffix",
    "split",
    "splitToMap",
    "join",
    "replaceAll",
    "regexReplaceAll",
    "regexMatch",
    "contains",
    "containsAll",
    "containsAny",
    "containsNone",
    "containsNotAll",
    "in",
    "parseJSON",
    "toJSON",
    "toJSONPretty",
    "toUnescapedJSON",
    "toUnescapedJSONPretty",
    "parseBool",
    "parseInt",
    "parseFloat",
    "parseUint",
    "base64Encode",
    "base64Decode",
    "base64URLEncode",
    "base64URLDecode",
    "sha256Hex",
    "md5sum",
    "hmacSHA256Hex",
    "add",
    "subtract",
    "multiply",
    "divide",
    "modulo",
    "minimum",
    "maximum",
    "loop",
    "indent",
    "byKey",
    "byTag",
    "explode",
    "explodeMap",
    "mergeMap",
    "mergeMapWithOverride",
    "parseYAML",
    "toYAML",
    "toTOML",
    "sockaddr",
    "plugin",
    "writeToFile",
];

/// Lookups of systems this agent does not have: Consul and Vault.
const EXTERNAL: &[(&str, &str)] = &[
    ("datacenters", "Consul"),
    ("exportedServices", "Consul"),
    ("importedServices", "Consul"),
    ("key", "Consul"),
    ("keyExists", "Consul"),
    ("keyOrDefault", "Consul"),
    ("ls", "Consul"),
    ("safeLs", "Consul"),
    ("node", "Consul"),
    ("nodes", "Consul"),
    ("partitions", "Consul"),
    ("peerings", "Consul"),
    ("service", "Consul"),
    ("connect", "Consul"),
    ("services", "Consul"),
    ("tree", "Consul"),
    ("safeTree", "Consul"),
    ("caRoots", "Consul"),
    ("caLeaf", "Consul"),
    ("byMeta", "Consul"),
    ("secret", "Vault"),
    ("secrets", "Vault"),
    ("pkiCert", "Vault"),
];

const NOMAD_VARIABLES: &[&str] = &[
    "nomadVar",
    "nomadVarList",
    "nomadVarListSafe",
    "nomadVarExists",
];

pub fn is_known(name: &str) -> bool {
    BUILTINS.contains(&name)
        || LIBRARY.contains(&name)
        || EXTERNAL.iter().any(|(n, _)| *n == name)
        || NOMAD_VARIABLES.contains(&name)
}

fn want_args(name: &str, args: &[Value], n: usize) -> Result<(), FuncError> {
    if args.len() != n {
        return Err(FuncError::Args(format!(
            "wrong number of args for {name}: want {n} got {}",
            args.len()
        )));
    }
    Ok(())
}

fn wrong_type(expected: &str, got: &Value) -> FuncError {
    if got.is_nilish() {
        return FuncError::Args(format!("invalid value; expected {expected}"));
    }
    FuncError::Args(format!(
        "wrong type for value; expected {expected}; got {}",
        got.type_name()
    ))
}

fn s(v: &Value) -> Result<&str, FuncError> {
    match v {
        Value::Str(s) => Ok(s),
        other => Err(wrong_type("string", other)),
    }
}

fn int(v: &Value) -> Result<i64, FuncError> {
    match v {
        Value::Int(i) => Ok(*i),
        Value::Uint(u) => Ok(*u as i64),
        other => Err(wrong_type("int", other)),
    }
}

fn strings(v: &Value) -> Result<Vec<String>, FuncError> {
    match v {
        Value::List(l) => l
            .iter()
            .map(|e| match e {
                Value::Str(s) => Ok(s.clone()),
                _ => Err(wrong_type("[]string", v)),
            })
            .collect(),
        Value::Nil | Value::Missing => Ok(Vec::new()),
        other => Err(wrong_type("[]string", other)),
    }
}

fn call_err(e: impl std::fmt::Display) -> FuncError {
    FuncError::Call(e.to_string())
}

fn str_list(items: Vec<String>) -> Value {
    Value::list(items.into_iter().map(Value::Str).collect())
}

/// Calls the function `name` (not `and`, `or`, `executeTemplate`: exec handles those).
pub fn call(name: &str, args: Vec<Value>, ctx: &Context<'_>) -> R {
    if ctx.denylist.iter().any(|d| d == name) {
        return Err(FuncError::Call("function is disabled".into()));
    }
    if let Some((_, system)) = EXTERNAL.iter().find(|(n, _)| *n == name) {
        return Err(FuncError::Call(format!(
            "{name}: {system} is not available to templates on this client (nomad-rs has no {system} integration)"
        )));
    }
    if NOMAD_VARIABLES.contains(&name) {
        return Err(FuncError::Call(format!(
            "{name}: Nomad variables are not supported by this agent"
        )));
    }
    let a = &args;
    match name {
        "not" => {
            want_args(name, a, 1)?;
            Ok(Value::Bool(!a[0].truthy()))
        }
        "eq" => {
            if a.len() < 2 {
                return Err(FuncError::Call("missing argument for comparison".into()));
            }
            for other in &a[1..] {
                if eq(&a[0], other).map_err(call_err)? {
                    return Ok(Value::Bool(true));
                }
            }
            Ok(Value::Bool(false))
        }
        "ne" => {
            want_args(name, a, 2)?;
            Ok(Value::Bool(!eq(&a[0], &a[1]).map_err(call_err)?))
        }
        "lt" | "le" | "gt" | "ge" => {
            want_args(name, a, 2)?;
            let ord = compare(&a[0], &a[1]).map_err(call_err)?;
            use std::cmp::Ordering::*;
            Ok(Value::Bool(match name {
                "lt" => ord == Less,
                "le" => ord != Greater,
                "gt" => ord == Greater,
                _ => ord != Less,
            }))
        }
        "len" => {
            want_args(name, a, 1)?;
            match &a[0] {
                Value::Str(s) => Ok(Value::Int(s.len() as i64)),
                Value::List(l) => Ok(Value::Int(l.len() as i64)),
                Value::Map(m) => Ok(Value::Int(m.len() as i64)),
                Value::Nil | Value::Missing => Err(call_err("len of nil pointer")),
                other => Err(call_err(format!("len of type {}", other.type_name()))),
            }
        }
        "index" => {
            if a.is_empty() {
                return Err(FuncError::Args(
                    "wrong number of args for index: want at least 1 got 0".into(),
                ));
            }
            let mut item = a[0].clone();
            for k in &a[1..] {
                item = index_one(&item, k).map_err(call_err)?;
            }
            Ok(item)
        }
        "slice" => {
            if a.is_empty() {
                return Err(FuncError::Args(
                    "wrong number of args for slice: want at least 1 got 0".into(),
                ));
            }
            slice(&a[0], &a[1..]).map_err(call_err)
        }
        "print" => Ok(Value::Str(gofmt::sprint(a))),
        "println" => Ok(Value::Str(gofmt::sprintln(a))),
        "printf" => {
            if a.is_empty() {
                return Err(FuncError::Args(
                    "wrong number of args for printf: want at least 1 got 0".into(),
                ));
            }
            Ok(Value::Str(gofmt::sprintf(s(&a[0])?, &a[1..])))
        }
        "html" => Ok(Value::Str(html_escape(&gofmt::sprint(a)))),
        "js" => Ok(Value::Str(js_escape(&gofmt::sprint(a)))),
        "urlquery" => Ok(Value::Str(query_escape(&gofmt::sprint(a)))),
        "call" => Err(call_err("call of non-function")),

        "env" => {
            want_args(name, a, 1)?;
            Ok(Value::Str(
                ctx.env.get(s(&a[0])?).cloned().unwrap_or_default(),
            ))
        }
        "mustEnv" => {
            want_args(name, a, 1)?;
            let k = s(&a[0])?;
            match ctx.env.get(k).filter(|v| !v.is_empty()) {
                Some(v) => Ok(Value::Str(v.clone())),
                None => Err(call_err(format!(
                    "required environment variable {k} is empty"
                ))),
            }
        }
        "envOrDefault" => {
            want_args(name, a, 2)?;
            let def = s(&a[1])?;
            Ok(Value::Str(
                ctx.env
                    .get(s(&a[0])?)
                    .cloned()
                    .unwrap_or_else(|| def.to_string()),
            ))
        }
        "file" => {
            want_args(name, a, 1)?;
            file(s(&a[0])?, ctx)
        }
        "nomadService" => nomad_service(a, ctx),
        "nomadServices" => {
            let mut joined = String::new();
            for v in a {
                joined.push_str(s(v)?);
            }
            let region = match joined.strip_prefix('@') {
                Some(r) => r.to_string(),
                None if joined.is_empty() => String::new(),
                None => {
                    return Err(call_err(format!(
                        "nomad.services: invalid format: {joined:?}"
                    )))
                }
            };
            let dep = Dependency::NomadServices { region };
            ctx.used.borrow_mut().insert(dep.clone());
            match ctx.brain.recall(&dep) {
                Some(Data::ServiceList(list)) => Ok(Value::list(
                    list.iter()
                        .map(|(n, tags)| {
                            Value::Struct(std::sync::Arc::new(Struct {
                                type_name: "*dependency.NomadServicesSnippet",
                                fields: vec![
                                    ("Name", Value::Str(n.clone())),
                                    ("Tags", str_list(tags.clone())),
                                ],
                            }))
                        })
                        .collect(),
                )),
                _ => {
                    ctx.missing.borrow_mut().insert(dep);
                    Ok(Value::list(Vec::new()))
                }
            }
        }
        "timestamp" => {
            let now = chrono::Utc::now();
            match a.len() {
                0 => Ok(Value::Str(go_time_format(
                    &now,
                    "2006-01-02T15:04:05Z07:00",
                ))),
                1 => {
                    let f = s(&a[0])?;
                    if f == "unix" {
                        Ok(Value::Str(now.timestamp().to_string()))
                    } else {
                        Ok(Value::Str(go_time_format(&now, f)))
                    }
                }
                n => Err(call_err(format!(
                    "timestamp: wrong number of arguments, expected 0 or 1, but got {n}"
                ))),
            }
        }
        "toLower" => one_str(name, a, |x| x.to_lowercase()),
        "toUpper" => one_str(name, a, |x| x.to_uppercase()),
        "toTitle" => one_str(name, a, to_title),
        "trimSpace" => one_str(name, a, |x| x.trim().to_string()),
        "trim" => two_str(name, a, |cut, x| {
            x.trim_matches(|c| cut.contains(c)).to_string()
        }),
        "trimPrefix" => two_str(name, a, |p, x| x.strip_prefix(p).unwrap_or(x).to_string()),
        "trimSuffix" => two_str(name, a, |p, x| x.strip_suffix(p).unwrap_or(x).to_string()),
        "split" => {
            want_args(name, a, 2)?;
            let (sep, x) = (s(&a[0])?, s(&a[1])?.trim());
            if x.is_empty() {
                return Ok(Value::list(Vec::new()));
            }
            Ok(str_list(go_split(x, sep)))
        }
        "splitToMap" => {
            want_args(name, a, 3)?;
            let (s1, s2, x) = (s(&a[0])?, s(&a[1])?, s(&a[2])?.trim());
            let mut m = BTreeMap::new();
            if !x.is_empty() {
                for part in go_split(x, s1) {
                    if let Some((k, v)) = part.split_once(s2) {
                        m.insert(k.to_string(), Value::str(v));
                    }
                }
            }
            Ok(Value::map(m))
        }
        "join" => {
            want_args(name, a, 2)?;
            Ok(Value::Str(strings(&a[1])?.join(s(&a[0])?)))
        }
        "replaceAll" => {
            want_args(name, a, 3)?;
            Ok(Value::Str(s(&a[2])?.replace(s(&a[0])?, s(&a[1])?)))
        }
        "regexReplaceAll" => {
            want_args(name, a, 3)?;
            let re = regex::Regex::new(s(&a[0])?).map_err(call_err)?;
            Ok(Value::Str(
                re.replace_all(s(&a[2])?, s(&a[1])?).into_owned(),
            ))
        }
        "regexMatch" => {
            want_args(name, a, 2)?;
            let re = regex::Regex::new(s(&a[0])?).map_err(call_err)?;
            Ok(Value::Bool(re.is_match(s(&a[1])?)))
        }
        "contains" => {
            want_args(name, a, 2)?;
            Ok(Value::Bool(in_(&a[1], &a[0])))
        }
        "in" => {
            want_args(name, a, 2)?;
            Ok(Value::Bool(in_(&a[0], &a[1])))
        }
        "containsAll" | "containsAny" | "containsNone" | "containsNotAll" => {
            want_args(name, a, 2)?;
            let (ret_true, invert) = match name {
                "containsAll" => (true, true),
                "containsAny" => (false, false),
                "containsNone" => (true, false),
                _ => (false, true),
            };
            let Value::List(items) = &a[0] else {
                return Err(wrong_type("[]interface {}", &a[0]));
            };
            for v in items.iter() {
                if in_(&a[1], v) != invert {
                    return Ok(Value::Bool(!ret_true));
                }
            }
            Ok(Value::Bool(ret_true))
        }
        "parseJSON" => {
            want_args(name, a, 1)?;
            let x = s(&a[0])?;
            if x.is_empty() {
                return Ok(Value::map(BTreeMap::new()));
            }
            let j: serde_json::Value = serde_json::from_str(x).map_err(call_err)?;
            Ok(Value::from_json(&j))
        }
        "toJSON" | "toUnescapedJSON" => {
            want_args(name, a, 1)?;
            let out = serde_json::to_string(&a[0].to_json()).map_err(call_err)?;
            Ok(Value::Str(if name == "toJSON" {
                go_html_escape_json(&out)
            } else {
                out
            }))
        }
        "toJSONPretty" | "toUnescapedJSONPretty" => {
            want_args(name, a, 1)?;
            let out = serde_json::to_string_pretty(&a[0].to_json()).map_err(call_err)?;
            Ok(Value::Str(if name == "toJSONPretty" {
                go_html_escape_json(&out)
            } else {
                out
            }))
        }
        "parseBool" => {
            want_args(name, a, 1)?;
            let x = s(&a[0])?;
            match x {
                "" => Ok(Value::Bool(false)),
                "1" | "t" | "T" | "TRUE" | "true" | "True" => Ok(Value::Bool(true)),
                "0" | "f" | "F" | "FALSE" | "false" | "False" => Ok(Value::Bool(false)),
                _ => Err(call_err(format!(
                    "parseBool: strconv.ParseBool: parsing {}: invalid syntax",
                    gofmt::go_quote(x)
                ))),
            }
        }
        "parseInt" => {
            want_args(name, a, 1)?;
            let x = s(&a[0])?;
            if x.is_empty() {
                return Ok(Value::Int(0));
            }
            x.parse::<i64>().map(Value::Int).map_err(|_| {
                call_err(format!(
                    "parseInt: strconv.ParseInt: parsing {}: invalid syntax",
                    gofmt::go_quote(x)
                ))
            })
        }
        "parseUint" => {
            want_args(name, a, 1)?;
            let x = s(&a[0])?;
            if x.is_empty() {
                return Ok(Value::Uint(0));
            }
            x.parse::<u64>().map(Value::Uint).map_err(|_| {
                call_err(format!(
                    "parseUint: strconv.ParseUint: parsing {}: invalid syntax",
                    gofmt::go_quote(x)
                ))
            })
        }
        "parseFloat" => {
            want_args(name, a, 1)?;
            let x = s(&a[0])?;
            if x.is_empty() {
                return Ok(Value::Float(0.0));
            }
            x.parse::<f64>().map(Value::Float).map_err(|_| {
                call_err(format!(
                    "parseFloat: strconv.ParseFloat: parsing {}: invalid syntax",
                    gofmt::go_quote(x)
                ))
            })
        }
        "base64Encode" => one_str(name, a, |x| {
            base64::engine::general_purpose::STANDARD.encode(x.as_bytes())
        }),
        "base64URLEncode" => one_str(name, a, |x| {
            base64::engine::general_purpose::URL_SAFE.encode(x.as_bytes())
        }),
        "base64Decode" | "base64URLDecode" => {
            want_args(name, a, 1)?;
            let engine = if name == "base64Decode" {
                &base64::engine::general_purpose::STANDARD
            } else {
                &base64::engine::general_purpose::URL_SAFE
            };
            let bytes = engine
                .decode(s(&a[0])?)
                .map_err(|e| call_err(format!("{name}: {e}")))?;
            Ok(Value::Str(String::from_utf8_lossy(&bytes).into_owned()))
        }
        "sha256Hex" => one_str(name, a, |x| {
            hex(aws_lc_rs::digest::digest(&aws_lc_rs::digest::SHA256, x.as_bytes()).as_ref())
        }),
        "md5sum" => one_str(name, a, |x| {
            use md5::Digest as _;
            hex(&md5::Md5::digest(x.as_bytes()))
        }),
        "hmacSHA256Hex" => two_str(name, a, |msg, key| {
            let k = aws_lc_rs::hmac::Key::new(aws_lc_rs::hmac::HMAC_SHA256, key.as_bytes());
            hex(aws_lc_rs::hmac::sign(&k, msg.as_bytes()).as_ref())
        }),
        "add" | "subtract" | "multiply" | "divide" | "modulo" | "minimum" | "maximum" => {
            want_args(name, a, 2)?;
            arith(name, &a[1], &a[0])
        }
        "loop" => {
            let (start, stop) = match a.len() {
                1 => (0, loop_int(&a[0])?),
                2 => (loop_int(&a[0])?, loop_int(&a[1])?),
                n => {
                    return Err(call_err(format!(
                        "loop: wrong number of arguments, expected 1 or 2, but got {n}"
                    )))
                }
            };
            if stop.saturating_sub(start) > 1_000_000 {
                return Err(call_err("loop: range too large"));
            }
            Ok(Value::list((start..stop).map(Value::Int).collect()))
        }
        "indent" => {
            want_args(name, a, 2)?;
            let n = int(&a[0])?;
            if n < 0 {
                return Err(call_err("indent value must be a positive integer"));
            }
            let prefix = " ".repeat(n as usize);
            let mut out = String::new();
            let mut at_line_start = true;
            for c in s(&a[1])?.chars() {
                if at_line_start && c != '\n' {
                    out.push_str(&prefix);
                }
                out.push(c);
                at_line_start = c == '\n';
            }
            Ok(Value::Str(out))
        }
        "byTag" => {
            want_args(name, a, 1)?;
            let mut m: BTreeMap<String, Vec<Value>> = BTreeMap::new();
            match &a[0] {
                Value::Nil | Value::Missing => {}
                Value::List(items) => {
                    for it in items.iter() {
                        let tags = match it {
                            Value::Struct(st) => st.get("Tags").cloned(),
                            Value::Map(mm) => mm.get("Tags").cloned(),
                            _ => None,
                        };
                        let Some(Value::List(tags)) = tags else {
                            return Err(call_err(format!(
                                "byTag: wrong argument type {}",
                                a[0].type_name()
                            )));
                        };
                        for t in tags.iter() {
                            m.entry(t.to_go_string()).or_default().push(it.clone());
                        }
                    }
                }
                other => {
                    return Err(call_err(format!(
                        "byTag: wrong argument type {}",
                        other.type_name()
                    )))
                }
            }
            Ok(Value::map(
                m.into_iter().map(|(k, v)| (k, Value::list(v))).collect(),
            ))
        }
        "byKey" => {
            want_args(name, a, 1)?;
            let mut m: BTreeMap<String, BTreeMap<String, Value>> = BTreeMap::new();
            for (k, v) in key_pairs(&a[0])? {
                let (top, rest) = k.split_once('/').unwrap_or((&k, ""));
                if rest.is_empty() {
                    continue;
                }
                m.entry(top.to_string())
                    .or_default()
                    .insert(rest.to_string(), key_pair(rest, v));
            }
            Ok(Value::map(
                m.into_iter().map(|(k, v)| (k, Value::map(v))).collect(),
            ))
        }
        "explode" => {
            want_args(name, a, 1)?;
            let mut m = BTreeMap::new();
            for (k, v) in key_pairs(&a[0])? {
                explode_into(&mut m, &k, Value::Str(v), &k)
                    .map_err(|e| call_err(format!("explode: {e}")))?;
            }
            Ok(Value::map(m))
        }
        "explodeMap" => {
            want_args(name, a, 1)?;
            let Value::Map(input) = &a[0] else {
                return Err(wrong_type("map[string]interface {}", &a[0]));
            };
            let mut m = BTreeMap::new();
            for (k, v) in input.iter() {
                explode_into(&mut m, k, v.clone(), k)
                    .map_err(|e| call_err(format!("explodeMap: {e}")))?;
            }
            Ok(Value::map(m))
        }
        "mergeMap" | "mergeMapWithOverride" => {
            want_args(name, a, 2)?;
            let (Value::Map(dst), Value::Map(src)) = (&a[0], &a[1]) else {
                return Err(wrong_type(
                    "map[string]interface {}",
                    if matches!(a[0], Value::Map(_)) {
                        &a[1]
                    } else {
                        &a[0]
                    },
                ));
            };
            Ok(Value::map(merge(dst, src, name == "mergeMapWithOverride")))
        }
        "parseYAML" => {
            want_args(name, a, 1)?;
            super::yaml_decode::parse_yaml(s(&a[0])?).map_err(FuncError::Call)
        }
        "toYAML" => {
            want_args(name, a, 1)?;
            Ok(Value::Str(super::yaml::to_yaml(&a[0])))
        }
        "toTOML" => {
            want_args(name, a, 1)?;
            super::toml::to_toml(&a[0])
                .map(Value::Str)
                .map_err(|e| call_err(format!("toTOML: {e}")))
        }
        "sockaddr" => {
            let words = a
                .iter()
                .map(|v| s(v).map(str::to_string))
                .collect::<Result<Vec<_>, _>>()?;
            super::sockaddr::sockaddr(&words)
                .map(Value::Str)
                .map_err(FuncError::Call)
        }
        "plugin" | "writeToFile" => Err(FuncError::Call("function is disabled".into())),
        other => Err(FuncError::Call(format!("function {other:?} not defined"))),
    }
}

fn one_str(name: &str, a: &[Value], f: impl Fn(&str) -> String) -> R {
    want_args(name, a, 1)?;
    Ok(Value::Str(f(s(&a[0])?)))
}

fn two_str(name: &str, a: &[Value], f: impl Fn(&str, &str) -> String) -> R {
    want_args(name, a, 2)?;
    Ok(Value::Str(f(s(&a[0])?, s(&a[1])?)))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// strings.Split: an empty separator splits into characters.
fn go_split(x: &str, sep: &str) -> Vec<String> {
    if sep.is_empty() {
        return x.chars().map(String::from).collect();
    }
    x.split(sep).map(str::to_string).collect()
}

/// encoding/json escapes <, >, & (and U+2028/9) by default.
fn go_html_escape_json(s: &str) -> String {
    s.replace('<', "\\u003c")
        .replace('>', "\\u003e")
        .replace('&', "\\u0026")
        .replace('\u{2028}', "\\u2028")
        .replace('\u{2029}', "\\u2029")
}

fn to_title(x: &str) -> String {
    let mut out = String::with_capacity(x.len());
    let mut prev_letter = false;
    for c in x.chars() {
        if !prev_letter && c.is_alphabetic() {
            out.extend(c.to_uppercase());
        } else {
            out.push(c);
        }
        prev_letter = c.is_alphanumeric() || c == '\'' || c == '_';
    }
    out
}

fn loop_int(v: &Value) -> Result<i64, FuncError> {
    match v {
        Value::Int(i) => Ok(*i),
        Value::Uint(u) => Ok(*u as i64),
        Value::Str(s) if s.is_empty() => Ok(0),
        Value::Str(s) => s.parse().map_err(|_| {
            call_err(format!(
                "parseInt: strconv.ParseInt: parsing {}: invalid syntax",
                gofmt::go_quote(s)
            ))
        }),
        other => Err(call_err(format!(
            "loop: bad argument type: {}",
            other.type_name()
        ))),
    }
}

fn num_kind(v: &Value) -> Option<char> {
    match v {
        Value::Int(_) => Some('i'),
        Value::Uint(_) => Some('u'),
        Value::Float(_) => Some('f'),
        _ => None,
    }
}

fn as_f(v: &Value) -> f64 {
    match v {
        Value::Int(i) => *i as f64,
        Value::Uint(u) => *u as f64,
        Value::Float(f) => *f,
        _ => 0.0,
    }
}

fn as_i(v: &Value) -> i64 {
    match v {
        Value::Int(i) => *i,
        Value::Uint(u) => *u as i64,
        _ => 0,
    }
}

/// consul-template's arithmetic: `add b a` is a + b (so pipelines read `a | add b`);
/// ints stay int64, uint with uint stays uint64, a float makes float64.
fn arith(name: &str, a: &Value, b: &Value) -> R {
    let (ka, kb) = match (num_kind(a), num_kind(b)) {
        (Some(x), Some(y)) => (x, y),
        (None, _) => {
            return Err(call_err(format!(
                "{name}: unknown type for {:?} ({})",
                a.to_go_string(),
                a.type_name()
            )))
        }
        (_, None) => {
            return Err(call_err(format!(
                "{name}: unknown type for {:?} ({})",
                b.to_go_string(),
                b.type_name()
            )))
        }
    };
    let float = ka == 'f' || kb == 'f';
    if float && name == "modulo" {
        let v = if ka == 'f' { a } else { b };
        return Err(call_err(format!(
            "modulo: unknown type for {:?} ({})",
            v.to_go_string(),
            v.type_name()
        )));
    }
    if float {
        let (x, y) = (as_f(a), as_f(b));
        return Ok(Value::Float(match name {
            "add" => x + y,
            "subtract" => x - y,
            "multiply" => x * y,
            "divide" => x / y,
            "minimum" => x.min(y),
            _ => x.max(y),
        }));
    }
    if ka == 'u' && kb == 'u' {
        let (x, y) = (as_i(a) as u64, as_i(b) as u64);
        if (name == "divide" || name == "modulo") && y == 0 {
            return Err(call_err("runtime error: integer divide by zero"));
        }
        return Ok(Value::Uint(match name {
            "add" => x.wrapping_add(y),
            "subtract" => x.wrapping_sub(y),
            "multiply" => x.wrapping_mul(y),
            "divide" => x / y,
            "modulo" => x % y,
            "minimum" => x.min(y),
            _ => x.max(y),
        }));
    }
    let (x, y) = (as_i(a), as_i(b));
    if (name == "divide" || name == "modulo") && y == 0 {
        return Err(call_err("runtime error: integer divide by zero"));
    }
    Ok(Value::Int(match name {
        "add" => x.wrapping_add(y),
        "subtract" => x.wrapping_sub(y),
        "multiply" => x.wrapping_mul(y),
        "divide" => x.wrapping_div(y),
        "modulo" => x.wrapping_rem(y),
        "minimum" => x.min(y),
        _ => x.max(y),
    }))
}

/// consul-template's `in`: element of a list (ints, floats, strings by kind) or substring.
fn in_(l: &Value, v: &Value) -> bool {
    match l {
        Value::List(items) => items.iter().any(|e| match (e, v) {
            (Value::Int(_) | Value::Uint(_), Value::Int(_) | Value::Uint(_)) => as_i(e) == as_i(v),
            (Value::Float(x), Value::Float(y)) => x == y,
            (Value::Str(x), Value::Str(y)) => x == y,
            _ => false,
        }),
        Value::Str(hay) => matches!(v, Value::Str(n) if hay.contains(n.as_str())),
        _ => false,
    }
}

/// (key, value) pairs from a list of KeyPair-like values (maps or structs with Key/Value).
fn key_pairs(v: &Value) -> Result<Vec<(String, String)>, FuncError> {
    let Value::List(items) = v else {
        if v.is_nilish() {
            return Ok(Vec::new());
        }
        return Err(wrong_type("[]*dependency.KeyPair", v));
    };
    let field = |it: &Value, k: &str| -> Option<String> {
        match it {
            Value::Map(m) => m.get(k).map(Value::to_go_string),
            Value::Struct(s) => s.get(k).map(Value::to_go_string),
            _ => None,
        }
    };
    items
        .iter()
        .map(|it| match (field(it, "Key"), field(it, "Value")) {
            (Some(k), Some(v)) => Ok((k, v)),
            _ => Err(wrong_type("[]*dependency.KeyPair", v)),
        })
        .collect()
}

fn key_pair(key: &str, value: String) -> Value {
    Value::Struct(std::sync::Arc::new(Struct {
        type_name: "*dependency.KeyPair",
        fields: vec![("Key", Value::str(key)), ("Value", Value::Str(value))],
    }))
}

fn explode_into(
    m: &mut BTreeMap<String, Value>,
    k: &str,
    v: Value,
    path: &str,
) -> Result<(), String> {
    if let Some((top, rest)) = k.split_once('/') {
        let entry = m
            .entry(top.to_string())
            .or_insert_with(|| Value::map(BTreeMap::new()));
        let Value::Map(nest) = entry else {
            return Err(format!(
                "not a map: {path:?}: {top:?} already has value {:?}",
                entry.to_go_string()
            ));
        };
        let mut inner = (**nest).clone();
        explode_into(&mut inner, rest, v, k)?;
        *entry = Value::map(inner);
        return Ok(());
    }
    if !k.is_empty() {
        m.insert(k.to_string(), v);
    }
    Ok(())
}

/// mergo.Map: keys of `src` missing in `dst` are added (recursively for maps); with
/// override, `src` wins.
fn merge(
    dst: &BTreeMap<String, Value>,
    src: &BTreeMap<String, Value>,
    over: bool,
) -> BTreeMap<String, Value> {
    let mut out = dst.clone();
    for (k, sv) in src {
        match out.get(k) {
            Some(Value::Map(dm)) => {
                if let Value::Map(sm) = sv {
                    out.insert(k.clone(), Value::map(merge(dm, sm, over)));
                } else if over {
                    out.insert(k.clone(), sv.clone());
                }
            }
            Some(dv) if !over && dv.truthy() => {}
            _ => {
                out.insert(k.clone(), sv.clone());
            }
        }
    }
    out
}

/// text/template's eq on basic kinds; ints and uints compare by value.
pub fn eq(a: &Value, b: &Value) -> Result<bool, String> {
    use Value::*;
    Ok(match (a, b) {
        (Nil | Missing, Nil | Missing) => true,
        (Nil | Missing, _) | (_, Nil | Missing) => false,
        (Bool(x), Bool(y)) => x == y,
        (Int(x), Int(y)) => x == y,
        (Uint(x), Uint(y)) => x == y,
        (Int(x), Uint(y)) | (Uint(y), Int(x)) => *x >= 0 && *x as u64 == *y,
        (Float(x), Float(y)) => x == y,
        (Str(x), Str(y)) => x == y,
        (Struct(x), Struct(y)) => x == y,
        (List(_) | Map(_), _) | (_, List(_) | Map(_)) => {
            return Err(format!(
                "non-comparable type {}: {}",
                a.to_go_string(),
                a.type_name()
            ))
        }
        _ => return Err("incompatible types for comparison".into()),
    })
}

pub fn compare(a: &Value, b: &Value) -> Result<std::cmp::Ordering, String> {
    use std::cmp::Ordering;
    use Value::*;
    Ok(match (a, b) {
        (Int(x), Int(y)) => x.cmp(y),
        (Uint(x), Uint(y)) => x.cmp(y),
        (Int(x), Uint(y)) => {
            if *x < 0 {
                Ordering::Less
            } else {
                (*x as u64).cmp(y)
            }
        }
        (Uint(x), Int(y)) => {
            if *y < 0 {
                Ordering::Greater
            } else {
                x.cmp(&(*y as u64))
            }
        }
        (Float(x), Float(y)) => x.partial_cmp(y).unwrap_or(Ordering::Equal),
        (Str(x), Str(y)) => x.cmp(y),
        (Bool(_) | Nil | Missing | List(_) | Map(_) | Struct(_), _) => {
            return Err("invalid type for comparison".into())
        }
        _ => return Err("incompatible types for comparison".into()),
    })
}

fn index_one(item: &Value, key: &Value) -> Result<Value, String> {
    match item {
        Value::List(l) => {
            let i = match key {
                Value::Int(i) => *i,
                Value::Uint(u) => *u as i64,
                other => {
                    return Err(format!(
                        "cannot index slice/array with type {}",
                        other.type_name()
                    ))
                }
            };
            if i < 0 || i as usize >= l.len() {
                return Err(format!("index out of range: {i}"));
            }
            Ok(l[i as usize].clone())
        }
        Value::Str(s) => {
            let i = match key {
                Value::Int(i) => *i,
                Value::Uint(u) => *u as i64,
                other => {
                    return Err(format!(
                        "cannot index slice/array with type {}",
                        other.type_name()
                    ))
                }
            };
            match s.as_bytes().get(i.max(0) as usize) {
                Some(b) if i >= 0 => Ok(Value::Int(*b as i64)),
                _ => Err(format!("index out of range: {i}")),
            }
        }
        Value::Map(m) => match key {
            Value::Str(k) => Ok(m.get(k).cloned().unwrap_or(Value::Missing)),
            other if other.is_nilish() => Err("value is nil; should be of type string".into()),
            other => Err(format!(
                "value has type {}; should be string",
                other.type_name()
            )),
        },
        Value::Nil | Value::Missing => Err("index of untyped nil".into()),
        other => Err(format!("can't index item of type {}", other.type_name())),
    }
}

fn slice(item: &Value, idx: &[Value]) -> Result<Value, String> {
    if idx.len() > 3 {
        return Err(format!("too many slice indexes: {}", idx.len()));
    }
    let len = match item {
        Value::Str(s) => s.len(),
        Value::List(l) => l.len(),
        Value::Nil | Value::Missing => return Err("slice of untyped nil".into()),
        other => return Err(format!("can't slice item of type {}", other.type_name())),
    };
    let mut ix = Vec::new();
    for v in idx {
        match v {
            Value::Int(i) if *i >= 0 => ix.push(*i as usize),
            Value::Uint(u) => ix.push(*u as usize),
            Value::Int(i) => return Err(format!("index out of range: {i}")),
            other => {
                return Err(format!(
                    "cannot index slice/array with type {}",
                    other.type_name()
                ))
            }
        }
    }
    let from = ix.first().copied().unwrap_or(0);
    let to = ix.get(1).copied().unwrap_or(len);
    if from > to {
        return Err(format!("invalid slice index: {from} > {to}"));
    }
    if to > len {
        return Err(format!("index out of range: {to}"));
    }
    match item {
        Value::Str(s) => {
            if ix.len() == 3 {
                return Err("cannot 3-index slice a string".into());
            }
            Ok(Value::Str(
                String::from_utf8_lossy(&s.as_bytes()[from..to]).into_owned(),
            ))
        }
        Value::List(l) => Ok(Value::list(l[from..to].to_vec())),
        _ => unreachable!("checked above"),
    }
}

/// template.HTMLEscapeString.
pub fn html_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '&' => out.push_str("&amp;"),
            '\'' => out.push_str("&#39;"),
            '"' => out.push_str("&#34;"),
            '\0' => out.push('\u{fffd}'),
            c => out.push(c),
        }
    }
    out
}

/// template.JSEscapeString.
pub fn js_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\'' => out.push_str("\\'"),
            '"' => out.push_str("\\\""),
            '<' => out.push_str("\\u003C"),
            '>' => out.push_str("\\u003E"),
            '&' => out.push_str("\\u0026"),
            '=' => out.push_str("\\u003D"),
            c if (c as u32) < 0x20 || ((c as u32) >= 0x80 && c.is_control()) => {
                out.push_str(&format!("\\u{:04X}", c as u32));
            }
            c => out.push(c),
        }
    }
    out
}

/// url.QueryEscape.
pub fn query_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(b as char)
            }
            b' ' => out.push('+'),
            b => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

/// `path` resolved against the sandbox (relative paths from the task dir), refusing any
/// path outside it (consul-template: "'<path>' is outside of sandbox").
pub fn sandboxed(sandbox: Option<&Path>, path: &str) -> Result<PathBuf, String> {
    let raw = Path::new(path);
    let Some(root) = sandbox else {
        return Ok(raw.to_path_buf());
    };
    let joined = if raw.is_absolute() {
        raw.to_path_buf()
    } else {
        root.join(raw)
    };
    let clean = clean_path(&joined);
    // Resolve symlinks where the file exists, so a link cannot point out of the sandbox.
    let real_root = std::fs::canonicalize(root).unwrap_or_else(|_| root.to_path_buf());
    let resolved = std::fs::canonicalize(&clean).unwrap_or_else(|_| clean.clone());
    let inside =
        resolved.starts_with(&real_root) || (!resolved.exists() && clean.starts_with(root));
    if !inside {
        return Err(format!("'{path}' is outside of sandbox"));
    }
    Ok(resolved)
}

/// filepath.Clean for absolute paths.
pub fn clean_path(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            Component::ParentDir => {
                out.pop();
            }
            Component::CurDir => {}
            other => out.push(other.as_os_str()),
        }
    }
    out
}

fn file(path: &str, ctx: &Context<'_>) -> R {
    if path.is_empty() {
        return Ok(Value::str(""));
    }
    let resolved = sandboxed(ctx.sandbox, path.trim()).map_err(call_err)?;
    let dep = Dependency::File(resolved);
    ctx.used.borrow_mut().insert(dep.clone());
    match ctx.brain.recall(&dep) {
        Some(Data::File(Some(c))) => Ok(Value::Str(c.clone())),
        Some(Data::File(None)) | Some(_) | None => {
            ctx.missing.borrow_mut().insert(dep);
            Ok(Value::str(""))
        }
    }
}

fn service_value(e: &ServiceEntry) -> Value {
    Value::Struct(std::sync::Arc::new(Struct {
        type_name: "*dependency.NomadService",
        fields: vec![
            ("ID", Value::Str(e.id.clone())),
            ("Name", Value::Str(e.name.clone())),
            ("Node", Value::Str(e.node.clone())),
            ("Address", Value::Str(e.address.clone())),
            ("Port", Value::Int(e.port)),
            ("Datacenter", Value::Str(e.datacenter.clone())),
            ("Tags", str_list(e.tags.clone())),
            ("JobID", Value::Str(e.job_id.clone())),
            ("AllocID", Value::Str(e.alloc_id.clone())),
        ],
    }))
}

/// consul-template's `<tag=value>.<name>@<region>` query form.
pub fn parse_service_query(q: &str) -> Result<(String, String, String), String> {
    let invalid = || format!("nomad.service: invalid format: {q:?}");
    let (rest, region) = match q.rsplit_once('@') {
        Some((r, reg)) => (r, reg.to_string()),
        None => (q, String::new()),
    };
    let (tag, name) = match rest.rsplit_once('.') {
        Some((t, n)) => (t.to_string(), n.to_string()),
        None => (String::new(), rest.to_string()),
    };
    let word = |c: char| c.is_alphanumeric() || c == '_' || c == '-';
    if name.is_empty()
        || !name.chars().all(word)
        || !tag.chars().all(|c| word(c) || matches!(c, '=' | ':' | '.'))
        || !region.chars().all(|c| word(c) || c == '.')
        || (q.contains('@') && region.is_empty())
    {
        return Err(invalid());
    }
    Ok((name, tag, region))
}

fn nomad_service(a: &[Value], ctx: &Context<'_>) -> R {
    let (query, choose) = match a.len() {
        1 => (
            s(&a[0]).map_err(|_| call_err("expected string for <service> argument"))?,
            String::new(),
        ),
        3 => {
            let Value::Int(n) = &a[0] else {
                return Err(call_err("expected integer for <count> argument"));
            };
            let key = s(&a[1]).map_err(|_| call_err("expected string for <key> argument"))?;
            let q = s(&a[2]).map_err(|_| call_err("expected string for <service> argument"))?;
            (q, format!("{n}|{key}"))
        }
        _ => {
            return Err(call_err(
                "expected arguments <service> or <count> <key> <service>",
            ))
        }
    };
    let (name, tag, region) = parse_service_query(query).map_err(call_err)?;
    let dep = Dependency::NomadService {
        name,
        tag,
        region,
        choose,
    };
    ctx.used.borrow_mut().insert(dep.clone());
    match ctx.brain.recall(&dep) {
        Some(Data::Services(list)) => Ok(Value::list(list.iter().map(service_value).collect())),
        _ => {
            ctx.missing.borrow_mut().insert(dep);
            Ok(Value::Nil)
        }
    }
}

/// Go's time.Format with a reference-time layout.
pub fn go_time_format(t: &chrono::DateTime<chrono::Utc>, layout: &str) -> String {
    use chrono::{Datelike, Timelike};
    const TOKENS: &[&str] = &[
        "January",
        "Monday",
        "2006",
        "-07:00:00",
        "-07:00",
        "-0700",
        "Z07:00:00",
        "Z07:00",
        "Z0700",
        "Jan",
        "Mon",
        "MST",
        "002",
        "01",
        "02",
        "_2",
        "03",
        "04",
        "05",
        "06",
        "15",
        "-07",
        "Z07",
        "PM",
        "pm",
        "1",
        "2",
        "3",
        "4",
        "5",
    ];
    let mut out = String::new();
    let mut rest = layout;
    'outer: while !rest.is_empty() {
        // Fractional seconds: .000 / .999 (also with comma).
        if let Some(c) = rest.chars().next().filter(|c| *c == '.' || *c == ',') {
            let digits: String = rest[1..]
                .chars()
                .take_while(|d| *d == '0' || *d == '9')
                .collect();
            let next_is_digit = rest[1 + digits.len()..].starts_with(|d: char| d.is_ascii_digit());
            if !digits.is_empty() && !next_is_digit {
                let nanos = format!("{:09}", t.nanosecond() % 1_000_000_000);
                let frac = &nanos[..digits.len().min(9)];
                if digits.starts_with('9') {
                    let trimmed = frac.trim_end_matches('0');
                    if !trimmed.is_empty() {
                        out.push(c);
                        out.push_str(trimmed);
                    }
                } else {
                    out.push(c);
                    out.push_str(frac);
                }
                rest = &rest[1 + digits.len()..];
                continue;
            }
        }
        for tok in TOKENS {
            if let Some(after) = rest.strip_prefix(tok) {
                let v = match *tok {
                    "January" => t.format("%B").to_string(),
                    "Jan" => t.format("%b").to_string(),
                    "Monday" => t.format("%A").to_string(),
                    "Mon" => t.format("%a").to_string(),
                    "MST" => "UTC".to_string(),
                    "2006" => format!("{:04}", t.year()),
                    "06" => format!("{:02}", t.year() % 100),
                    "01" => format!("{:02}", t.month()),
                    "1" => t.month().to_string(),
                    "02" => format!("{:02}", t.day()),
                    "_2" => format!("{:>2}", t.day()),
                    "2" => t.day().to_string(),
                    "002" => format!("{:03}", t.ordinal()),
                    "15" => format!("{:02}", t.hour()),
                    "03" => format!("{:02}", (t.hour() + 11) % 12 + 1),
                    "3" => ((t.hour() + 11) % 12 + 1).to_string(),
                    "04" => format!("{:02}", t.minute()),
                    "4" => t.minute().to_string(),
                    "05" => format!("{:02}", t.second()),
                    "5" => t.second().to_string(),
                    "PM" => if t.hour() >= 12 { "PM" } else { "AM" }.to_string(),
                    "pm" => if t.hour() >= 12 { "pm" } else { "am" }.to_string(),
                    // UTC: the Z forms print Z, numeric forms zero offsets.
                    "Z07:00:00" | "Z07:00" | "Z0700" | "Z07" => "Z".to_string(),
                    "-07:00:00" => "+00:00:00".to_string(),
                    "-07:00" => "+00:00".to_string(),
                    "-0700" => "+0000".to_string(),
                    "-07" => "+00".to_string(),
                    _ => String::new(),
                };
                out.push_str(&v);
                rest = after;
                continue 'outer;
            }
        }
        let c = rest.chars().next().unwrap_or(' ');
        out.push(c);
        rest = &rest[c.len_utf8()..];
    }
    out
}
