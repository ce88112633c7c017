//! Against the real daemon: these run containers of `nomad-rs-busybox:latest` (built by
//! tests/images/busybox.sh). Without a daemon they skip with a reason, except under CI=true
//! where a missing daemon is a failure.

use std::time::{Duration, Instant};

use serde_json::json;

use super::DockerDriver;
use crate::drivers::testutil::{read_log, task_config};
use crate::drivers::{Driver, HealthState, TaskConfig, TaskEventSink};

pub(super) const IMAGE: &str = "nomad-rs-busybox:latest";

/// The plugin config of these tests' drivers: image GC off, so no test can remove the
/// shared `nomad-rs-busybox` image other tests and agents use.
pub(super) fn no_image_gc() -> crate::drivers::PluginConfig {
    [("gc".to_string(), json!([{"image": false}]))].into()
}

pub(super) async fn driver() -> Option<DockerDriver> {
    let d = DockerDriver::new(Some(&no_image_gc()));
    if d.fingerprint().await.health == HealthState::Healthy {
        return Some(d);
    }
    if std::env::var("CI").as_deref() == Ok("true") {
        panic!("CI=true but no Docker daemon answers on /var/run/docker.sock");
    }
    eprintln!("skipping: no Docker daemon answers on /var/run/docker.sock");
    None
}

pub(super) fn cfg(root: &std::path::Path, name: &str, config: serde_json::Value) -> TaskConfig {
    let mut c = task_config(root, name, config);
    // Unique per test: the container name is `<task>-<alloc_id>`.
    c.alloc_id = crate::api::generate_id();
    c
}

#[tokio::test]
async fn fingerprint_reports_version_and_runtimes() {
    let Some(d) = driver().await else { return };
    let fp = d.fingerprint().await;
    assert_eq!(fp.attributes["driver.docker"], "true");
    assert!(!fp.attributes["driver.docker.version"].is_empty());
    assert!(fp.attributes["driver.docker.runtimes"].contains("runc"));
}

#[tokio::test]
async fn absent_daemon_is_undetected_quickly() {
    let cfg = [(
        "endpoint".to_string(),
        json!("unix:///nonexistent/docker.sock"),
    )]
    .into();
    let d = DockerDriver::new(Some(&cfg));
    let t = Instant::now();
    let fp = d.fingerprint().await;
    assert_eq!(fp.health, HealthState::Undetected);
    assert_eq!(fp.health_description, "Failed to connect to docker daemon");
    assert!(t.elapsed() < Duration::from_secs(3));
}

#[tokio::test]
async fn runs_a_container_and_copies_its_logs() {
    let Some(d) = driver().await else { return };
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("web/local/in.txt"), "from-local").ok();
    let mut c = cfg(
        tmp.path(),
        "web",
        json!({"image": IMAGE, "command": "sh",
               "args": ["-c", "echo out-$GREETING; echo err >&2; cat /local/in.txt; exit 3"]}),
    );
    std::fs::write(c.task_dir.join("local/in.txt"), "from-local").unwrap();
    c.env.insert("GREETING".into(), "hello".into());
    let h = d.start(c).await.expect("starts");
    let r = tokio::time::timeout(Duration::from_secs(30), d.wait(&h))
        .await
        .expect("exits")
        .unwrap();
    assert_eq!(r.exit_code, 3);
    assert!(!r.oom_killed);
    let out = read_log(tmp.path(), "web.stdout.0");
    assert!(out.contains("out-hello"), "{out:?}");
    assert!(out.contains("from-local"), "{out:?}");
    assert_eq!(read_log(tmp.path(), "web.stderr.0"), "err\n");
    d.destroy(&h, true).await.unwrap();
}

