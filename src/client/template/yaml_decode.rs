//! `parseYAML` as consul-template has it: gopkg.in/yaml.v2 decoding into `interface{}`.
//!
//! Plain scalars resolve with YAML 1.1's rules as yaml.v2 does (`yes`/`on`/`y` are true,
//! `~` is null, `0x1f` and `0777` are integers, timestamps stay strings); quoted ones are
//! strings; anchors, aliases and `<<` merges work; map keys become strings, as template
//! maps are keyed by string; only the first document is read.

use std::collections::{BTreeMap, HashMap};
use std::sync::LazyLock;

use yaml_rust2::parser::{Event, Parser, Tag};
use yaml_rust2::scanner::{Marker, TScalarStyle};

use super::Value;

/// consul-template's `parseYAML`: an empty string is an empty map.
pub fn parse_yaml(src: &str) -> Result<Value, String> {
    if src.is_empty() {
        return Ok(Value::map(BTreeMap::new()));
    }
    let mut d = Decoder {
        parser: Parser::new_from_str(src),
        anchors: HashMap::new(),
    };
    loop {
        let (ev, m) = d.next()?;
        match ev {
            Event::StreamStart | Event::DocumentStart => {}
            // No document at all (only comments): yaml.v2 leaves the value nil.
            Event::StreamEnd => return Ok(Value::Nil),
            // Only the first document counts, as yaml.Unmarshal reads it.
            other => return d.value_from(other, &m),
        }
    }
}

struct Decoder<'s> {
    parser: Parser<std::str::Chars<'s>>,
    anchors: HashMap<usize, Value>,
}

/// yaml.v2's error text: `yaml: line N: <problem>`.
fn yaml_err(m: &Marker, msg: &str) -> String {
    format!("yaml: line {}: {msg}", m.line().max(1))
}

impl Decoder<'_> {
    fn next(&mut self) -> Result<(Event, Marker), String> {
        self.parser
            .next_token()
            .map_err(|e| yaml_err(e.marker(), e.info()))
    }

    fn value(&mut self) -> Result<Value, String> {
        let (ev, m) = self.next()?;
        self.value_from(ev, &m)
    }

    fn value_from(&mut self, ev: Event, m: &Marker) -> Result<Value, String> {
        let (v, anchor) = match ev {
            Event::Scalar(text, style, anchor, tag) => (scalar(&text, style, tag.as_ref()), anchor),
            Event::Alias(id) => {
                return self
                    .anchors
                    .get(&id)
                    .cloned()
                    .ok_or_else(|| yaml_err(m, "unknown anchor referenced"))
            }
            Event::MappingStart(anchor, _) => {
                let mut out = BTreeMap::new();
                loop {
                    let (ev, km) = self.next()?;
                    match ev {
                        Event::MappingEnd => break,
                        Event::Scalar(ref k, TScalarStyle::Plain, _, None) if k == "<<" => {
                            merge_into(&mut out, self.value()?).map_err(|e| yaml_err(&km, &e))?;
                        }
                        ev => {
                            let key = self.value_from(ev, &km)?;
                            let v = self.value()?;
                            out.insert(key_string(&key), v);
                        }
                    }
                }
                (Value::map(out), anchor)
            }
            Event::SequenceStart(anchor, _) => {
                let mut out = Vec::new();
                loop {
                    let (ev, im) = self.next()?;
                    if ev == Event::SequenceEnd {
                        break;
                    }
                    out.push(self.value_from(ev, &im)?);
                }
                (Value::list(out), anchor)
            }
            other => return Err(yaml_err(m, &format!("did not expect {other:?}"))),
        };
        if anchor > 0 {
            self.anchors.insert(anchor, v.clone());
        }
        Ok(v)
    }
}

/// A decoded key as a template map key (`fmt.Sprint` of the Go key).
fn key_string(k: &Value) -> String {
    match k {
        Value::Nil | Value::Missing => "<nil>".into(),
        other => other.to_go_string(),
    }
}

