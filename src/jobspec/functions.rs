//! The HCL2 function library of Nomad's jobspec (jobspec2/functions.go), with go-cty's
//! stdlib semantics on JSON values. `try` and `can` need unevaluated arguments, so they live
//! in `eval.rs`; everything else is a plain function of evaluated arguments.

use std::path::{Path, PathBuf};

use base64::Engine as _;
use serde_json::{Map, Value};

use super::eval::{as_bool, as_f64, float_value, value_to_string};

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

/// Names of every function, for "did you mean" hints (`try` and `can` included).
pub fn names() -> impl Iterator<Item = &'static str> {
    TABLE.iter().map(|(n, _)| *n).chain(["can", "try"])
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
        "regex",
        spec!(["pattern", "string"], None, |_, a| regex_fn(a, false)),
    ),
    (
        "regexall",
        spec!(["pattern", "string"], None, |_, a| regex_fn(a, true)),
    ),
    (
        "replace",
        spec!(["str", "substr", "replace"], None, |_, a| replace(a)),
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
            let p = resolve(c, &str_arg(a, 0, "path")?);
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
    // uuid
    (
        "uuidv4",
        spec!([], None, |_, _| Ok(s(uuid::Uuid::new_v4().to_string()))),
    ),
];

// ---- argument helpers -------------------------------------------------------------------

fn s(v: String) -> Value {
    Value::String(v)
}

pub(crate) fn arg_err(index: usize, param: &'static str, msg: String) -> FnError {
    FnError::Arg { index, param, msg }
}

/// cty converts primitives to the parameter type; null and collections are rejected.
fn str_arg(a: &[Value], i: usize, param: &'static str) -> Result<String, FnError> {
    match a.get(i) {
        Some(Value::Null) | None => Err(arg_err(i, param, "argument must not be null".into())),
        Some(v) => value_to_string(v).ok_or_else(|| arg_err(i, param, "string required".into())),
    }
}

fn num_arg(a: &[Value], i: usize, param: &'static str) -> Result<f64, FnError> {
    match a.get(i) {
        Some(Value::Null) | None => Err(arg_err(i, param, "argument must not be null".into())),
        Some(v) => as_f64(v).ok_or_else(|| arg_err(i, param, "a number is required".into())),
    }
}

fn int_arg(a: &[Value], i: usize, param: &'static str) -> Result<i64, FnError> {
    let n = num_arg(a, i, param)?;
    if n.fract() != 0.0 {
        return Err(arg_err(i, param, "value must be a whole number".into()));
    }
    Ok(n as i64)
}

fn list_arg(a: &[Value], i: usize, param: &'static str) -> Result<Vec<Value>, FnError> {
    match a.get(i) {
        Some(Value::Array(v)) => Ok(v.clone()),
        Some(Value::Null) | None => Err(arg_err(i, param, "argument must not be null".into())),
        Some(_) => Err(arg_err(i, param, "list of any single type required".into())),
    }
}

fn map_arg(a: &[Value], i: usize, param: &'static str) -> Result<Map<String, Value>, FnError> {
    match a.get(i) {
        Some(Value::Object(m)) => Ok(m.clone()),
        Some(Value::Null) | None => Err(arg_err(i, param, "argument must not be null".into())),
        Some(_) => Err(arg_err(i, param, "map or object required".into())),
    }
}

/// cty map iteration order: lexical by key.
fn sorted_entries(m: Map<String, Value>) -> Vec<(String, Value)> {
    let mut v: Vec<(String, Value)> = m.into_iter().collect();
    v.sort_by(|a, b| a.0.cmp(&b.0));
    v
}

fn eq(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        _ => a == b,
    }
}

// ---- strings ------------------------------------------------------------------------------

fn chomp(st: &str) -> String {
    st.trim_end_matches(['\n', '\r']).to_string()
}

