//! Fingerprinting: the node's identity (persisted), attributes with Nomad's keys, resources
//! and drivers, read straight from /proc, /etc and statvfs.

use std::collections::BTreeMap;
use std::io;
use std::path::Path;

use super::config::ClientConfig;
use crate::api::{
    DriverInfo, NetworkResource, Node, NodeCpuResources, NodeDiskResources, NodeMemoryResources,
    NodeReservedCpu, NodeReservedNetworks, NodeReservedResources, NodeResources, NODE_ELIGIBLE,
    NODE_STATUS_READY,
};
use crate::drivers::{DriverRegistry, HealthState};

#[derive(Debug, thiserror::Error)]
pub enum FingerprintError {
    #[error("failed to read or write node identity in {path}: {source}")]
    Identity { path: String, source: io::Error },
}

/// Signals Nomad lists in `os.signals`.
const OS_SIGNALS: &str = "SIGHUP,SIGILL,SIGIO,SIGQUIT,SIGTERM,SIGFPE,SIGINT,SIGKILL,SIGSTOP,SIGTTIN,SIGXFSZ,SIGABRT,SIGBUS,SIGPIPE,SIGSEGV,SIGSYS,SIGTRAP,SIGTSTP,SIGTTOU,SIGIOT,SIGPROF,SIGUSR1,SIGUSR2,SIGWINCH,SIGXCPU,SIGNULL,SIGALRM,SIGCONT";

/// Reads `<state_dir>/<file>` or writes a fresh UUID there.
fn persisted_id(state_dir: &Path, file: &str) -> Result<String, FingerprintError> {
    let path = state_dir.join(file);
    let err = |source| FingerprintError::Identity {
        path: path.display().to_string(),
        source,
    };
    match std::fs::read_to_string(&path) {
        Ok(s) if !s.trim().is_empty() => return Ok(s.trim().to_string()),
        Ok(_) => {}
        Err(e) if e.kind() == io::ErrorKind::NotFound => {}
        Err(e) => return Err(err(e)),
    }
    std::fs::create_dir_all(state_dir).map_err(err)?;
    let id = crate::api::generate_id();
    std::fs::write(&path, &id).map_err(err)?;
    Ok(id)
}

/// (node id, secret id), stable across restarts of the same data dir.
pub fn node_identity(cfg: &ClientConfig) -> Result<(String, String), FingerprintError> {
    let dir = cfg.state_dir();
    Ok((
        persisted_id(&dir, "client-id")?,
        persisted_id(&dir, "secret-id")?,
    ))
}

#[derive(Debug, Clone, Default, PartialEq)]
struct CpuInfo {
    cores: u32,
    mhz: i64,
    model: String,
}

fn parse_cpuinfo(text: &str) -> CpuInfo {
    let mut info = CpuInfo::default();
    for line in text.lines() {
        let Some((k, v)) = line.split_once(':') else {
            continue;
        };
        let (k, v) = (k.trim(), v.trim());
        match k {
            "processor" => info.cores += 1,
            "model name" if info.model.is_empty() => info.model = v.to_string(),
            "cpu MHz" if info.mhz == 0 => info.mhz = v.parse::<f64>().unwrap_or(0.0) as i64,
            _ => {}
        }
    }
    info
}

fn cpu_info() -> CpuInfo {
    let mut info = parse_cpuinfo(&std::fs::read_to_string("/proc/cpuinfo").unwrap_or_default());
    if info.cores == 0 {
        info.cores = std::thread::available_parallelism()
            .map(|n| n.get() as u32)
            .unwrap_or(1);
    }
    // Prefer the advertised maximum frequency when the kernel exposes it.
    if let Ok(khz) =
        std::fs::read_to_string("/sys/devices/system/cpu/cpu0/cpufreq/cpuinfo_max_freq")
    {
        if let Ok(khz) = khz.trim().parse::<i64>() {
            info.mhz = khz / 1000;
        }
    }
    info
}

