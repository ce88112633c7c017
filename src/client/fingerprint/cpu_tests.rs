use super::*;

/// A fake `/sys/devices/system` + `/proc/cpuinfo` under a temp dir.
struct FakeHost {
    dir: tempfile::TempDir,
}

impl FakeHost {
    fn new() -> Self {
        FakeHost {
            dir: tempfile::tempdir().expect("tempdir"),
        }
    }

    fn put(&self, rel: &str, text: &str) -> &Self {
        let path = self.dir.path().join(rel);
        std::fs::create_dir_all(path.parent().expect("parent")).expect("mkdir");
        std::fs::write(path, text).expect("write");
        self
    }

    fn sources(&self) -> CpuSources {
        CpuSources {
            sys_root: self.dir.path().join("sys"),
            cpuinfo: self.dir.path().join("cpuinfo"),
            agent_cpuset: Some(self.dir.path().join("cpuset.cpus.effective")),
        }
    }
}

const CPUINFO: &str = "processor\t: 0\nmodel name\t: AMD EPYC\ncpu MHz\t\t: 2445.404\n\nprocessor\t: 1\nmodel name\t: AMD EPYC\ncpu MHz\t\t: 2445.404\n";

#[test]
fn parses_cpuinfo() {
    assert_eq!(
        parse_cpuinfo(CPUINFO),
        CpuInfo {
            cores: 2,
            mhz: 2445,
            model: "AMD EPYC".into()
        }
    );
}

#[test]
fn a_vm_without_cpufreq_falls_back_to_cpuinfo_speeds_like_the_recorded_node() {
    // What the recorded Nomad node's host looks like: one NUMA node, no cpufreq.
    let host = FakeHost::new();
    host.put("cpuinfo", CPUINFO)
        .put("sys/node/online", "0\n")
        .put("sys/node/node0/distance", "10\n")
        .put("sys/node/node0/cpulist", "0-1\n")
        .put("sys/cpu/online", "0-1\n")
        .put("sys/cpu/cpu0/topology/thread_siblings_list", "0\n")
        .put("sys/cpu/cpu1/topology/thread_siblings_list", "1\n");
    let fp = fingerprint(&host.sources(), &CpuConfig::default());
    let core = |id| CpuCore {
        id,
        grade: true,
        base_speed: 2445,
        ..Default::default()
    };
    assert_eq!(
        fp.topology,
        CpuTopology {
            cores: vec![core(0), core(1)],
            distances: None,
            nodes: vec![0],
            ..Default::default()
        }
    );
    let want: BTreeMap<String, String> = [
        ("cpu.frequency", "2445"),
        ("cpu.numcores", "2"),
        ("cpu.reservablecores", "2"),
        ("cpu.totalcompute", "4890"),
        ("cpu.usablecompute", "4890"),
        ("numa.node.count", "1"),
        ("numa.node0.cores", "0-1"),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v.to_string()))
    .collect();
    assert_eq!(fp.attributes, want);
    assert_eq!(fp.model, "AMD EPYC");
    // On the wire the topology is Nomad's: distances null, speeds in MHz.
    let json = serde_json::to_value(&fp.topology).expect("json");
    assert_eq!(json["Distances"], serde_json::Value::Null);
    assert_eq!(json["Cores"][1]["BaseSpeed"], 2445);
    assert_eq!(json["Cores"][1]["Grade"], true);
    assert_eq!(json["Nodes"], serde_json::json!([0]));
}

#[test]
fn two_numa_nodes_with_hyperthreads_and_cpufreq_come_from_sysfs() {
    let host = FakeHost::new();
    host.put("cpuinfo", CPUINFO)
        .put("sys/node/online", "0-1\n")
        .put("sys/node/node0/distance", "10 21\n")
        .put("sys/node/node1/distance", "21 10\n")
        .put("sys/node/node0/cpulist", "0-1\n")
        .put("sys/node/node1/cpulist", "2-3\n")
        .put("sys/cpu/online", "0-3\n")
        .put("cpuset.cpus.effective", "0-2\n");
    for cpu in 0..4 {
        let sibling = if cpu % 2 == 0 { cpu + 1 } else { cpu - 1 };
        host.put(
            &format!("sys/cpu/cpu{cpu}/topology/thread_siblings_list"),
            &format!("{},{}", cpu.min(sibling), cpu.max(sibling)),
        )
        .put(
            &format!("sys/cpu/cpu{cpu}/topology/physical_package_id"),
            &(cpu / 2).to_string(),
        )
        .put(
            &format!("sys/cpu/cpu{cpu}/cpufreq/scaling_driver"),
            "intel_pstate\n",
        )
        .put(
            &format!("sys/cpu/cpu{cpu}/cpufreq/base_frequency"),
            "3000000\n",
        )
        .put(
            &format!("sys/cpu/cpu{cpu}/cpufreq/cpuinfo_max_freq"),
            "4500000\n",
        );
    }
    let fp = fingerprint(
        &host.sources(),
        &CpuConfig {
            reserved_mhz: 1000,
            ..Default::default()
        },
    );
    assert_eq!(fp.topology.nodes, vec![0, 1]);
    assert_eq!(
        fp.topology.distances,
        Some(vec![vec![10, 21], vec![21, 10]])
    );
    assert_eq!(fp.topology.override_withold_compute, 1000);
    let c3 = &fp.topology.cores[3];
    assert_eq!(
        (c3.node_id, c3.socket_id, c3.base_speed, c3.max_speed),
        (1, 1, 3000, 4500)
    );
    assert!(
        c3.grade && c3.disable,
        "core 3 is outside the agent's cpuset"
    );
    assert_eq!(fp.usable_cores(), vec![0, 1, 2]);
    assert_eq!(fp.attributes["numa.node.count"], "2");
    assert_eq!(fp.attributes["numa.node0.cores"], "0-1");
    assert_eq!(fp.attributes["numa.node1.cores"], "2-3");
    assert_eq!(fp.attributes["cpu.frequency"], "3000");
    assert_eq!(fp.attributes["cpu.totalcompute"], "12000");
    assert_eq!(fp.attributes["cpu.usablecompute"], "8000");
    assert_eq!(fp.attributes["cpu.reservablecores"], "3");
    // Go's []uint8 rows travel as base64.
    let json = serde_json::to_value(&fp.topology).expect("json");
    assert_eq!(json["Distances"], serde_json::json!(["ChU=", "FQo="]));
    let back: CpuTopology = serde_json::from_value(json).expect("round trip");
    assert_eq!(back, fp.topology);
}

