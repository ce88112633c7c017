//! Function calls in expressions: arity checks, `try`/`can` (which need their arguments
//! unevaluated), `...` expansion, and turning `FnError`s into positioned diagnostics.

use std::ops::Range;

use hcl_edit::expr::Expression;
use hcl_edit::Span;
use serde_json::Value;

use super::{lookup, names, FnContext, FnError};
use crate::jobspec::diag::Diagnostic;
use crate::jobspec::eval::EvalContext;

type EvalResult = Result<Value, Diagnostic>;

impl EvalContext<'_> {
    pub(in crate::jobspec) fn eval_call(
        &mut self,
        f: &hcl_edit::expr::FuncCall,
        span: Option<Range<usize>>,
    ) -> EvalResult {
        let name = f.name.name.value().as_str();
        if !f.name.namespace.is_empty() {
            // Nomad registers no namespaced (`ns::fn`) functions.
            let full = span.as_ref().and_then(|s| self.map.text(s)).unwrap_or(name);
            let full = full.split('(').next().unwrap_or(name).trim();
            return Err(self.err(
                "Call to unknown function",
                format!("There is no function named \"{full}\"."),
                span,
            ));
        }
        let args: Vec<&Expression> = f.args.iter().collect();
        match name {
            // try: the first argument that evaluates without error; can: whether the one does.
            "try" => {
                if args.is_empty() {
                    return Err(self.err(
                        "Error in function call",
                        "Call to function \"try\" failed: at least one argument is required."
                            .to_string(),
                        span,
                    ));
                }
                let mut last = None;
                for a in &args {
                    match self.eval(a) {
                        Ok(v) => return Ok(v),
                        Err(e) => last = Some(e),
                    }
                }
                let detail = last.map(|d| d.detail).unwrap_or_default();
                return Err(self.err(
                    "Error in function call",
                    format!(
                        "Call to function \"try\" failed: no expression succeeded:\n- {detail}"
                    ),
                    span,
                ));
            }
            "can" => {
                if args.len() != 1 {
                    return Err(self.arity_err("can", &["expression"], &args, span));
                }
                return Ok(Value::Bool(self.eval(args[0]).is_ok()));
            }
            // convert(value, type): the second argument is a type constraint expression,
            // read as such rather than evaluated (hcl's customdecode).
            "convert" => {
                if args.len() != 2 {
                    return Err(self.arity_err("convert", &["value", "type"], &args, span));
                }
                let ty = crate::jobspec::types::parse_type(args[1], true).map_err(|e| {
                    self.err(
                        crate::jobspec::types::INVALID_TYPE_SUMMARY,
                        e.detail,
                        e.span.or_else(|| args[1].span()),
                    )
                })?;
                let v = self.eval(args[0])?;
                return crate::jobspec::types::convert(&v, &ty).map_err(|msg| {
                    self.err(
                        "Invalid function argument",
                        format!("Invalid value for \"value\" parameter: {msg}."),
                        args[0].span(),
                    )
                });
            }
            _ => {}
        }
        let Some(spec) = lookup(name) else {
            let hint = closest_name(name)
                .map(|s| format!(" Did you mean \"{s}\"?"))
                .unwrap_or_default();
            return Err(self.err(
                "Call to unknown function",
                format!("There is no function named \"{name}\".{hint}"),
                span,
            ));
        };
        let n = spec.params.len();
        if args.len() < n || (spec.variadic.is_none() && args.len() > n) {
            return Err(self.arity_err(name, spec.params, &args, span));
        }
        let mut vals = Vec::with_capacity(args.len());
        for a in &args {
            vals.push(self.eval(a)?);
        }
        // `f(list...)`: the final list's elements become the variadic arguments.
        if f.args.expand_final() {
            match vals.pop() {
                Some(Value::Array(items)) => vals.extend(items),
                _ => {
                    return Err(self.err(
                        "Invalid expanding argument value",
                        "The expanding argument (indicated by ...) must be of a tuple, list, or set type.".to_string(),
                        args.last().and_then(|a| a.span()),
                    ))
                }
            }
        }
        let ctx = FnContext {
            base_dir: self.base_dir.clone().unwrap_or_else(|| {
                std::path::Path::new(self.map.filename())
                    .parent()
                    .map(|p| p.to_path_buf())
                    .unwrap_or_default()
            }),
            allow_fs: self.allow_fs,
        };
        spec.call(&ctx, &vals).map_err(|e| match e {
            FnError::Arg { index, .. } => {
                let at = args.get(index.min(args.len().saturating_sub(1)));
                self.err(
                    "Invalid function argument",
                    e.to_string(),
                    at.and_then(|a| a.span()).or(span),
                )
            }
            FnError::Call(msg) => self.err(
                "Error in function call",
                format!("Call to function \"{name}\" failed: {msg}."),
                span,
            ),
        })
    }

    fn arity_err(
        &self,
        name: &str,
        params: &[&str],
        args: &[&Expression],
        span: Option<Range<usize>>,
    ) -> Diagnostic {
        if args.len() < params.len() {
            return self.err(
                "Not enough function arguments",
                format!(
                    "Function \"{name}\" expects {} argument(s). Missing value for \"{}\".",
                    params.len(),
                    params[args.len()]
                ),
                span,
            );
        }
        self.err(
            "Too many function arguments",
            format!(
                "Function \"{name}\" expects only {} argument(s).",
                params.len()
            ),
            args.get(params.len()).and_then(|a| a.span()).or(span),
        )
    }
}

/// hcl's "did you mean": a name within two edits; the closest (then alphabetically first)
/// so the hint does not depend on table order.
fn closest_name(given: &str) -> Option<&'static str> {
    names()
        .map(|n| (strsim::levenshtein(given, n), n))
        .filter(|(d, _)| *d < 3)
        .min()
        .map(|(_, n)| n)
}