#[tokio::test]
async fn stop_signals_then_kills_and_destroy_removes() {
    let Some(d) = driver().await else { return };
    let tmp = tempfile::tempdir().unwrap();
    let c = cfg(
        tmp.path(),
        "sleeper",
        json!({"image": IMAGE, "command": "sleep", "args": ["300"]}),
    );
    let h = d.start(c).await.expect("starts");
    let out = d
        .exec(
            &h,
            vec![
                "sh".into(),
                "-c".into(),
                "echo inside; echo oops >&2; exit 1".into(),
            ],
            Duration::from_secs(10),
        )
        .await
        .unwrap();
    assert_eq!(out.exit_code, 1);
    assert_eq!(out.stdout, b"inside\n");
    assert_eq!(out.stderr, b"oops\n");
    let late = d
        .exec(
            &h,
            vec!["sleep".into(), "5".into()],
            Duration::from_millis(300),
        )
        .await;
    assert_eq!(late, Err(crate::drivers::DriverError::DeadlineExceeded));
    let stats = d.stats(&h).await.unwrap();
    assert!(stats.memory_usage_bytes > 0);
    let t = Instant::now();
    // sleep as PID 1 ignores SIGTERM, so the kill after the timeout must land.
    d.stop(&h, "SIGTERM", Duration::from_secs(1)).await.unwrap();
    let r = tokio::time::timeout(Duration::from_secs(20), d.wait(&h))
        .await
        .expect("stopped")
        .unwrap();
    assert_eq!(r.exit_code, 137);
    assert!(t.elapsed() < Duration::from_secs(15));
    let id = h.driver_state["container_id"].as_str().unwrap().to_string();
    d.destroy(&h, true).await.unwrap();
    assert!(d.api.get(&format!("/containers/{id}/json")).await.is_err());
}

#[tokio::test]
async fn missing_image_fails_with_pull_error() {
    let Some(d) = driver().await else { return };
    let tmp = tempfile::tempdir().unwrap();
    let mut c = cfg(
        tmp.path(),
        "t",
        json!({"image": "nomad-rs-no-such-image:1"}),
    );
    let (sink, mut events) = TaskEventSink::channel();
    c.events = sink;
    let task_id = c.id.clone();
    let err = tokio::time::timeout(Duration::from_secs(60), d.start(c))
        .await
        .expect("no hang")
        .unwrap_err();
    assert!(
        err.to_string()
            .starts_with("Failed to pull `nomad-rs-no-such-image:1`"),
        "{err}"
    );
    // The pull was announced before the start failed, naming the task and the image.
    let ev = events.try_recv().expect("a Downloading image event");
    assert_eq!(ev.message, "Downloading image");
    assert_eq!(ev.task_id, task_id);
    assert_eq!(ev.annotations["image"], "nomad-rs-no-such-image:1");
}

#[tokio::test]
async fn force_pull_announces_the_pull_and_falls_back_to_the_local_image() {
    let Some(d) = driver().await else { return };
    let tmp = tempfile::tempdir().unwrap();
    let mut c = cfg(
        tmp.path(),
        "t",
        json!({"image": IMAGE, "force_pull": true, "command": "true"}),
    );
    let (sink, mut events) = TaskEventSink::channel();
    c.events = sink;
    let h = tokio::time::timeout(Duration::from_secs(60), d.start(c))
        .await
        .expect("no hang")
        .expect("runs the local copy when the pull fails");
    let ev = events.try_recv().expect("a Downloading image event");
    assert_eq!(ev.message, "Downloading image");
    assert_eq!(ev.annotations["image"], IMAGE);
    let r = tokio::time::timeout(Duration::from_secs(30), d.wait(&h))
        .await
        .expect("exits")
        .unwrap();
    assert_eq!(r.exit_code, 0);
    d.destroy(&h, true).await.unwrap();
    // An image found locally is used without a pull: no event.
    let c = cfg(tmp.path(), "u", json!({"image": IMAGE, "command": "true"}));
    let (sink, mut events) = TaskEventSink::channel();
    let h = d
        .start(TaskConfig { events: sink, ..c })
        .await
        .expect("starts");
    assert!(events.try_recv().is_err());
    d.wait(&h).await.unwrap();
    d.destroy(&h, true).await.unwrap();
}

