//! The supervisor loop run in-process (a thread) against real child processes, driven
//! through the same client functions the agent uses.

use std::path::Path;
use std::time::Duration;

use super::client::request;
use super::spec::{self, LaunchSpec, LogTarget, Request};
use super::supervisor::Supervisor;

fn spec(dir: &Path, script: &str, max_file_size_bytes: u64) -> LaunchSpec {
    std::fs::create_dir_all(dir.join("logs")).unwrap();
    LaunchSpec {
        task_id: "a1/web/x".into(),
        argv: vec!["/bin/sh".into(), "-c".into(), script.into()],
        env: vec![("PATH".into(), "/usr/bin:/bin".into())],
        cwd: dir.to_path_buf(),
        state_dir: dir.to_path_buf(),
        logs: LogTarget {
            dir: Some(dir.join("logs")),
            task_name: "web".into(),
            max_files: 3,
            max_file_size_bytes,
        },
        kill_signal: libc::SIGINT,
        kill_timeout_ms: 1000,
        ..Default::default()
    }
}

/// Until the task has printed "ready".
async fn ready(dir: &Path) -> bool {
    crate::drivers::testutil::wait_until(Duration::from_secs(5), || async {
        std::fs::read_to_string(dir.join("logs/web.stdout.0")).is_ok_and(|s| s == "ready\n")
    })
    .await
}

fn run(spec: LaunchSpec) -> (i32, std::thread::JoinHandle<spec::ExitRecord>) {
    let sup = Supervisor::start(spec).expect("start supervisor");
    let pid = sup.pid();
    (pid, std::thread::spawn(move || sup.run(None)))
}

#[tokio::test]
async fn status_stop_and_wait_over_the_socket() {
    let tmp = tempfile::tempdir().unwrap();
    let (pid, thread) = run(spec(tmp.path(), "echo ready; exec sleep 30", 1 << 20));
    let sock = spec::socket_path(tmp.path());
    // Stop only once the task has run its first line, so its output is deterministic.
    assert!(ready(tmp.path()).await, "task started");

    let status = request(&sock, &Request::Status).await.unwrap();
    assert_eq!(status.pid, pid);
    assert!(status.exit.is_none(), "still running");

    let waiter = tokio::spawn({
        let sock = sock.clone();
        async move { request(&sock, &Request::Wait).await }
    });
    let stopped = request(
        &sock,
        &Request::Stop {
            signal: libc::SIGTERM,
            timeout_ms: 5000,
        },
    )
    .await
    .unwrap();
    assert_eq!(stopped.pid, pid);

    let answer = tokio::time::timeout(Duration::from_secs(10), waiter)
        .await
        .expect("wait answered")
        .unwrap();
    let record = thread.join().unwrap();
    assert_eq!((record.exit_code, record.signal), (128 + 15, 15));
    match answer {
        Ok(done) => assert_eq!(done.exit, Some(record.clone())),
        // Under load the waiter's request can reach the supervisor only after it answered the
        // stop and exited; the agent then reads the exit record, checked below.
        Err(e) => assert!(
            matches!(
                e.kind(),
                std::io::ErrorKind::BrokenPipe
                    | std::io::ErrorKind::ConnectionReset
                    | std::io::ErrorKind::ConnectionRefused
                    | std::io::ErrorKind::NotFound
                    | std::io::ErrorKind::UnexpectedEof
            ),
            "{e}"
        ),
    }
    let exit = record;
    assert_eq!(spec::read_exit(tmp.path(), "a1/web/x"), Some(exit));
    assert_eq!(spec::read_exit(tmp.path(), "another/attempt"), None);
    assert!(!sock.exists(), "socket removed at exit");
    let out = std::fs::read_to_string(tmp.path().join("logs/web.stdout.0")).unwrap();
    assert_eq!(out, "ready\n");
}

