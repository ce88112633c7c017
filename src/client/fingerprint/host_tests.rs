use super::*;

/// The recorded Nomad node's host: Debian 12.11 on a VM with a hybrid cgroup hierarchy.
const MOUNTS_HYBRID: &str = "\
proc /proc proc rw,relatime 0 0
/dev/vda / ext4 rw,relatime,discard 0 0
tmpfs /sys/fs/cgroup tmpfs rw,relatime,mode=755 0 0
cgroup /sys/fs/cgroup/cpuset cgroup rw,relatime,cpuset 0 0
cgroup2 /sys/fs/cgroup/unified cgroup2 rw,relatime 0 0
/dev/vdb /var/lib/nomad ext4 rw,relatime 0 0
/dev/vdc /var/lib/nomad\\040data xfs rw,relatime 0 0
";

const MOUNTS_UNIFIED: &str = "\
/dev/sda1 / ext4 rw 0 0
cgroup2 /sys/fs/cgroup cgroup2 rw,nsdelegate 0 0
overlay /srv overlay rw 0 0
/dev/sdb1 /srv xfs rw 0 0
";

#[test]
fn mem_total_is_meminfo_kib_in_bytes() {
    for (text, want) in [
        (
            "MemTotal:       24683584 kB\nMemFree: 1 kB\n",
            Some(25_275_990_016),
        ),
        ("MemFree:        1 kB\n", None),
        ("MemTotal:       lots kB\n", None),
        ("MemTotal: 0 kB\n", None),
        ("", None),
    ] {
        assert_eq!(parse_mem_total(text), want, "{text:?}");
    }
}

#[test]
fn os_release_id_and_version_id_unquoted() {
    for (text, want) in [
        (
            "PRETTY_NAME=\"Debian GNU/Linux 12 (bookworm)\"\nNAME=\"Debian GNU/Linux\"\nVERSION_ID=\"12\"\nID=debian\n",
            ("debian", "12"),
        ),
        ("ID='ubuntu'\nVERSION_ID='24.04'\nID_LIKE=debian\n", ("ubuntu", "24.04")),
        ("ID=arch\n", ("arch", "")),
        ("garbage without equals\n", ("", "")),
    ] {
        let (id, v) = parse_os_release(text);
        assert_eq!((id.as_str(), v.as_str()), want, "{text:?}");
    }
    assert_eq!(debian_point_release("12.11\n").as_deref(), Some("12.11"));
    assert_eq!(debian_point_release("trixie/sid\n"), None);
}

#[test]
fn machine_id_becomes_the_uuid_nomad_reports() {
    assert_eq!(
        machine_id_uuid("3D1219C7C4C5404AAA1F6D2A48ADFDA4\n").as_deref(),
        Some("3d1219c7-c4c5-404a-aa1f-6d2a48adfda4")
    );
    for bad in [
        "",
        "xyz",
        "3d1219c7c4c5404aaa1f6d2a48adfda",
        "uninitialized\n",
    ] {
        assert_eq!(machine_id_uuid(bad), None, "{bad:?}");
    }
}

#[test]
fn storage_device_is_the_innermost_mount_of_the_path() {
    for (mounts, path, want) in [
        (MOUNTS_HYBRID, "/tmp/nomad/alloc", Some("/dev/vda")),
        (MOUNTS_HYBRID, "/var/lib/nomad/alloc", Some("/dev/vdb")),
        (MOUNTS_HYBRID, "/var/lib/nomadx", Some("/dev/vda")),
        (MOUNTS_HYBRID, "/var/lib/nomad data/alloc", Some("/dev/vdc")),
        // Stacked mounts: the last one is what the path sees.
        (MOUNTS_UNIFIED, "/srv/alloc", Some("/dev/sdb1")),
        ("", "/", None),
        ("junk\n", "/", None),
    ] {
        assert_eq!(
            mount_source(mounts, Path::new(path)).as_deref(),
            want,
            "{path}"
        );
    }
}

