//! Input variables (`variable "x" {}` / `variables {}` blocks, `-var x=y` values) and `locals`.

use std::collections::BTreeMap;

use hcl_edit::expr::Expression;
use hcl_edit::structure::{Block, Structure};
use hcl_edit::Span;
use serde_json::Value;

use super::body::{block_def_span, Content, Decoder, Schema};
use super::diag::Diagnostic;
use super::eval::{as_bool, as_f64, float_value, value_to_string};

/// The type constraint of a variable, as far as this cut needs it to convert `-var` strings.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum VarType {
    Untyped,
    String,
    Number,
    Bool,
    /// list/map/set/object/tuple/any: `-var` values are parsed as HCL expressions.
    Structured,
}

struct Declared {
    ty: VarType,
    default: Option<Value>,
    def_span: Option<std::ops::Range<usize>>,
}

const VARIABLE_SCHEMA: Schema = Schema {
    attrs: &["default", "type", "description", "sensitive"],
    blocks: &[("validation", &[])],
    pending: &[],
};

fn var_type(expr: &Expression) -> VarType {
    match expr {
        Expression::Variable(v) => match v.value().as_str() {
            "string" => VarType::String,
            "number" => VarType::Number,
            "bool" => VarType::Bool,
            "any" => VarType::Untyped,
            _ => VarType::Structured,
        },
        _ => VarType::Structured,
    }
}

/// Declares the variables found in the top-level body, applies `NOMAD_VAR_*` environment
/// values (undeclared ones are skipped) and then `-var` values (undeclared ones are errors),
/// then evaluates `locals`, leaving both in the decoder's evaluation context.
pub fn load(dec: &mut Decoder, top: &Content, argv: &[(String, String)], env: &[(String, String)]) {
    let mut declared: BTreeMap<String, Declared> = BTreeMap::new();
    for b in top.blocks("variable") {
        let name = Decoder::label(b);
        if declared.contains_key(&name) {
            dec.push(
                "Duplicate variable",
                format!("Duplicate {name} variable definition found."),
                block_def_span(b),
            );
            continue;
        }
        if !is_identifier(&name) {
            dec.push(
                "Invalid variable name",
                "A name must start with a letter or underscore and may contain only letters, digits, underscores, and dashes.".to_string(),
                b.labels.first().and_then(|l| l.span()),
            );
            continue;
        }
        let c = dec.content(&b.body, &VARIABLE_SCHEMA);
        let ty = c
            .attr("type")
            .map(|a| var_type(&a.value))
            .unwrap_or(VarType::Untyped);
        let default = c.attr("default").and_then(|a| {
            let v = dec.eval(&a.value)?;
            match convert(&v, ty) {
                Ok(v) => Some(v),
                Err(e) => {
                    dec.push(
                        "Invalid default value for variable",
                        format!("This default value is not compatible with the variable's type constraint: {e}."),
                        a.value.span(),
                    );
                    None
                }
            }
        });
        declared.insert(
            name,
            Declared {
                ty,
                default,
                def_span: block_def_span(b),
            },
        );
    }
    for b in top.blocks("variables") {
        for s in b.body.iter() {
            match s {
                Structure::Attribute(a) => {
                    let name = a.key.value().to_string();
                    if declared.contains_key(&name) {
                        dec.push(
                            "Duplicate variable",
                            format!("Duplicate {name} variable definition found."),
                            a.key.span(),
                        );
                        continue;
                    }
                    let default = dec.eval(&a.value);
                    declared.insert(
                        name,
                        Declared {
                            ty: VarType::Untyped,
                            default,
                            def_span: a.key.span(),
                        },
                    );
                }
                Structure::Block(inner) => dec.push(
                    &format!("Unexpected \"{}\" block", inner.ident.value().as_str()),
                    "Blocks are not allowed here.".to_string(),
                    inner.ident.span(),
                ),
            }
        }
    }

    let mut values: BTreeMap<String, Value> = BTreeMap::new();
    for (name, raw) in env {
        let Some(decl) = declared.get(name) else {
            continue;
        };
        match from_argument(raw, decl.ty) {
            Ok(v) => {
                values.insert(name.clone(), v);
            }
            Err(e) => dec.diags.push(Diagnostic {
                summary: "Invalid value for variable".to_string(),
                detail: format!(
                    "The value for {name} is not compatible with the variable's type constraint: {e}."
                ),
                subject: None,
            }),
        }
    }
    for (name, raw) in argv {
        let Some(decl) = declared.get(name) else {
            dec.diags.push(Diagnostic {
                summary: "Undefined -var variable".to_string(),
                detail: format!(
                    "A \"{name}\" variable was passed in the command line but was not found in known variables. To declare variable \"{name}\", place this block in your job file"
                ),
                subject: None,
            });
            continue;
        };
        match from_argument(raw, decl.ty) {
            Ok(v) => {
                values.insert(name.clone(), v);
            }
            Err(e) => dec.diags.push(Diagnostic {
                summary: "Invalid argument value for -var variable".to_string(),
                detail: format!(
                    "The received arg value for {name} is not compatible with the variable's type constraint: {e}."
                ),
                subject: None,
            }),
        }
    }
    for (name, decl) in declared {
        match values.remove(&name).or(decl.default) {
            Some(v) => {
                dec.ctx.vars.insert(name, v);
            }
            None => dec.push(
                &format!("Unset variable \"{name}\""),
                "A used variable must be set or have a default value; see https://developer.hashicorp.com/nomad/docs/reference/hcl2/variables  for details.".to_string(),
                decl.def_span,
            ),
        }
    }

    load_locals(dec, &top.blocks("locals"));
}

