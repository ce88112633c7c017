//! Real isolation on this host; each test skips (saying why) unless run as root with cgroups.

use std::path::Path;
use std::time::Duration;

use serde_json::json;

use super::*;
use crate::drivers::cgroups::tests::TestParent;
use crate::drivers::testutil::{read_log, task_config};

/// A driver whose cgroups live under a parent private to this test.
fn driver() -> Option<(ExecDriver, TestParent)> {
    let parent = TestParent::new()?;
    let cfg: PluginConfig = [("cgroup_parent".to_string(), json!(parent.root.parent))].into();
    Some((ExecDriver::new(Some(&cfg)), parent))
}

fn sh_task(root: &Path, name: &str, script: &str) -> TaskConfig {
    let mut cfg = task_config(
        root,
        name,
        json!({ "command": "/bin/sh", "args": ["-c", script] }),
    );
    // Unique per test: the cgroup scope is named after alloc and task.
    cfg.alloc_id = crate::api::generate_id();
    cfg
}

async fn run_to_exit(d: &ExecDriver, cfg: TaskConfig) -> ExitResult {
    let handle = d.start(cfg).await.unwrap();
    let res = tokio::time::timeout(Duration::from_secs(20), d.wait(&handle))
        .await
        .expect("task did not exit")
        .unwrap();
    d.destroy(&handle, false).await.unwrap();
    res
}

#[tokio::test]
async fn task_runs_as_nobody_as_pid_1_inside_the_chroot() {
    let Some((d, _parent)) = driver() else { return };
    let tmp = tempfile::tempdir().unwrap();
    std::fs::write(tmp.path().join("host-marker"), "x").unwrap();
    let marker = tmp.path().join("host-marker");
    let script = format!(
        "echo pid=$$; id -un; test -e /root && echo root-visible; \
         test -e {} && echo host-visible; ls /proc | grep -c '^[0-9]' ; \
         test -d /alloc/logs && test -d /local && echo s > /secrets/key && test -r /secrets/key && echo dirs-ok; \
         echo $NOMAD_TASK_DIR; touch /bin/x 2>/dev/null || echo bin-ro",
        marker.display()
    );
    let mut cfg = sh_task(tmp.path(), "iso", &script);
    cfg.env
        .insert("NOMAD_TASK_DIR".into(), "/host/path/local".into());
    let r = run_to_exit(&d, cfg).await;
    let out = read_log(tmp.path(), "iso.stdout.0");
    assert!(
        r.successful(),
        "{r:?} {out} {}",
        read_log(tmp.path(), "iso.stderr.0")
    );
    let lines: Vec<&str> = out.lines().collect();
    assert_eq!(lines[0], "pid=1", "{out}");
    assert_eq!(lines[1], "nobody", "{out}");
    assert!(
        !out.contains("root-visible") && !out.contains("host-visible"),
        "{out}"
    );
    // Only the task's own processes (sh and its pipeline) are visible in /proc.
    let procs: u32 = lines[2].trim().parse().unwrap();
    assert!(procs <= 4, "{out}");
    assert_eq!(&lines[3..], ["dirs-ok", "/local", "bin-ro"], "{out}");
}

#[tokio::test]
async fn cgroup_gets_limits_and_stats_and_is_removed_on_destroy() {
    let Some((d, _parent)) = driver() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let mut cfg = sh_task(tmp.path(), "lim", "exec sleep 60");
    cfg.cpu_shares = 300;
    cfg.memory_mb = 64;
    let handle = d.start(cfg).await.unwrap();
    let cg = d.cgroup(&handle).unwrap();
    assert!(cg.exists());
    let limits = cg
        .paths()
        .iter()
        .map(|p| {
            [
                "cpu.shares",
                "memory.limit_in_bytes",
                "cpu.weight",
                "memory.max",
            ]
            .iter()
            .filter_map(|f| std::fs::read_to_string(p.join(f)).ok())
            .map(|s| s.trim().to_string())
            .collect::<Vec<_>>()
        })
        .collect::<Vec<_>>()
        .concat();
    match cg.mode() {
        crate::drivers::cgroups::CgroupMode::V1 => {
            assert!(limits.contains(&"300".to_string()), "{limits:?}");
            assert!(limits.contains(&"67108864".to_string()), "{limits:?}");
        }
        crate::drivers::cgroups::CgroupMode::V2 => {
            assert!(limits.contains(&"67108864".to_string()), "{limits:?}");
        }
    }
    assert_eq!(cg.pids().unwrap().len(), 1);
    let stats = d.cgroup_stats(&handle).unwrap();
    assert!(stats.memory_usage_bytes > 0, "{stats:?}");
    let usage = d.stats(&handle).await.unwrap();
    assert!(usage.resource_usage.memory_stats.usage > 0, "{usage:?}");
    assert!(
        usage.pids.as_ref().is_some_and(|p| p.len() == 1),
        "{usage:?}"
    );

    d.stop(&handle, "SIGKILL", Duration::from_secs(1))
        .await
        .unwrap();
    let r = d.wait(&handle).await.unwrap();
    assert_eq!(r.signal, 9);
    d.destroy(&handle, false).await.unwrap();
    assert!(cg.paths().iter().all(|p| !p.exists()), "{:?}", cg.paths());
}

