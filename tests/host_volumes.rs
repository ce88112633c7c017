//! Static host volumes through the real agent: the node advertises `client { host_volume }`
//! blocks, the scheduler places only where a group's volumes exist (else Nomad's "missing
//! compatible host volumes"), a driver without mount support fails with Nomad's reason, and
//! docker and exec tasks write into the mounted host directory (exec: a `read_only` mount
//! refuses writes).

use std::time::Duration;

use crate::harness::*;

struct Fixture {
    agent: Agent,
    host_dir: tempfile::TempDir,
    _cfg_dir: tempfile::TempDir,
}

fn agent_with_volume() -> Fixture {
    agent_with_volume_and(&[])
}

fn agent_with_volume_and(extra_configs: &[std::path::PathBuf]) -> Fixture {
    let host_dir = tempfile::tempdir().expect("host dir");
    let cfg_dir = tempfile::tempdir().expect("cfg dir");
    let cfg = cfg_dir.path().join("vols.hcl");
    std::fs::write(
        &cfg,
        format!(
            "client {{\n  host_volume \"data\" {{\n    path = \"{}\"\n  }}\n}}\nplugin \"docker\" {{\n  config {{\n    volumes {{\n      enabled = false\n    }}\n  }}\n}}\n",
            host_dir.path().display()
        ),
    )
    .expect("write config");
    let mut flags = vec![format!("-config={}", cfg.display())];
    flags.extend(
        extra_configs
            .iter()
            .map(|c| format!("-config={}", c.display())),
    );
    let agent = Agent::start(AgentOpts {
        flags,
        ..Default::default()
    });
    Fixture {
        agent,
        host_dir,
        _cfg_dir: cfg_dir,
    }
}

fn job(name: &str, source: &str, driver: &str, config: &str) -> String {
    format!(
        r#"job "{name}" {{
  datacenters = ["dc*"]
  type        = "batch"
  group "g" {{
    volume "v" {{
      type   = "host"
      source = "{source}"
    }}
    restart {{
      attempts = 0
      mode     = "fail"
    }}
    reschedule {{
      attempts  = 0
      unlimited = false
    }}
    task "t" {{
      driver = "{driver}"
      volume_mount {{
        volume      = "v"
        destination = "/data"
      }}
      config {{
{config}
      }}
      resources {{
        cpu    = 20
        memory = 32
      }}
    }}
  }}
}}
"#
    )
}

fn run(f: &Fixture, name: &str, hcl: &str) {
    let path = f.agent.path(&format!("{name}.nomad.hcl"));
    std::fs::write(&path, hcl).expect("write job");
    let out = f
        .agent
        .nomad(&["job", "run", "-detach", path.to_str().expect("path")]);
    assert_exit(&out, 0);
}

#[test]
fn nodes_advertise_volumes_and_the_scheduler_and_drivers_honour_them() {
    let f = agent_with_volume();
    let nodes = f.agent.get("/v1/nodes");
    let node_id = nodes[0]["ID"].as_str().expect("node").to_string();
    let node = f.agent.get(&format!("/v1/node/{node_id}"));
    assert_eq!(
        node["HostVolumes"]["data"]["Path"],
        f.host_dir.path().display().to_string()
    );
    assert_eq!(node["HostVolumes"]["data"]["ReadOnly"], false);

    // A volume no node has: not placed, with Nomad's filter reason.
    run(
        &f,
        "nowhere",
        &job("nowhere", "absent", "mock_driver", "run_for = \"1s\""),
    );
    let eval = wait_until(Duration::from_secs(30), "placement failure", || {
        let evals = f.agent.get("/v1/job/nowhere/evaluations");
        evals
            .as_array()?
            .iter()
            .find(|e| e["FailedTGAllocs"].is_object())
            .cloned()
    });
    let m = &eval["FailedTGAllocs"]["g"];
    assert_eq!(
        m["ConstraintFiltered"]["missing compatible host volumes"], 1,
        "{m}"
    );

    // raw_exec cannot mount: the task fails with Nomad's reason.
    run(
        &f,
        "raw",
        &job("raw", "data", "raw_exec", "command = \"/bin/true\""),
    );
    let alloc = f
        .agent
        .wait_alloc("raw", "raw alloc failed", |a| a["ClientStatus"] == "failed");
    let text = alloc.to_string();
    assert!(
        text.contains("task driver \\\"raw_exec\\\" for \\\"t\\\" does not support host volumes"),
        "{text}"
    );
}

#[test]
fn a_docker_task_writes_into_its_host_volume() {
    if !crate::docker::docker_ready() {
        return;
    }
    let f = agent_with_volume();
    run(
        &f,
        "writer",
        &job(
            "writer",
            "data",
            "docker",
            "image   = \"nomad-rs-busybox:latest\"\n        command = \"sh\"\n        args    = [\"-c\", \"echo hello > /data/out.txt\"]",
        ),
    );
    f.agent.wait_alloc("writer", "writer complete", |a| {
        a["ClientStatus"] == "complete"
    });
    let written = std::fs::read_to_string(f.host_dir.path().join("out.txt")).expect("file");
    assert_eq!(written, "hello\n");
}

#[test]
fn an_exec_task_writes_into_its_host_volume_and_a_read_only_mount_refuses_writes() {
    let Some(guard) = crate::exec::exec_root() else {
        return;
    };
    let plugin_dir = tempfile::tempdir().expect("tmp");
    let f = agent_with_volume_and(&[guard.plugin_config(plugin_dir.path())]);
    // The task runs as nobody.
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(f.host_dir.path(), std::fs::Permissions::from_mode(0o777))
        .expect("chmod");
    let hcl = job(
        "execvol",
        "data",
        "exec",
        "command = \"/bin/sh\"\n        args    = [\"-c\", \"echo hello > /data/out.txt && cat /ro/out.txt && (touch /ro/x 2>/dev/null || echo ro-refused)\"]",
    )
    .replace(
        "      config {",
        "      volume_mount {\n        volume      = \"v\"\n        destination = \"/ro\"\n        read_only   = true\n      }\n      config {",
    );
    run(&f, "execvol", &hcl);
    let alloc = f.agent.wait_alloc("execvol", "exec writer done", |a| {
        a["ClientStatus"] == "complete" || a["ClientStatus"] == "failed"
    });
    let id = alloc["ID"].as_str().expect("alloc id");
    assert_eq!(alloc["ClientStatus"], "complete", "{alloc}");
    let written = std::fs::read_to_string(f.host_dir.path().join("out.txt")).expect("file");
    assert_eq!(written, "hello\n");
    assert!(!f.host_dir.path().join("x").exists());
    let logs = stdout(&f.agent.nomad(&["alloc", "logs", id, "t"]));
    assert_eq!(logs, "hello\nro-refused\n");
}
