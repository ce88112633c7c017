//! Evaluation of HCL expressions (as parsed by hcl-edit, with spans) into JSON values.
//!
//! Job-time references (`var.*`, `local.*`) are resolved here. Any other root name
//! (`NOMAD_ALLOC_ID`, `attr.*`, `meta.*`, `node.*`, `env[...]`) is a run-time reference
//! for the client, so — as Nomad's jobspec2 does with its UndefinedVariable hook — it
//! evaluates to its own source text wrapped in `${...}` and stays literal in the job.
//! Function calls go to `functions.rs`; `try` and `can` are evaluated here because they
//! need their arguments unevaluated.

use std::collections::BTreeMap;
use std::ops::Range;

use hcl_edit::expr::{BinaryOperator, Expression, ObjectKey, TraversalOperator, UnaryOperator};
use hcl_edit::template::{Directive, Element, Template};
use hcl_edit::Span;
use serde_json::{Map, Number, Value};

use super::diag::{Diagnostic, SourceMap};

/// What expressions may refer to at job-parse time.
#[derive(Clone)]
pub struct EvalContext<'a> {
    pub map: &'a SourceMap,
    pub vars: Map<String, Value>,
    pub locals: Map<String, Value>,
    /// Whether `file()`, `fileset()` and the other filesystem functions may read the disk.
    /// Only a job file the user names on the command line gets this; text that arrives over
    /// the API (`/v1/jobs/parse`) must not read the agent's files (Nomad's `AllowFS`).
    pub allow_fs: bool,
    /// Where the filesystem functions resolve relative paths; the directory of the file
    /// named in positions when unset.
    pub base_dir: Option<std::path::PathBuf>,
    /// Iteration variables of enclosing `for` expressions/directives, innermost last.
    scopes: Vec<BTreeMap<String, Value>>,
}

type EvalResult = Result<Value, Diagnostic>;

impl<'a> EvalContext<'a> {
    pub fn new(map: &'a SourceMap) -> Self {
        EvalContext {
            map,
            vars: Map::new(),
            locals: Map::new(),
            allow_fs: false,
            base_dir: None,
            scopes: Vec::new(),
        }
    }

    /// Binds `name` for the rest of the parse: a `dynamic` block's iterator (`dynamic.rs`).
    pub(super) fn bind_iterator(&mut self, name: String, value: Value) {
        if self.scopes.is_empty() {
            self.scopes.push(BTreeMap::new());
        }
        self.scopes[0].insert(name, value);
    }

    pub(super) fn err(
        &self,
        summary: &str,
        detail: String,
        span: Option<Range<usize>>,
    ) -> Diagnostic {
        self.map.diag(summary, detail, span)
    }

