//! Executes a parse tree: walks nodes, evaluates pipelines, keeps variable scopes, and
//! formats errors as Go does (`template: NAME:LINE:COL: executing "NAME" at <CMD>: ...`).

use super::funcs::{self, Context, FuncError};
use super::parse::{Arg, Branch, Command, Node, Pipe, Pos, Tree};
use super::{TemplateError, Value};

/// How deep `template` calls may nest.
const MAX_DEPTH: usize = 200;

pub struct Exec<'a> {
    name: &'a str,
    tree: &'a Tree,
    ctx: &'a Context<'a>,
    missing_err: bool,
    vars: Vec<(String, Value)>,
    depth: usize,
}

enum Flow {
    Normal,
    Break,
    Continue,
}

impl<'a> Exec<'a> {
    pub fn new(name: &'a str, tree: &'a Tree, ctx: &'a Context<'a>, missing_err: bool) -> Self {
        Exec {
            name,
            tree,
            ctx,
            missing_err,
            vars: Vec::new(),
            depth: 0,
        }
    }

    pub fn run(
        &mut self,
        list: &[Node],
        dot: &Value,
        out: &mut String,
    ) -> Result<(), TemplateError> {
        self.vars = vec![("$".to_string(), dot.clone())];
        self.walk(list, dot, out)?;
        Ok(())
    }

    fn err(&self, at: Pos, ctx_text: &str, msg: impl std::fmt::Display) -> TemplateError {
        TemplateError::Exec(format!(
            "template: {}:{}:{}: executing {:?} at <{}>: {msg}",
            self.name, at.line, at.col, self.name, ctx_text
        ))
    }

    fn walk(
        &mut self,
        list: &[Node],
        dot: &Value,
        out: &mut String,
    ) -> Result<Flow, TemplateError> {
        for node in list {
            match self.node(node, dot, out)? {
                Flow::Normal => {}
                f => return Ok(f),
            }
        }
        Ok(Flow::Normal)
    }

    fn node(&mut self, node: &Node, dot: &Value, out: &mut String) -> Result<Flow, TemplateError> {
        match node {
            Node::Text(t) => out.push_str(t),
            Node::Action(p) => {
                let v = self.pipeline(dot, p)?;
                if p.decls.is_empty() {
                    v.write_go(out, true);
                }
            }
            Node::If(b) | Node::With(b) => {
                let mark = self.vars.len();
                let v = self.pipeline(dot, &b.pipe)?;
                let flow = if v.truthy() {
                    let new_dot = if matches!(node, Node::With(_)) {
                        &v
                    } else {
                        dot
                    };
                    self.walk(&b.list, new_dot, out)?
                } else if let Some(e) = &b.else_list {
                    self.walk(e, dot, out)?
                } else {
                    Flow::Normal
                };
                self.vars.truncate(mark);
                return Ok(flow);
            }
            Node::Range(b) => return self.range(b, dot, out),
            Node::Break => return Ok(Flow::Break),
            Node::Continue => return Ok(Flow::Continue),
            Node::Template { name, pipe, at } => {
                let ctx_text = format!("{{{{template {name:?}}}}}");
                let Some(body) = self.tree.defines.get(name) else {
                    return Err(self.err(*at, &ctx_text, format!("template {name:?} not defined")));
                };
                if self.depth >= MAX_DEPTH {
                    return Err(self.err(
                        *at,
                        &ctx_text,
                        format!("exceeded maximum template depth ({MAX_DEPTH})"),
                    ));
                }
                let new_dot = match pipe {
                    Some(p) => self.pipeline(dot, p)?,
                    None => Value::Missing,
                };
                let saved =
                    std::mem::replace(&mut self.vars, vec![("$".to_string(), new_dot.clone())]);
                self.depth += 1;
                let r = self.walk(body, &new_dot, out);
                self.depth -= 1;
                self.vars = saved;
                r?;
            }
        }
        Ok(Flow::Normal)
    }

