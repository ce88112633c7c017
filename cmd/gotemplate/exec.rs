//! Executing a parsed template over a `serde_json::Value`, with Go's builtin functions (the
//! `sprig_` ones are in `sprig.rs`).
//!
//! Values behave like Go's `map[string]interface{}` decoded from the same JSON, except that
//! integers stay integers (Nomad's typed structs print `42`, not `4.2e+01`): a missing key is
//! `<no value>` and further fields of it are too; a field of JSON `null` is Go's nil-pointer
//! error; a field of a string or number is "can't evaluate field".

use serde_json::{Number, Value};

use super::parse::{Arg, Branch, Cmd, Node, Pipe};
use super::sprig::{sprig, SPRIG};

/// A value during execution; `None` is Go's invalid value (a missing map key).
pub(super) type V = Option<Value>;

const BUILTINS: &[&str] = &[
    "and", "or", "not", "len", "index", "slice", "print", "printf", "println", "eq", "ne", "lt",
    "le", "gt", "ge", "html", "js", "urlquery",
];

/// Whether `name` is a function templates may call.
pub fn is_function(name: &str) -> bool {
    BUILTINS.contains(&name)
        || name
            .strip_prefix("sprig_")
            .is_some_and(|n| SPRIG.contains(&n))
}

/// An execution failure; `Located` already carries Go's `template: :L:C: executing ...` text.
#[derive(Debug)]
pub(super) enum Fail {
    Plain(String),
    Located(String),
}

impl From<String> for Fail {
    fn from(s: String) -> Self {
        Fail::Plain(s)
    }
}

enum Flow {
    Normal,
    Break,
    Continue,
}

struct Exec<'a> {
    src: &'a str,
    out: String,
    vars: Vec<(String, Value)>,
}

pub fn execute(src: &str, nodes: &[Node], data: &Value) -> Result<String, String> {
    let mut st = Exec {
        src,
        out: String::new(),
        vars: vec![(String::new(), data.clone())],
    };
    match st.walk(data, nodes) {
        Ok(_) => Ok(st.out),
        Err(Fail::Plain(m)) | Err(Fail::Located(m)) => Err(m),
    }
}

