//! `yamlencode` and `yamldecode` with go-cty-yaml's semantics: the encoder writes what its
//! libyaml-derived emitter writes (block style, strings double-quoted or as `|` literals,
//! 2-space indent, double-quoted strings folded past column 80, `...` after a bare root
//! scalar); the decoder resolves plain scalars with YAML 1.1's rules as that package does
//! (`yes`/`on` are true, `~` is null, timestamps become RFC 3339 strings).

use std::collections::HashMap;

use serde_json::{Map, Value};
use yaml_rust2::parser::{Event, Parser, Tag};
use yaml_rust2::scanner::{Marker, TScalarStyle};

use super::{s, str_arg, FnError, FnResult};

pub(crate) const BEST_INDENT: i64 = 2;
const BEST_WIDTH: usize = 80;

pub(super) fn yamlencode(a: &[Value]) -> FnResult {
    let mut e = Emitter::default();
    e.node(&a[0], Ctx::Root);
    e.finish();
    Ok(s(e.0.out))
}

/// Where a node sits; decides indentation the way libyaml's emitter states do.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Ctx {
    Root,
    SequenceItem,
    MappingKey,
    MappingValue,
}

/// Declares `$name`, an emitter wrapping a [`YamlWriter`] (default-built, derefs to it), so
/// each YAML flavour adds only its node and scalar rules.
macro_rules! yaml_emitter {
    ($name:ident) => {
        #[derive(Default)]
        struct $name($crate::jobspec::functions::yaml::YamlWriter);

        impl std::ops::Deref for $name {
            type Target = $crate::jobspec::functions::yaml::YamlWriter;
            fn deref(&self) -> &Self::Target {
                &self.0
            }
        }

        impl std::ops::DerefMut for $name {
            fn deref_mut(&mut self) -> &mut Self::Target {
                &mut self.0
            }
        }
    };
}
pub(crate) use yaml_emitter;

/// The low-level writer both YAML emitters (this one, go-cty-yaml's, and the templates'
/// yaml.v2 one in `client::template::yaml`) share: libyaml's column, indentation and
/// whitespace bookkeeping. Each emitter derefs to it and adds its own node and scalar rules.
pub(crate) struct YamlWriter {
    pub(crate) out: String,
    pub(crate) column: usize,
    pub(crate) indent: i64,
    pub(crate) indents: Vec<i64>,
    /// The last character written was whitespace (or nothing yet).
    pub(crate) whitespace: bool,
    /// Only indentation has been written on the current line.
    pub(crate) indention: bool,
    /// A document end marker (`...`) is needed before the stream ends.
    pub(crate) open_ended: bool,
}

impl Default for YamlWriter {
    fn default() -> Self {
        YamlWriter {
            out: String::new(),
            column: 0,
            indent: -1,
            indents: Vec::new(),
            whitespace: true,
            indention: true,
            open_ended: false,
        }
    }
}

impl YamlWriter {
    pub(crate) fn put(&mut self, c: char) {
        self.out.push(c);
        self.column += 1;
    }

    pub(crate) fn put_break(&mut self) {
        self.out.push('\n');
        self.column = 0;
    }

    pub(crate) fn push_indent(&mut self, flow: bool, indentless: bool) {
        self.indents.push(self.indent);
        if self.indent < 0 {
            self.indent = if flow { BEST_INDENT } else { 0 };
        } else if !indentless {
            self.indent += BEST_INDENT;
        }
    }

    pub(crate) fn pop_indent(&mut self) {
        self.indent = self.indents.pop().unwrap_or(-1);
    }

    pub(crate) fn write_indent(&mut self) {
        let indent = self.indent.max(0) as usize;
        if !self.indention || self.column > indent || (self.column == indent && !self.whitespace) {
            self.put_break();
        }
        while self.column < indent {
            self.put(' ');
        }
        self.whitespace = true;
        self.indention = true;
    }

    pub(crate) fn indicator(&mut self, ind: &str, need_ws: bool, is_ws: bool, is_indention: bool) {
        if need_ws && !self.whitespace {
            self.put(' ');
        }
        for c in ind.chars() {
            self.put(c);
        }
        self.whitespace = is_ws;
        self.indention = self.indention && is_indention;
        self.open_ended = false;
    }

