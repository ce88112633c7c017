//! The go-bexpr grammar, by recursive descent with backtracking (the grammar is a PEG).
//! Errors name `line:col (byte offset)` like go-bexpr's generated parser, and either what
//! was expected at the furthest point reached or the specific mistake (an unterminated
//! string, an unclosed index, unmatched parentheses).

use regex::Regex;

use super::{Binding, Collection, Expr, Match, MatchOp, Selector};

pub fn parse(source: &str) -> Result<Expr, String> {
    let mut p = Parser {
        src: source,
        pos: 0,
        furthest: 0,
        expected: Vec::new(),
    };
    p.ws();
    let expr = match p.or_expr() {
        Ok(Some(e)) => e,
        Ok(None) => return Err(p.no_match()),
        Err(e) => return Err(e),
    };
    p.ws();
    if p.pos < source.len() {
        p.expect_here("end of input");
        // An `(` left open is the likeliest reading of trailing garbage after a group.
        return Err(p.no_match());
    }
    Ok(expr)
}

struct Parser<'a> {
    src: &'a str,
    pos: usize,
    /// The furthest offset any alternative reached, and what would have matched there.
    furthest: usize,
    expected: Vec<&'static str>,
}

/// `Ok(None)`: this alternative does not match here (the caller backtracks);
/// `Err`: a definite mistake that ends the parse.
type PResult<T> = Result<Option<T>, String>;

