//! Tokens of Go's text/template: text between actions, and inside `{{ }}` the words of
//! pipelines. Trim markers (`{{- ` and ` -}}`) remove the white space next to the action;
//! comments (`{{/* */}}`) vanish.

use super::TemplateError;

#[derive(Debug, Clone, PartialEq)]
pub enum Tok {
    Text(String),
    /// Start of an action (`{{`); trim handled by the lexer.
    Open,
    Close,
    /// `.Foo` (one segment; chained fields are consecutive Field tokens with no space).
    Field(String),
    /// `$x`, or `$` alone.
    Variable(String),
    Ident(String),
    Keyword(&'static str),
    Str(String),
    /// A numeric literal in its source form (parsed later, as Go does).
    Number(String),
    Char(char),
    Bool(bool),
    Nil,
    Dot,
    Pipe,
    LParen,
    RParen,
    Declare,
    Assign,
    Comma,
    /// White space inside an action (it separates arguments: `.a .b` vs `.a.b`).
    Space,
}

#[derive(Debug, Clone, PartialEq)]
pub struct Token {
    pub tok: Tok,
    pub line: usize,
    pub col: usize,
    /// Byte offset in the source, for error context.
    pub pos: usize,
}

const KEYWORDS: &[&str] = &[
    "block", "break", "continue", "define", "else", "end", "if", "range", "template", "with",
];

pub struct Lexer<'a> {
    src: &'a str,
    name: &'a str,
    left: &'a str,
    right: &'a str,
    pos: usize,
    out: Vec<Token>,
}

fn is_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\r' | '\n')
}

fn is_alnum(c: char) -> bool {
    c == '_' || c.is_alphanumeric()
}

impl<'a> Lexer<'a> {
    pub fn new(name: &'a str, src: &'a str, left: &'a str, right: &'a str) -> Self {
        Lexer {
            src,
            name,
            left: if left.is_empty() { "{{" } else { left },
            right: if right.is_empty() { "}}" } else { right },
            pos: 0,
            out: Vec::new(),
        }
    }

    fn line_col(&self, pos: usize) -> (usize, usize) {
        let before = &self.src[..pos.min(self.src.len())];
        let line = before.matches('\n').count() + 1;
        let col = before.rfind('\n').map(|i| pos - i - 1).unwrap_or(pos);
        (line, col)
    }

    fn err(&self, pos: usize, msg: impl std::fmt::Display) -> TemplateError {
        let (line, _) = self.line_col(pos);
        TemplateError::Parse(format!("template: {}:{line}: {msg}", self.name))
    }

    fn push(&mut self, tok: Tok, pos: usize) {
        let (line, col) = self.line_col(pos);
        self.out.push(Token {
            tok,
            line,
            col,
            pos,
        });
    }

    pub fn run(mut self) -> Result<Vec<Token>, TemplateError> {
        let mut trim_next_text = false;
        loop {
            let rest = &self.src[self.pos..];
            let Some(i) = rest.find(self.left) else {
                let mut text = rest.to_string();
                if trim_next_text {
                    text = text.trim_start_matches(is_space).to_string();
                }
                if !text.is_empty() {
                    let p = self.pos;
                    self.push(Tok::Text(text), p);
                }
                break;
            };
            let mut text = rest[..i].to_string();
            let action_start = self.pos + i;
            let after_left = action_start + self.left.len();
            // `{{- ` trims the preceding text; the dash must be followed by white space.
            let trim_before = self.src[after_left..].starts_with('-')
                && self.src[after_left + 1..]
                    .chars()
                    .next()
                    .is_some_and(is_space);
            if trim_next_text {
                text = text.trim_start_matches(is_space).to_string();
            }
            if trim_before {
                text = text.trim_end_matches(is_space).to_string();
            }
            if !text.is_empty() {
                let p = self.pos;
                self.push(Tok::Text(text), p);
            }
            self.pos = after_left + if trim_before { 2 } else { 0 };
            trim_next_text = self.action(action_start)?;
        }
        Ok(self.out)
    }

