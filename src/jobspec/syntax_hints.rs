//! HCL's own diagnostics for the body-structure mistakes people make most: a nested block or a
//! second argument inside a single-line block, two arguments on one line, a bare word, `=` in
//! a block header, a header whose `{` is on the next line.
//!
//! hcl-edit reports these as generic "expected ..." errors at the offset where its grammar
//! stopped. Given that offset, this looks at the line it is on with a small lexer and, when the
//! line has one of these shapes, answers with the summary, detail and subject range that
//! `hclsyntax`'s parser (`finishParsingBodyBlock`, `parseSingleAttrBody`,
//! `finishParsingBodyAttribute`, `ParseBodyItem`) gives for it. Anything else is left to the
//! generic translation.

use std::ops::Range;

use super::diag::{Diagnostic, SourceMap};

const BODY_ITEM_REQUIRED: &str = "Argument or block definition required";
const BODY_ITEM_DETAIL: &str = "An argument or block definition is required here.";
const USE_EQUALS: &str = "An argument or block definition is required here. To set an argument, use the equals sign \"=\" to introduce the argument value.";
const SINGLE_ARG_BLOCK: &str = "Invalid single-argument block definition";
const INVALID_BLOCK: &str = "Invalid block definition";

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Ident,
    /// A whole quoted string (a block label).
    Quoted,
    OBrace,
    CBrace,
    Equal,
    Comma,
    Newline,
    Other,
}

#[derive(Debug, Clone)]
struct Tok {
    kind: Kind,
    span: Range<usize>,
}

impl Tok {
    /// The token as hclsyntax sees its start: a quoted string opens with a one-byte `"`.
    fn head(&self) -> Range<usize> {
        match self.kind {
            Kind::Quoted => self.span.start..self.span.start + 1,
            _ => self.span.clone(),
        }
    }
}

/// The token starting at `at` (spaces and tabs skipped first), or `None` at the end.
fn token(src: &str, mut at: usize) -> Option<Tok> {
    let bytes = src.as_bytes();
    while at < bytes.len() && matches!(bytes[at], b' ' | b'\t' | b'\r') {
        at += 1;
    }
    let c = *bytes.get(at)?;
    let one = |kind| {
        Some(Tok {
            kind,
            span: at..at + 1,
        })
    };
    match c {
        b'{' => one(Kind::OBrace),
        b'}' => one(Kind::CBrace),
        b'=' => one(Kind::Equal),
        b',' => one(Kind::Comma),
        b'\n' => one(Kind::Newline),
        b'"' => {
            let mut end = at + 1;
            while end < bytes.len() && bytes[end] != b'"' && bytes[end] != b'\n' {
                end += if bytes[end] == b'\\' { 2 } else { 1 };
            }
            Some(Tok {
                kind: Kind::Quoted,
                span: at..(end + 1).min(bytes.len()),
            })
        }
        c if c.is_ascii_alphabetic() || c == b'_' || c >= 0x80 => {
            let rest = &src[at..];
            let len = rest
                .find(|ch: char| !(ch.is_alphanumeric() || ch == '_' || ch == '-'))
                .unwrap_or(rest.len());
            Some(Tok {
                kind: Kind::Ident,
                span: at..at + len.max(1),
            })
        }
        _ => {
            let len = src[at..].chars().next().map_or(1, char::len_utf8);
            Some(Tok {
                kind: Kind::Other,
                span: at..at + len,
            })
        }
    }
}

