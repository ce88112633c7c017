use std::time::{Duration, Instant};

use serde_json::json;

use super::*;
use crate::drivers::testutil::{read_log, task_config, wait_until};

fn sh(script: &str) -> serde_json::Value {
    json!({ "command": "/bin/sh", "args": ["-c", script] })
}

async fn run_to_exit(driver: &RawExecDriver, cfg: TaskConfig) -> ExitResult {
    let handle = driver.start(cfg).await.unwrap();
    let res = tokio::time::timeout(Duration::from_secs(10), driver.wait(&handle))
        .await
        .expect("task did not exit")
        .unwrap();
    driver.destroy(&handle, false).await.unwrap();
    res
}

#[tokio::test]
async fn reports_exit_codes() {
    let tmp = tempfile::tempdir().unwrap();
    let d = RawExecDriver::new(true);
    let ok = run_to_exit(&d, task_config(tmp.path(), "ok", sh("exit 0"))).await;
    assert!(ok.successful());
    let bad = run_to_exit(&d, task_config(tmp.path(), "bad", sh("exit 3"))).await;
    assert_eq!(bad.exit_code, 3);
    assert_eq!(bad.signal, 0);
    assert!(!bad.successful());
}

#[tokio::test]
async fn writes_stdout_stderr_and_env_to_log_files() {
    let tmp = tempfile::tempdir().unwrap();
    let d = RawExecDriver::new(true);
    let mut cfg = task_config(
        tmp.path(),
        "web",
        sh("echo hello $GREETING; echo oops >&2; pwd"),
    );
    cfg.env.insert("GREETING".into(), "world".into());
    let task_dir = cfg.task_dir.clone();
    run_to_exit(&d, cfg).await;
    let out = read_log(tmp.path(), "web.stdout.0");
    assert!(out.starts_with("hello world\n"), "{out:?}");
    assert!(
        out.contains(&task_dir.display().to_string()),
        "runs in the task dir: {out:?}"
    );
    assert_eq!(read_log(tmp.path(), "web.stderr.0"), "oops\n");
}

#[tokio::test]
async fn rotates_logs_by_size_and_prunes_old_files() {
    let tmp = tempfile::tempdir().unwrap();
    let d = RawExecDriver::new(true);
    let mut cfg = task_config(
        tmp.path(),
        "big",
        sh("head -c 3000000 /dev/zero | tr '\\0' 'a'"),
    );
    cfg.log_max_files = 2;
    cfg.log_max_file_size_mb = 1;
    run_to_exit(&d, cfg).await;
    let logs = tmp.path().join("alloc/logs");
    let mut idx = crate::drivers::logging::existing_indexes(&logs, "big.stdout").unwrap();
    idx.sort();
    assert_eq!(idx, vec![1, 2]);
    let len1 = std::fs::metadata(logs.join("big.stdout.1")).unwrap().len();
    let len2 = std::fs::metadata(logs.join("big.stdout.2")).unwrap().len();
    assert_eq!(len1, 1024 * 1024);
    assert_eq!(len2, 3_000_000 - 2 * 1024 * 1024);
}

#[tokio::test]
async fn stop_sends_the_kill_signal() {
    let tmp = tempfile::tempdir().unwrap();
    let d = RawExecDriver::new(true);
    let h = d
        .start(task_config(tmp.path(), "t", sh("exec sleep 30")))
        .await
        .unwrap();
    let started = Instant::now();
    d.stop(&h, "SIGTERM", Duration::from_secs(5)).await.unwrap();
    let res = d.wait(&h).await.unwrap();
    assert_eq!(res.signal, 15);
    assert_eq!(res.exit_code, 128 + 15);
    assert!(started.elapsed() < Duration::from_secs(4));
    d.destroy(&h, false).await.unwrap();
}

#[tokio::test]
async fn stop_force_kills_after_the_timeout() {
    let tmp = tempfile::tempdir().unwrap();
    let d = RawExecDriver::new(true);
    // SIG_IGN is inherited through exec, so the sleep ignores SIGTERM too.
    let h = d
        .start(task_config(
            tmp.path(),
            "stubborn",
            sh("trap '' TERM; echo ready; exec sleep 30"),
        ))
        .await
        .unwrap();
    assert!(
        wait_until(Duration::from_secs(5), || async {
            read_log(tmp.path(), "stubborn.stdout.0") == "ready\n"
        })
        .await
    );
    let started = Instant::now();
    d.stop(&h, "SIGTERM", Duration::from_millis(300))
        .await
        .unwrap();
    let res = d.wait(&h).await.unwrap();
    assert_eq!(res.signal, 9, "{res:?}");
    assert!(started.elapsed() >= Duration::from_millis(300));
    d.destroy(&h, false).await.unwrap();
}

fn process_alive(pid: i32) -> bool {
    // A zombie nobody reaped (no init in some containers) counts as dead.
    match std::fs::read_to_string(format!("/proc/{pid}/stat")) {
        Ok(stat) => !stat
            .rsplit(')')
            .next()
            .is_some_and(|rest| rest.trim_start().starts_with('Z')),
        Err(_) => false,
    }
}

