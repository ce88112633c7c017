//! Fingerprinting: the node's identity (persisted), attributes with Nomad's keys, resources
//! and drivers, read straight from /proc, /sys, /etc, getifaddrs(3) and statvfs. `cpu` owns
//! the CPU/NUMA topology, `network` the interfaces and addresses, `host` the facts read from
//! text files (memory, OS, storage device, host id, cgroups, bridge module); this module
//! assembles the node and owns nothing that outlives one fingerprint. Drivers fingerprint
//! themselves (`driver.<name>.*`, e.g. the docker driver's version and runtimes); their
//! attributes are copied in here.
//!
//! The recorded Nomad 2.0.6 `-dev` node and ours agree key for key, but for these:
//!
//! - `plugins.host_volume.mkdir.version`, `plugins.secrets.nomad.version` and
//!   `plugins.secrets.vault.version`: we ship no host-volume or secrets plugins.
//! - `driver.java*` (and the `java` and `qemu` entries of `Drivers`): no such drivers.
//! - Cloud fingerprinters (`platform.aws.*`, `unique.platform.*`, ...), `consul.*` and
//!   `vault.*`: we do not integrate with those services, and the recording denied the
//!   cloud fingerprinters too. Nor CNI plugins (`plugins.cni.version.*`), NVIDIA devices,
//!   swap or energy attributes, which the recorded node did not have either.
//! - `unique.storage.bytesfree`: Nomad no longer reports it (it changed with every write).
//! - Values that differ by design: `nomad.revision` is `nomad-rs <version>` (we have no Go
//!   commit), `nomad.version` is the Nomad release we are compatible with, without `-dev`.
//!
//! Host-dependent keys appear only where the host has the thing: `driver.docker*` with a
//! reachable daemon, `driver.exec` as root with cgroups, `kernel.landlock` when the kernel
//! offers Landlock, `nomad.bridge.hairpin_mode` with the bridge module, `os.cgroups.version`
//! with cgroups mounted, `cpu.frequency.{performance,efficiency}` and
//! `cpu.numcores.{performance,efficiency}` (instead of `cpu.frequency`) on hybrid CPUs, and
//! `numa.node<N>.cores` per NUMA node.

pub mod cpu;
pub mod host;
pub mod network;

use std::collections::BTreeMap;
use std::io;
use std::path::Path;

