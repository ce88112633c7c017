//! The accept loop. It is hyper's HTTP/1 server rather than `axum::serve` for one reason:
//! Go writes header names in canonical title case on the wire (`X-Nomad-Knownleader`,
//! `Content-Type`), and scripts that grep `curl -i` output expect that spelling; hyper does
//! the same only when asked (`title_case_headers`).

use std::time::Duration;

use axum::Router;
use hyper::server::conn::http1;
use hyper_util::rt::TokioIo;
use hyper_util::service::TowerToHyperService;
use tokio::net::TcpListener;
use tokio::task::JoinSet;
use tokio_util::sync::CancellationToken;

/// Pause after a failed accept (e.g. out of file descriptors) before trying again.
const ACCEPT_BACKOFF: Duration = Duration::from_millis(100);

/// Accept connections until `shutdown` fires, then let each connection finish its current
/// response (blocking queries and log streams see the same token and end early) and return
/// once all are closed.
pub async fn run(
    listener: TcpListener,
    router: Router,
    shutdown: CancellationToken,
) -> std::io::Result<()> {
    let mut conns = JoinSet::new();
    loop {
        let accepted = tokio::select! {
            r = listener.accept() => r,
            _ = shutdown.cancelled() => break,
            Some(_) = conns.join_next(), if !conns.is_empty() => continue,
        };
        let stream = match accepted {
            Ok((stream, _peer)) => stream,
            Err(e) => {
                tracing::warn!(error = %e, "http accept failed");
                tokio::time::sleep(ACCEPT_BACKOFF).await;
                continue;
            }
        };
        // Small responses (status, heartbeats of a log stream) should not wait for Nagle.
        let _ = stream.set_nodelay(true);
        let service = TowerToHyperService::new(router.clone());
        let token = shutdown.clone();
        conns.spawn(async move {
            let conn = http1::Builder::new()
                .title_case_headers(true)
                .serve_connection(TokioIo::new(stream), service)
                // The exec websocket upgrades its connection.
                .with_upgrades();
            tokio::pin!(conn);
            let result = tokio::select! {
                r = conn.as_mut() => r,
                _ = token.cancelled() => {
                    conn.as_mut().graceful_shutdown();
                    conn.await
                }
            };
            if let Err(e) = result {
                tracing::debug!(error = %e, "http connection ended with an error");
            }
        });
    }
    while conns.join_next().await.is_some() {}
    Ok(())
}
