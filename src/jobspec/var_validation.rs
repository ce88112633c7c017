//! `validation` blocks of input variables: the rule's shape is checked when the variable is
//! declared (its condition may refer only to the variable itself, its error message must
//! not be blank), and the rule is run against the value the variable ends up with. Texts
//! are jobspec2's (types.variables.go).

use std::collections::HashSet;
use std::ops::Range;

use hcl_edit::expr::{Expression, ForExpr, TraversalOperator};
use hcl_edit::structure::Block;
use hcl_edit::visit::{self, Visit};
use hcl_edit::Span;
use serde_json::Value;

use super::body::{Decoder, Schema};
use super::diag::{Diagnostic, SourceMap};
use super::eval::EvalContext;
use super::variables::Assignment;

const VALIDATION_SCHEMA: Schema = Schema {
    attrs: &["condition", "error_message"],
    blocks: &[],
    pending: &[],
};

pub(super) struct Validation {
    condition: Option<Expression>,
    error_message: String,
    /// The `validation` keyword: hcl's DefRange of the block.
    decl: Option<Range<usize>>,
}

/// Reads one `validation` block of variable `var`, reporting a malformed rule.
pub(super) fn decode(dec: &mut Decoder, var: &str, b: &Block) -> Validation {
    let c = dec.content(&b.body, &VALIDATION_SCHEMA);
    let mut v = Validation {
        condition: None,
        error_message: String::new(),
        decl: b.ident.span(),
    };
    for required in ["condition", "error_message"] {
        if c.attr(required).is_none() {
            dec.push(
                "Missing required argument",
                format!("The argument \"{required}\" is required, but no definition was found."),
                b.span().map(|s| s.end.saturating_sub(1)..s.end),
            );
        }
    }
    if let Some(a) = c.attr("condition") {
        let mut refs = Refs::default();
        refs.visit_expr(&a.value);
        let mut good = 0;
        for (root, attr, span) in &refs.found {
            if refs.bound.contains(root) {
                continue;
            }
            if root == "var" && attr.as_deref() == Some(var) {
                good += 1;
                continue;
            }
            dec.push(
                "Invalid reference in variable validation",
                format!("The condition for variable \"{var}\" can only refer to the variable itself, using var.{var}."),
                span.clone(),
            );
        }
        if good < 1 {
            dec.push(
                "Invalid variable validation condition",
                format!("The condition for variable \"{var}\" must refer to var.{var} in order to test incoming values."),
                a.value.span(),
            );
        }
        v.condition = Some(a.value.clone());
    }
    if let Some(a) = c.attr("error_message") {
        // Decoded without variables or functions: a literal string.
        match EvalContext::new(dec.ctx.map).eval(&a.value) {
            Ok(Value::String(msg)) => {
                if msg.trim().is_empty() {
                    dec.push(
                        "Invalid validation error message",
                        "An empty or blank string is not a valid nor useful error message."
                            .to_string(),
                        a.value.span(),
                    );
                }
                v.error_message = msg;
            }
            Ok(_) => dec.push(
                "Incorrect attribute value type",
                "Inappropriate value for attribute \"error_message\": string required.".to_string(),
                a.value.span(),
            ),
            Err(d) => dec.diags.push(d),
        }
    }
    v
}

/// Runs the rules against the value `assigned` gave variable `name`.
pub(super) fn check(
    map: &SourceMap,
    name: &str,
    value: &Value,
    assigned: &Assignment,
    rules: &[Validation],
) -> Vec<Diagnostic> {
    let mut diags = Vec::new();
    for rule in rules {
        let Some(cond) = &rule.condition else {
            continue;
        };
        let mut ctx = EvalContext::new(map);
        ctx.vars.insert(name.to_string(), value.clone());
        let result = match ctx.eval(cond) {
            Ok(r) => r,
            Err(d) => {
                diags.push(d);
                continue;
            }
        };
        let ok = match result {
            Value::Bool(b) => b,
            Value::String(s) if s == "true" || s == "false" => s == "true",
            Value::Null => {
                diags.push(map.diag(
                    "Invalid variable validation result",
                    "Validation condition expression must return either true or false, not null.",
                    cond.span(),
                ));
                continue;
            }
            other => {
                let got = super::types::Ty::implied(&other);
                diags.push(map.diag(
                    "Invalid variable validation result",
                    format!(
                        "Invalid validation condition result value: bool required, but have {}.",
                        got.friendly_name()
                    ),
                    cond.span(),
                ));
                continue;
            }
        };
        if !ok {
            let decl = rule
                .decl
                .as_ref()
                .map(|s| map.range(s).to_string())
                .unwrap_or_default();
            diags.push(Diagnostic {
                summary: format!("Invalid value for {} variable", assigned.from),
                detail: format!(
                    "{}\n\nThis was checked by the validation rule at {decl}.",
                    rule.error_message
                ),
                subject: assigned
                    .subject
                    .clone()
                    .or_else(|| rule.decl.as_ref().map(|s| map.range(s))),
            });
        }
    }
    diags
}

/// The variable references of an expression: (root, first attribute, span), plus the names
/// `for` expressions bind (which are not references).
#[derive(Default)]
struct Refs {
    found: Vec<(String, Option<String>, Option<Range<usize>>)>,
    bound: HashSet<String>,
}

impl Visit for Refs {
    fn visit_expr(&mut self, e: &Expression) {
        match e {
            Expression::Variable(v) => {
                self.found.push((v.value().to_string(), None, e.span()));
            }
            Expression::Traversal(t) => {
                if let Expression::Variable(root) = &t.expr {
                    let attr = match t.operators.first().map(|o| o.value()) {
                        Some(TraversalOperator::GetAttr(id)) => Some(id.value().to_string()),
                        _ => None,
                    };
                    self.found.push((root.value().to_string(), attr, e.span()));
                    for op in &t.operators {
                        if let TraversalOperator::Index(ix) = op.value() {
                            self.visit_expr(ix);
                        }
                    }
                } else {
                    visit::visit_traversal(self, t);
                }
            }
            _ => visit::visit_expr(self, e),
        }
    }

    fn visit_for_expr(&mut self, f: &ForExpr) {
        if let Some(k) = &f.intro.key_var {
            self.bound.insert(k.value().to_string());
        }
        self.bound.insert(f.intro.value_var.value().to_string());
        visit::visit_for_expr(self, f);
    }
}
