//! The HCL2 function library of Nomad's jobspec (jobspec2/functions.go), with go-cty's
//! stdlib semantics on JSON values. `try` and `can` need unevaluated arguments, so they live
//! in `eval.rs`; everything else is a plain function of evaluated arguments.

use std::path::PathBuf;

use base64::Engine as _;
use serde_json::{Map, Value};

use super::eval::{as_f64, float_value, value_to_string};

mod call;
mod collections;
mod crypto;
mod datetime;
mod format;
mod hash;
mod misc;
mod network;
mod text;
pub(crate) mod yaml;

use collections::*;
use crypto::*;
use datetime::*;
use format::*;
use hash::*;
use misc::*;
use network::*;
use text::*;
use yaml::*;

/// Why a call failed; `eval.rs` turns it into a positioned diagnostic.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum FnError {
    /// Wrong type or value of one argument (index into the call's arguments).
    #[error("Invalid value for \"{param}\" parameter: {msg}.")]
    Arg {
        index: usize,
        param: &'static str,
        msg: String,
    },
    #[error("Call to function failed: {0}.")]
    Call(String),
}

/// Where the function library may look: relative paths resolve against the job file's dir.
pub struct FnContext {
    pub base_dir: PathBuf,
    /// False for job text that came over the API: filesystem functions then fail.
    pub allow_fs: bool,
}

type FnResult = Result<Value, FnError>;
type Impl = fn(&FnContext, &[Value]) -> FnResult;

/// One function: its parameter names, the variadic parameter if any, and the body.
pub struct Spec {
    pub params: &'static [&'static str],
    pub variadic: Option<&'static str>,
    body: Impl,
}

macro_rules! spec {
    ([$($p:literal),*], $v:expr, $f:expr) => {
        Spec { params: &[$($p),*], variadic: $v, body: $f }
    };
}

/// Names of every function, for "did you mean" hints (`try`, `can` and `convert`, which
/// `call.rs` evaluates itself, included).
pub fn names() -> impl Iterator<Item = &'static str> {
    TABLE
        .iter()
        .map(|(n, _)| *n)
        .chain(["can", "convert", "try"])
}

pub fn lookup(name: &str) -> Option<&'static Spec> {
    TABLE.iter().find(|(n, _)| *n == name).map(|(_, s)| s)
}

impl Spec {
    pub fn call(&self, ctx: &FnContext, args: &[Value]) -> FnResult {
        (self.body)(ctx, args)
    }
}

