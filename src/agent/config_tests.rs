//! Tests of agent configuration loading: defaults, `-dev`, file and directory merge order,
//! flags, validation.

use super::*;

fn write(dir: &Path, name: &str, body: &str) -> PathBuf {
    let p = dir.join(name);
    std::fs::write(&p, body).expect("write config file");
    p
}

fn flags() -> CliFlags {
    CliFlags::default()
}

#[test]
fn dev_defaults_match_nomad_dev_config() {
    let c = AgentConfig::load(&CliFlags {
        dev: true,
        ..flags()
    })
    .expect("dev config loads");
    assert!(c.dev);
    assert!(c.server.enabled && c.client.enabled);
    assert_eq!(c.server.bootstrap_expect, 1);
    assert_eq!(c.bind_addr, "127.0.0.1");
    assert_eq!(c.log_level, "DEBUG");
    assert_eq!(c.region, "global");
    assert_eq!(c.datacenter, "dc1");
    assert_eq!(
        c.ports,
        Ports {
            http: 4646,
            rpc: 4647,
            serf: 4648
        }
    );
    assert_eq!(c.data_dir, None);
    assert_eq!(c.client.node_pool, "default");
    assert_eq!(c.client.network_interface.as_deref(), Some("lo"));
    assert_eq!(
        c.client
            .options
            .get("driver.raw_exec.enable")
            .map(String::as_str),
        Some("true")
    );
    assert_eq!(c.plugins["raw_exec"], serde_json::json!({"enabled": true}));
    assert_eq!(
        c.plugins["mock_driver"],
        serde_json::json!({"enabled": true})
    );
}

#[test]
fn plain_defaults_match_nomad_default_config() {
    let c = AgentConfig::default();
    assert_eq!(c.bind_addr, "0.0.0.0");
    assert_eq!(c.log_level, "INFO");
    assert_eq!(
        (c.client.min_dynamic_port, c.client.max_dynamic_port),
        (20000, 32000)
    );
    assert!(!c.server.enabled && !c.client.enabled);
}

#[test]
fn files_merge_in_order_then_flags_win() {
    let dir = tempfile::tempdir().expect("tempdir");
    let a = write(
        dir.path(),
        "a.hcl",
        r#"
region     = "eu"
datacenter = "dc-a"
data_dir   = "/var/lib/nomad"
log_level  = "WARN"

ports {
  http = 5646
}

server {
  enabled          = true
  bootstrap_expect = 3
}

client {
  enabled = true
  servers = ["10.0.0.1:4647"]
  meta {
    rack = "r1"
    zone = "a"
  }
  reserved {
    cpu            = 500
    memory         = 256
    reserved_ports = "22,80"
  }
}

plugin "raw_exec" {
  config {
    enabled = true
  }
}

telemetry {
  prometheus_metrics = true
}
"#,
    );
    let b = write(
        dir.path(),
        "b.json",
        r#"{
  "datacenter": "dc-b",
  "ports": {"rpc": 5647},
  "client": [{"servers": ["10.0.0.2:4647"], "meta": {"zone": "b"}, "node_class": "big"}],
  "plugin": {"raw_exec": {"config": {"no_cgroups": true}}, "docker": {"config": {"volumes": {"enabled": true}}}}
}"#,
    );
    let c = AgentConfig::load(&CliFlags {
        config: vec![a.clone(), b.clone()],
        dc: Some("dc-flag".to_string()),
        meta: vec![("rack".to_string(), "r9".to_string())],
        servers: vec!["10.0.0.3:4647".to_string()],
        ..flags()
    })
    .expect("loads");
    assert_eq!(c.files, vec![a, b]);
    assert_eq!(c.region, "eu");
    assert_eq!(c.datacenter, "dc-flag");
    assert_eq!(c.log_level, "WARN");
    assert_eq!(c.data_dir, Some(PathBuf::from("/var/lib/nomad")));
    assert_eq!(
        c.ports,
        Ports {
            http: 5646,
            rpc: 5647,
            serf: 4648
        }
    );
    assert_eq!(c.server.bootstrap_expect, 3);
    assert_eq!(c.client.node_class, "big");
    assert_eq!(
        c.client.servers,
        vec!["10.0.0.1:4647", "10.0.0.2:4647", "10.0.0.3:4647"]
    );
    assert_eq!(c.client.meta.get("rack").map(String::as_str), Some("r9"));
    assert_eq!(c.client.meta.get("zone").map(String::as_str), Some("b"));
    assert_eq!(c.client.reserved.cpu, 500);
    assert_eq!(c.client.reserved.memory_mb, 256);
    assert_eq!(c.client.reserved.reserved_ports, "22,80");
    assert_eq!(
        c.plugins["raw_exec"],
        serde_json::json!({"enabled": true, "no_cgroups": true})
    );
    assert_eq!(
        c.plugins["docker"],
        serde_json::json!({"volumes": {"enabled": true}})
    );
    assert_eq!(c.unknown_keys, vec!["telemetry".to_string()]);
}