fn mem_total_bytes() -> u64 {
    let text = std::fs::read_to_string("/proc/meminfo").unwrap_or_default();
    text.lines()
        .find_map(|l| l.strip_prefix("MemTotal:"))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse::<u64>().ok())
        .map(|kb| kb * 1024)
        .unwrap_or(0)
}

fn os_release() -> (String, String) {
    let text = std::fs::read_to_string("/etc/os-release").unwrap_or_default();
    let field = |key: &str| {
        text.lines()
            .find_map(|l| l.strip_prefix(key)?.strip_prefix('='))
            .map(|v| v.trim().trim_matches('"').to_string())
            .unwrap_or_default()
    };
    let id = field("ID");
    let mut version = field("VERSION_ID");
    // Debian's point release lives in /etc/debian_version, which is what Nomad reports.
    if id == "debian" {
        if let Ok(v) = std::fs::read_to_string("/etc/debian_version") {
            let v = v.trim();
            if v.starts_with(|c: char| c.is_ascii_digit()) {
                version = v.to_string();
            }
        }
    }
    (id, version)
}

/// The machine's UUID: DMI's product UUID when readable (root), else /etc/machine-id in
/// UUID form.
fn host_id() -> Option<String> {
    if let Ok(s) = std::fs::read_to_string("/sys/class/dmi/id/product_uuid") {
        let s = s.trim().to_ascii_lowercase();
        if !s.is_empty() {
            return Some(s);
        }
    }
    let id = std::fs::read_to_string("/etc/machine-id").ok()?;
    let id = id.trim();
    if id.len() != 32 || !id.chars().all(|c| c.is_ascii_hexdigit()) {
        return None;
    }
    Some(format!(
        "{}-{}-{}-{}-{}",
        &id[..8],
        &id[8..12],
        &id[12..16],
        &id[16..20],
        &id[20..]
    ))
}

/// Go's GOARCH names for the machine types Rust reports.
fn go_arch() -> &'static str {
    match std::env::consts::ARCH {
        "x86_64" => "amd64",
        "aarch64" => "arm64",
        "x86" => "386",
        "arm" => "arm",
        other => other,
    }
}

/// Total and free bytes of the filesystem holding `path`, and the device it is mounted from.
fn storage(path: &Path) -> (u64, u64, String) {
    let (total, free) = match nix::sys::statvfs::statvfs(path) {
        Ok(s) => {
            let frag = s.fragment_size();
            (s.blocks() * frag, s.blocks_available() * frag)
        }
        Err(_) => (0, 0),
    };
    let canonical = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    let mounts = std::fs::read_to_string("/proc/mounts").unwrap_or_default();
    let device = mounts
        .lines()
        .filter_map(|l| {
            let mut f = l.split_whitespace();
            Some((f.next()?, f.next()?))
        })
        .filter(|(_, mnt)| canonical.starts_with(mnt))
        .max_by_key(|(_, mnt)| mnt.len())
        .map(|(dev, _)| dev.to_string())
        .unwrap_or_default();
    (total, free, device)
}

/// `v1:<u64>`: a stable FNV-1a hash of the fields the scheduler groups nodes by (everything
/// but `unique.*` attributes and meta), as Nomad's ComputedClass.
/// The node's `HostVolumes`: Nomad's `ClientHostVolumeConfig` per configured volume.
fn host_volumes(cfg: &ClientConfig) -> serde_json::Value {
    let vols: serde_json::Map<String, serde_json::Value> = cfg
        .host_volumes
        .iter()
        .map(|(name, v)| {
            (
                name.clone(),
                serde_json::json!({
                    "Name": name,
                    "Path": v.path.display().to_string(),
                    "ReadOnly": v.read_only,
                    "ID": "",
                }),
            )
        })
        .collect();
    serde_json::Value::Object(vols)
}

