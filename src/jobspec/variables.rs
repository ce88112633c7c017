//! Input variables (`variable "x" {}` / `variables {}` blocks) and their values from, in
//! jobspec2's order of precedence, the declaration's default, `NOMAD_VAR_<name>`, each
//! `-var-file` and each `-var`; then `validation` rules and `locals`.
//!
//! As in Nomad, a variable declared without a `type` takes the type of its default, and
//! values given as text (`-var`, the environment) are read literally for string, number and
//! untyped variables and parsed as HCL expressions for the others.

use std::collections::BTreeMap;
use std::ops::Range;

use hcl_edit::expr::Expression;
use hcl_edit::structure::{Block, Structure};
use hcl_edit::Span;
use serde_json::Value;

use super::body::{block_def_span, Content, Decoder, Schema};
use super::diag::{Diagnostic, SourceMap, SourceRange};
use super::types::{self, Ty};
use super::var_validation::{self, Validation};
use super::Variables;

/// One way a variable got a value (jobspec2's VariableAssignment).
pub(super) struct Assignment {
    /// `default`, `env`, `varfile` or `cmd`: named in validation failures.
    pub from: &'static str,
    /// `None` when the value could not be converted (an error was reported already).
    pub value: Option<Value>,
    /// The expression that set it, for pointing at the value that failed a validation.
    pub subject: Option<SourceRange>,
}

struct Declared {
    ty: Option<Ty>,
    values: Vec<Assignment>,
    validations: Vec<Validation>,
    def_span: Option<Range<usize>>,
}

const VARIABLE_SCHEMA: Schema = Schema {
    attrs: &["default", "type", "description", "sensitive"],
    blocks: &[("validation", &[])],
    pending: &[],
};

/// A `-var-file` parsed for `load`.
pub(super) struct ParsedVarFile {
    pub map: SourceMap,
    pub body: VarFileBody,
}

pub(super) enum VarFileBody {
    Hcl(hcl_edit::structure::Body),
    /// A `.json` var file: its top-level object, in file order.
    Json(Vec<(String, Value)>),
}

/// Parses the `-var-file`s (HCL, or JSON for `.json` names). A file that does not parse
/// stops everything, as in Nomad ("unable to parse var file").
pub(super) fn parse_var_files(vars: &Variables) -> Result<Vec<ParsedVarFile>, Diagnostic> {
    let mut out = Vec::with_capacity(vars.files.len());
    for f in &vars.files {
        let map = SourceMap::new(&f.filename, &f.content);
        let body = if f.filename.ends_with(".json") {
            let obj: serde_json::Map<String, Value> =
                serde_json::from_str(&f.content).map_err(|e| {
                    let at = map.offset(super::diag::Pos {
                        line: e.line().max(1),
                        column: e.column().max(1),
                    });
                    map.diag(
                        "Invalid JSON syntax",
                        format!("{}.", capitalize(&e.to_string())),
                        Some(at..at),
                    )
                })?;
            VarFileBody::Json(obj.into_iter().collect())
        } else {
            match hcl_edit::parser::parse_body(&f.content) {
                Ok(b) => VarFileBody::Hcl(b),
                Err(e) => return Err(super::decode::syntax_diag(&map, &e)),
            }
        };
        out.push(ParsedVarFile { map, body });
    }
    Ok(out)
}

/// One `name = value` of a var file: the name, its span, the evaluated value, the value's span.
type VarFileEntry = (
    String,
    Option<Range<usize>>,
    Result<Value, Diagnostic>,
    Option<Range<usize>>,
);

fn capitalize(s: &str) -> String {
    let mut c = s.chars();
    match c.next() {
        Some(f) => f.to_uppercase().chain(c).collect(),
        None => String::new(),
    }
}

/// Declares the variables of the top-level body, collects their values, checks their
/// validation rules and evaluates `locals`, leaving both in the decoder's context.
pub(super) fn load(dec: &mut Decoder, top: &Content, vars: &Variables, files: &[ParsedVarFile]) {
    let mut declared = declare(dec, top);
    collect_env(dec, &mut declared, &vars.env);
    if !collect_files(dec, &mut declared, files) {
        return;
    }
    collect_args(dec, &mut declared, &vars.args);
    for (name, decl) in declared {
        let Some(last) = decl.values.last() else {
            dec.push(
                &format!("Unset variable \"{name}\""),
                "A used variable must be set or have a default value; see https://developer.hashicorp.com/nomad/docs/reference/hcl2/variables  for details.".to_string(),
                decl.def_span,
            );
            continue;
        };
        if let Some(v) = &last.value {
            let diags = var_validation::check(dec.ctx.map, &name, v, last, &decl.validations);
            dec.diags.extend(diags);
        }
        dec.ctx
            .vars
            .insert(name, last.value.clone().unwrap_or(Value::Null));
    }
    load_locals(dec, &top.blocks("locals"));
}

