use std::collections::BTreeMap;

use serde_json::json;

use super::config::{split_image, DockerTaskConfig, PluginSettings};
use super::container::{create_body, memory_limits};
use super::logs::{demux, split_timestamp, LogPosition};
use crate::drivers::TaskConfig;

fn task(config: serde_json::Value) -> TaskConfig {
    let config: BTreeMap<String, serde_json::Value> =
        serde_json::from_value(config).expect("object");
    TaskConfig {
        id: "a1/web/x".into(),
        name: "web".into(),
        alloc_id: "a1".into(),
        job_name: "example".into(),
        task_group_name: "g".into(),
        config,
        task_dir: "/data/alloc/a1/web".into(),
        alloc_dir: "/data/alloc/a1".into(),
        memory_mb: 256,
        cpu_shares: 100,
        ..Default::default()
    }
}

#[test]
fn plugin_config_defaults_and_values() {
    let d = PluginSettings::from_config(None);
    assert!(!d.allow_privileged && !d.volumes_enabled && d.gc_container && d.gc_image);
    assert!(d.allow_caps.iter().any(|c| c == "net_bind_service"));
    let cfg: BTreeMap<String, serde_json::Value> = serde_json::from_value(json!({
        "endpoint": "unix:///run/d.sock",
        "allow_privileged": true,
        "allow_caps": ["ALL"],
        "volumes": [{"enabled": true}],
        "gc": {"container": false, "image": "false"}
    }))
    .expect("object");
    let s = PluginSettings::from_config(Some(&cfg));
    assert_eq!(s.endpoint, "unix:///run/d.sock");
    assert!(s.allow_privileged && s.volumes_enabled && !s.gc_container && !s.gc_image);
    assert_eq!(s.allow_caps, vec!["all"]);
}

#[test]
fn gc_image_delay_defaults_to_three_minutes_and_bad_values_disable_the_driver() {
    assert_eq!(
        PluginSettings::from_config(None).gc_image_delay,
        std::time::Duration::from_secs(180)
    );
    let with = |delay: &str| {
        let cfg: BTreeMap<String, serde_json::Value> =
            serde_json::from_value(json!({"gc": [{"image_delay": delay}]})).expect("object");
        PluginSettings::from_config(Some(&cfg))
    };
    let s = with("1m30s");
    assert_eq!(s.gc_image_delay, std::time::Duration::from_secs(90));
    assert!(s.gc_image && s.config_error.is_none());
    assert_eq!(
        with("soon").config_error.as_deref(),
        Some("failed to parse 'image_delay' duration: time: invalid duration \"soon\"")
    );
}

#[test]
fn task_config_decodes_nomad_fields() {
    let t = task(json!({
        "image": "busybox:1.36",
        "command": "sh",
        "args": ["-c", "echo hi"],
        "entrypoint": ["/bin/env"],
        "labels": [{"team": "core"}],
        "ports": ["http"],
        "port_map": [{"db": 5432}],
        "volumes": ["local/x:/x:ro"],
        "mount": [{"type": "bind", "source": "local", "target": "/m", "readonly": true}],
        "cap_add": ["NET_ADMIN"],
        "work_dir": "/w",
        "hostname": "h",
        "force_pull": true,
    }));
    let d = DockerTaskConfig::decode(&t).expect("decodes");
    assert_eq!(d.image, "busybox:1.36");
    assert_eq!(d.command.as_deref(), Some("sh"));
    assert_eq!(d.args, vec!["-c", "echo hi"]);
    assert_eq!(d.entrypoint, vec!["/bin/env"]);
    assert_eq!(d.labels["team"], "core");
    assert_eq!(d.port_map["db"], 5432);
    assert_eq!(d.mounts[0].kind, "bind");
    assert!(d.mounts[0].readonly && d.force_pull);
    assert_eq!((d.work_dir.as_str(), d.hostname.as_str()), ("/w", "h"));
}

#[test]
fn missing_image_is_a_config_error() {
    let err = DockerTaskConfig::decode(&task(json!({"command": "sh"}))).unwrap_err();
    assert!(err.to_string().contains("\"image\" is required"), "{err}");
}

#[test]
fn image_names_split_into_repo_and_tag() {
    assert_eq!(split_image("busybox"), ("busybox".into(), "latest".into()));
    assert_eq!(
        split_image("reg:5000/a/b:1.2"),
        ("reg:5000/a/b".into(), "1.2".into())
    );
    assert_eq!(
        split_image("reg:5000/a"),
        ("reg:5000/a".into(), "latest".into())
    );
}

#[test]
fn memory_max_is_the_hard_limit() {
    const MB: i64 = 1024 * 1024;
    assert_eq!(memory_limits(0, 256, 0), (256 * MB, 0));
    assert_eq!(memory_limits(0, 256, 512), (512 * MB, 256 * MB));
}

