//! The integration-test harness: the real `nomad` binary on free ports with a temp data dir,
//! killed (with its tasks) on drop; a CLI runner; a small HTTP helper; `wait_until`.

use std::net::TcpListener;
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::time::{Duration, Instant};

use serde_json::Value;

pub const BIN: &str = env!("CARGO_BIN_EXE_nomad");

/// Poll `cond` until it returns Some or `timeout` passes; panics with `what` on timeout.
pub fn wait_until<T>(timeout: Duration, what: &str, mut cond: impl FnMut() -> Option<T>) -> T {
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(v) = cond() {
            return v;
        }
        if Instant::now() > deadline {
            panic!("timed out after {timeout:?} waiting for {what}");
        }
        std::thread::sleep(Duration::from_millis(25));
    }
}

/// A port nothing listens on right now.
pub fn free_port() -> u16 {
    TcpListener::bind("127.0.0.1:0")
        .and_then(|l| l.local_addr())
        .map(|a| a.port())
        .expect("free port")
}

/// The docker plugin block every test agent gets (see `Agent::start`).
pub const NO_DOCKER_IMAGE_GC: &str =
    "plugin \"docker\" {\n  config {\n    gc {\n      image = false\n    }\n  }\n}\n";

pub struct Agent {
    child: Option<Child>,
    pub dir: tempfile::TempDir,
    pub http_port: u16,
    pub rpc_port: u16,
    args: Vec<String>,
}

pub struct AgentOpts {
    /// `-dev` (in-memory, server+client, raw_exec and mock enabled).
    pub dev: bool,
    /// Persist state in `<dir>/data` (the durability test).
    pub data_dir: bool,
    /// More `nomad agent` flags, after `-config`.
    pub flags: Vec<String>,
}

impl Default for AgentOpts {
    fn default() -> Self {
        AgentOpts {
            dev: true,
            data_dir: false,
            flags: Vec::new(),
        }
    }
}

impl Agent {
    pub fn dev() -> Agent {
        Agent::start(AgentOpts::default())
    }

    pub fn start(opts: AgentOpts) -> Agent {
        let dir = tempfile::tempdir().expect("temp dir");
        let (http_port, rpc_port, serf_port) = (free_port(), free_port(), free_port());
        let mut config = format!(
            "bind_addr = \"127.0.0.1\"\nports {{\n  http = {http_port}\n  rpc = {rpc_port}\n  serf = {serf_port}\n}}\n"
        );
        // Image GC off: no test agent may remove the shared `nomad-rs-busybox` image that
        // other tests (and agents running beside this one) use. A test of image GC turns it
        // back on in a config file of its own, which is merged over this one.
        config.push_str(NO_DOCKER_IMAGE_GC);
        if opts.data_dir {
            config.push_str(&format!(
                "data_dir = \"{}\"\nserver {{\n  enabled = true\n  bootstrap_expect = 1\n}}\nclient {{\n  enabled = true\n}}\nplugin \"raw_exec\" {{\n  config {{\n    enabled = true\n  }}\n}}\n",
                dir.path().join("data").display()
            ));
        }
        let config_path = dir.path().join("agent.hcl");
        std::fs::write(&config_path, config).expect("write agent config");
        let mut args = vec!["agent".to_string()];
        if opts.dev {
            args.push("-dev".to_string());
        }
        args.push(format!("-config={}", config_path.display()));
        args.extend(opts.flags.iter().cloned());
        let mut agent = Agent {
            child: None,
            dir,
            http_port,
            rpc_port,
            args,
        };
        agent.spawn();
        agent
    }

    fn spawn(&mut self) {
        use std::os::unix::process::CommandExt;
        let log = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(self.dir.path().join("agent.log"))
            .expect("agent log");
        let child = Command::new(BIN)
            .args(&self.args)
            .current_dir(self.dir.path())
            .stdin(Stdio::null())
            .stdout(log.try_clone().expect("log fd"))
            .stderr(log)
            // Its own process group, so drop can kill it and anything it leaked.
            .process_group(0)
            .spawn()
            .expect("spawn nomad agent");
        self.child = Some(child);
        let addr = self.addr();
        wait_until(Duration::from_secs(20), "agent health", || {
            self.check_alive();
            http_get(&format!("{addr}/v1/agent/health"))
                .ok()
                .filter(|(code, _)| *code == 200)
        });
        // The client registered and is ready to run work.
        wait_until(Duration::from_secs(20), "node ready", || {
            let (_, body) = http_get(&format!("{addr}/v1/nodes")).ok()?;
            let nodes: Value = serde_json::from_str(&body).ok()?;
            nodes
                .as_array()?
                .iter()
                .any(|n| n["Status"] == "ready")
                .then_some(())
        });
    }