#[tokio::test]
async fn stop_kills_the_whole_process_group() {
    let tmp = tempfile::tempdir().unwrap();
    let d = RawExecDriver::new(true);
    let cfg = task_config(
        tmp.path(),
        "tree",
        sh("sleep 1000 & echo $! > child.pid; wait"),
    );
    let pid_file = cfg.task_dir.join("child.pid");
    let h = d.start(cfg).await.unwrap();
    assert!(
        wait_until(Duration::from_secs(5), || async {
            std::fs::read_to_string(&pid_file).is_ok_and(|s| s.ends_with('\n'))
        })
        .await
    );
    let child: i32 = std::fs::read_to_string(&pid_file)
        .unwrap()
        .trim()
        .parse()
        .unwrap();
    assert!(process_alive(child));
    d.stop(&h, "SIGINT", Duration::from_secs(2)).await.unwrap();
    d.wait(&h).await.unwrap();
    assert!(
        wait_until(Duration::from_secs(5), || async { !process_alive(child) }).await,
        "grandchild {child} survived"
    );
    d.destroy(&h, false).await.unwrap();
}

#[tokio::test]
async fn missing_binary_is_a_start_error() {
    let tmp = tempfile::tempdir().unwrap();
    let d = RawExecDriver::new(true);
    let err = d
        .start(task_config(
            tmp.path(),
            "t",
            json!({ "command": "definitely-not-a-binary-xyz" }),
        ))
        .await
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "binary \"definitely-not-a-binary-xyz\" could not be found"
    );
    assert!(!err.is_recoverable());
}

#[tokio::test]
async fn disabled_driver_refuses_and_fingerprints_undetected() {
    let tmp = tempfile::tempdir().unwrap();
    let d = RawExecDriver::new(false);
    let fp = d.fingerprint().await;
    assert_eq!(fp.health, crate::drivers::HealthState::Undetected);
    assert_eq!(fp.health_description, "disabled");
    let err = d
        .start(task_config(tmp.path(), "t", sh("true")))
        .await
        .unwrap_err();
    assert_eq!(err.to_string(), "raw_exec is disabled");
    let on = RawExecDriver::new(true).fingerprint().await;
    assert_eq!(on.attributes.get("driver.raw_exec").unwrap(), "true");
}

#[tokio::test]
async fn destroy_refuses_running_tasks_unless_forced() {
    let tmp = tempfile::tempdir().unwrap();
    let d = RawExecDriver::new(true);
    let h = d
        .start(task_config(tmp.path(), "t", sh("exec sleep 30")))
        .await
        .unwrap();
    assert_eq!(
        d.inspect(&h).await.unwrap().state,
        crate::drivers::TaskRunState::Running
    );
    assert_eq!(
        d.destroy(&h, false).await.unwrap_err(),
        DriverError::DestroyRunning
    );
    d.destroy(&h, true).await.unwrap();
    assert_eq!(d.wait(&h).await.unwrap_err(), DriverError::TaskNotFound);
}

#[tokio::test]
async fn unknown_kill_signal_falls_back_to_sigint() {
    let tmp = tempfile::tempdir().unwrap();
    let d = RawExecDriver::new(true);
    let h = d
        .start(task_config(tmp.path(), "t", sh("exec sleep 30")))
        .await
        .unwrap();
    d.stop(&h, "SIGBOGUS", Duration::from_secs(5))
        .await
        .unwrap();
    assert_eq!(d.wait(&h).await.unwrap().signal, 2);
    d.destroy(&h, false).await.unwrap();
}

#[tokio::test]
async fn a_new_driver_recovers_running_and_exited_tasks_from_their_handles() {
    let tmp = tempfile::tempdir().unwrap();
    let first = RawExecDriver::new(true);
    let running = first
        .start(task_config(
            tmp.path(),
            "long",
            sh("echo up; exec sleep 30"),
        ))
        .await
        .unwrap();
    let exited = first
        .start(task_config(tmp.path(), "short", sh("exit 4")))
        .await
        .unwrap();
    assert_eq!(first.wait(&exited).await.unwrap().exit_code, 4);
    // The agent goes away: the driver (and everything it tracked in memory) is dropped.
    drop(first);

    let second = RawExecDriver::new(true);
    second.recover(&running).await.unwrap();
    second.recover(&exited).await.unwrap();
    let status = second.inspect(&running).await.unwrap();
    assert_eq!(status.state, crate::drivers::TaskRunState::Running);
    assert_eq!(
        status.driver_attributes["pid"],
        running.driver_state["pid"].to_string()
    );
    let res = second.wait(&exited).await.unwrap();
    assert_eq!(res.exit_code, 4, "exit status read from the record");
    second
        .stop(&running, "SIGTERM", Duration::from_secs(5))
        .await
        .unwrap();
    assert_eq!(second.wait(&running).await.unwrap().signal, 15);
    second.destroy(&running, false).await.unwrap();
    second.destroy(&exited, false).await.unwrap();

    let mut gone = exited.clone();
    gone.config.id = "alloc1/short/other-attempt".into();
    gone.driver_state["supervisor_pid"] = serde_json::json!(0);
    let err = second.recover(&gone).await.unwrap_err();
    assert!(matches!(err, DriverError::Recover(_)), "{err}");
}

#[test]
fn a_user_that_does_not_exist_is_refused_whoever_runs_the_agent() {
    let err = super::user_ids("no-such-user-nomad-rs").unwrap_err();
    assert_eq!(
        err.to_string(),
        DriverError::InvalidConfig("user \"no-such-user-nomad-rs\" does not exist".into())
            .to_string()
    );
    assert_eq!(super::user_ids("").unwrap(), (None, None));
}
