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

/// A fake cgroup v2 hierarchy in a temp dir: the files the kernel would show at `mount` and
/// at each level below it (mkdir on a real cgroup2 fs creates them).
fn fake_v2_level(dir: &std::path::Path, controllers: &str) {
    std::fs::create_dir_all(dir).unwrap();
    std::fs::write(dir.join("cgroup.controllers"), controllers).unwrap();
    std::fs::write(dir.join("cgroup.subtree_control"), "").unwrap();
}

#[test]
fn v2_creates_the_scope_with_weight_memory_and_cpuset_limits() {
    let tmp = tempfile::tempdir().unwrap();
    let mount = tmp.path();
    let all = "cpuset cpu io memory pids";
    fake_v2_level(mount, all);
    fake_v2_level(&mount.join("nomad.slice"), all);
    fake_v2_level(&mount.join("nomad.slice/share.slice"), all);
    let scope = mount.join("nomad.slice/share.slice/a1.web.scope");
    std::fs::create_dir_all(&scope).unwrap();
    // Present only with swap accounting on, as on a real host.
    std::fs::write(scope.join("memory.swap.max"), "max").unwrap();
    let mut limits = CgroupLimits::from_resources(1024, 4000, 256, 512);
    limits.cpuset_cpus = Some("0-1".to_string());
    v2::create(mount, DEFAULT_PARENT_V2, &scope, &limits).unwrap();
    let read = |f: &str| std::fs::read_to_string(scope.join(f)).unwrap();
    assert_eq!(read("cpu.weight"), shares_to_weight(1024).to_string());
    assert_eq!(read("memory.max"), (512u64 * 1024 * 1024).to_string());
    assert_eq!(read("memory.low"), (256u64 * 1024 * 1024).to_string());
    assert_eq!(read("memory.swap.max"), "0");
    assert_eq!(read("cpuset.cpus"), "0-1");
    // Controllers were enabled for the children at every level (a plain file keeps only
    // the last write; cgroupfs adds each one).
    for level in ["", "nomad.slice", "nomad.slice/share.slice"] {
        let sub =
            std::fs::read_to_string(mount.join(level).join("cgroup.subtree_control")).unwrap();
        assert!(sub.starts_with('+'), "{level}: {sub:?}");
    }
}

#[test]
fn v2_without_a_controller_file_is_an_error_naming_it() {
    let tmp = tempfile::tempdir().unwrap();
    let err = v2::create(
        tmp.path(),
        DEFAULT_PARENT_V2,
        &tmp.path().join("x.scope"),
        &CgroupLimits::default(),
    )
    .unwrap_err();
    assert!(err.to_string().contains("cgroup.controllers"), "{err}");
}

#[test]
fn v2_stats_oom_and_kill_read_the_unified_files() {
    let tmp = tempfile::tempdir().unwrap();
    let dir = tmp.path();
    let w = |f: &str, text: &str| std::fs::write(dir.join(f), text).unwrap();
    w("memory.stat", "anon 4096\nfile 8192\nkernel 100\n");
    w(
        "cpu.stat",
        "usage_usec 300\nuser_usec 200\nsystem_usec 100\n",
    );
    w("memory.current", "20000\n");
    w("memory.peak", "50000\n");
    w("memory.swap.current", "7\n");
    let s = stats::read_v2(dir).unwrap();
    assert_eq!(
        s,
        stats::CgroupStats {
            memory_rss_bytes: 4096,
            memory_cache_bytes: 8192,
            memory_swap_bytes: 7,
            memory_usage_bytes: 20000,
            memory_max_usage_bytes: 50000,
            cpu_user_ns: 200_000,
            cpu_system_ns: 100_000,
            cpu_total_ns: 300_000,
        }
    );
    // Before Linux 5.19 there is no memory.peak: the current usage stands in.
    std::fs::remove_file(dir.join("memory.peak")).unwrap();
    assert_eq!(stats::read_v2(dir).unwrap().memory_max_usage_bytes, 20000);

    w("memory.events", "low 0\nhigh 0\nmax 3\noom 1\noom_kill 0\n");
    assert!(!v2::oom_killed(dir));
    w("memory.events", "low 0\nhigh 0\nmax 3\noom 1\noom_kill 1\n");
    assert!(v2::oom_killed(dir));

    // cgroup.kill exists from Linux 5.14; without it the caller falls back to signals.
    assert!(!v2::kill(dir));
    w("cgroup.kill", "");
    assert!(v2::kill(dir));
    assert_eq!(
        std::fs::read_to_string(dir.join("cgroup.kill")).unwrap(),
        "1"
    );
}