#[test]
fn directory_loads_hcl_and_json_in_name_order() {
    let dir = tempfile::tempdir().expect("tempdir");
    write(dir.path(), "20-second.hcl", "datacenter = \"second\"\n");
    write(
        dir.path(),
        "10-first.json",
        r#"{"datacenter": "first", "data_dir": "/d"}"#,
    );
    write(dir.path(), "30-ignored.txt", "datacenter = \"nope\"\n");
    write(dir.path(), ".hidden.hcl", "datacenter = \"nope\"\n");
    let c = AgentConfig::load(&CliFlags {
        config: vec![dir.path().to_path_buf()],
        server: true,
        bootstrap_expect: Some(1),
        ..flags()
    })
    .expect("loads");
    assert_eq!(c.datacenter, "second");
    assert_eq!(c.files.len(), 2);
    assert!(c.files[0].ends_with("10-first.json"));
}

#[test]
fn validation_errors_are_clear() {
    let err = AgentConfig::load(&flags()).expect_err("no mode");
    assert_eq!(
        err.to_string(),
        "Must specify either server, client or dev mode for the agent."
    );

    let err = AgentConfig::load(&CliFlags {
        server: true,
        data_dir: Some("/tmp/x".into()),
        ..flags()
    })
    .expect_err("bootstrap 0");
    assert!(matches!(err, ConfigError::BootstrapExpectZero), "{err}");

    let err = AgentConfig::load(&CliFlags {
        client: true,
        data_dir: Some("/tmp/x".into()),
        bootstrap_expect: Some(3),
        ..flags()
    })
    .expect_err("bootstrap without server");
    assert_eq!(
        err.to_string(),
        "Bootstrap requires server mode to be enabled"
    );

    let err = AgentConfig::load(&CliFlags {
        client: true,
        ..flags()
    })
    .expect_err("no data dir");
    assert_eq!(
        err.to_string(),
        "Must specify \"data_dir\" config option or \"data-dir\" CLI flag"
    );

    let err = AgentConfig::load(&CliFlags {
        client: true,
        data_dir: Some("relative".into()),
        ..flags()
    })
    .expect_err("relative");
    assert_eq!(
        err.to_string(),
        "data-dir must be given as an absolute path: got relative"
    );

    let err = AgentConfig::load(&CliFlags {
        dev: true,
        dc: Some("dc*".to_string()),
        ..flags()
    })
    .expect_err("bad dc");
    assert_eq!(
        err.to_string(),
        "Datacenter contains invalid characters (null or '*')"
    );

    let err = AgentConfig::load(&CliFlags {
        dev: true,
        meta: vec![("a..b".to_string(), "x".to_string())],
        ..flags()
    })
    .expect_err("bad meta key");
    assert_eq!(err.to_string(), "Invalid Client.Meta key: a..b");
}

#[test]
fn broken_files_name_the_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    let bad = write(dir.path(), "bad.hcl", "server {\n  enabled = \n");
    let err = AgentConfig::load(&CliFlags {
        dev: true,
        config: vec![bad.clone()],
        ..flags()
    })
    .expect_err("syntax error");
    assert!(
        err.to_string().contains(&bad.display().to_string()),
        "{err}"
    );

    let typed = write(
        dir.path(),
        "typed.hcl",
        "server {\n  bootstrap_expect = \"three\"\n}\n",
    );
    let err = AgentConfig::load(&CliFlags {
        dev: true,
        config: vec![typed],
        ..flags()
    })
    .expect_err("type error");
    assert!(err.to_string().contains("invalid type"), "{err}");

    let missing = dir.path().join("missing.hcl");
    let err = AgentConfig::load(&CliFlags {
        dev: true,
        config: vec![missing],
        ..flags()
    })
    .expect_err("missing file");
    assert!(matches!(err, ConfigError::Read { .. }), "{err}");
}

#[test]
fn gc_thresholds_come_from_the_server_block() {
    let dir = tempfile::tempdir().expect("tempdir");
    let f = write(
        dir.path(),
        "gc.hcl",
        "server {\n  job_gc_threshold = \"2h\"\n  eval_gc_threshold = \"30m\"\n  job_gc_interval = \"10s\"\n}\n",
    );
    let c = AgentConfig::load(&CliFlags {
        dev: true,
        config: vec![f],
        ..flags()
    })
    .expect("loads");
    assert_eq!(c.server.gc.job, std::time::Duration::from_secs(7200));
    assert_eq!(c.server.gc.eval, std::time::Duration::from_secs(1800));
    assert_eq!(c.server.gc.interval, std::time::Duration::from_secs(10));
    // Unset ones keep Nomad's defaults.
    assert_eq!(c.server.gc.node, std::time::Duration::from_secs(24 * 3600));

    let bad = write(
        dir.path(),
        "bad.hcl",
        "server {\n  node_gc_threshold = \"soon\"\n}\n",
    );
    let err = AgentConfig::load(&CliFlags {
        dev: true,
        config: vec![bad],
        ..flags()
    })
    .expect_err("bad duration");
    assert!(
        err.to_string().contains("server.node_gc_threshold"),
        "{err}"
    );
}

