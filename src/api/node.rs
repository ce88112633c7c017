//! Client nodes: identity, fingerprinted attributes, resources, drivers, status.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::job::NetworkResource;

pub const NODE_STATUS_INIT: &str = "initializing";
pub const NODE_STATUS_READY: &str = "ready";
pub const NODE_STATUS_DOWN: &str = "down";
pub const NODE_STATUS_DISCONNECTED: &str = "disconnected";

pub const NODE_ELIGIBLE: &str = "eligible";
pub const NODE_INELIGIBLE: &str = "ineligible";

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct Node {
    pub attributes: BTreeMap<String, String>,
    #[serde(rename = "CSIControllerPlugins")]
    pub csi_controller_plugins: Option<Value>,
    #[serde(rename = "CSINodePlugins")]
    pub csi_node_plugins: Option<Value>,
    pub cgroup_parent: String,
    pub computed_class: String,
    pub create_index: u64,
    pub datacenter: String,
    pub drain: bool,
    pub drain_strategy: Option<super::DrainStrategy>,
    pub drivers: BTreeMap<String, DriverInfo>,
    pub events: Vec<NodeEvent>,
    /// Client config `gc_volumes_on_node_gc`.
    #[serde(rename = "GCVolumesOnNodeGC")]
    pub gc_volumes_on_node_gc: bool,
    #[serde(rename = "HTTPAddr")]
    pub http_addr: String,
    pub host_networks: Option<Value>,
    pub host_volumes: Option<Value>,
    #[serde(rename = "ID")]
    pub id: String,
    /// The key that signs this node's identity; empty until the server issues one.
    #[serde(rename = "IdentitySigningKeyID")]
    pub identity_signing_key_id: String,
    /// Raft index of the last `Node.UpdateAlloc` from this client.
    pub last_alloc_update_index: u64,
    pub last_drain: Option<super::DrainMetadata>,
    /// Raft index at which the node last missed a heartbeat.
    pub last_missed_heartbeat_index: u64,
    pub links: BTreeMap<String, String>,
    pub meta: BTreeMap<String, String>,
    pub modify_index: u64,
    pub name: String,
    pub node_class: String,
    /// Client config `node_max_allocs`; 0 for no limit.
    pub node_max_allocs: i64,
    pub node_pool: String,
    pub node_resources: NodeResources,
    pub reserved_resources: NodeReservedResources,
    pub scheduling_eligibility: String,
    /// Never leaves the server through the HTTP API: `http` blanks it.
    #[serde(rename = "SecretID")]
    pub secret_id: String,
    pub status: String,
    pub status_description: String,
    /// Unix seconds, as Nomad's `StatusUpdatedAt`.
    pub status_updated_at: i64,
    #[serde(rename = "TLSEnabled")]
    pub tls_enabled: bool,
    /// The scheduler's feasibility class of this node value (see [`NodeMemo`]).
    #[serde(skip)]
    pub feasibility_class: NodeMemo,
}

/// A value the scheduler derives from a node's fields, computed once per node value: never
/// serialized, ignored by `==`, and forgotten by `clone`, since a clone is how a changed node
/// starts (the state store never changes a stored node in place).
#[derive(Default)]
pub struct NodeMemo(std::sync::OnceLock<u64>);

impl NodeMemo {
    /// The memoized value, computed by `f` the first time.
    pub fn get_or_init(&self, f: impl FnOnce() -> u64) -> u64 {
        *self.0.get_or_init(f)
    }
}

impl Clone for NodeMemo {
    fn clone(&self) -> Self {
        NodeMemo::default()
    }
}

impl PartialEq for NodeMemo {
    fn eq(&self, _: &Self) -> bool {
        true
    }
}

impl std::fmt::Debug for NodeMemo {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("NodeMemo")
    }
}

impl Node {
    pub fn ready(&self) -> bool {
        self.status == NODE_STATUS_READY
            && !self.drain
            && self.scheduling_eligibility == NODE_ELIGIBLE
    }