#[tokio::test]
async fn oom_kill_is_reported() {
    let Some(d) = driver().await else { return };
    let tmp = tempfile::tempdir().unwrap();
    let mut c = cfg(
        tmp.path(),
        "hog",
        // tail buffers all of its input in memory, so an endless line outgrows the limit; as
        // the container's main process it is the one the kernel kills.
        json!({"image": IMAGE, "command": "sh", "args": ["-c", "exec tail /dev/zero"]}),
    );
    c.memory_mb = 16;
    let h = d.start(c).await.expect("starts");
    let r = tokio::time::timeout(Duration::from_secs(60), d.wait(&h))
        .await
        .expect("killed")
        .unwrap();
    assert!(r.oom_killed, "{r:?}");
    assert_eq!(r.err.as_deref(), Some("OOM Killed"));
    d.destroy(&h, true).await.unwrap();
}

#[tokio::test]
async fn recovers_a_running_container_from_its_handle() {
    let Some(d) = driver().await else { return };
    let tmp = tempfile::tempdir().unwrap();
    let c = cfg(
        tmp.path(),
        "r",
        json!({"image": IMAGE, "command": "sleep", "args": ["300"]}),
    );
    let h = d.start(c).await.expect("starts");
    let fresh = DockerDriver::new(Some(&no_image_gc()));
    fresh.recover(&h).await.expect("recovers");
    assert_eq!(
        fresh.inspect(&h).await.unwrap().state,
        crate::drivers::TaskRunState::Running
    );
    fresh.stop(&h, "", Duration::ZERO).await.unwrap();
    let r = tokio::time::timeout(Duration::from_secs(20), fresh.wait(&h))
        .await
        .expect("exits")
        .unwrap();
    assert_eq!(r.exit_code, 137);
    fresh.destroy(&h, true).await.unwrap();
    let _ = d.destroy(&h, true).await;
}

/// The container's log messages as the daemon keeps them: (stream, unix nanos, text).
async fn daemon_logs(d: &DockerDriver, id: &str) -> Vec<(u8, i64, String)> {
    let resp = d
        .api
        .send(
            hyper::Method::GET,
            &format!("/containers/{id}/logs?stdout=1&stderr=1&timestamps=1"),
            None,
        )
        .await
        .unwrap();
    let mut buf = super::api::read_body(resp).await.unwrap().to_vec();
    super::logs::demux(&mut buf)
        .into_iter()
        .map(|(stream, msg)| {
            let (ts, text) = super::logs::split_timestamp(&msg);
            (
                stream,
                ts.unwrap(),
                String::from_utf8_lossy(text).into_owned(),
            )
        })
        .collect()
}

