use std::process::Command;

use super::*;

#[test]
fn memory_limits_follow_nomad() {
    let mb = 1024 * 1024;
    let plain = CgroupLimits::from_resources(500, 4000, 256, 0);
    assert_eq!(plain.memory_hard_bytes, Some(256 * mb));
    assert_eq!(plain.memory_soft_bytes, None);
    assert_eq!(plain.cpu_shares, 500);

    let oversub = CgroupLimits::from_resources(500, 4000, 256, 1024);
    assert_eq!(oversub.memory_hard_bytes, Some(1024 * mb));
    assert_eq!(oversub.memory_soft_bytes, Some(256 * mb));

    let unlimited = CgroupLimits::from_resources(500, 4000, 256, -1);
    assert_eq!(unlimited.memory_hard_bytes, None);
    assert_eq!(unlimited.memory_soft_bytes, Some(256 * mb));
}

#[test]
fn cpu_shares_are_clamped_and_mapped_to_weight() {
    assert_eq!(clamp_cpu_shares(0, 4000), MIN_CPU_SHARES);
    assert_eq!(clamp_cpu_shares(1000, 4000), 1000);
    // A node bigger than the kernel's maximum rescales: half the node is half the range.
    assert_eq!(clamp_cpu_shares(262_144, 524_288), 131_072);
    assert_eq!(shares_to_weight(2), 1);
    assert_eq!(shares_to_weight(262_144), 10_000);
    assert_eq!(shares_to_weight(1024), 39);
}

#[test]
fn keyed_values_are_read_by_exact_key() {
    let text = "total_rss 10\nrss 4096\noom_kill 2\n";
    assert_eq!(keyed_value(text, "rss"), Some(4096));
    assert_eq!(keyed_value(text, "oom_kill"), Some(2));
    assert_eq!(keyed_value(text, "cache"), None);
}

/// A cgroup parent private to one test, removed (with whatever is left in it) on drop.
pub(crate) struct TestParent {
    pub root: CgroupRoot,
}

impl TestParent {
    /// None (with the reason printed) when the host cannot run cgroup tests.
    pub fn new() -> Option<TestParent> {
        if !nix::unistd::geteuid().is_root() {
            eprintln!("skipping: cgroup tests need root");
            return None;
        }
        let root = match CgroupRoot::detect() {
            Ok(r) => r,
            Err(e) => {
                eprintln!("skipping: {e}");
                return None;
            }
        };
        let parent = format!("nomad-test-{}", &crate::api::generate_id()[..8]);
        let parent = match root.mode {
            CgroupMode::V1 => parent,
            CgroupMode::V2 => format!("{parent}.slice"),
        };
        Some(TestParent {
            root: root.with_parent(&parent),
        })
    }
}

impl Drop for TestParent {
    fn drop(&mut self) {
        let Ok(dirs) = self.root.dirs("x") else {
            return;
        };
        for (_, scope_dir) in dirs {
            let Some(parent) = scope_dir.parent() else {
                continue;
            };
            if let Ok(entries) = std::fs::read_dir(parent) {
                for e in entries.flatten() {
                    if e.path().is_dir() {
                        let _ = Cgroup {
                            mode: self.root.mode,
                            dirs: vec![(Controller::Unified, e.path())],
                        }
                        .destroy();
                    }
                }
            }
            let _ = std::fs::remove_dir(parent);
        }
    }
}

#[test]
fn create_writes_limits_and_destroy_removes_everything() {
    let Some(t) = TestParent::new() else { return };
    let limits = CgroupLimits::from_resources(700, 4000, 64, 128);
    let scope = t.root.scope_name("a1b2", "web");
    let cg = Cgroup::create(&t.root, &scope, &limits).unwrap();
    assert!(cg.exists());
    let read = |c: Controller, f: &str| {
        std::fs::read_to_string(cg.controller_dir(c).unwrap().join(f))
            .unwrap()
            .trim()
            .to_string()
    };
    match cg.mode() {
        CgroupMode::V1 => {
            assert_eq!(read(Controller::Cpu, "cpu.shares"), "700");
            assert_eq!(
                read(Controller::Memory, "memory.limit_in_bytes"),
                "134217728"
            );
            assert_eq!(
                read(Controller::Memory, "memory.soft_limit_in_bytes"),
                "67108864"
            );
        }
        CgroupMode::V2 => {
            assert_eq!(
                read(Controller::Cpu, "cpu.weight"),
                shares_to_weight(700).to_string()
            );
            assert_eq!(read(Controller::Memory, "memory.max"), "134217728");
            assert_eq!(read(Controller::Memory, "memory.low"), "67108864");
        }
    }

    let mut children: Vec<_> = (0..2)
        .map(|_| Command::new("sleep").arg("60").spawn().unwrap())
        .collect();
    let mut pids: Vec<i32> = children.iter().map(|c| c.id() as i32).collect();
    for pid in &pids {
        cg.add_pid(*pid).unwrap();
    }
    pids.sort_unstable();
    assert_eq!(cg.pids().unwrap(), pids);
    // Memory already charged elsewhere does not move with the pid; the exec driver's tests
    // check usage of processes started inside. Here: the files parse.
    cg.stats().unwrap();
    assert!(!cg.oom_killed());

    cg.destroy().unwrap();
    for c in &mut children {
        let status = c.wait().unwrap();
        assert_eq!(
            std::os::unix::process::ExitStatusExt::signal(&status),
            Some(9)
        );
    }
    assert!(cg.paths().iter().all(|p| !p.exists()), "{:?}", cg.paths());
}

#[test]
fn cpuset_lists_round_trip_in_the_kernels_format() {
    assert_eq!(cpuset_list(&[]), None);
    assert_eq!(
        cpuset_list(&[3, 0, 1, 2, 5, 7, 8]).as_deref(),
        Some("0-3,5,7-8")
    );
    assert_eq!(cpuset_list(&[1, 1]).as_deref(), Some("1"));
    assert_eq!(parse_cpuset_list("0-3,5,7-8\n"), vec![0, 1, 2, 3, 5, 7, 8]);
    assert_eq!(parse_cpuset_list(""), Vec::<u32>::new());
}