#[tokio::test]
async fn memory_limit_oom_kills_a_task_that_allocates_too_much() {
    let Some((d, _parent)) = driver() else { return };
    let tmp = tempfile::tempdir().unwrap();
    // tail buffers /dev/zero looking for a newline that never comes.
    let mut cfg = sh_task(tmp.path(), "oom", "exec tail /dev/zero");
    cfg.memory_mb = 16;
    let r = run_to_exit(&d, cfg).await;
    assert!(r.oom_killed, "{r:?}");
    assert_eq!(r.signal, 9);
    assert_eq!(r.err.as_deref(), Some("OOM Killed"));
}

#[tokio::test]
async fn exit_codes_env_and_kill_signal() {
    let Some((d, _parent)) = driver() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let mut cfg = sh_task(
        tmp.path(),
        "code",
        "echo $GREETING $USER $HOME; pwd; exit 3",
    );
    cfg.env.insert("GREETING".into(), "hello".into());
    let r = run_to_exit(&d, cfg).await;
    assert_eq!((r.exit_code, r.signal), (3, 0));
    let out = read_log(tmp.path(), "code.stdout.0");
    assert!(out.starts_with("hello nobody /"), "{out}");
    assert!(out.ends_with("\n/\n"), "{out}");

    let script = "trap 'echo got-term; exit 7' TERM; echo ready; while :; do sleep 0.05; done";
    let handle = d.start(sh_task(tmp.path(), "trap", script)).await.unwrap();
    let ready = crate::drivers::testutil::wait_until(Duration::from_secs(10), || async {
        read_log(tmp.path(), "trap.stdout.0").contains("ready")
    })
    .await;
    assert!(ready);
    d.stop(&handle, "SIGTERM", Duration::from_secs(10))
        .await
        .unwrap();
    let r = d.wait(&handle).await.unwrap();
    assert_eq!(r.exit_code, 7, "{r:?}");
    d.destroy(&handle, false).await.unwrap();
}

#[tokio::test]
async fn bad_user_and_missing_binary_fail_clearly() {
    let Some((d, _parent)) = driver() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let mut cfg = sh_task(tmp.path(), "user", "true");
    cfg.user = "no-such-user-xyz".into();
    let err = d.start(cfg).await.unwrap_err().to_string();
    assert!(err.contains("unknown user no-such-user-xyz"), "{err}");

    let mut cfg = sh_task(tmp.path(), "bin", "true");
    cfg.config.insert("command".into(), json!("does-not-exist"));
    let err = d.start(cfg).await.unwrap_err();
    assert_eq!(err, DriverError::BinaryNotFound("does-not-exist".into()));
}

#[tokio::test]
async fn fingerprint_is_healthy_only_as_root_with_cgroups() {
    let fp = ExecDriver::new(None).fingerprint().await;
    if nix::unistd::geteuid().is_root() && CgroupRoot::detect().is_ok() {
        assert_eq!(fp.health, HealthState::Healthy);
        assert_eq!(
            fp.attributes.get("driver.exec").map(String::as_str),
            Some("true")
        );
    } else {
        assert_ne!(fp.health, HealthState::Healthy);
    }
    let bad: PluginConfig = [("default_pid_mode".to_string(), json!("shared"))].into();
    let fp = ExecDriver::new(Some(&bad)).fingerprint().await;
    assert_eq!(fp.health, HealthState::Undetected);
    assert!(fp.health_description.contains("default_pid_mode"), "{fp:?}");
}

#[test]
fn capabilities_follow_nomad_calculate() {
    use config::{calculate_caps, cap_number, DEFAULT_CAPS};
    let allow: Vec<String> = DEFAULT_CAPS.iter().map(|c| c.to_string()).collect();
    let caps = calculate_caps(&allow, &[], &["chown".into()]).unwrap();
    assert_eq!(caps.len(), DEFAULT_CAPS.len() - 1);
    assert!(!caps.contains(&cap_number("CHOWN").unwrap()));
    let err = calculate_caps(&allow, &["net_raw".into()], &[]).unwrap_err();
    assert!(err
        .to_string()
        .contains("driver does not allow the following capabilities: net_raw"));
    let caps = calculate_caps(&["all".into()], &["CAP_NET_RAW".into()], &["all".into()]).unwrap();
    assert_eq!(caps, vec![cap_number("NET_RAW").unwrap()]);
}

