//! `parseYAML` and `toYAML` as consul-template has them: gopkg.in/yaml.v2 decoding into
//! `interface{}` and `yaml.Marshal` with its output trimmed.
//!
//! The encoder writes what yaml.v2's libyaml-derived emitter writes: block style with
//! 2-space indentation, sequences inside mappings not indented, map keys in yaml.v2's
//! natural order (`a2` before `a10`), struct fields lower-cased in declaration order,
//! strings plain unless they would read back as another type (then double-quoted) or
//! hold characters plain text cannot (then single- or double-quoted), multi-line strings
//! as `|` literals, and plain or quoted text folded after column 80.
//!
//! `parseYAML` lives in `yaml_decode`.

use std::sync::LazyLock;

use super::yaml_decode::{looks_like_timestamp, resolve_plain};
use super::{gofmt, Value};
use crate::jobspec::functions::yaml::{yaml_emitter, BEST_INDENT};

const BEST_WIDTH: usize = 80;

// ---- encoding ------------------------------------------------------------------------------

/// consul-template's `toYAML`: `yaml.Marshal` with surrounding whitespace trimmed.
pub fn to_yaml(v: &Value) -> String {
    let mut e = Emitter::default();
    e.node(v, Ctx::Root);
    // Document end (implicit): yaml.v2 clears `open_ended` before the stream end, so no
    // `...` follows a bare root scalar.
    e.write_indent();
    e.out.trim().to_string()
}

/// Where a node sits; decides indentation and quoting the way libyaml's states do.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Ctx {
    Root,
    SequenceItem,
    /// A key written inline (`key: value`).
    SimpleKey,
    MappingValue,
}

yaml_emitter!(Emitter);

/// A scalar's text and how yaml.v2's encoder asks for it to be written.
struct Scalar {
    text: String,
    style: Style,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Style {
    Plain,
    SingleQuoted,
    DoubleQuoted,
    Literal,
}

impl Emitter {
    fn node(&mut self, v: &Value, ctx: Ctx) {
        match v {
            Value::List(items) if items.is_empty() => self.flow_empty("[", "]"),
            Value::Map(m) if m.is_empty() => self.flow_empty("{", "}"),
            Value::Struct(st) if st.fields.is_empty() => self.flow_empty("{", "}"),
            Value::List(items) => {
                let indentless = ctx == Ctx::MappingValue && !self.indention;
                self.push_indent(false, indentless);
                for item in items.iter() {
                    self.write_indent();
                    self.indicator("-", true, false, true);
                    self.node(item, Ctx::SequenceItem);
                }
                self.pop_indent();
            }
            Value::Map(m) => {
                let mut keys: Vec<&String> = m.keys().collect();
                keys.sort_by(|a, b| natural_cmp(a, b));
                let entries: Vec<(String, &Value)> =
                    keys.into_iter().map(|k| (k.clone(), &m[k])).collect();
                self.mapping(entries);
            }
            Value::Struct(st) => {
                let entries = st
                    .fields
                    .iter()
                    .map(|(k, v)| (k.to_lowercase(), v))
                    .collect();
                self.mapping(entries);
            }
            other => {
                let sc = scalar_of(other);
                self.scalar(&sc, ctx);
            }
        }
    }

    fn mapping(&mut self, entries: Vec<(String, &Value)>) {
        self.push_indent(false, false);
        for (k, item) in entries {
            self.write_indent();
            let key = string_scalar(&k);
            let a = analyze(&key.text);
            if !a.multiline && key.text.len() <= 128 {
                self.scalar(&key, Ctx::SimpleKey);
                self.indicator(":", false, false, false);
            } else {
                self.indicator("?", true, false, true);
                self.scalar(&key, Ctx::MappingValue);
                self.write_indent();
                self.indicator(":", true, false, true);
            }
            self.node(item, Ctx::MappingValue);
        }
        self.pop_indent();
    }