pub fn computed_class(node: &Node) -> String {
    let mut h: u64 = 0xcbf29ce484222325;
    let mut feed = |s: &str| {
        for b in s.bytes().chain(std::iter::once(0)) {
            h ^= u64::from(b);
            h = h.wrapping_mul(0x100000001b3);
        }
    };
    feed(&node.datacenter);
    feed(&node.node_class);
    feed(&node.node_pool);
    for (k, v) in node
        .attributes
        .iter()
        .filter(|(k, _)| !k.starts_with("unique."))
    {
        feed(k);
        feed(v);
    }
    for (k, v) in node.meta.iter().filter(|(k, _)| !k.starts_with("unique.")) {
        feed(k);
        feed(v);
    }
    format!("v1:{h}")
}

/// The node as the client registers it: status `initializing`.
pub async fn fingerprint(
    cfg: &ClientConfig,
    drivers: &DriverRegistry,
) -> Result<Node, FingerprintError> {
    let (id, secret_id) = node_identity(cfg)?;
    let cpu = cpu_info();
    let mem = mem_total_bytes();
    let uts = nix::sys::utsname::uname().ok();
    let uts_field = |f: fn(&nix::sys::utsname::UtsName) -> &std::ffi::OsStr| {
        uts.as_ref()
            .map(|u| f(u).to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    let hostname = nix::unistd::gethostname()
        .map(|h| h.to_string_lossy().into_owned())
        .unwrap_or_default();
    let (os_name, os_version) = os_release();
    let _ = std::fs::create_dir_all(&cfg.data_dir);
    let (disk_total, _disk_free, device) = storage(&cfg.data_dir);
    let cgroups_v2 = Path::new("/sys/fs/cgroup/cgroup.controllers").exists();
    let total_compute = i64::from(cpu.cores) * cpu.mhz;
    let last_core = cpu.cores.saturating_sub(1);

    let mut attrs: BTreeMap<String, String> = BTreeMap::new();
    let mut put = |k: &str, v: String| {
        attrs.insert(k.to_string(), v);
    };
    put("cpu.arch", go_arch().to_string());
    put("cpu.numcores", cpu.cores.to_string());
    put("cpu.frequency", cpu.mhz.to_string());
    put("cpu.modelname", cpu.model.clone());
    put("cpu.totalcompute", total_compute.to_string());
    put(
        "cpu.usablecompute",
        (total_compute - cfg.reserved.cpu_mhz).max(0).to_string(),
    );
    put("cpu.reservablecores", cpu.cores.to_string());
    put("memory.totalbytes", mem.to_string());
    put("kernel.name", std::env::consts::OS.to_string());
    put("kernel.version", uts_field(|u| u.release()));
    put("kernel.arch", uts_field(|u| u.machine()));
    put("os.name", os_name);
    put("os.version", os_version);
    put("os.signals", OS_SIGNALS.to_string());
    put(
        "os.cgroups.version",
        if cgroups_v2 { "2" } else { "1" }.to_string(),
    );
    put("numa.node.count", "1".to_string());
    put(
        "numa.node0.cores",
        if last_core == 0 {
            "0".to_string()
        } else {
            format!("0-{last_core}")
        },
    );
    put("unique.hostname", hostname.clone());
    if let Some(host_id) = host_id() {
        put("unique.host_id", host_id);
    }
    put("unique.network.ip-address", cfg.network_ip.clone());
    put("unique.advertise.address", cfg.http_addr.clone());
    put("unique.storage.volume", device);
    put("unique.storage.bytestotal", disk_total.to_string());
    put("nomad.version", crate::NOMAD_COMPAT_VERSION.to_string());
    put("nomad.revision", format!("nomad-rs {}", crate::VERSION));
    put("nomad.service_discovery", "true".to_string());

    let update_time = super::task_runner::state::rfc3339(crate::api::now_nanos());
    let mut driver_infos = BTreeMap::new();
    for (name, driver) in drivers.iter() {
        let fp = driver.fingerprint().await;
        let healthy = fp.health == HealthState::Healthy;
        if healthy {
            attrs.insert(format!("driver.{name}"), "1".to_string());
            for (k, v) in &fp.attributes {
                if *k != format!("driver.{name}") {
                    attrs.insert(k.clone(), v.clone());
                }
            }
        }
        driver_infos.insert(
            name.to_string(),
            DriverInfo {
                attributes: fp.attributes,
                detected: fp.health != HealthState::Undetected,
                health_description: fp.health_description,
                healthy,
                update_time: update_time.clone(),
            },
        );
    }

    let cidr = if cfg.network_ip.contains(':') {
        format!("{}/128", cfg.network_ip)
    } else {
        format!("{}/32", cfg.network_ip)
    };
    let mut node = Node {
        attributes: attrs,
        cgroup_parent: "nomad.slice".to_string(),
        // Empty maps rather than null, as Nomad's client sends them.
        csi_controller_plugins: Some(serde_json::json!({})),
        csi_node_plugins: Some(serde_json::json!({})),
        host_volumes: Some(host_volumes(cfg)),
        datacenter: cfg.datacenter.clone(),
        drivers: driver_infos,
        http_addr: cfg.http_addr.clone(),
        id,
        meta: cfg.meta.clone(),
        name: if cfg.node_name.is_empty() {
            hostname
        } else {
            cfg.node_name.clone()
        },
        node_class: cfg.node_class.clone(),
        node_pool: cfg.node_pool.clone(),
        node_resources: NodeResources {
            cpu: NodeCpuResources {
                cpu_shares: total_compute,
                reservable_cpu_cores: (0..cpu.cores).collect(),
                total_cpu_cores: cpu.cores,
            },
            disk: NodeDiskResources {
                disk_mb: (disk_total / 1024 / 1024) as i64,
            },
            memory: NodeMemoryResources {
                memory_mb: (mem / 1024 / 1024) as i64,
            },
            min_dynamic_port: cfg.min_dynamic_port,
            max_dynamic_port: cfg.max_dynamic_port,
            node_networks: Some(serde_json::json!([{
                "Addresses": [{
                    "Address": cfg.network_ip,
                    "Alias": "default",
                    "Family": if cfg.network_ip.contains(':') { "ipv6" } else { "ipv4" },
                    "Gateway": "",
                    "ReservedPorts": "",
                }],
                "Device": cfg.network_interface,
                "MacAddress": "",
                "Mode": "host",
                "Speed": 1000,
            }])),
            networks: vec![NetworkResource {
                cidr,
                device: cfg.network_interface.clone(),
                ip: cfg.network_ip.clone(),
                mbits: 1000,
                mode: "host".to_string(),
                ..Default::default()
            }],
            ..Default::default()
        },
        reserved_resources: NodeReservedResources {
            cpu: NodeReservedCpu {
                cpu_shares: cfg.reserved.cpu_mhz,
                reserved_cpu_cores: None,
            },
            disk: NodeDiskResources {
                disk_mb: cfg.reserved.disk_mb,
            },
            memory: NodeMemoryResources {
                memory_mb: cfg.reserved.memory_mb,
            },
            networks: NodeReservedNetworks {
                reserved_host_ports: cfg.reserved.reserved_ports.clone(),
            },
        },
        scheduling_eligibility: NODE_ELIGIBLE.to_string(),
        secret_id,
        // Fingerprinting is done before the node registers, so it registers ready: a restarted
        // agent's node never drops back to "initializing" and out of scheduling.
        status: NODE_STATUS_READY.to_string(),
        ..Default::default()
    };
    node.computed_class = computed_class(&node);
    Ok(node)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_cpuinfo() {
        let text = "processor\t: 0\nmodel name\t: AMD EPYC\ncpu MHz\t\t: 2445.404\n\nprocessor\t: 1\nmodel name\t: AMD EPYC\ncpu MHz\t\t: 2445.404\n";
        assert_eq!(
            parse_cpuinfo(text),
            CpuInfo {
                cores: 2,
                mhz: 2445,
                model: "AMD EPYC".into()
            }
        );
    }

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
        assert_eq!(node.node_resources.networks[0].device, "lo");
        assert_eq!(node.node_resources.networks[0].cidr, "127.0.0.1/32");
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
}
