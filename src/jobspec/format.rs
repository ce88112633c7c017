//! `nomad fmt`: HCL rewritten to the canonical layout hclwrite gives it. The rules kept
//! here are the ones users see: two spaces of indentation per open bracket, no trailing
//! whitespace, one space around an attribute's `=`, the `=` of consecutive one-line
//! attributes in a block aligned, and the file ending in one newline. Heredoc bodies and
//! comments keep their text.
//!
//! The source must parse first (`format` returns the syntax diagnostic otherwise), so the
//! line scanner below only meets well-formed HCL.

use super::diag::{Diagnostic, SourceMap};

/// The formatted text of `src`, or the syntax error that stops it being formatted.
pub fn format(src: &str, filename: &str) -> Result<String, Diagnostic> {
    if let Err(e) = hcl_edit::parser::parse_body(src) {
        return Err(super::decode::syntax_diag(
            &SourceMap::new(filename, src),
            &e,
        ));
    }
    let mut lines = Vec::new();
    let mut scan = Scanner::default();
    for raw in src.lines() {
        if let Some(marker) = &scan.heredoc {
            // A heredoc body is text: keep it byte for byte (its end marker may be indented).
            if raw.trim() == marker {
                scan.heredoc = None;
            }
            lines.push(Line::verbatim(raw));
            continue;
        }
        if scan.in_comment {
            scan.scan(raw);
            lines.push(Line::verbatim(raw.trim_end()));
            continue;
        }
        let text = raw.trim();
        let depth_before = scan.depth;
        let leading_closers = text
            .chars()
            .take_while(|c| matches!(c, '}' | ']' | ')'))
            .count();
        let eq = scan.scan(text);
        let indent = depth_before.saturating_sub(leading_closers);
        lines.push(Line {
            indent,
            text: text.to_string(),
            eq,
            verbatim: false,
        });
    }
    align(&mut lines);
    let mut out = String::with_capacity(src.len());
    for line in &lines {
        if line.verbatim {
            out.push_str(&line.text);
        } else if !line.text.is_empty() {
            out.push_str(&"  ".repeat(line.indent));
            out.push_str(&line.text);
        }
        out.push('\n');
    }
    while out.ends_with("\n\n") {
        out.pop();
    }
    if out.trim().is_empty() {
        out.clear();
    }
    Ok(out)
}

struct Line {
    indent: usize,
    text: String,
    /// Byte index of an attribute's `=` when the line is a complete one-line attribute.
    eq: Option<usize>,
    verbatim: bool,
}

impl Line {
    fn verbatim(text: &str) -> Line {
        Line {
            indent: 0,
            text: text.to_string(),
            eq: None,
            verbatim: true,
        }
    }
}

/// Normalises `name   =  value` to `name = value`, then pads the names of each run of
/// consecutive attribute lines at one depth so their `=` line up (hclwrite's cells).
fn align(lines: &mut [Line]) {
    for line in lines.iter_mut() {
        if let Some(eq) = line.eq {
            let name = line.text[..eq].trim_end().to_string();
            let value = line.text[eq + 1..].trim_start().to_string();
            line.text = format!("{name} = {value}");
            line.eq = Some(name.len() + 1);
        }
    }
    let mut i = 0;
    while i < lines.len() {
        if lines[i].eq.is_none() {
            i += 1;
            continue;
        }
        let indent = lines[i].indent;
        let mut j = i;
        while j < lines.len() && lines[j].eq.is_some() && lines[j].indent == indent {
            j += 1;
        }
        let width = lines[i..j]
            .iter()
            .filter_map(|l| l.eq.map(|e| l.text[..e - 1].chars().count()))
            .max()
            .unwrap_or(0);
        for line in &mut lines[i..j] {
            if let Some(eq) = line.eq {
                let name = &line.text[..eq - 1];
                let pad = width.saturating_sub(name.chars().count());
                line.text = format!("{name}{} ={}", " ".repeat(pad), &line.text[eq + 1..]);
            }
        }
        i = j;
    }
}

/// Tracks bracket depth across lines, skipping strings, templates and comments.
#[derive(Default)]
struct Scanner {
    depth: usize,
    in_comment: bool,
    heredoc: Option<String>,
}

#[derive(Clone, Copy, PartialEq)]
enum Ctx {
    /// Inside `"..."`.
    Str,
    /// Inside `${ ... }` or `%{ ... }` of a string; the counter is the open-brace depth.
    Interp(usize),
}

impl Scanner {
    /// Scans one line, updating depth; returns the byte index of the attribute `=` when the
    /// line is `name = value` with every bracket it opens closed on the same line.
    fn scan(&mut self, line: &str) -> Option<usize> {
        let bytes = line.as_bytes();
        let start_depth = self.depth;
        let mut stack: Vec<Ctx> = Vec::new();
        let mut eq = None;
        let mut line_depth = 0usize;
        let mut opened_here = 0isize;
        let mut i = 0;
        while i < bytes.len() {
            let c = bytes[i];
            if self.in_comment {
                if c == b'*' && bytes.get(i + 1) == Some(&b'/') {
                    self.in_comment = false;
                    i += 1;
                }
                i += 1;
                continue;
            }
            match stack.last().copied() {
                Some(Ctx::Str) => match c {
                    b'\\' => i += 1,
                    b'"' => {
                        stack.pop();
                    }
                    b'$' | b'%' if bytes.get(i + 1) == Some(&b'{') => {
                        stack.push(Ctx::Interp(0));
                        i += 1;
                    }
                    _ => {}
                },
                Some(Ctx::Interp(n)) => match c {
                    b'"' => stack.push(Ctx::Str),
                    b'{' => {
                        stack.pop();
                        stack.push(Ctx::Interp(n + 1));
                    }
                    b'}' if n == 0 => {
                        stack.pop();
                    }
                    b'}' => {
                        stack.pop();
                        stack.push(Ctx::Interp(n - 1));
                    }
                    _ => {}
                },
                None => match c {
                    b'"' => stack.push(Ctx::Str),
                    b'#' => break,
                    b'/' if bytes.get(i + 1) == Some(&b'/') => break,
                    b'/' if bytes.get(i + 1) == Some(&b'*') => {
                        self.in_comment = true;
                        i += 1;
                    }
                    b'<' if bytes.get(i + 1) == Some(&b'<') => {
                        let rest = line[i + 2..].trim_start_matches('-');
                        let marker: String = rest
                            .chars()
                            .take_while(|c| c.is_alphanumeric() || *c == '_')
                            .collect();
                        if !marker.is_empty() {
                            self.heredoc = Some(marker);
                            // The heredoc's text follows on the next lines.
                            return None;
                        }
                    }
                    b'{' | b'[' | b'(' => {
                        line_depth += 1;
                        opened_here += 1;
                        self.depth += 1;
                    }
                    b'}' | b']' | b')' => {
                        line_depth = line_depth.saturating_sub(1);
                        opened_here -= 1;
                        self.depth = self.depth.saturating_sub(1);
                    }
                    b'=' if eq.is_none()
                        && line_depth == 0
                        && !matches!(bytes.get(i + 1), Some(b'=') | Some(b'>'))
                        && !matches!(
                            i.checked_sub(1).and_then(|p| bytes.get(p)),
                            Some(b'=') | Some(b'!') | Some(b'<') | Some(b'>')
                        ) =>
                    {
                        eq = Some(i);
                    }
                    _ => {}
                },
            }
            i += 1;
        }
        let balanced = opened_here == 0 && self.depth == start_depth && !self.in_comment;
        eq.filter(|_| balanced && stack.is_empty())
    }
}