    /// The IP the node advertises for task ports: the first host network's address.
    pub fn address(&self) -> String {
        self.node_resources
            .networks
            .iter()
            .find(|n| !n.ip.is_empty())
            .map(|n| n.ip.clone())
            .unwrap_or_else(|| "127.0.0.1".to_string())
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct DriverInfo {
    pub attributes: BTreeMap<String, String>,
    pub detected: bool,
    pub health_description: String,
    pub healthy: bool,
    /// RFC 3339, as Nomad prints it.
    pub update_time: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct NodeEvent {
    pub create_index: u64,
    pub details: Option<BTreeMap<String, String>>,
    pub message: String,
    pub subsystem: String,
    /// RFC 3339.
    pub timestamp: String,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct NodeResources {
    pub cpu: NodeCpuResources,
    pub devices: Option<Value>,
    pub disk: NodeDiskResources,
    pub max_dynamic_port: i32,
    pub memory: NodeMemoryResources,
    pub min_dynamic_port: i32,
    pub networks: Vec<NetworkResource>,
    pub node_networks: Option<Vec<NodeNetworkResource>>,
    pub processors: NodeProcessorResources,
}

/// One interface (or the bridge) as Nomad's `NodeNetworkResource`: what `host_network`
/// aliases resolve against.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct NodeNetworkResource {
    pub addresses: Option<Vec<NodeNetworkAddress>>,
    pub device: String,
    pub mac_address: String,
    pub mode: String,
    /// Link speed in Mbit/s.
    pub speed: i64,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct NodeNetworkAddress {
    pub address: String,
    /// The `host_network` name, or "default" for the client's `network_interface`.
    pub alias: String,
    /// "ipv4" or "ipv6".
    pub family: String,
    pub gateway: String,
    pub reserved_ports: String,
}

/// Nomad's `NodeProcessorResources`: the CPU topology the client scanned.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct NodeProcessorResources {
    pub topology: Option<CpuTopology>,
}

/// Nomad's `numalib.Topology` as it goes over the wire.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct CpuTopology {
    pub cores: Vec<CpuCore>,
    /// The NUMA distance matrix (the kernel's SLIT), one row per node. Go encodes each row
    /// (a `[]uint8`) as a base64 string, so that is the wire form here too.
    #[serde(with = "slit_rows")]
    pub distances: Option<Vec<Vec<u8>>>,
    pub nodes: Vec<u32>,
    /// MHz; set by the client's `cpu_total_compute`.
    pub override_total_compute: u64,
    /// MHz withheld from scheduling (`reserved { cpu }`). The spelling is Nomad's.
    pub override_withold_compute: u64,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct CpuCore {
    /// MHz.
    pub base_speed: u64,
    /// Nomad must not schedule on this core (outside the agent's cpuset or reserved).
    pub disable: bool,
    /// true: a performance core, false: an efficiency core.
    pub grade: bool,
    pub guess_speed: u64,
    #[serde(rename = "ID")]
    pub id: u32,
    pub max_speed: u64,
    #[serde(rename = "NodeID")]
    pub node_id: u32,
    #[serde(rename = "SocketID")]
    pub socket_id: u32,
}

impl CpuCore {
    /// The speed the scheduler counts: base, else max, else the guess.
    pub fn mhz(&self) -> u64 {
        if self.base_speed > 0 {
            self.base_speed
        } else if self.max_speed > 0 {
            self.max_speed
        } else {
            self.guess_speed
        }
    }
}

mod slit_rows {
    use base64::Engine as _;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(rows: &Option<Vec<Vec<u8>>>, s: S) -> Result<S::Ok, S::Error> {
        match rows {
            None => s.serialize_none(),
            Some(rows) => s.collect_seq(
                rows.iter()
                    .map(|r| base64::engine::general_purpose::STANDARD.encode(r)),
            ),
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Option<Vec<Vec<u8>>>, D::Error> {
        let rows: Option<Vec<String>> = Option::deserialize(d)?;
        rows.map(|rows| {
            rows.iter()
                .map(|r| {
                    base64::engine::general_purpose::STANDARD
                        .decode(r)
                        .map_err(serde::de::Error::custom)
                })
                .collect()
        })
        .transpose()
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct NodeCpuResources {
    pub cpu_shares: i64,
    pub reservable_cpu_cores: Vec<u32>,
    pub total_cpu_cores: u32,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct NodeDiskResources {
    #[serde(rename = "DiskMB")]
    pub disk_mb: i64,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct NodeMemoryResources {
    #[serde(rename = "MemoryMB")]
    pub memory_mb: i64,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct NodeReservedResources {
    pub cpu: NodeReservedCpu,
    pub disk: NodeDiskResources,
    pub memory: NodeMemoryResources,
    pub networks: NodeReservedNetworks,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct NodeReservedCpu {
    pub cpu_shares: i64,
    pub reserved_cpu_cores: Option<Vec<u32>>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct NodeReservedNetworks {
    pub reserved_host_ports: String,
}

/// One row of `GET /v1/nodes`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct NodeListStub {
    pub address: String,
    /// Only with `?os=true`: the node's `os.name`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub attributes: Option<BTreeMap<String, String>>,
    pub create_index: u64,
    pub datacenter: String,
    pub drain: bool,
    pub drivers: BTreeMap<String, DriverInfo>,
    pub host_volumes: Option<Value>,
    #[serde(rename = "ID")]
    pub id: String,
    pub last_drain: Option<super::DrainMetadata>,
    pub modify_index: u64,
    pub name: String,
    pub node_class: String,
    pub node_pool: String,
    /// Only with `?resources=true` (Nomad omits the key otherwise).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub node_resources: Option<NodeResources>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reserved_resources: Option<NodeReservedResources>,
    pub scheduling_eligibility: String,
    pub status: String,
    pub status_description: String,
    pub version: String,
}

impl NodeListStub {
    pub fn from_node(node: &Node) -> Self {
        NodeListStub {
            address: node.address(),
            attributes: None,
            create_index: node.create_index,
            datacenter: node.datacenter.clone(),
            drain: node.drain,
            drivers: node.drivers.clone(),
            host_volumes: node.host_volumes.clone(),
            id: node.id.clone(),
            last_drain: node.last_drain.clone(),
            modify_index: node.modify_index,
            name: node.name.clone(),
            node_class: node.node_class.clone(),
            node_pool: node.node_pool.clone(),
            node_resources: None,
            reserved_resources: None,
            scheduling_eligibility: node.scheduling_eligibility.clone(),
            status: node.status.clone(),
            status_description: node.status_description.clone(),
            version: node
                .attributes
                .get("nomad.version")
                .cloned()
                .unwrap_or_default(),
        }
    }
}