#[test]
fn cgroups_version_from_the_mount_at_sys_fs_cgroup() {
    assert_eq!(
        cgroups_version(MOUNTS_HYBRID),
        Some("1"),
        "hybrid counts as v1"
    );
    assert_eq!(cgroups_version(MOUNTS_UNIFIED), Some("2"));
    assert_eq!(cgroups_version("/dev/vda / ext4 rw 0 0\n"), None);
}

#[test]
fn bridge_module_loaded_or_built_in() {
    let modules = "br_netfilter 32768 0 - Live 0x0\nbridge 311296 1 br_netfilter, Live 0x0\n";
    assert!(module_loaded(modules, "bridge"));
    assert!(!module_loaded(
        "br_netfilter 32768 0 - Live 0x0\n",
        "bridge"
    ));
    assert!(module_builtin(
        "kernel/net/bridge/bridge.ko\nkernel/net/802/stp.ko\n",
        "bridge"
    ));
    assert!(!module_builtin(
        "kernel/net/bridge/br_netfilter.ko\n",
        "bridge"
    ));
    let dep = "kernel/net/bridge/br_netfilter.ko.xz: kernel/net/bridge/bridge.ko.xz\n";
    assert!(!module_installable(dep, "bridge"), "only a dependency");
    assert!(module_installable(
        &format!("{dep}kernel/net/bridge/bridge.ko.xz: kernel/net/802/stp.ko.xz\n"),
        "bridge"
    ));
}

#[test]
fn a_fixture_root_is_read_like_the_host() {
    let dir = tempfile::tempdir().expect("tempdir");
    let put = |rel: &str, text: &str| {
        let p = dir.path().join(rel);
        std::fs::create_dir_all(p.parent().expect("parent")).expect("mkdir");
        std::fs::write(p, text).expect("write");
    };
    put("proc/meminfo", "MemTotal: 2048 kB\n");
    put("etc/os-release", "ID=debian\nVERSION_ID=\"12\"\n");
    put("etc/debian_version", "12.11\n");
    put("etc/machine-id", "3d1219c7c4c5404aaa1f6d2a48adfda4\n");
    put("proc/self/mounts", MOUNTS_UNIFIED);
    put(
        "lib/modules/6.1.0/modules.builtin",
        "kernel/net/bridge/bridge.ko\n",
    );
    let host = HostFiles::under(dir.path());
    assert_eq!(host.mem_total_bytes(), Some(2048 * 1024));
    assert_eq!(host.os_release(), ("debian".into(), "12.11".into()));
    assert_eq!(
        host.host_id().as_deref(),
        Some("3d1219c7-c4c5-404a-aa1f-6d2a48adfda4")
    );
    assert_eq!(host.cgroups_version(), Some("2"));
    assert_eq!(host.storage_device(Path::new("/srv/x")), "/dev/sdb1");
    assert!(host.bridge_module("6.1.0"));
    assert!(!host.bridge_module("6.2.0"));
    // A kernel without /proc/modules or /lib/modules (this VM's): /sys/module tells.
    std::fs::create_dir_all(dir.path().join("sys/module/bridge")).expect("mkdir");
    assert!(host.bridge_module("6.2.0"));
    // An empty root: every fact unknown, nothing panics.
    let empty = HostFiles::under(dir.path().join("nothing"));
    assert_eq!(empty.mem_total_bytes(), None);
    assert_eq!(empty.os_release(), (String::new(), String::new()));
    assert_eq!(empty.host_id(), None);
    assert_eq!(empty.cgroups_version(), None);
    assert_eq!(empty.storage_device(Path::new("/")), "");
    assert!(!empty.bridge_module("6.1.0"));
}

#[test]
fn the_real_host_has_memory_an_os_and_a_root_device() {
    let host = HostFiles::host();
    let meminfo = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    if !meminfo.is_empty() {
        assert!(host.mem_total_bytes().is_some_and(|b| b > 0));
    }
    if Path::new("/etc/os-release").exists() {
        assert!(!host.os_release().0.is_empty());
    }
    if Path::new("/proc/self/mounts").exists() {
        assert!(!host.storage_device(Path::new("/")).is_empty());
        let v2 = Path::new("/sys/fs/cgroup/cgroup.controllers").exists();
        if v2 {
            assert_eq!(host.cgroups_version(), Some("2"));
        }
    }
}