    pub fn eval(&mut self, expr: &Expression) -> EvalResult {
        match expr {
            Expression::Null(_) => Ok(Value::Null),
            Expression::Bool(b) => Ok(Value::Bool(*b.value())),
            Expression::Number(n) => Ok(number_value(n.value())),
            Expression::String(s) => Ok(Value::String(s.value().clone())),
            Expression::Array(arr) => {
                let mut out = Vec::with_capacity(arr.len());
                for e in arr.iter() {
                    out.push(self.eval(e)?);
                }
                Ok(Value::Array(out))
            }
            Expression::Object(obj) => {
                let mut out = Map::new();
                for (k, v) in obj.iter() {
                    let key = match k {
                        ObjectKey::Ident(id) => id.value().to_string(),
                        ObjectKey::Expression(e) => {
                            let kv = self.eval(e)?;
                            match value_to_string(&kv) {
                                Some(s) => s,
                                None => {
                                    return Err(self.err(
                                        "Incorrect key type",
                                        "Can't use this value as a key: string required."
                                            .to_string(),
                                        e.span(),
                                    ))
                                }
                            }
                        }
                    };
                    let val = self.eval(v.expr())?;
                    out.insert(key, val);
                }
                Ok(Value::Object(out))
            }
            Expression::StringTemplate(t) => self.eval_template(t).map(Value::String),
            Expression::HeredocTemplate(h) => {
                let mut h = (**h).clone();
                if h.indent().is_some() {
                    h.dedent();
                }
                self.eval_template(&h.template).map(Value::String)
            }
            Expression::Parenthesis(p) => self.eval(p.inner()),
            Expression::Variable(v) => self.lookup_root(v.value().as_str(), expr.span()),
            Expression::Traversal(t) => {
                if let Expression::Variable(root) = &t.expr {
                    if self.is_runtime_root(root.value().as_str()) {
                        return Ok(self.runtime_literal(expr.span()));
                    }
                }
                let ops: Vec<&TraversalOperator> = t.operators.iter().map(|o| o.value()).collect();
                // `var.x` / `local.x`: take the one value rather than a copy of them all.
                let direct = match (&t.expr, ops.first()) {
                    (Expression::Variable(root), Some(TraversalOperator::GetAttr(attr)))
                        if !self
                            .scopes
                            .iter()
                            .any(|s| s.contains_key(root.value().as_str())) =>
                    {
                        match root.value().as_str() {
                            "var" => self.vars.get(attr.value().as_str()).cloned(),
                            "local" => self.locals.get(attr.value().as_str()).cloned(),
                            _ => None,
                        }
                    }
                    _ => None,
                };
                let (mut cur, skip) = match direct {
                    Some(v) => (v, 1),
                    None => (self.eval(&t.expr)?, 0),
                };
                for (i, op) in ops.iter().enumerate().skip(skip) {
                    match op {
                        TraversalOperator::AttrSplat(_) | TraversalOperator::FullSplat(_) => {
                            let items = match cur {
                                Value::Array(items) => items,
                                Value::Null => Vec::new(),
                                other => vec![other],
                            };
                            let mut out = Vec::with_capacity(items.len());
                            for item in items {
                                let mut v = item;
                                for rest in &ops[i + 1..] {
                                    v = self.apply_op(v, rest, expr.span())?;
                                }
                                out.push(v);
                            }
                            return Ok(Value::Array(out));
                        }
                        _ => cur = self.apply_op(cur, op, expr.span())?,
                    }
                }
                Ok(cur)
            }
            Expression::Conditional(c) => {
                let cond = self.eval(&c.cond_expr)?;
                match as_bool(&cond) {
                    Some(true) => self.eval(&c.true_expr),
                    Some(false) => self.eval(&c.false_expr),
                    None => Err(self.err(
                        "Incorrect condition type",
                        "The condition expression must be of type bool.".to_string(),
                        c.cond_expr.span(),
                    )),
                }
            }
            Expression::FuncCall(f) => self.eval_call(f, expr.span()),
            Expression::UnaryOp(u) => {
                let v = self.eval(&u.expr)?;
                match u.operator.value() {
                    UnaryOperator::Neg => match as_f64(&v) {
                        Some(n) => Ok(float_value(-n)),
                        None => Err(self.operand_err("number", u.expr.span())),
                    },
                    UnaryOperator::Not => match as_bool(&v) {
                        Some(b) => Ok(Value::Bool(!b)),
                        None => Err(self.operand_err("bool", u.expr.span())),
                    },
                }
            }
            Expression::BinaryOp(b) => self.eval_binary(b),
            Expression::ForExpr(f) => self.eval_for(f),
        }
    }

    fn operand_err(&self, ty: &str, span: Option<Range<usize>>) -> Diagnostic {
        self.err(
            "Invalid operand",
            format!("Unsuitable value for operand: {ty} required."),
            span,
        )
    }

    fn is_runtime_root(&self, name: &str) -> bool {
        name != "var" && name != "local" && !self.scopes.iter().any(|s| s.contains_key(name))
    }

    /// `${<source text>}` for a run-time reference.
    fn runtime_literal(&self, span: Option<Range<usize>>) -> Value {
        let text = span
            .as_ref()
            .and_then(|s| self.map.text(s))
            .unwrap_or("")
            .trim();
        Value::String(format!("${{{text}}}"))
    }

