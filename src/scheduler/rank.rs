//! Ranking a feasible node: does the ask fit next to what the node already runs, which host
//! ports it gets, and how well it packs (Nomad's `rank.go` binpack iterator and
//! `structs.ScoreFitBinPack`).

use std::collections::{BTreeMap, BTreeSet};

use rand::Rng;

use crate::api::{AllocatedPortMapping, Allocation, NetworkResource, Node, Port};

/// The best binpack fit score; scores are divided by it so they land in [0, 1].
pub const BINPACK_MAX_FIT_SCORE: f64 = 18.0;

/// Nomad's default dynamic port range, used when the node does not report one.
pub const DEFAULT_MIN_DYNAMIC_PORT: i32 = 20000;
pub const DEFAULT_MAX_DYNAMIC_PORT: i32 = 32000;

/// Random picks before falling back to a scan of the range (Nomad's `maxRandPortAttempts`).
const MAX_RAND_PORT_ATTEMPTS: usize = 20;

/// What the non-terminal allocs on a node hold, summed: the state store keeps one per node up
/// to date as allocs change, so neither a scheduler's node view nor the plan applier re-sums
/// every alloc of a node.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HeldResources {
    pub cpu: i64,
    pub memory_mb: i64,
    pub disk_mb: i64,
    /// Host port -> how many of the allocs hold it (more than one is a conflict).
    pub ports: BTreeMap<i32, u32>,
}

impl HeldResources {
    /// Whether `a` holds resources on its node as far as the state goes.
    pub fn holds(a: &Allocation) -> bool {
        !a.terminal()
    }

    /// The sum over `allocs` that [`HeldResources::holds`].
    pub fn of<'a>(allocs: impl IntoIterator<Item = &'a Allocation>) -> Self {
        let mut held = HeldResources::default();
        for a in allocs {
            if Self::holds(a) {
                held.add(a);
            }
        }
        held
    }

    pub fn add(&mut self, a: &Allocation) {
        let r = a.comparable_resources();
        self.cpu += r.cpu;
        self.memory_mb += r.memory_mb;
        self.disk_mb += r.disk_mb;
        for p in a.reserved_ports() {
            *self.ports.entry(p).or_default() += 1;
        }
    }

    pub fn remove(&mut self, a: &Allocation) {
        let r = a.comparable_resources();
        self.cpu -= r.cpu;
        self.memory_mb -= r.memory_mb;
        self.disk_mb -= r.disk_mb;
        for p in a.reserved_ports() {
            if let Some(n) = self.ports.get_mut(&p) {
                *n -= 1;
                if *n == 0 {
                    self.ports.remove(&p);
                }
            }
        }
    }

    /// Some port is held by more than one alloc.
    pub fn port_conflict(&self) -> bool {
        self.ports.values().any(|n| *n > 1)
    }

    pub fn into_usage(self) -> NodeUsage {
        NodeUsage {
            cpu: self.cpu,
            memory_mb: self.memory_mb,
            disk_mb: self.disk_mb,
            ports: self.ports.into_keys().collect(),
        }
    }
}

/// What the allocs proposed on a node hold, summed.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct NodeUsage {
    pub cpu: i64,
    pub memory_mb: i64,
    pub disk_mb: i64,
    /// Host ports held by allocs (node-reserved ports are added by [`used_ports`]).
    pub ports: BTreeSet<i32>,
}

/// The node's schedulable capacity: its resources minus what the operator reserved.
pub fn node_capacity(node: &Node) -> (i64, i64, i64) {
    let res = &node.node_resources;
    let rsv = &node.reserved_resources;
    (
        res.cpu.cpu_shares - rsv.cpu.cpu_shares,
        res.memory.memory_mb - rsv.memory.memory_mb,
        res.disk.disk_mb - rsv.disk.disk_mb,
    )
}

/// `Ok` when `used` fits the node, else the first exhausted dimension in Nomad's order.
pub fn fits(node: &Node, used: &NodeUsage) -> Result<(), &'static str> {
    let (cpu, mem, disk) = node_capacity(node);
    if cpu < used.cpu {
        return Err("cpu");
    }
    if mem < used.memory_mb {
        return Err("memory");
    }
    if disk < used.disk_mb {
        return Err("disk");
    }
    Ok(())
}

