//! HCL diagnostics with source positions, printed the way Nomad (hashicorp/hcl) prints them:
//! `<file>:<line>,<col>-<col>: <summary>; <detail>`.

use std::fmt;
use std::ops::Range;

/// A 1-based line/column position.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Pos {
    pub line: usize,
    pub column: usize,
}

/// A span of source text in one file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceRange {
    pub filename: String,
    pub start: Pos,
    pub end: Pos,
}

impl fmt::Display for SourceRange {
    /// hcl.Range.String(): the end column alone when the range stays on one line.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.start.line == self.end.line {
            write!(
                f,
                "{}:{},{}-{}",
                self.filename, self.start.line, self.start.column, self.end.column
            )
        } else {
            write!(
                f,
                "{}:{},{}-{},{}",
                self.filename, self.start.line, self.start.column, self.end.line, self.end.column
            )
        }
    }
}

/// One problem found while parsing or decoding a jobspec.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    pub summary: String,
    pub detail: String,
    /// Where the problem is; `None` for problems that belong to no source text (e.g. `-var`).
    pub subject: Option<SourceRange>,
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // hcl.Diagnostic.Error() prints a nil subject as "<nil>"; keep that shape.
        match &self.subject {
            Some(r) => write!(f, "{}: {}; {}", r, self.summary, self.detail),
            None => write!(f, "<nil>: {}; {}", self.summary, self.detail),
        }
    }
}

/// Maps byte offsets of one source text to line/column positions.
#[derive(Debug, Clone)]
pub struct SourceMap {
    filename: String,
    line_starts: Vec<usize>,
    src: String,
}

impl SourceMap {
    pub fn new(filename: &str, src: &str) -> SourceMap {
        let mut line_starts = vec![0];
        for (i, b) in src.bytes().enumerate() {
            if b == b'\n' {
                line_starts.push(i + 1);
            }
        }
        SourceMap {
            filename: filename.to_string(),
            line_starts,
            src: src.to_string(),
        }
    }

    pub fn filename(&self) -> &str {
        &self.filename
    }

    pub fn src(&self) -> &str {
        &self.src
    }

    /// Position of a byte offset; columns count characters, as HCL does.
    pub fn pos(&self, offset: usize) -> Pos {
        let offset = offset.min(self.src.len());
        let line_idx = match self.line_starts.binary_search(&offset) {
            Ok(i) => i,
            Err(i) => i.saturating_sub(1),
        };
        let start = self.line_starts[line_idx];
        let column = self
            .src
            .get(start..offset)
            .map(|s| s.chars().count())
            .unwrap_or(offset - start)
            + 1;
        Pos {
            line: line_idx + 1,
            column,
        }
    }

    /// The byte offset of a position (the inverse of `pos`); clamped to the text.
    pub fn offset(&self, pos: Pos) -> usize {
        let Some(&start) = self.line_starts.get(pos.line.saturating_sub(1)) else {
            return self.src.len();
        };
        let line = self.src.get(start..).unwrap_or("");
        start
            + line
                .char_indices()
                .nth(pos.column.saturating_sub(1))
                .map(|(i, _)| i)
                .unwrap_or(line.len())
    }

    pub fn range(&self, span: &Range<usize>) -> SourceRange {
        SourceRange {
            filename: self.filename.clone(),
            start: self.pos(span.start),
            end: self.pos(span.end),
        }
    }

    /// The source text of a span, if the span is valid.
    pub fn text(&self, span: &Range<usize>) -> Option<&str> {
        self.src.get(span.clone())
    }

    pub fn diag(
        &self,
        summary: impl Into<String>,
        detail: impl Into<String>,
        span: Option<Range<usize>>,
    ) -> Diagnostic {
        Diagnostic {
            summary: summary.into(),
            detail: detail.into(),
            subject: span.map(|s| self.range(&s)),
        }
    }
}

/// hashicorp/hcl's "did you mean" rule: the first candidate within Levenshtein distance 2.
pub fn name_suggestion<'a>(
    given: &str,
    candidates: impl IntoIterator<Item = &'a str>,
) -> Option<&'a str> {
    candidates
        .into_iter()
        .find(|c| strsim::levenshtein(given, c) < 3)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn range_display_matches_hcl() {
        let map = SourceMap::new("a.hcl", "job \"x\" {\n  foo = 1\n}\n");
        let r = map.range(&(12..15));
        assert_eq!(r.to_string(), "a.hcl:2,3-6");
        let r = map.range(&(0..14));
        assert_eq!(r.to_string(), "a.hcl:1,1-2,5");
    }

    #[test]
    fn offset_inverts_pos_with_multibyte_text() {
        let src = "a = \"é\"\n  bc = 1\n";
        let map = SourceMap::new("a.hcl", src);
        for off in [0, 4, 5, 7, 10, 12] {
            assert_eq!(map.offset(map.pos(off)), off, "offset {off}");
        }
    }

    #[test]
    fn suggestion_within_two_edits() {
        assert_eq!(name_suggestion("drver", ["user", "driver"]), Some("driver"));
        assert_eq!(name_suggestion("zzzzzz", ["driver"]), None);
    }
}