    fn lookup_root(&self, name: &str, span: Option<Range<usize>>) -> EvalResult {
        for scope in self.scopes.iter().rev() {
            if let Some(v) = scope.get(name) {
                return Ok(v.clone());
            }
        }
        match name {
            "var" => Ok(Value::Object(self.vars.clone())),
            "local" => Ok(Value::Object(self.locals.clone())),
            _ => Ok(self.runtime_literal(span)),
        }
    }

    fn apply_op(
        &mut self,
        cur: Value,
        op: &TraversalOperator,
        span: Option<Range<usize>>,
    ) -> EvalResult {
        match op {
            TraversalOperator::GetAttr(name) => self.get_attr(cur, name.value().as_str(), span),
            TraversalOperator::LegacyIndex(i) => self.index(cur, &Value::from(*i.value()), span),
            TraversalOperator::Index(e) => {
                let key = self.eval(e)?;
                self.index(cur, &key, e.span().or(span))
            }
            TraversalOperator::AttrSplat(_) | TraversalOperator::FullSplat(_) => Ok(cur),
        }
    }

    fn get_attr(&self, cur: Value, name: &str, span: Option<Range<usize>>) -> EvalResult {
        match cur {
            Value::Object(mut m) => match m.remove(name) {
                Some(v) => Ok(v),
                None => Err(self.err(
                    "Unsupported attribute",
                    format!("This object does not have an attribute named \"{name}\"."),
                    span,
                )),
            },
            _ => Err(self.err(
                "Unsupported attribute",
                format!("Can't access attribute \"{name}\" on a value that is not an object."),
                span,
            )),
        }
    }

    fn index(&self, cur: Value, key: &Value, span: Option<Range<usize>>) -> EvalResult {
        match cur {
            Value::Array(items) => {
                let idx = as_f64(key).filter(|n| n.fract() == 0.0 && *n >= 0.0);
                match idx {
                    Some(i) if (i as usize) < items.len() => Ok(items[i as usize].clone()),
                    Some(_) => Err(self.err(
                        "Invalid index",
                        "The given key does not identify an element in this collection value."
                            .to_string(),
                        span,
                    )),
                    None => Err(self.err(
                        "Invalid index",
                        "The given key does not identify an element in this collection value: a number is required.".to_string(),
                        span,
                    )),
                }
            }
            Value::Object(mut m) => {
                let k = value_to_string(key).unwrap_or_default();
                m.remove(&k).ok_or_else(|| {
                    self.err(
                        "Invalid index",
                        format!("The given key does not identify an element in this collection value: no key \"{k}\"."),
                        span,
                    )
                })
            }
            _ => Err(self.err(
                "Invalid index",
                "This value does not have any indices.".to_string(),
                span,
            )),
        }
    }

    fn eval_binary(&mut self, b: &hcl_edit::expr::BinaryOp) -> EvalResult {
        use BinaryOperator::*;
        let op = *b.operator.value();
        let l = self.eval(&b.lhs_expr)?;
        // && and || short-circuit only after type checks in HCL; evaluate both for simplicity.
        let r = self.eval(&b.rhs_expr)?;
        match op {
            Eq => Ok(Value::Bool(values_equal(&l, &r))),
            NotEq => Ok(Value::Bool(!values_equal(&l, &r))),
            And | Or => {
                let lb = as_bool(&l).ok_or_else(|| self.operand_err("bool", b.lhs_expr.span()))?;
                let rb = as_bool(&r).ok_or_else(|| self.operand_err("bool", b.rhs_expr.span()))?;
                Ok(Value::Bool(if op == And { lb && rb } else { lb || rb }))
            }
            _ => {
                let ln = as_f64(&l).ok_or_else(|| self.operand_err("number", b.lhs_expr.span()))?;
                let rn = as_f64(&r).ok_or_else(|| self.operand_err("number", b.rhs_expr.span()))?;
                Ok(match op {
                    Less => Value::Bool(ln < rn),
                    LessEq => Value::Bool(ln <= rn),
                    Greater => Value::Bool(ln > rn),
                    GreaterEq => Value::Bool(ln >= rn),
                    Plus => float_value(ln + rn),
                    Minus => float_value(ln - rn),
                    Mul => float_value(ln * rn),
                    Div | Mod if rn == 0.0 => {
                        return Err(self.err(
                            "Operation failed",
                            "Error during operation: can't divide by zero.".to_string(),
                            b.rhs_expr.span(),
                        ))
                    }
                    Div => float_value(ln / rn),
                    Mod => float_value(ln % rn),
                    _ => Value::Null,
                })
            }
        }
    }