impl Exec<'_> {
    fn locate(&self, pos: usize, context: &str, msg: &str) -> Fail {
        let before = &self.src[..pos.min(self.src.len())];
        let line = 1 + before.matches('\n').count();
        let col = match before.rfind('\n') {
            Some(nl) => pos - (nl + 1),
            None => pos,
        };
        Fail::Located(format!(
            "template: :{line}:{col}: executing \"\" at <{context}>: {msg}"
        ))
    }

    fn walk(&mut self, dot: &Value, nodes: &[Node]) -> Result<Flow, Fail> {
        for node in nodes {
            match node {
                Node::Text(t) => self.out.push_str(t),
                Node::Action(p) => {
                    let v = self.pipe(dot, p)?;
                    if p.decl.is_empty() {
                        self.out.push_str(&print_value(&v));
                    }
                }
                Node::If(b) | Node::With(b) => {
                    let scope = self.vars.len();
                    let v = self.pipe(dot, &b.pipe)?;
                    let flow = if truth(&v) {
                        let inner = match node {
                            Node::With(_) => v.unwrap_or(Value::Null),
                            _ => dot.clone(),
                        };
                        self.walk(&inner, &b.list)?
                    } else {
                        self.walk(dot, &b.else_list)?
                    };
                    self.vars.truncate(scope);
                    if !matches!(flow, Flow::Normal) {
                        return Ok(flow);
                    }
                }
                Node::Range(b) => self.range(dot, b)?,
                Node::Break => return Ok(Flow::Break),
                Node::Continue => return Ok(Flow::Continue),
            }
        }
        Ok(Flow::Normal)
    }

    fn range(&mut self, dot: &Value, b: &Branch) -> Result<(), Fail> {
        let scope = self.vars.len();
        let mut p = b.pipe.clone();
        let decl = std::mem::take(&mut p.decl);
        let v = self.pipe(dot, &p)?;
        let items: Vec<(Value, Value)> = match v {
            None | Some(Value::Null) => Vec::new(),
            Some(Value::Array(a)) => a
                .into_iter()
                .enumerate()
                .map(|(i, e)| (Value::from(i), e))
                .collect(),
            Some(Value::Object(m)) => {
                let mut kv: Vec<(String, Value)> = m.into_iter().collect();
                kv.sort_by(|a, b| a.0.cmp(&b.0));
                kv.into_iter().map(|(k, e)| (Value::String(k), e)).collect()
            }
            Some(Value::Number(n)) if n.as_i64().is_some() => {
                let count = n.as_i64().unwrap_or(0).max(0);
                (0..count)
                    .map(|i| (Value::from(i), Value::from(i)))
                    .collect()
            }
            Some(other) => {
                return Err(self.locate(
                    p.pos,
                    &pipe_text(&p),
                    &format!("range can't iterate over {}", print_value(&Some(other))),
                ))
            }
        };
        if items.is_empty() {
            self.walk(dot, &b.else_list)?;
            self.vars.truncate(scope);
            return Ok(());
        }
        for (k, e) in items {
            match decl.as_slice() {
                [one] => self.set_var(one, e.clone(), b.pipe.assign),
                [key, elem] => {
                    self.set_var(key, k, b.pipe.assign);
                    self.set_var(elem, e.clone(), b.pipe.assign);
                }
                _ => {}
            }
            let flow = self.walk(&e, &b.list)?;
            if matches!(flow, Flow::Break) {
                break;
            }
        }
        self.vars.truncate(scope);
        Ok(())
    }

    fn set_var(&mut self, name: &str, v: Value, assign: bool) {
        if assign {
            if let Some(slot) = self.vars.iter_mut().rev().find(|(n, _)| n == name) {
                slot.1 = v;
                return;
            }
        }
        self.vars.push((name.to_string(), v));
    }

    fn pipe(&mut self, dot: &Value, p: &Pipe) -> Result<V, Fail> {
        let mut last: Option<V> = None;
        for cmd in &p.cmds {
            last = Some(self.cmd(dot, cmd, last)?);
        }
        let v = last.unwrap_or(None);
        if let Some(name) = p.decl.first() {
            self.set_var(name, v.clone().unwrap_or(Value::Null), p.assign);
        }
        Ok(v)
    }

    fn cmd(&mut self, dot: &Value, cmd: &Cmd, piped: Option<V>) -> Result<V, Fail> {
        let context = cmd_text(cmd);
        let Some(first) = cmd.args.first() else {
            return Err(self.locate(cmd.pos, &context, "missing value for command"));
        };
        if let Arg::Func(name) = first {
            let mut args = Vec::with_capacity(cmd.args.len());
            for a in &cmd.args[1..] {
                args.push(self.arg(dot, a, cmd.pos)?);
            }
            if let Some(p) = piped {
                args.push(p);
            }
            return call(name, &args).map_err(|m| match m {
                Fail::Plain(m) => {
                    self.locate(cmd.pos, &context, &format!("error calling {name}: {m}"))
                }
                located => located,
            });
        }
        if cmd.args.len() > 1 || piped.is_some() {
            return Err(self.locate(
                cmd.pos,
                &context,
                &format!("can't give argument to non-function {}", arg_text(first)),
            ));
        }
        self.arg(dot, first, cmd.pos)
    }

    fn arg(&mut self, dot: &Value, a: &Arg, pos: usize) -> Result<V, Fail> {
        let (base, chain): (V, &[String]) = match a {
            Arg::Dot => (Some(dot.clone()), &[]),
            Arg::Field(chain) => (Some(dot.clone()), chain),
            Arg::Var(name, chain) => {
                let v = self
                    .vars
                    .iter()
                    .rev()
                    .find(|(n, _)| n == name)
                    .map(|(_, v)| v.clone());
                (v, chain)
            }
            Arg::Sub(p, chain) => (self.pipe(dot, p)?, chain),
            Arg::Func(name) => {
                let v = call(name, &[]).map_err(|m| match m {
                    Fail::Plain(m) => self.locate(pos, name, &format!("error calling {name}: {m}")),
                    located => located,
                })?;
                (v, &[])
            }
            Arg::Str(s) => (Some(Value::String(s.clone())), &[]),
            Arg::Num(n) => (Some(Value::Number(n.clone())), &[]),
            Arg::Bool(b) => (Some(Value::Bool(*b)), &[]),
            Arg::Nil => (Some(Value::Null), &[]),
        };
        let mut v = base;
        for f in chain {
            v = match v {
                None => None,
                Some(Value::Object(m)) => m.get(f).cloned(),
                Some(Value::Null) => {
                    return Err(self.locate(
                        pos,
                        &arg_text(a),
                        &format!("nil pointer evaluating interface {{}}.{f}"),
                    ))
                }
                Some(other) => {
                    return Err(self.locate(
                        pos,
                        &arg_text(a),
                        &format!(
                            "can't evaluate field {f} in type {}",
                            type_name(&Some(other))
                        ),
                    ))
                }
            };
        }
        Ok(v)
    }
}

