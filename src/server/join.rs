//! `server join`: ask this server to join others (Nomad's `Server.Join` over serf).
//!
//! This build has no server-to-server transport yet (raft runs over `SingleNodeNetwork`), so
//! a server cannot take part in another server's cluster. Join therefore counts the addresses
//! that are this server itself as joined (serf joining its own address succeeds too) and
//! reports every other address as failed: unreachable ones with the dial error, reachable
//! ones with why they cannot be joined. Adding an unreachable voter would stop commits, so
//! the membership is never changed here.

use std::net::SocketAddr;
use std::time::Duration;

/// Serf's default port, assumed when an address has none.
const DEFAULT_SERF_PORT: u16 = 4648;
const DIAL_TIMEOUT: Duration = Duration::from_secs(3);

/// What a join did: how many addresses were joined, and the failures (Nomad's text for
/// each, to be listed as a multierror).
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct JoinOutcome {
    pub joined: usize,
    pub errors: Vec<String>,
}

impl JoinOutcome {
    /// go-multierror's listing of the failures, or "" when there were none.
    pub fn error_text(&self) -> String {
        match self.errors.len() {
            0 => String::new(),
            1 => format!("1 error occurred:\n\t* {}\n\n", self.errors[0]),
            n => {
                let points: Vec<String> = self.errors.iter().map(|e| format!("* {e}")).collect();
                format!("{n} errors occurred:\n\t{}\n\n", points.join("\n\t"))
            }
        }
    }
}

/// `host:port` with serf's default port filled in.
fn with_port(addr: &str) -> String {
    let has_port = match addr.rsplit_once(':') {
        Some((host, port)) => {
            !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit()) && !host.ends_with(':')
        }
        None => false,
    };
    if has_port {
        addr.to_string()
    } else if addr.contains(':') && !addr.starts_with('[') {
        format!("[{addr}]:{DEFAULT_SERF_PORT}")
    } else {
        format!("{addr}:{DEFAULT_SERF_PORT}")
    }
}

async fn resolve(addr: &str) -> std::io::Result<Vec<SocketAddr>> {
    Ok(tokio::net::lookup_host(addr).await?.collect())
}

/// Go's `net.Dial` wording for the common failures.
fn dial_error(e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::ConnectionRefused => "connect: connection refused".to_string(),
        std::io::ErrorKind::TimedOut => "i/o timeout".to_string(),
        _ => e.to_string(),
    }
}

/// Join the servers at `addrs`; `local` are this server's own addresses (serf and RPC).
pub async fn join(local: &[String], addrs: &[String]) -> JoinOutcome {
    let mut mine = Vec::new();
    for l in local {
        if let Ok(found) = resolve(l).await {
            mine.extend(found);
        }
    }
    let mut out = JoinOutcome::default();
    for raw in addrs {
        let addr = with_port(raw.trim());
        let resolved = match resolve(&addr).await {
            Ok(r) if !r.is_empty() => r,
            Ok(_) => {
                out.errors
                    .push(format!("Failed to join {addr}: no such host"));
                continue;
            }
            Err(e) => {
                out.errors.push(format!("Failed to join {addr}: {e}"));
                continue;
            }
        };
        if resolved.iter().any(|a| mine.contains(a)) {
            out.joined += 1;
            continue;
        }
        let dial =
            tokio::time::timeout(DIAL_TIMEOUT, tokio::net::TcpStream::connect(&resolved[..]));
        let err = match dial.await {
            Err(_) => format!("dial tcp {addr}: i/o timeout"),
            Ok(Err(e)) => format!("dial tcp {addr}: {}", dial_error(&e)),
            Ok(Ok(_)) => "this server cannot join other servers: it has no server-to-server \
                          transport (raft runs on this server alone)"
                .to_string(),
        };
        out.errors.push(format!("Failed to join {addr}: {err}"));
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn addresses_get_serfs_default_port() {
        assert_eq!(with_port("10.0.0.1"), "10.0.0.1:4648");
        assert_eq!(with_port("10.0.0.1:5000"), "10.0.0.1:5000");
        assert_eq!(with_port("nomad.example"), "nomad.example:4648");
        assert_eq!(with_port("::1"), "[::1]:4648");
        assert_eq!(with_port("[::1]:4000"), "[::1]:4000");
    }

    #[test]
    fn errors_read_as_go_multierror() {
        let one = JoinOutcome {
            joined: 0,
            errors: vec!["a".into()],
        };
        assert_eq!(one.error_text(), "1 error occurred:\n\t* a\n\n");
        let two = JoinOutcome {
            joined: 0,
            errors: vec!["a".into(), "b".into()],
        };
        assert_eq!(two.error_text(), "2 errors occurred:\n\t* a\n\t* b\n\n");
        assert_eq!(JoinOutcome::default().error_text(), "");
    }

    #[tokio::test]
    async fn own_addresses_join_and_closed_ports_fail_with_the_dial_error() {
        // A port nothing listens on: bind, note it, close.
        let port = {
            let l = std::net::TcpListener::bind("127.0.0.1:0").expect("bind");
            l.local_addr().expect("addr").port()
        };
        let local = vec!["127.0.0.1:4648".to_string()];
        let out = join(
            &local,
            &["127.0.0.1:4648".to_string(), format!("127.0.0.1:{port}")],
        )
        .await;
        assert_eq!(out.joined, 1);
        assert_eq!(
            out.errors,
            [format!(
                "Failed to join 127.0.0.1:{port}: dial tcp 127.0.0.1:{port}: connect: connection refused"
            )]
        );
        // A reachable server that is not this one cannot be joined.
        let l = tokio::net::TcpListener::bind("127.0.0.1:0")
            .await
            .expect("bind");
        let other = l.local_addr().expect("addr").to_string();
        let out = join(&local, std::slice::from_ref(&other)).await;
        assert_eq!(out.joined, 0);
        assert!(
            out.errors[0].starts_with(&format!("Failed to join {other}: this server cannot join")),
            "{out:?}"
        );
    }
}
