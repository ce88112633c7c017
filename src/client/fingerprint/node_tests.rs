use super::*;

#[tokio::test]
async fn fingerprints_a_node_with_nomads_attribute_keys() {
    let tmp = tempfile::tempdir().unwrap();
    let cfg = ClientConfig::dev(tmp.path());
    let drivers = DriverRegistry::from_config(&cfg.drivers);
    let node = fingerprint(&cfg, &drivers).await.unwrap();
    for key in [
        "cpu.arch",
        "cpu.numcores",
        "cpu.frequency",
        "cpu.totalcompute",
        "memory.totalbytes",
        "kernel.name",
        "kernel.version",
        "os.name",
        "unique.hostname",
        "unique.storage.bytestotal",
        "nomad.version",
        "os.cgroups.version",
    ] {
        assert!(
            node.attributes.get(key).is_some_and(|v| !v.is_empty()),
            "{key}"
        );
    }
    assert_eq!(node.attributes["kernel.name"], "linux");
    assert_eq!(node.attributes["driver.raw_exec"], "1");
    assert_eq!(node.attributes["driver.mock_driver"], "1");
    assert_eq!(node.attributes["nomad.service_discovery"], "true");
    assert_eq!(node.drivers["raw_exec"].health_description, "Healthy");
    assert_eq!(node.status, "ready", "a fingerprinted node registers ready");
    assert!(node.computed_class.starts_with("v1:"));
    assert!(node.node_resources.cpu.cpu_shares > 0);
    let host: Vec<_> = node
        .node_resources
        .networks
        .iter()
        .filter(|n| n.mode == "host")
        .collect();
    assert_eq!(host[0].device, "lo");
    assert_eq!(host[0].cidr, "127.0.0.1/32");
    assert_eq!(node.attributes["unique.network.ip-address"], "127.0.0.1");
    assert_eq!(node.address(), "127.0.0.1");
    let node_nets = node.node_resources.node_networks.as_deref().unwrap_or(&[]);
    assert!(node_nets
        .iter()
        .any(|n| n.device == "lo" && n.mode == "host"));
    // The CPU topology agrees with the cpu attributes it was derived from.
    let top = node
        .node_resources
        .processors
        .topology
        .as_ref()
        .expect("topology");
    assert_eq!(node.attributes["cpu.numcores"], top.cores.len().to_string());
    assert_eq!(
        node.attributes["numa.node.count"],
        top.nodes.len().to_string()
    );
    assert!(node.attributes.contains_key("numa.node0.cores"));
    assert_eq!(
        node.node_resources.cpu.cpu_shares.to_string(),
        node.attributes["cpu.totalcompute"]
    );
    // Storage is the alloc dir's filesystem, as `df` sees it.
    let disk_mb = node.node_resources.disk.disk_mb;
    assert!(disk_mb > 0);
    assert_eq!(
        node.attributes["unique.storage.bytestotal"]
            .parse::<i64>()
            .map(|b| b / 1024 / 1024)
            .ok(),
        Some(disk_mb)
    );
    if let Ok(out) = std::process::Command::new("df")
        .arg("-kP")
        .arg(cfg.alloc_root())
        .output()
    {
        let text = String::from_utf8_lossy(&out.stdout).into_owned();
        let fields: Vec<&str> = text
            .lines()
            .nth(1)
            .unwrap_or("")
            .split_whitespace()
            .collect();
        assert_eq!(node.attributes["unique.storage.volume"], fields[0]);
        assert_eq!(
            node.attributes["unique.storage.bytestotal"],
            (fields[1].parse::<u64>().expect("df 1024-blocks") * 1024).to_string()
        );
    }
    assert_eq!(node.meta["connect.log_level"], "info");
    // The identity survives a restart.
    let again = fingerprint(&cfg, &drivers).await.unwrap();
    assert_eq!(again.id, node.id);
    assert_eq!(again.secret_id, node.secret_id);
    assert_eq!(again.computed_class, node.computed_class);
    assert_eq!(
        std::fs::read_to_string(tmp.path().join("client/client-id")).unwrap(),
        node.id
    );
}

#[test]
fn computed_class_ignores_unique_attributes() {
    let mut a = Node::default();
    a.attributes.insert("kernel.name".into(), "linux".into());
    let mut b = a.clone();
    b.attributes.insert("unique.hostname".into(), "x".into());
    assert_eq!(computed_class(&a), computed_class(&b));
    b.attributes.insert("os.name".into(), "debian".into());
    assert_ne!(computed_class(&a), computed_class(&b));
}

/// The attribute keys of the node recorded from Nomad 2.0.6 `-dev` (GET /v1/node/:id).
const RECORDED_KEYS: &[&str] = &[
    "cpu.arch",
    "cpu.frequency",
    "cpu.modelname",
    "cpu.numcores",
    "cpu.reservablecores",
    "cpu.totalcompute",
    "cpu.usablecompute",
    "driver.docker",
    "driver.docker.bridge_ip",
    "driver.docker.os_type",
    "driver.docker.runtimes",
    "driver.docker.version",
    "driver.exec",
    "driver.java",
    "driver.java.runtime",
    "driver.java.version",
    "driver.java.vm",
    "driver.mock_driver",
    "driver.raw_exec",
    "kernel.arch",
    "kernel.landlock",
    "kernel.name",
    "kernel.version",
    "memory.totalbytes",
    "nomad.bridge.hairpin_mode",
    "nomad.revision",
    "nomad.service_discovery",
    "nomad.version",
    "numa.node.count",
    "numa.node0.cores",
    "os.cgroups.version",
    "os.name",
    "os.signals",
    "os.version",
    "plugins.host_volume.mkdir.version",
    "plugins.secrets.nomad.version",
    "plugins.secrets.vault.version",
    "unique.advertise.address",
    "unique.host_id",
    "unique.hostname",
    "unique.network.ip-address",
    "unique.storage.bytestotal",
    "unique.storage.volume",
];