#[tokio::test]
async fn plugin_chroot_env_and_no_pivot_root_are_honoured() {
    let Some(parent) = TestParent::new() else {
        return;
    };
    let env: serde_json::Map<String, serde_json::Value> = ["/bin", "/lib", "/lib64", "/usr"]
        .iter()
        .map(|p| (p.to_string(), json!(p)))
        .collect();
    let cfg: PluginConfig = [
        ("cgroup_parent".to_string(), json!(parent.root.parent)),
        ("chroot_env".to_string(), serde_json::Value::Object(env)),
        ("no_pivot_root".to_string(), json!(true)),
    ]
    .into();
    let d = ExecDriver::new(Some(&cfg));
    let tmp = tempfile::tempdir().unwrap();
    let script = "test -e /etc/passwd || echo no-etc; test -d /usr/bin && echo usr-ok";
    let r = run_to_exit(&d, sh_task(tmp.path(), "env", script)).await;
    assert!(
        r.successful(),
        "{r:?} {}",
        read_log(tmp.path(), "env.stderr.0")
    );
    assert_eq!(read_log(tmp.path(), "env.stdout.0"), "no-etc\nusr-ok\n");
}

/// Runs `command` in the task through `exec_streaming`; (exit code, stdout, stderr).
async fn exec_in(d: &ExecDriver, h: &TaskHandle, command: &[&str]) -> (i32, String, String) {
    use crate::drivers::exec_stream::{ExecOutput, ExecSession};
    let (session, tx, mut rx) =
        ExecSession::new(command.iter().map(|s| s.to_string()).collect(), false);
    drop(tx);
    let collect = tokio::spawn(async move {
        let (mut out, mut err) = (Vec::new(), Vec::new());
        while let Some(chunk) = rx.recv().await {
            match chunk {
                ExecOutput::Stdout(b) => out.extend_from_slice(&b),
                ExecOutput::Stderr(b) => err.extend_from_slice(&b),
            }
        }
        (out, err)
    });
    let code = tokio::time::timeout(Duration::from_secs(20), d.exec_streaming(h, session))
        .await
        .expect("exec did not finish")
        .unwrap();
    let (out, err) = collect.await.unwrap();
    (
        code,
        String::from_utf8_lossy(&out).to_string(),
        String::from_utf8_lossy(&err).to_string(),
    )
}

#[tokio::test]
async fn exec_joins_the_tasks_namespaces_root_cgroup_and_user() {
    let Some((d, _parent)) = driver() else { return };
    let tmp = tempfile::tempdir().unwrap();
    std::fs::create_dir_all(tmp.path().join("ex/local")).unwrap();
    std::fs::write(tmp.path().join("ex/local/marker"), "inside\n").unwrap();
    let cfg = sh_task(tmp.path(), "ex", "echo started; exec sleep 60");
    let handle = d.start(cfg).await.unwrap();
    assert!(
        crate::drivers::testutil::wait_until(Duration::from_secs(10), || async {
            read_log(tmp.path(), "ex.stdout.0").contains("started")
        })
        .await
    );
    // /proc/self resolves only for a process in the PID namespace /proc was mounted for.
    let script = "cat /local/marker; id -un; test -e /root || echo chrooted; \
                  test -e /proc/self/stat && echo in-pid-ns; echo $NOMAD_TASK_DIR; exit 4";
    let mut h = handle.clone();
    h.config
        .env
        .insert("NOMAD_TASK_DIR".into(), "/host/local".into());
    let (code, out, err) = exec_in(&d, &h, &["/bin/sh", "-c", script]).await;
    assert_eq!(code, 4, "{out} {err}");
    assert_eq!(
        out, "inside\nnobody\nchrooted\nin-pid-ns\n/local\n",
        "{err}"
    );
    let (code, _, _) = exec_in(&d, &h, &["sleep", "0"]).await;
    assert_eq!(code, 0);
    d.stop(&handle, "SIGKILL", Duration::ZERO).await.unwrap();
    d.wait(&handle).await.unwrap();
    d.destroy(&handle, false).await.unwrap();
}