/// HCL's diagnostic for the structure error hcl-edit stopped at `offset` with `message`, when
/// the line there has one of the shapes this module knows.
pub fn diagnose(map: &SourceMap, offset: usize, message: &str) -> Option<Diagnostic> {
    let src = map.src();
    let offset = offset.min(src.len());
    let line_start = src[..offset].rfind('\n').map_or(0, |i| i + 1);
    let first = token(src, line_start)?;
    if first.kind != Kind::Ident {
        return None;
    }
    let diag = |summary: &str, detail: &str, span: Range<usize>| {
        Some(map.diag(summary, detail, Some(span)))
    };
    let second = token(src, first.span.end)?;
    // `name = value` with more on the line: the argument must end with a newline.
    if second.kind == Kind::Equal {
        if !message.contains("newline or eof") || offset <= second.span.end {
            return None;
        }
        let at = token(src, offset)?;
        return match at.kind {
            Kind::Comma => diag(
                "Unexpected comma after argument",
                "Argument definitions must be separated by newlines, not commas. An argument definition must end with a newline.",
                at.span,
            ),
            Kind::Newline => None,
            _ => diag(
                "Missing newline after argument",
                "An argument definition must end with a newline.",
                at.head(),
            ),
        };
    }
    // A block header: the type, then labels, then what follows them.
    let mut labels = 0;
    let mut next = second;
    while matches!(next.kind, Kind::Quoted | Kind::Ident) {
        labels += 1;
        next = token(src, next.span.end)?;
    }
    // hcl-edit's messages where a header or a body item went wrong; an error inside an
    // expression (an object or list spanning lines) is something else.
    let header_error = message.contains("structure") || message.contains("expected `{`");
    match next.kind {
        Kind::OBrace => single_line_body(map, &next, offset, message),
        _ if !header_error => None,
        Kind::Equal if labels > 0 => diag(
            INVALID_BLOCK,
            "The equals sign \"=\" indicates an argument definition, and must not be used when defining a block.",
            next.span,
        ),
        Kind::Newline if labels > 0 => diag(
            INVALID_BLOCK,
            "A block definition must have block content delimited by \"{\" and \"}\", starting on the same line as the block header.",
            next.span,
        ),
        // A word alone on its line.
        Kind::Newline => diag(BODY_ITEM_REQUIRED, USE_EQUALS, first.span),
        _ => None,
    }
}