    /// Is the action closing here (`}}` or ` -}}`)? Returns (length to skip, trims).
    fn at_close(&self) -> Option<(usize, bool)> {
        let rest = &self.src[self.pos..];
        if rest.starts_with(self.right) {
            return Some((self.right.len(), false));
        }
        let mut chars = rest.char_indices();
        if let Some((_, c)) = chars.next() {
            if is_space(c) {
                let after_space = &rest[c.len_utf8()..];
                if after_space.starts_with('-') && after_space[1..].starts_with(self.right) {
                    return Some((c.len_utf8() + 1 + self.right.len(), true));
                }
            }
        }
        None
    }

    /// Lexes one action after its left delimiter; returns whether it trims the text after.
    fn action(&mut self, start: usize) -> Result<bool, TemplateError> {
        // Comments: `{{/* ... */}}`, optionally with trim markers.
        let rest = &self.src[self.pos..];
        let ws = rest.len() - rest.trim_start_matches(is_space).len();
        if rest[ws..].starts_with("/*") {
            let body_start = self.pos + ws + 2;
            let Some(end) = self.src[body_start..].find("*/") else {
                return Err(self.err(start, "unclosed comment"));
            };
            self.pos = body_start + end + 2;
            if let Some((n, trim)) = self.at_close() {
                self.pos += n;
                return Ok(trim);
            }
            return Err(self.err(start, "comment ends before closing delimiter"));
        }
        self.push(Tok::Open, start);
        let mut paren = 0i32;
        loop {
            if paren == 0 {
                if let Some((n, trim)) = self.at_close() {
                    let p = self.pos;
                    self.push(Tok::Close, p);
                    self.pos += n;
                    return Ok(trim);
                }
            }
            let p = self.pos;
            let Some(c) = self.src[p..].chars().next() else {
                return Err(self.err(start, "unclosed action"));
            };
            match c {
                c if is_space(c) => {
                    let rest = &self.src[p..];
                    let n = rest.len() - rest.trim_start_matches(is_space).len();
                    if rest[..n].contains('\n') && paren == 0 {
                        // Go allows newlines inside actions (since 1.16); keep going.
                    }
                    self.pos += n;
                    if self.out.last().is_some_and(|t| t.tok != Tok::Space) {
                        self.push(Tok::Space, p);
                    }
                }
                '|' => {
                    self.pos += 1;
                    self.push(Tok::Pipe, p);
                }
                '(' => {
                    self.pos += 1;
                    paren += 1;
                    self.push(Tok::LParen, p);
                }
                ')' => {
                    self.pos += 1;
                    paren -= 1;
                    if paren < 0 {
                        return Err(self.err(p, "unexpected right paren"));
                    }
                    self.push(Tok::RParen, p);
                }
                ',' => {
                    self.pos += 1;
                    self.push(Tok::Comma, p);
                }
                ':' => {
                    if self.src[p..].starts_with(":=") {
                        self.pos += 2;
                        self.push(Tok::Declare, p);
                    } else {
                        return Err(self.err(p, "expected :="));
                    }
                }
                '=' => {
                    self.pos += 1;
                    self.push(Tok::Assign, p);
                }
                '"' => {
                    let s = self.quoted(p)?;
                    self.push(Tok::Str(s), p);
                }
                '`' => {
                    let Some(end) = self.src[p + 1..].find('`') else {
                        return Err(self.err(p, "unterminated raw quoted string"));
                    };
                    let s = self.src[p + 1..p + 1 + end].to_string();
                    self.pos = p + end + 2;
                    self.push(Tok::Str(s), p);
                }
                '\'' => {
                    let ch = self.char_const(p)?;
                    self.push(Tok::Char(ch), p);
                }
                '$' => {
                    let n = self.word_len(p + 1);
                    let name = self.src[p..p + 1 + n].to_string();
                    self.pos = p + 1 + n;
                    self.push(Tok::Variable(name), p);
                }
                '.' => {
                    let next = self.src[p + 1..].chars().next();
                    if next.is_some_and(|c| c.is_ascii_digit()) {
                        self.number(p)?;
                    } else {
                        let n = self.word_len(p + 1);
                        self.pos = p + 1 + n;
                        if n == 0 {
                            self.push(Tok::Dot, p);
                        } else {
                            let name = self.src[p + 1..p + 1 + n].to_string();
                            self.push(Tok::Field(name), p);
                        }
                    }
                }
                '+' | '-' | '0'..='9' => self.number(p)?,
                c if is_alnum(c) => {
                    let n = self.word_len(p);
                    let word = &self.src[p..p + n];
                    self.pos = p + n;
                    let tok = match word {
                        "true" => Tok::Bool(true),
                        "false" => Tok::Bool(false),
                        "nil" => Tok::Nil,
                        w => match KEYWORDS.iter().find(|k| **k == w) {
                            Some(k) => Tok::Keyword(k),
                            None => Tok::Ident(w.to_string()),
                        },
                    };
                    self.push(tok, p);
                }
                other => {
                    return Err(self.err(p, format!("unexpected {other:?} in command")));
                }
            }
        }
    }