#[tokio::test]
async fn recovered_container_logs_resume_where_the_last_copy_stopped() {
    let Some(d) = driver().await else { return };
    let tmp = tempfile::tempdir().unwrap();
    let mut c = cfg(
        tmp.path(),
        "talker",
        json!({"image": IMAGE, "command": "sh",
               "args": ["-c", "for i in 1 2 3 4 5 6; do echo line-$i; echo err-$i >&2; done; exec sleep 300"]}),
    );
    // The first agent's copy never ran; what it "wrote" before crashing is set up below.
    c.logs_disabled = true;
    let h = d.start(c).await.expect("starts");
    let id = h.driver_state["container_id"].as_str().unwrap().to_string();
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    let mut all = daemon_logs(&d, &id).await;
    while all.len() < 12 && std::time::Instant::now() < deadline {
        tokio::time::sleep(Duration::from_millis(50)).await;
        all = daemon_logs(&d, &id).await;
    }
    let complete = all.len() == 12;
    assert!(complete, "{all:?}");
    // The crashed copy had written everything up to and including line-3.
    let cut = all.iter().position(|m| m.2 == "line-3\n").unwrap() + 1;
    let logs = tmp.path().join("alloc/logs");
    let mut written = [String::new(), String::new(), String::new()];
    for (stream, _, text) in &all[..cut] {
        written[usize::from(*stream)].push_str(text);
    }
    std::fs::write(logs.join("talker.stdout.0"), &written[1]).unwrap();
    std::fs::write(logs.join("talker.stderr.0"), &written[2]).unwrap();
    let last = all[cut - 1].1;
    let at_last = all[..cut].iter().filter(|m| m.1 == last).count();
    std::fs::write(
        logs.join(".talker.docker.logpos"),
        format!("{id} {last:020} {at_last:010}\n"),
    )
    .unwrap();

    let mut recovered = h.clone();
    recovered.config.logs_disabled = false;
    let fresh = DockerDriver::new(Some(&no_image_gc()));
    fresh.recover(&recovered).await.expect("recovers");
    let copied = crate::drivers::testutil::wait_until(Duration::from_secs(20), || async {
        read_log(tmp.path(), "talker.stdout.0").contains("line-6")
            && read_log(tmp.path(), "talker.stderr.0").contains("err-6")
    })
    .await;
    assert!(copied, "{}", read_log(tmp.path(), "talker.stdout.0"));
    let want = |p: &str| (1..=6).map(|i| format!("{p}-{i}\n")).collect::<String>();
    assert_eq!(read_log(tmp.path(), "talker.stdout.0"), want("line"));
    assert_eq!(read_log(tmp.path(), "talker.stderr.0"), want("err"));
    let status = fresh.inspect(&recovered).await.unwrap();
    assert_eq!(status.state, crate::drivers::TaskRunState::Running);
    assert!(status.started_at > 0 && status.started_at <= crate::api::now_nanos());

    fresh.stop(&recovered, "", Duration::ZERO).await.unwrap();
    fresh.destroy(&recovered, true).await.unwrap();
    let _ = d.destroy(&h, true).await;
}

#[tokio::test]
async fn tmpfs_mount_has_the_size_and_mode_it_was_given() {
    let Some(d) = driver().await else { return };
    let tmp = tempfile::tempdir().unwrap();
    let c = cfg(
        tmp.path(),
        "scratch",
        json!({"image": IMAGE, "command": "sh",
               "args": ["-c", "grep ' /scratch ' /proc/mounts; df -k /scratch | tail -n 1"],
               "mount": [{"type": "tmpfs", "target": "/scratch",
                          // 8 MiB; mode 1016 is 01770.
                          "tmpfs_options": [{"size": 8_388_608, "mode": 1016}]}]}),
    );
    let h = d.start(c).await.expect("starts");
    let r = tokio::time::timeout(Duration::from_secs(30), d.wait(&h))
        .await
        .expect("exits")
        .unwrap();
    d.destroy(&h, true).await.unwrap();
    let out = read_log(tmp.path(), "scratch.stdout.0");
    assert_eq!(r.exit_code, 0, "{out}");
    let mount = out.lines().next().unwrap_or_default();
    assert!(mount.starts_with("tmpfs /scratch tmpfs "), "{out}");
    assert!(mount.contains("size=8192k"), "{out}");
    assert!(mount.contains("mode=1770"), "{out}");
    // df: Filesystem 1K-blocks Used Available Use% Mounted-on
    let df: Vec<&str> = out
        .lines()
        .nth(1)
        .unwrap_or_default()
        .split_whitespace()
        .collect();
    assert_eq!(df.get(1), Some(&"8192"), "{out}");
}

