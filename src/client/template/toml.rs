//! `toTOML` as consul-template has it: BurntSushi/toml's encoder, output trimmed.
//!
//! Its layout: a table's plain keys first, then its sub-tables, each group sorted by key;
//! a blank line before each top-level table; nested tables and their keys indented two
//! spaces per level below the top; arrays of tables as `[[key]]`; other arrays and tables
//! inside arrays written inline; floats always with a decimal point; nil values skipped.
//! consul-template has no `parseTOML`.

use super::Value;

/// Why a value has no TOML form; texts are BurntSushi/toml's.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TomlError {
    #[error("toml: top-level values must be Go maps or structs")]
    NoKey,
    #[error("toml: cannot encode array with nil element")]
    ArrayNilElement,
}

pub fn to_toml(v: &Value) -> Result<String, TomlError> {
    let mut e = Encoder::default();
    e.encode(&[], v)?;
    Ok(e.out.trim().to_string())
}

#[derive(Default)]
struct Encoder {
    out: String,
}

/// How BurntSushi classifies a value (`tomlTypeOfGo`).
#[derive(PartialEq, Eq)]
enum Kind {
    Nil,
    Primitive,
    Table,
    ArrayOfTables,
    Array,
}

fn kind(v: &Value) -> Result<Kind, TomlError> {
    Ok(match v {
        Value::Nil | Value::Missing => Kind::Nil,
        Value::Map(_) | Value::Struct(_) => Kind::Table,
        Value::List(items) => {
            if items.is_empty() {
                Kind::Array
            } else {
                let mut all_tables = true;
                for i in items.iter() {
                    match kind(i)? {
                        Kind::Nil => return Err(TomlError::ArrayNilElement),
                        Kind::Table => {}
                        _ => all_tables = false,
                    }
                }
                if all_tables {
                    Kind::ArrayOfTables
                } else {
                    Kind::Array
                }
            }
        }
        _ => Kind::Primitive,
    })
}

/// A table's entries in the encoder's order: plain keys, then sub-tables, each sorted.
fn entries(v: &Value) -> Result<Vec<(String, &Value)>, TomlError> {
    let all: Vec<(String, &Value)> = match v {
        Value::Map(m) => m.iter().map(|(k, v)| (k.clone(), v)).collect(),
        // Struct fields keep their declaration order within each group.
        Value::Struct(st) => st.fields.iter().map(|(k, v)| (k.to_string(), v)).collect(),
        _ => Vec::new(),
    };
    let mut direct = Vec::new();
    let mut sub = Vec::new();
    for (k, v) in all {
        match kind(v)? {
            Kind::Table | Kind::ArrayOfTables => sub.push((k, v)),
            Kind::Nil => {}
            _ => direct.push((k, v)),
        }
    }
    if matches!(v, Value::Map(_)) {
        direct.sort_by(|a, b| a.0.cmp(&b.0));
        sub.sort_by(|a, b| a.0.cmp(&b.0));
    }
    direct.extend(sub);
    Ok(direct)
}

fn bare(k: &str) -> bool {
    !k.is_empty()
        && k.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

fn quote_key(k: &str) -> String {
    if bare(k) {
        k.to_string()
    } else {
        format!("\"{}\"", escape(k))
    }
}

fn key_path(key: &[String]) -> String {
    key.iter()
        .map(|k| quote_key(k))
        .collect::<Vec<_>>()
        .join(".")
}

fn escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\u{08}' => out.push_str("\\b"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\u{0C}' => out.push_str("\\f"),
            '\r' => out.push_str("\\r"),
            c if (c as u32) < 0x20 || c == '\u{7F}' => {
                out.push_str(&format!("\\u{:04x}", c as u32));
            }
            c => out.push(c),
        }
    }
    out
}

impl Encoder {
    fn newline(&mut self) {
        if !self.out.is_empty() {
            self.out.push('\n');
        }
    }

    fn indent(&self, key: &[String]) -> String {
        "  ".repeat(key.len().saturating_sub(1))
    }

    fn encode(&mut self, key: &[String], v: &Value) -> Result<(), TomlError> {
        match kind(v)? {
            Kind::Nil => Ok(()),
            Kind::Table => {
                if key.len() == 1 {
                    self.newline();
                }
                if !key.is_empty() {
                    let header = format!("{}[{}]", self.indent(key), key_path(key));
                    self.out.push_str(&header);
                    self.newline();
                }
                for (k, item) in entries(v)? {
                    let mut sub = key.to_vec();
                    sub.push(k);
                    self.encode(&sub, item)?;
                }
                Ok(())
            }
            Kind::ArrayOfTables => {
                if key.is_empty() {
                    return Err(TomlError::NoKey);
                }
                let Value::List(items) = v else {
                    return Ok(());
                };
                for item in items.iter() {
                    self.newline();
                    let header = format!("{}[[{}]]", self.indent(key), key_path(key));
                    self.out.push_str(&header);
                    self.newline();
                    for (k, inner) in entries(item)? {
                        let mut sub = key.to_vec();
                        sub.push(k);
                        self.encode(&sub, inner)?;
                    }
                }
                Ok(())
            }
            Kind::Primitive | Kind::Array => {
                if key.is_empty() {
                    return self.element(v);
                }
                let line = format!(
                    "{}{} = ",
                    self.indent(key),
                    quote_key(key.last().expect("key"))
                );
                self.out.push_str(&line);
                self.element(v)?;
                self.newline();
                Ok(())
            }
        }
    }