    fn word_len(&self, from: usize) -> usize {
        self.src[from..]
            .char_indices()
            .find(|(_, c)| !is_alnum(*c))
            .map(|(i, _)| i)
            .unwrap_or(self.src.len() - from)
    }

    fn number(&mut self, p: usize) -> Result<(), TemplateError> {
        let rest = &self.src[p..];
        let n = rest
            .char_indices()
            .find(|(i, c)| {
                !(c.is_ascii_alphanumeric()
                    || *c == '.'
                    || *c == '_'
                    || (*i == 0 && (*c == '+' || *c == '-'))
                    || ((*c == '+' || *c == '-')
                        && rest[..*i].ends_with(['e', 'E', 'p', 'P'])
                        && !rest.starts_with("0x")))
            })
            .map(|(i, _)| i)
            .unwrap_or(rest.len());
        let text = &rest[..n];
        if text == "+" || text == "-" || n == 0 {
            return Err(self.err(p, format!("bad number syntax: {text:?}")));
        }
        self.pos = p + n;
        self.push(Tok::Number(text.to_string()), p);
        Ok(())
    }

    fn quoted(&mut self, p: usize) -> Result<String, TemplateError> {
        let mut out = String::new();
        let mut chars = self.src[p + 1..].char_indices();
        while let Some((i, c)) = chars.next() {
            match c {
                '"' => {
                    self.pos = p + 1 + i + 1;
                    return Ok(out);
                }
                '\n' => break,
                '\\' => {
                    let Some((_, e)) = chars.next() else { break };
                    match e {
                        'n' => out.push('\n'),
                        't' => out.push('\t'),
                        'r' => out.push('\r'),
                        'a' => out.push('\x07'),
                        'b' => out.push('\x08'),
                        'f' => out.push('\x0c'),
                        'v' => out.push('\x0b'),
                        '\\' => out.push('\\'),
                        '"' => out.push('"'),
                        '\'' => out.push('\''),
                        'x' | 'u' | 'U' => {
                            let len = match e {
                                'x' => 2,
                                'u' => 4,
                                _ => 8,
                            };
                            let mut hex = String::new();
                            for _ in 0..len {
                                match chars.next() {
                                    Some((_, h)) => hex.push(h),
                                    None => break,
                                }
                            }
                            let v = u32::from_str_radix(&hex, 16)
                                .map_err(|_| self.err(p, "invalid syntax"))?;
                            if e == 'x' {
                                // A byte; only ASCII is representable in a Rust String.
                                out.push(char::from_u32(v).unwrap_or('\u{fffd}'));
                            } else {
                                out.push(
                                    char::from_u32(v)
                                        .ok_or_else(|| self.err(p, "invalid syntax"))?,
                                );
                            }
                        }
                        _ => return Err(self.err(p, "invalid syntax")),
                    }
                }
                c => out.push(c),
            }
        }
        Err(self.err(p, "unterminated quoted string"))
    }

    fn char_const(&mut self, p: usize) -> Result<char, TemplateError> {
        let rest = &self.src[p + 1..];
        let Some(end) = rest.find('\'') else {
            return Err(self.err(p, "unterminated character constant"));
        };
        let body = if rest.starts_with("\\'") {
            "\\'"
        } else {
            &rest[..end]
        };
        let c = match body {
            "\\n" => '\n',
            "\\t" => '\t',
            "\\r" => '\r',
            "\\\\" => '\\',
            "\\'" => '\'',
            b => {
                let mut it = b.chars();
                match (it.next(), it.next()) {
                    (Some(c), None) => c,
                    _ => return Err(self.err(p, format!("malformed character constant: '{b}'"))),
                }
            }
        };
        self.pos = p + 1 + body.len() + 1;
        Ok(c)
    }
}
