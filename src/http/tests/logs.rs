//! The logs endpoint against an in-memory `LogSource`.

use std::collections::BTreeMap;
use std::sync::Mutex;
use std::time::Duration;

use async_trait::async_trait;
use axum::body::Bytes;
use axum::http::StatusCode;
use futures::StreamExt;

use super::*;
use crate::http::{LogError, LogFile, LogType};

pub(super) const ALLOC: &str = "0dfb874c-22c5-84f4-be02-3dc0b95cc830";

/// Files of one task ("server"), stdout only, kept in memory.
#[derive(Default)]
pub(super) struct FakeLogs {
    files: Mutex<BTreeMap<u64, Vec<u8>>>,
}

impl FakeLogs {
    pub(super) fn with(files: &[(u64, &str)]) -> Arc<FakeLogs> {
        let f = FakeLogs::default();
        if let Ok(mut m) = f.files.lock() {
            for (i, c) in files {
                m.insert(*i, c.as_bytes().to_vec());
            }
        }
        Arc::new(f)
    }
    fn append(&self, index: u64, data: &str) {
        if let Ok(mut m) = self.files.lock() {
            m.entry(index)
                .or_default()
                .extend_from_slice(data.as_bytes());
        }
    }
    fn replace(&self, index: u64, data: &str) {
        if let Ok(mut m) = self.files.lock() {
            m.insert(index, data.as_bytes().to_vec());
        }
    }
}

#[async_trait]
impl LogSource for FakeLogs {
    async fn list(&self, alloc: &str, task: &str, t: LogType) -> Result<Vec<LogFile>, LogError> {
        if alloc != ALLOC {
            return Err(LogError::UnknownAlloc(alloc.to_string()));
        }
        if task != "server" {
            return Err(LogError::UnknownTask(task.to_string()));
        }
        if t == LogType::Stderr {
            return Ok(Vec::new());
        }
        let m = self.files.lock().map_err(|e| LogError::Io(e.to_string()))?;
        Ok(m.iter()
            .map(|(i, d)| LogFile {
                index: *i,
                size: d.len() as u64,
            })
            .collect())
    }

    async fn read(
        &self,
        _alloc: &str,
        _task: &str,
        _t: LogType,
        index: u64,
        offset: u64,
        max: usize,
    ) -> Result<Bytes, LogError> {
        let m = self.files.lock().map_err(|e| LogError::Io(e.to_string()))?;
        let Some(d) = m.get(&index) else {
            return Err(LogError::FileGone(format!("{index}")));
        };
        let start = (offset as usize).min(d.len());
        let end = (start + max).min(d.len());
        Ok(Bytes::copy_from_slice(&d[start..end]))
    }
}

fn logs_app(src: Arc<FakeLogs>) -> Router {
    app(None, Some(src as Arc<dyn LogSource>))
}

#[tokio::test]
async fn framed_and_plain_match_nomads_bytes() {
    let app = logs_app(FakeLogs::with(&[(0, "hello\n")]));
    let r = get(
        &app,
        &format!("/v1/client/fs/logs/{ALLOC}?task=server&type=stdout"),
    )
    .await;
    assert_eq!(r.status, StatusCode::OK);
    assert_eq!(r.header("content-type"), Some("application/json"));
    assert_eq!(
        r.text(),
        r#"{"Data":"aGVsbG8K","File":"alloc/logs/server.stdout.0","Offset":6}"#
    );
    let p = get(
        &app,
        &format!("/v1/client/fs/logs/{ALLOC}?task=server&type=stdout&plain=true"),
    )
    .await;
    assert_eq!(p.header("content-type"), Some("text/plain"));
    assert_eq!(p.text(), "hello\n");
}

#[tokio::test]
async fn origin_end_and_offsets_span_rotated_files() {
    let app = logs_app(FakeLogs::with(&[(0, "aaaa\n"), (1, "bbbb\n")]));
    let base = format!("/v1/client/fs/logs/{ALLOC}?task=server&type=stdout&plain=true");
    assert_eq!(get(&app, &base).await.text(), "aaaa\nbbbb\n");
    assert_eq!(
        get(&app, &format!("{base}&origin=end&offset=3"))
            .await
            .text(),
        "bb\n"
    );
    assert_eq!(
        get(&app, &format!("{base}&origin=end&offset=7"))
            .await
            .text(),
        "a\nbbbb\n"
    );
    assert_eq!(get(&app, &format!("{base}&offset=7")).await.text(), "bb\n");
    let framed = get(
        &app,
        &format!("/v1/client/fs/logs/{ALLOC}?task=server&type=stdout&origin=end&offset=2"),
    )
    .await
    .text();
    assert_eq!(
        framed,
        r#"{"Data":"Ygo=","File":"alloc/logs/server.stdout.1","Offset":5}"#
    );
}

