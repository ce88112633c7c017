//! Every job in jobs-examples/ is checked on a dev agent. Jobs this build can run (drivers
//! raw_exec/mock_driver, type service or batch, not periodic or parameterized) are run and must
//! get running (or completed) allocations; the one that asks for what a single dev node lacks
//! must fail placement with exit code 2 and say why. The rest must pass `nomad job validate`.

use std::path::PathBuf;
use std::time::Duration;

use crate::harness::*;

fn examples() -> Vec<PathBuf> {
    let dir = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("jobs-examples");
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .expect("jobs-examples")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.to_string_lossy().ends_with(".nomad.hcl"))
        .collect();
    files.sort();
    files
}

/// Whether this build can run the job in `src` on a dev agent (a text check of the example's
/// own simple layout: one `driver =` / `type =` per line).
fn runnable(src: &str) -> bool {
    let value = |line: &str, key: &str| {
        let rest = line
            .trim()
            .strip_prefix(key)?
            .trim_start()
            .strip_prefix('=')?;
        Some(rest.trim().trim_matches('"').to_string())
    };
    src.lines().all(|l| {
        let t = l.trim();
        let driver_ok = value(t, "driver").is_none_or(|d| d == "raw_exec" || d == "mock_driver");
        let type_ok = value(t, "type").is_none_or(|ty| {
            // `type` also names volume and check types; only job types matter here.
            !matches!(ty.as_str(), "system" | "sysbatch")
        });
        let block_ok = !t.starts_with("periodic {") && !t.starts_with("parameterized {");
        driver_ok && type_ok && block_ok
    })
}

#[test]
fn every_example_job_runs_or_explains_why_not() {
    let agent = Agent::dev();
    let files = examples();
    assert!(files.len() >= 15, "{files:?}");
    for file in files {
        let name = file
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
            .to_string();
        let src = std::fs::read_to_string(&file).expect("read example");
        if !runnable(&src) {
            let out = agent.nomad(&["job", "validate", file.to_str().expect("path")]);
            assert_exit(&out, 0);
            continue;
        }
        let out = agent.nomad(&["job", "run", file.to_str().expect("path")]);
        let text = stdout(&out);
        if name == "constraint.nomad.hcl" {
            // Two distinct hosts in a rack: one dev node cannot take it.
            assert_exit(&out, 2);
            assert!(text.contains("failed to place"), "{name}:\n{text}");
            continue;
        }
        assert_exit(&out, 0);
        let job = agent
            .get("/v1/jobs")
            .as_array()
            .expect("jobs")
            .iter()
            .find(|j| {
                !j["ID"].is_null()
                    && text.contains(&format!("job \"{}\"", j["ID"].as_str().unwrap_or_default()))
            })
            .map(|j| j["ID"].as_str().unwrap_or_default().to_string())
            .unwrap_or_else(|| panic!("{name}: job not found after run:\n{text}"));
        wait_until(
            Duration::from_secs(30),
            &format!("{name}: allocs started"),
            || {
                let allocs = agent.get(&format!("/v1/job/{job}/allocations"));
                let allocs = allocs.as_array()?;
                (!allocs.is_empty()
                    && allocs.iter().all(|a| {
                        matches!(a["ClientStatus"].as_str(), Some("running" | "complete"))
                    }))
                .then_some(())
            },
        );
    }
}
