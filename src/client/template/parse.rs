//! Parse tree of Go's text/template: lists of text and actions, control structures
//! (`if`, `range`, `with`, `define`, `block`, `template`, `break`, `continue`), pipelines
//! with variable declarations, and commands of arguments.

use std::collections::HashMap;

use super::lexer::{Tok, Token};
use super::{TemplateError, Value};

#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    Text(String),
    Action(Pipe),
    If(Branch),
    Range(Branch),
    With(Branch),
    Template {
        name: String,
        pipe: Option<Pipe>,
        at: Pos,
    },
    Break,
    Continue,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Branch {
    pub pipe: Pipe,
    pub list: Vec<Node>,
    pub else_list: Option<Vec<Node>>,
}

#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Pos {
    pub line: usize,
    pub col: usize,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Pipe {
    pub decls: Vec<String>,
    /// `=` rather than `:=`.
    pub assign: bool,
    pub cmds: Vec<Command>,
    pub at: Pos,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Command {
    pub args: Vec<Arg>,
    pub at: Pos,
    /// The command's source text, for `executing ... at <...>` errors.
    pub text: String,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Arg {
    Dot,
    Nil,
    Field(Vec<String>),
    Variable(String, Vec<String>),
    Ident(String),
    Const(Value),
    Pipe(Box<Pipe>, Vec<String>),
}

/// A parsed template and the named templates it defines.
pub struct Tree {
    pub root: Vec<Node>,
    pub defines: HashMap<String, Vec<Node>>,
}

pub struct Parser<'a> {
    name: &'a str,
    src: &'a str,
    toks: Vec<Token>,
    i: usize,
    known_func: &'a dyn Fn(&str) -> bool,
    defines: HashMap<String, Vec<Node>>,
    vars: Vec<Vec<String>>,
    range_depth: usize,
}

enum Closer {
    End,
    Else,
    ElseChain(&'static str),
}

/// Parse `src`; `known_func` says which identifiers are functions (Go fails at parse time
/// on an undefined function).
pub fn parse(
    name: &str,
    src: &str,
    left: &str,
    right: &str,
    known_func: &dyn Fn(&str) -> bool,
) -> Result<Tree, TemplateError> {
    let toks = super::lexer::Lexer::new(name, src, left, right).run()?;
    let mut p = Parser {
        name,
        src,
        toks,
        i: 0,
        known_func,
        defines: HashMap::new(),
        vars: vec![vec!["$".to_string()]],
        range_depth: 0,
    };
    let (root, end) = p.list(true)?;
    if end.is_some() {
        return Err(p.err_at(p.i.saturating_sub(1), "unexpected {{end}}"));
    }
    Ok(Tree {
        root,
        defines: p.defines,
    })
}

impl Parser<'_> {
    fn err_at(&self, i: usize, msg: impl std::fmt::Display) -> TemplateError {
        let line = self
            .toks
            .get(i)
            .map(|t| t.line)
            .unwrap_or_else(|| self.toks.last().map(|t| t.line).unwrap_or(1));
        TemplateError::Parse(format!("template: {}:{line}: {msg}", self.name))
    }

    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.i).map(|t| &t.tok)
    }

    /// Next token that is not white space.
    fn peek_ns(&mut self) -> Option<&Tok> {
        while self.peek() == Some(&Tok::Space) {
            self.i += 1;
        }
        self.peek()
    }

    fn next_ns(&mut self) -> Option<Tok> {
        self.peek_ns()?;
        let t = self.toks[self.i].tok.clone();
        self.i += 1;
        Some(t)
    }

    fn pos(&self) -> Pos {
        self.toks
            .get(self.i)
            .map(|t| Pos {
                line: t.line,
                col: t.col,
            })
            .unwrap_or_default()
    }

    fn expect_close(&mut self, ctx: &str) -> Result<(), TemplateError> {
        match self.next_ns() {
            Some(Tok::Close) => Ok(()),
            Some(t) => Err(self.err_at(self.i - 1, format!("unexpected {t:?} in {ctx}"))),
            None => Err(self.err_at(self.i, format!("unclosed action in {ctx}"))),
        }
    }

    /// Parses nodes until `{{end}}` / `{{else}}` (returned) or the end of input (only at
    /// top level).
    fn list(&mut self, top: bool) -> Result<(Vec<Node>, Option<Closer>), TemplateError> {
        let mut out = Vec::new();
        while let Some(t) = self.toks.get(self.i).map(|t| t.tok.clone()) {
            self.i += 1;
            match t {
                Tok::Text(s) => out.push(Node::Text(s)),
                Tok::Open => {
                    if let Some(end) = self.action(&mut out)? {
                        if top {
                            return Err(self.err_at(self.i - 1, "unexpected {{end}}"));
                        }
                        return Ok((out, Some(end)));
                    }
                }
                other => return Err(self.err_at(self.i - 1, format!("unexpected {other:?}"))),
            }
        }
        if !top {
            return Err(self.err_at(self.i, "unexpected EOF"));
        }
        Ok((out, None))
    }

    fn action(&mut self, out: &mut Vec<Node>) -> Result<Option<Closer>, TemplateError> {
        let at = self.pos();
        match self.peek_ns().cloned() {
            Some(Tok::Keyword(k)) => {
                self.i += 1;
                match k {
                    "end" => {
                        self.expect_close("end")?;
                        Ok(Some(Closer::End))
                    }
                    "else" => match self.peek_ns().cloned() {
                        Some(Tok::Keyword(k @ ("if" | "with"))) => {
                            self.i += 1;
                            Ok(Some(Closer::ElseChain(k)))
                        }
                        _ => {
                            self.expect_close("else")?;
                            Ok(Some(Closer::Else))
                        }
                    },
                    "if" | "with" | "range" => {
                        let node = self.control(k)?;
                        out.push(node);
                        Ok(None)
                    }
                    "break" | "continue" => {
                        if self.range_depth == 0 {
                            return Err(self
                                .err_at(self.i - 1, format!("{{{{{k}}}}} outside {{{{range}}}}")));
                        }
                        self.expect_close(k)?;
                        out.push(if k == "break" {
                            Node::Break
                        } else {
                            Node::Continue
                        });
                        Ok(None)
                    }
                    "template" => {
                        let name = self.template_name("template")?;
                        let pipe = if self.peek_ns() == Some(&Tok::Close) {
                            None
                        } else {
                            Some(self.pipeline("template", false)?)
                        };
                        self.expect_close("template")?;
                        out.push(Node::Template { name, pipe, at });
                        Ok(None)
                    }
                    "define" | "block" => {
                        let name = self.template_name(k)?;
                        let pipe = if k == "block" {
                            Some(self.pipeline("block", false)?)
                        } else {
                            None
                        };
                        self.expect_close(k)?;
                        let saved_vars = std::mem::replace(&mut self.vars, vec![vec!["$".into()]]);
                        let saved_range = std::mem::replace(&mut self.range_depth, 0);
                        let (body, end) = self.list(false)?;
                        self.vars = saved_vars;
                        self.range_depth = saved_range;
                        if !matches!(end, Some(Closer::End)) {
                            return Err(
                                self.err_at(self.i - 1, format!("unexpected {{{{else}}}} in {k}"))
                            );
                        }
                        // A later non-empty definition replaces an earlier one.
                        let empty = body
                            .iter()
                            .all(|n| matches!(n, Node::Text(t) if t.trim().is_empty()));
                        if !empty || !self.defines.contains_key(&name) {
                            self.defines.insert(name.clone(), body);
                        }
                        if k == "block" {
                            out.push(Node::Template { name, pipe, at });
                        }
                        Ok(None)
                    }
                    _ => Err(self.err_at(self.i - 1, format!("unexpected keyword {k}"))),
                }
            }
            _ => {
                let pipe = self.pipeline("command", true)?;
                self.expect_close("command")?;
                out.push(Node::Action(pipe));
                Ok(None)
            }
        }
    }

    fn template_name(&mut self, ctx: &str) -> Result<String, TemplateError> {
        match self.next_ns() {
            Some(Tok::Str(s)) => Ok(s),
            _ => Err(self.err_at(
                self.i.saturating_sub(1),
                format!("unexpected token in {ctx} clause: expected string"),
            )),
        }
    }

    fn control(&mut self, kind: &'static str) -> Result<Node, TemplateError> {
        self.vars.push(Vec::new());
        let pipe = self.pipeline(kind, true)?;
        self.expect_close(kind)?;
        if kind == "range" {
            self.range_depth += 1;
        }
        let (list, end) = self.list(false)?;
        if kind == "range" {
            self.range_depth -= 1;
        }
        let else_list = match end {
            Some(Closer::End) => None,
            Some(Closer::Else) => {
                let (l, end2) = self.list(false)?;
                if !matches!(end2, Some(Closer::End)) {
                    return Err(
                        self.err_at(self.i - 1, format!("expected end; found else in {kind}"))
                    );
                }
                Some(l)
            }
            Some(Closer::ElseChain(k)) => {
                if kind == "range" || k != kind {
                    return Err(self.err_at(self.i - 1, format!("unexpected else {k} in {kind}")));
                }
                // `{{else if x}}` is `{{else}}{{if x}}...{{end}}{{end}}` with one end.
                let node = self.control(k)?;
                Some(vec![node])
            }
            None => return Err(self.err_at(self.i, "unexpected EOF")),
        };
        self.vars.pop();
        let b = Branch {
            pipe,
            list,
            else_list,
        };
        Ok(match kind {
            "if" => Node::If(b),
            "with" => Node::With(b),
            _ => Node::Range(b),
        })
    }

    fn declared(&self, name: &str) -> bool {
        self.vars.iter().any(|s| s.iter().any(|v| v == name))
    }

    fn pipeline(&mut self, ctx: &str, allow_decl: bool) -> Result<Pipe, TemplateError> {
        let at = self.pos();
        let mut decls = Vec::new();
        let mut assign = false;
        if allow_decl {
            // Look ahead for `$x :=`, `$x =`, `$i, $v :=`.
            let save = self.i;
            let mut names = Vec::new();
            while let Some(Tok::Variable(v)) = self.peek_ns().cloned() {
                self.i += 1;
                names.push(v);
                match self.peek_ns() {
                    Some(Tok::Comma) if names.len() == 1 && ctx == "range" => {
                        self.i += 1;
                        continue;
                    }
                    Some(Tok::Declare) => {
                        self.i += 1;
                        decls = names;
                    }
                    Some(Tok::Assign) => {
                        self.i += 1;
                        assign = true;
                        decls = names;
                    }
                    _ => {}
                }
                break;
            }
            if decls.is_empty() {
                self.i = save;
            } else if assign {
                for d in &decls {
                    if !self.declared(d) {
                        return Err(self.err_at(save, format!("undefined variable \"{d}\"")));
                    }
                }
            } else if let Some(scope) = self.vars.last_mut() {
                scope.extend(decls.iter().cloned());
            }
        }
        let mut cmds = Vec::new();
        loop {
            let cmd = self.command(ctx)?;
            cmds.push(cmd);
            match self.peek_ns() {
                Some(Tok::Pipe) => {
                    self.i += 1;
                }
                _ => break,
            }
        }
        if cmds.is_empty() || cmds.iter().any(|c| c.args.is_empty()) {
            return Err(self.err_at(self.i, format!("missing value for {ctx}")));
        }
        Ok(Pipe {
            decls,
            assign,
            cmds,
            at,
        })
    }

    fn command(&mut self, ctx: &str) -> Result<Command, TemplateError> {
        let at = self.pos();
        self.peek_ns();
        let start_pos = self.toks.get(self.i).map(|t| t.pos).unwrap_or(0);
        let mut args = Vec::new();
        loop {
            match self.peek_ns() {
                None | Some(Tok::Close | Tok::Pipe | Tok::RParen) => break,
                _ => {}
            }
            let arg = self.operand(ctx)?;
            args.push(arg);
            match self.peek() {
                Some(Tok::Space) | None | Some(Tok::Close | Tok::Pipe | Tok::RParen) => {}
                Some(t) => {
                    let t = t.clone();
                    return Err(self.err_at(self.i, format!("unexpected {t:?} in operand")));
                }
            }
        }
        let end_pos = self
            .toks
            .get(self.i)
            .map(|t| t.pos)
            .unwrap_or(self.src.len());
        let text = self
            .src
            .get(start_pos..end_pos)
            .unwrap_or("")
            .trim()
            .to_string();
        if args.is_empty() {
            return Err(self.err_at(self.i, format!("missing value for {ctx}")));
        }
        Ok(Command { args, at, text })
    }

    fn fields(&mut self) -> Vec<String> {
        let mut out = Vec::new();
        while let Some(Tok::Field(f)) = self.peek() {
            out.push(f.clone());
            self.i += 1;
        }
        out
    }

    fn operand(&mut self, ctx: &str) -> Result<Arg, TemplateError> {
        let idx = self.i;
        let Some(t) = self.next_ns() else {
            return Err(self.err_at(idx, format!("missing value for {ctx}")));
        };
        let arg = match t {
            Tok::Dot => Arg::Dot,
            Tok::Nil => Arg::Nil,
            Tok::Bool(b) => Arg::Const(Value::Bool(b)),
            Tok::Str(s) => Arg::Const(Value::Str(s)),
            Tok::Char(c) => Arg::Const(Value::Int(c as i64)),
            Tok::Number(n) => Arg::Const(
                parse_number(&n)
                    .ok_or_else(|| self.err_at(idx, format!("bad number syntax: {n:?}")))?,
            ),
            Tok::Field(f) => {
                let mut fs = vec![f];
                fs.extend(self.fields());
                Arg::Field(fs)
            }
            Tok::Variable(v) => {
                if !self.declared(&v) {
                    return Err(self.err_at(idx, format!("undefined variable \"{v}\"")));
                }
                Arg::Variable(v, self.fields())
            }
            Tok::Ident(name) => {
                if !(self.known_func)(&name) {
                    return Err(self.err_at(idx, format!("function \"{name}\" not defined")));
                }
                Arg::Ident(name)
            }
            Tok::LParen => {
                let p = self.pipeline("parenthesized pipeline", false)?;
                match self.next_ns() {
                    Some(Tok::RParen) => {}
                    _ => return Err(self.err_at(self.i, "unclosed left paren")),
                }
                Arg::Pipe(Box::new(p), self.fields())
            }
            other => return Err(self.err_at(idx, format!("unexpected {other:?} in {ctx}"))),
        };
        if matches!(arg, Arg::Dot | Arg::Nil | Arg::Const(_) | Arg::Ident(_))
            && matches!(self.peek(), Some(Tok::Field(_)))
        {
            if let Arg::Dot = arg {
                // `..Foo` is not valid Go; `.` then field without a space.
                return Err(self.err_at(self.i, "unexpected . after term"));
            }
            return Err(self.err_at(self.i, "unexpected . after term"));
        }
        Ok(arg)
    }
}