/// Go's strings.Title: upper-case the first letter of each word (words split on non-letters).
fn title(st: &str) -> String {
    let mut out = String::with_capacity(st.len());
    let mut prev_letter = false;
    for c in st.chars() {
        if !prev_letter && c.is_alphanumeric() {
            out.extend(c.to_uppercase());
        } else {
            out.push(c);
        }
        prev_letter = c.is_alphanumeric() || c == '_' || c == '\'';
    }
    out
}

fn indent(a: &[Value]) -> FnResult {
    let n = int_arg(a, 0, "spaces")?.max(0) as usize;
    let st = str_arg(a, 1, "str")?;
    let pad = " ".repeat(n);
    Ok(s(st.replace('\n', &format!("\n{pad}"))))
}

fn join(a: &[Value]) -> FnResult {
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

fn split(a: &[Value]) -> FnResult {
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

fn replace(a: &[Value]) -> FnResult {
    let st = str_arg(a, 0, "str")?;
    let sub = str_arg(a, 1, "substr")?;
    let rep = str_arg(a, 2, "replace")?;
    if sub.len() > 1 && sub.starts_with('/') && sub.ends_with('/') {
        let re = regex::Regex::new(&sub[1..sub.len() - 1])
            .map_err(|e| arg_err(1, "substr", format!("invalid regular expression: {e}")))?;
        return Ok(s(re.replace_all(&st, rep.as_str()).into_owned()));
    }
    Ok(s(st.replace(&sub, &rep)))
}

fn regex_fn(a: &[Value], all: bool) -> FnResult {
    let pat = str_arg(a, 0, "pattern")?;
    let st = str_arg(a, 1, "string")?;
    let re = regex::Regex::new(&pat).map_err(|e| {
        arg_err(
            0,
            "pattern",
            format!("invalid regular expression pattern: {e}"),
        )
    })?;
    let named: Vec<Option<&str>> = re.capture_names().skip(1).collect();
    let shape = |caps: regex::Captures| -> Value {
        let text = |i: usize| {
            s(caps
                .get(i)
                .map(|m| m.as_str().to_string())
                .unwrap_or_default())
        };
        if named.is_empty() {
            text(0)
        } else if named.iter().all(|n| n.is_some()) {
            let mut m = Map::new();
            for (i, n) in named.iter().enumerate() {
                m.insert(n.unwrap_or_default().to_string(), text(i + 1));
            }
            Value::Object(m)
        } else {
            Value::Array((1..=named.len()).map(text).collect())
        }
    };
    if all {
        return Ok(Value::Array(re.captures_iter(&st).map(shape).collect()));
    }
    match re.captures(&st) {
        Some(c) => Ok(shape(c)),
        None => Err(FnError::Call(
            "pattern did not match any part of the given string".into(),
        )),
    }
}

fn substr(a: &[Value]) -> FnResult {
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

// ---- format -------------------------------------------------------------------------------

fn format_fn(a: &[Value]) -> FnResult {
    let f = str_arg(a, 0, "format")?;
    format_str(&f, &a[1..]).map(s).map_err(FnError::Call)
}

/// cty's fmt verbs: %v %#v %t %d %b %o %x %X %e %E %f %g %G %s %q %%, with flags `+-# 0`,
/// width, precision and `[n]` explicit argument indexes.
pub fn format_str(f: &str, args: &[Value]) -> Result<String, String> {
    let mut out = String::new();
    let chars: Vec<char> = f.chars().collect();
    let (mut i, mut next, mut reordered) = (0usize, 0usize, false);
    while i < chars.len() {
        if chars[i] != '%' {
            out.push(chars[i]);
            i += 1;
            continue;
        }
        i += 1;
        let (mut plus, mut minus, mut sharp, mut zero, mut space) =
            (false, false, false, false, false);
        while i < chars.len() && "+-# 0".contains(chars[i]) {
            match chars[i] {
                '+' => plus = true,
                '-' => minus = true,
                '#' => sharp = true,
                '0' => zero = true,
                _ => space = true,
            }
            i += 1;
        }
        if i + 2 < chars.len() && chars[i] == '[' {
            let close = chars[i..].iter().position(|c| *c == ']').map(|p| p + i);
            let Some(close) = close else {
                return Err("unclosed argument index".into());
            };
            let idx: String = chars[i + 1..close].iter().collect();
            next = idx
                .parse::<usize>()
                .map_err(|_| "invalid argument index".to_string())?
                .saturating_sub(1);
            i = close + 1;
            reordered = true;
        }
        let num = |i: &mut usize| -> Option<usize> {
            let st = *i;
            while *i < chars.len() && chars[*i].is_ascii_digit() {
                *i += 1;
            }
            chars[st..*i].iter().collect::<String>().parse().ok()
        };
        let width = num(&mut i);
        let prec = if i < chars.len() && chars[i] == '.' {
            i += 1;
            Some(num(&mut i).unwrap_or(0))
        } else {
            None
        };
        let Some(&verb) = chars.get(i) else {
            return Err("invalid format string: trailing %".into());
        };
        i += 1;
        if verb == '%' {
            out.push('%');
            continue;
        }
        let Some(arg) = args.get(next) else {
            return Err(format!("not enough arguments for %{verb} at {}", i - 1));
        };
        next += 1;
        let num_of = |v: &Value| {
            as_f64(v).ok_or_else(|| {
                format!(
                    "unsupported value for \"%{verb}\" at {}: number required",
                    i - 1
                )
            })
        };
        let mut body = match verb {
            'v' if sharp => serde_json::to_string(arg).map_err(|e| e.to_string())?,
            'v' => match arg {
                Value::Null => "null".into(),
                Value::Array(_) | Value::Object(_) => {
                    serde_json::to_string(arg).map_err(|e| e.to_string())?
                }
                v => value_to_string(v).unwrap_or_default(),
            },
            's' => value_to_string(arg).ok_or_else(|| {
                format!("unsupported value for \"%s\" at {}: string required", i - 1)
            })?,
            'q' => serde_json::to_string(&value_to_string(arg).ok_or("string required")?)
                .map_err(|e| e.to_string())?,
            't' => as_bool(arg)
                .ok_or_else(|| format!("unsupported value for \"%t\" at {}: bool required", i - 1))?
                .to_string(),
            'd' | 'b' | 'o' | 'x' | 'X' => {
                let n = num_of(arg)?;
                if n.fract() != 0.0 {
                    return Err(format!(
                        "unsupported value for \"%{verb}\" at {}: an integer is required",
                        i - 1
                    ));
                }
                let (neg, u) = (n < 0.0, n.abs() as u64);
                let digits = match verb {
                    'b' => format!("{u:b}"),
                    'o' => format!("{u:o}"),
                    'x' => format!("{u:x}"),
                    'X' => format!("{u:X}"),
                    _ => u.to_string(),
                };
                sign(neg, plus, space) + &digits
            }
            'e' | 'E' | 'f' | 'g' | 'G' => {
                let n = num_of(arg)?;
                let p = prec.unwrap_or(6);
                let body = match verb {
                    'f' => format!("{:.p$}", n.abs()),
                    'e' => go_exp(n.abs(), p, 'e'),
                    'E' => go_exp(n.abs(), p, 'E'),
                    _ => float_value(n.abs()).to_string(),
                };
                sign(n < 0.0, plus, space) + &body
            }
            _ => {
                return Err(format!(
                    "unrecognized format character {verb:?} at offset {}",
                    i - 1
                ))
            }
        };
        if let (Some(p), 's' | 'v') = (prec, verb) {
            body = body.chars().take(p).collect();
        }
        let w = width.unwrap_or(0);
        let n = body.chars().count();
        if n < w {
            let pad = w - n;
            if minus {
                body.push_str(&" ".repeat(pad));
            } else if zero && "dbboxXeEfgG".contains(verb) {
                let at = if body.starts_with(['-', '+', ' ']) {
                    1
                } else {
                    0
                };
                body.insert_str(at, &"0".repeat(pad));
            } else {
                body.insert_str(0, &" ".repeat(pad));
            }
        }
        out.push_str(&body);
    }
    // As in Go's fmt, explicit argument indexes switch off the unused-argument check.
    if !reordered && next < args.len() {
        return Err(format!(
            "too many arguments; only {next} used by format string"
        ));
    }
    Ok(out)
}

fn sign(neg: bool, plus: bool, space: bool) -> String {
    if neg {
        "-".into()
    } else if plus {
        "+".into()
    } else if space {
        " ".into()
    } else {
        String::new()
    }
}

/// Go's %e: at least two exponent digits, with a sign.
fn go_exp(n: f64, p: usize, e: char) -> String {
    let r = format!("{n:.p$e}");
    let (mant, exp) = r.split_once('e').unwrap_or((&r, "0"));
    let (es, digits) = match exp.strip_prefix('-') {
        Some(d) => ('-', d),
        None => ('+', exp),
    };
    format!("{mant}{e}{es}{digits:0>2}")
}

fn formatlist(a: &[Value]) -> FnResult {
    let f = str_arg(a, 0, "format")?;
    let mut n: Option<usize> = None;
    for (i, v) in a.iter().enumerate().skip(1) {
        if let Value::Array(items) = v {
            match n {
                Some(m) if m != items.len() => {
                    return Err(arg_err(i, "args", format!("argument {i} has length {}, which is inconsistent with argument 1 of length {m}", items.len())));
                }
                _ => n = Some(items.len()),
            }
        }
    }
    let n = n.unwrap_or(1);
    let mut out = Vec::with_capacity(n);
    for row in 0..n {
        let args: Vec<Value> = a[1..]
            .iter()
            .map(|v| match v {
                Value::Array(items) => items[row].clone(),
                other => other.clone(),
            })
            .collect();
        out.push(s(format_str(&f, &args).map_err(|e| {
            FnError::Call(format!("error on format iteration {row}: {e}"))
        })?));
    }
    Ok(Value::Array(out))
}

// ---- collections --------------------------------------------------------------------------

fn chunklist(a: &[Value]) -> FnResult {
    let list = list_arg(a, 0, "list")?;
    let size = int_arg(a, 1, "size")?;
    if size < 0 {
        return Err(arg_err(
            1,
            "size",
            "the size argument must be positive".into(),
        ));
    }
    if size == 0 {
        return Ok(Value::Array(vec![Value::Array(list)]));
    }
    Ok(Value::Array(
        list.chunks(size as usize)
            .map(|c| Value::Array(c.to_vec()))
            .collect(),
    ))
}

fn coalesce(a: &[Value]) -> FnResult {
    a.iter()
        .find(|v| !matches!(v, Value::Null) && *v != &Value::String(String::new()))
        .cloned()
        .ok_or_else(|| FnError::Call("no non-null, non-empty-string arguments".into()))
}

fn coalescelist(a: &[Value]) -> FnResult {
    for (i, v) in a.iter().enumerate() {
        match v {
            Value::Array(items) if !items.is_empty() => return Ok(v.clone()),
            Value::Array(_) | Value::Null => {}
            _ => return Err(arg_err(i, "vals", "a list or tuple is required".into())),
        }
    }
    Err(FnError::Call("no non-null arguments".into()))
}

fn compact(a: &[Value]) -> FnResult {
    let list = list_arg(a, 0, "list")?;
    Ok(Value::Array(
        list.into_iter()
            .filter(|v| !matches!(v, Value::Null) && *v != Value::String(String::new()))
            .collect(),
    ))
}

fn concat(a: &[Value]) -> FnResult {
    if a.is_empty() {
        return Err(FnError::Call("at least one argument is required".into()));
    }
    let mut out = Vec::new();
    for i in 0..a.len() {
        out.extend(list_arg(a, i, "seqs")?);
    }
    Ok(Value::Array(out))
}

fn distinct(list: Vec<Value>) -> Vec<Value> {
    let mut out: Vec<Value> = Vec::new();
    for v in list {
        if !out.iter().any(|o| eq(o, &v)) {
            out.push(v);
        }
    }
    out
}

fn element(a: &[Value]) -> FnResult {
    let list = list_arg(a, 0, "list")?;
    let idx = int_arg(a, 1, "index")?;
    if list.is_empty() {
        return Err(FnError::Call(
            "cannot use element function with an empty list".into(),
        ));
    }
    if idx < 0 {
        return Err(FnError::Call(
            "cannot use element function with a negative index".into(),
        ));
    }
    Ok(list[idx as usize % list.len()].clone())
}

fn flatten(a: &[Value]) -> FnResult {
    fn walk(v: Vec<Value>, out: &mut Vec<Value>) {
        for x in v {
            match x {
                Value::Array(inner) => walk(inner, out),
                other => out.push(other),
            }
        }
    }
    let mut out = Vec::new();
    walk(list_arg(a, 0, "list")?, &mut out);
    Ok(Value::Array(out))
}

fn length(a: &[Value]) -> FnResult {
    match &a[0] {
        Value::Array(v) => Ok(Value::from(v.len())),
        Value::Object(m) => Ok(Value::from(m.len())),
        Value::Null => Err(arg_err(0, "value", "argument must not be null".into())),
        v => match value_to_string(v) {
            Some(st) => Ok(Value::from(st.chars().count())),
            None => Err(arg_err(
                0,
                "value",
                "collection or tuple type required".into(),
            )),
        },
    }
}

fn lookup_fn(a: &[Value]) -> FnResult {
    if a.len() > 3 {
        return Err(FnError::Call(
            "lookup() takes no more than three arguments".into(),
        ));
    }
    let m = map_arg(a, 0, "inputMap")?;
    let key = str_arg(a, 1, "key")?;
    match (m.get(&key), a.get(2)) {
        (Some(v), _) => Ok(v.clone()),
        (None, Some(d)) => Ok(d.clone()),
        (None, None) => Err(FnError::Call(format!("lookup failed to find key {key:?}"))),
    }
}

fn merge(a: &[Value]) -> FnResult {
    let mut out = Map::new();
    for (i, v) in a.iter().enumerate() {
        match v {
            Value::Null => {}
            Value::Object(m) => out.extend(m.clone()),
            _ => {
                return Err(arg_err(
                    i,
                    "maps",
                    "arguments must be maps or objects".into(),
                ))
            }
        }
    }
    Ok(Value::Object(out))
}

fn range(a: &[Value]) -> FnResult {
    let n: Vec<f64> = (0..a.len())
        .map(|i| num_arg(a, i, "params"))
        .collect::<Result<_, _>>()?;
    let (start, end, step) = match n.as_slice() {
        [e] => (0.0, *e, 1.0),
        [st, e] => (*st, *e, if e >= st { 1.0 } else { -1.0 }),
        [st, e, sp] => (*st, *e, *sp),
        _ => {
            return Err(FnError::Call(
                "must have one, two, or three arguments".into(),
            ))
        }
    };
    if step == 0.0 {
        return Err(FnError::Call("step must not be zero".into()));
    }
    if (step > 0.0 && start > end) || (step < 0.0 && start < end) {
        return Err(FnError::Call(
            "step must be positive when start is less than end, negative otherwise".into(),
        ));
    }
    let mut out = Vec::new();
    let mut x = start;
    while (step > 0.0 && x < end) || (step < 0.0 && x > end) {
        if out.len() >= 1024 {
            return Err(FnError::Call("more than 1024 values were generated; either decrease the difference between start and end or use a smaller step".into()));
        }
        out.push(float_value(x));
        x += step;
    }
    Ok(Value::Array(out))
}

fn setop(a: &[Value], intersect: bool) -> FnResult {
    let mut acc = distinct(list_arg(a, 0, "first_set")?);
    for i in 1..a.len() {
        let other = list_arg(a, i, "other_sets")?;
        if intersect {
            acc.retain(|v| other.iter().any(|o| eq(o, v)));
        } else {
            acc = distinct(acc.into_iter().chain(other).collect());
        }
    }
    Ok(Value::Array(acc))
}

fn slice(a: &[Value]) -> FnResult {
    let list = list_arg(a, 0, "list")?;
    let st = int_arg(a, 1, "start_index")?;
    let en = int_arg(a, 2, "end_index")?;
    if st < 0 {
        return Err(arg_err(
            1,
            "start_index",
            "must be greater than or equal to 0".into(),
        ));
    }
    if en as usize > list.len() || en < 0 {
        return Err(arg_err(
            2,
            "end_index",
            "must be less than or equal to length".into(),
        ));
    }
    if st > en {
        return Err(arg_err(
            1,
            "start_index",
            "must be less than or equal to end_index".into(),
        ));
    }
    Ok(Value::Array(list[st as usize..en as usize].to_vec()))
}

fn sort(a: &[Value]) -> FnResult {
    let list = list_arg(a, 0, "list")?;
    let mut out = Vec::with_capacity(list.len());
    for v in &list {
        out.push(
            value_to_string(v)
                .ok_or_else(|| arg_err(0, "list", "given list element must not be null".into()))?,
        );
    }
    out.sort();
    Ok(Value::Array(out.into_iter().map(s).collect()))
}

fn zipmap(a: &[Value]) -> FnResult {
    let keys = list_arg(a, 0, "keys")?;
    let vals = list_arg(a, 1, "values")?;
    if keys.len() != vals.len() {
        return Err(FnError::Call(format!(
            "number of keys ({}) does not match number of values ({})",
            keys.len(),
            vals.len()
        )));
    }
    let mut m = Map::new();
    for (k, v) in keys.iter().zip(vals) {
        let k =
            value_to_string(k).ok_or_else(|| arg_err(0, "keys", "keys must be strings".into()))?;
        m.insert(k, v);
    }
    Ok(Value::Object(m))
}

// ---- numbers ------------------------------------------------------------------------------

fn minmax(a: &[Value], max: bool) -> FnResult {
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

fn parseint(a: &[Value]) -> FnResult {
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

fn base64decode(a: &[Value]) -> FnResult {
    let st = str_arg(a, 0, "str")?;
    let bytes = base64::engine::general_purpose::STANDARD
        .decode(st.as_bytes())
        .map_err(|_| FnError::Call(format!("failed to decode base64 data {st:?}")))?;
    String::from_utf8(bytes).map(s).map_err(|_| {
        FnError::Call("the result of decoding the provided string is not valid UTF-8".into())
    })
}

/// Go's url.QueryEscape: spaces become `+`, everything but unreserved bytes is %XX.
fn urlencode(st: &str) -> String {
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

fn resolve(c: &FnContext, p: &str) -> PathBuf {
    let p = PathBuf::from(pathexpand(p));
    if p.is_absolute() {
        p
    } else {
        c.base_dir.join(p)
    }
}

fn read_file(c: &FnContext, p: &str) -> Result<Vec<u8>, FnError> {
    let path = resolve(c, p);
    std::fs::read(&path).map_err(|e| {
        if e.kind() == std::io::ErrorKind::NotFound {
            arg_err(0, "path", format!("no file exists at {}; this function works only with files that are distributed as part of the configuration source code, so if this file will be created by a resource in this configuration you must instead obtain this result from an attribute of that resource", path.display()))
        } else {
            arg_err(0, "path", format!("failed to read {}", path.display()))
        }
    })
}

fn abspath(a: &[Value]) -> FnResult {
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
fn clean(p: &Path) -> String {
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

fn basename(p: &str) -> String {
    let t = p.trim_end_matches('/');
    if p.is_empty() {
        return ".".into();
    }
    if t.is_empty() {
        return "/".into();
    }
    t.rsplit('/').next().unwrap_or(t).to_string()
}

fn dirname(p: &str) -> String {
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

fn pathexpand(p: &str) -> String {
    if p == "~" || p.starts_with("~/") {
        if let Ok(home) = std::env::var("HOME") {
            return format!("{home}{}", &p[1..]);
        }
    }
    p.to_string()
}

#[cfg(test)]
#[path = "functions_tests.rs"]
mod tests;
