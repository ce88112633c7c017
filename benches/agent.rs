//! Agent benchmark: process start -> /v1/agent/health 200, idle RSS, and `job run` -> alloc
//! running for raw_exec. Prints `key: value` lines. `QUICK=1` shortens the idle wait.

use std::io::{Read, Write};
use std::net::{TcpListener, TcpStream};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

const BIN: &str = env!("CARGO_BIN_EXE_nomad");

fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .unwrap_or(0)
}

fn http(method: &str, port: u16, path: &str, body: &str) -> Option<(u16, String)> {
    let mut s = TcpStream::connect(("127.0.0.1", port)).ok()?;
    write!(
        s,
        "{method} {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )
    .ok()?;
    let mut raw = String::new();
    s.read_to_string(&mut raw).ok()?;
    let (head, body) = raw.split_once("\r\n\r\n")?;
    Some((
        head.split_whitespace().nth(1)?.parse().ok()?,
        body.to_string(),
    ))
}

fn rss_kb(pid: u32) -> u64 {
    std::fs::read_to_string(format!("/proc/{pid}/status"))
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmRSS:"))
                .and_then(|l| l.split_whitespace().nth(1).and_then(|v| v.parse().ok()))
        })
        .unwrap_or(0)
}

/// The agent process, and the temp dir its config lives in (removed on drop).
struct Agent(Child, #[allow(dead_code)] tempfile::TempDir);

impl Drop for Agent {
    fn drop(&mut self) {
        unsafe {
            libc::kill(self.0.id() as i32, libc::SIGTERM);
        }
        let _ = self.0.wait();
    }
}

fn start() -> (Agent, u16, Duration) {
    let dir = tempfile::tempdir().expect("temp dir");
    let port = free_port();
    let cfg = dir.path().join("agent.hcl");
    std::fs::write(
        &cfg,
        format!(
            "ports {{\n  http = {port}\n  rpc = {}\n  serf = {}\n}}\n",
            free_port(),
            free_port()
        ),
    )
    .expect("config");
    let t0 = Instant::now();
    let child = Command::new(BIN)
        .args(["agent", "-dev", "-log-level=WARN"])
        .arg(format!("-config={}", cfg.display()))
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("spawn agent");
    let agent = Agent(child, dir);
    loop {
        if matches!(http("GET", port, "/v1/agent/health", ""), Some((200, _))) {
            break;
        }
        assert!(
            t0.elapsed() < Duration::from_secs(20),
            "agent did not become healthy"
        );
        std::thread::sleep(Duration::from_millis(1));
    }
    (agent, port, t0.elapsed())
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(|a, b| a.total_cmp(b));
    v[v.len() / 2]
}

fn main() {
    let quick = std::env::var("QUICK").is_ok_and(|v| v == "1");
    let runs = if quick { 3 } else { 7 };

    let startups: Vec<f64> = (0..runs)
        .map(|_| start().2.as_secs_f64() * 1000.0)
        .collect();
    println!("startup_ms: {:.1}", median(startups));

    let (agent, port, _) = start();
    // Wait for the node to register, then for the idle period.
    let t0 = Instant::now();
    while !http("GET", port, "/v1/nodes", "").is_some_and(|(_, b)| b.contains("\"ready\"")) {
        assert!(
            t0.elapsed() < Duration::from_secs(20),
            "node never became ready"
        );
        std::thread::sleep(Duration::from_millis(10));
    }
    std::thread::sleep(Duration::from_secs(if quick { 3 } else { 10 }));
    println!("idle_rss_mb: {:.1}", rss_kb(agent.0.id()) as f64 / 1024.0);

    // `nomad job run -detach FILE` (parse, register) until the alloc's task is running.
    let mut latencies = Vec::new();
    for i in 0..runs {
        let id = format!("bench{i}");
        let file = agent.1.path().join(format!("{id}.nomad.hcl"));
        std::fs::write(
            &file,
            format!(
                "job \"{id}\" {{\n  group \"g\" {{\n    task \"t\" {{\n      driver = \"raw_exec\"\n      config {{\n        command = \"/bin/sleep\"\n        args = [\"60\"]\n      }}\n      resources {{\n        cpu = 50\n        memory = 32\n      }}\n    }}\n  }}\n}}\n"
            ),
        )
        .expect("job file");
        let t0 = Instant::now();
        let out = Command::new(BIN)
            .args(["job", "run", "-detach"])
            .arg(&file)
            .env("NOMAD_ADDR", format!("http://127.0.0.1:{port}"))
            .output()
            .expect("nomad job run");
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        loop {
            let (_, allocs) =
                http("GET", port, &format!("/v1/job/{id}/allocations"), "").expect("allocs");
            if allocs.contains("\"ClientStatus\":\"running\"") {
                break;
            }
            assert!(
                t0.elapsed() < Duration::from_secs(30),
                "alloc never ran: {allocs}"
            );
            std::thread::sleep(Duration::from_millis(1));
        }
        latencies.push(t0.elapsed().as_secs_f64() * 1000.0);
        http("DELETE", port, &format!("/v1/job/{id}?purge=true"), "");
    }
    println!("job_run_to_running_ms: {:.1}", median(latencies));
    drop(agent);
}