#[tokio::test]
async fn volume_mount_options_reach_the_daemon() {
    if driver().await.is_none() {
        return;
    }
    let mut settings = no_image_gc();
    settings.insert("volumes".to_string(), json!([{"enabled": true}]));
    let d = DockerDriver::new(Some(&settings));
    let tmp = tempfile::tempdir().unwrap();
    let volume = format!("nomad-rs-vol-{}", &crate::api::generate_id()[..8]);
    let c = cfg(
        tmp.path(),
        "vol",
        json!({"image": IMAGE, "command": "sh", "args": ["-c", "grep ' /vol ' /proc/mounts"],
               "mount": [{"type": "volume", "source": volume, "target": "/vol",
                          "volume_options": [{"no_copy": true, "labels": [{"team": "core"}],
                              "driver_config": [{"name": "local",
                                  "options": [{"type": "tmpfs", "device": "tmpfs", "o": "size=4m"}]}]}]}]}),
    );
    let h = d.start(c).await.expect("starts");
    let r = tokio::time::timeout(Duration::from_secs(30), d.wait(&h))
        .await
        .expect("exits")
        .unwrap();
    d.destroy(&h, true).await.unwrap();
    let info = d.api.get(&format!("/volumes/{volume}")).await;
    let _ = d
        .api
        .call(
            hyper::Method::DELETE,
            &format!("/volumes/{volume}"),
            None,
            super::api::API_TIMEOUT,
        )
        .await;
    let out = read_log(tmp.path(), "vol.stdout.0");
    assert_eq!(r.exit_code, 0, "{out}");
    assert!(out.starts_with("tmpfs /vol tmpfs "), "{out}");
    assert!(out.contains("size=4096k"), "{out}");
    let info = info.expect("volume created by the mount");
    assert_eq!(info["Labels"]["team"], "core", "{info}");
    assert_eq!(info["Options"]["o"], "size=4m", "{info}");
}

/// The interface names `ip -o link` lists (`2: eth0@if9: <...` gives `eth0`), and the
/// network namespace `readlink /proc/self/ns/net` printed before them.
fn net_view(out: &str) -> (String, std::collections::BTreeSet<String>) {
    let mut lines = out.lines();
    let ns = lines.next().unwrap_or_default().to_string();
    let names = lines
        .filter_map(|l| l.split(": ").nth(1))
        .map(|n| n.split('@').next().unwrap_or(n).to_string())
        .collect();
    (ns, names)
}

fn host_interfaces() -> std::collections::BTreeSet<String> {
    std::fs::read_dir("/sys/class/net")
        .unwrap()
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .collect()
}

async fn run_net_probe(
    d: &DockerDriver,
    root: &std::path::Path,
    name: &str,
    network_mode: Option<&str>,
) -> String {
    let mut config = json!({"image": IMAGE, "command": "sh",
                            "args": ["-c", "readlink /proc/self/ns/net; ip -o link"]});
    if let Some(mode) = network_mode {
        config["network_mode"] = json!(mode);
    }
    let h = d.start(cfg(root, name, config)).await.expect("starts");
    let r = tokio::time::timeout(Duration::from_secs(30), d.wait(&h))
        .await
        .expect("exits")
        .unwrap();
    d.destroy(&h, true).await.unwrap();
    let out = read_log(root, &format!("{name}.stdout.0"));
    assert_eq!(r.exit_code, 0, "{out}");
    out
}

#[tokio::test]
async fn host_network_mode_shares_the_hosts_interfaces() {
    let Some(d) = driver().await else { return };
    let tmp = tempfile::tempdir().unwrap();
    let host_ns = std::fs::read_link("/proc/self/ns/net")
        .unwrap()
        .display()
        .to_string();
    let before = host_interfaces();
    let (ns, seen) = net_view(&run_net_probe(&d, tmp.path(), "hostnet", Some("host")).await);
    // Other tests' containers add and remove veth interfaces meanwhile: only the ones
    // present throughout must be seen.
    let stable: std::collections::BTreeSet<String> =
        before.intersection(&host_interfaces()).cloned().collect();
    assert_eq!(
        ns, host_ns,
        "the container runs in the host's network namespace"
    );
    assert!(stable.contains("lo") && stable.len() >= 2, "{stable:?}");
    assert!(
        stable.is_subset(&seen),
        "host {stable:?}, container {seen:?}"
    );

    // The default mode is a namespace of the container's own, which never shows the
    // daemon's bridge.
    let (ns, seen) = net_view(&run_net_probe(&d, tmp.path(), "bridged", None).await);
    assert_ne!(ns, host_ns);
    assert!(seen.contains("lo"), "{seen:?}");
    if stable.contains("docker0") {
        assert!(!seen.contains("docker0"), "{seen:?}");
    }
}