/// yaml.v2's `<<` merge: a mapping, or a sequence of mappings (earlier ones win); keys
/// already set in the mapping stay.
fn merge_into(out: &mut BTreeMap<String, Value>, merged: Value) -> Result<(), String> {
    let maps = match merged {
        Value::Map(m) => vec![m],
        Value::List(items) => items
            .iter()
            .map(|i| match i {
                Value::Map(m) => Ok(m.clone()),
                _ => Err("map merge requires map or sequence of maps as the value".to_string()),
            })
            .collect::<Result<_, _>>()?,
        _ => return Err("map merge requires map or sequence of maps as the value".into()),
    };
    for m in maps.iter() {
        for (k, v) in m.iter() {
            out.entry(k.clone()).or_insert_with(|| v.clone());
        }
    }
    Ok(())
}

const TAG_PREFIX: &str = "tag:yaml.org,2002:";

/// A scalar event's value: quoted text is a string; plain text and standard tags resolve.
fn scalar(text: &str, style: TScalarStyle, tag: Option<&Tag>) -> Value {
    let tag_name = tag.map(|t| {
        if t.handle == "!!" || t.handle == TAG_PREFIX {
            format!("!!{}", t.suffix)
        } else {
            format!("{}{}", t.handle, t.suffix)
        }
    });
    match tag_name.as_deref() {
        Some("!!str") => return Value::str(text),
        Some("!!binary") => {
            use base64::Engine as _;
            let clean: String = text.split_whitespace().collect();
            return match base64::engine::general_purpose::STANDARD.decode(clean) {
                Ok(b) => Value::Str(String::from_utf8_lossy(&b).into_owned()),
                Err(_) => Value::str(text),
            };
        }
        Some("!!float") => {
            return match resolve_plain(text) {
                Value::Int(i) => Value::Float(i as f64),
                other => other,
            }
        }
        Some("!!int" | "!!bool" | "!!null" | "!!timestamp") => return resolve_plain(text),
        Some(_) => return Value::str(text),
        None => {}
    }
    if style != TScalarStyle::Plain {
        return Value::str(text);
    }
    resolve_plain(text)
}

/// yaml.v2's `resolve` for an untagged plain scalar, decoded into `interface{}`.
pub(super) fn resolve_plain(s: &str) -> Value {
    match s {
        "y" | "Y" | "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "on" | "On" | "ON" => {
            return Value::Bool(true)
        }
        "n" | "N" | "no" | "No" | "NO" | "false" | "False" | "FALSE" | "off" | "Off" | "OFF" => {
            return Value::Bool(false)
        }
        "" | "~" | "null" | "Null" | "NULL" => return Value::Nil,
        ".nan" | ".NaN" | ".NAN" => return Value::Float(f64::NAN),
        ".inf" | ".Inf" | ".INF" | "+.inf" | "+.Inf" | "+.INF" => {
            return Value::Float(f64::INFINITY)
        }
        "-.inf" | "-.Inf" | "-.INF" => return Value::Float(f64::NEG_INFINITY),
        _ => {}
    }
    let first = s.chars().next().unwrap_or(' ');
    if first == '.' {
        if let Some(f) = go_parse_float(s) {
            return Value::Float(f);
        }
    } else if first.is_ascii_digit() || first == '+' || first == '-' {
        // Timestamps stay strings when decoded into interface{} (yaml.v2 keeps them so
        // for compatibility).
        if looks_like_timestamp(s) {
            return Value::str(s);
        }
        let plain = s.replace('_', "");
        if let Some(i) = go_parse_int(&plain) {
            return Value::Int(i);
        }
        if let Some(u) = go_parse_uint(&plain) {
            return Value::Uint(u);
        }
        static FLOAT: LazyLock<regex::Regex> = LazyLock::new(|| {
            regex::Regex::new(r"^[-+]?(\.[0-9]+|[0-9]+(\.[0-9]*)?)([eE][-+]?[0-9]+)?$")
                .expect("float regex")
        });
        if FLOAT.is_match(&plain) {
            if let Some(f) = go_parse_float(&plain) {
                return Value::Float(f);
            }
        }
        if let Some(bin) = plain.strip_prefix("0b") {
            if let Ok(i) = i64::from_str_radix(bin, 2) {
                return Value::Int(i);
            }
            if let Ok(u) = u64::from_str_radix(bin, 2) {
                return Value::Uint(u);
            }
        } else if let Some(bin) = plain.strip_prefix("-0b") {
            if let Ok(i) = i64::from_str_radix(&format!("-{bin}"), 2) {
                return Value::Int(i);
            }
        }
    }
    Value::str(s)
}

