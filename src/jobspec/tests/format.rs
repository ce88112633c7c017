//! `nomad fmt`'s layout rules.

use crate::jobspec::format;

#[test]
fn indents_aligns_and_trims() {
    let src = "job \"x\" {\n    type=\"batch\"\n  priority   = 50\n\n group \"g\" {\n  count=1   \n }\n}\n\n\n";
    let want = "job \"x\" {\n  type     = \"batch\"\n  priority = 50\n\n  group \"g\" {\n    count = 1\n  }\n}\n";
    assert_eq!(format(src, "t.hcl").expect("formats"), want);
}

#[test]
fn formatting_is_idempotent_and_keeps_heredocs_and_strings() {
    let src = "job \"x\" {\n template {\n  data = <<EOF\n  keep   {{ this }}\nEOF\n  destination = \"local/{x\"\n  env = \"${var.a == \"}\" ? 1 : 2}\"\n }\n}\n";
    let once = format(src, "t.hcl").expect("formats");
    assert!(once.contains("\n  keep   {{ this }}\nEOF\n"), "{once}");
    assert!(once.contains("    destination = \"local/{x\"\n"), "{once}");
    assert_eq!(format(&once, "t.hcl").expect("formats again"), once);
    assert!(hcl_edit::parser::parse_body(&once).is_ok());
}

#[test]
fn multi_line_values_break_alignment_runs() {
    let src = "a = 1\nlonger = [\n1,\n]\nb = 2\n";
    let want = "a = 1\nlonger = [\n  1,\n]\nb = 2\n";
    assert_eq!(format(src, "t.hcl").expect("formats"), want);
}

#[test]
fn syntax_errors_are_reported_with_positions() {
    let err = format("job \"x\" {\n  a = \n", "bad.hcl").expect_err("invalid HCL");
    assert!(err.to_string().starts_with("bad.hcl:2,"), "{err}");
}