    /// libyaml's style selection, then the writer for the chosen style.
    fn scalar(&mut self, sc: &Scalar, ctx: Ctx) {
        let a = analyze(&sc.text);
        let simple_key = ctx == Ctx::SimpleKey;
        let mut style = sc.style;
        if simple_key && a.multiline {
            style = Style::DoubleQuoted;
        }
        if style == Style::Plain && (!a.block_plain_allowed || (sc.text.is_empty() && simple_key)) {
            style = Style::SingleQuoted;
        }
        if style == Style::SingleQuoted && !a.single_quoted_allowed {
            style = Style::DoubleQuoted;
        }
        if style == Style::Literal && (!a.block_allowed || simple_key) {
            style = Style::DoubleQuoted;
        }
        self.push_indent(true, false);
        let allow_breaks = !simple_key;
        match style {
            Style::Plain => self.plain(&sc.text, allow_breaks),
            Style::SingleQuoted => self.single_quoted(&sc.text, allow_breaks),
            Style::DoubleQuoted => self.double_quoted(&sc.text, allow_breaks, is_printable),
            Style::Literal => self.literal(&sc.text),
        }
        self.pop_indent();
    }

    fn plain(&mut self, text: &str, allow_breaks: bool) {
        if !self.whitespace {
            self.put(' ');
        }
        let chars: Vec<char> = text.chars().collect();
        let mut spaces = false;
        let mut breaks = false;
        for (i, &c) in chars.iter().enumerate() {
            if c == ' ' {
                if allow_breaks
                    && !spaces
                    && self.column > BEST_WIDTH
                    && chars.get(i + 1) != Some(&' ')
                {
                    self.write_indent();
                } else {
                    self.put(c);
                }
                spaces = true;
            } else if is_break(c) {
                if !breaks && c == '\n' {
                    self.put_break();
                }
                self.put_break();
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                self.put(c);
                self.indention = false;
                spaces = false;
                breaks = false;
            }
        }
        self.whitespace = false;
        self.indention = false;
    }

    fn single_quoted(&mut self, text: &str, allow_breaks: bool) {
        self.indicator("'", true, false, false);
        let chars: Vec<char> = text.chars().collect();
        let mut spaces = false;
        let mut breaks = false;
        for (i, &c) in chars.iter().enumerate() {
            if c == ' ' {
                if allow_breaks
                    && !spaces
                    && self.column > BEST_WIDTH
                    && i > 0
                    && i + 1 < chars.len()
                    && chars.get(i + 1) != Some(&' ')
                {
                    self.write_indent();
                } else {
                    self.put(c);
                }
                spaces = true;
            } else if is_break(c) {
                if !breaks && c == '\n' {
                    self.put_break();
                }
                self.put_break();
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                if c == '\'' {
                    self.put('\'');
                }
                self.put(c);
                self.indention = false;
                spaces = false;
                breaks = false;
            }
        }
        self.indicator("'", false, false, false);
        self.whitespace = false;
        self.indention = false;
    }