impl<'a> Parser<'a> {
    fn rest(&self) -> &'a str {
        &self.src[self.pos..]
    }

    fn peek(&self) -> Option<char> {
        self.rest().chars().next()
    }

    /// `line:col (offset)` of byte `at`, columns counted in characters.
    fn position(&self, at: usize) -> String {
        let before = &self.src[..at];
        let line = before.matches('\n').count() + 1;
        let col = before.rsplit('\n').next().map_or(0, |l| l.chars().count()) + 1;
        format!("{line}:{col} ({at})")
    }

    fn error_at(&self, at: usize, msg: &str) -> String {
        format!("{}: {msg}", self.position(at))
    }

    fn expect_here(&mut self, what: &'static str) {
        if self.pos > self.furthest {
            self.furthest = self.pos;
            self.expected.clear();
        }
        if self.pos == self.furthest && !self.expected.contains(&what) {
            self.expected.push(what);
        }
    }

    fn no_match(&self) -> String {
        let mut list: Vec<&str> = self.expected.clone();
        list.sort_unstable();
        let expected = match list.as_slice() {
            [] => String::new(),
            [one] => (*one).to_string(),
            [init @ .., last] => format!("{} or {last}", init.join(", ")),
        };
        let found = match self.src[self.furthest..].chars().next() {
            Some(c) => format!("{c:?}"),
            None => "end of input".to_string(),
        };
        self.error_at(
            self.furthest,
            &format!("no match found, expected: {expected}; found {found}"),
        )
    }

    /// Optional whitespace; true if any was skipped.
    fn ws(&mut self) -> bool {
        let start = self.pos;
        while let Some(c) = self.peek() {
            if matches!(c, ' ' | '\t' | '\r' | '\n') {
                self.pos += 1;
            } else {
                break;
            }
        }
        self.pos > start
    }

    /// Required whitespace.
    fn ws1(&mut self) -> bool {
        if self.ws() {
            true
        } else {
            self.expect_here("whitespace");
            false
        }
    }

    fn lit(&mut self, s: &'static str) -> bool {
        if self.rest().starts_with(s) {
            self.pos += s.len();
            true
        } else {
            self.expect_here(s);
            false
        }
    }

    /// Runs `f`; on no match, puts the position back.
    fn attempt<T>(&mut self, f: impl FnOnce(&mut Self) -> PResult<T>) -> PResult<T> {
        let start = self.pos;
        let out = f(self)?;
        if out.is_none() {
            self.pos = start;
        }
        Ok(out)
    }

    /// `ws keyword ws` between two operands (`or`, `and`).
    fn infix(&mut self, kw: &'static str) -> bool {
        let start = self.pos;
        if self.ws1() && self.lit(kw) && self.ws1() {
            return true;
        }
        self.pos = start;
        false
    }

    fn or_expr(&mut self) -> PResult<Expr> {
        let Some(left) = self.and_expr()? else {
            return Ok(None);
        };
        let start = self.pos;
        if self.infix("or") {
            if let Some(right) = self.or_expr()? {
                return Ok(Some(Expr::Or(Box::new(left), Box::new(right))));
            }
        }
        self.pos = start;
        Ok(Some(left))
    }

    fn and_expr(&mut self) -> PResult<Expr> {
        let Some(left) = self.not_expr()? else {
            return Ok(None);
        };
        let start = self.pos;
        if self.infix("and") {
            if let Some(right) = self.and_expr()? {
                return Ok(Some(Expr::And(Box::new(left), Box::new(right))));
            }
        }
        self.pos = start;
        Ok(Some(left))
    }

    fn not_expr(&mut self) -> PResult<Expr> {
        let negated = self.attempt(|p| {
            if !(p.lit("not") && p.ws1()) {
                return Ok(None);
            }
            p.not_expr()
        })?;
        if let Some(inner) = negated {
            // `not not X` is X.
            return Ok(Some(match inner {
                Expr::Not(e) => *e,
                e => Expr::Not(Box::new(e)),
            }));
        }
        self.primary()
    }

    fn primary(&mut self) -> PResult<Expr> {
        if self.peek() == Some('(') {
            let open = self.pos;
            self.pos += 1;
            self.ws();
            let Some(inner) = self.or_expr()? else {
                return Ok(None);
            };
            self.ws();
            if !self.lit(")") {
                return Err(self.error_at(open, "Unmatched parentheses"));
            }
            return Ok(Some(inner));
        }
        if let Some(c) = self.attempt(Self::collection)? {
            return Ok(Some(Expr::Collection(c)));
        }
        Ok(self.match_expr()?.map(Expr::Match))
    }

    fn collection(&mut self) -> PResult<Collection> {
        let all = if self.lit("any") {
            false
        } else if self.lit("all") {
            true
        } else {
            return Ok(None);
        };
        if !self.ws1() {
            return Ok(None);
        }
        let Some(selector) = self.selector()? else {
            return Ok(None);
        };
        if !(self.ws1() && self.lit("as") && self.ws1()) {
            return Ok(None);
        }
        let Some(binding) = self.binding() else {
            return Ok(None);
        };
        self.ws();
        if !self.lit("{") {
            return Ok(None);
        }
        self.ws();
        let Some(inner) = self.or_expr()? else {
            return Ok(None);
        };
        self.ws();
        if !self.lit("}") {
            return Ok(None);
        }
        Ok(Some(Collection {
            all,
            selector,
            binding,
            inner: Box::new(inner),
        }))
    }

    fn binding(&mut self) -> Option<Binding> {
        let first = if self.lit("_") {
            None
        } else {
            Some(self.identifier()?)
        };
        let before_comma = self.pos;
        self.ws();
        if !self.lit(",") {
            self.pos = before_comma;
            return first.map(Binding::Default);
        }
        self.ws();
        let second = if self.lit("_") {
            None
        } else {
            Some(self.identifier()?)
        };
        match (first, second) {
            (Some(i), Some(v)) => Some(Binding::IndexValue(i, v)),
            (Some(i), None) => Some(Binding::Index(i)),
            (None, Some(v)) => Some(Binding::Value(v)),
            (None, None) => None,
        }
    }

    fn identifier(&mut self) -> Option<String> {
        let rest = self.rest();
        if !rest.starts_with(|c: char| c.is_ascii_alphabetic()) {
            self.expect_here("identifier");
            return None;
        }
        let len = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || c == '_' || c == '/'))
            .unwrap_or(rest.len());
        self.pos += len;
        Some(rest[..len].to_string())
    }

    /// `A.B["c"].0` or a JSON pointer `"/A/B"`.
    fn selector(&mut self) -> PResult<Selector> {
        if self.peek() == Some('"') {
            return self.attempt(|p| Ok(p.pointer_selector()));
        }
        let Some(first) = self.identifier() else {
            return Ok(None);
        };
        let mut path = vec![first];
        loop {
            if self.peek() == Some('.') {
                self.pos += 1;
                if let Some(id) = self.identifier() {
                    path.push(id);
                    continue;
                }
                let rest = self.rest();
                let digits = rest
                    .find(|c: char| !c.is_ascii_digit())
                    .unwrap_or(rest.len());
                if digits == 0 {
                    self.pos -= 1;
                    break;
                }
                path.push(rest[..digits].to_string());
                self.pos += digits;
            } else if self.peek() == Some('[') {
                let open = self.pos;
                self.pos += 1;
                self.ws();
                let Some(key) = self.string_literal()? else {
                    return Err(self.error_at(open, "Invalid index"));
                };
                self.ws();
                if !self.lit("]") {
                    return Err(self.error_at(open, "Unclosed index expression"));
                }
                path.push(key);
            } else {
                self.expect_here(".");
                self.expect_here("[");
                break;
            }
        }
        Ok(Some(Selector {
            pointer: false,
            path,
        }))
    }

    /// `"/a/b~1c"`: segments of letters, digits and `-_.~:|`, with JSON pointer escapes.
    fn pointer_selector(&mut self) -> Option<Selector> {
        self.pos += 1; // the opening quote
        let mut path = Vec::new();
        while self.peek() == Some('/') {
            self.pos += 1;
            let rest = self.rest();
            let len = rest
                .find(|c: char| !(c.is_alphanumeric() || "-_.~:|".contains(c)))
                .unwrap_or(rest.len());
            if len == 0 {
                return None;
            }
            path.push(rest[..len].replace("~1", "/").replace("~0", "~"));
            self.pos += len;
        }
        if !self.lit("\"") {
            return None;
        }
        Some(Selector {
            pointer: true,
            path,
        })
    }

    fn match_expr(&mut self) -> PResult<Match> {
        let start = self.pos;
        // Selector, then an operator that takes a value or none.
        if let Some(selector) = self.selector()? {
            if let Some(op) = self.value_operator() {
                let Some(value) = self.value()? else {
                    self.pos = start;
                    return self.value_in_selector();
                };
                return Ok(Some(self.compile(selector, op, Some(value), start)?));
            }
            if let Some(op) = self.unary_operator() {
                return Ok(Some(Match {
                    selector,
                    op,
                    value: None,
                    regex: None,
                }));
            }
        }
        self.pos = start;
        self.value_in_selector()
    }

    /// `value in Selector`, `value not in Selector`.
    fn value_in_selector(&mut self) -> PResult<Match> {
        let start = self.pos;
        let Some(value) = self.value()? else {
            return Ok(None);
        };
        let op = if self.keyword_op(&["in"]) {
            MatchOp::In
        } else if self.keyword_op(&["not", "in"]) {
            MatchOp::NotIn
        } else {
            self.pos = start;
            return Ok(None);
        };
        let at = self.pos;
        let Some(selector) = self.selector()? else {
            return Err(self.error_at(at, "Invalid selector"));
        };
        Ok(Some(self.compile(selector, op, Some(value), start)?))
    }

    fn compile(
        &self,
        selector: Selector,
        op: MatchOp,
        value: Option<String>,
        at: usize,
    ) -> Result<Match, String> {
        let regex = match (op, &value) {
            (MatchOp::Matches | MatchOp::NotMatches, Some(v)) => {
                Some(Regex::new(v).map_err(|e| {
                    self.error_at(
                        at,
                        &format!("failed to compile regular expression {v:?}: {e}"),
                    )
                })?)
            }
            _ => None,
        };
        Ok(Match {
            selector,
            op,
            value,
            regex,
        })
    }

    /// `ws word ws word ... ws`, all or nothing.
    fn keyword_op(&mut self, words: &[&'static str]) -> bool {
        let start = self.pos;
        for w in words {
            if !(self.ws1() && self.lit(w)) {
                self.pos = start;
                return false;
            }
        }
        if !self.ws1() {
            self.pos = start;
            return false;
        }
        true
    }

    fn value_operator(&mut self) -> Option<MatchOp> {
        let start = self.pos;
        self.ws();
        if self.lit("==") {
            self.ws();
            return Some(MatchOp::Equal);
        }
        if self.lit("!=") {
            self.ws();
            return Some(MatchOp::NotEqual);
        }
        self.pos = start;
        let ops: [(&[&'static str], MatchOp); 4] = [
            (&["contains"], MatchOp::In),
            (&["not", "contains"], MatchOp::NotIn),
            (&["matches"], MatchOp::Matches),
            (&["not", "matches"], MatchOp::NotMatches),
        ];
        ops.into_iter()
            .find(|(words, _)| self.keyword_op(words))
            .map(|(_, op)| op)
    }

    fn unary_operator(&mut self) -> Option<MatchOp> {
        let ops: [(&[&'static str], MatchOp); 4] = [
            (&["is", "empty"], MatchOp::IsEmpty),
            (&["is", "not", "empty"], MatchOp::IsNotEmpty),
            (&["is", "nil"], MatchOp::IsNil),
            (&["is", "not", "nil"], MatchOp::IsNotNil),
        ];
        for (words, op) in ops {
            let start = self.pos;
            if words.iter().all(|w| self.ws1() && self.lit(w)) {
                return Some(op);
            }
            self.pos = start;
        }
        None
    }

    /// A bare selector (its text is the value), a number or a string.
    fn value(&mut self) -> PResult<String> {
        match self.peek() {
            Some('"') | Some('`') => self.string_literal(),
            Some(c) if c == '-' || c.is_ascii_digit() => self.number(),
            _ => Ok(self.selector()?.map(|s| s.to_string())),
        }
    }

    fn number(&mut self) -> PResult<String> {
        let start = self.pos;
        let rest = self.rest();
        let mut len = usize::from(rest.starts_with('-'));
        let digits = |s: &str| s.find(|c: char| !c.is_ascii_digit()).unwrap_or(s.len());
        let int = digits(&rest[len..]);
        if int == 0 || (int > 1 && rest[len..].starts_with('0')) {
            self.expect_here("number");
            return Ok(None);
        }
        len += int;
        if rest[len..].starts_with('.') {
            let frac = digits(&rest[len + 1..]);
            if frac > 0 {
                len += 1 + frac;
            }
        }
        match rest[len..].chars().next() {
            None | Some(' ' | '\t' | '\r' | '\n' | ')' | '}') => {
                self.pos += len;
                Ok(Some(rest[..len].to_string()))
            }
            Some(_) => Err(self.error_at(start, "Invalid number literal")),
        }
    }

    /// `"..."` (Go escapes) or `` `...` `` (raw).
    fn string_literal(&mut self) -> PResult<String> {
        let start = self.pos;
        let Some(quote) = self.peek().filter(|c| *c == '"' || *c == '`') else {
            self.expect_here("string");
            return Ok(None);
        };
        let body_start = self.pos + 1;
        let Some(len) = self.src[body_start..].find(quote) else {
            return Err(self.error_at(start, "Unterminated string literal"));
        };
        let body = &self.src[body_start..body_start + len];
        self.pos = body_start + len + 1;
        if quote == '`' {
            return Ok(Some(body.to_string()));
        }
        unquote(body)
            .map(Some)
            .ok_or_else(|| self.error_at(start, "invalid syntax"))
    }
}

/// Go's escapes in a double-quoted string: `\n \t \\ \xHH \uHHHH \UHHHHHHHH \ooo` ...
fn unquote(body: &str) -> Option<String> {
    let mut out = String::with_capacity(body.len());
    let mut chars = body.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let e = chars.next()?;
        let simple = match e {
            'a' => Some('\u{7}'),
            'b' => Some('\u{8}'),
            'f' => Some('\u{c}'),
            'n' => Some('\n'),
            'r' => Some('\r'),
            't' => Some('\t'),
            'v' => Some('\u{b}'),
            '\\' => Some('\\'),
            '\'' => Some('\''),
            _ => None,
        };
        if let Some(s) = simple {
            out.push(s);
            continue;
        }
        let (digits, radix) = match e {
            'x' => (2, 16),
            'u' => (4, 16),
            'U' => (8, 16),
            '0'..='7' => (2, 8),
            _ => return None,
        };
        let mut text: String = if radix == 8 {
            e.to_string()
        } else {
            String::new()
        };
        for _ in 0..digits {
            text.push(chars.next()?);
        }
        let n = u32::from_str_radix(&text, radix).ok()?;
        if radix == 8 && n > 255 {
            return None;
        }
        out.push(char::from_u32(n)?);
    }
    Some(out)
}
