//! `dynamic` blocks (hcl's ext/dynblock, which Nomad's jobspec2 applies to the whole job
//! body): each `dynamic "T" { for_each = ..., iterator = it, labels = [...], content {...} }`
//! becomes one `T` block per element of `for_each`, in place, before the job is decoded.
//!
//! The generated blocks are clones of the source syntax, so every later diagnostic still
//! points into the file. The iterator is not substituted by value: each reference to it in
//! the copy is renamed to a name no user can write (`dynamic#N`), and that name is bound to
//! `{ key, value }` in the evaluation context for the rest of the parse. Nested dynamic
//! blocks are expanded after their parent's iterator is bound, so their `for_each` may use it.

use std::ops::Range;

use hcl_edit::expr::{Expression, ForExpr};
use hcl_edit::structure::{Attribute, Block, BlockLabel, Body, Structure};
use hcl_edit::visit_mut::{visit_block_mut, visit_expr_mut, VisitMut};
use hcl_edit::{Decorated, Ident, Span};
use serde_json::{Map, Value};

use super::body::{block_def_span, Decoder, Schema};

const DYNAMIC_SCHEMA: Schema = Schema {
    attrs: &["for_each", "iterator", "labels"],
    blocks: &[("content", &[])],
    pending: &[],
};

/// A copy of `block` with every `dynamic` block inside it (at any depth) expanded.
/// Whether a block holds `dynamic` blocks at any depth: only then does it need an expanded
/// copy (copying a large job body costs more than the rest of the decode).
pub fn has_dynamic(block: &Block) -> bool {
    block
        .body
        .blocks()
        .any(|b| b.ident.as_str() == "dynamic" || has_dynamic(b))
}

pub fn expand(dec: &mut Decoder, block: &Block) -> Block {
    let mut out = block.clone();
    let mut names = 0usize;
    expand_body(dec, &mut out.body, &mut names);
    out
}

fn expand_body(dec: &mut Decoder, body: &mut Body, names: &mut usize) {
    let mut i = 0;
    while i < body.len() {
        let is_dynamic =
            matches!(body.get(i), Some(Structure::Block(b)) if b.ident.as_str() == "dynamic");
        if !is_dynamic {
            if let Some(Structure::Block(b)) = body.get_mut(i) {
                expand_body(dec, &mut b.body, names);
            }
            i += 1;
            continue;
        }
        let Structure::Block(dynamic) = body.remove(i) else {
            continue;
        };
        let generated = generate(dec, &dynamic, names);
        let count = generated.len();
        for (n, b) in generated.into_iter().enumerate() {
            body.insert(i + n, b);
        }
        i += count;
    }
}

/// The blocks one `dynamic` block stands for (nothing when it is malformed; the problem is
/// reported).
fn generate(dec: &mut Decoder, dynamic: &Block, names: &mut usize) -> Vec<Block> {
    let Some(type_label) = dynamic_type(dec, dynamic) else {
        return Vec::new();
    };
    let c = dec.content(&dynamic.body, &DYNAMIC_SCHEMA);
    let Some(content) = content_block(dec, dynamic, c.blocks("content")) else {
        return Vec::new();
    };
    let Some(iterator) = iterator_name(dec, c.attr("iterator"), &type_label) else {
        return Vec::new();
    };
    let Some(for_each) = c.attr("for_each") else {
        dec.push(
            "Missing required argument",
            "The argument \"for_each\" is required, but no definition was found.".to_string(),
            block_def_span(dynamic),
        );
        return Vec::new();
    };
    let Some(elements) = for_each_elements(dec, for_each) else {
        return Vec::new();
    };
    let labels = c.attr("labels");
    let mut out = Vec::with_capacity(elements.len());
    for (key, value) in elements {
        *names += 1;
        let bound = format!("dynamic#{names}");
        let mut iter = Map::new();
        iter.insert("key".to_string(), key);
        iter.insert("value".to_string(), value);
        dec.ctx.bind_iterator(bound.clone(), Value::Object(iter));
        let mut rename = Rename {
            from: iterator.clone(),
            to: bound,
        };
        let Some(labels) = generated_labels(dec, dynamic, labels, &mut rename) else {
            continue;
        };
        let mut body = content.body.clone();
        rename.visit_body_mut(&mut body);
        expand_body(dec, &mut body, names);
        let mut block = dynamic.clone();
        *block.ident.value_mut() = Ident::new_unchecked(type_label.value().clone());
        block.labels = labels;
        block.body = body;
        out.push(block);
    }
    out
}

