//! Tasks survive the agent: `kill -9` the agent, start it again on the same data dir, and
//! the task (same PID) is still running under its executor with its alloc unchanged; a task
//! that died while the agent was down is reported dead with its real exit code. Docker
//! containers are re-attached the same way, their log copy resuming where it stopped.

use std::time::Duration;

use serde_json::Value;

use crate::docker::{docker, ContainerGuard};
use crate::harness::*;

const JOB: &str = r#"job "survivor" {
  group "g" {
    restart {
      attempts = 0
      mode     = "fail"
    }
    reschedule {
      attempts  = 0
      unlimited = false
    }
    task "sleeper" {
      driver = "raw_exec"
      config {
        command = "/bin/sh"
        args    = ["-c", "echo $$ > ${NOMAD_TASK_DIR}/pid; exec sleep 600"]
      }
      resources {
        cpu    = 20
        memory = 16
      }
    }
  }
}
"#;

fn alive(pid: i32) -> bool {
    // A zombie counts as dead.
    std::fs::read_to_string(format!("/proc/{pid}/stat")).is_ok_and(|stat| {
        !stat
            .rsplit(')')
            .next()
            .is_some_and(|rest| rest.trim_start().starts_with('Z'))
    })
}

fn event_types(alloc: &Value) -> Vec<String> {
    alloc["TaskStates"]["sleeper"]["Events"]
        .as_array()
        .map(|evs| {
            evs.iter()
                .filter_map(|e| e["Type"].as_str().map(String::from))
                .collect()
        })
        .unwrap_or_default()
}

fn reattached(agent: &Agent) -> usize {
    agent.log().matches("re-attached to task").count()
}

#[test]
fn tasks_keep_running_across_agent_kill_9_and_exits_meanwhile_are_reported() {
    let mut agent = Agent::start(AgentOpts {
        dev: false,
        data_dir: true,
        ..Default::default()
    });
    let path = agent.path("survivor.nomad.hcl");
    std::fs::write(&path, JOB).expect("write job");
    assert_exit(
        &agent.nomad(&["job", "run", "-detach", path.to_str().expect("path")]),
        0,
    );
    let alloc = agent.wait_alloc("survivor", "alloc running", |a| {
        a["ClientStatus"] == "running"
    });
    let alloc_id = alloc["ID"].as_str().expect("alloc id").to_string();
    let pid_file = agent
        .path("data/alloc")
        .join(&alloc_id)
        .join("sleeper/local/pid");
    let pid: i32 = wait_until(Duration::from_secs(10), "task pid file", || {
        std::fs::read_to_string(&pid_file).ok()?.trim().parse().ok()
    });
    assert!(alive(pid));
    let before = agent.get(&format!("/v1/allocation/{alloc_id}"));

    // 1. The agent crashes and comes back: the task is untouched and re-attached.
    agent.restart();
    wait_until(Duration::from_secs(20), "task re-attached", || {
        (reattached(&agent) == 1).then_some(())
    });
    assert!(alive(pid), "task {pid} survived the agent");
    let after = agent.get(&format!("/v1/allocation/{alloc_id}"));
    assert_eq!(after["ClientStatus"], "running");
    assert_eq!(after["TaskStates"]["sleeper"]["State"], "running");
    assert_eq!(after["TaskStates"]["sleeper"]["Restarts"], 0);
    assert_eq!(
        event_types(&after),
        event_types(&before),
        "no new task events"
    );
    assert_eq!(
        after["TaskStates"]["sleeper"]["StartedAt"],
        before["TaskStates"]["sleeper"]["StartedAt"]
    );

    // 2. The task dies while the agent is down: reported dead with its exit code.
    agent.kill9();
    unsafe {
        libc::kill(pid, libc::SIGKILL);
    }
    wait_until(Duration::from_secs(10), "task gone", || {
        (!alive(pid)).then_some(())
    });
    agent.restart();
    let dead = agent.wait_alloc("survivor", "task reported dead", |a| {
        a["ID"] == alloc_id.as_str() && a["TaskStates"]["sleeper"]["State"] == "dead"
    });
    let dead = agent.get(&format!(
        "/v1/allocation/{}",
        dead["ID"].as_str().expect("id")
    ));
    assert_eq!(dead["ClientStatus"], "failed", "{dead}");
    let events = dead["TaskStates"]["sleeper"]["Events"]
        .as_array()
        .expect("events")
        .clone();
    let terminated = events
        .iter()
        .find(|e| e["Type"] == "Terminated")
        .unwrap_or_else(|| panic!("a Terminated event: {events:?}"));
    assert_eq!(terminated["ExitCode"], 137, "{terminated}");
    assert_eq!(terminated["Signal"], 9);
    assert_eq!(terminated["Details"]["exit_code"], "137");
    assert_eq!(
        events.last().map(|e| e["Type"].clone()),
        Some(Value::from("Not Restarting")),
        "restart policy applied: {events:?}"
    );
}