/// Locals may refer to each other in any order: evaluate what can be evaluated, repeat.
fn load_locals(dec: &mut Decoder, blocks: &[&Block]) {
    let mut pending: Vec<(String, &Expression, Option<std::ops::Range<usize>>)> = Vec::new();
    for b in blocks {
        for s in b.body.iter() {
            match s {
                Structure::Attribute(a) => {
                    let name = a.key.value().to_string();
                    if pending.iter().any(|(n, _, _)| *n == name) {
                        dec.push(
                            "Duplicate value in locals",
                            format!("Duplicate {name} definition found."),
                            a.key.span(),
                        );
                        continue;
                    }
                    pending.push((name, &a.value, a.key.span()));
                }
                Structure::Block(inner) => dec.push(
                    &format!("Unexpected \"{}\" block", inner.ident.value().as_str()),
                    "Blocks are not allowed here.".to_string(),
                    inner.ident.span(),
                ),
            }
        }
    }
    loop {
        let mut progressed = false;
        let mut still = Vec::new();
        let mut last_errors = Vec::new();
        for (name, expr, span) in pending {
            match dec.ctx.eval(expr) {
                Ok(v) => {
                    dec.ctx.locals.insert(name, v);
                    progressed = true;
                }
                Err(d) => {
                    last_errors.push(d);
                    still.push((name, expr, span));
                }
            }
        }
        pending = still;
        if pending.is_empty() {
            return;
        }
        if !progressed {
            dec.diags.extend(last_errors);
            return;
        }
    }
}

fn is_identifier(s: &str) -> bool {
    let mut chars = s.chars();
    matches!(chars.next(), Some(c) if c.is_alphabetic() || c == '_')
        && chars.all(|c| c.is_alphanumeric() || c == '_' || c == '-')
}

fn convert(v: &Value, ty: VarType) -> Result<Value, String> {
    match ty {
        VarType::Untyped | VarType::Structured => Ok(v.clone()),
        VarType::String => value_to_string(v)
            .map(Value::String)
            .ok_or_else(|| "string required".to_string()),
        VarType::Number => as_f64(v)
            .map(float_value)
            .ok_or_else(|| "a number is required".to_string()),
        VarType::Bool => as_bool(v)
            .map(Value::Bool)
            .ok_or_else(|| "a bool is required".to_string()),
    }
}

/// Nomad takes `-var` values of primitive (or no) type literally, and parses structured ones
/// as HCL expressions.
fn from_argument(raw: &str, ty: VarType) -> Result<Value, String> {
    match ty {
        VarType::Untyped | VarType::String => Ok(Value::String(raw.to_string())),
        VarType::Number | VarType::Bool => convert(&Value::String(raw.to_string()), ty),
        VarType::Structured => {
            let expr = hcl_edit::parser::parse_expr(raw).map_err(|e| e.message().to_string())?;
            let map = super::diag::SourceMap::new("<value from arguments>", raw);
            let mut ctx = super::eval::EvalContext::new(&map);
            ctx.eval(&expr).map_err(|d| d.detail)
        }
    }
}