/// Go's `strconv.ParseInt(s, 0, 64)`: sign, then `0x`, `0o`, `0b` or a leading `0`
/// (octal) prefix.
fn go_parse_int(s: &str) -> Option<i64> {
    let (neg, digits) = match s.as_bytes().first()? {
        b'-' => (true, &s[1..]),
        b'+' => (false, &s[1..]),
        _ => (false, s),
    };
    let u = go_parse_unsigned(digits)?;
    if neg {
        if u <= i64::MAX as u64 + 1 {
            Some((u as i128).wrapping_neg() as i64)
        } else {
            None
        }
    } else {
        i64::try_from(u).ok()
    }
}

fn go_parse_uint(s: &str) -> Option<u64> {
    go_parse_unsigned(s.strip_prefix('+').unwrap_or(s))
}

fn go_parse_unsigned(s: &str) -> Option<u64> {
    let lower = s.to_ascii_lowercase();
    let (radix, digits) = if let Some(d) = lower.strip_prefix("0x") {
        (16, d)
    } else if let Some(d) = lower.strip_prefix("0o") {
        (8, d)
    } else if let Some(d) = lower.strip_prefix("0b") {
        (2, d)
    } else if lower.len() > 1 && lower.starts_with('0') {
        (8, &lower[1..])
    } else {
        (10, lower.as_str())
    };
    if digits.is_empty() || digits.starts_with(['+', '-']) {
        return None;
    }
    u64::from_str_radix(digits, radix).ok()
}

fn go_parse_float(s: &str) -> Option<f64> {
    let t = s.strip_prefix('+').unwrap_or(s);
    if t.chars()
        .any(|c| c.is_ascii_alphabetic() && !matches!(c, 'e' | 'E'))
    {
        return None;
    }
    t.parse::<f64>().ok()
}

