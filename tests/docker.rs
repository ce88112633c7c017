//! The docker driver through the real agent and dockerd: a busybox container runs, its
//! output reaches `nomad alloc logs`, and a missing image is announced ("Downloading image")
//! and then a "Driver Failure". Skips only
//! when no daemon answers (and fails instead under CI=true).

use std::time::Duration;

use crate::harness::*;

pub fn docker_ready() -> bool {
    let ok = std::process::Command::new("docker")
        .args(["image", "inspect", "nomad-rs-busybox:latest"])
        .output()
        .map(|o| o.status.success())
        .unwrap_or(false);
    if !ok {
        if std::env::var("CI").as_deref() == Ok("true") {
            panic!("CI=true but dockerd or the nomad-rs-busybox image is missing");
        }
        eprintln!(
            "skipping: no Docker daemon with nomad-rs-busybox:latest (tests/images/busybox.sh)"
        );
    }
    ok
}

pub fn docker(args: &[&str]) -> std::process::Output {
    std::process::Command::new("docker")
        .args(args)
        .output()
        .expect("run docker")
}

/// Removes the named container when dropped, so a test that fails leaves nothing running.
pub struct ContainerGuard(pub String);

impl Drop for ContainerGuard {
    fn drop(&mut self) {
        let _ = docker(&["rm", "-f", &self.0]);
    }
}

#[test]
fn docker_job_runs_busybox_and_alloc_logs_show_output() {
    if !docker_ready() {
        return;
    }
    let agent = Agent::dev();
    let node = agent.get("/v1/nodes");
    let node_id = node[0]["ID"].as_str().expect("node id").to_string();
    let n = wait_until(Duration::from_secs(10), "docker fingerprinted", || {
        let n = agent.get(&format!("/v1/node/{node_id}"));
        (n["Attributes"]["driver.docker"] == "1").then_some(n)
    });
    assert!(n["Attributes"]["driver.docker.version"].is_string());
    assert_eq!(n["Drivers"]["docker"]["Healthy"], true);

    let job = agent.path("docker.nomad.hcl");
    std::fs::write(
        &job,
        r#"job "dockerjob" {
  group "web" {
    network {
      port "http" { to = 8080 }
    }
    task "web" {
      driver = "docker"
      config {
        image   = "nomad-rs-busybox:latest"
        command = "sh"
        args    = ["-c", "echo hello-from-$NOMAD_TASK_NAME; ls /alloc /local /secrets >/dev/null && echo dirs-ok; exec httpd -f -p 8080"]
        ports   = ["http"]
        labels  { team = "core" }
      }
      resources {
        cpu    = 100
        memory = 64
      }
    }
  }
}
"#,
    )
    .expect("write job");
    let out = agent.nomad(&["job", "run", "-detach", job.to_str().expect("path")]);
    assert_exit(&out, 0);
    let alloc = agent.wait_alloc("dockerjob", "docker alloc running", |a| {
        a["ClientStatus"] == "running"
    });
    let alloc_id = alloc["ID"].as_str().expect("alloc id").to_string();
    let logs = wait_until(Duration::from_secs(20), "container output in logs", || {
        let out = agent.nomad(&["alloc", "logs", &alloc_id, "web"]);
        let text = stdout(&out);
        text.contains("dirs-ok").then_some(text)
    });
    assert!(logs.contains("hello-from-web"), "{logs}");

    // Time from the client receiving the alloc to the task running, from the task events.
    let full = agent.get(&format!("/v1/allocation/{alloc_id}"));
    let events = full["TaskStates"]["web"]["Events"]
        .as_array()
        .cloned()
        .unwrap_or_default();
    let at = |ty: &str| {
        events
            .iter()
            .find(|e| e["Type"] == ty)
            .and_then(|e| e["Time"].as_i64())
    };
    if let (Some(r), Some(s)) = (at("Received"), at("Started")) {
        println!(
            "docker alloc received -> running: {} ms",
            (s - r) / 1_000_000
        );
    }

    // The published port answers on the host.
    let host_port = full["AllocatedResources"]["Shared"]["Ports"][0]["Value"]
        .as_i64()
        .expect("allocated port");
    let host_ip = full["AllocatedResources"]["Shared"]["Ports"][0]["HostIP"]
        .as_str()
        .unwrap_or("127.0.0.1")
        .to_string();
    wait_until(Duration::from_secs(10), "published port answers", || {
        std::net::TcpStream::connect((host_ip.as_str(), host_port as u16)).ok()
    });

    let out = agent.nomad(&["job", "stop", "dockerjob"]);
    assert_exit(&out, 0);
    agent.wait_alloc("dockerjob", "docker alloc stopped", |a| {
        a["ID"] == alloc_id.as_str() && a["ClientStatus"] == "complete"
    });
    // The container is removed once the task is destroyed.
    let name = format!("web-{alloc_id}");
    wait_until(Duration::from_secs(20), "container removed", || {
        let o = std::process::Command::new("docker")
            .args(["container", "inspect", &name])
            .output()
            .ok()?;
        (!o.status.success()).then_some(())
    });
}