fn arg_text(a: &Arg) -> String {
    let fields = |c: &[String]| c.iter().map(|f| format!(".{f}")).collect::<String>();
    match a {
        Arg::Dot => ".".to_string(),
        Arg::Field(c) => fields(c),
        Arg::Var(n, c) => format!("${n}{}", fields(c)),
        Arg::Sub(p, c) => format!("({}){}", pipe_text(p), fields(c)),
        Arg::Func(n) => n.clone(),
        Arg::Str(s) => format!("{s:?}"),
        Arg::Num(n) => n.to_string(),
        Arg::Bool(b) => b.to_string(),
        Arg::Nil => "nil".to_string(),
    }
}

fn cmd_text(c: &Cmd) -> String {
    c.args.iter().map(arg_text).collect::<Vec<_>>().join(" ")
}

fn pipe_text(p: &Pipe) -> String {
    p.cmds.iter().map(cmd_text).collect::<Vec<_>>().join(" | ")
}

/// Go's `truth`: false, 0, "", empty collections, nil and missing values are false.
pub fn truth(v: &V) -> bool {
    match v {
        None | Some(Value::Null) => false,
        Some(Value::Bool(b)) => *b,
        Some(Value::Number(n)) => n.as_f64().is_some_and(|f| f != 0.0),
        Some(Value::String(s)) => !s.is_empty(),
        Some(Value::Array(a)) => !a.is_empty(),
        Some(Value::Object(m)) => !m.is_empty(),
    }
}

fn type_name(v: &V) -> &'static str {
    match v {
        None => "<nil>",
        Some(Value::Null) => "interface {}",
        Some(Value::Bool(_)) => "bool",
        Some(Value::Number(n)) if n.is_f64() => "float64",
        Some(Value::Number(_)) => "int",
        Some(Value::String(_)) => "string",
        Some(Value::Array(_)) => "[]interface {}",
        Some(Value::Object(_)) => "map[string]interface {}",
    }
}

/// Go's `%g`-like shortest float text (`0.5`, `1e+21`).
fn float_text(f: f64) -> String {
    if f.is_finite() && f.fract() == 0.0 && f.abs() < 1e21 {
        return format!("{f}");
    }
    if f.abs() >= 1e21 || (f != 0.0 && f.abs() < 1e-4) {
        let s = format!("{f:e}");
        // Rust prints `1e21`; Go prints `1e+21`.
        return match s.split_once('e') {
            Some((m, e)) if !e.starts_with('-') => format!("{m}e+{e:0>2}"),
            Some((m, e)) => format!("{m}e-{:0>2}", &e[1..]),
            None => s,
        };
    }
    format!("{f}")
}

fn number_text(n: &Number) -> String {
    if n.is_f64() {
        float_text(n.as_f64().unwrap_or(0.0))
    } else {
        n.to_string()
    }
}

/// How Go's template prints a value (`fmt.Sprint` over `interface{}` JSON values).
pub fn print_value(v: &V) -> String {
    match v {
        None => "<no value>".to_string(),
        Some(v) => print_json(v),
    }
}

pub fn print_json(v: &Value) -> String {
    match v {
        Value::Null => "<nil>".to_string(),
        Value::Bool(b) => b.to_string(),
        Value::Number(n) => number_text(n),
        Value::String(s) => s.clone(),
        Value::Array(a) => format!(
            "[{}]",
            a.iter().map(print_json).collect::<Vec<_>>().join(" ")
        ),
        Value::Object(m) => {
            let mut kv: Vec<_> = m.iter().collect();
            kv.sort_by(|a, b| a.0.cmp(b.0));
            let parts: Vec<String> = kv
                .into_iter()
                .map(|(k, v)| format!("{k}:{}", print_json(v)))
                .collect();
            format!("map[{}]", parts.join(" "))
        }
    }
}

pub(super) fn want_args(name: &str, args: &[V], n: usize) -> Result<(), Fail> {
    if args.len() == n {
        Ok(())
    } else {
        Err(Fail::Located(format!(
            "template: :1: wrong number of args for {name}: want {n} got {}",
            args.len()
        )))
    }
}