    /// An empty flow collection: `[]` or `{}`.
    pub(crate) fn flow_empty(&mut self, open: &str, close: &str) {
        self.indicator(open, true, true, false);
        self.indicator(close, false, false, false);
    }

    /// A double-quoted scalar with libyaml's escapes, folded past `BEST_WIDTH` when breaks
    /// are allowed; `printable` is the emitter's notion of a printable character.
    pub(crate) fn double_quoted(
        &mut self,
        st: &str,
        allow_breaks: bool,
        printable: fn(char) -> bool,
    ) {
        self.indicator("\"", true, false, false);
        let chars: Vec<char> = st.chars().collect();
        let mut spaces = false;
        for (i, &c) in chars.iter().enumerate() {
            if !printable(c) || c == '\u{FEFF}' || is_break(c) || c == '"' || c == '\\' {
                self.put('\\');
                match escape_char(c) {
                    Some(e) => self.put(e),
                    None => {
                        let v = c as u32;
                        let (p, w) = if v <= 0xFF {
                            ('x', 2)
                        } else if v <= 0xFFFF {
                            ('u', 4)
                        } else {
                            ('U', 8)
                        };
                        self.put(p);
                        for k in (0..w).rev() {
                            let d = (v >> (k * 4)) & 0xF;
                            self.put(char::from_digit(d, 16).unwrap_or('0').to_ascii_uppercase());
                        }
                    }
                }
                spaces = false;
            } else if c == ' ' {
                if allow_breaks
                    && !spaces
                    && self.column > BEST_WIDTH
                    && i > 0
                    && i < chars.len() - 1
                {
                    self.write_indent();
                    if chars.get(i + 1) == Some(&' ') {
                        self.put('\\');
                    }
                } else {
                    self.put(c);
                }
                spaces = true;
            } else {
                self.put(c);
                spaces = false;
            }
        }
        self.indicator("\"", false, false, false);
        self.whitespace = false;
        self.indention = false;
    }
}

yaml_emitter!(Emitter);

impl Emitter {
    fn finish(&mut self) {
        // Document end (implicit), then stream end.
        self.write_indent();
        if self.open_ended {
            self.indicator("...", true, false, false);
            self.write_indent();
        }
    }

    fn node(&mut self, v: &Value, ctx: Ctx) {
        match v {
            Value::Array(items) if items.is_empty() => self.flow_empty("[", "]"),
            Value::Object(m) if m.is_empty() => self.flow_empty("{", "}"),
            Value::Array(items) => {
                let indentless = ctx == Ctx::MappingValue && !self.indention;
                self.push_indent(false, indentless);
                for item in items {
                    self.write_indent();
                    self.indicator("-", true, false, true);
                    self.node(item, Ctx::SequenceItem);
                }
                self.pop_indent();
            }
            Value::Object(m) => {
                self.push_indent(false, false);
                for (k, item) in m {
                    self.write_indent();
                    let key = Value::String(k.clone());
                    if simple_key_ok(k) {
                        self.node(&key, Ctx::MappingKey);
                        self.indicator(":", false, false, false);
                    } else {
                        self.indicator("?", true, false, true);
                        self.node(&key, Ctx::MappingValue);
                        self.write_indent();
                        self.indicator(":", true, false, true);
                    }
                    self.node(item, Ctx::MappingValue);
                }
                self.pop_indent();
            }
            Value::Null => self.scalar_plain("null", ctx),
            Value::Bool(b) => self.scalar_plain(if *b { "true" } else { "false" }, ctx),
            Value::Number(n) => self.scalar_plain(&number_text(n), ctx),
            Value::String(st) => self.scalar_string(st, ctx),
        }
    }

    fn scalar_plain(&mut self, text: &str, ctx: Ctx) {
        self.push_indent(true, false);
        if !self.whitespace {
            self.put(' ');
        }
        for c in text.chars() {
            self.put(c);
        }
        self.whitespace = false;
        self.indention = false;
        if ctx == Ctx::Root {
            self.open_ended = true;
        }
        self.pop_indent();
    }