/// Free cpu and memory fractions after `used`, against the capacity after reservations.
fn free_fractions(node: &Node, used: &NodeUsage) -> (f64, f64) {
    let (cpu, mem, _) = node_capacity(node);
    (
        1.0 - used.cpu as f64 / cpu as f64,
        1.0 - used.memory_mb as f64 / mem as f64,
    )
}

/// Nomad's `ScoreFitBinPack`: `20 - (10^freeCpu + 10^freeMem)`, clamped to [0, 18], where the
/// free fractions are taken against the node's capacity after reservations.
pub fn score_fit_binpack(node: &Node, used: &NodeUsage) -> f64 {
    let (free_cpu, free_mem) = free_fractions(node, used);
    let score = 20.0 - (10f64.powf(free_cpu) + 10f64.powf(free_mem));
    if score.is_nan() {
        return 0.0;
    }
    score.clamp(0.0, 18.0)
}

/// Nomad's `ScoreFitSpread` (the `spread` scheduler algorithm): `(10^freeCpu + 10^freeMem)
/// - 2`, clamped to [0, 18], so emptier nodes score higher.
pub fn score_fit_spread(node: &Node, used: &NodeUsage) -> f64 {
    let (free_cpu, free_mem) = free_fractions(node, used);
    let score = 10f64.powf(free_cpu) + 10f64.powf(free_mem) - 2.0;
    if score.is_nan() {
        return 0.0;
    }
    score.clamp(0.0, 18.0)
}

/// CPU cores reserved (`resources { cores = N }`) by the allocs that still hold resources.
pub fn cores_in_use<'a>(allocs: impl IntoIterator<Item = &'a Allocation>) -> BTreeSet<u32> {
    allocs
        .into_iter()
        .filter(|a| !a.client_terminal())
        .filter_map(|a| a.allocated_resources.as_ref())
        .flat_map(|r| r.tasks.values())
        .flat_map(|t| t.cpu.reserved_cores.iter().flatten().copied())
        .collect()
}

/// The node's cores a task may reserve, and the MHz one core is worth.
pub fn reservable_cores(node: &Node) -> (Vec<u32>, i64) {
    let cpu = &node.node_resources.cpu;
    let mut cores = cpu.reservable_cpu_cores.clone();
    if cores.is_empty() {
        cores = (0..cpu.total_cpu_cores).collect();
    }
    let reserved: BTreeSet<u32> = node
        .reserved_resources
        .cpu
        .reserved_cpu_cores
        .iter()
        .flatten()
        .copied()
        .collect();
    cores.retain(|c| !reserved.contains(c));
    let total = i64::from(cpu.total_cpu_cores.max(1));
    (cores, cpu.cpu_shares / total)
}

/// Parses Nomad's `reserved_host_ports` syntax: `"22,80,8000-8080"`. Bad entries are skipped:
/// the client validated the value when it registered.
pub fn parse_port_spec(spec: &str) -> BTreeSet<i32> {
    let mut out = BTreeSet::new();
    for part in spec.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        match part.split_once('-') {
            Some((a, b)) => {
                if let (Ok(a), Ok(b)) = (a.trim().parse::<i32>(), b.trim().parse::<i32>()) {
                    if a <= b && b - a <= 65535 {
                        out.extend(a..=b);
                    }
                }
            }
            None => {
                if let Ok(p) = part.parse::<i32>() {
                    out.insert(p);
                }
            }
        }
    }
    out
}

/// Ports that are not free on the node: held by allocs or reserved by the operator.
pub fn used_ports(node: &Node, usage: &NodeUsage) -> BTreeSet<i32> {
    let mut used = usage.ports.clone();
    used.extend(parse_port_spec(
        &node.reserved_resources.networks.reserved_host_ports,
    ));
    used
}

/// The group network's ports as granted on one node.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct PortOffer {
    pub networks: Vec<NetworkResource>,
    pub ports: Vec<AllocatedPortMapping>,
}