use super::config::ClientConfig;
use crate::api::{
    DriverInfo, Node, NodeCpuResources, NodeDiskResources, NodeMemoryResources,
    NodeProcessorResources, NodeReservedCpu, NodeReservedNetworks, NodeReservedResources,
    NodeResources, NODE_ELIGIBLE, NODE_STATUS_READY,
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

/// Total bytes of the filesystem holding `path` and the device it is mounted from (what
/// `df -kP` reports, which is where Nomad reads them).
fn storage(host: &host::HostFiles, path: &Path) -> (u64, String) {
    let total = match nix::sys::statvfs::statvfs(path) {
        Ok(s) => s.blocks().saturating_mul(s.fragment_size()),
        Err(e) => {
            tracing::warn!(path = %path.display(), error = %e, "storage fingerprint failed");
            0
        }
    };
    let canonical = std::fs::canonicalize(path).unwrap_or_else(|_| path.to_path_buf());
    (total, host.storage_device(&canonical))
}

/// The Landlock ABI version the kernel offers (`kernel.landlock = "v<N>"`), if any.
fn landlock_abi() -> Option<i64> {
    const LANDLOCK_CREATE_RULESET_VERSION: libc::c_uint = 1;
    // SAFETY: with a null attr, size 0 and the VERSION flag the syscall only returns the
    // ABI version (or an error); it touches no memory.
    let v = unsafe {
        libc::syscall(
            libc::SYS_landlock_create_ruleset,
            std::ptr::null::<libc::c_void>(),
            0usize,
            LANDLOCK_CREATE_RULESET_VERSION,
        )
    };
    (v > 0).then_some(v)
}

/// Meta Nomad's client sets when the config leaves them out (Connect's sidecar defaults).
const DEFAULT_META: &[(&str, &str)] = &[
    (
        "connect.gateway_image",
        "docker.io/envoyproxy/envoy:v${NOMAD_envoy_version}",
    ),
    ("connect.log_level", "info"),
    ("connect.proxy_concurrency", "1"),
    (
        "connect.sidecar_image",
        "docker.io/envoyproxy/envoy:v${NOMAD_envoy_version}",
    ),
    ("connect.transparent_proxy.default_outbound_port", "15001"),
    ("connect.transparent_proxy.default_uid", "101"),
];

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

/// `v1:<u64>`: a stable FNV-1a hash of the fields the scheduler groups nodes by (everything
/// but `unique.*` attributes and meta), as Nomad's ComputedClass.
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

/// Every driver's fingerprint as the node reports it (`Node.Drivers`).
pub async fn fingerprint_drivers(drivers: &DriverRegistry) -> BTreeMap<String, DriverInfo> {
    let update_time = super::task_runner::state::rfc3339(crate::api::now_nanos());
    let mut infos = BTreeMap::new();
    for (name, driver) in drivers.iter() {
        let fp = driver.fingerprint().await;
        infos.insert(
            name.to_string(),
            DriverInfo {
                attributes: fp.attributes,
                detected: fp.health != HealthState::Undetected,
                health_description: fp.health_description,
                healthy: fp.health == HealthState::Healthy,
                update_time: update_time.clone(),
            },
        );
    }
    infos
}

/// Puts the healthy drivers' attributes (`driver.<name>` = 1 and what each reports) in
/// the node attributes, replacing whatever driver attributes were there.
pub fn apply_driver_attributes(
    attrs: &mut BTreeMap<String, String>,
    infos: &BTreeMap<String, DriverInfo>,
) {
    attrs.retain(|k, _| !k.starts_with("driver."));
    for (name, info) in infos.iter().filter(|(_, i)| i.healthy) {
        let own = format!("driver.{name}");
        attrs.insert(own.clone(), "1".to_string());
        for (k, v) in info.attributes.iter().filter(|(k, _)| **k != own) {
            attrs.insert(k.clone(), v.clone());
        }
    }
}

/// Whether two fingerprints of the drivers differ in anything but when they were taken.
pub fn drivers_changed(
    old: &BTreeMap<String, DriverInfo>,
    new: &BTreeMap<String, DriverInfo>,
) -> bool {
    old.len() != new.len()
        || old.iter().zip(new).any(|((an, a), (bn, b))| {
            an != bn
                || a.healthy != b.healthy
                || a.detected != b.detected
                || a.health_description != b.health_description
                || a.attributes != b.attributes
        })
}

/// The node as the client registers it, fingerprinted once.
pub async fn fingerprint(
    cfg: &ClientConfig,
    drivers: &DriverRegistry,
) -> Result<Node, FingerprintError> {
    let (id, secret_id) = node_identity(cfg)?;
    let cpu = cpu::fingerprint(
        &cpu::CpuSources::host(),
        &cpu::CpuConfig {
            reserved_mhz: u64::try_from(cfg.reserved.cpu_mhz).unwrap_or(0),
            total_compute_mhz: cfg.cpu_total_compute,
            reservable_cores: cfg.reservable_cores.clone(),
            reserved_cores: cfg.reserved.cores.clone(),
        },
    );
    let host = host::HostFiles::host();
    let mem = if cfg.memory_total_mb > 0 {
        Some(cfg.memory_total_mb.saturating_mul(1024 * 1024))
    } else {
        host.mem_total_bytes()
    };
    let uts = nix::sys::utsname::uname().ok();
    let uts_field = |f: fn(&nix::sys::utsname::UtsName) -> &std::ffi::OsStr| {
        uts.as_ref()
            .map(|u| f(u).to_string_lossy().into_owned())
            .unwrap_or_default()
    };
    let kernel_release = uts_field(|u| u.release());
    let hostname = nix::unistd::gethostname()
        .map(|h| h.to_string_lossy().into_owned())
        .unwrap_or_default();
    let (os_name, os_version) = host.os_release();
    // Nomad measures the filesystem its alloc dirs live on.
    let alloc_root = cfg.alloc_root();
    let _ = std::fs::create_dir_all(&alloc_root);
    let (mut disk_total, device) = storage(&host, &alloc_root);
    if cfg.disk_total_mb > 0 {
        disk_total = cfg.disk_total_mb.saturating_mul(1024 * 1024);
    }
    let bridge = host.bridge_module(&kernel_release);
    let interfaces = network::interfaces();
    let net = network::fingerprint(&network::NetworkInputs {
        interfaces: &interfaces,
        device: &cfg.network_interface,
        preferred_ip: &cfg.network_ip,
        configured_mbits: cfg.network_speed,
        bridge: bridge.then_some(cfg.bridge_network_name.as_str()),
        sys_class_net: Path::new("/sys/class/net"),
    });

    let mut attrs: BTreeMap<String, String> = cpu.attributes.clone();
    let mut put = |k: &str, v: String| {
        attrs.insert(k.to_string(), v);
    };
    put("cpu.arch", go_arch().to_string());
    if !cpu.model.is_empty() {
        put("cpu.modelname", cpu.model.clone());
    }
    if let Some(mem) = mem {
        put("memory.totalbytes", mem.to_string());
    }
    put("kernel.name", std::env::consts::OS.to_string());
    put("kernel.version", kernel_release);
    put("kernel.arch", uts_field(|u| u.machine()));
    if let Some(abi) = landlock_abi() {
        put("kernel.landlock", format!("v{abi}"));
    }
    put("os.name", os_name);
    put("os.version", os_version);
    put("os.signals", OS_SIGNALS.to_string());
    if let Some(v) = host.cgroups_version() {
        put("os.cgroups.version", v.to_string());
    }
    if bridge {
        put(
            "nomad.bridge.hairpin_mode",
            cfg.bridge_network_hairpin_mode.to_string(),
        );
    }
    put("unique.hostname", hostname.clone());
    if let Some(host_id) = host.host_id() {
        put("unique.host_id", host_id);
    }
    if let Some(ip) = &net.ip_address {
        put("unique.network.ip-address", ip.clone());
    }
    put("unique.advertise.address", cfg.http_addr.clone());
    put("unique.storage.volume", device);
    put("unique.storage.bytestotal", disk_total.to_string());
    put("nomad.version", crate::NOMAD_COMPAT_VERSION.to_string());
    put("nomad.revision", format!("nomad-rs {}", crate::VERSION));
    put("nomad.service_discovery", "true".to_string());

    let driver_infos = fingerprint_drivers(drivers).await;
    apply_driver_attributes(&mut attrs, &driver_infos);

    let mut meta = cfg.meta.clone();
    for (k, v) in DEFAULT_META {
        meta.entry((*k).to_string())
            .or_insert_with(|| (*v).to_string());
    }
    let usable_cores = cpu.usable_cores();
    let mut node = Node {
        attributes: attrs,
        cgroup_parent: "nomad.slice".to_string(),
        // Empty maps rather than null, as Nomad's client sends them.
        csi_controller_plugins: Some(serde_json::json!({})),
        csi_node_plugins: Some(serde_json::json!({})),
        host_volumes: Some(host_volumes(cfg)),
        datacenter: cfg.datacenter.clone(),
        drivers: driver_infos,
        gc_volumes_on_node_gc: cfg.gc_volumes_on_node_gc,
        http_addr: cfg.http_addr.clone(),
        id,
        meta,
        name: if cfg.node_name.is_empty() {
            hostname
        } else {
            cfg.node_name.clone()
        },
        node_class: cfg.node_class.clone(),
        node_max_allocs: cfg.node_max_allocs,
        node_pool: cfg.node_pool.clone(),
        node_resources: NodeResources {
            cpu: NodeCpuResources {
                cpu_shares: i64::try_from(cpu.total_compute()).unwrap_or(i64::MAX),
                total_cpu_cores: u32::try_from(usable_cores.len()).unwrap_or(u32::MAX),
                reservable_cpu_cores: usable_cores,
            },
            disk: NodeDiskResources {
                disk_mb: i64::try_from(disk_total / 1024 / 1024).unwrap_or(i64::MAX),
            },
            memory: NodeMemoryResources {
                memory_mb: i64::try_from(mem.unwrap_or(0) / 1024 / 1024).unwrap_or(i64::MAX),
            },
            min_dynamic_port: cfg.min_dynamic_port,
            max_dynamic_port: cfg.max_dynamic_port,
            node_networks: Some(net.node_networks),
            networks: net.networks,
            processors: NodeProcessorResources {
                topology: Some(cpu.topology),
            },
            ..Default::default()
        },
        reserved_resources: NodeReservedResources {
            cpu: NodeReservedCpu {
                cpu_shares: cfg.reserved.cpu_mhz,
                reserved_cpu_cores: (!cfg.reserved.cores.is_empty())
                    .then(|| cfg.reserved.cores.clone()),
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
#[path = "node_tests.rs"]
mod tests;
