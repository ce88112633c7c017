//! Job versions through the real agent: `job stop` then `job start`, version tags (`job tag
//! apply|unset`, shown by `job history`, used by `job revert`), and what changed in each
//! version (`job history -p`).

use serde_json::Value;

use crate::harness::*;

fn run_job(agent: &Agent) {
    run_spec(agent, &mock_job("versions", 1));
}

fn run_spec(agent: &Agent, spec: &str) {
    let path = agent.path("versions.hcl");
    std::fs::write(&path, spec).expect("write job");
    let path = path.to_str().expect("utf-8 path").to_string();
    assert_exit(&agent.nomad(&["job", "run", "-detach", &path]), 0);
}

#[test]
fn job_start_registers_a_stopped_job_again_and_refuses_a_running_one() {
    let agent = Agent::dev();
    run_job(&agent);
    let out = agent.nomad(&["job", "start", "versions"]);
    assert_exit(&out, 1);
    assert_eq!(
        stderr(&out).trim(),
        r#"Job "versions" has not been stopped"#
    );

    assert_exit(&agent.nomad(&["job", "stop", "-detach", "versions"]), 0);
    assert_eq!(agent.get("/v1/job/versions")["Stop"], true);
    // Monitored start: the eval completes and the job runs again as a new version.
    let out = agent.nomad(&["job", "start", "versions"]);
    assert_exit(&out, 0);
    assert!(
        stdout(&out).contains("finished with status \"complete\""),
        "{}",
        stdout(&out)
    );
    let job = agent.get("/v1/job/versions");
    assert_eq!(
        (job["Stop"].as_bool(), job["Version"].as_u64()),
        (Some(false), Some(2))
    );
    wait_until(
        std::time::Duration::from_secs(20),
        "alloc running again",
        || {
            let allocs = agent.get("/v1/job/versions/allocations");
            allocs
                .as_array()?
                .iter()
                .any(|a| a["JobVersion"] == 2 && a["ClientStatus"] == "running")
                .then_some(())
        },
    );

    // -detach prints the eval; the `start` alias and prefixes work too.
    assert_exit(&agent.nomad(&["stop", "-detach", "versions"]), 0);
    let out = agent.nomad(&["start", "-detach", "vers"]);
    assert_exit(&out, 0);
    let text = stdout(&out);
    assert!(
        text.starts_with("Job start successful\nEvaluation ID: "),
        "{text}"
    );

    let out = agent.nomad(&["job", "start", "nope"]);
    assert_exit(&out, 1);
    assert!(
        stderr(&out).contains(r#"No job(s) with prefix or ID "nope" found"#),
        "{}",
        stderr(&out)
    );
}

#[test]
fn version_tags_show_in_history_are_unique_and_revert_by_name() {
    let agent = Agent::dev();
    run_job(&agent);
    run_job(&agent); // same spec: no new version
    assert_exit(&agent.nomad(&["job", "stop", "-detach", "versions"]), 0);
    assert_exit(&agent.nomad(&["job", "start", "-detach", "versions"]), 0);
    // Versions 0 (run), 1 (stopped), 2 (started).

    let out = agent.nomad(&[
        "job",
        "tag",
        "apply",
        "-name",
        "golden v0",
        "-description",
        "the first one",
        "-version",
        "0",
        "versions",
    ]);
    assert_exit(&out, 0);
    assert_eq!(
        stdout(&out).trim(),
        r#"Job version 0 tagged with name "golden v0""#
    );
    // No -version: the latest.
    let out = agent.nomad(&["job", "tag", "apply", "-name", "latest", "versions"]);
    assert_exit(&out, 0);
    assert_eq!(
        stdout(&out).trim(),
        r#"Job version 2 tagged with name "latest""#
    );
    assert_eq!(
        agent.get("/v1/job/versions")["VersionTag"]["Name"],
        "latest"
    );

    let versions = agent.get("/v1/job/versions/versions");
    let v0 = versions["Versions"]
        .as_array()
        .expect("versions")
        .iter()
        .find(|v| v["Version"] == 0)
        .cloned()
        .unwrap_or(Value::Null);
    assert_eq!(v0["VersionTag"]["Name"], "golden v0");
    assert_eq!(v0["VersionTag"]["Description"], "the first one");
    assert!(
        v0["VersionTag"]["TaggedTime"].as_i64().unwrap_or(0) > 0,
        "{v0}"
    );

    let out = agent.nomad(&["job", "history", "-version", "0", "versions"]);
    assert_exit(&out, 0);
    let text = stdout(&out);
    assert!(text.contains("Tag Name        = golden v0"), "{text}");
    assert!(text.contains("Tag Description = the first one"), "{text}");

    // The name is taken by version 0.
    let out = agent.nomad(&[
        "job",
        "tag",
        "apply",
        "-name",
        "golden v0",
        "-version",
        "1",
        "versions",
    ]);
    assert_exit(&out, 1);
    assert!(
        stderr(&out).contains(
            r#"Error tagging job version: Unexpected response code: 500 (tag "golden v0" already exists on a different version of job "versions")"#
        ),
        "{}",
        stderr(&out)
    );
    let out = agent.nomad(&["job", "tag", "apply", "versions"]);
    assert_exit(&out, 1);
    assert!(
        stderr(&out).starts_with("A version tag name is required\n"),
        "{}",
        stderr(&out)
    );
    let out = agent.nomad(&[
        "job", "tag", "apply", "-name", "x", "-version", "a", "versions",
    ]);
    assert_exit(&out, 1);
    assert_eq!(
        stderr(&out).trim(),
        r#"Error parsing version: strconv.ParseUint: parsing "a": invalid syntax"#
    );

    // Revert by tag name: version 0's spec becomes version 3, without the tag.
    let out = agent.nomad(&["job", "revert", "-detach", "versions", "golden v0"]);
    assert_exit(&out, 0);
    assert!(
        stdout(&out).starts_with("Evaluation ID: "),
        "{}",
        stdout(&out)
    );
    let job = agent.get("/v1/job/versions");
    assert_eq!(job["Version"], 3);
    assert!(job["VersionTag"].is_null(), "{job}");
    let out = agent.nomad(&["job", "revert", "versions", "no-such-tag"]);
    assert_exit(&out, 1);
    assert_eq!(
        stderr(&out).trim(),
        "Error retrieving job versions: version tag no-such-tag not found for job versions"
    );

    // Unset, then unsetting again is an error.
    let out = agent.nomad(&["job", "tag", "unset", "-name", "golden v0", "versions"]);
    assert_exit(&out, 0);
    assert_eq!(
        stdout(&out).trim(),
        r#"Tag "golden v0" removed from job "versions""#
    );
    let out = agent.nomad(&["job", "tag", "unset", "-name", "golden v0", "versions"]);
    assert_exit(&out, 1);
    assert!(
        stderr(&out).contains(r#"tag "golden v0" not found on job "versions""#),
        "{}",
        stderr(&out)
    );
    let out = agent.nomad(&["job", "tag", "unset", "versions"]);
    assert_exit(&out, 1);
    assert!(stderr(&out).starts_with("A version tag name is required"));
}

#[test]
fn job_history_p_prints_what_changed_in_each_version() {
    let agent = Agent::dev();
    run_job(&agent);
    // Version 1: two instances and a new env var.
    let changed = mock_job("versions", 1)
        .replace("group \"web\" {\n", "group \"web\" {\n    count = 2\n")
        .replace(
            "driver = \"mock_driver\"\n",
            "driver = \"mock_driver\"\n      env {\n        GREETING = \"hello\"\n      }\n",
        );
    run_spec(&agent, &changed);

    let diff = "Diff        = \n\
                +/- Job: \"versions\"\n\
                +/- Task Group: \"web\"\n  \
                +/- Count: \"1\" => \"2\"\n  \
                +/- Task: \"server\"\n    \
                + Env[GREETING]: \"hello\"\n";
    let out = agent.nomad(&["job", "history", "-p", "versions"]);
    assert_exit(&out, 0);
    let text = stdout(&out);
    // Newest first; the diff follows version 1's facts, the oldest version has none.
    let (v1, v0) = text.split_once("\n\n").expect("two version blocks");
    assert!(v1.starts_with("Version     = 1\n"), "{text}");
    assert!(format!("{v1}\n").ends_with(diff), "{text}");
    assert!(v0.starts_with("Version     = 0\n"), "{text}");
    assert!(!v0.contains("Diff"), "{text}");

    // One version: its diff against the one before.
    let out = agent.nomad(&["job", "history", "-version", "1", "-p", "versions"]);
    assert_exit(&out, 0);
    let text = stdout(&out);
    assert!(text.starts_with("Version     = 1\n"), "{text}");
    assert!(text.ends_with(diff), "{text}");
    let out = agent.nomad(&["job", "history", "-version", "0", "-p", "versions"]);
    assert_exit(&out, 0);
    assert!(!stdout(&out).contains("Diff"), "{}", stdout(&out));

    // Against a chosen version: version 0 is diffed against itself (no change shown).
    let out = agent.nomad(&["job", "history", "-p", "-diff-version", "0", "versions"]);
    assert_exit(&out, 0);
    let text = stdout(&out);
    let (v1, v0) = text.split_once("\n\n").expect("two version blocks");
    assert!(format!("{v1}\n").ends_with(diff), "{text}");
    assert!(!v0.contains("Diff"), "{text}");
    let out = agent.nomad(&["job", "history", "-p", "-diff-version", "7", "versions"]);
    assert_exit(&out, 1);
    assert_eq!(
        stderr(&out).trim(),
        "Error retrieving job versions: Unexpected response code: 500 (version 7 not found)"
    );

    // Nomad refuses formatted output with diffs, and diff flags without -p.
    for args in [&["-p", "-json"][..], &["-full", "-t", "{{.}}"][..]] {
        let out = agent.nomad(&[&["job", "history"][..], args, &["versions"][..]].concat());
        assert_exit(&out, 1);
        assert_eq!(
            stderr(&out).trim(),
            "-json and -t are exclusive with -p and -full"
        );
    }
    let out = agent.nomad(&["job", "history", "-diff-tag", "x", "versions"]);
    assert_exit(&out, 1);
    assert_eq!(
        stderr(&out).trim(),
        "-diff-tag and -diff-version can only be used with -p"
    );

    // -json with -version is that one version's object; a missing version is an error.
    let out = agent.nomad(&["job", "history", "-json", "-version", "0", "versions"]);
    assert_exit(&out, 0);
    let job: Value = serde_json::from_str(&stdout(&out)).expect("json");
    assert_eq!(
        (&job["ID"], &job["Version"]),
        (&"versions".into(), &0.into())
    );
    let out = agent.nomad(&["job", "history", "-version", "9", "versions"]);
    assert_exit(&out, 1);
    assert_eq!(
        stderr(&out).trim(),
        "Error printing job history for non-existing job or job version"
    );
}