    fn eval_for(&mut self, f: &hcl_edit::expr::ForExpr) -> EvalResult {
        let coll = self.eval(&f.intro.collection_expr)?;
        let Some(pairs) = iteration_pairs(coll) else {
            return Err(self.err(
                "Iteration over non-iterable value",
                "A value of type list, set, map or object is required.".to_string(),
                f.intro.collection_expr.span(),
            ));
        };
        let mut list = Vec::new();
        let mut obj = Map::new();
        for (k, v) in pairs {
            let mut scope = BTreeMap::new();
            if let Some(kv) = &f.intro.key_var {
                scope.insert(kv.value().to_string(), k);
            }
            scope.insert(f.intro.value_var.value().to_string(), v);
            self.scopes.push(scope);
            let result = (|| {
                if let Some(cond) = &f.cond {
                    let c = self.eval(&cond.expr)?;
                    if as_bool(&c) != Some(true) {
                        return Ok(None);
                    }
                }
                let key = match &f.key_expr {
                    Some(ke) => Some(self.eval(ke)?),
                    None => None,
                };
                let val = self.eval(&f.value_expr)?;
                Ok(Some((key, val)))
            })();
            self.scopes.pop();
            match result? {
                None => {}
                Some((Some(key), val)) => {
                    let key = value_to_string(&key).unwrap_or_default();
                    if f.grouping {
                        let entry = obj.entry(key).or_insert_with(|| Value::Array(Vec::new()));
                        if let Value::Array(a) = entry {
                            a.push(val);
                        }
                    } else {
                        obj.insert(key, val);
                    }
                }
                Some((None, val)) => list.push(val),
            }
        }
        Ok(if f.key_expr.is_some() {
            Value::Object(obj)
        } else {
            Value::Array(list)
        })
    }

    pub fn eval_template(&mut self, t: &Template) -> Result<String, Diagnostic> {
        let mut out = String::new();
        let mut trim_next = false;
        self.render(t, &mut out, &mut trim_next)?;
        Ok(out)
    }