/// The generated blocks' type: the one label of the `dynamic` block.
fn dynamic_type(dec: &mut Decoder, dynamic: &Block) -> Option<Decorated<String>> {
    match dynamic.labels.as_slice() {
        [BlockLabel::String(s)] => Some(s.clone()),
        [BlockLabel::Ident(id)] => Some(Decorated::new(id.as_str().to_string())),
        [] => {
            dec.push(
                "Missing type for dynamic",
                "All dynamic blocks must have 1 labels (type).".to_string(),
                block_def_span(dynamic),
            );
            None
        }
        [_, extra, ..] => {
            dec.push(
                "Extraneous label for dynamic",
                "Only 1 labels (type) are expected for dynamic blocks.".to_string(),
                extra.span(),
            );
            None
        }
    }
}

fn content_block<'b>(
    dec: &mut Decoder,
    dynamic: &Block,
    blocks: Vec<&'b Block>,
) -> Option<&'b Block> {
    match blocks.as_slice() {
        [] => {
            dec.push(
                "Missing dynamic content block",
                "A dynamic block must have a nested block of type \"content\" to describe the body of each generated block.".to_string(),
                block_def_span(dynamic),
            );
            None
        }
        [first, rest @ ..] => {
            for extra in rest {
                let at = block_def_span(first)
                    .map(|s| dec.ctx.map.range(&s).to_string())
                    .unwrap_or_default();
                dec.push(
                    "Extraneous dynamic content block",
                    format!("Only one nested content block is allowed for each dynamic block. The first was defined at {at}."),
                    block_def_span(extra),
                );
            }
            Some(first)
        }
    }
}

/// `iterator = name` (a bare name), defaulting to the dynamic block's type label.
fn iterator_name(
    dec: &mut Decoder,
    attr: Option<&Attribute>,
    type_label: &Decorated<String>,
) -> Option<String> {
    let Some(attr) = attr else {
        return Some(type_label.value().clone());
    };
    match &attr.value {
        Expression::Variable(v) => Some(v.as_str().to_string()),
        other => {
            dec.push(
                "Invalid dynamic iterator name",
                "Dynamic iterator must be a single variable name.".to_string(),
                other.span(),
            );
            None
        }
    }
}

/// The (key, value) pairs `for_each` iterates: index and element for a list, key and value
/// (in key order, as cty iterates them) for a map or object.
fn for_each_elements(dec: &mut Decoder, attr: &Attribute) -> Option<Vec<(Value, Value)>> {
    let value = dec.eval(&attr.value)?;
    let problem = match value {
        Value::Array(items) => {
            return Some(
                items
                    .into_iter()
                    .enumerate()
                    .map(|(i, v)| (Value::from(i), v))
                    .collect(),
            )
        }
        Value::Object(m) => {
            let mut pairs: Vec<(String, Value)> = m.into_iter().collect();
            pairs.sort_by(|a, b| a.0.cmp(&b.0));
            return Some(
                pairs
                    .into_iter()
                    .map(|(k, v)| (Value::String(k), v))
                    .collect(),
            );
        }
        Value::Null => "Cannot use a null value in for_each.".to_string(),
        other => format!(
            "Cannot use a {} value in for_each. An iterable collection is required.",
            type_name(&other)
        ),
    };
    dec.push("Invalid dynamic for_each value", problem, attr.value.span());
    None
}