    fn check_alive(&mut self) {
        if let Some(child) = self.child.as_mut() {
            if let Ok(Some(status)) = child.try_wait() {
                panic!("agent exited early with {status}; log:\n{}", self.log());
            }
        }
    }

    pub fn addr(&self) -> String {
        format!("http://127.0.0.1:{}", self.http_port)
    }

    pub fn log(&self) -> String {
        std::fs::read_to_string(self.dir.path().join("agent.log")).unwrap_or_default()
    }

    /// `kill -9` the agent alone (its tasks keep running, as after a crash).
    pub fn kill9(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }

    /// SIGTERM the agent and wait for it to exit (at most 20 s).
    pub fn terminate(&mut self) -> std::process::ExitStatus {
        let mut child = self.child.take().expect("agent running");
        unsafe {
            libc::kill(child.id() as i32, libc::SIGTERM);
        }
        wait_until(Duration::from_secs(20), "agent exit after SIGTERM", || {
            child.try_wait().ok().flatten()
        })
    }

    /// Start the agent again with the same config and data dir.
    pub fn restart(&mut self) {
        self.kill9();
        self.spawn();
    }

    /// Run the CLI against this agent from `cwd` (or the agent's dir).
    pub fn nomad(&self, args: &[&str]) -> Output {
        self.nomad_in(self.dir.path(), args)
    }

    pub fn nomad_in(&self, cwd: &Path, args: &[&str]) -> Output {
        Command::new(BIN)
            .args(args)
            .current_dir(cwd)
            .env("NOMAD_ADDR", self.addr())
            .env_remove("NOMAD_NAMESPACE")
            .env_remove("NOMAD_REGION")
            .env_remove("NOMAD_TOKEN")
            .stdin(Stdio::null())
            .output()
            .expect("run nomad CLI")
    }

    pub fn get(&self, path: &str) -> Value {
        let (code, body) = http_get(&format!("{}{path}", self.addr())).expect("GET");
        assert_eq!(code, 200, "GET {path}: {body}");
        serde_json::from_str(&body).unwrap_or_else(|e| panic!("GET {path}: bad JSON {e}: {body}"))
    }

    /// Allocations of a job, waiting until `pred` holds for one of them; returns it.
    pub fn wait_alloc(&self, job: &str, what: &str, pred: impl Fn(&Value) -> bool) -> Value {
        wait_until(Duration::from_secs(30), what, || {
            let allocs = self.get(&format!("/v1/job/{job}/allocations"));
            allocs.as_array()?.iter().find(|a| pred(a)).cloned()
        })
    }

    /// Writes `hcl` to `file` in the agent's work dir and registers it with
    /// `nomad job run -detach`, which must exit 0.
    pub fn run_detached(&self, file: &str, hcl: impl AsRef<[u8]>) {
        let path = self.path(file);
        std::fs::write(&path, hcl).expect("write job");
        let path = path.to_str().expect("path");
        assert_exit(&self.nomad(&["job", "run", "-detach", path]), 0);
    }

    pub fn path(&self, rel: &str) -> PathBuf {
        self.dir.path().join(rel)
    }
}

impl Drop for Agent {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            // SIGTERM first: a dev agent stops its tasks. Then make sure nothing is left.
            let pgid = child.id() as i32;
            unsafe {
                libc::kill(child.id() as i32, libc::SIGTERM);
            }
            let deadline = Instant::now() + Duration::from_secs(10);
            while Instant::now() < deadline {
                if let Ok(Some(_)) = child.try_wait() {
                    break;
                }
                std::thread::sleep(Duration::from_millis(20));
            }
            unsafe {
                libc::kill(-pgid, libc::SIGKILL);
            }
            let _ = child.kill();
            let _ = child.wait();
        }
        kill_processes_under(self.dir.path());
    }
}

/// Tasks orphaned by a `kill -9` of the agent live in their own process groups; find them by
/// their working directory (inside this agent's dir) and kill them.
fn kill_processes_under(dir: &Path) {
    let Ok(entries) = std::fs::read_dir("/proc") else {
        return;
    };
    for entry in entries.flatten() {
        let Some(pid) = entry
            .file_name()
            .to_str()
            .and_then(|s| s.parse::<i32>().ok())
        else {
            continue;
        };
        if let Ok(cwd) = std::fs::read_link(entry.path().join("cwd")) {
            if cwd.starts_with(dir) {
                unsafe {
                    libc::kill(pid, libc::SIGKILL);
                }
            }
        }
    }
}

