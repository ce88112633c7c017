use std::time::Duration;

use serde_json::json;

use super::*;
use crate::drivers::testutil::{read_log, task_config};

#[tokio::test]
async fn runs_for_then_exits_with_configured_result() {
    let tmp = tempfile::tempdir().unwrap();
    let d = MockDriver::new();
    let cfg = task_config(
        tmp.path(),
        "m",
        json!({ "run_for": "50ms", "exit_code": 2, "exit_signal": 9, "exit_err_msg": "boom",
                "stdout_string": "hi\n", "stdout_repeat": 2, "stdout_repeat_duration": "5ms" }),
    );
    let h = d.start(cfg).await.unwrap();
    let res = tokio::time::timeout(Duration::from_secs(5), d.wait(&h))
        .await
        .unwrap()
        .unwrap();
    assert_eq!(
        res,
        ExitResult {
            exit_code: 2,
            signal: 9,
            oom_killed: false,
            err: Some("boom".into())
        }
    );
    assert_eq!(read_log(tmp.path(), "m.stdout.0"), "hi\nhi\nhi\n");
    d.destroy(&h, false).await.unwrap();
}

#[tokio::test]
async fn start_error_is_recoverable_only_when_asked() {
    let tmp = tempfile::tempdir().unwrap();
    let d = MockDriver::new();
    let err = d
        .start(task_config(
            tmp.path(),
            "a",
            json!({ "start_error": "nope" }),
        ))
        .await
        .unwrap_err();
    assert_eq!(err.to_string(), "nope");
    assert!(!err.is_recoverable());
    let err = d
        .start(task_config(
            tmp.path(),
            "b",
            json!({ "start_error": "later", "start_error_recoverable": true }),
        ))
        .await
        .unwrap_err();
    assert!(err.is_recoverable());
}

#[tokio::test(start_paused = true)]
async fn stop_waits_kill_after_then_kills() {
    let tmp = tempfile::tempdir().unwrap();
    let d = MockDriver::new();
    let h = d
        .start(task_config(
            tmp.path(),
            "k",
            json!({ "run_for": "1h", "kill_after": "3s", "exit_code": 0 }),
        ))
        .await
        .unwrap();
    let before = tokio::time::Instant::now();
    d.stop(&h, "SIGINT", Duration::from_secs(5)).await.unwrap();
    let res = d.wait(&h).await.unwrap();
    assert!(res.successful());
    assert_eq!(before.elapsed(), Duration::from_secs(3));
    d.destroy(&h, false).await.unwrap();
}

#[tokio::test]
async fn bad_duration_is_a_config_error_and_signal_error_is_returned() {
    let tmp = tempfile::tempdir().unwrap();
    let d = MockDriver::new();
    let err = d
        .start(task_config(tmp.path(), "x", json!({ "run_for": "ten" })))
        .await
        .unwrap_err();
    assert!(
        err.to_string().contains("run_for ten not a valid duration"),
        "{err}"
    );
    let h = d
        .start(task_config(
            tmp.path(),
            "s",
            json!({ "run_for": "1h", "signal_error": "no signals" }),
        ))
        .await
        .unwrap();
    assert_eq!(
        d.signal(&h, "SIGHUP").await.unwrap_err().to_string(),
        "no signals"
    );
    d.destroy(&h, true).await.unwrap();
}