fn type_name(v: &Value) -> &'static str {
    match v {
        Value::Bool(_) => "bool",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "list",
        Value::Object(_) => "object",
        Value::Null => "null",
    }
}

/// The labels of one generated block: each element of the static `labels` list evaluated for
/// this element and converted to a string, as hcl's dynblock does. Each label carries the
/// position of the dynamic block's type label.
fn generated_labels(
    dec: &mut Decoder,
    dynamic: &Block,
    labels: Option<&Attribute>,
    rename: &mut Rename,
) -> Option<Vec<BlockLabel>> {
    let Some(attr) = labels else {
        return Some(Vec::new());
    };
    let Expression::Array(items) = &attr.value else {
        dec.push(
            "Invalid expression",
            "A static list expression is required.".to_string(),
            attr.value.span(),
        );
        return None;
    };
    let template = dynamic.labels.first();
    let mut out = Vec::with_capacity(items.len());
    for item in items.iter() {
        let mut expr = item.clone();
        rename.visit_expr_mut(&mut expr);
        let text = match dec.eval(&expr)? {
            Value::String(s) => s,
            Value::Number(n) => n.to_string(),
            Value::Bool(b) => b.to_string(),
            Value::Null => {
                push_label_error(
                    dec,
                    "Cannot use a null value as a dynamic block label.",
                    item.span(),
                );
                return None;
            }
            _ => {
                push_label_error(
                    dec,
                    "Cannot use this value as a dynamic block label: string required.",
                    item.span(),
                );
                return None;
            }
        };
        out.push(match template {
            Some(BlockLabel::String(s)) => {
                let mut l = s.clone();
                *l.value_mut() = text;
                BlockLabel::String(l)
            }
            _ => BlockLabel::String(Decorated::new(text)),
        });
    }
    Some(out)
}

fn push_label_error(dec: &mut Decoder, detail: &str, span: Option<Range<usize>>) {
    dec.push("Invalid dynamic block label", detail.to_string(), span);
}

/// Renames references to an iterator, leaving alone the places where an inner name of the
/// same spelling shadows it (a `for` expression's variables, a nested dynamic block's own
/// iterator in its content and labels).
struct Rename {
    from: String,
    to: String,
}

impl VisitMut for Rename {
    fn visit_expr_mut(&mut self, expr: &mut Expression) {
        match expr {
            Expression::Variable(v) if v.as_str() == self.from => {
                *v.value_mut() = Ident::new_unchecked(self.to.clone());
            }
            Expression::ForExpr(f) if binds(f, &self.from) => {
                self.visit_expr_mut(&mut f.intro.collection_expr);
            }
            _ => visit_expr_mut(self, expr),
        }
    }

    fn visit_block_mut(&mut self, block: &mut Block) {
        if block.ident.as_str() == "dynamic" && nested_iterator(block) == Some(self.from.clone()) {
            for mut s in block.body.iter_mut() {
                if let Some(mut a) = s.as_attribute_mut() {
                    if a.get().key.as_str() == "for_each" {
                        self.visit_expr_mut(a.value_mut());
                    }
                }
            }
            return;
        }
        visit_block_mut(self, block);
    }
}

fn binds(f: &ForExpr, name: &str) -> bool {
    f.intro.value_var.as_str() == name
        || f.intro.key_var.as_ref().is_some_and(|k| k.as_str() == name)
}

/// The iterator name a nested dynamic block declares (or its type label).
fn nested_iterator(block: &Block) -> Option<String> {
    let declared = block
        .body
        .get_attribute("iterator")
        .and_then(|a| match &a.value {
            Expression::Variable(v) => Some(v.as_str().to_string()),
            _ => None,
        });
    declared.or_else(|| block.labels.first().map(|l| l.as_str().to_string()))
}