const EXEC_JOB: &str = r#"job "isolated" {
  group "g" {
    restart {
      attempts = 0
      mode     = "fail"
    }
    reschedule {
      attempts  = 0
      unlimited = false
    }
    task "box" {
      driver = "exec"
      config {
        command = "/bin/sh"
        args    = ["-c", "trap 'echo got-usr1' USR1; echo ready; while :; do sleep 0.2; done"]
      }
      resources {
        cpu    = 20
        memory = 32
      }
    }
  }
}
"#;

#[test]
fn exec_tasks_survive_agent_kill_9_and_stay_under_control() {
    use nomad::drivers::cgroups::Cgroup;
    let Some(guard) = crate::exec::exec_root() else {
        return;
    };
    let extra = tempfile::tempdir().expect("tmp");
    let plugin = guard.plugin_config(extra.path());
    let mut agent = Agent::start(AgentOpts {
        dev: false,
        data_dir: true,
        flags: vec![format!("-config={}", plugin.display())],
    });
    agent.run_detached("isolated.nomad.hcl", EXEC_JOB);
    let alloc = agent.wait_alloc("isolated", "exec alloc running", |a| {
        a["ClientStatus"] == "running"
    });
    let alloc_id = alloc["ID"].as_str().expect("alloc id").to_string();
    let logs = |agent: &Agent| stdout(&agent.nomad(&["alloc", "logs", &alloc_id, "box"]));
    wait_until(Duration::from_secs(20), "task ready", || {
        logs(&agent).contains("ready").then_some(())
    });
    // The task is PID 1 of its namespace; its host pid is the one in its cgroup that the
    // supervisor started (the shell, not its short-lived sleeps).
    let cgroup =
        Cgroup::open(&guard.root, &guard.root.scope_name(&alloc_id, "box")).expect("cgroup");
    let host_pid = |cg: &Cgroup| -> Option<i32> {
        cg.pids().ok()?.into_iter().find(|p| {
            std::fs::read_to_string(format!("/proc/{p}/cmdline"))
                .is_ok_and(|c| c.starts_with("/bin/sh"))
        })
    };
    let pid = wait_until(Duration::from_secs(10), "task pid", || host_pid(&cgroup));
    let before = agent.get(&format!("/v1/allocation/{alloc_id}"));

    agent.restart();
    wait_until(Duration::from_secs(20), "exec task re-attached", || {
        (reattached(&agent) == 1).then_some(())
    });
    assert!(alive(pid), "task {pid} survived the agent");
    let after = agent.get(&format!("/v1/allocation/{alloc_id}"));
    assert_eq!(after["ClientStatus"], "running");
    assert_eq!(after["TaskStates"]["box"]["Restarts"], 0);
    assert_eq!(
        after["TaskStates"]["box"]["StartedAt"],
        before["TaskStates"]["box"]["StartedAt"]
    );

    // Signal, exec and stats reach the re-attached task.
    assert_exit(
        &agent.nomad(&["alloc", "signal", "-s", "SIGUSR1", &alloc_id, "box"]),
        0,
    );
    wait_until(Duration::from_secs(20), "signal delivered", || {
        logs(&agent).contains("got-usr1").then_some(())
    });
    let out = agent.nomad(&[
        "alloc",
        "exec",
        "-i=false",
        "-t=false",
        "-task",
        "box",
        &alloc_id,
        "/bin/sh",
        "-c",
        "test -e /proc/self/stat && id -un",
    ]);
    assert_exit(&out, 0);
    assert_eq!(stdout(&out), "nobody\n");
    let stats = agent.get(&format!("/v1/client/allocation/{alloc_id}/stats"));
    let mem = &stats["Tasks"]["box"]["ResourceUsage"]["MemoryStats"];
    assert!(mem["Usage"].as_u64().is_some_and(|u| u > 0), "{stats}");

    // The task dies while the agent is down: reported dead with its real exit code.
    agent.kill9();
    unsafe {
        libc::kill(pid, libc::SIGKILL);
    }
    wait_until(Duration::from_secs(10), "task gone", || {
        (!alive(pid)).then_some(())
    });
    agent.restart();
    let dead = agent.wait_alloc("isolated", "exec task reported dead", |a| {
        a["ID"] == alloc_id.as_str() && a["TaskStates"]["box"]["State"] == "dead"
    });
    assert_eq!(dead["ClientStatus"], "failed", "{dead}");
    let dead = agent.get(&format!("/v1/allocation/{alloc_id}"));
    let events = dead["TaskStates"]["box"]["Events"]
        .as_array()
        .expect("events")
        .clone();
    let terminated = events
        .iter()
        .find(|e| e["Type"] == "Terminated")
        .unwrap_or_else(|| panic!("a Terminated event: {events:?}"));
    assert_eq!(terminated["ExitCode"], 137, "{terminated}");
    assert_eq!(terminated["Signal"], 9);
    // The dead task's cgroup is removed once the client destroys the task.
    wait_until(Duration::from_secs(30), "task cgroup removed", || {
        (!cgroup.paths().iter().any(|p| p.exists())).then_some(())
    });
}