/// Grants the ask's static ports (which must be free) and picks its dynamic ports from the
/// node's dynamic range avoiding ports in use. The error text is Nomad's, shown after
/// `network: ` in `DimensionExhausted`.
pub fn assign_ports(
    node: &Node,
    ask: &NetworkResource,
    used: &BTreeSet<i32>,
    rng: &mut impl Rng,
) -> Result<PortOffer, String> {
    let host_ip = node.address();
    let mut taken = used.clone();
    let mut offer = NetworkResource {
        mode: ask.mode.clone(),
        ip: host_ip.clone(),
        mbits: ask.mbits,
        // The ask's device, usually none (Nomad's `AllocatedPortsToNetworkResouce` copies the
        // ask and only sets the node's host IP).
        device: ask.device.clone(),
        dns: ask.dns.clone(),
        ..Default::default()
    };
    let mut ports = Vec::new();
    for p in &ask.reserved_ports {
        if taken.contains(&p.value) {
            return Err(format!("reserved port collision {}={}", p.label, p.value));
        }
        taken.insert(p.value);
        offer.reserved_ports.push(p.clone());
        ports.push(mapping(&host_ip, p, p.value));
    }
    let (min, max) = dynamic_range(node);
    for p in &ask.dynamic_ports {
        let value = pick_dynamic(min, max, &taken, rng).ok_or("dynamic port selection failed")?;
        taken.insert(value);
        offer.dynamic_ports.push(Port { value, ..p.clone() });
        ports.push(mapping(&host_ip, p, value));
    }
    Ok(PortOffer {
        networks: vec![offer],
        ports,
    })
}

fn mapping(host_ip: &str, p: &Port, value: i32) -> AllocatedPortMapping {
    AllocatedPortMapping {
        host_ip: host_ip.to_string(),
        label: p.label.clone(),
        // `to = -1` means "map to the same port inside", as Nomad resolves it.
        to: if p.to == -1 { value } else { p.to },
        value,
    }
}

fn dynamic_range(node: &Node) -> (i32, i32) {
    let r = &node.node_resources;
    let min = if r.min_dynamic_port > 0 {
        r.min_dynamic_port
    } else {
        DEFAULT_MIN_DYNAMIC_PORT
    };
    let max = if r.max_dynamic_port > 0 {
        r.max_dynamic_port
    } else {
        DEFAULT_MAX_DYNAMIC_PORT
    };
    (min, max.max(min))
}