    fn range(&mut self, b: &Branch, dot: &Value, out: &mut String) -> Result<Flow, TemplateError> {
        let mark = self.vars.len();
        let inner = Pipe {
            decls: Vec::new(),
            assign: false,
            cmds: b.pipe.cmds.clone(),
            at: b.pipe.at,
        };
        let v = self.pipeline(dot, &inner)?;
        let items: Vec<(Value, Value)> = match &v {
            Value::List(l) => l
                .iter()
                .enumerate()
                .map(|(i, e)| (Value::Int(i as i64), e.clone()))
                .collect(),
            Value::Map(m) => m
                .iter()
                .map(|(k, e)| (Value::str(k.clone()), e.clone()))
                .collect(),
            Value::Int(n) => (0..*n).map(|i| (Value::Int(i), Value::Int(i))).collect(),
            Value::Nil | Value::Missing => Vec::new(),
            other => {
                let text = b.pipe.cmds.first().map(|c| c.text.as_str()).unwrap_or("");
                return Err(self.err(
                    b.pipe.at,
                    text,
                    format!("range can't iterate over {}", other.to_go_string()),
                ));
            }
        };
        if items.is_empty() {
            let flow = match &b.else_list {
                Some(e) => self.walk(e, dot, out)?,
                None => Flow::Normal,
            };
            self.vars.truncate(mark);
            // break/continue in the else of a range belong to an outer range.
            return Ok(flow);
        }
        for (k, e) in items {
            match b.pipe.decls.as_slice() {
                [] => {}
                [one] => self.set_var(one, e.clone(), b.pipe.assign),
                [i, val, ..] => {
                    self.set_var(i, k, b.pipe.assign);
                    self.set_var(val, e.clone(), b.pipe.assign);
                }
            }
            let flow = self.walk(&b.list, &e, out)?;
            self.vars.truncate(mark);
            match flow {
                Flow::Break => break,
                Flow::Continue | Flow::Normal => {}
            }
        }
        self.vars.truncate(mark);
        Ok(Flow::Normal)
    }

    fn set_var(&mut self, name: &str, v: Value, assign: bool) {
        if assign {
            if let Some(slot) = self.vars.iter_mut().rev().find(|(n, _)| n == name) {
                slot.1 = v;
                return;
            }
        }
        self.vars.push((name.to_string(), v));
    }