/// A Go number literal: integers (decimal, 0x, 0o, 0b, leading-0 octal, `_` separators)
/// become Int, others Float.
pub fn parse_number(s: &str) -> Option<Value> {
    let (neg, body) = match s.as_bytes().first() {
        Some(b'-') => (true, &s[1..]),
        Some(b'+') => (false, &s[1..]),
        _ => (false, s),
    };
    let clean: String = body.chars().filter(|c| *c != '_').collect();
    let lower = clean.to_ascii_lowercase();
    let int = if let Some(h) = lower.strip_prefix("0x") {
        i64::from_str_radix(h, 16).ok()
    } else if let Some(o) = lower.strip_prefix("0o") {
        i64::from_str_radix(o, 8).ok()
    } else if let Some(b) = lower.strip_prefix("0b") {
        i64::from_str_radix(b, 2).ok()
    } else if lower.len() > 1 && lower.starts_with('0') && lower.bytes().all(|b| b.is_ascii_digit())
    {
        i64::from_str_radix(&lower[1..], 8).ok()
    } else if lower.bytes().all(|b| b.is_ascii_digit()) && !lower.is_empty() {
        lower.parse::<i64>().ok()
    } else {
        None
    };
    if let Some(i) = int {
        return Some(Value::Int(if neg { -i } else { i }));
    }
    if lower.starts_with("0x") || lower.is_empty() {
        return None;
    }
    let f: f64 = lower.parse().ok()?;
    // Go keeps a float constant with an integral value usable as an int, but prints it
    // as its float form only when it was written as a float; text/template prints 3.0 as 3.
    Some(Value::Float(if neg { -f } else { f }))
}
