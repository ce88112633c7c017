//! `serve` over a real socket: header spelling on the wire and shutdown.

use std::time::{Duration, Instant};

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};
use tokio_util::sync::CancellationToken;

use super::*;
use crate::http::serve;

/// One HTTP/1.1 request with `Connection: close`; the raw response bytes.
async fn raw_get(addr: std::net::SocketAddr, path: &str) -> String {
    let mut s = TcpStream::connect(addr).await.expect("connects");
    let req = format!("GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n");
    s.write_all(req.as_bytes()).await.expect("writes");
    let mut out = Vec::new();
    s.read_to_end(&mut out).await.expect("reads");
    String::from_utf8_lossy(&out).into_owned()
}

#[tokio::test]
async fn headers_are_spelled_like_go_and_shutdown_ends_blocking_queries() {
    let server = start_server().await;
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("binds");
    let addr = listener.local_addr().expect("addr");
    let token = CancellationToken::new();
    let serving = tokio::spawn(serve(
        listener,
        app(Some(server.clone()), None),
        token.clone(),
    ));

    let r = raw_get(addr, "/v1/jobs").await;
    assert!(r.starts_with("HTTP/1.1 200 OK\r\n"), "{r}");
    assert!(r.contains("\r\nContent-Type: application/json\r\n"), "{r}");
    assert!(r.contains("\r\nX-Nomad-Knownleader: true\r\n"), "{r}");
    assert!(r.contains("\r\nX-Nomad-Lastcontact: 0\r\n"), "{r}");
    assert!(r.contains("\r\nX-Nomad-Index: "), "{r}");
    assert!(r.ends_with("\r\n\r\n[]"), "{r}");

    // A blocking query in flight answers as soon as the server shuts down.
    let index = server
        .state()
        .snapshot()
        .table_index(crate::server::state::Table::Jobs);
    let blocked =
        tokio::spawn(
            async move { raw_get(addr, &format!("/v1/jobs?index={index}&wait=5m")).await },
        );
    tokio::time::sleep(Duration::from_millis(200)).await;
    let started = Instant::now();
    token.cancel();
    let done = tokio::time::timeout(Duration::from_secs(5), serving)
        .await
        .expect("serve returns promptly")
        .expect("task joins");
    assert!(done.is_ok());
    let answer = blocked.await.expect("query task joins");
    assert!(answer.starts_with("HTTP/1.1 200 OK\r\n"), "{answer}");
    assert!(started.elapsed() < Duration::from_secs(5));
    server.shutdown().await;
}

#[tokio::test]
async fn shutdown_ends_a_followed_log_stream() {
    use super::logs::{FakeLogs, ALLOC};
    let listener = TcpListener::bind("127.0.0.1:0").await.expect("binds");
    let addr = listener.local_addr().expect("addr");
    let token = CancellationToken::new();
    let logs: Arc<dyn LogSource> = FakeLogs::with(&[(0, "hello\n")]);
    let serving = tokio::spawn(serve(listener, app(None, Some(logs)), token.clone()));
    let follow = tokio::spawn(async move {
        raw_get(
            addr,
            &format!("/v1/client/fs/logs/{ALLOC}?task=server&type=stdout&follow=true"),
        )
        .await
    });
    tokio::time::sleep(Duration::from_millis(300)).await;
    token.cancel();
    tokio::time::timeout(Duration::from_secs(5), serving)
        .await
        .expect("serve returns promptly")
        .expect("task joins")
        .expect("serve ok");
    let raw = tokio::time::timeout(Duration::from_secs(5), follow)
        .await
        .expect("stream ends")
        .expect("task joins");
    assert!(raw.starts_with("HTTP/1.1 200 OK\r\n"), "{raw}");
    assert!(raw.contains("Transfer-Encoding: chunked"), "{raw}");
    assert!(raw.contains(r#"{"Data":"aGVsbG8K","File":"alloc/logs/server.stdout.0","Offset":6}"#));
}