    fn literal(&mut self, text: &str) {
        self.indicator("|", true, false, false);
        if text.starts_with(' ') || text.starts_with(is_break) {
            self.indicator(&BEST_INDENT.to_string(), false, false, false);
        }
        let chars: Vec<char> = text.chars().collect();
        let chomp = match chars.as_slice() {
            [] => Some("-"),
            [.., last] if !is_break(*last) => Some("-"),
            [_] => Some("+"),
            [.., prev, _] if is_break(*prev) => Some("+"),
            _ => None,
        };
        if let Some(c) = chomp {
            self.indicator(c, false, false, false);
        }
        self.put_break();
        self.indention = true;
        self.whitespace = true;
        let mut breaks = true;
        for c in chars {
            if is_break(c) {
                self.put_break();
                self.indention = true;
                breaks = true;
            } else {
                if breaks {
                    self.write_indent();
                }
                self.put(c);
                self.indention = false;
                breaks = false;
            }
        }
    }
}

/// A non-collection value as yaml.v2's encoder writes it.
fn scalar_of(v: &Value) -> Scalar {
    let plain = |text: String| Scalar {
        text,
        style: Style::Plain,
    };
    match v {
        Value::Nil | Value::Missing => plain("null".into()),
        Value::Bool(b) => plain(b.to_string()),
        Value::Int(i) => plain(i.to_string()),
        Value::Uint(u) => plain(u.to_string()),
        Value::Float(f) => plain(if f.is_nan() {
            ".nan".into()
        } else if f.is_infinite() {
            if *f > 0.0 { ".inf" } else { "-.inf" }.into()
        } else {
            gofmt::format_float_g(*f, None, false)
        }),
        Value::Str(s) => string_scalar(s),
        Value::List(_) | Value::Map(_) | Value::Struct(_) => plain(String::new()),
    }
}

/// yaml.v2's `stringv`: literal when multi-line, plain when it reads back as the same
/// string, else double-quoted.
fn string_scalar(s: &str) -> Scalar {
    let style = if s.contains('\n') {
        Style::Literal
    } else if matches!(resolve_plain(s), Value::Str(_))
        && !looks_like_timestamp(s)
        && !is_base60_float(s)
    {
        Style::Plain
    } else {
        Style::DoubleQuoted
    };
    Scalar {
        text: s.to_string(),
        style,
    }
}

/// yaml.v2 quotes what YAML 1.1 parsers would read as a base-60 float (`1:20`).
fn is_base60_float(s: &str) -> bool {
    static RE: LazyLock<regex::Regex> = LazyLock::new(|| {
        regex::Regex::new(r"^[-+]?[0-9][0-9_]*(?::[0-5]?[0-9])+(?:\.[0-9_]*)?$")
            .expect("base60 regex")
    });
    s.contains(':') && RE.is_match(s)
}

/// yaml.v2's key order: numbers before strings; strings compared rune by rune, letters
/// before other runes, and runs of digits by their numeric value.
fn natural_cmp(a: &str, b: &str) -> std::cmp::Ordering {
    use std::cmp::Ordering;
    let less = |a: &str, b: &str| -> bool {
        let ar: Vec<char> = a.chars().collect();
        let br: Vec<char> = b.chars().collect();
        let mut i = 0;
        while i < ar.len() && i < br.len() {
            if ar[i] == br[i] {
                i += 1;
                continue;
            }
            let al = ar[i].is_alphabetic();
            let bl = br[i].is_alphabetic();
            if al && bl {
                return ar[i] < br[i];
            }
            if al || bl {
                return bl;
            }
            let (mut an, mut bn) = (0i64, 0i64);
            if ar[i] == '0' || br[i] == '0' {
                let mut j = i;
                while j > 0 && ar[j - 1].is_ascii_digit() {
                    j -= 1;
                    if ar[j] != '0' {
                        an = 1;
                        bn = 1;
                        break;
                    }
                }
            }
            let mut ai = i;
            while ai < ar.len() && ar[ai].is_ascii_digit() {
                an = an.wrapping_mul(10).wrapping_add(ar[ai] as i64 - '0' as i64);
                ai += 1;
            }
            let mut bi = i;
            while bi < br.len() && br[bi].is_ascii_digit() {
                bn = bn.wrapping_mul(10).wrapping_add(br[bi] as i64 - '0' as i64);
                bi += 1;
            }
            if an != bn {
                return an < bn;
            }
            if ai != bi {
                return ai < bi;
            }
            return ar[i] < br[i];
        }
        ar.len() < br.len()
    };
    if less(a, b) {
        Ordering::Less
    } else if less(b, a) {
        Ordering::Greater
    } else {
        Ordering::Equal
    }
}

/// libyaml's `is_printable` (Go port): 4-byte UTF-8 characters count as not printable.
fn is_printable(c: char) -> bool {
    matches!(c, '\n' | '\u{20}'..='\u{7E}' | '\u{A0}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}')
        && c != '\u{FEFF}'
}

fn is_break(c: char) -> bool {
    matches!(c, '\r' | '\n' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

/// What libyaml's scalar analysis allows for a text.
struct Analysis {
    multiline: bool,
    block_plain_allowed: bool,
    single_quoted_allowed: bool,
    block_allowed: bool,
}

fn analyze(text: &str) -> Analysis {
    let chars: Vec<char> = text.chars().collect();
    if chars.is_empty() {
        return Analysis {
            multiline: false,
            block_plain_allowed: true,
            single_quoted_allowed: true,
            block_allowed: false,
        };
    }
    let mut block_indicators = text.starts_with("---") || text.starts_with("...");
    let (mut line_breaks, mut special) = (false, false);
    let (mut leading_space, mut leading_break) = (false, false);
    let (mut trailing_space, mut trailing_break) = (false, false);
    let (mut break_space, mut space_break) = (false, false);
    let (mut previous_space, mut previous_break) = (false, false);
    let mut preceded_by_whitespace = true;
    let n = chars.len();
    for (i, &c) in chars.iter().enumerate() {
        let followed_by_whitespace = i + 1 >= n || matches!(chars[i + 1], ' ' | '\t');
        if i == 0 {
            match c {
                '#' | ',' | '[' | ']' | '{' | '}' | '&' | '*' | '!' | '|' | '>' | '\'' | '"'
                | '%' | '@' | '`' => block_indicators = true,
                '?' | ':' | '-' if followed_by_whitespace => block_indicators = true,
                _ => {}
            }
        } else {
            match c {
                ':' if followed_by_whitespace => block_indicators = true,
                '#' if preceded_by_whitespace => block_indicators = true,
                _ => {}
            }
        }
        if !is_printable(c) {
            special = true;
        }
        if c == ' ' {
            leading_space |= i == 0;
            trailing_space |= i + 1 == n;
            break_space |= previous_break;
            previous_space = true;
            previous_break = false;
        } else if is_break(c) {
            line_breaks = true;
            leading_break |= i == 0;
            trailing_break |= i + 1 == n;
            space_break |= previous_space;
            previous_space = false;
            previous_break = true;
        } else {
            previous_space = false;
            previous_break = false;
        }
        preceded_by_whitespace = matches!(c, ' ' | '\t') || is_break(c);
    }
    let mut a = Analysis {
        multiline: line_breaks,
        block_plain_allowed: true,
        single_quoted_allowed: true,
        block_allowed: true,
    };
    if leading_space || leading_break || trailing_space || trailing_break {
        a.block_plain_allowed = false;
    }
    if trailing_space {
        a.block_allowed = false;
    }
    if break_space {
        a.block_plain_allowed = false;
        a.single_quoted_allowed = false;
    }
    if space_break || special {
        a.block_plain_allowed = false;
        a.single_quoted_allowed = false;
        a.block_allowed = false;
    }
    if line_breaks || block_indicators {
        a.block_plain_allowed = false;
    }
    a
}

#[cfg(test)]
mod tests {
    use super::*;

    fn m(entries: &[(&str, Value)]) -> Value {
        Value::map(
            entries
                .iter()
                .map(|(k, v)| (k.to_string(), v.clone()))
                .collect(),
        )
    }

    #[test]
    fn to_yaml_matches_yaml_v2_layout() {
        let v = m(&[
            ("name", Value::str("web")),
            ("port", Value::Int(8080)),
            ("ratio", Value::Float(0.5)),
            ("big", Value::Float(1e21)),
            ("enabled", Value::Bool(true)),
            ("nothing", Value::Nil),
            ("tags", Value::list(vec![Value::str("a"), Value::str("b")])),
            ("empty_list", Value::list(vec![])),
            ("empty_map", m(&[])),
            (
                "nested",
                m(&[
                    ("inner", m(&[("k", Value::str("v"))])),
                    (
                        "items",
                        Value::list(vec![
                            m(&[("x", Value::Int(1)), ("y", Value::Int(2))]),
                            Value::list(vec![Value::Int(3)]),
                        ]),
                    ),
                ]),
            ),
        ]);
        assert_eq!(
            to_yaml(&v),
            "big: 1e+21
empty_list: []
empty_map: {}
enabled: true
name: web
nested:
  inner:
    k: v
  items:
  - x: 1
    \"y\": 2
  - - 3
nothing: null
port: 8080
ratio: 0.5
tags:
- a
- b"
        );
    }

    #[test]
    fn to_yaml_quotes_strings_that_would_change_meaning() {
        let v = m(&[
            ("a", Value::str("true")),
            ("b", Value::str("123")),
            ("c", Value::str("")),
            ("d", Value::str("yes")),
            ("e", Value::str("- item")),
            ("f", Value::str("key: value")),
            ("g", Value::str(" padded")),
            ("h", Value::str("it's")),
            ("i", Value::str("tab\there")),
            ("j", Value::str("1:20")),
            ("k", Value::str("2021-01-02")),
            ("l", Value::str("#comment")),
            ("m", Value::str("plain text, fine")),
            ("n", Value::str("~")),
            ("o", Value::str("0x1F")),
            ("p", Value::str("@at")),
        ]);
        assert_eq!(
            to_yaml(&v),
            r#"a: "true"
b: "123"
c: ""
d: "yes"
e: '- item'
f: 'key: value'
g: ' padded'
h: it's
i: "tab\there"
j: "1:20"
k: "2021-01-02"
l: '#comment'
m: plain text, fine
"n": "~"
o: "0x1F"
p: '@at'"#
        );
    }

    #[test]
    fn to_yaml_writes_multiline_strings_as_literals_and_folds_long_lines() {
        let v = m(&[
            ("script", Value::str("echo one\necho two\n")),
            ("bare", Value::str("no newline\nat end")),
            ("keep", Value::str("two trailing\n\n")),
            ("lead", Value::str(" leading space\nline")),
        ]);
        assert_eq!(
            to_yaml(&v),
            "bare: |-\n  no newline\n  at end\nkeep: |+\n  two trailing\n\nlead: |2-\n   leading space\n  line\nscript: |\n  echo one\n  echo two"
        );
        let long = "word ".repeat(20).trim_end().to_string();
        assert_eq!(
            to_yaml(&m(&[("text", Value::str(&long))])),
            format!(
                "text: {}\n  {}",
                "word ".repeat(16).trim_end(),
                "word ".repeat(4).trim_end()
            )
        );
        // a root scalar, trimmed as consul-template trims
        assert_eq!(to_yaml(&Value::str("hello")), "hello");
        assert_eq!(to_yaml(&Value::Nil), "null");
    }

    #[test]
    fn to_yaml_orders_keys_naturally_and_lowercases_struct_fields() {
        let v = m(&[
            ("a10", Value::Int(1)),
            ("a2", Value::Int(2)),
            ("B", Value::Int(3)),
            ("a", Value::Int(4)),
            ("1", Value::Int(5)),
        ]);
        assert_eq!(to_yaml(&v), "\"1\": 5\nB: 3\na: 4\na2: 2\na10: 1");
        let st = Value::Struct(std::sync::Arc::new(super::super::value::Struct {
            type_name: "*dependency.NomadService",
            fields: vec![("Name", Value::str("api")), ("Port", Value::Int(80))],
        }));
        assert_eq!(to_yaml(&st), "name: api\nport: 80");
    }

    /// Cases from yaml.v2's own encoder tests (v2.4.0), trimmed as toYAML trims.
    #[test]
    fn yaml_v2s_encoder_test_cases() {
        let l = |items: Vec<Value>| Value::list(items);
        for (v, want) in [
            (m(&[("v", Value::str("false"))]), "v: \"false\""),
            (m(&[("v", Value::Int(-10))]), "v: -10"),
            (m(&[("v", Value::Float(0.1))]), "v: 0.1"),
            (m(&[("v", Value::Float(-0.1))]), "v: -0.1"),
            (m(&[("v", Value::Float(f64::NEG_INFINITY))]), "v: -.inf"),
            (m(&[("v", Value::Float(f64::NAN))]), "v: .nan"),
            (m(&[("v", Value::str("10"))]), "v: \"10\""),
            (
                m(&[("v", l(vec![Value::str("A"), Value::str("B\nC")]))]),
                "v:\n- A\n- |-\n  B\n  C",
            ),
            (
                m(&[(
                    "v",
                    l(vec![
                        Value::str("A"),
                        Value::Int(1),
                        m(&[("B", l(vec![Value::Int(2), Value::Int(3)]))]),
                    ]),
                )]),
                "v:\n- A\n- 1\n- B:\n  - 2\n  - 3",
            ),
            (m(&[("a", m(&[("b", Value::str("c"))]))]), "a:\n  b: c"),
            (m(&[("a", Value::str("-"))]), "a: '-'"),
            (m(&[("a", Value::str("你好"))]), "a: 你好"),
            (m(&[("a", Value::str("2015-02-24T18:19:39Z"))]), "a: \"2015-02-24T18:19:39Z\""),
            (m(&[("a", Value::str("b: c"))]), "a: 'b: c'"),
            (m(&[("a", Value::str("Hello #comment"))]), "a: 'Hello #comment'"),
            (m(&[("a", Value::str("你好 #comment"))]), "a: '你好 #comment'"),
            (
                m(&[(
                    "a",
                    Value::str("abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ 1234567890 abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ 1234567890 "),
                )]),
                "a: 'abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ 1234567890 abcdefghijklmnopqrstuvwxyz\n  ABCDEFGHIJKLMNOPQRSTUVWXYZ 1234567890 '",
            ),
            (Value::Int(123), "123"),
            (m(&[]), "{}"),
        ] {
            assert_eq!(to_yaml(&v), want);
        }
    }
}