#[tokio::test]
async fn a_new_driver_recovers_the_task_and_keeps_control_of_it() {
    let Some((d, parent)) = driver() else { return };
    let tmp = tempfile::tempdir().unwrap();
    // The task is PID 1 of its namespace: only signals it handles reach it.
    let script = "trap 'echo got-usr1' USR1; trap 'exit 5' TERM; echo ready; \
                  while :; do sleep 0.05; done";
    let handle = d.start(sh_task(tmp.path(), "rec", script)).await.unwrap();
    assert!(
        crate::drivers::testutil::wait_until(Duration::from_secs(10), || async {
            read_log(tmp.path(), "rec.stdout.0").contains("ready")
        })
        .await
    );
    let pid = d.inspect(&handle).await.unwrap().driver_attributes["pid"].clone();
    // The agent goes away (its driver with it); the supervisor keeps the task.
    drop(d);
    let cfg: PluginConfig = [("cgroup_parent".to_string(), json!(parent.root.parent))].into();
    let d = ExecDriver::new(Some(&cfg));
    d.recover(&handle).await.unwrap();
    let status = d.inspect(&handle).await.unwrap();
    assert_eq!(status.state, TaskRunState::Running);
    assert_eq!(status.driver_attributes["pid"], pid);
    d.signal(&handle, "SIGUSR1").await.unwrap();
    assert!(
        crate::drivers::testutil::wait_until(Duration::from_secs(10), || async {
            read_log(tmp.path(), "rec.stdout.0").contains("got-usr1")
        })
        .await
    );
    let usage = d.stats(&handle).await.unwrap();
    assert!(usage.resource_usage.memory_stats.usage > 0, "{usage:?}");
    let (code, out, _) = exec_in(&d, &handle, &["/bin/sh", "-c", "echo hi"]).await;
    assert_eq!((code, out.as_str()), (0, "hi\n"));
    let cg = d.cgroup(&handle).unwrap();
    d.stop(&handle, "SIGTERM", Duration::from_secs(5))
        .await
        .unwrap();
    let r = d.wait(&handle).await.unwrap();
    assert_eq!((r.exit_code, r.signal), (5, 0), "{r:?}");
    d.destroy(&handle, false).await.unwrap();
    assert!(cg.paths().iter().all(|p| !p.exists()), "{:?}", cg.paths());
}

#[tokio::test]
async fn host_volume_mounts_are_bound_into_the_chroot_read_only_honoured() {
    let Some((d, _parent)) = driver() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let rw = tempfile::tempdir().unwrap();
    let ro = tempfile::tempdir().unwrap();
    // The task runs as nobody.
    use std::os::unix::fs::PermissionsExt;
    for d in [rw.path(), ro.path()] {
        std::fs::set_permissions(d, std::fs::Permissions::from_mode(0o777)).unwrap();
    }
    std::fs::write(ro.path().join("given"), "from-host\n").unwrap();
    let script = "echo written > /data/out; cat /srv/ro/given; \
                  touch /srv/ro/x 2>/dev/null || echo ro-refused";
    let mut cfg = sh_task(tmp.path(), "vol", script);
    cfg.mounts = vec![
        crate::drivers::MountConfig {
            task_path: "/data".into(),
            host_path: rw.path().to_path_buf(),
            readonly: false,
            propagation_mode: "private".into(),
        },
        crate::drivers::MountConfig {
            task_path: "srv/ro".into(),
            host_path: ro.path().to_path_buf(),
            readonly: true,
            propagation_mode: "private".into(),
        },
    ];
    let r = run_to_exit(&d, cfg).await;
    assert!(
        r.successful(),
        "{r:?} {}",
        read_log(tmp.path(), "vol.stderr.0")
    );
    assert_eq!(read_log(tmp.path(), "vol.stderr.0"), "");
    assert_eq!(
        read_log(tmp.path(), "vol.stdout.0"),
        "from-host\nro-refused\n"
    );
    assert_eq!(
        std::fs::read_to_string(rw.path().join("out")).unwrap(),
        "written\n"
    );
    assert!(!ro.path().join("x").exists());
    assert!(d.supports_mounts());
}

#[tokio::test]
async fn reserved_cores_pin_the_task_with_its_cpuset() {
    let Some((d, _parent)) = driver() else { return };
    let tmp = tempfile::tempdir().unwrap();
    let online = std::fs::read_to_string("/sys/devices/system/cpu/online").unwrap();
    let last = *crate::drivers::cgroups::parse_cpuset_list(&online)
        .last()
        .expect("a cpu");
    let mut cfg = sh_task(
        tmp.path(),
        "pin",
        "grep Cpus_allowed_list /proc/self/status",
    );
    cfg.reserved_cores = vec![last];
    let r = run_to_exit(&d, cfg).await;
    assert!(
        r.successful(),
        "{r:?} {}",
        read_log(tmp.path(), "pin.stderr.0")
    );
    let out = read_log(tmp.path(), "pin.stdout.0");
    assert_eq!(
        out.split_whitespace().nth(1),
        Some(last.to_string().as_str()),
        "{out}"
    );
}
