//! Go's `json.MarshalIndent(v, "", "    ")` text for a `GoJson` document: four-space
//! indentation, `"key": value`, maps with sorted keys, empty arrays and objects as `[]` and
//! `{}`, and encoding/json's HTML-safe string escapes (`<`, `>`, `&`, U+2028, U+2029).

use serde_json::Value;

use super::output::GoJson;

pub(super) fn write_go(doc: &GoJson, depth: usize, out: &mut String) {
    match doc {
        GoJson::Value(v) => write_value(v, depth, out),
        GoJson::Array(items) => {
            write_seq(out, depth, '[', ']', items.len(), |i, out| {
                write_go(&items[i], depth + 1, out)
            });
        }
        GoJson::Object(fields) => {
            write_seq(out, depth, '{', '}', fields.len(), |i, out| {
                write_str(fields[i].0, out);
                out.push_str(": ");
                write_go(&fields[i].1, depth + 1, out);
            });
        }
    }
}

fn write_value(v: &Value, depth: usize, out: &mut String) {
    match v {
        Value::Null => out.push_str("null"),
        Value::Bool(b) => out.push_str(if *b { "true" } else { "false" }),
        Value::Number(n) => write_number(n, out),
        Value::String(s) => write_str(s, out),
        Value::Array(items) => write_seq(out, depth, '[', ']', items.len(), |i, out| {
            write_value(&items[i], depth + 1, out)
        }),
        // serde_json's map is ordered by key, which is the order Go prints maps in.
        Value::Object(map) => {
            let entries: Vec<(&String, &Value)> = map.iter().collect();
            write_seq(out, depth, '{', '}', entries.len(), |i, out| {
                write_str(entries[i].0, out);
                out.push_str(": ");
                write_value(entries[i].1, depth + 1, out);
            });
        }
    }
}

fn write_seq(
    out: &mut String,
    depth: usize,
    open: char,
    close: char,
    len: usize,
    mut item: impl FnMut(usize, &mut String),
) {
    out.push(open);
    if len == 0 {
        out.push(close);
        return;
    }
    for i in 0..len {
        if i > 0 {
            out.push(',');
        }
        newline(out, depth + 1);
        item(i, out);
    }
    newline(out, depth);
    out.push(close);
}

fn newline(out: &mut String, depth: usize) {
    out.push('\n');
    for _ in 0..depth {
        out.push_str("    ");
    }
}

/// Go prints a float64 holding a whole number without a fraction, and switches to exponent
/// form below 1e-6 and from 1e21.
fn write_number(n: &serde_json::Number, out: &mut String) {
    if n.is_i64() || n.is_u64() {
        out.push_str(&n.to_string());
        return;
    }
    let f = n.as_f64().unwrap_or(0.0);
    let abs = f.abs();
    if abs != 0.0 && !(1e-6..1e21).contains(&abs) {
        let s = format!("{f:e}");
        // Rust writes `1e21` / `1e-7`; Go writes `1e+21` / `1e-07`.
        let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
        let (sign, digits) = match exp.strip_prefix('-') {
            Some(d) => ('-', d),
            None => ('+', exp),
        };
        out.push_str(mant);
        out.push('e');
        out.push(sign);
        if digits.len() < 2 {
            out.push('0');
        }
        out.push_str(digits);
    } else if f.fract() == 0.0 && abs < 1e17 {
        out.push_str(&format!("{}", f as i64));
    } else {
        out.push_str(&f.to_string());
    }
}

fn write_str(s: &str, out: &mut String) {
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            '<' | '>' | '&' | '\u{2028}' | '\u{2029}' => {
                out.push_str(&format!("\\u{:04x}", c as u32))
            }
            c if (c as u32) < 0x20 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn go(v: Value) -> String {
        let mut out = String::new();
        write_value(&v, 0, &mut out);
        out
    }

    #[test]
    fn strings_use_go_html_safe_escapes() {
        assert_eq!(
            go(json!("a<b>&\"c\"\n\u{1}\u{2028}")),
            r#""a\u003cb\u003e\u0026\"c\"\n\u0001\u2028""#
        );
    }

    #[test]
    fn numbers_print_as_go_prints_float64_and_ints() {
        assert_eq!(
            go(json!([3, -2, 1.5, 2.0, 1e21, 1e-7])),
            "[\n    3,\n    -2,\n    1.5,\n    2,\n    1e+21,\n    1e-07\n]"
        );
    }

    #[test]
    fn empty_collections_stay_on_one_line_and_maps_sort() {
        assert_eq!(
            go(json!({"b": [], "a": {}})),
            "{\n    \"a\": {},\n    \"b\": []\n}"
        );
    }
}
