//! validate: Nomad's validation texts, and the examples end to end.

use super::*;
use crate::api::SECOND;

#[test]
fn every_example_parses_canonicalizes_and_validates() {
    let files = examples();
    assert!(
        files.len() >= 5,
        "expected the example jobs, found {files:?}"
    );
    for path in files {
        let mut job = parse_file(&path, &[]).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        canonicalize(&mut job);
        if let Err(e) = validate(&job) {
            panic!("{} does not validate:\n{e}", path.display());
        }
    }
}

#[test]
fn init_examples_parse_and_validate() {
    for short in [true, false] {
        let mut job = parse(init_job(short));
        assert_eq!(job.id, "example");
        let task = &job.task_groups[0].tasks[0];
        assert_eq!(task.driver, "raw_exec");
        assert_eq!(
            task.resources.as_ref().map(|r| (r.cpu, r.memory_mb)),
            Some((100, 64))
        );
        canonicalize(&mut job);
        assert_eq!(validate(&job), Ok(vec![]));
    }
    assert!(init_job(false).contains("# "));
    assert!(!init_job(true).contains('#'));
}

#[test]
fn missing_tasks_text_matches_nomad() {
    let mut job = valid_base();
    job.task_groups[0].tasks.clear();
    let err = validate(&job).expect_err("invalid");
    // Byte-for-byte the body of Nomad's 500 response (PUT_v1_jobs_missing_tasks_500).
    assert_eq!(
        err.to_string(),
        "1 error occurred:\n\t* Task group web validation failed: 1 error occurred:\n\t* Missing tasks for task group\n\n\n\n"
    );
}

#[test]
fn validation_lists_every_problem() {
    let mut job = valid_base();
    job.priority = 500;
    let mut second = job.task_groups[0].clone();
    second.count = -1;
    second.tasks[0].driver.clear();
    job.task_groups.push(second);
    let err = validate(&job).expect_err("invalid");
    assert_eq!(
        err.errors,
        vec![
            "Job task group 2 redefines 'web' from group 1".to_string(),
            "Task group web validation failed: 2 errors occurred:\n\t* Task group count can't be negative\n\t* Task server validation failed: 1 error occurred:\n\t* Missing task driver\n\n\n\n".to_string(),
            "job priority must be between [1, 100]".to_string(),
        ]
    );
    assert!(err
        .to_string()
        .starts_with("3 errors occurred:\n\t* Job task group 2 redefines"));

    let mut job = valid_base();
    job.id.clear();
    job.task_groups.clear();
    let err = validate(&job).expect_err("invalid");
    assert_eq!(
        err.errors,
        vec!["Missing job ID", "Missing job task groups"]
    );
}

#[test]
fn policy_validation_uses_go_durations() {
    let mut job = valid_base();
    if let Some(r) = job.task_groups[0].restart_policy.as_mut() {
        r.interval = SECOND;
        r.mode = "sometimes".to_string();
    }
    let err = validate(&job).expect_err("invalid");
    let text = &err.errors[0];
    assert!(
        text.contains("Unsupported restart mode: \"sometimes\""),
        "{text}"
    );
    assert!(
        text.contains("Interval can not be less than 5s (got 1s)"),
        "{text}"
    );
    assert!(
        text.contains(
            "Nomad can't restart the TaskGroup 2 times in an interval of 1s with a delay of 15s"
        ),
        "{text}"
    );
}

#[test]
fn warnings_are_returned() {
    let mut job = valid_base();
    job.task_groups[0].count = 2;
    if let Some(u) = job.task_groups[0].update.as_mut() {
        u.max_parallel = 3;
    }
    let warnings = validate(&job).expect("valid");
    assert_eq!(warnings.len(), 1);
    assert!(warnings[0].starts_with("Group \"web\" has warnings: 1 error occurred:\n\t* Update max parallel count is greater than task group count (3 > 2)."));
    assert_eq!(format_warnings(&["w".to_string()]), "1 warning:\n\n* w");
}

#[test]
fn reschedule_policy_must_fit_its_interval() {
    let mut job = parse(
        r#"job "r" {
  type = "batch"
  group "g" {
    reschedule {
      attempts       = 10
      interval       = "1m"
      delay          = "30s"
      delay_function = "constant"
    }
    task "t" {
      driver = "raw_exec"
    }
  }
}"#,
    );
    canonicalize(&mut job);
    let err = validate(&job).expect_err("does not fit");
    assert_eq!(
        err.errors,
        vec!["Task group g validation failed: 2 errors occurred:\n\t* Nomad can only make 2 attempts in 1m0s with initial delay 30s and delay function \"constant\"\n\t* Set the interval to at least 5m0s to accommodate 10 attempts\n\n".to_string()]
    );
}