fn declare(dec: &mut Decoder, top: &Content) -> BTreeMap<String, Declared> {
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
        let c = dec.content(&b.body, &VARIABLE_SCHEMA);
        if !is_identifier(&name) {
            dec.push(
                "Invalid variable name",
                "A name must start with a letter or underscore and may contain only letters, digits, underscores, and dashes.".to_string(),
                b.labels.first().and_then(|l| l.span()),
            );
        }
        let mut ty = None;
        if let Some(t) = c.attr("type") {
            match types::parse_type(&t.value, false) {
                Ok(parsed) => ty = Some(parsed),
                Err(e) => {
                    dec.push(
                        types::INVALID_TYPE_SUMMARY,
                        e.detail,
                        e.span.or_else(|| t.value.span()),
                    );
                    continue;
                }
            }
        }
        let mut values = Vec::new();
        if let Some(a) = c.attr("default") {
            let Some(v) = dec.eval(&a.value) else {
                continue;
            };
            let converted = match &ty {
                Some(t) => match types::convert(&v, t) {
                    Ok(v) => Some(v),
                    Err(e) => {
                        dec.push(
                            "Invalid default value for variable",
                            format!("This default value is not compatible with the variable's type constraint: {e}."),
                            a.value.span(),
                        );
                        None
                    }
                },
                None => Some(v),
            };
            if ty.is_none() {
                ty = converted.as_ref().map(Ty::implied);
            }
            values.push(Assignment {
                from: "default",
                value: converted,
                subject: a.value.span().map(|s| dec.ctx.map.range(&s)),
            });
        }
        let validations = c
            .blocks("validation")
            .into_iter()
            .map(|vb| var_validation::decode(dec, &name, vb))
            .collect();
        declared.insert(
            name,
            Declared {
                ty,
                values,
                validations,
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
                    let Some(default) = dec.eval(&a.value) else {
                        continue;
                    };
                    declared.insert(
                        name,
                        Declared {
                            ty: Some(Ty::implied(&default)),
                            values: vec![Assignment {
                                from: "default",
                                value: Some(default),
                                subject: a.value.span().map(|s| dec.ctx.map.range(&s)),
                            }],
                            validations: Vec::new(),
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
    declared
}

/// A value given as text: a literal string for string, number and untyped variables, an
/// HCL expression otherwise (jobspec2's expressionFromVariableDefinition). `origin` names
/// the text in positions: `<value for var.x from env>`.
fn from_text(raw: &str, ty: Option<&Ty>, origin: &str) -> Result<(Value, SourceMap), Diagnostic> {
    let map = SourceMap::new(origin, raw);
    match ty {
        None | Some(Ty::String) | Some(Ty::Number) => Ok((Value::String(raw.to_string()), map)),
        Some(_) => {
            let expr = hcl_edit::parser::parse_expr(raw)
                .map_err(|e| super::decode::syntax_diag(&map, &e))?;
            let v = super::eval::EvalContext::new(&map).eval(&expr)?;
            Ok((v, map))
        }
    }
}

fn collect_env(
    dec: &mut Decoder,
    declared: &mut BTreeMap<String, Declared>,
    env: &[(String, String)],
) {
    for (name, raw) in env {
        // Values for variables the job does not declare are ignored.
        let Some(decl) = declared.get_mut(name) else {
            continue;
        };
        let origin = format!("<value for var.{name} from env>");
        let (v, map) = match from_text(raw, decl.ty.as_ref(), &origin) {
            Ok(x) => x,
            Err(d) => {
                dec.diags.push(d);
                continue;
            }
        };
        let value = convert_or_report(dec, &v, decl.ty.as_ref(), || {
            (
                "Invalid value for variable",
                format!(
                    "The value for {name} is not compatible with the variable's type constraint"
                ),
                None,
            )
        });
        decl.values.push(Assignment {
            from: "env",
            value,
            subject: Some(map.range(&(0..raw.len()))),
        });
    }
}

/// Converts `v` to the variable's type; on failure reports `what()` (summary, detail
/// without the reason, subject) with cty's reason appended.
fn convert_or_report(
    dec: &mut Decoder,
    v: &Value,
    ty: Option<&Ty>,
    what: impl FnOnce() -> (&'static str, String, Option<SourceRange>),
) -> Option<Value> {
    let Some(ty) = ty else {
        return Some(v.clone());
    };
    match types::convert(v, ty) {
        Ok(v) => Some(v),
        Err(e) => {
            let (summary, detail, subject) = what();
            dec.diags.push(Diagnostic {
                summary: summary.to_string(),
                detail: format!("{detail}: {e}."),
                subject,
            });
            None
        }
    }
}

/// Var files in order. Returns false when one declares variables instead of setting them
/// (Nomad stops there so that the user sees only that mistake).
fn collect_files(
    dec: &mut Decoder,
    declared: &mut BTreeMap<String, Declared>,
    files: &[ParsedVarFile],
) -> bool {
    let mut misplaced = false;
    for f in files {
        if let VarFileBody::Hcl(body) = &f.body {
            for b in body
                .blocks()
                .filter(|b| b.ident.value().as_str() == "variable")
            {
                let name = Decoder::label(b);
                dec.diags.push(f.map.diag(
                    "Variable declaration in a .var file",
                    format!(
                        "A .var file is used to assign values to variables that have already been declared in job files, not to declare new variables. To declare variable \"{name}\", place this block in one of your job files\n\nTo set a value for this variable in {}, use the definition syntax instead:\n    {name} = <value>",
                        f.map.filename()
                    ),
                    b.ident.span(),
                ));
                misplaced = true;
            }
        }
    }
    if misplaced {
        return false;
    }
    for f in files {
        let entries: Vec<VarFileEntry> = match &f.body {
            VarFileBody::Hcl(body) => {
                let mut out = Vec::new();
                for s in body.iter() {
                    match s {
                        Structure::Attribute(a) => {
                            let v = super::eval::EvalContext::new(&f.map).eval(&a.value);
                            out.push((a.key.value().to_string(), a.span(), v, a.value.span()));
                        }
                        Structure::Block(b) => dec.diags.push(f.map.diag(
                            format!("Unexpected \"{}\" block", b.ident.value().as_str()),
                            "Blocks are not allowed here.".to_string(),
                            b.ident.span(),
                        )),
                    }
                }
                out
            }
            VarFileBody::Json(items) => items
                .iter()
                .map(|(k, v)| {
                    let span = json_key_span(f.map.src(), k);
                    (k.clone(), span.clone(), Ok(v.clone()), span)
                })
                .collect(),
        };
        for (name, attr_span, value, value_span) in entries {
            let Some(decl) = declared.get_mut(&name) else {
                dec.diags.push(f.map.diag(
                    "Undefined variable",
                    format!("A \"{name}\" variable was set but was not found in known variables. To declare variable \"{name}\", place this block in your job files"),
                    attr_span,
                ));
                continue;
            };
            let v = match value {
                Ok(v) => v,
                Err(d) => {
                    dec.diags.push(d);
                    decl.values.push(Assignment {
                        from: "varfile",
                        value: None,
                        subject: None,
                    });
                    continue;
                }
            };
            let subject = value_span.map(|s| f.map.range(&s));
            let ty = decl.ty.clone();
            let converted = convert_or_report(dec, &v, ty.as_ref(), || {
                (
                    "Invalid value for variable",
                    format!("The value for {name} is not compatible with the variable's type constraint"),
                    subject.clone(),
                )
            });
            decl.values.push(Assignment {
                from: "varfile",
                value: converted,
                subject,
            });
        }
    }
    true
}

/// Where `"key"` first appears in a JSON var file (serde_json keeps no positions).
fn json_key_span(src: &str, key: &str) -> Option<Range<usize>> {
    let quoted = serde_json::to_string(key).ok()?;
    let at = src.find(&quoted)?;
    Some(at..at + quoted.len())
}

fn collect_args(
    dec: &mut Decoder,
    declared: &mut BTreeMap<String, Declared>,
    args: &[(String, String)],
) {
    for (name, raw) in args {
        let Some(decl) = declared.get_mut(name) else {
            dec.diags.push(Diagnostic {
                summary: "Undefined -var variable".to_string(),
                detail: format!(
                    "A \"{name}\" variable was passed in the command line but was not found in known variables. To declare variable \"{name}\", place this block in your job file"
                ),
                subject: None,
            });
            continue;
        };
        let origin = format!("<value for var.{name} from arguments>");
        let (v, map) = match from_text(raw, decl.ty.as_ref(), &origin) {
            Ok(x) => x,
            Err(d) => {
                dec.diags.push(d);
                continue;
            }
        };
        let ty = decl.ty.clone();
        let value = convert_or_report(dec, &v, ty.as_ref(), || {
            (
                "Invalid argument value for -var variable",
                format!("The received arg value for {name} is not compatible with the variable's type constraint"),
                None,
            )
        });
        decl.values.push(Assignment {
            from: "cmd",
            value,
            subject: Some(map.range(&(0..raw.len()))),
        });
    }
}

/// Locals may refer to each other in any order: evaluate what can be evaluated, repeat.
fn load_locals(dec: &mut Decoder, blocks: &[&Block]) {
    let mut pending: Vec<(String, &Expression, Option<Range<usize>>)> = Vec::new();
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
