//! The schema-driven walk over a parsed HCL body: each block kind declares the arguments and
//! nested blocks it accepts, and every deviation becomes a positioned diagnostic (unknown names
//! with hashicorp/hcl's "Did you mean" hint, duplicates, label counts, unsuitable values).
//! Decoding keeps going after a problem so that one run lists them all.

use std::collections::BTreeMap;
use std::ops::Range;

use hcl_edit::expr::Expression;
use hcl_edit::structure::{Attribute, Block, Body, Structure};
use hcl_edit::Span;
use serde_json::Value;

use super::diag::{name_suggestion, Diagnostic};
use super::duration::parse_go_duration;
use super::eval::{as_bool, as_f64, value_to_string, EvalContext};

/// What a body may contain.
pub struct Schema {
    pub attrs: &'static [&'static str],
    /// Block types with the names of their labels (`group "name"` has `["name"]`).
    pub blocks: &'static [(&'static str, &'static [&'static str])],
    /// Names Nomad accepts here that this parser does not decode yet: rejected with a message
    /// saying so, rather than being silently dropped.
    pub pending: &'static [&'static str],
}

/// The attributes and blocks of one body, checked against its schema.
pub struct Content<'b> {
    attrs: BTreeMap<&'b str, &'b Attribute>,
    blocks: Vec<&'b Block>,
}

impl<'b> Content<'b> {
    pub fn attr(&self, name: &str) -> Option<&'b Attribute> {
        self.attrs.get(name).copied()
    }

    pub fn blocks(&self, ty: &str) -> Vec<&'b Block> {
        self.blocks
            .iter()
            .copied()
            .filter(|b| b.ident.value().as_str() == ty)
            .collect()
    }
}

/// Decoding state: the evaluation context and every diagnostic found so far.
pub struct Decoder<'a> {
    pub ctx: EvalContext<'a>,
    pub diags: Vec<Diagnostic>,
    /// What the file set, when the caller wants the job as Nomad's api structs print it.
    pub presence: super::presence::Presence,
}

/// The block header (type and labels), hcl's DefRange.
pub fn block_def_span(b: &Block) -> Option<Range<usize>> {
    let start = b.ident.span()?.start;
    let end = b
        .labels
        .last()
        .and_then(|l| l.span())
        .map(|s| s.end)
        .or_else(|| b.ident.span().map(|s| s.end))?;
    Some(start..end)
}

impl<'a> Decoder<'a> {
    pub fn new(ctx: EvalContext<'a>) -> Self {
        Decoder {
            ctx,
            diags: Vec::new(),
            presence: super::presence::Presence::default(),
        }
    }

