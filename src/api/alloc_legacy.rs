//! The deprecated resource fields Nomad still returns with a full alloc (`Resources`,
//! `SharedResources`, `TaskResources`), derived from `AllocatedResources` the way Nomad's
//! scheduler (`OldTaskResources`, the shared disk and networks) and state store (their sum)
//! fill them. They are computed when an alloc leaves through the API, not stored: scripts
//! written against older Nomad versions still read them.

use std::collections::BTreeMap;

use serde::Serialize;

use super::{Allocation, NetworkResource, Resources};

/// An alloc as the API returns it: its own fields plus the legacy resource fields.
#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct AllocWithLegacy<'a> {
    #[serde(flatten)]
    pub alloc: &'a Allocation,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub resources: Option<Resources>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub shared_resources: Option<Resources>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task_resources: Option<BTreeMap<String, Resources>>,
}

impl<'a> AllocWithLegacy<'a> {
    pub fn of(alloc: &'a Allocation) -> Self {
        let Some(ar) = &alloc.allocated_resources else {
            return AllocWithLegacy {
                alloc,
                resources: None,
                shared_resources: None,
                task_resources: None,
            };
        };
        let tasks: BTreeMap<String, Resources> = ar
            .tasks
            .iter()
            .map(|(name, t)| {
                let r = Resources {
                    cpu: t.cpu.cpu_shares,
                    cores: t.cpu.reserved_cores.as_ref().map_or(0, |c| c.len() as i64),
                    memory_mb: t.memory.memory_mb,
                    memory_max_mb: t.memory.memory_max_mb,
                    networks: t.networks.clone().filter(|n| !n.is_empty()),
                    ..Default::default()
                };
                (name.clone(), r)
            })
            .collect();
        let shared = Resources {
            disk_mb: ar.shared.disk_mb,
            networks: Some(ar.shared.networks.clone()).filter(|n| !n.is_empty()),
            ..Default::default()
        };
        let mut total = Resources::default();
        for r in tasks.values() {
            add(&mut total, r);
        }
        add(&mut total, &shared);
        AllocWithLegacy {
            alloc,
            resources: Some(total),
            shared_resources: Some(shared),
            task_resources: Some(tasks),
        }
    }
}

/// Nomad's `Resources.Add`: sums, memory_max counting memory when unset, networks merged by
/// IP (ports and bandwidth added to the matching one).
fn add(total: &mut Resources, delta: &Resources) {
    total.cpu += delta.cpu;
    total.memory_mb += delta.memory_mb;
    total.cores += delta.cores;
    total.memory_max_mb += if delta.memory_max_mb > 0 {
        delta.memory_max_mb
    } else {
        delta.memory_mb
    };
    total.disk_mb += delta.disk_mb;
    total.secrets_mb += delta.secrets_mb;
    for n in delta.networks.iter().flatten() {
        let nets = total.networks.get_or_insert_with(Vec::new);
        match nets.iter_mut().find(|m| same_interface(m, n)) {
            Some(m) => {
                m.mbits += n.mbits;
                m.reserved_ports.extend(n.reserved_ports.iter().cloned());
                m.dynamic_ports.extend(n.dynamic_ports.iter().cloned());
            }
            None => nets.push(n.clone()),
        }
    }
}

/// Nomad's `NetIndex`: the same IP, or the same CIDR.
fn same_interface(a: &NetworkResource, b: &NetworkResource) -> bool {
    (!a.ip.is_empty() && a.ip == b.ip) || (!a.cidr.is_empty() && a.cidr == b.cidr)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::{
        AllocatedCpuResources, AllocatedMemoryResources, AllocatedResources,
        AllocatedSharedResources, AllocatedTaskResources, Port,
    };

    #[test]
    fn legacy_fields_match_the_recorded_nomad_alloc() {
        let net = NetworkResource {
            ip: "127.0.0.1".into(),
            dynamic_ports: vec![Port {
                label: "http".into(),
                value: 26071,
                host_network: "default".into(),
                ..Default::default()
            }],
            ..Default::default()
        };
        let alloc = Allocation {
            id: "a1".into(),
            allocated_resources: Some(AllocatedResources {
                shared: AllocatedSharedResources {
                    disk_mb: 300,
                    networks: vec![net],
                    ports: Vec::new(),
                },
                tasks: [(
                    "server".to_string(),
                    AllocatedTaskResources {
                        cpu: AllocatedCpuResources {
                            cpu_shares: 100,
                            reserved_cores: None,
                        },
                        memory: AllocatedMemoryResources {
                            memory_mb: 64,
                            ..Default::default()
                        },
                        ..Default::default()
                    },
                )]
                .into(),
                ..Default::default()
            }),
            ..Default::default()
        };
        let v = serde_json::to_value(AllocWithLegacy::of(&alloc)).expect("json");
        // What Nomad v2.0.6 answered for the same alloc (api-samples/GET_v1_allocation_ID).
        let net = serde_json::json!([{"DynamicPorts": [
            {"HostNetwork": "default", "Label": "http", "Value": 26071}
        ], "IP": "127.0.0.1"}]);
        let res = |cpu: i64, disk: i64, mem: i64, max: i64, nets: &serde_json::Value| {
            serde_json::json!({"CPU": cpu, "Cores": 0, "Devices": null, "DiskMB": disk,
                "IOPS": 0, "MemoryMB": mem, "MemoryMaxMB": max, "NUMA": null,
                "Networks": nets, "SecretsMB": 0})
        };
        assert_eq!(v["Resources"], res(100, 300, 64, 64, &net));
        assert_eq!(v["SharedResources"], res(0, 300, 0, 0, &net));
        assert_eq!(
            v["TaskResources"],
            serde_json::json!({"server": res(100, 0, 64, 0, &serde_json::Value::Null)})
        );
        assert_eq!(v["ID"], "a1");
    }
}