#[test]
fn create_body_mounts_task_dirs_labels_and_ports() {
    let mut t = task(
        json!({"image": "busybox", "ports": ["http"], "command": "sh", "args": ["-c", "true"]}),
    );
    t.env.insert("NOMAD_HOST_PORT_http".into(), "23456".into());
    t.env
        .insert("NOMAD_HOST_IP_http".into(), "127.0.0.1".into());
    t.env.insert("NOMAD_PORT_http".into(), "8080".into());
    t.env
        .insert("NOMAD_TASK_DIR".into(), "/data/alloc/a1/web/local".into());
    let d = DockerTaskConfig::decode(&t).expect("decodes");
    let body = create_body(&t, &d, &PluginSettings::from_config(None)).expect("body");
    let binds = body["HostConfig"]["Binds"].as_array().expect("binds");
    assert!(binds.contains(&json!("/data/alloc/a1/alloc:/alloc")));
    assert!(binds.contains(&json!("/data/alloc/a1/web/local:/local")));
    assert!(binds.contains(&json!("/data/alloc/a1/web/secrets:/secrets")));
    assert_eq!(body["Labels"]["com.hashicorp.nomad.alloc_id"], "a1");
    assert_eq!(
        body["HostConfig"]["PortBindings"]["8080/tcp"][0],
        json!({"HostIp": "127.0.0.1", "HostPort": "23456"})
    );
    assert_eq!(body["Cmd"], json!(["sh", "-c", "true"]));
    assert!(body["Env"]
        .as_array()
        .expect("env")
        .contains(&json!("NOMAD_TASK_DIR=/local")));
    assert_eq!(body["HostConfig"]["Memory"], 256 * 1024 * 1024);
}

#[test]
fn privileged_and_host_volumes_need_plugin_permission() {
    let s = PluginSettings::from_config(None);
    let t = task(json!({"image": "busybox", "privileged": true}));
    let err = create_body(&t, &DockerTaskConfig::decode(&t).expect("d"), &s).unwrap_err();
    assert!(
        err.to_string().contains("privileged mode is disabled"),
        "{err}"
    );
    let t = task(json!({"image": "busybox", "volumes": ["/etc:/host-etc"]}));
    let err = create_body(&t, &DockerTaskConfig::decode(&t).expect("d"), &s).unwrap_err();
    assert!(err.to_string().contains("volumes are not enabled"), "{err}");
    let t = task(json!({"image": "busybox", "cap_add": ["SYS_ADMIN"]}));
    let err = create_body(&t, &DockerTaskConfig::decode(&t).expect("d"), &s).unwrap_err();
    assert!(err.to_string().contains("allowlisted"), "{err}");
}

#[test]
fn demux_splits_stdout_and_stderr_frames() {
    let mut buf = vec![1, 0, 0, 0, 0, 0, 0, 3];
    buf.extend_from_slice(b"out");
    buf.extend_from_slice(&[2, 0, 0, 0, 0, 0, 0, 3]);
    buf.extend_from_slice(b"err");
    buf.extend_from_slice(&[1, 0, 0]);
    let frames = demux(&mut buf);
    assert_eq!(frames, vec![(1, b"out".to_vec()), (2, b"err".to_vec())]);
    assert_eq!(buf, vec![1, 0, 0]);
}

#[test]
fn log_messages_split_off_the_daemon_timestamp() {
    let (ts, rest) = split_timestamp(b"2026-01-02T03:04:05.000000007Z hello\n");
    assert_eq!(ts, Some(1_767_323_045_000_000_007));
    assert_eq!(rest, b"hello\n");
    // No timestamp: the message is kept whole and does not move the position.
    assert_eq!(
        split_timestamp(b"plain line\n"),
        (None, &b"plain line\n"[..])
    );
    assert_eq!(split_timestamp(b"nospace"), (None, &b"nospace"[..]));
}

#[test]
fn log_position_resumes_after_what_was_written_and_only_there() {
    let tmp = tempfile::tempdir().unwrap();
    let path = LogPosition::path(tmp.path(), "web");
    assert_eq!(path, tmp.path().join(".web.docker.logpos"));
    let id = "c".repeat(64);
    let mut pos = LogPosition::fresh(&path, &id);
    assert_eq!(
        pos.begin_read(),
        "0",
        "a fresh copy reads from the container's start"
    );
    // Two messages share a timestamp; the copy stops after the first of them.
    assert!(pos.admit(Some(5_000_000_001)));
    assert!(pos.admit(Some(7_000_000_002)));
    assert!(pos.admit(None), "untimed messages are always written");
    assert_eq!(pos.at(), (7_000_000_002, 1));
    pos.save();
    let record = std::fs::read_to_string(&path).unwrap();
    assert_eq!(
        record.len(),
        64 + 1 + 20 + 1 + 10 + 1,
        "fixed width: {record:?}"
    );

    let (mut again, found) = LogPosition::resume(&path, &id);
    assert!(found);
    // The daemon's `since` is inclusive: the read replays the message at the position.
    assert_eq!(again.begin_read(), "7.000000002");
    assert!(!again.admit(Some(7_000_000_002)), "already written");
    assert!(
        again.admit(Some(7_000_000_002)),
        "the second one at that time is new"
    );
    assert!(again.admit(Some(8_000_000_000)));
    // Once past the replayed part, everything is new, even a step back of the clock.
    assert!(again.admit(Some(6_000_000_000)));

    // A position of another container (an earlier attempt of the task) is not used.
    let (mut other, found) = LogPosition::resume(&path, &"d".repeat(64));
    assert!(!found);
    assert_eq!(other.begin_read(), "0");
    let (_, found) = LogPosition::resume(&tmp.path().join("missing"), &id);
    assert!(!found);
}