#[test]
fn docker_missing_image_is_a_driver_failure() {
    if !docker_ready() {
        return;
    }
    let agent = Agent::dev();
    let job = agent.path("noimage.nomad.hcl");
    std::fs::write(
        &job,
        r#"job "noimage" {
  type = "batch"
  group "g" {
    restart { attempts = 0 }
    reschedule {
      attempts  = 0
      unlimited = false
    }
    task "t" {
      driver = "docker"
      config { image = "nomad-rs-does-not-exist:1" }
    }
  }
}
"#,
    )
    .expect("write job");
    assert_exit(
        &agent.nomad(&["job", "run", "-detach", job.to_str().expect("path")]),
        0,
    );
    let alloc = agent.wait_alloc("noimage", "alloc failed", |a| a["ClientStatus"] == "failed");
    let failure = task_event(&alloc, "t", "Driver Failure");
    let msg = failure["DisplayMessage"].as_str().unwrap_or_default();
    assert!(
        msg.starts_with("Failed to pull `nomad-rs-does-not-exist:1`"),
        "{msg}"
    );
    // The pull was announced as Nomad's docker driver does, before the failure.
    let types = task_event_types(&alloc, "t");
    let downloading = types.iter().position(|t| t == "Driver");
    let failed = types.iter().position(|t| t == "Driver Failure");
    assert!(
        matches!((downloading, failed), (Some(d), Some(f)) if d < f),
        "{types:?}"
    );
    let driver = task_event(&alloc, "t", "Driver");
    assert_eq!(driver["DriverMessage"], "Downloading image");
    assert_eq!(driver["DisplayMessage"], "Downloading image");
    assert_eq!(driver["Details"]["image"], "nomad-rs-does-not-exist:1");
    let id = alloc["ID"].as_str().expect("alloc id");
    let out = agent.nomad(&["alloc", "status", id]);
    assert_exit(&out, 0);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.lines()
            .any(|l| l.contains("  Driver  ") && l.trim_end().ends_with("Downloading image")),
        "{text}"
    );
}

/// A copy of the shared test image with an ID of its own (a bare `docker tag` would share
/// the ID, and image GC removes by ID, every tag at once); removed by name when dropped.
pub struct PrivateImage(pub String);

impl PrivateImage {
    pub fn new(test: &str) -> PrivateImage {
        let name = format!("nomad-rs-{test}-{}:1", std::process::id());
        let created = docker(&["create", "nomad-rs-busybox:latest"]);
        assert!(created.status.success(), "{created:?}");
        let cid = String::from_utf8_lossy(&created.stdout).trim().to_string();
        let label = format!("LABEL nomad-rs-test={name}");
        let committed = docker(&["commit", "--change", &label, &cid, &name]);
        docker(&["rm", "-f", &cid]);
        assert!(committed.status.success(), "{committed:?}");
        PrivateImage(name)
    }

    pub fn exists(&self) -> bool {
        docker(&["image", "inspect", &self.0]).status.success()
    }
}

impl Drop for PrivateImage {
    fn drop(&mut self) {
        docker(&["image", "rm", "-f", &self.0]);
    }
}

#[test]
fn docker_image_gc_removes_the_image_of_a_stopped_job_after_image_delay() {
    if !docker_ready() {
        return;
    }
    let image = PrivateImage::new("gc");
    let cfg_dir = tempfile::tempdir().expect("cfg dir");
    let cfg = cfg_dir.path().join("docker.hcl");
    std::fs::write(
        &cfg,
        // Test agents run with image GC off (see the harness): this one turns it on.
        "plugin \"docker\" {\n  config {\n    gc {\n      image       = true\n      image_delay = \"1s\"\n    }\n  }\n}\n",
    )
    .expect("write config");
    let agent = Agent::start(AgentOpts {
        flags: vec![format!("-config={}", cfg.display())],
        ..Default::default()
    });
    let job = agent.path("gc.nomad.hcl");
    std::fs::write(
        &job,
        format!(
            r#"job "gc" {{
  group "g" {{
    task "t" {{
      driver = "docker"
      config {{
        image   = "{}"
        command = "sleep"
        args    = ["300"]
      }}
      resources {{
        cpu    = 20
        memory = 32
      }}
    }}
  }}
}}
"#,
            image.0
        ),
    )
    .expect("write job");
    assert_exit(
        &agent.nomad(&["job", "run", "-detach", job.to_str().expect("path")]),
        0,
    );
    let alloc = agent.wait_alloc("gc", "alloc running", |a| a["ClientStatus"] == "running");
    assert!(image.exists());
    assert_exit(&agent.nomad(&["job", "stop", "gc"]), 0);
    agent.wait_alloc("gc", "alloc stopped", |a| {
        a["ID"] == alloc["ID"] && a["ClientStatus"] == "complete"
    });
    wait_until(Duration::from_secs(30), "image removed", || {
        (!image.exists()).then_some(())
    });
    assert!(
        docker(&["image", "inspect", "nomad-rs-busybox:latest"])
            .status
            .success(),
        "the shared image stays"
    );
}

#[test]
fn docker_unknown_config_key_is_a_driver_failure_naming_it() {
    if !docker_ready() {
        return;
    }
    let agent = Agent::dev();
    let job = agent.path("bogus.nomad.hcl");
    std::fs::write(
        &job,
        r#"job "bogus" {
  type = "batch"
  group "g" {
    restart { attempts = 0 }
    reschedule {
      attempts  = 0
      unlimited = false
    }
    task "t" {
      driver = "docker"
      config {
        image = "nomad-rs-busybox:latest"
        bogus = 1
      }
    }
  }
}
"#,
    )
    .expect("write job");
    assert_exit(
        &agent.nomad(&["job", "run", "-detach", job.to_str().expect("path")]),
        0,
    );
    let alloc = agent.wait_alloc("bogus", "alloc failed", |a| a["ClientStatus"] == "failed");
    let failure = task_event(&alloc, "t", "Driver Failure");
    assert_eq!(
        failure["DisplayMessage"],
        "failed to parse config: Invalid label: No argument or block type is named \"bogus\"."
    );
    // Nothing was created for it.
    let alloc_id = alloc["ID"].as_str().expect("alloc id");
    assert!(!docker(&["container", "inspect", &format!("t-{alloc_id}")])
        .status
        .success());
}
