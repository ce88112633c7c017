//! The `template` block through the real agent: a raw_exec task renders a file from its
//! environment and a Nomad-native service before it starts, an `env = true` template feeds
//! its environment, and a change of the service re-renders the file and restarts the task.

use std::time::Duration;

use crate::harness::*;

const BACKEND: &str = r#"job "backend" {
  datacenters = ["dc*"]
  group "api" {
    count = COUNT
    network {
      port "http" {}
    }
    service {
      name     = "backend"
      port     = "http"
      provider = "nomad"
    }
    task "api" {
      driver = "mock_driver"
      config {
        run_for = "10m"
      }
      resources {
        cpu    = 20
        memory = 20
      }
    }
  }
}
"#;

const FRONT: &str = r#"job "front" {
  datacenters = ["dc*"]
  group "web" {
    task "app" {
      driver = "raw_exec"
      config {
        command = "/bin/sh"
        args    = ["-c", "cat local/out.txt >> $NOMAD_ALLOC_DIR/starts.log; echo mode=$APP_MODE >> $NOMAD_ALLOC_DIR/starts.log; exec sleep 600"]
      }
      template {
        data        = <<EOT
task={{ env "NOMAD_TASK_NAME" }}
{{ range nomadService "backend" }}backend={{ .Address }}:{{ .Port }}
{{ end -}}
EOT
        destination = "local/out.txt"
        change_mode = "restart"
        splay       = "100ms"
      }
      template {
        data        = "APP_MODE=from-template\n"
        destination = "secrets/app.env"
        env         = true
      }
      resources {
        cpu    = 20
        memory = 20
      }
    }
  }
}
"#;

fn run(agent: &Agent, name: &str, hcl: &str) {
    let path = agent.path(name);
    std::fs::write(&path, hcl).expect("write job");
    assert_exit(
        &agent.nomad(&["job", "run", "-detach", path.to_str().expect("path")]),
        0,
    );
}

fn backends(agent: &Agent) -> usize {
    agent
        .get("/v1/service/backend")
        .as_array()
        .map(Vec::len)
        .unwrap_or(0)
}

#[test]
fn a_template_renders_env_and_services_and_a_service_change_restarts_the_task() {
    let agent = Agent::dev();
    run(&agent, "backend.nomad.hcl", &BACKEND.replace("COUNT", "1"));
    wait_until(Duration::from_secs(60), "one backend registered", || {
        (backends(&agent) == 1).then_some(())
    });
    run(&agent, "front.nomad.hcl", FRONT);
    let alloc = agent.wait_alloc("front", "front running", |a| a["ClientStatus"] == "running");
    let id = alloc["ID"].as_str().expect("alloc id").to_string();
    let log = || stdout(&agent.nomad(&["alloc", "fs", &id, "alloc/starts.log"]));
    let first = wait_until(Duration::from_secs(30), "first start logged", || {
        let l = log();
        l.contains("mode=").then_some(l)
    });
    let reg = agent.get("/v1/service/backend")[0].clone();
    let addr = format!(
        "backend={}:{}",
        reg["Address"].as_str().expect("address"),
        reg["Port"]
    );
    assert_eq!(first, format!("task=app\n{addr}\nmode=from-template\n"));
    let rendered = stdout(&agent.nomad(&["alloc", "fs", &id, "app/local/out.txt"]));
    assert_eq!(rendered, format!("task=app\n{addr}\n"));

    // A second backend changes the service: the template re-renders and restarts the task.
    run(&agent, "backend.nomad.hcl", &BACKEND.replace("COUNT", "2"));
    let second = wait_until(Duration::from_secs(60), "restart after re-render", || {
        let l = log();
        (l.matches("mode=").count() == 2).then_some(l)
    });
    assert_eq!(second.matches("backend=").count(), 1 + 2, "{second}");
    assert!(second.ends_with("mode=from-template\n"), "{second}");
    let alloc = agent.wait_alloc("front", "restart recorded", |a| {
        a["TaskStates"]["app"]["Restarts"] == 1 && a["TaskStates"]["app"]["State"] == "running"
    });
    let events = alloc["TaskStates"]["app"]["Events"].to_string();
    assert!(
        events.contains("Template with change_mode restart re-rendered"),
        "{events}"
    );
    let status = stdout(&agent.nomad(&["alloc", "status", &id]));
    assert!(
        status.contains("Template with change_mode restart re-rendered"),
        "{status}"
    );
}

#[test]
fn a_template_calling_consul_fails_the_task_with_nomads_event() {
    let agent = Agent::dev();
    let job = FRONT.replace(
        "{{ range nomadService \"backend\" }}",
        "{{ range service \"backend\" }}",
    );
    run(&agent, "front.nomad.hcl", &job);
    let alloc = agent.wait_alloc("front", "front failed", |a| a["ClientStatus"] == "failed");
    let events = alloc["TaskStates"]["app"]["Events"].to_string();
    assert!(
        events.contains("Template failed: (dynamic): execute: "),
        "{events}"
    );
    assert!(
        events.contains("error calling service: service: Consul is not available"),
        "{events}"
    );
}

const YAML_JOB: &str = r#"job "yamlconf" {
  datacenters = ["dc*"]
  type        = "batch"
  group "g" {
    restart {
      attempts = 0
      mode     = "fail"
    }
    task "render" {
      driver = "raw_exec"
      config {
        command = "/bin/cat"
        args    = ["local/app.yaml"]
      }
      template {
        data        = <<EOT
{{- $cfg := parseYAML `
name: web
replicas: 3
ports: [80, 443]
enabled: yes
labels:
  tier: front
  "y": quoted
` -}}
# name={{ $cfg.name }} replicas={{ $cfg.replicas }} enabled={{ $cfg.enabled }}
{{ $cfg | toYAML }}
EOT
        destination = "local/app.yaml"
      }
      resources {
        cpu    = 20
        memory = 20
      }
    }
  }
}
"#;

#[test]
fn a_template_round_trips_yaml_through_parse_yaml_and_to_yaml() {
    let agent = Agent::dev();
    run(&agent, "yamlconf.nomad.hcl", YAML_JOB);
    let alloc = agent.wait_alloc("yamlconf", "render finished", |a| {
        a["ClientStatus"] == "complete" || a["ClientStatus"] == "failed"
    });
    let events = alloc["TaskStates"]["render"]["Events"].to_string();
    assert_eq!(alloc["ClientStatus"], "complete", "{events}");
    let logs = agent.nomad(&["alloc", "logs", alloc["ID"].as_str().expect("id"), "render"]);
    assert_exit(&logs, 0);
    // yaml.v2's output: keys in order, the `ports` list unindented, `y` quoted because
    // YAML 1.1 reads it as a boolean.
    assert_eq!(
        stdout(&logs),
        "# name=web replicas=3 enabled=true
enabled: true
labels:
  tier: front
  \"y\": quoted
name: web
ports:
- 80
- 443
replicas: 3
"
    );
}
