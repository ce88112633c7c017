//! The exec driver through the real agent: an isolated task reaches running, its output is
//! readable with `nomad alloc logs`, and stopping the job removes its cgroup. Skips (saying
//! why) unless run as root on a host with cgroups.

use std::time::Duration;

use nomad::drivers::cgroups::{Cgroup, CgroupMode, CgroupRoot};

use crate::harness::*;

/// The test's own cgroup parent, removed on drop, so parallel agents never share one.
pub(crate) struct ParentGuard {
    pub root: CgroupRoot,
}

impl Drop for ParentGuard {
    fn drop(&mut self) {
        // Whatever a failed run left behind: kill and remove each task cgroup, then the parent.
        let probe = match self.root.mode {
            CgroupMode::V2 => self.root.mount.join(&self.root.parent),
            CgroupMode::V1 => self.root.mount.join("memory").join(&self.root.parent),
        };
        for entry in std::fs::read_dir(probe).into_iter().flatten().flatten() {
            if entry.path().is_dir() {
                let name = entry.file_name().to_string_lossy().to_string();
                if let Ok(cg) = Cgroup::open(&self.root, &name) {
                    let _ = cg.destroy();
                }
            }
        }
        let dirs = match self.root.mode {
            CgroupMode::V2 => vec![self.root.mount.join(&self.root.parent)],
            CgroupMode::V1 => ["cpu", "cpuacct", "memory", "pids", "cpuset", "freezer"]
                .iter()
                .map(|c| self.root.mount.join(c).join(&self.root.parent))
                .collect(),
        };
        for d in dirs {
            let _ = std::fs::remove_dir(d);
        }
    }
}

/// A cgroup parent for one test when the exec driver can run here (root, cgroups).
pub(crate) fn exec_root() -> Option<ParentGuard> {
    if !nix::unistd::geteuid().is_root() {
        eprintln!("skipping: the exec driver needs root");
        return None;
    }
    match CgroupRoot::detect() {
        Ok(root) => {
            let parent = format!("nomad-it-{}", uuid::Uuid::new_v4().simple());
            Some(ParentGuard {
                root: root.with_parent(&parent),
            })
        }
        Err(e) => {
            eprintln!("skipping: {e}");
            None
        }
    }
}

impl ParentGuard {
    /// An agent config file (in `dir`) pointing the exec plugin at this parent.
    pub(crate) fn plugin_config(&self, dir: &std::path::Path) -> std::path::PathBuf {
        let plugin = dir.join("exec.hcl");
        std::fs::write(
            &plugin,
            format!(
                "plugin \"exec\" {{\n  config {{\n    cgroup_parent = \"{}\"\n  }}\n}}\n",
                self.root.parent
            ),
        )
        .expect("write plugin config");
        plugin
    }
}

#[test]
fn exec_job_runs_isolated_logs_are_readable_and_stop_removes_the_cgroup() {
    let Some(guard) = exec_root() else { return };
    let extra = tempfile::tempdir().expect("tmp");
    let plugin = guard.plugin_config(extra.path());
    let agent = Agent::start(AgentOpts {
        flags: vec![format!("-config={}", plugin.display())],
        ..Default::default()
    });
    let node_id = wait_until(Duration::from_secs(20), "node registered", || {
        agent.get("/v1/nodes")[0]["ID"].as_str().map(str::to_string)
    });
    wait_until(Duration::from_secs(20), "exec fingerprinted", || {
        let n = agent.get(&format!("/v1/node/{node_id}"));
        (n["Drivers"]["exec"]["Healthy"] == true).then_some(())
    });

    let job = agent.path("exec.nomad.hcl");
    std::fs::write(
        &job,
        r#"job "exectest" {
  group "g" {
    task "box" {
      driver = "exec"
      config {
        command = "/bin/sh"
        args    = ["-c", "echo hello-from-exec pid=$$; id -un; test -e /root || echo no-root; exec sleep 600"]
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
    assert_exit(
        &agent.nomad(&["job", "run", job.to_str().expect("path")]),
        0,
    );
    let alloc = agent.wait_alloc("exectest", "exec task running", |a| {
        a["ClientStatus"] == "running"
    });
    let alloc_id = alloc["ID"].as_str().expect("alloc ID").to_string();
    let logs = wait_until(Duration::from_secs(20), "task output in alloc logs", || {
        let out = stdout(&agent.nomad(&["alloc", "logs", &alloc_id, "box"]));
        out.contains("no-root").then_some(out)
    });
    assert_eq!(logs, "hello-from-exec pid=1\nnobody\nno-root\n");

    let scope = guard.root.scope_name(&alloc_id, "box");
    let cgroup = Cgroup::open(&guard.root, &scope).expect("cgroup handle");
    assert!(cgroup.exists(), "no cgroup at {:?}", cgroup.paths());
    assert_eq!(cgroup.pids().expect("pids").len(), 1);

    assert_exit(&agent.nomad(&["job", "stop", "exectest"]), 0);
    wait_until(Duration::from_secs(30), "task cgroup removed", || {
        (!cgroup.paths().iter().any(|p| p.exists())).then_some(())
    });
}
