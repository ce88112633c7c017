//! The block path of a diagnostic (`job "web" -> group "api" -> task "server" ->
//! resources`), so a problem deep in a large job file says which task it is in without the
//! reader counting braces. hcl's own messages carry only a position; the path is appended to
//! the detail, so the `file:line,col-col: summary;` prefix tools match on stays Nomad's.

use hcl_edit::structure::{Block, Body};
use hcl_edit::Span;

use super::body::block_def_span;
use super::diag::{Diagnostic, SourceMap};

/// Appends ` (in <path>)` to every diagnostic that lies inside at least one block.
pub fn annotate(body: &Body, map: &SourceMap, mut diags: Vec<Diagnostic>) -> Vec<Diagnostic> {
    for d in &mut diags {
        let Some(subject) = &d.subject else { continue };
        // Problems in a var file or in a `-var` value have no block path in the job.
        if subject.filename != map.filename() {
            continue;
        }
        let offset = map.offset(subject.start);
        let mut path = Vec::new();
        enclosing(body, offset, &mut path);
        if !path.is_empty() {
            d.detail = format!("{} (in {})", d.detail, path.join(" -> "));
        }
    }
    diags
}

/// Pushes the blocks whose body contains `offset`, outermost first. A position on a block's
/// own header (an unknown or duplicate block) belongs to the block around it.
fn enclosing(body: &Body, offset: usize, path: &mut Vec<String>) {
    for block in body.blocks() {
        let (Some(header), Some(span)) = (block_def_span(block), block.span()) else {
            continue;
        };
        if offset >= header.end && offset < span.end {
            path.push(describe(block));
            enclosing(&block.body, offset, path);
            return;
        }
    }
}

fn describe(block: &Block) -> String {
    let mut s = block.ident.as_str().to_string();
    for label in &block.labels {
        s.push_str(&format!(" {:?}", label.as_str()));
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn paths_of(src: &str, needle: &str) -> String {
        let map = SourceMap::new("t.hcl", src);
        let body = hcl_edit::parser::parse_body(src).expect("test source parses");
        let at = src.find(needle).expect("needle in source");
        let d = map.diag("S", "D.", Some(at..at + needle.len()));
        annotate(&body, &map, vec![d]).remove(0).detail
    }

    #[test]
    fn nested_attribute_names_every_enclosing_block() {
        let src = "job \"web\" {\n  group \"api\" {\n    task \"server\" {\n      resources {\n        memory_maxx = 1\n      }\n    }\n  }\n}\n";
        assert_eq!(
            paths_of(src, "memory_maxx"),
            "D. (in job \"web\" -> group \"api\" -> task \"server\" -> resources)"
        );
    }

    #[test]
    fn a_block_header_belongs_to_the_block_around_it() {
        let src = "job \"web\" {\n  group \"api\" {\n    restrat {}\n  }\n}\n";
        assert_eq!(
            paths_of(src, "restrat"),
            "D. (in job \"web\" -> group \"api\")"
        );
    }

    #[test]
    fn top_level_problems_get_no_path() {
        let src = "variable \"x\" {}\nfoo = 1\n";
        assert_eq!(paths_of(src, "foo"), "D.");
    }
}