pub(super) fn str_arg(v: &V) -> String {
    match v {
        Some(Value::String(s)) => s.clone(),
        other => print_value(other),
    }
}

pub(super) fn int_arg(v: &V) -> Result<i64, Fail> {
    match v {
        Some(Value::Number(n)) => n
            .as_i64()
            .or_else(|| n.as_f64().map(|f| f as i64))
            .ok_or_else(|| {
                Fail::Plain(format!(
                    "cannot index slice/array with type {}",
                    type_name(v)
                ))
            }),
        _ => Err(Fail::Plain(format!(
            "cannot index slice/array with type {}",
            type_name(v)
        ))),
    }
}

fn call(name: &str, args: &[V]) -> Result<V, Fail> {
    if let Some(s) = name.strip_prefix("sprig_") {
        return sprig(s, args);
    }
    match name {
        "and" => {
            if args.is_empty() {
                return want_args(name, args, 1).map(|_| None);
            }
            for a in args {
                if !truth(a) {
                    return Ok(a.clone());
                }
            }
            Ok(args.last().cloned().unwrap_or(None))
        }
        "or" => {
            if args.is_empty() {
                return want_args(name, args, 1).map(|_| None);
            }
            for a in args {
                if truth(a) {
                    return Ok(a.clone());
                }
            }
            Ok(args.last().cloned().unwrap_or(None))
        }
        "not" => {
            want_args(name, args, 1)?;
            Ok(Some(Value::Bool(!truth(&args[0]))))
        }
        "len" => {
            want_args(name, args, 1)?;
            let n = match &args[0] {
                Some(Value::String(s)) => s.len(),
                Some(Value::Array(a)) => a.len(),
                Some(Value::Object(m)) => m.len(),
                other => return Err(Fail::Plain(format!("len of type {}", type_name(other)))),
            };
            Ok(Some(Value::from(n)))
        }
        "index" => {
            let Some((item, idx)) = args.split_first() else {
                return want_args(name, args, 1).map(|_| None);
            };
            let mut v = item.clone();
            for i in idx {
                v = match (&v, i) {
                    (Some(Value::Array(a)), i) => {
                        let n = int_arg(i)?;
                        match usize::try_from(n).ok().and_then(|k| a.get(k)) {
                            Some(e) => Some(e.clone()),
                            None => return Err(Fail::Plain(format!("index out of range: {n}"))),
                        }
                    }
                    (Some(Value::Object(m)), Some(Value::String(k))) => m.get(k).cloned(),
                    (Some(Value::Object(_)), other) => {
                        return Err(Fail::Plain(format!(
                            "value has type {}; should be string",
                            type_name(other)
                        )))
                    }
                    (None | Some(Value::Null), _) => {
                        return Err(Fail::Plain("index of untyped nil".to_string()))
                    }
                    (other, _) => {
                        return Err(Fail::Plain(format!(
                            "can't index item of type {}",
                            type_name(other)
                        )))
                    }
                };
            }
            Ok(v)
        }
        "slice" => {
            let Some((item, idx)) = args.split_first() else {
                return want_args(name, args, 1).map(|_| None);
            };
            let bounds: Vec<i64> = idx.iter().map(int_arg).collect::<Result<_, _>>()?;
            let len = match item {
                Some(Value::String(s)) => s.len(),
                Some(Value::Array(a)) => a.len(),
                other => {
                    return Err(Fail::Plain(format!(
                        "can't slice item of type {}",
                        type_name(other)
                    )))
                }
            };
            let lo = bounds.first().copied().unwrap_or(0);
            let hi = bounds.get(1).copied().unwrap_or(len as i64);
            if lo < 0 || hi < lo || hi as usize > len {
                return Err(Fail::Plain(format!("index out of range: {hi}")));
            }
            let (lo, hi) = (lo as usize, hi as usize);
            Ok(Some(match item {
                Some(Value::String(s)) => Value::String(s.get(lo..hi).unwrap_or("").to_string()),
                Some(Value::Array(a)) => Value::Array(a[lo..hi].to_vec()),
                _ => Value::Null,
            }))
        }
        "print" => Ok(Some(Value::String(sprint(args)))),
        "println" => {
            let parts: Vec<String> = args.iter().map(print_value).collect();
            Ok(Some(Value::String(parts.join(" ") + "\n")))
        }
        "printf" => {
            let Some((fmt, rest)) = args.split_first() else {
                return want_args(name, args, 1).map(|_| None);
            };
            Ok(Some(Value::String(super::printf::sprintf(
                &str_arg(fmt),
                rest,
            ))))
        }
        "eq" => {
            let Some((first, rest)) = args.split_first() else {
                return want_args(name, args, 2).map(|_| None);
            };
            if rest.is_empty() {
                return Err(Fail::Plain("missing argument for comparison".to_string()));
            }
            for r in rest {
                if compare_eq(first, r)? {
                    return Ok(Some(Value::Bool(true)));
                }
            }
            Ok(Some(Value::Bool(false)))
        }
        "ne" => {
            want_args(name, args, 2)?;
            Ok(Some(Value::Bool(!compare_eq(&args[0], &args[1])?)))
        }
        "lt" | "le" | "gt" | "ge" => {
            want_args(name, args, 2)?;
            let ord = compare_ord(&args[0], &args[1])?;
            let b = match name {
                "lt" => ord.is_lt(),
                "le" => ord.is_le(),
                "gt" => ord.is_gt(),
                _ => ord.is_ge(),
            };
            Ok(Some(Value::Bool(b)))
        }
        "html" => Ok(Some(Value::String(html_escape(&sprint(args))))),
        "js" => Ok(Some(Value::String(js_escape(&sprint(args))))),
        "urlquery" => Ok(Some(Value::String(query_escape(&sprint(args))))),
        other => Err(Fail::Plain(format!("function {other:?} not defined"))),
    }
}