/// The body of a block whose `{` is `open`, when it goes on on the same line.
fn single_line_body(
    map: &SourceMap,
    open: &Tok,
    offset: usize,
    message: &str,
) -> Option<Diagnostic> {
    if !(message.contains("block body") || message.contains("invalid attribute")) {
        return None;
    }
    let src = map.src();
    let ident = token(src, open.span.end)?;
    if matches!(ident.kind, Kind::Newline | Kind::CBrace) {
        return None; // a multi-line or empty body: not this shape
    }
    let diag = |summary: &str, detail: String, span: Range<usize>| {
        Some(map.diag(summary, detail, Some(span)))
    };
    if ident.kind != Kind::Ident {
        return diag(
            BODY_ITEM_REQUIRED,
            BODY_ITEM_DETAIL.to_string(),
            ident.head(),
        );
    }
    let next = token(src, ident.span.end)?;
    match next.kind {
        Kind::Quoted | Kind::OBrace | Kind::Ident => {
            let name = &src[ident.span.clone()];
            diag(
                "Argument definition required",
                format!("A single-line block definition can contain only a single argument. If you meant to define argument {name:?}, use an equals sign to assign it a value. To define a nested block, place it on a line of its own within its parent block."),
                ident.span.start..next.head().end,
            )
        }
        Kind::Equal => {
            // The argument parsed; what hcl-edit stopped at is what follows it.
            if offset <= next.span.end {
                return None;
            }
            let at = token(src, offset)?;
            match at.kind {
                Kind::CBrace => None,
                Kind::Comma => diag(
                    SINGLE_ARG_BLOCK,
                    "Single-line block syntax can include only one argument definition. To define multiple arguments, use the multi-line block syntax with one argument definition per line.".to_string(),
                    at.span,
                ),
                Kind::Newline => diag(
                    SINGLE_ARG_BLOCK,
                    "An argument definition on the same line as its containing block creates a single-line block definition, which must also be closed on the same line. Place the block's closing brace immediately after the argument definition.".to_string(),
                    at.span,
                ),
                _ => diag(
                    SINGLE_ARG_BLOCK,
                    "A single-line block definition must end with a closing brace immediately after its single argument definition.".to_string(),
                    at.head(),
                ),
            }
        }
        _ => diag(BODY_ITEM_REQUIRED, USE_EQUALS.to_string(), ident.span),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // What hcl-edit says in each case.
    const BODY: &str = "invalid block body; expected `}`, newline or identifier";
    const ATTR: &str = "invalid attribute; expected `=`";
    const STRUCTURE: &str = "invalid structure; expected `{`, `=`, `\"` or identifier";

    /// The diagnostic for `line` placed in a group body, where hcl-edit stops at `col`
    /// (1-based, on that line) with `message`.
    fn hint(line: &str, col: usize, message: &str) -> Option<String> {
        let src = format!("job \"x\" {{\n  group \"g\" {{\n    {line}\n  }}\n}}\n");
        let line_start = src.find(line).expect("line in src");
        let map = SourceMap::new("s.hcl", &src);
        diagnose(&map, line_start - 4 + col - 1, message).map(|d| d.to_string())
    }

    #[test]
    fn a_nested_block_in_a_single_line_block_names_the_argument() {
        let expect = "s.hcl:3,15-21: Argument definition required; A single-line block definition can contain only a single argument. If you meant to define argument \"port\", use an equals sign to assign it a value. To define a nested block, place it on a line of its own within its parent block.";
        let got = hint(r#"network { port "http" { to = 8080 } }"#, 20, ATTR);
        assert_eq!(got.as_deref(), Some(expect));
        let got = hint("network { port http {} }", 20, ATTR);
        assert!(got.is_some_and(|g| g.starts_with("s.hcl:3,15-24: Argument definition required")));
    }

    #[test]
    fn a_single_line_block_holds_one_argument_closed_on_its_line() {
        let line = r#"update { max_parallel = 1  min_healthy_time = "1s" }"#;
        assert_eq!(
            hint(line, 32, BODY).as_deref(),
            Some("s.hcl:3,32-48: Invalid single-argument block definition; A single-line block definition must end with a closing brace immediately after its single argument definition.")
        );
        let line = r#"update { max_parallel = 1, min_healthy_time = "1s" }"#;
        assert_eq!(
            hint(line, 30, BODY).as_deref(),
            Some("s.hcl:3,30-31: Invalid single-argument block definition; Single-line block syntax can include only one argument definition. To define multiple arguments, use the multi-line block syntax with one argument definition per line.")
        );
        let got = hint("update { max_parallel = 1", 30, BODY);
        assert!(
            got.as_deref().is_some_and(|g| g.starts_with("s.hcl:3,30-4,1: Invalid single-argument block definition; An argument definition on the same line as its containing block creates a single-line block definition")),
            "{got:?}"
        );
        assert_eq!(
            hint("update { 5 }", 14, BODY).as_deref(),
            Some("s.hcl:3,14-15: Argument or block definition required; An argument or block definition is required here.")
        );
        assert_eq!(
            hint("update { max_parallel }", 27, ATTR).as_deref(),
            Some("s.hcl:3,14-26: Argument or block definition required; An argument or block definition is required here. To set an argument, use the equals sign \"=\" to introduce the argument value.")
        );
    }

    #[test]
    fn arguments_end_with_a_newline() {
        assert_eq!(
            hint(r#"count = 1 kind = "x""#, 15, "expected newline or eof").as_deref(),
            Some("s.hcl:3,15-19: Missing newline after argument; An argument definition must end with a newline.")
        );
        assert_eq!(
            hint(r#"count = 1, kind = "x""#, 14, "expected newline or eof").as_deref(),
            Some("s.hcl:3,14-15: Unexpected comma after argument; Argument definitions must be separated by newlines, not commas. An argument definition must end with a newline.")
        );
        // An error inside the expression is not this shape.
        assert_eq!(hint("count = 1 +", 16, "invalid expression"), None);
    }

    #[test]
    fn block_headers_take_no_equals_and_open_on_their_line() {
        assert_eq!(
            hint(r#"update "x" = {"#, 16, "expected `{`").as_deref(),
            Some("s.hcl:3,16-17: Invalid block definition; The equals sign \"=\" indicates an argument definition, and must not be used when defining a block.")
        );
        let got = hint(r#"task "t""#, 13, STRUCTURE);
        assert!(
            got.as_deref().is_some_and(|g| g.starts_with("s.hcl:3,13-4,1: Invalid block definition; A block definition must have block content delimited by")),
            "{got:?}"
        );
        assert_eq!(
            hint("update", 11, STRUCTURE).as_deref(),
            Some("s.hcl:3,5-11: Argument or block definition required; An argument or block definition is required here. To set an argument, use the equals sign \"=\" to introduce the argument value.")
        );
    }

    #[test]
    fn valid_shapes_and_other_errors_are_left_alone() {
        assert_eq!(hint("network { mode = \"host\" }", 29, BODY), None);
        assert_eq!(hint("meta = { a = 1 }", 10, "invalid expression"), None);
        assert_eq!(hint("\"quoted\" = 1", 3, STRUCTURE), None);
        // A lone word inside a multi-line expression is not a body item.
        assert_eq!(hint("update", 11, "invalid expression"), None);
    }
}
