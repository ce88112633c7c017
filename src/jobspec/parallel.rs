//! Parsing a large job file on more than one core. hcl-edit's parser is most of a large
//! job's parse time and runs on one thread, so the job block's body is cut between two of
//! its top-level blocks and the halves are parsed at once. Each half is parsed in a copy of
//! the text where everything outside it is blanked (bytes replaced by spaces), so every
//! span hcl-edit records is the span in the real file; the halves' structures are then put
//! into the job block of the (blanked-body) skeleton. Anything unexpected (a cut that the
//! light scan below is not sure of, a syntax error, an argument set in both halves) falls
//! back to the ordinary one-thread parse, which also produces the error messages.

use hcl_edit::structure::{Body, Structure};

/// Jobs with at least this many groups have them decoded and canonicalized on two threads.
pub const MIN_PARALLEL_GROUPS: usize = 32;

/// Files smaller than this are parsed on one thread: the copies cost more than they save.
const MIN_PARALLEL_BYTES: usize = 256 * 1024;

/// `hcl_edit::parser::parse_body`, using two threads for a large job file.
pub fn parse_body(src: &str) -> Result<Body, hcl_edit::parser::Error> {
    if src.len() >= MIN_PARALLEL_BYTES {
        if let Some(body) = parse_split(src) {
            return Ok(body);
        }
    }
    hcl_edit::parser::parse_body(src)
}

/// Frees the syntax tree of a large job file on another thread: dropping it is about a tenth
/// of the parse, and nothing needs to wait for it.
pub fn drop_in_background(body: Body, src_len: usize) {
    if src_len >= MIN_PARALLEL_BYTES {
        // Should no thread be available, the body is dropped here with the closure.
        let _ = std::thread::Builder::new().spawn(move || drop(body));
    }
}

/// A space for every byte but newlines (so lines, and with them positions, stay put).
fn blanked(bytes: &[u8]) -> impl Iterator<Item = u8> + '_ {
    bytes.iter().map(|&c| if c == b'\n' { c } else { b' ' })
}

/// `src` up to `keep.end` with everything before `keep` blanked.
fn blank(src: &str, keep: std::ops::Range<usize>) -> Option<String> {
    let b = src.as_bytes();
    let mut out = Vec::with_capacity(keep.end);
    out.extend(blanked(&b[..keep.start]));
    out.extend_from_slice(&b[keep]);
    // Cuts fall on ASCII bytes, so whole UTF-8 sequences are kept or replaced.
    String::from_utf8(out).ok()
}

fn parse_split(src: &str) -> Option<Body> {
    let cut = find_cut(src)?;
    let (skeleton, a, b) = std::thread::scope(|scope| {
        let other = scope.spawn(|| {
            let second = blank(src, cut.at..cut.body.end)?;
            hcl_edit::parser::parse_body(&second).ok()
        });
        let skeleton = {
            let b = src.as_bytes();
            let mut v = Vec::with_capacity(b.len());
            v.extend_from_slice(&b[..cut.body.start]);
            v.extend(blanked(&b[cut.body.clone()]));
            v.extend_from_slice(&b[cut.body.end..]);
            String::from_utf8(v)
                .ok()
                .and_then(|text| hcl_edit::parser::parse_body(&text).ok())
        };
        let a = blank(src, cut.body.start..cut.at)
            .and_then(|first| hcl_edit::parser::parse_body(&first).ok());
        let b = other.join().ok().flatten();
        (skeleton, a, b)
    });
    let (mut skeleton, a, b) = (skeleton?, a?, b?);
    let index = (0..skeleton.len()).find(
        |&i| matches!(skeleton.get(i), Some(Structure::Block(b)) if b.ident.as_str() == "job"),
    )?;
    let Some(Structure::Block(job)) = skeleton.get_mut(index) else {
        return None;
    };
    if !job.body.is_empty() {
        return None;
    }
    let mut names = std::collections::HashSet::new();
    for s in a.into_iter().chain(b) {
        if let Structure::Attribute(attr) = &s {
            if !names.insert(attr.key.as_str().to_string()) {
                return None;
            }
        }
        job.body.push(s);
    }
    Some(skeleton)
}

/// Where the job block's body is and a line start inside it between two of its top-level
/// structures, near the middle.
struct Cut {
    body: std::ops::Range<usize>,
    at: usize,
}

/// A light scan of HCL: braces outside strings, heredocs and comments. Returns `None` on
/// anything it does not follow (the caller then parses on one thread).
fn find_cut(src: &str) -> Option<Cut> {
    let b = src.as_bytes();
    let mut depth: usize = 0;
    let mut i = 0;
    let mut job_open = None;
    let mut job_close = None;
    let mut last_word_job = false;
    let mut cuts: Vec<usize> = Vec::new();
    while i < b.len() {
        let c = b[i];
        match c {
            b'#' => i = skip_line(b, i),
            b'/' if b.get(i + 1) == Some(&b'/') => i = skip_line(b, i),
            b'/' if b.get(i + 1) == Some(&b'*') => {
                i = find(b, i + 2, b"*/")? + 2;
            }
            b'"' => i = skip_string(b, i + 1)?,
            b'<' if b.get(i + 1) == Some(&b'<') => i = skip_heredoc(b, i + 2)?,
            b'{' | b'[' | b'(' => {
                if c == b'{' && depth == 0 && last_word_job && job_open.is_none() {
                    job_open = Some(i + 1);
                }
                depth += 1;
                i += 1;
            }
            b'}' | b']' | b')' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 && job_open.is_some() && job_close.is_none() {
                    job_close = Some(i);
                }
                i += 1;
            }
            b'\n' => {
                if depth == 1 && job_open.is_some() && job_close.is_none() {
                    cuts.push(i + 1);
                }
                i += 1;
            }
            _ => {
                if depth == 0 && c.is_ascii_alphabetic() {
                    let start = i;
                    while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
                        i += 1;
                    }
                    // `job "name" {`: the word before the label.
                    if &b[start..i] == b"job" {
                        last_word_job = true;
                    }
                    continue;
                }
                i += 1;
            }
        }
    }
    let body = job_open?..job_close?;
    let mid = body.start + (body.end - body.start) / 2;
    let at = cuts.into_iter().find(|&p| p >= mid && p < body.end)?;
    Some(Cut { body, at })
}