static TABLE: &[(&str, Spec)] = &[
    // strings
    (
        "chomp",
        spec!(["str"], None, |_, a| Ok(s(chomp(&str_arg(a, 0, "str")?)))),
    ),
    (
        "format",
        spec!(["format"], Some("args"), |_, a| format_fn(a)),
    ),
    (
        "formatlist",
        spec!(["format"], Some("args"), |_, a| formatlist(a)),
    ),
    ("indent", spec!(["spaces", "str"], None, |_, a| indent(a))),
    ("join", spec!(["separator"], Some("lists"), |_, a| join(a))),
    (
        "lower",
        spec!(["str"], None, |_, a| Ok(s(
            str_arg(a, 0, "str")?.to_lowercase()
        ))),
    ),
    (
        "upper",
        spec!(["str"], None, |_, a| Ok(s(
            str_arg(a, 0, "str")?.to_uppercase()
        ))),
    ),
    (
        "title",
        spec!(["str"], None, |_, a| Ok(s(title(&str_arg(a, 0, "str")?)))),
    ),
    (
        "replace",
        spec!(["str", "substr", "replace"], None, |_, a| replace(a)),
    ),
    (
        "regex_replace",
        spec!(["str", "substr", "replace"], None, |_, a| regex_replace(a)),
    ),
    ("split", spec!(["separator", "str"], None, |_, a| split(a))),
    (
        "strlen",
        spec!(["str"], None, |_, a| Ok(Value::from(
            str_arg(a, 0, "str")?.chars().count()
        ))),
    ),
    (
        "strrev",
        spec!(["str"], None, |_, a| Ok(s(str_arg(a, 0, "str")?
            .chars()
            .rev()
            .collect()))),
    ),
    (
        "substr",
        spec!(["str", "offset", "length"], None, |_, a| substr(a)),
    ),
    (
        "trim",
        spec!(["str", "cutset"], None, |_, a| {
            let cut: Vec<char> = str_arg(a, 1, "cutset")?.chars().collect();
            Ok(s(str_arg(a, 0, "str")?
                .trim_matches(|c| cut.contains(&c))
                .to_string()))
        }),
    ),
    (
        "trimprefix",
        spec!(["str", "prefix"], None, |_, a| {
            let (st, p) = (str_arg(a, 0, "str")?, str_arg(a, 1, "prefix")?);
            Ok(s(st.strip_prefix(p.as_str()).unwrap_or(&st).to_string()))
        }),
    ),
    (
        "trimsuffix",
        spec!(["str", "suffix"], None, |_, a| {
            let (st, p) = (str_arg(a, 0, "str")?, str_arg(a, 1, "suffix")?);
            Ok(s(st.strip_suffix(p.as_str()).unwrap_or(&st).to_string()))
        }),
    ),
    (
        "trimspace",
        spec!(["str"], None, |_, a| Ok(s(str_arg(a, 0, "str")?
            .trim()
            .to_string()))),
    ),
    // collections
    (
        "chunklist",
        spec!(["list", "size"], None, |_, a| chunklist(a)),
    ),
    ("coalesce", spec!([], Some("vals"), |_, a| coalesce(a))),
    (
        "coalescelist",
        spec!([], Some("vals"), |_, a| coalescelist(a)),
    ),
    ("compact", spec!(["list"], None, |_, a| compact(a))),
    ("concat", spec!([], Some("seqs"), |_, a| concat(a))),
    (
        "contains",
        spec!(["list", "value"], None, |_, a| {
            Ok(Value::Bool(
                list_arg(a, 0, "list")?.iter().any(|v| eq(v, &a[1])),
            ))
        }),
    ),
    (
        "distinct",
        spec!(["list"], None, |_, a| Ok(Value::Array(distinct(list_arg(
            a, 0, "list"
        )?)))),
    ),
    ("element", spec!(["list", "index"], None, |_, a| element(a))),
    ("flatten", spec!(["list"], None, |_, a| flatten(a))),
    (
        "index",
        spec!(["list", "value"], None, |_, a| {
            match list_arg(a, 0, "list")?.iter().position(|v| eq(v, &a[1])) {
                Some(i) => Ok(Value::from(i)),
                None => Err(FnError::Call("item not found".into())),
            }
        }),
    ),
    (
        "keys",
        spec!(["inputMap"], None, |_, a| {
            Ok(Value::Array(
                sorted_entries(map_arg(a, 0, "inputMap")?)
                    .into_iter()
                    .map(|(k, _)| s(k))
                    .collect(),
            ))
        }),
    ),
    (
        "values",
        spec!(["mapping"], None, |_, a| {
            Ok(Value::Array(
                sorted_entries(map_arg(a, 0, "mapping")?)
                    .into_iter()
                    .map(|(_, v)| v)
                    .collect(),
            ))
        }),
    ),
    ("length", spec!(["value"], None, |_, a| length(a))),
    (
        "lookup",
        spec!(["inputMap", "key"], Some("default"), |_, a| lookup_fn(a)),
    ),
    ("merge", spec!([], Some("maps"), |_, a| merge(a))),
    ("range", spec!([], Some("params"), |_, a| range(a))),
    (
        "reverse",
        spec!(["list"], None, |_, a| {
            Ok(Value::Array(
                list_arg(a, 0, "list")?.into_iter().rev().collect(),
            ))
        }),
    ),
    (
        "setintersection",
        spec!(["first_set"], Some("other_sets"), |_, a| setop(a, true)),
    ),
    (
        "setunion",
        spec!(["first_set"], Some("other_sets"), |_, a| setop(a, false)),
    ),
    (
        "slice",
        spec!(["list", "start_index", "end_index"], None, |_, a| slice(a)),
    ),
    ("sort", spec!(["list"], None, |_, a| sort(a))),
    ("zipmap", spec!(["keys", "values"], None, |_, a| zipmap(a))),
    // numbers
    (
        "abs",
        spec!(["num"], None, |_, a| Ok(float_value(
            num_arg(a, 0, "num")?.abs()
        ))),
    ),
    (
        "ceil",
        spec!(["num"], None, |_, a| Ok(float_value(
            num_arg(a, 0, "num")?.ceil()
        ))),
    ),
    (
        "floor",
        spec!(["num"], None, |_, a| Ok(float_value(
            num_arg(a, 0, "num")?.floor()
        ))),
    ),
    (
        "log",
        spec!(["num", "base"], None, |_, a| {
            Ok(float_value(
                num_arg(a, 0, "num")?.log(num_arg(a, 1, "base")?),
            ))
        }),
    ),
    ("max", spec!([], Some("numbers"), |_, a| minmax(a, true))),
    ("min", spec!([], Some("numbers"), |_, a| minmax(a, false))),
    (
        "parseint",
        spec!(["number", "base"], None, |_, a| parseint(a)),
    ),
    (
        "pow",
        spec!(["num", "power"], None, |_, a| {
            Ok(float_value(
                num_arg(a, 0, "num")?.powf(num_arg(a, 1, "power")?),
            ))
        }),
    ),
    (
        "signum",
        spec!(["num"], None, |_, a| {
            let n = num_arg(a, 0, "num")?;
            Ok(Value::from(if n > 0.0 {
                1
            } else if n < 0.0 {
                -1
            } else {
                0
            }))
        }),
    ),
    // encoding
    ("base64decode", spec!(["str"], None, |_, a| base64decode(a))),
    (
        "base64encode",
        spec!(["str"], None, |_, a| {
            Ok(s(
                base64::engine::general_purpose::STANDARD.encode(str_arg(a, 0, "str")?)
            ))
        }),
    ),
    (
        "jsondecode",
        spec!(["str"], None, |_, a| {
            serde_json::from_str(&str_arg(a, 0, "str")?)
                .map_err(|e| arg_err(0, "str", e.to_string()))
        }),
    ),
    (
        "jsonencode",
        spec!(["val"], None, |_, a| {
            serde_json::to_string(&a[0])
                .map(s)
                .map_err(|e| FnError::Call(e.to_string()))
        }),
    ),
    ("yamldecode", spec!(["src"], None, |_, a| yamldecode(a))),
    ("yamlencode", spec!(["value"], None, |_, a| yamlencode(a))),
    (
        "urlencode",
        spec!(["str"], None, |_, a| Ok(s(urlencode(&str_arg(
            a, 0, "str"
        )?)))),
    ),
    // filesystem
    ("abspath", spec!(["path"], None, |_, a| abspath(a))),
    (
        "basename",
        spec!(["path"], None, |_, a| Ok(s(basename(&str_arg(
            a, 0, "path"
        )?)))),
    ),
    (
        "dirname",
        spec!(["path"], None, |_, a| Ok(s(dirname(&str_arg(
            a, 0, "path"
        )?)))),
    ),
    (
        "file",
        spec!(["path"], None, |c, a| {
            let bytes = read_file(c, &str_arg(a, 0, "path")?)?;
            String::from_utf8(bytes).map(s).map_err(|_| {
            arg_err(0, "path", "contents of file are not valid UTF-8; use the filebase64 function to obtain the Base64 encoded contents or the other file functions (e.g. filemd5, filesha256) to obtain file hashing results instead".into())
        })
        }),
    ),
    (
        "filebase64",
        spec!(["path"], None, |c, a| {
            let bytes = read_file(c, &str_arg(a, 0, "path")?)?;
            Ok(s(base64::engine::general_purpose::STANDARD.encode(bytes)))
        }),
    ),
    (
        "fileexists",
        spec!(["path"], None, |c, a| {
            let p = resolve(c, &str_arg(a, 0, "path")?)?;
            match std::fs::metadata(&p) {
                Ok(m) if m.is_file() => Ok(Value::Bool(true)),
                Ok(_) => Err(FnError::Call(format!(
                    "{} is not a regular file, but {}",
                    p.display(),
                    "a directory"
                ))),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(Value::Bool(false)),
                Err(e) => Err(FnError::Call(format!(
                    "failed to stat {}: {e}",
                    p.display()
                ))),
            }
        }),
    ),
    (
        "pathexpand",
        spec!(["path"], None, |_, a| Ok(s(pathexpand(&str_arg(
            a, 0, "path"
        )?)))),
    ),
    (
        "uuidv5",
        spec!(["namespace", "name"], None, |_, a| uuidv5(a)),
    ),
    ("csvdecode", spec!(["str"], None, |_, a| csvdecode(a))),
    ("setproduct", spec!([], Some("sets"), |_, a| setproduct(a))),
    // network
    (
        "cidrhost",
        spec!(["prefix", "hostnum"], None, |_, a| cidrhost(a)),
    ),
    (
        "cidrnetmask",
        spec!(["prefix"], None, |_, a| cidrnetmask(a)),
    ),
    (
        "cidrsubnet",
        spec!(["prefix", "newbits", "netnum"], None, |_, a| cidrsubnet(a)),
    ),
    (
        "cidrsubnets",
        spec!(["prefix"], Some("newbits"), |_, a| cidrsubnets(a)),
    ),
    ("fileset", spec!(["path", "pattern"], None, fileset)),
    // crypto
    ("bcrypt", spec!(["str"], Some("cost"), |_, a| bcrypt_fn(a))),
    ("md5", spec!(["str"], None, |_, a| md5_fn(a))),
    (
        "rsadecrypt",
        spec!(["ciphertext", "privatekey"], None, |_, a| rsadecrypt(a)),
    ),
    (
        "sha1",
        spec!(["str"], None, |_, a| hash(
            a,
            &aws_lc_rs::digest::SHA1_FOR_LEGACY_USE_ONLY
        )),
    ),
    (
        "sha256",
        spec!(["str"], None, |_, a| hash(a, &aws_lc_rs::digest::SHA256)),
    ),
    (
        "sha512",
        spec!(["str"], None, |_, a| hash(a, &aws_lc_rs::digest::SHA512)),
    ),
    // datetime
    (
        "formatdate",
        spec!(["format", "time"], None, |_, a| formatdate(a)),
    ),
    (
        "timeadd",
        spec!(["timestamp", "duration"], None, |_, a| timeadd(a)),
    ),
    // uuid
    (
        "uuidv4",
        spec!([], None, |_, _| Ok(s(uuid::Uuid::new_v4().to_string()))),
    ),
];