#[tokio::test]
async fn stop_escalates_to_sigkill_after_the_timeout() {
    let tmp = tempfile::tempdir().unwrap();
    // Ignores SIGTERM; only SIGKILL ends it.
    let (_, thread) = run(spec(
        tmp.path(),
        "trap '' TERM; echo ready; while :; do sleep 0.05; done",
        1 << 20,
    ));
    let sock = spec::socket_path(tmp.path());
    assert!(ready(tmp.path()).await, "task started");
    request(
        &sock,
        &Request::Stop {
            signal: libc::SIGTERM,
            timeout_ms: 200,
        },
    )
    .await
    .unwrap();
    let record = tokio::task::spawn_blocking(move || thread.join().unwrap())
        .await
        .unwrap();
    assert_eq!(record.signal, libc::SIGKILL, "{record:?}");
    assert_eq!(record.exit_code, 128 + libc::SIGKILL);
}

#[tokio::test]
async fn signals_reach_the_task_and_bad_requests_are_answered() {
    let tmp = tempfile::tempdir().unwrap();
    let (_, thread) = run(spec(
        tmp.path(),
        "trap 'echo got-usr1; exit 7' USR1; echo ready; while :; do sleep 0.05; done",
        1 << 20,
    ));
    let sock = spec::socket_path(tmp.path());
    assert!(ready(tmp.path()).await, "task started");

    // A line that is no request gets an error answer, and the connection stays usable.
    use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
    let stream = tokio::net::UnixStream::connect(&sock).await.unwrap();
    let (r, mut w) = stream.into_split();
    w.write_all(b"{\"op\":\"reboot\"}\n").await.unwrap();
    let mut lines = BufReader::new(r).lines();
    let answer = lines.next_line().await.unwrap().unwrap();
    assert!(answer.contains("bad request"), "{answer}");
    w.write_all(b"{\"op\":\"status\"}\n").await.unwrap();
    let answer = lines.next_line().await.unwrap().unwrap();
    assert!(answer.contains("\"pid\""), "{answer}");

    request(
        &sock,
        &Request::Signal {
            signal: libc::SIGUSR1,
        },
    )
    .await
    .unwrap();
    let record = tokio::task::spawn_blocking(move || thread.join().unwrap())
        .await
        .unwrap();
    assert_eq!((record.exit_code, record.signal), (7, 0));
    let out = std::fs::read_to_string(tmp.path().join("logs/web.stdout.0")).unwrap();
    assert_eq!(out, "ready\ngot-usr1\n");
}

#[tokio::test]
async fn output_is_rotated_into_numbered_files() {
    let tmp = tempfile::tempdir().unwrap();
    // 10 lines of 10 bytes into files of 25 bytes, at most 3 kept.
    let script = "for i in 0 1 2 3 4 5 6 7 8 9; do echo \"line-$i-xx\"; done; echo err >&2";
    let (_, thread) = run(spec(tmp.path(), script, 25));
    let record = tokio::task::spawn_blocking(move || thread.join().unwrap())
        .await
        .unwrap();
    assert_eq!(record.exit_code, 0);
    let logs = tmp.path().join("logs");
    let mut idx = crate::drivers::logging::existing_indexes(&logs, "web.stdout").unwrap();
    idx.sort();
    assert_eq!(idx.len(), 3, "older files pruned to max_files: {idx:?}");
    assert!(idx[0] > 0, "the first file was pruned: {idx:?}");
    let all: String = idx
        .iter()
        .map(|i| std::fs::read_to_string(logs.join(format!("web.stdout.{i}"))).unwrap())
        .collect();
    assert!(all.ends_with("line-8-xx\nline-9-xx\n"), "{all:?}");
    for i in &idx {
        let len = std::fs::metadata(logs.join(format!("web.stdout.{i}")))
            .unwrap()
            .len();
        assert!(len <= 25, "file {i} is {len} bytes");
    }
    assert_eq!(
        std::fs::read_to_string(logs.join("web.stderr.0")).unwrap(),
        "err\n"
    );
}

#[tokio::test]
async fn a_task_that_cannot_start_is_an_error_not_a_hang() {
    let tmp = tempfile::tempdir().unwrap();
    let mut s = spec(tmp.path(), "", 1 << 20);
    s.argv = vec!["/nonexistent/binary".into()];
    let err = Supervisor::start(s).err().expect("start fails");
    assert_eq!(err.kind(), std::io::ErrorKind::NotFound);
}