#[tokio::test]
async fn follow_streams_new_bytes_rotation_and_heartbeats() {
    let src = FakeLogs::with(&[(0, "hello\n")]);
    let app = logs_app(src.clone());
    let req = axum::http::Request::builder()
        .uri(format!(
            "/v1/client/fs/logs/{ALLOC}?task=server&type=stdout&follow=true"
        ))
        .body(axum::body::Body::empty())
        .expect("request");
    let resp = tower::ServiceExt::oneshot(app, req).await.expect("router");
    assert_eq!(resp.status(), StatusCode::OK);
    let mut body = resp.into_body().into_data_stream();
    let mut next = async || -> String {
        let chunk = tokio::time::timeout(Duration::from_secs(5), body.next())
            .await
            .expect("a frame in time")
            .expect("stream open")
            .expect("no error");
        String::from_utf8_lossy(&chunk).into_owned()
    };
    assert_eq!(
        next().await,
        r#"{"Data":"aGVsbG8K","File":"alloc/logs/server.stdout.0","Offset":6}"#
    );
    src.append(0, "more\n");
    assert_eq!(
        next().await,
        r#"{"Data":"bW9yZQo=","File":"alloc/logs/server.stdout.0","Offset":11}"#
    );
    // Nothing new for a second: a heartbeat.
    assert_eq!(next().await, "{}");
    // Rotation: the next file is followed from its start.
    src.append(1, "rotated\n");
    assert_eq!(
        next().await,
        r#"{"Data":"cm90YXRlZAo=","File":"alloc/logs/server.stdout.1","Offset":8}"#
    );
    // Truncation: restart at 0 and say so.
    src.replace(1, "new\n");
    assert_eq!(
        next().await,
        r#"{"Data":"bmV3Cg==","File":"alloc/logs/server.stdout.1","FileEvent":"file truncated","Offset":4}"#
    );
}

#[tokio::test]
async fn bad_requests_get_nomads_codes_and_texts() {
    let app = logs_app(FakeLogs::with(&[(0, "x")]));
    let cases = [
        (format!("/v1/client/fs/logs/{ALLOC}?type=stdout"), 400, "must provide task name".to_string()),
        (
            format!("/v1/client/fs/logs/{ALLOC}?task=server&type=both"),
            400,
            "must provide log type (stdout/stderr)".to_string(),
        ),
        (
            format!("/v1/client/fs/logs/{ALLOC}?task=server&type=stdout&origin=middle"),
            400,
            "origin must be start or end".to_string(),
        ),
        (
            format!("/v1/client/fs/logs/{ALLOC}?task=server&type=stdout&offset=x"),
            400,
            "error parsing offset: strconv.ParseInt: parsing \"x\": invalid syntax".to_string(),
        ),
        (
            format!("/v1/client/fs/logs/{ALLOC}?task=server&type=stdout&follow=maybe"),
            400,
            "failed to parse follow field to boolean: strconv.ParseBool: parsing \"maybe\": invalid syntax".to_string(),
        ),
        (
            "/v1/client/fs/logs/nope?task=server&type=stdout".to_string(),
            404,
            "Unknown allocation \"nope\"".to_string(),
        ),
        (
            format!("/v1/client/fs/logs/{ALLOC}?task=db&type=stdout"),
            400,
            "unknown task name \"db\"".to_string(),
        ),
        (
            format!("/v1/client/fs/logs/{ALLOC}?task=server&type=stderr"),
            404,
            "log entry for task \"server\" and log type \"stderr\" not found".to_string(),
        ),
    ];
    for (uri, code, text) in cases {
        let r = get(&app, &uri).await;
        assert_eq!(r.status.as_u16(), code, "{uri}: {}", r.text());
        assert_eq!(r.text(), text, "{uri}");
        assert_eq!(r.header("content-type"), Some("text/plain; charset=utf-8"));
    }
    let no_client = super::app(None, None);
    let r = get(
        &no_client,
        &format!("/v1/client/fs/logs/{ALLOC}?task=server&type=stdout"),
    )
    .await;
    assert_eq!(
        (r.status, r.text()),
        (
            StatusCode::BAD_REQUEST,
            "node is not running a Nomad Client".into()
        )
    );
}