/// yaml.v2's timestamp formats: `2006-1-2`, with `T`/`t`/space and `15:4:5`, optional
/// fraction and zone.
pub(super) fn looks_like_timestamp(s: &str) -> bool {
    static RE: LazyLock<regex::Regex> = LazyLock::new(|| {
        regex::Regex::new(
            r"^[0-9]{4}-[0-9]{1,2}-[0-9]{1,2}(?:[Tt ][0-9]{1,2}:[0-9]{1,2}:[0-9]{1,2}(?:\.[0-9]+)?(?:Z|[+-][0-9]{2}:[0-9]{2})?)?$",
        )
        .expect("timestamp regex")
    });
    if !RE.is_match(s) {
        return false;
    }
    let mut parts = s[..s.find(['T', 't', ' ']).unwrap_or(s.len())].split('-');
    let (_, month, day) = (parts.next(), parts.next(), parts.next());
    let month: u32 = month.and_then(|m| m.parse().ok()).unwrap_or(0);
    let day: u32 = day.and_then(|d| d.parse().ok()).unwrap_or(0);
    (1..=12).contains(&month) && (1..=31).contains(&day)
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
    use super::super::yaml::to_yaml;

    #[test]
    fn parse_yaml_resolves_like_yaml_v2() {
        let v = parse_yaml(
            "a: yes\nb: 0x1f\nc: 0777\nd: 1_000\ne: 1.5e3\nf: ~\ng: '123'\nh: 2021-01-02\ni: .inf\nj: [1, two]\nk:\n  nested: true\nl: |\n  text\n",
        )
        .unwrap();
        let Value::Map(map) = &v else { panic!("{v:?}") };
        assert_eq!(map["a"], Value::Bool(true));
        assert_eq!(map["b"], Value::Int(31));
        assert_eq!(map["c"], Value::Int(511));
        assert_eq!(map["d"], Value::Int(1000));
        assert_eq!(map["e"], Value::Float(1500.0));
        assert_eq!(map["f"], Value::Nil);
        assert_eq!(map["g"], Value::str("123"));
        assert_eq!(map["h"], Value::str("2021-01-02"));
        assert_eq!(map["i"], Value::Float(f64::INFINITY));
        assert_eq!(
            map["j"],
            Value::list(vec![Value::Int(1), Value::str("two")])
        );
        assert_eq!(map["k"], m(&[("nested", Value::Bool(true))]));
        assert_eq!(map["l"], Value::str("text\n"));
        assert_eq!(parse_yaml("").unwrap(), m(&[]));
        assert_eq!(parse_yaml("# only a comment\n").unwrap(), Value::Nil);
        // anchors, aliases and merges
        let v = parse_yaml("base: &b {a: 1, b: 2}\nuse:\n  <<: *b\n  b: 3\n").unwrap();
        let Value::Map(map) = &v else { panic!("{v:?}") };
        assert_eq!(map["use"], m(&[("a", Value::Int(1)), ("b", Value::Int(3))]));
        // YAML 1.1 booleans as keys: `y` is true
        assert_eq!(parse_yaml("y: 1").unwrap(), m(&[("true", Value::Int(1))]));
        assert!(parse_yaml("a: [1, 2\n")
            .unwrap_err()
            .starts_with("yaml: line "));
    }

    #[test]
    fn a_round_trip_keeps_the_text() {
        let src = "name: web\nports:\n- 80\n- 443\nsettings:\n  debug: false\n  motd: |-\n    hello\n    world";
        assert_eq!(to_yaml(&parse_yaml(src).unwrap()), src);
    }

    /// Cases from yaml.v2's own decoder tests (v2.4.0).
    #[test]
    fn yaml_v2s_decoder_test_cases() {
        for (src, want) in [
            ("v: 0b10", Value::Int(2)),
            ("v: .1", Value::Float(0.1)),
            ("v: -.Inf", Value::Float(f64::NEG_INFINITY)),
            ("canonical: 6.8523e+5", Value::Float(6.8523e5)),
            ("expo: 685.230_15e+03", Value::Float(685.23015e3)),
            ("fixed: 685_230.15", Value::Float(685230.15)),
            ("canonical: y", Value::Bool(true)),
            ("answer: NO", Value::Bool(false)),
            ("logical: True", Value::Bool(true)),
            ("option: on", Value::Bool(true)),
            ("decimal: +685_230", Value::Int(685230)),
            ("octal: 02472256", Value::Int(685230)),
            ("hexa: 0x_0A_74_AE", Value::Int(685230)),
            ("bin: 0b1010_0111_0100_1010_1110", Value::Int(685230)),
            ("bin: -0b101010", Value::Int(-42)),
            (
                "bin: -0b1000000000000000000000000000000000000000000000000000000000000000",
                Value::Int(i64::MIN),
            ),
            ("empty:", Value::Nil),
            ("english: null", Value::Nil),
            ("v: 4294967296", Value::Int(4294967296)),
            ("v: 18446744073709551615", Value::Uint(u64::MAX)),
            (
                "seq: [A,1,C]",
                Value::list(vec![Value::str("A"), Value::Int(1), Value::str("C")]),
            ),
            (
                "scalar: | # Comment\n\n literal\n\n \ttext\n\n",
                Value::str("\nliteral\n\n\ttext\n"),
            ),
        ] {
            let Value::Map(got) = parse_yaml(src).unwrap_or_else(|e| panic!("{src}: {e}")) else {
                panic!("{src}: not a map");
            };
            assert_eq!(got.values().next(), Some(&want), "{src}");
        }
    }
}