fn mounts_of(config: serde_json::Value, plugin: &PluginSettings) -> serde_json::Value {
    let t = task(config);
    let d = DockerTaskConfig::decode(&t).expect("decodes");
    create_body(&t, &d, plugin).expect("body")["HostConfig"]["Mounts"].clone()
}

fn volumes_enabled() -> PluginSettings {
    let cfg: BTreeMap<String, serde_json::Value> =
        serde_json::from_value(json!({"volumes": [{"enabled": true}]})).expect("object");
    PluginSettings::from_config(Some(&cfg))
}

#[test]
fn mount_options_become_the_engine_api_mount_fields() {
    let mounts = mounts_of(
        json!({"image": "busybox", "mount": [
            {"type": "volume", "source": "cache", "target": "/cache",
             "volume_options": [{"no_copy": true, "labels": [{"team": "core"}],
                 "driver_config": [{"name": "local", "options": [{"type": "tmpfs", "device": "tmpfs"}]}]}]},
            {"type": "bind", "source": "local/conf", "target": "/etc/app", "readonly": true,
             "bind_options": [{"propagation": "rshared"}]},
            {"type": "tmpfs", "target": "/scratch",
             "tmpfs_options": [{"size": 8_388_608, "mode": 1016}]},
        ]}),
        &volumes_enabled(),
    );
    assert_eq!(
        mounts,
        json!([
            {"Type": "volume", "Source": "cache", "Target": "/cache", "ReadOnly": false,
             "VolumeOptions": {"NoCopy": true, "Labels": {"team": "core"},
                 "DriverConfig": {"Name": "local", "Options": {"type": "tmpfs", "device": "tmpfs"}}}},
            {"Type": "bind", "Source": "/data/alloc/a1/web/local/conf", "Target": "/etc/app",
             "ReadOnly": true, "BindOptions": {"Propagation": "rshared"}},
            {"Type": "tmpfs", "Target": "/scratch", "ReadOnly": false,
             "TmpfsOptions": {"SizeBytes": 8_388_608, "Mode": 1016}},
        ])
    );
}

#[test]
fn mounts_without_options_send_empty_options_and_the_pre_1_0_list_form_works() {
    let mounts = mounts_of(
        json!({"image": "busybox",
               "mount": [{"type": "tmpfs", "target": "/t"}, {"target": "/anon"}],
               "mounts": [{"type": "bind", "source": "local", "target": "/b"}]}),
        &volumes_enabled(),
    );
    assert_eq!(
        mounts,
        json!([
            {"Type": "tmpfs", "Target": "/t", "ReadOnly": false, "TmpfsOptions": {}},
            {"Type": "volume", "Target": "/anon", "ReadOnly": false,
             "VolumeOptions": {"DriverConfig": {}}},
            {"Type": "bind", "Source": "/data/alloc/a1/web/local", "Target": "/b",
             "ReadOnly": false, "BindOptions": {}},
        ])
    );
}

#[test]
fn bad_mounts_are_refused_with_nomads_reasons() {
    let refused = |m: serde_json::Value, plugin: &PluginSettings| {
        let t = task(json!({"image": "busybox", "mount": [m]}));
        let d = DockerTaskConfig::decode(&t).expect("decodes");
        create_body(&t, &d, plugin).unwrap_err().to_string()
    };
    let on = volumes_enabled();
    let off = PluginSettings::from_config(None);
    let err = refused(json!({"type": "tmpfs", "source": "x", "target": "/t"}), &on);
    assert!(
        err.ends_with("invalid source, must be \"\" for tmpfs"),
        "{err}"
    );
    let err = refused(json!({"type": "nfs", "target": "/t"}), &on);
    assert!(
        err.ends_with("invalid mount type, must be \"bind\", \"volume\", \"tmpfs\": \"nfs\""),
        "{err}"
    );
    let err = refused(json!({"source": "data", "target": "/d"}), &off);
    assert!(
        err.ends_with("volumes are not enabled; cannot mount volume: \"data\""),
        "{err}"
    );
    let err = refused(
        json!({"type": "bind", "source": "/etc", "target": "/e"}),
        &off,
    );
    assert!(
        err.ends_with("volumes are not enabled; cannot mount host path: \"/etc\""),
        "{err}"
    );
    let t = task(json!({"image": "busybox",
        "mount": [{"type": "tmpfs", "target": "/t", "tmpfs_options": [{"size": "big"}]}]}));
    let err = DockerTaskConfig::decode(&t).unwrap_err().to_string();
    assert!(err.contains("tmpfs_options.size must be a number"), "{err}");
}