fn skip_line(b: &[u8], mut i: usize) -> usize {
    while i < b.len() && b[i] != b'\n' {
        i += 1;
    }
    i
}

fn find(b: &[u8], from: usize, pat: &[u8]) -> Option<usize> {
    b.get(from..)?
        .windows(pat.len())
        .position(|w| w == pat)
        .map(|p| p + from)
}

/// Past the closing quote of a string whose opening quote is before `i`; templates inside
/// (`${ ... }`, `%{ ... }`) may hold strings of their own.
fn skip_string(b: &[u8], mut i: usize) -> Option<usize> {
    while i < b.len() {
        match b[i] {
            b'\\' => i += 2,
            b'"' => return Some(i + 1),
            b'\n' => return None,
            b'$' | b'%' if b.get(i + 1) == Some(&b'{') => {
                i = skip_template_expr(b, i + 2)?;
            }
            _ => i += 1,
        }
    }
    None
}

fn skip_template_expr(b: &[u8], mut i: usize) -> Option<usize> {
    let mut depth = 1usize;
    while i < b.len() {
        match b[i] {
            b'"' => i = skip_string(b, i + 1)?,
            b'{' => {
                depth += 1;
                i += 1;
            }
            b'}' => {
                depth -= 1;
                i += 1;
                if depth == 0 {
                    return Some(i);
                }
            }
            _ => i += 1,
        }
    }
    None
}

/// `<<EOF` / `<<-EOF` heredocs: past the line that holds only the marker.
fn skip_heredoc(b: &[u8], mut i: usize) -> Option<usize> {
    if b.get(i) == Some(&b'-') {
        i += 1;
    }
    let start = i;
    while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'_') {
        i += 1;
    }
    let marker = &b[start..i];
    if marker.is_empty() || b.get(i) != Some(&b'\n') {
        return None;
    }
    i += 1;
    loop {
        let end = skip_line(b, i);
        let line = &b[i..end];
        let trimmed = line.trim_ascii();
        if trimmed == marker {
            return Some(end);
        }
        if end >= b.len() {
            return None;
        }
        i = end + 1;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn big_job() -> String {
        let mut s = String::from(
            "# lead\nvariable \"v\" {\n  default = \"x\"\n}\njob \"j\" {\n  type = \"service\"\n",
        );
        for g in 0..400 {
            s.push_str(&format!(
                "  group \"g{g}\" {{\n    # a }} brace in a comment\n    task \"t\" {{\n      driver = \"docker\"\n      config {{\n        image = \"app:${{var.v}}-{{}}\"\n        args  = [\"}}\", \"${{ \"x\" }}\"]\n      }}\n      template {{\n        data = <<EOT\nsome }} text {{\nEOT\n      }}\n    }}\n  }}\n"
            ));
        }
        s.push_str("  meta {\n    é = \"ü\"\n  }\n}\n");
        s
    }

    #[test]
    fn split_parse_equals_the_one_thread_parse() {
        let src = big_job();
        let cut = find_cut(&src).expect("cut found");
        assert!(
            src[cut.at..].starts_with("  group \"g"),
            "{}",
            &src[cut.at..cut.at + 20]
        );
        let split = parse_split(&src).expect("split parse");
        let whole = hcl_edit::parser::parse_body(&src).expect("parses");
        // Same structures with the same spans (decor differs: it is not compared).
        let spans = |b: &Body| -> Vec<Option<std::ops::Range<usize>>> {
            let mut out = Vec::new();
            collect(b, &mut out);
            out
        };
        assert_eq!(spans(&split), spans(&whole));
        assert!(spans(&split).len() > 400 * 5);
    }

    fn collect(b: &Body, out: &mut Vec<Option<std::ops::Range<usize>>>) {
        use hcl_edit::Span as _;
        for s in b.iter() {
            match s {
                Structure::Attribute(a) => {
                    out.push(a.key.span());
                    out.push(a.value.span());
                }
                Structure::Block(bl) => {
                    out.push(bl.ident.span());
                    collect(&bl.body, out);
                }
            }
        }
    }

    #[test]
    fn unsure_scans_and_duplicates_fall_back() {
        assert!(find_cut("job \"j\" {\n  a = \"unterminated\n}\n").is_none());
        let mut src = String::from("job \"j\" {\n  type = \"a\"\n");
        for g in 0..50 {
            src.push_str(&format!("  group \"g{g}\" {{\n  }}\n"));
        }
        src.push_str("  type = \"b\"\n}\n");
        assert!(
            parse_split(&src).is_none(),
            "an argument set in both halves"
        );
    }
}