// ---- argument helpers -------------------------------------------------------------------

pub(super) fn s(v: String) -> Value {
    Value::String(v)
}

pub(crate) fn arg_err(index: usize, param: &'static str, msg: String) -> FnError {
    FnError::Arg { index, param, msg }
}

/// cty converts primitives to the parameter type; null and collections are rejected.
pub(super) fn str_arg(a: &[Value], i: usize, param: &'static str) -> Result<String, FnError> {
    match a.get(i) {
        Some(Value::Null) | None => Err(arg_err(i, param, "argument must not be null".into())),
        Some(v) => value_to_string(v).ok_or_else(|| arg_err(i, param, "string required".into())),
    }
}

pub(super) fn num_arg(a: &[Value], i: usize, param: &'static str) -> Result<f64, FnError> {
    match a.get(i) {
        Some(Value::Null) | None => Err(arg_err(i, param, "argument must not be null".into())),
        Some(v) => as_f64(v).ok_or_else(|| arg_err(i, param, "a number is required".into())),
    }
}

pub(super) fn int_arg(a: &[Value], i: usize, param: &'static str) -> Result<i64, FnError> {
    let n = num_arg(a, i, param)?;
    if n.fract() != 0.0 {
        return Err(arg_err(i, param, "value must be a whole number".into()));
    }
    Ok(n as i64)
}

pub(super) fn list_arg(a: &[Value], i: usize, param: &'static str) -> Result<Vec<Value>, FnError> {
    match a.get(i) {
        Some(Value::Array(v)) => Ok(v.clone()),
        Some(Value::Null) | None => Err(arg_err(i, param, "argument must not be null".into())),
        Some(_) => Err(arg_err(i, param, "list of any single type required".into())),
    }
}

pub(super) fn map_arg(
    a: &[Value],
    i: usize,
    param: &'static str,
) -> Result<Map<String, Value>, FnError> {
    match a.get(i) {
        Some(Value::Object(m)) => Ok(m.clone()),
        Some(Value::Null) | None => Err(arg_err(i, param, "argument must not be null".into())),
        Some(_) => Err(arg_err(i, param, "map or object required".into())),
    }
}

/// cty map iteration order: lexical by key.
pub(super) fn sorted_entries(m: Map<String, Value>) -> Vec<(String, Value)> {
    let mut v: Vec<(String, Value)> = m.into_iter().collect();
    v.sort_by(|a, b| a.0.cmp(&b.0));
    v
}

pub(super) fn eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        _ => a == b,
    }
}

#[cfg(test)]
mod tests;
