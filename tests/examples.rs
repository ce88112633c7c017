//! Every job in jobs-examples/ is run on a dev agent: the ones this build can place must get
//! running (or completed) allocations; the one that asks for what a single dev node lacks must
//! fail placement with exit code 2 and say why.

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

#[test]
fn every_example_job_runs_or_explains_why_not() {
    let agent = Agent::dev();
    let files = examples();
    assert!(files.len() >= 3, "{files:?}");
    for file in files {
        let name = file
            .file_name()
            .and_then(|n| n.to_str())
            .unwrap_or_default()
            .to_string();
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
