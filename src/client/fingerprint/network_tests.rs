use super::*;

fn lo() -> Interface {
    Interface {
        name: "lo".into(),
        mac: String::new(),
        addrs: vec!["127.0.0.1".parse().expect("ip"), "::1".parse().expect("ip")],
    }
}

fn eth0() -> Interface {
    Interface {
        name: "eth0".into(),
        mac: "52:54:00:12:34:56".into(),
        addrs: vec![
            "10.0.0.5".parse().expect("ip"),
            "fe80::5054:ff:fe12:3456".parse().expect("ip"),
        ],
    }
}

#[test]
fn dev_mode_loopback_matches_the_recorded_node() {
    let ifaces = [lo(), eth0()];
    let fp = fingerprint(&NetworkInputs {
        interfaces: &ifaces,
        device: "lo",
        preferred_ip: "127.0.0.1",
        configured_mbits: 0,
        bridge: Some(""),
        sys_class_net: Path::new("/nonexistent"),
    });
    // NodeResources.Networks and NodeNetworks of the node recorded from Nomad 2.0.6 -dev.
    let recorded = serde_json::json!({
        "Networks": [
            {"Mode": "bridge"},
            {"CIDR": "127.0.0.1/32", "Device": "lo", "IP": "127.0.0.1", "MBits": 1000, "Mode": "host"},
            {"CIDR": "::1/128", "Device": "lo", "IP": "::1", "MBits": 1000, "Mode": "host"}
        ],
        "NodeNetworks": [
            {"Addresses": null, "Device": "", "MacAddress": "", "Mode": "bridge", "Speed": 0},
            {"Addresses": [
                {"Address": "127.0.0.1", "Alias": "default", "Family": "ipv4", "Gateway": "", "ReservedPorts": ""},
                {"Address": "::1", "Alias": "default", "Family": "ipv6", "Gateway": "", "ReservedPorts": ""}
             ],
             "Device": "lo", "MacAddress": "", "Mode": "host", "Speed": 1000}
        ]
    });
    assert_eq!(
        serde_json::to_value(&fp.networks).expect("json"),
        recorded["Networks"]
    );
    assert_eq!(
        serde_json::to_value(&fp.node_networks).expect("json"),
        recorded["NodeNetworks"]
    );
    assert_eq!(fp.ip_address.as_deref(), Some("127.0.0.1"));
}

#[test]
fn link_local_addresses_are_offered_only_when_nothing_else_is() {
    assert_eq!(offered(&eth0().addrs), vec![eth0().addrs[0]]);
    let only_local: Vec<IpAddr> = vec!["fe80::1".parse().expect("ip")];
    assert_eq!(offered(&only_local), only_local);
}

#[test]
fn the_configured_speed_wins_and_other_interfaces_get_no_node_network() {
    let ifaces = [lo(), eth0()];
    let fp = fingerprint(&NetworkInputs {
        interfaces: &ifaces,
        device: "eth0",
        preferred_ip: "",
        configured_mbits: 100,
        bridge: None,
        sys_class_net: Path::new("/nonexistent"),
    });
    assert_eq!(fp.networks.len(), 1);
    assert_eq!(fp.networks[0].cidr, "10.0.0.5/32");
    assert_eq!(fp.networks[0].mbits, 100);
    assert_eq!(fp.node_networks.len(), 1);
    assert_eq!(fp.node_networks[0].mac_address, "52:54:00:12:34:56");
    assert_eq!(fp.node_networks[0].speed, DEFAULT_LINK_MBITS);
}

#[test]
fn link_speed_reads_sysfs_and_ignores_unknown_speeds() {
    let dir = tempfile::tempdir().expect("tempdir");
    for (dev, speed) in [("eth0", "10000\n"), ("wlan0", "-1\n")] {
        std::fs::create_dir_all(dir.path().join(dev)).expect("mkdir");
        std::fs::write(dir.path().join(dev).join("speed"), speed).expect("write");
    }
    assert_eq!(link_speed(dir.path(), "eth0"), 10000);
    assert_eq!(link_speed(dir.path(), "wlan0"), 0);
    assert_eq!(link_speed(dir.path(), "missing"), 0);
}

#[test]
fn the_hosts_loopback_lists_its_ipv4_address_first() {
    let ifaces = interfaces();
    let lo = ifaces
        .iter()
        .find(|i| i.name == "lo")
        .expect("every Linux host has lo");
    assert_eq!(lo.addrs.first(), Some(&IpAddr::V4(Ipv4Addr::LOCALHOST)));
    assert_eq!(
        lo.mac, "",
        "loopback's all-zero MAC is dropped, as Go drops it"
    );
}

#[test]
fn resolves_loopback_both_ways() {
    assert_eq!(resolve("lo", ""), ("lo".into(), "127.0.0.1".into()));
    assert_eq!(resolve("", "127.0.0.1"), ("lo".into(), "127.0.0.1".into()));
    let (dev, ip) = resolve("", "");
    assert!(!dev.is_empty() && ip.parse::<Ipv4Addr>().is_ok());
}