fn pick_dynamic(min: i32, max: i32, taken: &BTreeSet<i32>, rng: &mut impl Rng) -> Option<i32> {
    for _ in 0..MAX_RAND_PORT_ATTEMPTS {
        let p = rng.random_range(min..=max);
        if !taken.contains(&p) {
            return Some(p);
        }
    }
    (min..=max).find(|p| !taken.contains(p))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::{NodeCpuResources, NodeMemoryResources, NodeResources};
    use rand::SeedableRng;

    fn node(cpu: i64, mem: i64) -> Node {
        Node {
            node_resources: NodeResources {
                cpu: NodeCpuResources {
                    cpu_shares: cpu,
                    ..Default::default()
                },
                memory: NodeMemoryResources { memory_mb: mem },
                ..Default::default()
            },
            ..Default::default()
        }
    }

    fn usage(cpu: i64, mem: i64) -> NodeUsage {
        NodeUsage {
            cpu,
            memory_mb: mem,
            ..Default::default()
        }
    }

    #[test]
    fn an_offer_copies_the_ask_and_takes_the_nodes_host_ip() {
        let mut n = node(1000, 1000);
        n.node_resources.networks = vec![NetworkResource {
            device: "eth0".into(),
            ip: "10.0.0.5".into(),
            mode: "host".into(),
            ..Default::default()
        }];
        n.attributes
            .insert("unique.network.ip-address".into(), "10.0.0.5".into());
        let ask = NetworkResource {
            dynamic_ports: vec![Port {
                label: "http".into(),
                ..Default::default()
            }],
            ..Default::default()
        };
        let mut rng = rand::rngs::StdRng::seed_from_u64(1);
        let offer = assign_ports(&n, &ask, &BTreeSet::new(), &mut rng).expect("offer");
        let net = &offer.networks[0];
        // As Nomad's AllocatedPortsToNetworkResouce: no device unless the ask names one.
        assert_eq!(net.device, "");
        assert_eq!(net.ip, "10.0.0.5");
        assert_eq!(net.dynamic_ports[0].label, "http");
        assert_eq!(offer.ports[0].host_ip, "10.0.0.5");
    }

    #[test]
    fn binpack_score_table() {
        // (node cpu, node mem, used cpu, used mem, expected score)
        let cases = [
            (1000, 1000, 0, 0, 0.0),              // empty node: 20 - (10 + 10)
            (1000, 1000, 1000, 1000, 18.0),       // full node: 20 - (1 + 1)
            (1000, 1000, 500, 500, 13.675_445_6), // 20 - 2*sqrt(10)
            (2000, 4000, 1000, 1000, 11.214_309), // 20 - (10^0.5 + 10^0.75)
            (1000, 1000, 2000, 2000, 18.0),       // overfit clamps at 18
        ];
        for (nc, nm, uc, um, want) in cases {
            let got = score_fit_binpack(&node(nc, nm), &usage(uc, um));
            assert!(
                (got - want).abs() < 1e-5,
                "{nc} {nm} {uc} {um}: {got} != {want}"
            );
        }
    }

    #[test]
    fn spread_fit_score_table() {
        // (node cpu, node mem, used cpu, used mem, expected score)
        let cases = [
            (1000, 1000, 0, 0, 18.0),            // empty node: 10 + 10 - 2
            (1000, 1000, 1000, 1000, 0.0),       // full node: 1 + 1 - 2
            (1000, 1000, 500, 500, 4.324_555_3), // 2*sqrt(10) - 2
            (2000, 4000, 1000, 1000, 6.785_691), // 10^0.5 + 10^0.75 - 2
            (1000, 1000, 2000, 2000, 0.0),       // overfit clamps at 0
        ];
        for (nc, nm, uc, um, want) in cases {
            let got = score_fit_spread(&node(nc, nm), &usage(uc, um));
            assert!(
                (got - want).abs() < 1e-5,
                "{nc} {nm} {uc} {um}: {got} != {want}"
            );
        }
    }

    #[test]
    fn binpack_subtracts_reserved() {
        let mut n = node(2000, 2000);
        n.reserved_resources.cpu.cpu_shares = 1000;
        n.reserved_resources.memory.memory_mb = 1000;
        let got = score_fit_binpack(&n, &usage(1000, 1000));
        assert!((got - 18.0).abs() < 1e-9);
    }

    #[test]
    fn fits_reports_dimension_in_nomad_order() {
        let mut n = node(1000, 1000);
        n.node_resources.disk.disk_mb = 100;
        assert_eq!(fits(&n, &usage(1001, 2000)), Err("cpu"));
        assert_eq!(fits(&n, &usage(1000, 1001)), Err("memory"));
        let mut u = usage(10, 10);
        u.disk_mb = 101;
        assert_eq!(fits(&n, &u), Err("disk"));
        u.disk_mb = 100;
        assert_eq!(fits(&n, &u), Ok(()));
    }

    #[test]
    fn port_spec_parses_ranges() {
        let got = parse_port_spec("22, 80,8000-8002,bad,9-1");
        assert_eq!(
            got.into_iter().collect::<Vec<_>>(),
            vec![22, 80, 8000, 8001, 8002]
        );
    }

    #[test]
    fn ports_static_collision_and_dynamic_range() {
        let mut n = node(1000, 1000);
        n.node_resources.min_dynamic_port = 30000;
        n.node_resources.max_dynamic_port = 30002;
        let ask = NetworkResource {
            reserved_ports: vec![Port {
                label: "http".into(),
                value: 8080,
                ..Default::default()
            }],
            dynamic_ports: vec![
                Port {
                    label: "a".into(),
                    to: -1,
                    ..Default::default()
                },
                Port {
                    label: "b".into(),
                    ..Default::default()
                },
            ],
            ..Default::default()
        };
        let mut rng = rand::rngs::StdRng::seed_from_u64(7);
        let used: BTreeSet<i32> = [30001].into();
        let offer = assign_ports(&n, &ask, &used, &mut rng).expect("fits");
        let values: BTreeSet<i32> = offer.ports.iter().map(|p| p.value).collect();
        assert_eq!(values, [8080, 30000, 30002].into());
        let a = offer.ports.iter().find(|p| p.label == "a").expect("a");
        assert_eq!(a.to, a.value);
        assert_eq!(offer.ports[0].host_ip, "127.0.0.1");

        let used: BTreeSet<i32> = [8080].into();
        let err = assign_ports(&n, &ask, &used, &mut rng).expect_err("collides");
        assert_eq!(err, "reserved port collision http=8080");

        let used: BTreeSet<i32> = [30000, 30001].into();
        let err = assign_ports(&n, &ask, &used, &mut rng).expect_err("range full");
        assert_eq!(err, "dynamic port selection failed");
    }
}