/// Left out on purpose (the module doc says why).
const NOT_REPORTED: &[&str] = &[
    "driver.java",
    "driver.java.runtime",
    "driver.java.version",
    "driver.java.vm",
    "plugins.host_volume.mkdir.version",
    "plugins.secrets.nomad.version",
    "plugins.secrets.vault.version",
];

#[tokio::test]
async fn the_attribute_keys_match_the_recorded_nomad_node_where_the_host_allows() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let cfg = ClientConfig::dev(tmp.path());
    let drivers = DriverRegistry::from_config(&cfg.drivers);
    let node = fingerprint(&cfg, &drivers).await.expect("fingerprint");
    let healthy = |d: &str| node.drivers.get(d).is_some_and(|d| d.healthy);
    let bridge = node
        .node_resources
        .networks
        .iter()
        .any(|n| n.mode == "bridge");
    let host = host::HostFiles::host();
    let hybrid = node.attributes.contains_key("cpu.frequency.performance");
    for key in RECORDED_KEYS.iter().filter(|k| !NOT_REPORTED.contains(k)) {
        let expected = match *key {
            // Docker engines since 17.09 leave the Gateway out of the default bridge's IPAM
            // config unless the daemon was given one, and Nomad then reports no bridge_ip.
            "driver.docker.bridge_ip" => match node.attributes.get(*key) {
                Some(ip) => {
                    assert!(ip.parse::<std::net::IpAddr>().is_ok(), "bridge_ip {ip}");
                    assert!(
                        healthy("docker"),
                        "bridge_ip without a healthy docker driver"
                    );
                    true
                }
                None => false,
            },
            k if k.starts_with("driver.docker") => healthy("docker"),
            "driver.exec" => healthy("exec"),
            "kernel.landlock" => landlock_abi().is_some(),
            "nomad.bridge.hairpin_mode" => bridge,
            "os.cgroups.version" => host.cgroups_version().is_some(),
            "unique.host_id" => host.host_id().is_some(),
            "cpu.frequency" => !hybrid,
            _ => true,
        };
        assert_eq!(
            node.attributes.contains_key(*key),
            expected,
            "{key} in {:?}",
            node.attributes.keys().collect::<Vec<_>>()
        );
    }
    let extra_ok = |k: &str| {
        k.starts_with("driver.")
            || (k.starts_with("numa.node") && k.ends_with(".cores"))
            || k.starts_with("cpu.frequency.")
            || k.starts_with("cpu.numcores.")
    };
    for key in node.attributes.keys() {
        assert!(
            RECORDED_KEYS.contains(&key.as_str()) || extra_ok(key),
            "{key} is not an attribute Nomad reports"
        );
        assert!(!NOT_REPORTED.contains(&key.as_str()), "{key}");
    }
}

#[tokio::test]
async fn the_real_hosts_facts_are_reported_as_the_system_tools_see_them() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let cfg = ClientConfig::dev(tmp.path());
    let node = fingerprint(&cfg, &DriverRegistry::from_config(&cfg.drivers))
        .await
        .expect("fingerprint");
    let attr = |k: &str| node.attributes.get(k).cloned().unwrap_or_default();
    let tool = |cmd: &str, args: &[&str]| {
        std::process::Command::new(cmd)
            .args(args)
            .output()
            .ok()
            .filter(|o| o.status.success())
            .map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string())
    };
    if let Some(release) = tool("uname", &["-r"]) {
        assert_eq!(attr("kernel.version"), release);
    }
    if let Some(machine) = tool("uname", &["-m"]) {
        assert_eq!(attr("kernel.arch"), machine);
    }
    if let Some(name) = tool("hostname", &[]) {
        assert_eq!(attr("unique.hostname"), name);
    }
    if let Some(n) = tool("getconf", &["_NPROCESSORS_ONLN"]) {
        assert_eq!(attr("cpu.numcores"), n);
    }
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    if let Some(bytes) = host::parse_mem_total(&meminfo) {
        assert_eq!(attr("memory.totalbytes"), bytes.to_string());
        assert_eq!(
            node.node_resources.memory.memory_mb,
            i64::try_from(bytes / 1024 / 1024).expect("fits")
        );
    }
    let v2 = Path::new("/sys/fs/cgroup/cgroup.controllers").exists();
    if Path::new("/sys/fs/cgroup/cpu").exists() || v2 {
        assert_eq!(attr("os.cgroups.version"), if v2 { "2" } else { "1" });
    }
    // Every host address of the network interface is offered, the advertised one first.
    let host_nets: Vec<&str> = node
        .node_resources
        .networks
        .iter()
        .filter(|n| n.mode == "host")
        .map(|n| n.ip.as_str())
        .collect();
    assert_eq!(host_nets.first().copied(), Some("127.0.0.1"));
    if Path::new("/proc/net/if_inet6").exists()
        && std::fs::read_to_string("/proc/net/if_inet6")
            .unwrap_or_default()
            .lines()
            .any(|l| l.ends_with(" lo"))
    {
        assert!(host_nets.contains(&"::1"), "{host_nets:?}");
    }
}
