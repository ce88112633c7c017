use std::io::Write;
use std::time::Duration;

use futures::StreamExt;

use super::*;
use crate::drivers::logging::FileRotator;

fn setup() -> (tempfile::TempDir, PathBuf) {
    let tmp = tempfile::tempdir().unwrap();
    let logs = tmp.path().join("alloc/logs");
    std::fs::create_dir_all(&logs).unwrap();
    (tmp, logs)
}

fn concat(chunks: &[LogChunk]) -> String {
    chunks
        .iter()
        .map(|c| String::from_utf8_lossy(&c.data).into_owned())
        .collect()
}

#[test]
fn reads_across_rotated_files_from_start_and_end() {
    let (tmp, logs) = setup();
    std::fs::write(logs.join("web.stdout.0"), "aaaa").unwrap();
    std::fs::write(logs.join("web.stdout.1"), "bbbb").unwrap();
    std::fs::write(logs.join("web.stdout.2"), "cc").unwrap();
    let all = read_logs(tmp.path(), "web", LogStream::Stdout, LogOrigin::Start, 0).unwrap();
    assert_eq!(concat(&all), "aaaabbbbcc");
    assert_eq!(all[0].file, "alloc/logs/web.stdout.0");
    assert_eq!(all[0].offset, 4);
    assert_eq!(all.last().unwrap().file, "alloc/logs/web.stdout.2");
    assert_eq!(all.last().unwrap().offset, 2);

    let from5 = read_logs(tmp.path(), "web", LogStream::Stdout, LogOrigin::Start, 5).unwrap();
    assert_eq!(concat(&from5), "bbbcc");
    let tail = read_logs(tmp.path(), "web", LogStream::Stdout, LogOrigin::End, 4).unwrap();
    assert_eq!(concat(&tail), "bbcc");
    let too_far = read_logs(tmp.path(), "web", LogStream::Stdout, LogOrigin::End, 100).unwrap();
    assert_eq!(concat(&too_far), "aaaabbbbcc");
}

#[test]
fn missing_logs_and_bad_names_are_errors() {
    let (tmp, _) = setup();
    let err = read_logs(tmp.path(), "web", LogStream::Stderr, LogOrigin::Start, 0).unwrap_err();
    assert_eq!(
        err.to_string(),
        "log entry for task \"web\" and log type \"stderr\" not found"
    );
    assert!(matches!(
        read_logs(tmp.path(), "../x", LogStream::Stdout, LogOrigin::Start, 0),
        Err(LogError::InvalidTask(_))
    ));
    assert!(valid_alloc_id("../../etc").is_err());
    assert!(valid_alloc_id("0dfb874c-22c5-84f4-be02-3dc0b95cc830").is_ok());
    assert!(matches!(
        LogOrigin::parse("middle"),
        Err(LogError::InvalidOrigin)
    ));
}

#[tokio::test]
async fn follow_streams_new_data_across_rotation() {
    let (tmp, logs) = setup();
    let mut rot = FileRotator::open(&logs, "t.stdout", 10, 6).unwrap();
    rot.write_all(b"one\n").unwrap();
    let follower = LogFollower::new(
        tmp.path().to_path_buf(),
        "t",
        LogStream::Stdout,
        LogOrigin::Start,
        0,
    )
    .unwrap();
    let mut stream = Box::pin(follower.into_stream());
    let first = stream.next().await.unwrap().unwrap();
    assert_eq!(&first.data[..], b"one\n");
    // Fills .0 and rotates into .1 while the follower waits.
    rot.write_all(b"two\nthree\n").unwrap();
    let mut got = String::new();
    let mut files = Vec::new();
    while got != "two\nthree\n" {
        let c = tokio::time::timeout(Duration::from_secs(5), stream.next())
            .await
            .expect("follower stalled")
            .unwrap()
            .unwrap();
        got.push_str(std::str::from_utf8(&c.data).unwrap());
        files.push(c.file);
    }
    assert_eq!(files.last().unwrap(), "alloc/logs/t.stdout.2");
}