    /// A value written inline (`eElement`).
    fn element(&mut self, v: &Value) -> Result<(), TomlError> {
        match v {
            Value::Str(s) => {
                let q = format!("\"{}\"", escape(s));
                self.out.push_str(&q);
            }
            Value::Bool(b) => self.out.push_str(if *b { "true" } else { "false" }),
            Value::Int(i) => self.out.push_str(&i.to_string()),
            Value::Uint(u) => self.out.push_str(&u.to_string()),
            Value::Float(f) => self.out.push_str(&float_text(*f)),
            Value::List(items) => {
                self.out.push('[');
                for (i, item) in items.iter().enumerate() {
                    if item.is_nilish() {
                        return Err(TomlError::ArrayNilElement);
                    }
                    self.element(item)?;
                    if i + 1 != items.len() {
                        self.out.push_str(", ");
                    }
                }
                self.out.push(']');
            }
            Value::Map(_) | Value::Struct(_) => {
                self.out.push('{');
                let list = entries(v)?;
                for (i, (k, item)) in list.iter().enumerate() {
                    let head = format!("{} = ", quote_key(k));
                    self.out.push_str(&head);
                    self.element(item)?;
                    if i + 1 != list.len() {
                        self.out.push_str(", ");
                    }
                }
                self.out.push('}');
            }
            Value::Nil | Value::Missing => {}
        }
        Ok(())
    }
}

/// Go's `FormatFloat(f, 'f', -1, 64)` with `.0` added when there is no decimal point;
/// `nan` and `inf` as TOML spells them.
fn float_text(f: f64) -> String {
    if f.is_nan() {
        return if f.is_sign_negative() { "-nan" } else { "nan" }.into();
    }
    if f.is_infinite() {
        return if f < 0.0 { "-inf" } else { "inf" }.into();
    }
    // Rust's shortest round-trip form never uses an exponent, as Go's 'f' with -1.
    let s = format!("{f}");
    if s.contains('.') {
        s
    } else {
        format!("{s}.0")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::BTreeMap;

    fn m(entries: &[(&str, Value)]) -> Value {
        Value::map(
            entries
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect::<BTreeMap<_, _>>(),
        )
    }

    #[test]
    fn tables_arrays_and_scalars_lay_out_like_burntsushi() {
        let v = m(&[
            ("title", Value::str("app \"x\"")),
            ("port", Value::Int(8080)),
            ("ratio", Value::Float(2.0)),
            ("small", Value::Float(0.25)),
            ("tags", Value::list(vec![Value::str("a"), Value::Int(1)])),
            ("skipped", Value::Nil),
            (
                "server",
                m(&[
                    ("host", Value::str("h")),
                    ("tls", m(&[("on", Value::Bool(true))])),
                    (
                        "mixed",
                        Value::list(vec![m(&[("k", Value::Int(1))]), Value::Int(2)]),
                    ),
                ]),
            ),
            (
                "peers",
                Value::list(vec![
                    m(&[("name", Value::str("p1"))]),
                    m(&[("name", Value::str("p2"))]),
                ]),
            ),
            ("weird key", Value::Int(1)),
        ]);
        assert_eq!(
            to_toml(&v).unwrap(),
            r#"port = 8080
ratio = 2.0
small = 0.25
tags = ["a", 1]
title = "app \"x\""
"weird key" = 1

[[peers]]
  name = "p1"

[[peers]]
  name = "p2"

[server]
  host = "h"
  mixed = [{k = 1}, 2]
  [server.tls]
    on = true"#
        );
    }

    #[test]
    fn top_level_values_that_are_not_tables() {
        assert_eq!(to_toml(&Value::str("x")).unwrap(), "\"x\"");
        assert_eq!(
            to_toml(&Value::Float(1e21)).unwrap(),
            "1000000000000000000000.0"
        );
        assert_eq!(
            to_toml(&Value::list(vec![m(&[("a", Value::Int(1))])])).unwrap_err(),
            TomlError::NoKey
        );
        assert_eq!(
            to_toml(&m(&[("a", Value::list(vec![Value::Int(1), Value::Nil]))])).unwrap_err(),
            TomlError::ArrayNilElement
        );
    }
}