    /// A decoder with the same evaluation context and no diagnostics of its own, for
    /// decoding part of a job on another thread (not while recording presence, which is
    /// keyed by the bodies this decoder saw).
    pub fn fork(&self) -> Decoder<'a> {
        Decoder::new(self.ctx.clone())
    }

    pub fn push(&mut self, summary: &str, detail: String, span: Option<Range<usize>>) {
        let d = self.ctx.map.diag(summary, detail, span);
        self.diags.push(d);
    }

    fn range_string(&self, span: Option<Range<usize>>) -> String {
        span.map(|s| self.ctx.map.range(&s).to_string())
            .unwrap_or_else(|| "<nil>".to_string())
    }

    /// Checks `body` against `schema` and returns what it holds.
    pub fn content<'b>(&mut self, body: &'b Body, schema: &Schema) -> Content<'b> {
        let mut content = Content {
            attrs: BTreeMap::new(),
            blocks: Vec::new(),
        };
        for s in body.iter() {
            match s {
                Structure::Attribute(a) => {
                    let name = a.key.value().as_str();
                    if !schema.attrs.contains(&name) {
                        self.unsupported_attr(a, schema);
                        continue;
                    }
                    if let Some(prev) = content.attrs.get(name) {
                        let prev_at = self.range_string(prev.key.span());
                        self.push(
                            "Attribute redefined",
                            format!(
                                "The argument \"{name}\" was already set at {prev_at}. Each argument may be set only once."
                            ),
                            a.key.span(),
                        );
                        continue;
                    }
                    content.attrs.insert(name, a);
                }
                Structure::Block(b) => {
                    let ty = b.ident.value().as_str();
                    match schema.blocks.iter().find(|(t, _)| *t == ty) {
                        None => self.unsupported_block(b, schema),
                        Some((_, labels)) => {
                            if self.check_labels(b, labels) {
                                content.blocks.push(b);
                            }
                        }
                    }
                }
            }
        }
        self.presence.record(
            body,
            content.attrs.keys().copied(),
            content.blocks.iter().copied(),
        );
        content
    }

    fn unsupported_attr(&mut self, a: &Attribute, schema: &Schema) {
        let name = a.key.value().as_str();
        if schema.pending.contains(&name) {
            self.push(
                "Unsupported argument",
                format!("An argument named \"{name}\" is valid in Nomad but not supported by this version of nomad-rs yet."),
                a.key.span(),
            );
            return;
        }
        let hint = match name_suggestion(name, schema.attrs.iter().copied()) {
            Some(s) => format!(" Did you mean \"{s}\"?"),
            None if schema.blocks.iter().any(|(t, _)| *t == name) => {
                format!(" Did you mean to define a block of type \"{name}\"?")
            }
            None => String::new(),
        };
        self.push(
            "Unsupported argument",
            format!("An argument named \"{name}\" is not expected here.{hint}"),
            a.key.span(),
        );
    }

    fn unsupported_block(&mut self, b: &Block, schema: &Schema) {
        let ty = b.ident.value().as_str();
        if schema.pending.contains(&ty) {
            self.push(
                "Unsupported block type",
                format!("Blocks of type \"{ty}\" are valid in Nomad but not supported by this version of nomad-rs yet."),
                b.ident.span(),
            );
            return;
        }
        let hint = match name_suggestion(ty, schema.blocks.iter().map(|(t, _)| *t)) {
            Some(s) => format!(" Did you mean \"{s}\"?"),
            None if schema.attrs.contains(&ty) => format!(
                " Did you mean to define argument \"{ty}\"? If so, use the equals sign to assign it a value."
            ),
            None => String::new(),
        };
        self.push(
            "Unsupported block type",
            format!("Blocks of type \"{ty}\" are not expected here.{hint}"),
            b.ident.span(),
        );
    }

    fn check_labels(&mut self, b: &Block, names: &[&str]) -> bool {
        let ty = b.ident.value().as_str();
        let want = names.len();
        let got = b.labels.len();
        if got < want {
            self.push(
                &format!("Missing {} for {ty}", names[got]),
                format!(
                    "All {ty} blocks must have {want} labels ({}).",
                    names.join(", ")
                ),
                block_def_span(b),
            );
            return false;
        }
        if got > want {
            let detail = if want == 0 {
                format!("No labels are expected for {ty} blocks.")
            } else {
                format!(
                    "Only {want} labels ({}) are expected for {ty} blocks.",
                    names.join(", ")
                )
            };
            self.push(
                &format!("Extraneous label for {ty}"),
                detail,
                b.labels.get(want).and_then(|l| l.span()),
            );
            return false;
        }
        true
    }

    /// The one block of a type allowed at most once.
    pub fn single<'b>(&mut self, content: &Content<'b>, ty: &str) -> Option<&'b Block> {
        let blocks = content.blocks(ty);
        if let Some(extra) = blocks.get(1) {
            let first_at = self.range_string(block_def_span(blocks[0]));
            self.push(
                &format!("Duplicate {ty} block"),
                format!("Only one {ty} block is allowed. Another was defined at {first_at}."),
                block_def_span(extra),
            );
        }
        blocks.first().copied()
    }

    pub fn eval(&mut self, expr: &Expression) -> Option<Value> {
        match self.ctx.eval(expr) {
            Ok(v) => Some(v),
            Err(d) => {
                self.diags.push(d);
                None
            }
        }
    }

    fn unsuitable(&mut self, what: &str, attr: &Attribute) {
        self.push(
            "Unsuitable value type",
            format!("Unsuitable value: {what}"),
            attr.value.span(),
        );
    }

    pub fn string(&mut self, attr: Option<&Attribute>) -> Option<String> {
        let attr = attr?;
        let v = self.eval(&attr.value)?;
        match value_to_string(&v) {
            Some(s) => Some(s),
            None => {
                self.unsuitable("string required", attr);
                None
            }
        }
    }

    pub fn int(&mut self, attr: Option<&Attribute>) -> Option<i64> {
        let attr = attr?;
        let v = self.eval(&attr.value)?;
        match as_f64(&v) {
            Some(n) if n.fract() == 0.0 => Some(n as i64),
            Some(_) => {
                self.unsuitable("value must be a whole number", attr);
                None
            }
            None => {
                self.unsuitable("a number is required", attr);
                None
            }
        }
    }

    pub fn int32(&mut self, attr: Option<&Attribute>) -> Option<i32> {
        let a = attr?;
        let n = self.int(Some(a))?;
        match i32::try_from(n) {
            Ok(n) => Some(n),
            Err(_) => {
                self.unsuitable("value out of range", a);
                None
            }
        }
    }

    pub fn bool(&mut self, attr: Option<&Attribute>) -> Option<bool> {
        let attr = attr?;
        let v = self.eval(&attr.value)?;
        match as_bool(&v) {
            Some(b) => Some(b),
            None => {
                self.unsuitable("a bool is required", attr);
                None
            }
        }
    }

    /// A Go duration string or a number of nanoseconds, as Nomad's decodeDuration accepts.
    pub fn duration(&mut self, attr: Option<&Attribute>) -> Option<i64> {
        let attr = attr?;
        let v = self.eval(&attr.value)?;
        match v {
            Value::String(s) => match parse_go_duration(&s) {
                Ok(n) => Some(n),
                Err(e) => {
                    self.push(
                        "Unsuitable value type",
                        format!("Unsuitable duration value: {e}"),
                        attr.value.span(),
                    );
                    None
                }
            },
            Value::Number(n) => n.as_i64().or_else(|| n.as_f64().map(|f| f as i64)),
            Value::Null => {
                self.push(
                    "Unsuitable value",
                    "Unsuitable duration value: nil".to_string(),
                    attr.value.span(),
                );
                None
            }
            _ => {
                self.unsuitable("expected a string but found a collection", attr);
                None
            }
        }
    }

    pub fn string_list(&mut self, attr: Option<&Attribute>) -> Option<Vec<String>> {
        let attr = attr?;
        let v = self.eval(&attr.value)?;
        match v {
            Value::Array(items) => {
                let mut out = Vec::with_capacity(items.len());
                for item in &items {
                    match value_to_string(item) {
                        Some(s) => out.push(s),
                        None => {
                            self.unsuitable("list of string required", attr);
                            return None;
                        }
                    }
                }
                Some(out)
            }
            _ => {
                self.unsuitable("list of string required", attr);
                None
            }
        }
    }

    /// `meta = { ... }`-style attribute holding a map of strings.
    pub fn string_map_attr(&mut self, attr: &Attribute) -> Option<BTreeMap<String, String>> {
        let v = self.eval(&attr.value)?;
        match v {
            Value::Object(m) => {
                let mut out = BTreeMap::new();
                for (k, v) in m {
                    match value_to_string(&v) {
                        Some(s) => {
                            out.insert(k, s);
                        }
                        None => {
                            self.unsuitable(
                                &format!("map of string required (element \"{k}\")"),
                                attr,
                            );
                            return None;
                        }
                    }
                }
                Some(out)
            }
            _ => {
                self.unsuitable("map of string required", attr);
                None
            }
        }
    }

    /// `meta { KEY = "v" }`-style block: attributes only, values converted to strings.
    pub fn string_map_block(&mut self, block: &Block) -> Option<BTreeMap<String, String>> {
        let mut out = BTreeMap::new();
        let mut ok = true;
        for s in block.body.iter() {
            match s {
                Structure::Attribute(a) => {
                    let name = a.key.value().to_string();
                    match self.string(Some(a)) {
                        Some(v) => {
                            out.insert(name, v);
                        }
                        None => ok = false,
                    }
                }
                Structure::Block(b) => {
                    ok = false;
                    self.push(
                        &format!("Unexpected \"{}\" block", b.ident.value().as_str()),
                        "Blocks are not allowed here.".to_string(),
                        b.ident.span(),
                    );
                }
            }
        }
        ok.then_some(out)
    }

    /// `meta`/`env` given either as a block or as an attribute (Nomad accepts both).
    pub fn string_map(
        &mut self,
        content: &Content,
        name: &str,
    ) -> Option<BTreeMap<String, String>> {
        let attr = content.attr(name);
        let blocks = content.blocks(name);
        if let (Some(a), Some(b)) = (attr, blocks.first()) {
            let at = self.range_string(a.span());
            self.push(
                &format!("Duplicate {name} block"),
                format!("{name} may not be defined more than once. Another definition is defined at {at}."),
                block_def_span(b),
            );
            return None;
        }
        if let Some(a) = attr {
            return self.string_map_attr(a);
        }
        let mut merged: Option<BTreeMap<String, String>> = None;
        for b in blocks {
            if let Some(m) = self.string_map_block(b) {
                merged.get_or_insert_with(BTreeMap::new).extend(m);
            }
        }
        merged
    }

    /// A driver `config` block: free-form attributes and nested blocks, mapped the way
    /// Nomad's jobspec2 maps them (nested blocks and object-literal attributes become lists of
    /// maps; block labels become nested single-key maps).
    pub fn free_form_block(&mut self, block: &Block) -> Option<BTreeMap<String, Value>> {
        let obj = self.free_form_body(&block.body)?;
        Some(obj.into_iter().collect())
    }

    fn free_form_body(&mut self, body: &Body) -> Option<serde_json::Map<String, Value>> {
        let mut out = serde_json::Map::new();
        let mut ok = true;
        let mut by_type: Vec<(String, Vec<&Block>)> = Vec::new();
        for s in body.iter() {
            match s {
                Structure::Attribute(a) => {
                    let name = a.key.value().to_string();
                    match self.eval(&a.value) {
                        Some(v) => {
                            let v = if matches!(a.value, Expression::Object(_)) {
                                Value::Array(vec![v])
                            } else {
                                v
                            };
                            out.insert(name, v);
                        }
                        None => ok = false,
                    }
                }
                Structure::Block(b) => {
                    let ty = b.ident.value().to_string();
                    match by_type.iter_mut().find(|(t, _)| *t == ty) {
                        Some((_, list)) => list.push(b),
                        None => by_type.push((ty, vec![b])),
                    }
                }
            }
        }
        for (ty, blocks) in by_type {
            let mut list = Vec::with_capacity(blocks.len());
            for b in blocks {
                let Some(inner) = self.free_form_body(&b.body) else {
                    ok = false;
                    continue;
                };
                let mut v = Value::Object(inner);
                for label in b.labels.iter().rev() {
                    let mut m = serde_json::Map::new();
                    m.insert(label.as_str().to_string(), Value::Array(vec![v]));
                    v = Value::Object(m);
                }
                list.push(v);
            }
            out.insert(ty, Value::Array(list));
        }
        ok.then_some(out)
    }

    pub fn label(b: &Block) -> String {
        b.labels
            .first()
            .map(|l| l.as_str().to_string())
            .unwrap_or_default()
    }
}