#[test]
fn cores_without_hyperthreads_are_efficiency_cores_as_nomad_grades_them() {
    let host = FakeHost::new();
    host.put("sys/node/online", "0\n")
        .put("sys/node/node0/distance", "10\n")
        .put("sys/node/node0/cpulist", "0-1\n")
        .put("sys/cpu/online", "0-1\n")
        .put("sys/cpu/cpu0/cpufreq/cpuinfo_max_freq", "2000000\n")
        .put("sys/cpu/cpu1/cpufreq/cpuinfo_max_freq", "2000000\n");
    let fp = fingerprint(&host.sources(), &CpuConfig::default());
    assert_eq!(fp.attributes["cpu.frequency.efficiency"], "2000");
    assert_eq!(fp.attributes["cpu.frequency.performance"], "0");
    assert_eq!(fp.attributes["cpu.numcores.efficiency"], "2");
    assert!(!fp.attributes.contains_key("cpu.frequency"));
}

#[test]
fn an_empty_host_still_reports_one_node_and_the_parallelism() {
    let host = FakeHost::new();
    let fp = fingerprint(
        &host.sources(),
        &CpuConfig {
            total_compute_mhz: 8000,
            ..Default::default()
        },
    );
    assert_eq!(fp.topology.nodes, vec![0]);
    assert!(!fp.topology.cores.is_empty());
    assert_eq!(fp.attributes["cpu.totalcompute"], "8000");
    assert_eq!(fp.attributes["numa.node.count"], "1");
}

#[test]
fn the_real_host_scans_without_panicking_and_agrees_with_proc() {
    let fp = fingerprint(&CpuSources::host(), &CpuConfig::default());
    let procs = parse_cpuinfo(&std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default());
    if procs.cores > 0 {
        assert_eq!(fp.topology.cores.len() as u32, procs.cores);
    }
    assert!(fp.total_compute() > 0);
    assert_eq!(
        fp.attributes["numa.node.count"],
        fp.topology.nodes.len().to_string()
    );
}

#[test]
fn core_lists_from_the_config_parse_strictly() {
    for (text, want) in [
        ("0-3", Ok(vec![0, 1, 2, 3])),
        ("3, 0-1,1", Ok(vec![0, 1, 3])),
        ("", Ok(vec![])),
        ("x", Err("invalid core id")),
        ("3-1", Err("invalid core range")),
        ("0-4000000000", Err("invalid core range")),
        ("1-", Err("invalid core id")),
    ] {
        match (parse_core_list(text), want) {
            (Ok(got), Ok(want)) => assert_eq!(got, want, "{text:?}"),
            (Err(e), Err(want)) => assert!(e.contains(want), "{text:?}: {e}"),
            (got, want) => panic!("{text:?}: got {got:?}, want {want:?}"),
        }
    }
}

#[test]
fn reservable_and_reserved_cores_narrow_the_usable_cores_even_on_the_generic_scan() {
    // The recorded VM's shape (no cpufreq, so the generic scan stands in), four CPUs.
    let host = FakeHost::new();
    let cpuinfo: String = (0..4)
        .map(|i| format!("processor\t: {i}\nmodel name\t: AMD EPYC\ncpu MHz\t\t: 2445.404\n\n"))
        .collect();
    host.put("cpuinfo", &cpuinfo)
        .put("cpuset.cpus.effective", "0-2\n");
    for (cfg, usable, usable_mhz) in [
        (CpuConfig::default(), vec![0, 1, 2], 3 * 2445),
        (
            CpuConfig {
                reservable_cores: Some(vec![1, 2, 3]),
                ..Default::default()
            },
            vec![1, 2, 3],
            3 * 2445,
        ),
        (
            CpuConfig {
                reserved_cores: vec![0],
                reserved_mhz: 445,
                ..Default::default()
            },
            vec![1, 2],
            2 * 2445 - 445,
        ),
    ] {
        let fp = fingerprint(&host.sources(), &cfg);
        assert_eq!(fp.usable_cores(), usable, "{cfg:?}");
        assert_eq!(fp.attributes["cpu.numcores"], "4");
        assert_eq!(fp.attributes["cpu.totalcompute"], (4 * 2445).to_string());
        assert_eq!(fp.attributes["cpu.usablecompute"], usable_mhz.to_string());
        assert_eq!(
            fp.attributes["cpu.reservablecores"],
            usable.len().to_string()
        );
    }
}