    /// Renders template elements into `out`, honouring `~` strip markers: a marker on the
    /// opening side trims whitespace already written, one on the closing side trims the start
    /// of the next literal (`trim_next`).
    fn render(
        &mut self,
        t: &Template,
        out: &mut String,
        trim_next: &mut bool,
    ) -> Result<(), Diagnostic> {
        for el in t.iter() {
            match el {
                Element::Literal(s) => {
                    let text: &str = s.value();
                    out.push_str(if *trim_next { text.trim_start() } else { text });
                    *trim_next = false;
                }
                Element::Interpolation(i) => {
                    if i.strip.strip_start() {
                        trim_end(out);
                    }
                    let v = self.eval(&i.expr)?;
                    match value_to_string(&v) {
                        Some(s) => out.push_str(&s),
                        None => return Err(self.err(
                            "Invalid template interpolation value",
                            "Cannot include the given value in a string template: string required."
                                .to_string(),
                            i.expr.span(),
                        )),
                    }
                    *trim_next = i.strip.strip_end();
                }
                Element::Directive(d) => match &**d {
                    Directive::If(ifd) => {
                        if ifd.if_expr.strip.strip_start() {
                            trim_end(out);
                        }
                        let c = self.eval(&ifd.if_expr.cond_expr)?;
                        let Some(cond) = as_bool(&c) else {
                            return Err(self.err(
                                "Invalid template if condition",
                                "The condition expression must be of type bool.".to_string(),
                                ifd.if_expr.cond_expr.span(),
                            ));
                        };
                        if cond {
                            *trim_next = ifd.if_expr.strip.strip_end();
                            self.render(&ifd.if_expr.template, out, trim_next)?;
                            let close = ifd
                                .else_expr
                                .as_ref()
                                .map(|e| e.strip)
                                .unwrap_or(ifd.endif_expr.strip);
                            if close.strip_start() {
                                trim_end(out);
                            }
                        } else if let Some(e) = &ifd.else_expr {
                            *trim_next = e.strip.strip_end();
                            self.render(&e.template, out, trim_next)?;
                            if ifd.endif_expr.strip.strip_start() {
                                trim_end(out);
                            }
                        }
                        *trim_next = ifd.endif_expr.strip.strip_end();
                    }
                    Directive::For(ford) => {
                        let fe = &ford.for_expr;
                        if fe.strip.strip_start() {
                            trim_end(out);
                        }
                        let coll = self.eval(&fe.collection_expr)?;
                        let Some(pairs) = iteration_pairs(coll) else {
                            return Err(self.err(
                                "Invalid template for directive",
                                "A value of type list, set, map or object is required.".to_string(),
                                fe.collection_expr.span(),
                            ));
                        };
                        for (k, v) in pairs {
                            let mut scope = BTreeMap::new();
                            if let Some(kv) = &fe.key_var {
                                scope.insert(kv.value().to_string(), k);
                            }
                            scope.insert(fe.value_var.value().to_string(), v);
                            self.scopes.push(scope);
                            *trim_next = fe.strip.strip_end();
                            let r = self.render(&fe.template, out, trim_next);
                            self.scopes.pop();
                            r?;
                            if ford.endfor_expr.strip.strip_start() {
                                trim_end(out);
                            }
                        }
                        *trim_next = ford.endfor_expr.strip.strip_end();
                    }
                },
            }
        }
        Ok(())
    }
}

fn trim_end(out: &mut String) {
    let len = out.trim_end().len();
    out.truncate(len);
}

/// (key, value) pairs of a collection being iterated: index/element or key/value.
fn iteration_pairs(coll: Value) -> Option<Vec<(Value, Value)>> {
    match coll {
        Value::Array(items) => Some(
            items
                .into_iter()
                .enumerate()
                .map(|(i, v)| (Value::from(i), v))
                .collect(),
        ),
        Value::Object(m) => Some(m.into_iter().map(|(k, v)| (Value::String(k), v)).collect()),
        _ => None,
    }
}

fn number_value(n: &hcl_edit::Number) -> Value {
    if let Some(i) = n.as_i64() {
        Value::from(i)
    } else if let Some(u) = n.as_u64() {
        Value::from(u)
    } else {
        float_value(n.as_f64().unwrap_or(0.0))
    }
}

/// A number as Nomad stores it: an integer when it is one, otherwise a float.
pub fn float_value(f: f64) -> Value {
    if f.fract() == 0.0 && f.abs() < 9.0e15 {
        Value::from(f as i64)
    } else {
        Number::from_f64(f)
            .map(Value::Number)
            .unwrap_or(Value::Null)
    }
}

pub fn as_f64(v: &Value) -> Option<f64> {
    match v {
        Value::Number(n) => n.as_f64(),
        Value::String(s) => s.trim().parse().ok(),
        _ => None,
    }
}

pub fn as_bool(v: &Value) -> Option<bool> {
    match v {
        Value::Bool(b) => Some(*b),
        Value::String(s) if s == "true" => Some(true),
        Value::String(s) if s == "false" => Some(false),
        _ => None,
    }
}

/// cty's conversion of a primitive to string; `None` for null and collections.
pub fn value_to_string(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn values_equal(a: &Value, b: &Value) -> bool {
    match (a, b) {
        (Value::Number(x), Value::Number(y)) => x.as_f64() == y.as_f64(),
        _ => a == b,
    }
}
