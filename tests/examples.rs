//! Every job in jobs-examples/ is checked on a dev agent. Jobs this build can run (drivers
//! raw_exec/mock_driver, type service or batch, not periodic or parameterized) are run and must
//! get running (or completed) allocations; the one that asks for what a single dev node lacks
//! must fail placement and `job status` must say why. The rest must pass `nomad job validate`.

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
        // Detached: a service job's `job run` would follow its deployment (10 s of health
        // per job with the default update block); the allocs are checked below instead.
        let before = job_ids(&agent);
        let out = agent.nomad(&["job", "run", "-detach", file.to_str().expect("path")]);
        assert_exit(&out, 0);
        let job = wait_until(
            Duration::from_secs(10),
            &format!("{name}: job registered"),
            || job_ids(&agent).into_iter().find(|id| !before.contains(id)),
        );
        if name == "constraint.nomad.hcl" {
            // Two distinct hosts in a rack: the dev node has no rack, and `job status` says so.
            let status = wait_until(
                Duration::from_secs(30),
                &format!("{name}: placement failure"),
                || {
                    let text = stdout(&agent.nomad(&["job", "status", &job]));
                    text.contains("Placement Failure").then_some(text)
                },
            );
            assert!(status.contains("excluded by filter"), "{name}:\n{status}");
            continue;
        }
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

fn job_ids(agent: &Agent) -> Vec<String> {
    agent
        .get("/v1/jobs")
        .as_array()
        .map(|jobs| {
            jobs.iter()
                .filter_map(|j| j["ID"].as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}