    fn scalar_string(&mut self, st: &str, ctx: Ctx) {
        let a = analyze(st);
        let literal = st.contains('\n') && a.block_allowed && ctx != Ctx::MappingKey;
        self.push_indent(true, false);
        if literal {
            self.literal(st);
        } else {
            self.double_quoted(st, ctx != Ctx::MappingKey, is_printable);
        }
        self.pop_indent();
    }

    fn literal(&mut self, st: &str) {
        self.indicator("|", true, false, false);
        // Block scalar hints: an indentation indicator when the text starts with a space or
        // a line break, the chomping indicator from its trailing line breaks.
        if st.starts_with([' ', '\n']) {
            self.indicator(&BEST_INDENT.to_string(), false, false, false);
        }
        self.open_ended = false;
        let trailing = st.chars().rev().take_while(|c| *c == '\n').count();
        let chomp = match trailing {
            0 => Some("-"),
            1 if st.len() > 1 => None,
            _ => {
                self.open_ended = true;
                Some("+")
            }
        };
        if let Some(c) = chomp {
            self.indicator(c, false, false, false);
        }
        self.put_break();
        self.indention = true;
        self.whitespace = true;
        let mut breaks = true;
        for c in st.chars() {
            if c == '\n' {
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

/// libyaml writes keys up to 128 bytes inline; longer or multi-line keys take `? key`.
fn simple_key_ok(k: &str) -> bool {
    !k.contains(['\n', '\r', '\u{85}', '\u{2028}', '\u{2029}']) && k.len() <= 128
}

/// A number as cty prints it (`big.Float.Text('f', -1)`): no exponent.
fn number_text(n: &serde_json::Number) -> String {
    if let Some(i) = n.as_i64() {
        return i.to_string();
    }
    if let Some(u) = n.as_u64() {
        return u.to_string();
    }
    let f = n.as_f64().unwrap_or(0.0);
    format!("{f}")
}

fn is_printable(c: char) -> bool {
    matches!(c, '\n' | '\u{20}'..='\u{7E}' | '\u{A0}'..='\u{D7FF}' | '\u{E000}'..='\u{FFFD}' | '\u{10000}'..)
        && c != '\u{FEFF}'
}

fn is_break(c: char) -> bool {
    matches!(c, '\r' | '\n' | '\u{85}' | '\u{2028}' | '\u{2029}')
}

fn escape_char(c: char) -> Option<char> {
    Some(match c {
        '\0' => '0',
        '\u{07}' => 'a',
        '\u{08}' => 'b',
        '\t' => 't',
        '\n' => 'n',
        '\u{0B}' => 'v',
        '\u{0C}' => 'f',
        '\r' => 'r',
        '\u{1B}' => 'e',
        '"' => '"',
        '\\' => '\\',
        '\u{85}' => 'N',
        '\u{A0}' => '_',
        '\u{2028}' => 'L',
        '\u{2029}' => 'P',
        _ => return None,
    })
}

struct Analysis {
    block_allowed: bool,
}

/// The part of libyaml's scalar analysis that decides whether a `|` literal may be used.
fn analyze(st: &str) -> Analysis {
    let chars: Vec<char> = st.chars().collect();
    let mut special = false;
    let mut trailing_space = false;
    let mut space_break = false;
    let mut previous_space = false;
    for (i, &c) in chars.iter().enumerate() {
        if !is_printable(c) {
            special = true;
        }
        if c == ' ' {
            if i + 1 == chars.len() {
                trailing_space = true;
            }
            previous_space = true;
        } else if is_break(c) {
            if previous_space {
                space_break = true;
            }
            previous_space = false;
        } else {
            previous_space = false;
        }
    }
    Analysis {
        block_allowed: !(chars.is_empty() || trailing_space || space_break || special),
    }
}

// ---- decoding ------------------------------------------------------------------------------

pub(super) fn yamldecode(a: &[Value]) -> FnResult {
    let src = str_arg(a, 0, "src")?;
    decode(&src).map_err(FnError::Call)
}

struct Decoder<'s> {
    parser: Parser<std::str::Chars<'s>>,
    /// Anchor id -> value; ids being defined are in `pending`.
    anchors: HashMap<usize, Value>,
    pending: Vec<usize>,
}

fn event_err(m: &Marker, msg: &str) -> String {
    format!("on line {}, column {}: {msg}", m.line(), m.col() + 1)
}

fn decode(src: &str) -> Result<Value, String> {
    let src = if src.is_empty() { "\n" } else { src };
    let mut d = Decoder {
        parser: Parser::new_from_str(src),
        anchors: HashMap::new(),
        pending: Vec::new(),
    };
    let (ev, m) = d.next()?;
    if ev != Event::StreamStart {
        return Err(event_err(&m, "missing stream start token"));
    }
    let (ev, m) = d.next()?;
    if ev != Event::DocumentStart {
        return Err(event_err(&m, "missing start of document"));
    }
    let v = d.value()?;
    let (ev, m) = d.next()?;
    match ev {
        Event::DocumentEnd => {}
        Event::DocumentStart => return Err(event_err(&m, "only a single document is allowed")),
        _ => return Err(event_err(&m, "unexpected extra content after value")),
    }
    let (ev, m) = d.next()?;
    if ev != Event::StreamEnd {
        return Err(event_err(&m, "unexpected extra content after value"));
    }
    Ok(v)
}

impl Decoder<'_> {
    fn next(&mut self) -> Result<(Event, Marker), String> {
        self.parser.next_token().map_err(|e| {
            let m = e.marker();
            format!("on line {}, column {}: {}", m.line(), m.col() + 1, e.info())
        })
    }

    fn value(&mut self) -> Result<Value, String> {
        let (ev, m) = self.next()?;
        self.value_from(ev, &m)
    }

    fn value_from(&mut self, ev: Event, m: &Marker) -> Result<Value, String> {
        match ev {
            Event::Scalar(text, style, anchor, tag) => {
                let v = resolve(tag.as_ref(), &text, style).map_err(|e| event_err(m, &e))?;
                if anchor > 0 {
                    self.anchors.insert(anchor, v.clone());
                }
                Ok(v)
            }
            Event::Alias(id) => {
                if self.pending.contains(&id) {
                    return Err(event_err(
                        m,
                        "cannot refer to anchor from inside its own definition",
                    ));
                }
                self.anchors
                    .get(&id)
                    .cloned()
                    .ok_or_else(|| event_err(m, "reference to undefined anchor"))
            }
            Event::MappingStart(anchor, tag) => {
                if let Some(t) = tag.as_ref().filter(|t| long_tag(t) != MAP_TAG) {
                    return Err(event_err(
                        m,
                        &format!("can't interpret mapping as {}", long_tag(t)),
                    ));
                }
                self.begin(anchor);
                let mut out = Map::new();
                loop {
                    let (ev, km) = self.next()?;
                    match ev {
                        Event::MappingEnd => break,
                        Event::Scalar(ref k, _, _, ref t)
                            if (t.is_none() && k == "<<")
                                || t.as_ref().is_some_and(|t| long_tag(t) == MERGE_TAG) =>
                        {
                            let merged = self.value()?;
                            merge_into(&mut out, merged).map_err(|e| event_err(&km, &e))?;
                        }
                        Event::Scalar(k, style, _, t) => {
                            let key =
                                resolve(t.as_ref(), &k, style).map_err(|e| event_err(&km, &e))?;
                            let key = match key {
                                Value::Null => {
                                    return Err(event_err(&km, "mapping key cannot be null"))
                                }
                                Value::String(s) => s,
                                Value::Bool(b) => b.to_string(),
                                Value::Number(n) => n.to_string(),
                                _ => {
                                    return Err(event_err(
                                        &km,
                                        "only strings are allowed as mapping keys",
                                    ))
                                }
                            };
                            let v = self.value()?;
                            out.insert(key, v);
                        }
                        _ => {
                            return Err(event_err(&km, "only strings are allowed as mapping keys"))
                        }
                    }
                }
                let v = Value::Object(out);
                self.complete(anchor, &v);
                Ok(v)
            }
            Event::SequenceStart(anchor, tag) => {
                if let Some(t) = tag.as_ref().filter(|t| long_tag(t) != SEQ_TAG) {
                    return Err(event_err(
                        m,
                        &format!("can't interpret sequence as {}", long_tag(t)),
                    ));
                }
                self.begin(anchor);
                let mut out = Vec::new();
                loop {
                    let (ev, im) = self.next()?;
                    if ev == Event::SequenceEnd {
                        break;
                    }
                    out.push(self.value_from(ev, &im)?);
                }
                let v = Value::Array(out);
                self.complete(anchor, &v);
                Ok(v)
            }
            Event::DocumentStart => Err(event_err(m, "only a single document is allowed")),
            Event::StreamEnd => Err(event_err(m, "expecting value but found end of stream")),
            Event::MappingEnd => Err(event_err(m, "expecting value but found end of mapping")),
            Event::SequenceEnd => Err(event_err(m, "expecting value but found end of sequence")),
            other => Err(event_err(m, &format!("unexpected parser event {other:?}"))),
        }
    }

    fn begin(&mut self, anchor: usize) {
        if anchor > 0 {
            self.pending.push(anchor);
        }
    }

    fn complete(&mut self, anchor: usize, v: &Value) {
        if anchor > 0 {
            self.pending.retain(|a| *a != anchor);
            self.anchors.insert(anchor, v.clone());
        }
    }
}

fn merge_into(out: &mut Map<String, Value>, merged: Value) -> Result<(), String> {
    match merged {
        Value::Object(m) => {
            out.extend(m);
            Ok(())
        }
        Value::Array(items) => {
            for item in items {
                match item {
                    Value::Object(m) => out.extend(m),
                    other => {
                        return Err(format!(
                            "cannot merge {} (from sequence) into mapping",
                            kind_name(&other)
                        ))
                    }
                }
            }
            Ok(())
        }
        other => Err(format!("cannot merge {} into mapping", kind_name(&other))),
    }
}

fn kind_name(v: &Value) -> &'static str {
    match v {
        Value::Null => "dynamic",
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "tuple",
        Value::Object(_) => "object",
    }
}

const PREFIX: &str = "tag:yaml.org,2002:";
const STR_TAG: &str = "tag:yaml.org,2002:str";
const BOOL_TAG: &str = "tag:yaml.org,2002:bool";
const INT_TAG: &str = "tag:yaml.org,2002:int";
const FLOAT_TAG: &str = "tag:yaml.org,2002:float";
const NULL_TAG: &str = "tag:yaml.org,2002:null";
const TIMESTAMP_TAG: &str = "tag:yaml.org,2002:timestamp";
const BINARY_TAG: &str = "tag:yaml.org,2002:binary";
const MAP_TAG: &str = "tag:yaml.org,2002:map";
const SEQ_TAG: &str = "tag:yaml.org,2002:seq";
const MERGE_TAG: &str = "tag:yaml.org,2002:merge";

fn long_tag(t: &Tag) -> String {
    if t.handle == "!!" {
        format!("{PREFIX}{}", t.suffix)
    } else {
        format!("{}{}", t.handle, t.suffix)
    }
}

fn resolve_map(src: &str) -> Option<Value> {
    Some(match src {
        "y" | "Y" | "yes" | "Yes" | "YES" | "true" | "True" | "TRUE" | "on" | "On" | "ON" => {
            Value::Bool(true)
        }
        "n" | "N" | "no" | "No" | "NO" | "false" | "False" | "FALSE" | "off" | "Off" | "OFF" => {
            Value::Bool(false)
        }
        "" | "~" | "null" | "Null" | "NULL" => Value::Null,
        _ => return None,
    })
}

fn is_infinity(src: &str) -> bool {
    matches!(src.trim_start_matches(['+', '-']), ".inf" | ".Inf" | ".INF")
}

/// go-cty-yaml's resolveScalar.
fn resolve(tag: Option<&Tag>, src: &str, style: TScalarStyle) -> Result<Value, String> {
    let mut tag = tag.map(long_tag).unwrap_or_default();
    // A lone `!` (non-specific tag) marks a string.
    if tag == "!" {
        tag = STR_TAG.to_string();
    }
    let resolvable = [
        "",
        STR_TAG,
        BOOL_TAG,
        INT_TAG,
        FLOAT_TAG,
        NULL_TAG,
        TIMESTAMP_TAG,
        BINARY_TAG,
    ];
    if !resolvable.contains(&tag.as_str()) {
        return Err(format!("unsupported tag {tag:?}"));
    }
    let hint = src.chars().next().map_or('N', |c| match c {
        '+' | '-' => 'S',
        '0'..='9' => 'D',
        'y' | 'Y' | 'n' | 'N' | 't' | 'T' | 'f' | 'F' | 'o' | 'O' | '~' => 'M',
        '.' => '.',
        _ => '\0',
    });
    if hint != '\0' && tag != STR_TAG && tag != BINARY_TAG {
        if matches!(
            style,
            TScalarStyle::SingleQuoted | TScalarStyle::DoubleQuoted
        ) {
            return Ok(Value::String(src.to_string()));
        }
        if let Some(v) = resolve_map(src) {
            return Ok(v);
        }
        if is_infinity(src) {
            return Err("floating point infinity is not supported".to_string());
        }
        if tag.is_empty() && matches!(src, ".nan" | ".NaN" | ".NAN") {
            return Err("floating point NaN is not supported".to_string());
        }
        match hint {
            '.' => {
                if let Some(v) = parse_number(src) {
                    return Ok(v);
                }
            }
            'D' | 'S' => {
                if tag.is_empty() || tag == TIMESTAMP_TAG {
                    if let Some(t) = parse_timestamp(src) {
                        return Ok(Value::String(t));
                    }
                }
                if is_integer_literal(src) {
                    tag = INT_TAG.to_string();
                } else if is_float_literal(src) {
                    tag = FLOAT_TAG.to_string();
                }
            }
            _ => {}
        }
    }
    match tag.as_str() {
        STR_TAG => Ok(Value::String(src.to_string())),
        BINARY_TAG => {
            use base64::Engine as _;
            base64::engine::general_purpose::STANDARD
                .decode(src.trim())
                .map_err(|_| format!("cannot parse {src:?} as {tag}: not valid base64"))?;
            Ok(Value::String(src.to_string()))
        }
        BOOL_TAG => match resolve_map(src) {
            Some(v @ Value::Bool(_)) => Ok(v),
            _ => Err(format!("cannot parse {src:?} as {tag}")),
        },
        INT_TAG | FLOAT_TAG => {
            let plain = src.replace('_', "");
            parse_number(&plain)
                .or_else(|| parse_go_int(&plain))
                .ok_or_else(|| format!("cannot parse {src:?} as {tag}"))
        }
        TIMESTAMP_TAG => parse_timestamp(src)
            .map(Value::String)
            .ok_or_else(|| format!("cannot parse {src:?} as {tag}")),
        NULL_TAG => Ok(Value::Null),
        _ => Ok(Value::String(src.to_string())),
    }
}

fn is_integer_literal(s: &str) -> bool {
    let body = s.strip_prefix(['+', '-']).unwrap_or(s);
    (!body.is_empty() && body.chars().all(|c| c.is_ascii_digit()))
        || s.strip_prefix("0o")
            .is_some_and(|r| !r.is_empty() && r.chars().all(|c| ('0'..='7').contains(&c)))
        || s.strip_prefix("0x")
            .is_some_and(|r| !r.is_empty() && r.chars().all(|c| c.is_ascii_hexdigit()))
}

fn is_float_literal(s: &str) -> bool {
    let body = s.strip_prefix(['+', '-']).unwrap_or(s);
    let (mantissa, exp) = match body.find(['e', 'E']) {
        Some(i) => (&body[..i], Some(&body[i + 1..])),
        None => (body, None),
    };
    let mantissa_ok = match mantissa.split_once('.') {
        Some(("", frac)) => !frac.is_empty() && frac.chars().all(|c| c.is_ascii_digit()),
        Some((int, frac)) => {
            !int.is_empty()
                && int.chars().all(|c| c.is_ascii_digit())
                && frac.chars().all(|c| c.is_ascii_digit())
        }
        None => !mantissa.is_empty() && mantissa.chars().all(|c| c.is_ascii_digit()),
    };
    let exp_ok = exp.is_none_or(|e| {
        let e = e.strip_prefix(['+', '-']).unwrap_or(e);
        !e.is_empty() && e.chars().all(|c| c.is_ascii_digit())
    });
    mantissa_ok && exp_ok
}

/// cty.ParseNumberVal: decimal integers and floats.
fn parse_number(s: &str) -> Option<Value> {
    if !is_float_literal(s) {
        return None;
    }
    if let Ok(i) = s.parse::<i64>() {
        return Some(Value::from(i));
    }
    let f: f64 = s.parse().ok()?;
    serde_json::Number::from_f64(f).map(|n| super::float_value(n.as_f64().unwrap_or(f)))
}

/// strconv.ParseInt(s, 0, 64): `0x`, `0o`, `0b` and leading-zero octal.
fn parse_go_int(s: &str) -> Option<Value> {
    let (neg, body) = match s.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    let (radix, digits) = if let Some(d) = body.strip_prefix("0x").or(body.strip_prefix("0X")) {
        (16, d)
    } else if let Some(d) = body.strip_prefix("0o").or(body.strip_prefix("0O")) {
        (8, d)
    } else if let Some(d) = body.strip_prefix("0b").or(body.strip_prefix("0B")) {
        (2, d)
    } else if body.len() > 1 && body.starts_with('0') {
        (8, &body[1..])
    } else {
        (10, body)
    };
    let n = i64::from_str_radix(digits, radix).ok()?;
    Some(Value::from(if neg { -n } else { n }))
}

/// go-cty-yaml's timestamp formats (YAML 1.1 timestamps), printed as RFC 3339 the way Go's
/// time.Format(time.RFC3339) does.
fn parse_timestamp(s: &str) -> Option<String> {
    let digits = s.bytes().take_while(u8::is_ascii_digit).count();
    if digits != 4 || s.as_bytes().get(4) != Some(&b'-') {
        return None;
    }
    let (date, rest) = match s.find(['T', 't', ' ']) {
        Some(i) => (&s[..i], Some((&s[i..i + 1], &s[i + 1..]))),
        None => (s, None),
    };
    let mut parts = date.split('-');
    let y: i32 = parts.next()?.parse().ok()?;
    let mo: u32 = short_field(parts.next()?)?;
    let d: u32 = short_field(parts.next()?)?;
    if parts.next().is_some() {
        return None;
    }
    let date = chrono::NaiveDate::from_ymd_opt(y, mo, d)?;
    let Some((sep, time)) = rest else {
        return Some(format!("{}T00:00:00Z", date.format("%Y-%m-%d")));
    };
    // With T/t the time must carry a zone (Z or ±hh:mm); with a space it must not.
    let (clock, offset_secs) = if sep == " " {
        (time, Some(0))
    } else if let Some(c) = time.strip_suffix(['Z', 'z']) {
        (c, Some(0))
    } else {
        let i = time.rfind(['+', '-'])?;
        let (c, z) = time.split_at(i);
        let sign = if z.starts_with('-') { -1 } else { 1 };
        let (zh, zm) = z[1..].split_once(':')?;
        if zh.len() != 2 || zm.len() != 2 {
            return None;
        }
        let secs = sign * (zh.parse::<i32>().ok()? * 3600 + zm.parse::<i32>().ok()? * 60);
        (c, Some(secs))
    };
    // Fractional seconds are accepted but RFC 3339 as Go formats it has none.
    let hms = match clock.split_once('.') {
        Some((h, f)) if !f.is_empty() && f.len() <= 9 && f.bytes().all(|b| b.is_ascii_digit()) => h,
        Some(_) => return None,
        None => clock,
    };
    let mut hp = hms.split(':');
    let h: u32 = short_field(hp.next()?)?;
    let mi: u32 = short_field(hp.next()?)?;
    let se: u32 = short_field(hp.next()?)?;
    if hp.next().is_some() {
        return None;
    }
    let t = date.and_hms_opt(h, mi, se)?;
    let off = offset_secs?;
    let zone = if off == 0 {
        "Z".to_string()
    } else {
        let a = off.abs();
        format!(
            "{}{:02}:{:02}",
            if off < 0 { '-' } else { '+' },
            a / 3600,
            (a % 3600) / 60
        )
    };
    Some(format!("{}{zone}", t.format("%Y-%m-%dT%H:%M:%S")))
}

/// Go's layout fields "1"/"2"/"15"/"4"/"5": one or two digits.
fn short_field(s: &str) -> Option<u32> {
    if s.is_empty() || s.len() > 2 || !s.bytes().all(|b| b.is_ascii_digit()) {
        return None;
    }
    s.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn enc(v: Value) -> String {
        match yamlencode(&[v]) {
            Ok(Value::String(s)) => s,
            other => panic!("yamlencode: {other:?}"),
        }
    }

    #[test]
    fn encodes_like_go_cty_yaml() {
        assert_eq!(
            enc(json!({"a": "b", "c": "d"})),
            "\"a\": \"b\"\n\"c\": \"d\"\n"
        );
        assert_eq!(
            enc(json!({"foo": [1, 2, 3], "bar": "baz"})),
            "\"bar\": \"baz\"\n\"foo\":\n- 1\n- 2\n- 3\n"
        );
        assert_eq!(
            enc(json!({"foo": [1, {"a": "b", "c": "d"}], "bar": "baz"})),
            "\"bar\": \"baz\"\n\"foo\":\n- 1\n- \"a\": \"b\"\n  \"c\": \"d\"\n"
        );
        assert_eq!(
            enc(json!({"a": {"b": {"c": true}}})),
            "\"a\":\n  \"b\":\n    \"c\": true\n"
        );
        assert_eq!(enc(json!([[1, 2], []])), "- - 1\n  - 2\n- []\n");
        assert_eq!(enc(json!({"e": {}, "n": null})), "\"e\": {}\n\"n\": null\n");
        assert_eq!(enc(json!("foo")), "\"foo\"\n");
        assert_eq!(enc(json!(1)), "1\n...\n");
        assert_eq!(enc(json!(1.5)), "1.5\n...\n");
        assert_eq!(enc(json!(true)), "true\n...\n");
        assert_eq!(
            enc(json!({"s": "line1\nline2\n", "t": "a\nb"})),
            "\"s\": |\n  line1\n  line2\n\"t\": |-\n  a\n  b\n"
        );
        assert_eq!(enc(json!(["x\n"])), "- |\n  x\n");
        assert_eq!(
            enc(json!({"q": "say \"hi\"\t\\"})),
            "\"q\": \"say \\\"hi\\\"\\t\\\\\"\n"
        );
        // A line break after a space rules out the literal style.
        assert_eq!(enc(json!({"k": "a \nb"})), "\"k\": \"a \\nb\"\n");
    }

    #[test]
    fn long_double_quoted_strings_fold_at_80_columns() {
        let words = vec!["word"; 30].join(" ");
        let out = enc(json!({ "k": words }));
        let first = out.lines().next().unwrap_or("");
        assert!(first.len() > 80 && first.len() < 90, "{out}");
        assert!(
            out.lines().nth(1).unwrap_or("").starts_with("  word"),
            "{out}"
        );
    }

    #[test]
    fn decodes_with_yaml_1_1_resolution() {
        let d = |s: &str| decode(s).expect("decodes");
        assert_eq!(
            d("a: 1\nb: yes\nc: ~\nd: '1'\ne: 1.5\nf: [x, 2]\ng: 0x1F\nh: off\n"),
            json!({"a": 1, "b": true, "c": null, "d": "1", "e": 1.5, "f": ["x", 2], "g": 31, "h": false})
        );
        assert_eq!(d("hello"), json!("hello"));
        assert_eq!(d("2001-12-14 21:59:43.10"), json!("2001-12-14T21:59:43Z"));
        assert_eq!(d("2002-12-14"), json!("2002-12-14T00:00:00Z"));
        assert_eq!(
            d("base: &b {x: 1}\nderived:\n  <<: *b\n  z: 2\n"),
            json!({"base": {"x": 1}, "derived": {"x": 1, "z": 2}})
        );
        assert_eq!(d("!!str 12"), json!("12"));
        // libyaml ends the first document before the second starts, so go-cty-yaml reports
        // the second as extra content.
        assert!(decode("a: 1\n---\nb: 2\n")
            .unwrap_err()
            .contains("unexpected extra content after value"));
        assert!(decode("")
            .unwrap_err()
            .contains("missing start of document"));
        assert!(decode("x: .nan")
            .unwrap_err()
            .contains("NaN is not supported"));
        assert!(decode("a: [1").is_err());
        assert!(decode("!!int foo")
            .unwrap_err()
            .contains("cannot parse \"foo\""));
    }
}