    fn var(&self, name: &str) -> Value {
        self.vars
            .iter()
            .rev()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.clone())
            .unwrap_or(Value::Missing)
    }

    fn pipeline(&mut self, dot: &Value, p: &Pipe) -> Result<Value, TemplateError> {
        let mut val: Option<Value> = None;
        for cmd in &p.cmds {
            val = Some(self.command(dot, cmd, val)?);
        }
        let v = val.unwrap_or(Value::Missing);
        for d in &p.decls {
            self.set_var(d, v.clone(), p.assign);
        }
        Ok(v)
    }

    fn command(
        &mut self,
        dot: &Value,
        cmd: &Command,
        fin: Option<Value>,
    ) -> Result<Value, TemplateError> {
        let first = &cmd.args[0];
        let has_args = cmd.args.len() > 1 || fin.is_some();
        match first {
            Arg::Ident(name) => self.call(dot, cmd, name, fin),
            Arg::Nil => Err(self.err(cmd.at, &cmd.text, "nil is not a command")),
            _ if has_args => Err(self.err(
                cmd.at,
                &cmd.text,
                format!("can't give argument to non-function {}", arg_text(first)),
            )),
            other => self.arg(dot, other, cmd),
        }
    }

    fn arg(&mut self, dot: &Value, a: &Arg, cmd: &Command) -> Result<Value, TemplateError> {
        match a {
            Arg::Dot => Ok(dot.clone()),
            Arg::Nil => Ok(Value::Nil),
            Arg::Const(v) => Ok(v.clone()),
            Arg::Field(fs) => self.fields(dot.clone(), fs, cmd),
            Arg::Variable(name, fs) => {
                let v = self.var(name);
                self.fields(v, fs, cmd)
            }
            Arg::Pipe(p, fs) => {
                let mark = self.vars.len();
                let v = self.pipeline(dot, p)?;
                self.vars.truncate(mark);
                self.fields(v, fs, cmd)
            }
            Arg::Ident(name) => {
                let sub = Command {
                    args: vec![a.clone()],
                    at: cmd.at,
                    text: name.clone(),
                };
                self.call(dot, &sub, name, None)
            }
        }
    }

    fn fields(&self, mut v: Value, fs: &[String], cmd: &Command) -> Result<Value, TemplateError> {
        for f in fs {
            v = match &v {
                Value::Map(m) => match m.get(f) {
                    Some(x) => x.clone(),
                    None if self.missing_err => {
                        return Err(self.err(
                            cmd.at,
                            &cmd.text,
                            format!("map has no entry for key {f:?}"),
                        ))
                    }
                    None => Value::Missing,
                },
                Value::Struct(s) => match s.get(f) {
                    Some(x) => x.clone(),
                    None => {
                        return Err(self.err(
                            cmd.at,
                            &cmd.text,
                            format!("can't evaluate field {f} in type {}", s.type_name),
                        ))
                    }
                },
                Value::Missing => {
                    if self.missing_err {
                        return Err(self.err(
                            cmd.at,
                            &cmd.text,
                            format!("nil data; no entry for key {f:?}"),
                        ));
                    }
                    Value::Missing
                }
                Value::Nil => {
                    return Err(self.err(
                        cmd.at,
                        &cmd.text,
                        format!("nil pointer evaluating interface {{}}.{f}"),
                    ))
                }
                other => {
                    return Err(self.err(
                        cmd.at,
                        &cmd.text,
                        format!("can't evaluate field {f} in type {}", other.type_name()),
                    ))
                }
            };
        }
        Ok(v)
    }

    fn call(
        &mut self,
        dot: &Value,
        cmd: &Command,
        name: &str,
        fin: Option<Value>,
    ) -> Result<Value, TemplateError> {
        let rest = &cmd.args[1..];
        // and/or evaluate lazily and return the deciding operand.
        if name == "and" || name == "or" {
            let n = rest.len() + usize::from(fin.is_some());
            if n < 1 {
                return Err(self.err(
                    cmd.at,
                    &cmd.text,
                    format!("wrong number of args for {name}: want at least 1 got 0"),
                ));
            }
            let mut last = Value::Missing;
            for a in rest {
                last = self.arg(dot, a, cmd)?;
                if last.truthy() != (name == "and") {
                    return Ok(last);
                }
            }
            if let Some(f) = fin {
                last = f;
            }
            return Ok(last);
        }
        let mut args = Vec::with_capacity(rest.len() + 1);
        for a in rest {
            args.push(self.arg(dot, a, cmd)?);
        }
        if let Some(f) = fin {
            args.push(f);
        }
        if name == "executeTemplate" {
            return self.execute_template(cmd, args);
        }
        funcs::call(name, args, self.ctx).map_err(|e| match e {
            FuncError::Args(m) => self.err(cmd.at, &cmd.text, m),
            FuncError::Call(m) => self.err(cmd.at, &cmd.text, format!("error calling {name}: {m}")),
        })
    }

    fn execute_template(
        &mut self,
        cmd: &Command,
        args: Vec<Value>,
    ) -> Result<Value, TemplateError> {
        let fail = |s: &Self, m: String| {
            s.err(
                cmd.at,
                &cmd.text,
                format!("error calling executeTemplate: {m}"),
            )
        };
        let (name, dot) = match args.as_slice() {
            [Value::Str(n)] => (n.clone(), Value::Missing),
            [Value::Str(n), d] => (n.clone(), d.clone()),
            [_, ..] if args.len() <= 2 => {
                return Err(self.err(
                    cmd.at,
                    &cmd.text,
                    format!(
                        "wrong type for value; expected string; got {}",
                        args[0].type_name()
                    ),
                ))
            }
            _ => {
                return Err(fail(
                    self,
                    format!(
                        "executeTemplate: wrong number of arguments, expected 1 or 2, but got {}",
                        args.len()
                    ),
                ))
            }
        };
        let Some(body) = self.tree.defines.get(&name) else {
            return Err(fail(
                self,
                format!(
                    "template: no template {name:?} associated with template {:?}",
                    self.name
                ),
            ));
        };
        if self.depth >= MAX_DEPTH {
            return Err(fail(
                self,
                format!("exceeded maximum template depth ({MAX_DEPTH})"),
            ));
        }
        let mut buf = String::new();
        let saved = std::mem::replace(&mut self.vars, vec![("$".to_string(), dot.clone())]);
        self.depth += 1;
        let r = self.walk(body, &dot, &mut buf);
        self.depth -= 1;
        self.vars = saved;
        r?;
        Ok(Value::Str(buf))
    }
}

fn arg_text(a: &Arg) -> String {
    match a {
        Arg::Dot => ".".into(),
        Arg::Nil => "nil".into(),
        Arg::Const(v) => match v {
            Value::Str(s) => super::gofmt::go_quote(s),
            other => other.to_go_string(),
        },
        Arg::Field(fs) => fs.iter().map(|f| format!(".{f}")).collect(),
        Arg::Variable(n, fs) => format!(
            "{n}{}",
            fs.iter().map(|f| format!(".{f}")).collect::<String>()
        ),
        Arg::Ident(n) => n.clone(),
        Arg::Pipe(..) => "(pipeline)".into(),
    }
}
