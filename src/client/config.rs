//! What the agent tells the client: identity, where to keep data, what to advertise, which
//! drivers to run and what to hold back from the scheduler.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::time::Duration;

use crate::drivers::DriverConfig;

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ReservedResources {
    /// MHz kept for the host.
    pub cpu_mhz: i64,
    pub memory_mb: i64,
    pub disk_mb: i64,
    /// Nomad's `reserved { reserved_ports = "22,80,8000-8100" }`.
    pub reserved_ports: String,
    /// `reserved { cores }`: withheld from scheduling, reported as ReservedCpuCores.
    pub cores: Vec<u32>,
}

#[derive(Debug, Clone, PartialEq)]
pub struct ClientConfig {
    /// Alloc dirs live under `<data_dir>/alloc/<alloc_id>/`, identity under `<data_dir>/client/`.
    pub data_dir: PathBuf,
    /// Empty: the hostname.
    pub node_name: String,
    pub datacenter: String,
    pub region: String,
    pub node_class: String,
    pub node_pool: String,
    pub meta: BTreeMap<String, String>,
    /// The agent's advertised HTTP address, e.g. "127.0.0.1:4646".
    pub http_addr: String,
    pub drivers: DriverConfig,
    pub dev_mode: bool,
    /// Host network device tasks' ports are on ("lo" in dev mode). Empty: the device of
    /// the default route (or the device holding `network_ip`).
    pub network_interface: String,
    /// The address of that device that tasks advertise. Empty: the device's first IPv4.
    pub network_ip: String,
    /// `network_speed` in Mbit/s; 0: read the link speed (or Nomad's 1000 default).
    pub network_speed: i64,
    /// `cpu_total_compute` in MHz; 0: the sum of the cores' speeds.
    pub cpu_total_compute: u64,
    /// `disk_total_mb`; 0: the size of the filesystem holding the alloc dir.
    pub disk_total_mb: u64,
    /// `memory_total_mb`; 0: MemTotal of /proc/meminfo.
    pub memory_total_mb: u64,
    /// `reservable_cores`: the only cores tasks may use; None: the agent's cpuset.
    pub reservable_cores: Option<Vec<u32>>,
    /// `bridge_network_name`, reported as the bridge's device.
    pub bridge_network_name: String,
    /// `bridge_network_hairpin_mode`, reported as `nomad.bridge.hairpin_mode`.
    pub bridge_network_hairpin_mode: bool,
    /// `node_max_allocs`; 0 for no limit.
    pub node_max_allocs: i64,
    /// `gc_volumes_on_node_gc`.
    pub gc_volumes_on_node_gc: bool,
    pub reserved: ReservedResources,
    pub min_dynamic_port: i32,
    pub max_dynamic_port: i32,
    /// Caps any task's `kill_timeout` (Nomad's `max_kill_timeout`, default 30s).
    pub max_kill_timeout: Duration,
    /// How long alloc status changes are coalesced before `Node.UpdateAlloc`.
    /// How often drivers are fingerprinted again after the start (Nomad: 30 s).
    pub driver_fingerprint_interval: Duration,
    pub alloc_update_interval: Duration,
    /// The blocking-query wait for `Node.GetClientAllocs`.
    pub alloc_watch_timeout: Duration,
    /// `host_volume "<name>" { path read_only }` blocks: directories tasks may mount.
    pub host_volumes: BTreeMap<String, HostVolumeConfig>,
}

/// One `client { host_volume "<name>" { ... } }` block (Nomad's `ClientHostVolumeConfig`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HostVolumeConfig {
    pub path: std::path::PathBuf,
    pub read_only: bool,
}

impl ClientConfig {
    /// Defaults Nomad's client uses, with `data_dir` as given.
    pub fn new(data_dir: impl Into<PathBuf>) -> Self {
        ClientConfig {
            data_dir: data_dir.into(),
            node_name: String::new(),
            datacenter: "dc1".to_string(),
            region: crate::api::DEFAULT_REGION.to_string(),
            node_class: String::new(),
            node_pool: crate::api::DEFAULT_NODE_POOL.to_string(),
            meta: BTreeMap::new(),
            http_addr: "127.0.0.1:4646".to_string(),
            drivers: DriverConfig::default(),
            dev_mode: false,
            network_interface: String::new(),
            network_ip: String::new(),
            network_speed: 0,
            cpu_total_compute: 0,
            disk_total_mb: 0,
            memory_total_mb: 0,
            reservable_cores: None,
            bridge_network_name: String::new(),
            bridge_network_hairpin_mode: false,
            node_max_allocs: 0,
            gc_volumes_on_node_gc: false,
            reserved: ReservedResources::default(),
            min_dynamic_port: 20000,
            max_dynamic_port: 32000,
            max_kill_timeout: Duration::from_secs(30),
            alloc_update_interval: Duration::from_millis(200),
            driver_fingerprint_interval: Duration::from_secs(30),
            alloc_watch_timeout: Duration::from_secs(300),
            host_volumes: BTreeMap::new(),
        }
    }

    /// `nomad agent -dev`: loopback networking, raw_exec and mock_driver enabled.
    pub fn dev(data_dir: impl Into<PathBuf>) -> Self {
        ClientConfig {
            dev_mode: true,
            drivers: DriverConfig::dev(),
            network_interface: "lo".to_string(),
            network_ip: "127.0.0.1".to_string(),
            ..ClientConfig::new(data_dir)
        }
    }

    pub fn alloc_root(&self) -> PathBuf {
        self.data_dir.join("alloc")
    }

    pub fn state_dir(&self) -> PathBuf {
        self.data_dir.join("client")
    }

    pub fn alloc_dir(&self, alloc_id: &str) -> PathBuf {
        alloc_dir_under(&self.alloc_root(), alloc_id)
    }
}

pub(crate) fn alloc_dir_under(root: &Path, alloc_id: &str) -> PathBuf {
    root.join(alloc_id)
}