const DOCKER_JOB: &str = r#"job "boxed" {
  group "g" {
    restart {
      attempts = 0
      mode     = "fail"
    }
    reschedule {
      attempts  = 0
      unlimited = false
    }
    task "sleeper" {
      driver = "docker"
      config {
        image   = "nomad-rs-busybox:latest"
        command = "sleep"
        args    = ["600"]
      }
      resources {
        cpu    = 20
        memory = 32
      }
    }
  }
}
"#;

/// `docker inspect -f <format> <name>`, or `None` once the container is gone.
fn inspect(name: &str, format: &str) -> Option<String> {
    let o = docker(&["container", "inspect", "-f", format, name]);
    o.status
        .success()
        .then(|| String::from_utf8_lossy(&o.stdout).trim().to_string())
}

/// Writes a line to the container's own stdout (its PID 1's), as the task would.
fn say(name: &str, line: &str) {
    let o = docker(&[
        "exec",
        name,
        "sh",
        "-c",
        &format!("echo {line} > /proc/1/fd/1"),
    ]);
    assert!(o.status.success(), "docker exec: {o:?}");
}

#[test]
fn docker_tasks_survive_agent_kill_9_and_stop_removes_the_container() {
    if !crate::docker::docker_ready() {
        return;
    }
    let mut agent = Agent::start(AgentOpts {
        dev: false,
        data_dir: true,
        ..Default::default()
    });
    agent.run_detached("boxed.nomad.hcl", DOCKER_JOB);
    let alloc = agent.wait_alloc("boxed", "docker alloc running", |a| {
        a["ClientStatus"] == "running"
    });
    let alloc_id = alloc["ID"].as_str().expect("alloc id").to_string();
    let name = format!("sleeper-{alloc_id}");
    let _guard = ContainerGuard(name.clone());
    let container_id = inspect(&name, "{{.Id}}").expect("container exists");
    let logs = |agent: &Agent| stdout(&agent.nomad(&["alloc", "logs", &alloc_id, "sleeper"]));
    say(&name, "before-crash");
    wait_until(Duration::from_secs(20), "output copied", || {
        logs(&agent).contains("before-crash").then_some(())
    });
    let before = agent.get(&format!("/v1/allocation/{alloc_id}"));

    // The agent crashes; the container keeps running and writing meanwhile.
    agent.kill9();
    say(&name, "while-down");
    agent.restart();
    wait_until(Duration::from_secs(20), "docker task re-attached", || {
        (reattached(&agent) == 1).then_some(())
    });
    assert_eq!(inspect(&name, "{{.Id}}").as_deref(), Some(&*container_id));
    assert_eq!(
        inspect(&name, "{{.State.Running}}").as_deref(),
        Some("true")
    );
    let after = agent.get(&format!("/v1/allocation/{alloc_id}"));
    assert_eq!(after["ClientStatus"], "running");
    assert_eq!(after["TaskStates"]["sleeper"]["State"], "running");
    assert_eq!(after["TaskStates"]["sleeper"]["Restarts"], 0);
    assert_eq!(
        after["TaskStates"]["sleeper"]["Events"], before["TaskStates"]["sleeper"]["Events"],
        "no new task events"
    );

    // Output written while the agent was down is copied once; nothing is copied twice.
    let text = wait_until(Duration::from_secs(20), "output of the down time", || {
        let text = logs(&agent);
        text.contains("while-down").then_some(text)
    });
    assert_eq!(text, "before-crash\nwhile-down\n");
    say(&name, "after-recovery");
    wait_until(Duration::from_secs(20), "output after recovery", || {
        (logs(&agent) == "before-crash\nwhile-down\nafter-recovery\n").then_some(())
    });

    // Exec and stats reach the re-attached container.
    let out = agent.nomad(&[
        "alloc", "exec", "-i=false", "-t=false", "-task", "sleeper", &alloc_id, "echo", "inside",
    ]);
    assert_exit(&out, 0);
    assert_eq!(stdout(&out), "inside\n");
    let stats = agent.get(&format!("/v1/client/allocation/{alloc_id}/stats"));
    let mem = &stats["Tasks"]["sleeper"]["ResourceUsage"]["MemoryStats"];
    assert!(mem["Usage"].as_u64().is_some_and(|u| u > 0), "{stats}");

    // Stopping the job stops the recovered task and removes its container.
    assert_exit(&agent.nomad(&["job", "stop", "boxed"]), 0);
    let stopped = agent.wait_alloc("boxed", "docker alloc stopped", |a| {
        a["ID"] == alloc_id.as_str() && a["ClientStatus"] == "complete"
    });
    assert_eq!(stopped["TaskStates"]["sleeper"]["State"], "dead");
    wait_until(Duration::from_secs(30), "container removed", || {
        inspect(&name, "{{.Id}}").is_none().then_some(())
    });
}
