//! Parsing of Go `text/template` tokens (from `lex.rs`) into a tree of [`Node`]s. A lexing
//! error is an `Error` token at its place, so the parser reports whichever problem comes
//! first in the text, as Go's concurrent lexer/parser pair does. Error texts are Go's
//! (`unclosed action`, `unexpected EOF`, `function "x" not defined`...), prefixed
//! `template: :<line>: `.

use super::exec::is_function;
use super::lex::{lex, Tok};

/// A parsed template element.
#[derive(Debug, Clone, PartialEq)]
pub enum Node {
    Text(String),
    /// `{{pipeline}}`: print the value (unless the pipeline only declares variables).
    Action(Pipe),
    If(Branch),
    With(Branch),
    Range(Branch),
    Break,
    Continue,
}

/// The common shape of `if`, `with` and `range`.
#[derive(Debug, Clone, PartialEq)]
pub struct Branch {
    pub pipe: Pipe,
    pub list: Vec<Node>,
    pub else_list: Vec<Node>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Pipe {
    /// Byte offset of the pipeline in the source (for error positions).
    pub pos: usize,
    /// Declared (`:=`) or assigned (`=`) variables, without the `$`.
    pub decl: Vec<String>,
    pub assign: bool,
    pub cmds: Vec<Cmd>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Cmd {
    pub pos: usize,
    pub args: Vec<Arg>,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Arg {
    /// `.`
    Dot,
    /// `.A.B`
    Field(Vec<String>),
    /// `$x.A.B` (`$` alone is the name "")
    Var(String, Vec<String>),
    /// `(pipeline).A.B`
    Sub(Box<Pipe>, Vec<String>),
    Func(String),
    Str(String),
    Num(serde_json::Number),
    Bool(bool),
    Nil,
}

/// A parse error, already formatted as Go prints it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParseError(pub String);

fn line_of(src: &str, pos: usize) -> usize {
    1 + src[..pos.min(src.len())].matches('\n').count()
}

/// What ended a list of nodes.
#[derive(Debug, PartialEq)]
enum ListEnd {
    Eof,
    End,
    Else,
}

struct Parser<'a> {
    src: &'a str,
    toks: Vec<(Tok, usize)>,
    at: usize,
    /// Variables in scope, innermost last (`$` is always there).
    vars: Vec<String>,
    /// How many `range` bodies enclose the current position (for break/continue).
    range_depth: usize,
}

pub fn parse(src: &str) -> Result<Vec<Node>, ParseError> {
    let mut p = Parser {
        src,
        toks: lex(src),
        at: 0,
        vars: vec![String::new()],
        range_depth: 0,
    };
    let (list, end) = p.list()?;
    match end {
        ListEnd::Eof => Ok(list),
        ListEnd::End => Err(p.error_at(p.prev_pos(), "unexpected {{end}}")),
        ListEnd::Else => Err(p.error_at(p.prev_pos(), "unexpected {{else}}")),
    }
}

impl Parser<'_> {
    fn error_at(&self, pos: usize, msg: &str) -> ParseError {
        ParseError(format!("template: :{}: {msg}", line_of(self.src, pos)))
    }

    fn peek(&self) -> &(Tok, usize) {
        self.toks
            .get(self.at)
            .or_else(|| self.toks.last())
            .unwrap_or(&(Tok::Eof, 0))
    }

    fn next(&mut self) -> (Tok, usize) {
        let t = self.peek().clone();
        if self.at < self.toks.len() {
            self.at += 1;
        }
        if let Tok::Error(_) = t.0 {
            // Stay on the error so every later read sees it too.
            self.at -= 1;
        }
        t
    }

    fn prev_pos(&self) -> usize {
        self.toks
            .get(self.at.saturating_sub(1))
            .map(|t| t.1)
            .unwrap_or(0)
    }

    fn next_non_space(&mut self) -> (Tok, usize) {
        loop {
            let t = self.next();
            if t.0 != Tok::Space {
                return t;
            }
        }
    }

    fn peek_non_space(&mut self) -> Tok {
        while self.peek().0 == Tok::Space {
            self.at += 1;
        }
        self.peek().0.clone()
    }

    fn unexpected(&self, t: &(Tok, usize), context: &str) -> ParseError {
        if let Tok::Error(e) = &t.0 {
            return self.error_at(t.1, e);
        }
        let shown = match &t.0 {
            Tok::Eof => return self.error_at(t.1, "unexpected EOF"),
            Tok::Right => "\"}}\"".to_string(),
            Tok::Char(c) => format!("{:?}", c.to_string()),
            Tok::Ident(s) | Tok::Num(s) => format!("{s:?}"),
            Tok::Field(f) => format!("<.{f}>"),
            Tok::Var(v) => format!("\"${v}\""),
            Tok::Str(s) => format!("{s:?}"),
            Tok::RParen => "\")\"".to_string(),
            Tok::LParen => "\"(\"".to_string(),
            Tok::Pipe => "\"|\"".to_string(),
            Tok::Comma => "\",\"".to_string(),
            Tok::Declare => "\":=\"".to_string(),
            Tok::Assign => "\"=\"".to_string(),
            other => format!("{other:?}"),
        };
        self.error_at(t.1, &format!("unexpected {shown} in {context}"))
    }

    /// Nodes up to EOF, `{{end}}` or `{{else}}` (the `else` keyword is consumed, the rest of
    /// its action is left for the caller).
    fn list(&mut self) -> Result<(Vec<Node>, ListEnd), ParseError> {
        let mut nodes = Vec::new();
        loop {
            let t = self.next();
            match t.0 {
                Tok::Eof => return Ok((nodes, ListEnd::Eof)),
                Tok::Text(s) => nodes.push(Node::Text(s)),
                Tok::Left => {
                    let (kw, pos) = match self.peek_non_space() {
                        Tok::Ident(k) => (k, self.peek().1),
                        _ => {
                            let pipe = self.pipeline("command", Tok::Right)?;
                            nodes.push(Node::Action(pipe));
                            continue;
                        }
                    };
                    match kw.as_str() {
                        "end" => {
                            self.next();
                            self.expect_right("end")?;
                            return Ok((nodes, ListEnd::End));
                        }
                        "else" => {
                            self.next();
                            return Ok((nodes, ListEnd::Else));
                        }
                        "if" | "with" | "range" => {
                            self.next();
                            let n = self.branch(&kw)?;
                            nodes.push(n);
                        }
                        "break" | "continue" => {
                            self.next();
                            if self.range_depth == 0 {
                                return Err(self.error_at(
                                    pos,
                                    &format!("{{{{{kw}}}}} outside {{{{range}}}}"),
                                ));
                            }
                            self.expect_right(&kw)?;
                            nodes.push(if kw == "break" {
                                Node::Break
                            } else {
                                Node::Continue
                            });
                        }
                        "define" | "template" | "block" => {
                            return Err(self.error_at(
                                pos,
                                &format!("{{{{{kw}}}}} is not supported by this template engine"),
                            ));
                        }
                        _ => {
                            let pipe = self.pipeline("command", Tok::Right)?;
                            nodes.push(Node::Action(pipe));
                        }
                    }
                }
                _ => return Err(self.unexpected(&t, "input")),
            }
        }
    }

    fn expect_right(&mut self, context: &str) -> Result<(), ParseError> {
        let t = self.next_non_space();
        if t.0 == Tok::Right {
            Ok(())
        } else {
            Err(self.unexpected(&t, context))
        }
    }

    fn branch(&mut self, kw: &str) -> Result<Node, ParseError> {
        let scope = self.vars.len();
        let pipe = self.pipeline(kw, Tok::Right)?;
        if kw == "range" {
            self.range_depth += 1;
        }
        let (list, end) = self.list()?;
        if kw == "range" {
            self.range_depth -= 1;
        }
        let else_list = match end {
            ListEnd::Eof => return Err(self.error_at(self.src.len(), "unexpected EOF")),
            ListEnd::End => Vec::new(),
            ListEnd::Else => {
                // `{{else if ...}}` / `{{else with ...}}` nest a branch that shares our end.
                let chained = match self.peek_non_space() {
                    Tok::Ident(k) if (k == "if" && kw == "if") || (k == "with" && kw == "with") => {
                        self.next();
                        Some(k)
                    }
                    _ => None,
                };
                match chained {
                    Some(k) => vec![self.branch(&k)?],
                    None => {
                        self.expect_right("else")?;
                        let (else_list, end) = self.list()?;
                        if end != ListEnd::End {
                            return Err(self.error_at(self.prev_pos(), "expected end; found else"));
                        }
                        else_list
                    }
                }
            }
        };
        self.vars.truncate(scope);
        let b = Branch {
            pipe,
            list,
            else_list,
        };
        Ok(match kw {
            "if" => Node::If(b),
            "with" => Node::With(b),
            _ => Node::Range(b),
        })
    }

    fn pipeline(&mut self, context: &str, end: Tok) -> Result<Pipe, ParseError> {
        self.peek_non_space();
        let pos = self.peek().1;
        let mut pipe = Pipe {
            pos,
            decl: Vec::new(),
            assign: false,
            cmds: Vec::new(),
        };
        // Declarations: `$x :=`, `$x =`, `$i, $e :=` (range only).
        let save = self.at;
        if let Tok::Var(v) = self.peek_non_space() {
            self.next();
            match self.peek_non_space() {
                Tok::Declare | Tok::Assign => {
                    let assign = self.next().0 == Tok::Assign;
                    if assign && !self.vars.contains(&v) {
                        return Err(self.error_at(pos, &format!("undefined variable \"${v}\"")));
                    }
                    pipe.decl.push(v);
                    pipe.assign = assign;
                }
                Tok::Comma if context == "range" => {
                    self.next();
                    let t = self.next_non_space();
                    let Tok::Var(v2) = t.0 else {
                        return Err(self.unexpected(&t, "range"));
                    };
                    let t = self.next_non_space();
                    if t.0 != Tok::Declare && t.0 != Tok::Assign {
                        return Err(self.unexpected(&t, "range"));
                    }
                    pipe.assign = t.0 == Tok::Assign;
                    pipe.decl = vec![v, v2];
                }
                _ => self.at = save,
            }
        }
        if !pipe.assign {
            self.vars.extend(pipe.decl.iter().cloned());
        }
        loop {
            let t = self.peek_non_space();
            if t == end {
                self.next();
                if pipe.cmds.is_empty() {
                    return Err(self.error_at(pos, &format!("missing value for {context}")));
                }
                return Ok(pipe);
            }
            match t {
                Tok::Eof | Tok::Error(_) => {
                    let t = self.next();
                    return Err(self.unexpected(&t, context));
                }
                _ => {}
            }
            let cmd = self.command(&end)?;
            pipe.cmds.push(cmd);
        }
    }

    fn command(&mut self, end: &Tok) -> Result<Cmd, ParseError> {
        self.peek_non_space();
        let pos = self.peek().1;
        let mut args = Vec::new();
        loop {
            self.peek_non_space();
            match self.operand()? {
                Some(a) => args.push(a),
                None => {
                    let t = self.peek().clone();
                    if t.0 == *end {
                        break;
                    }
                    if t.0 == Tok::Pipe {
                        self.next();
                        if args.is_empty() {
                            return Err(self.error_at(t.1, "missing value for command"));
                        }
                        break;
                    }
                    return Err(self.unexpected(&t, "operand"));
                }
            }
            // Operands are separated by spaces; anything else must end the command.
            match &self.peek().0 {
                Tok::Space => continue,
                t if t == end || *t == Tok::Pipe => continue,
                _ => {
                    let t = self.peek().clone();
                    return Err(self.unexpected(&t, "operand"));
                }
            }
        }
        if args.is_empty() {
            return Err(self.error_at(pos, "missing value for command"));
        }
        Ok(Cmd { pos, args })
    }

    /// One operand with its field chain, or None at a token that is no operand.
    fn operand(&mut self) -> Result<Option<Arg>, ParseError> {
        let (t, pos) = self.peek().clone();
        let base = match t {
            Tok::Dot => {
                self.next();
                Arg::Dot
            }
            Tok::Field(f) => {
                self.next();
                Arg::Field(vec![f])
            }
            Tok::Var(v) => {
                self.next();
                if !self.vars.contains(&v) {
                    return Err(self.error_at(pos, &format!("undefined variable \"${v}\"")));
                }
                Arg::Var(v, Vec::new())
            }
            Tok::LParen => {
                self.next();
                let p = self.pipeline("parenthesized pipeline", Tok::RParen)?;
                Arg::Sub(Box::new(p), Vec::new())
            }
            Tok::Str(s) => {
                self.next();
                Arg::Str(s)
            }
            Tok::Num(n) => {
                self.next();
                Arg::Num(
                    parse_number(&n)
                        .ok_or_else(|| self.error_at(pos, &format!("bad number syntax: {n:?}")))?,
                )
            }
            Tok::Ident(name) => {
                self.next();
                match name.as_str() {
                    "true" => Arg::Bool(true),
                    "false" => Arg::Bool(false),
                    "nil" => Arg::Nil,
                    _ if is_function(&name) => Arg::Func(name),
                    _ => return Err(self.error_at(pos, &format!("function {name:?} not defined"))),
                }
            }
            _ => return Ok(None),
        };
        // Chained fields: `.A.B`, `$x.A`, `(pipe).A`.
        let mut chain = Vec::new();
        while let Tok::Field(f) = &self.peek().0 {
            chain.push(f.clone());
            self.next();
        }
        if chain.is_empty() {
            return Ok(Some(base));
        }
        Ok(Some(match base {
            Arg::Field(mut fs) => {
                fs.extend(chain);
                Arg::Field(fs)
            }
            Arg::Var(v, _) => Arg::Var(v, chain),
            Arg::Sub(p, _) => Arg::Sub(p, chain),
            Arg::Dot => Arg::Field(chain),
            _ => {
                return Err(self.error_at(pos, "unexpected . after term"));
            }
        }))
    }
}

fn parse_number(text: &str) -> Option<serde_json::Number> {
    let t = text.strip_prefix('+').unwrap_or(text);
    if let Ok(i) = t.parse::<i64>() {
        return Some(i.into());
    }
    if let Some(hex) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        return i64::from_str_radix(hex, 16).ok().map(Into::into);
    }
    t.parse::<f64>().ok().and_then(serde_json::Number::from_f64)
}
