//! The lexer of Go `text/template` source: text, `{{ }}` actions with their trim markers,
//! comments, and the tokens inside actions. The whole source is lexed up front; a lexing
//! error ends the token list with an `Error` token at its place and `Eof`.

#[derive(Debug, Clone, PartialEq)]
pub enum Tok {
    Text(String),
    Left,
    Right,
    Space,
    Field(String),
    Dot,
    Var(String),
    Ident(String),
    Str(String),
    Num(String),
    Pipe,
    LParen,
    RParen,
    Comma,
    Declare,
    Assign,
    Char(char),
    Error(String),
    Eof,
}

fn is_space(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\r' | '\n')
}

pub fn lex(src: &str) -> Vec<(Tok, usize)> {
    let mut out = Vec::new();
    let mut i = 0;
    let mut trim_next_text = false;
    while i <= src.len() {
        // Text up to the next `{{`.
        let next = src[i..].find("{{").map(|o| i + o);
        let end = next.unwrap_or(src.len());
        let mut text = &src[i..end];
        if trim_next_text {
            text = text.trim_start_matches(is_space);
            trim_next_text = false;
        }
        let Some(start) = next else {
            if !text.is_empty() {
                out.push((Tok::Text(text.to_string()), i));
            }
            out.push((Tok::Eof, src.len()));
            return out;
        };
        let trim_left = src[start + 2..].starts_with('-')
            && src[start + 3..].starts_with(|c: char| is_space(c));
        if trim_left {
            text = text.trim_end_matches(is_space);
        }
        if !text.is_empty() {
            out.push((Tok::Text(text.to_string()), i));
        }
        let mut j = start + 2 + if trim_left { 2 } else { 0 };
        // Comments: `{{/* ... */}}`, with optional trim markers.
        let after_space = src[j..].trim_start_matches(is_space);
        if after_space.starts_with("/*") {
            let c = src.len() - after_space.len();
            let Some(close) = src[c + 2..].find("*/").map(|o| c + 2 + o + 2) else {
                out.push((Tok::Error("unclosed comment".into()), start));
                out.push((Tok::Eof, src.len()));
                return out;
            };
            let rest = &src[close..];
            let (trim_right, skip) = if rest.starts_with(" -}}") {
                (true, 4)
            } else if rest.starts_with("}}") {
                (false, 2)
            } else {
                out.push((
                    Tok::Error("comment ends before closing delimiter".into()),
                    start,
                ));
                out.push((Tok::Eof, src.len()));
                return out;
            };
            trim_next_text = trim_right;
            i = close + skip;
            continue;
        }
        out.push((Tok::Left, start));
        // Inside the action.
        loop {
            if j >= src.len() {
                out.push((Tok::Error("unclosed action".into()), j));
                out.push((Tok::Eof, src.len()));
                return out;
            }
            let rest = &src[j..];
            if rest.starts_with("}}") {
                out.push((Tok::Right, j));
                j += 2;
                break;
            }
            let c = rest.chars().next().unwrap_or(' ');
            if is_space(c) {
                let n = rest.len() - rest.trim_start_matches(is_space).len();
                if rest[n..].starts_with("-}}") {
                    out.push((Tok::Right, j + n));
                    trim_next_text = true;
                    j += n + 3;
                    break;
                }
                out.push((Tok::Space, j));
                j += n;
                continue;
            }
            match c {
                '|' => push1(&mut out, &mut j, Tok::Pipe),
                '(' => push1(&mut out, &mut j, Tok::LParen),
                ')' => push1(&mut out, &mut j, Tok::RParen),
                ',' => push1(&mut out, &mut j, Tok::Comma),
                '=' => push1(&mut out, &mut j, Tok::Assign),
                ':' if rest.starts_with(":=") => {
                    out.push((Tok::Declare, j));
                    j += 2;
                }
                '"' => match lex_quoted(rest) {
                    Ok((s, n)) => {
                        out.push((Tok::Str(s), j));
                        j += n;
                    }
                    Err(e) => {
                        out.push((Tok::Error(e), j));
                        out.push((Tok::Eof, src.len()));
                        return out;
                    }
                },
                '`' => match rest[1..].find('`') {
                    Some(n) => {
                        out.push((Tok::Str(rest[1..1 + n].to_string()), j));
                        j += n + 2;
                    }
                    None => {
                        out.push((Tok::Error("unterminated raw quoted string".into()), j));
                        out.push((Tok::Eof, src.len()));
                        return out;
                    }
                },
                '.' if !rest[1..].starts_with(|c: char| c.is_ascii_digit()) => {
                    let n = ident_len(&rest[1..]);
                    if n == 0 {
                        push1(&mut out, &mut j, Tok::Dot);
                    } else {
                        out.push((Tok::Field(rest[1..1 + n].to_string()), j));
                        j += 1 + n;
                    }
                }
                '$' => {
                    let n = ident_len(&rest[1..]);
                    out.push((Tok::Var(rest[1..1 + n].to_string()), j));
                    j += 1 + n;
                }
                c if c.is_ascii_digit() || c == '-' || c == '+' || c == '.' => {
                    let n = rest
                        .char_indices()
                        .skip(1)
                        .find(|(_, c)| !(c.is_ascii_alphanumeric() || matches!(c, '.' | '_')))
                        .map(|(k, _)| k)
                        .unwrap_or(rest.len());
                    out.push((Tok::Num(rest[..n].to_string()), j));
                    j += n;
                }
                c if c.is_alphabetic() || c == '_' => {
                    let n = ident_len(rest);
                    out.push((Tok::Ident(rest[..n].to_string()), j));
                    j += n;
                }
                c => {
                    out.push((Tok::Char(c), j));
                    j += c.len_utf8();
                }
            }
        }
        i = j;
    }
    out.push((Tok::Eof, src.len()));
    out
}

fn push1(out: &mut Vec<(Tok, usize)>, j: &mut usize, t: Tok) {
    out.push((t, *j));
    *j += 1;
}

fn ident_len(s: &str) -> usize {
    s.char_indices()
        .find(|(_, c)| !(c.is_alphanumeric() || *c == '_'))
        .map(|(k, _)| k)
        .unwrap_or(s.len())
}

/// A `"..."` literal at the start of `s`: its value and its length in the source.
fn lex_quoted(s: &str) -> Result<(String, usize), String> {
    let mut out = String::new();
    let mut chars = s.char_indices().skip(1);
    while let Some((k, c)) = chars.next() {
        match c {
            '"' => return Ok((out, k + 1)),
            '\n' => break,
            '\\' => match chars.next() {
                Some((_, 'n')) => out.push('\n'),
                Some((_, 't')) => out.push('\t'),
                Some((_, 'r')) => out.push('\r'),
                Some((_, '\\')) => out.push('\\'),
                Some((_, '"')) => out.push('"'),
                Some((_, '\'')) => out.push('\''),
                Some((_, other)) => {
                    return Err(format!("invalid syntax: unknown escape \\{other}"))
                }
                None => break,
            },
            c => out.push(c),
        }
    }
    Err("unterminated quoted string".to_string())
}
