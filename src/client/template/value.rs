//! Template values: what Go's reflect values are to text/template, reduced to the kinds
//! templates meet (JSON-like data, service structs, numbers of the three Go kinds).

use std::collections::BTreeMap;
use std::sync::Arc;

use super::gofmt;

#[derive(Debug, Clone, PartialEq)]
pub enum Value {
    /// A nil interface (`nil`, JSON null, a function's nil result): prints `<nil>`.
    Nil,
    /// No value at all (a missing map key, nil dot): prints `<no value>`.
    Missing,
    Bool(bool),
    Int(i64),
    Uint(u64),
    Float(f64),
    Str(String),
    List(Arc<Vec<Value>>),
    /// Go maps print and range in sorted key order.
    Map(Arc<BTreeMap<String, Value>>),
    /// A Go struct: fixed fields in declaration order; a missing field is an error.
    Struct(Arc<Struct>),
}

#[derive(Debug, Clone, PartialEq)]
pub struct Struct {
    /// Go type name for error texts, e.g. `*dependency.NomadService`.
    pub type_name: &'static str,
    pub fields: Vec<(&'static str, Value)>,
}

impl Struct {
    pub fn get(&self, name: &str) -> Option<&Value> {
        self.fields.iter().find(|(k, _)| *k == name).map(|(_, v)| v)
    }
}

impl Value {
    pub fn str(s: impl Into<String>) -> Value {
        Value::Str(s.into())
    }

    pub fn list(v: Vec<Value>) -> Value {
        Value::List(Arc::new(v))
    }

    pub fn map(m: BTreeMap<String, Value>) -> Value {
        Value::Map(Arc::new(m))
    }

    /// Go's kind name as text/template errors print it.
    pub fn type_name(&self) -> &'static str {
        match self {
            Value::Nil | Value::Missing => "<nil>",
            Value::Bool(_) => "bool",
            Value::Int(_) => "int",
            Value::Uint(_) => "uint64",
            Value::Float(_) => "float64",
            Value::Str(_) => "string",
            Value::List(_) => "[]interface {}",
            Value::Map(_) => "map[string]interface {}",
            Value::Struct(s) => s.type_name,
        }
    }

    /// text/template's truth: zero values, empty collections and nil are false.
    pub fn truthy(&self) -> bool {
        match self {
            Value::Nil | Value::Missing => false,
            Value::Bool(b) => *b,
            Value::Int(i) => *i != 0,
            Value::Uint(u) => *u != 0,
            Value::Float(f) => *f != 0.0,
            Value::Str(s) => !s.is_empty(),
            Value::List(l) => !l.is_empty(),
            Value::Map(m) => !m.is_empty(),
            Value::Struct(_) => true,
        }
    }

    pub fn is_nilish(&self) -> bool {
        matches!(self, Value::Nil | Value::Missing)
    }

    /// `fmt.Sprint(v)` (the `%v` form).
    pub fn to_go_string(&self) -> String {
        let mut s = String::new();
        self.write_go(&mut s, true);
        s
    }

    pub(super) fn write_go(&self, out: &mut String, top: bool) {
        match self {
            Value::Nil => out.push_str("<nil>"),
            Value::Missing => out.push_str(if top { "<no value>" } else { "<nil>" }),
            Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
            Value::Int(i) => out.push_str(&i.to_string()),
            Value::Uint(u) => out.push_str(&u.to_string()),
            Value::Float(f) => out.push_str(&gofmt::format_float_g(*f, None, false)),
            Value::Str(s) => out.push_str(s),
            Value::List(l) => {
                out.push('[');
                for (i, v) in l.iter().enumerate() {
                    if i > 0 {
                        out.push(' ');
                    }
                    v.write_go(out, false);
                }
                out.push(']');
            }
            Value::Map(m) => {
                out.push_str("map[");
                for (i, (k, v)) in m.iter().enumerate() {
                    if i > 0 {
                        out.push(' ');
                    }
                    out.push_str(k);
                    out.push(':');
                    v.write_go(out, false);
                }
                out.push(']');
            }
            Value::Struct(s) => {
                // Go prints pointers to structs as &{...}.
                if s.type_name.starts_with('*') {
                    out.push('&');
                }
                out.push('{');
                for (i, (_, v)) in s.fields.iter().enumerate() {
                    if i > 0 {
                        out.push(' ');
                    }
                    v.write_go(out, false);
                }
                out.push('}');
            }
        }
    }

    /// The value as JSON (encoding/json's view: structs by field name).
    pub fn to_json(&self) -> serde_json::Value {
        use serde_json::Value as J;
        match self {
            Value::Nil | Value::Missing => J::Null,
            Value::Bool(b) => J::Bool(*b),
            Value::Int(i) => J::from(*i),
            Value::Uint(u) => J::from(*u),
            Value::Float(f) => serde_json::Number::from_f64(*f)
                .map(J::Number)
                .unwrap_or(J::Null),
            Value::Str(s) => J::String(s.clone()),
            Value::List(l) => J::Array(l.iter().map(Value::to_json).collect()),
            Value::Map(m) => J::Object(m.iter().map(|(k, v)| (k.clone(), v.to_json())).collect()),
            Value::Struct(s) => J::Object(
                s.fields
                    .iter()
                    .map(|(k, v)| (k.to_string(), v.to_json()))
                    .collect(),
            ),
        }
    }

    /// encoding/json's decoding into `interface{}`: numbers become float64.
    pub fn from_json(v: &serde_json::Value) -> Value {
        use serde_json::Value as J;
        match v {
            J::Null => Value::Nil,
            J::Bool(b) => Value::Bool(*b),
            J::Number(n) => Value::Float(n.as_f64().unwrap_or(0.0)),
            J::String(s) => Value::Str(s.clone()),
            J::Array(a) => Value::list(a.iter().map(Value::from_json).collect()),
            J::Object(o) => Value::map(
                o.iter()
                    .map(|(k, v)| (k.clone(), Value::from_json(v)))
                    .collect(),
            ),
        }
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Value {
        Value::Str(s.to_string())
    }
}

impl From<String> for Value {
    fn from(s: String) -> Value {
        Value::Str(s)
    }
}

impl From<i64> for Value {
    fn from(i: i64) -> Value {
        Value::Int(i)
    }
}

impl From<bool> for Value {
    fn from(b: bool) -> Value {
        Value::Bool(b)
    }
}