/// `fmt.Sprint`: a space between operands when neither is a string.
fn sprint(args: &[V]) -> String {
    let mut out = String::new();
    for (i, a) in args.iter().enumerate() {
        let is_str = |v: &V| matches!(v, Some(Value::String(_)));
        if i > 0 && !is_str(a) && !is_str(&args[i - 1]) {
            out.push(' ');
        }
        out.push_str(&print_value(a));
    }
    out
}

fn compare_eq(a: &V, b: &V) -> Result<bool, Fail> {
    let null = Value::Null;
    let (a, b) = (a.as_ref().unwrap_or(&null), b.as_ref().unwrap_or(&null));
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => Ok(match (x.as_i64(), y.as_i64()) {
            (Some(i), Some(j)) => i == j,
            _ => x.as_f64() == y.as_f64(),
        }),
        (Value::String(x), Value::String(y)) => Ok(x == y),
        (Value::Bool(x), Value::Bool(y)) => Ok(x == y),
        (Value::Null, Value::Null) => Ok(true),
        (Value::Null, _) | (_, Value::Null) => Ok(false),
        (Value::Array(_) | Value::Object(_), _) | (_, Value::Array(_) | Value::Object(_)) => {
            Err(Fail::Plain("non-comparable type".to_string()))
        }
        _ => Err(Fail::Plain("incompatible types for comparison".to_string())),
    }
}

fn compare_ord(a: &V, b: &V) -> Result<std::cmp::Ordering, Fail> {
    match (a, b) {
        (Some(Value::Number(x)), Some(Value::Number(y))) => {
            if let (Some(i), Some(j)) = (x.as_i64(), y.as_i64()) {
                return Ok(i.cmp(&j));
            }
            let (f, g) = (x.as_f64().unwrap_or(0.0), y.as_f64().unwrap_or(0.0));
            f.partial_cmp(&g)
                .ok_or_else(|| Fail::Plain("invalid type for comparison".to_string()))
        }
        (Some(Value::String(x)), Some(Value::String(y))) => Ok(x.cmp(y)),
        (Some(Value::Number(_)), Some(Value::String(_)))
        | (Some(Value::String(_)), Some(Value::Number(_))) => {
            Err(Fail::Plain("incompatible types for comparison".to_string()))
        }
        _ => Err(Fail::Plain("invalid type for comparison".to_string())),
    }
}

fn html_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '&' => out.push_str("&amp;"),
            '<' => out.push_str("&lt;"),
            '>' => out.push_str("&gt;"),
            '"' => out.push_str("&#34;"),
            '\'' => out.push_str("&#39;"),
            '\0' => out.push('\u{FFFD}'),
            c => out.push(c),
        }
    }
    out
}

fn js_escape(s: &str) -> String {
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
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out
}

fn query_escape(s: &str) -> String {
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