/// A minimal blocking HTTP/1.1 client (no async runtime in tests): (status, body).
/// A service job `name` of one group "web" (`count` allocs; the line is left out for 1) with
/// one `mock_driver` task "server" that runs for 1,000 s on 20 MHz and 20 MB.
pub fn mock_job(name: &str, count: u32) -> String {
    let count = if count == 1 {
        String::new()
    } else {
        format!("    count = {count}\n")
    };
    format!(
        r#"job "{name}" {{
  group "web" {{
{count}    task "server" {{
      driver = "mock_driver"
      config {{
        run_for = "1000s"
      }}
      resources {{
        cpu    = 20
        memory = 20
      }}
    }}
  }}
}}
"#
    )
}

pub fn http(method: &str, url: &str, body: Option<&str>) -> std::io::Result<(u16, String)> {
    http_with_headers(method, url, body).map(|(code, _, body)| (code, body))
}

/// Response headers, names lower-cased.
pub type Headers = Vec<(String, String)>;

/// As [`http`], with the response headers.
pub fn http_with_headers(
    method: &str,
    url: &str,
    body: Option<&str>,
) -> std::io::Result<(u16, Headers, String)> {
    use std::io::{Read, Write};
    let rest = url.strip_prefix("http://").unwrap_or(url);
    let (host, path) = rest
        .split_once('/')
        .map(|(h, p)| (h, format!("/{p}")))
        .unwrap_or((rest, "/".to_string()));
    let mut stream = std::net::TcpStream::connect(host)?;
    stream.set_read_timeout(Some(Duration::from_secs(30)))?;
    let body = body.unwrap_or("");
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: {host}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    )?;
    let mut raw = Vec::new();
    stream.read_to_end(&mut raw)?;
    let text = String::from_utf8_lossy(&raw).to_string();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let code = head
        .split_whitespace()
        .nth(1)
        .and_then(|c| c.parse().ok())
        .unwrap_or(0);
    let body = if head
        .to_ascii_lowercase()
        .contains("transfer-encoding: chunked")
    {
        dechunk(body)
    } else {
        body.to_string()
    };
    let headers = head
        .lines()
        .skip(1)
        .filter_map(|l| l.split_once(':'))
        .map(|(k, v)| (k.trim().to_ascii_lowercase(), v.trim().to_string()))
        .collect();
    Ok((code, headers, body))
}

fn dechunk(mut s: &str) -> String {
    let mut out = String::new();
    while let Some((size, rest)) = s.split_once("\r\n") {
        let Ok(n) = usize::from_str_radix(size.trim(), 16) else {
            break;
        };
        if n == 0 || rest.len() < n {
            break;
        }
        out.push_str(&rest[..n]);
        s = rest[n..].trim_start_matches("\r\n");
    }
    out
}

pub fn http_get(url: &str) -> std::io::Result<(u16, String)> {
    http("GET", url, None)
}

pub fn stdout(o: &Output) -> String {
    String::from_utf8_lossy(&o.stdout).to_string()
}

pub fn stderr(o: &Output) -> String {
    String::from_utf8_lossy(&o.stderr).to_string()
}

/// Assert the CLI exited with `code`, showing its output otherwise.
pub fn assert_exit(o: &Output, code: i32) {
    assert_eq!(
        o.status.code(),
        Some(code),
        "exit code; stdout:\n{}\nstderr:\n{}",
        stdout(o),
        stderr(o)
    );
}

/// The types of a task's events in an alloc as the API returns it, oldest first.
pub fn task_event_types(alloc: &Value, task: &str) -> Vec<String> {
    alloc["TaskStates"][task]["Events"]
        .as_array()
        .map(|e| {
            e.iter()
                .map(|e| e["Type"].as_str().unwrap_or_default().to_string())
                .collect()
        })
        .unwrap_or_default()
}

/// The first event of `kind` a task had, or a panic listing the events it had.
pub fn task_event(alloc: &Value, task: &str, kind: &str) -> Value {
    let events = &alloc["TaskStates"][task]["Events"];
    events
        .as_array()
        .and_then(|e| e.iter().find(|e| e["Type"] == kind))
        .cloned()
        .unwrap_or_else(|| panic!("{task} has no {kind:?} event: {events}"))
}