#[test]
fn host_volumes_come_from_labelled_client_blocks() {
    let dir = tempfile::tempdir().expect("tempdir");
    let f = write(
        dir.path(),
        "vols.hcl",
        "client {\n  host_volume \"data\" {\n    path = \"/srv/data\"\n  }\n  host_volume \"certs\" {\n    path      = \"/etc/ssl/certs\"\n    read_only = true\n  }\n}\n",
    );
    let c = AgentConfig::load(&CliFlags {
        dev: true,
        config: vec![f],
        ..flags()
    })
    .expect("loads");
    let vols = &c.client.host_volumes;
    assert_eq!(vols.len(), 2, "{vols:?}");
    assert_eq!(vols["data"].path, std::path::PathBuf::from("/srv/data"));
    assert!(!vols["data"].read_only);
    assert!(vols["certs"].read_only);

    for (body, want) in [
        (
            "client {\n  host_volume \"x\" {\n    path = \"rel/dir\"\n  }\n}\n",
            "path must be absolute",
        ),
        (
            "client {\n  host_volume \"x\" {\n    read_only = true\n  }\n}\n",
            "missing required field",
        ),
        (
            "client {\n  host_volume \"x\" {\n    path = \"/a\"\n    colour = 1\n  }\n}\n",
            "unknown field `colour`",
        ),
    ] {
        let bad = write(dir.path(), "bad.hcl", body);
        let err = AgentConfig::load(&CliFlags {
            dev: true,
            config: vec![bad],
            ..flags()
        })
        .expect_err("bad host volume");
        assert!(err.to_string().contains(want), "{err}");
        assert!(
            err.to_string().contains("client.host_volume \"x\""),
            "{err}"
        );
    }
}

#[test]
fn fingerprint_overrides_come_from_the_client_block() {
    let dir = tempfile::tempdir().expect("tempdir");
    let f = write(
        dir.path(),
        "fp.hcl",
        "client {\n  network_speed = 10000\n  cpu_total_compute = 8000\n  memory_total_mb = 2048\n  disk_total_mb = 4096\n  bridge_network_name = \"nomad0\"\n  bridge_network_hairpin_mode = true\n  node_max_allocs = 50\n  gc_volumes_on_node_gc = true\n}\n",
    );
    let c = AgentConfig::load(&CliFlags {
        dev: true,
        config: vec![f],
        ..flags()
    })
    .expect("loads");
    let cl = &c.client;
    assert_eq!(
        (
            cl.network_speed,
            cl.cpu_total_compute,
            cl.memory_total_mb,
            cl.disk_total_mb
        ),
        (10000, 8000, 2048, 4096)
    );
    assert_eq!(cl.bridge_network_name, "nomad0");
    assert!(cl.bridge_network_hairpin_mode && cl.gc_volumes_on_node_gc);
    assert_eq!(cl.node_max_allocs, 50);
    let client = crate::agent::client_config(&c, dir.path(), "127.0.0.1:4646");
    assert_eq!(client.network_speed, 10000);
    assert_eq!(client.memory_total_mb, 2048);
    assert_eq!(client.node_max_allocs, 50);
    assert!(client.gc_volumes_on_node_gc);
    // Unset, they leave detection to the fingerprint.
    let plain = AgentConfig::load(&CliFlags {
        dev: true,
        ..flags()
    })
    .expect("loads");
    assert_eq!(plain.client.memory_total_mb, 0);
    assert_eq!(plain.client.bridge_network_name, "");
    assert_eq!(plain.client.reservable_cores, None);

    let cores = write(
        dir.path(),
        "cores.hcl",
        "client {\n  reservable_cores = \"0-3\"\n  reserved {\n    cores = \"0\"\n  }\n}\n",
    );
    let c = AgentConfig::load(&CliFlags {
        dev: true,
        config: vec![cores],
        ..flags()
    })
    .expect("loads");
    assert_eq!(c.client.reservable_cores, Some(vec![0, 1, 2, 3]));
    assert_eq!(c.client.reserved.cores, vec![0]);
    let bad = write(
        dir.path(),
        "bad.hcl",
        "client {\n  reserved {\n    cores = \"2-x\"\n  }\n}\n",
    );
    let err = AgentConfig::load(&CliFlags {
        dev: true,
        config: vec![bad],
        ..flags()
    })
    .expect_err("bad core list");
    assert!(err.to_string().contains("client.reserved.cores"), "{err}");
}
