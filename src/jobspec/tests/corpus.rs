//! The conformance corpus: every `tests/fixtures/jobspec/NAME.nomad.hcl` must parse and
//! canonicalize to the job in `NAME.json` (the job as Nomad's server stores it), and every
//! `errors/NAME.nomad.hcl` must fail with exactly the text in `errors/NAME.txt`.
//! `UPDATE_FIXTURES=1` rewrites the expected files (review the diff against Nomad's defaults).

use std::path::{Path, PathBuf};

use super::*;

fn dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/jobspec")
}

fn job_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .expect("fixture dir exists")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.to_string_lossy().ends_with(".nomad.hcl"))
        .collect();
    files.sort();
    files
}

fn with_ext(p: &Path, ext: &str) -> PathBuf {
    let name = p.to_string_lossy();
    PathBuf::from(format!("{}.{ext}", name.trim_end_matches(".nomad.hcl")))
}

fn updating() -> bool {
    std::env::var_os("UPDATE_FIXTURES").is_some_and(|v| v == "1")
}

/// Compares `actual` with the file at `expected`, or rewrites it when updating.
fn check(expected: &Path, actual: &str, failures: &mut Vec<String>) {
    if updating() {
        std::fs::write(expected, actual).expect("write fixture");
        return;
    }
    match std::fs::read_to_string(expected) {
        Ok(want) if want == actual => {}
        Ok(want) => failures.push(format!(
            "{}: mismatch\n--- expected\n{want}\n--- actual\n{actual}",
            expected.display()
        )),
        Err(e) => failures.push(format!("{}: {e}", expected.display())),
    }
}

#[test]
fn corpus_jobs_canonicalize_to_expected_json() {
    let files = job_files(&dir());
    assert!(files.len() >= 60, "only {} fixtures", files.len());
    let mut failures = Vec::new();
    for file in &files {
        let src = std::fs::read_to_string(file).expect("read fixture");
        let name = file
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        let mut job = match parse_str(&src, name, &[]) {
            Ok(j) => j,
            Err(e) => {
                failures.push(format!("{}: {e}", file.display()));
                continue;
            }
        };
        canonicalize(&mut job);
        let mut text = serde_json::to_string_pretty(&job).expect("job serialises");
        text.push('\n');
        check(&with_ext(file, "json"), &text, &mut failures);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn corpus_errors_report_expected_text() {
    let files = job_files(&dir().join("errors"));
    assert!(files.len() >= 8, "only {} error fixtures", files.len());
    let mut failures = Vec::new();
    for file in &files {
        let src = std::fs::read_to_string(file).expect("read fixture");
        let name = file
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default();
        let text = match parse_str(&src, name, &[]) {
            Ok(mut job) => {
                canonicalize(&mut job);
                match validate(&job) {
                    Ok(_) => {
                        failures.push(format!("{}: unexpectedly valid", file.display()));
                        continue;
                    }
                    Err(e) => format!("{e}"),
                }
            }
            Err(e) => format!("{e}\n"),
        };
        check(&with_ext(file, "txt"), &text, &mut failures);
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

#[test]
fn scaling_policy_targets_its_group() {
    let mut job = parse(
        r#"job "s" {
  namespace = "prod"
  group "web" {
    scaling {
      max = 3
    }
    task "t" {
      driver = "raw_exec"
    }
  }
}
"#,
    );
    canonicalize(&mut job);
    let scaling = job.task_groups[0].scaling.as_ref().expect("scaling");
    assert_eq!(
        scaling["Target"],
        serde_json::json!({"Namespace": "prod", "Job": "s", "Group": "web"})
    );
}
