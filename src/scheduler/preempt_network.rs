//! Preemption for a group's network (Nomad's `Preemptor.PreemptForNetwork`): when the
//! group's static ports are held, or (with `mbits`) the device lacks bandwidth, find allocs
//! of jobs at least [`PRIORITY_DELTA`] levels lower on one network device whose eviction
//! frees them.
//!
//! Per device (in name order; Nomad walks a Go map), the holders of the asked static ports
//! are taken first; a port held by an alloc that may not be preempted (too high a priority)
//! rules the device out. Then, if the device still lacks bandwidth, more allocs are taken,
//! lowest priority first and, within a priority, closest in bandwidth to the ask (plus the
//! `migrate.max_parallel` penalty). Last, Nomad's superset filter keeps the picks, farthest
//! from the ask first, until the bandwidth suffices; with no bandwidth asked (the usual case
//! since `mbits` was deprecated) every pick is kept.
//!
//! What this leaves as Nomad does: a port held as a *dynamic* port, reserved by the node
//! (`reserved_host_ports`) or held by the job's own allocs is never freed, and exhausted
//! dynamic ports are not freed unless bandwidth is asked. The caller re-assigns the ports
//! without the picks and reports the collision when they still do not fit.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use crate::api::{Allocation, Job, NetworkResource, Node};

use super::{max_parallel_penalty, PreemptionCounts, PRIORITY_DELTA};

/// An alloc's networks as Nomad's `Comparable().Flattened.Networks`: the tasks' networks
/// (task-level `network` blocks), then the group's, merged per IP (or CIDR) by adding their
/// bandwidth and ports.
fn flattened_networks(a: &Allocation) -> Vec<NetworkResource> {
    let Some(ar) = a.allocated_resources.as_ref() else {
        return Vec::new();
    };
    let mut out: Vec<NetworkResource> = Vec::new();
    let tasks = ar
        .tasks
        .values()
        .filter_map(|t| t.networks.as_ref()?.first());
    for n in tasks.chain(ar.shared.networks.iter()) {
        let same = |o: &NetworkResource| {
            (!n.ip.is_empty() && o.ip == n.ip) || (!n.cidr.is_empty() && o.cidr == n.cidr)
        };
        match out.iter_mut().find(|o| same(o)) {
            Some(o) => {
                o.mbits += n.mbits;
                o.reserved_ports.extend(n.reserved_ports.iter().cloned());
                o.dynamic_ports.extend(n.dynamic_ports.iter().cloned());
            }
            None => out.push(n.clone()),
        }
    }
    out
}

/// The bandwidth (Mbit/s) of the alloc's first network, the one preemption looks at.
fn first_mbits(a: &Allocation) -> i64 {
    flattened_networks(a).first().map(|n| n.mbits).unwrap_or(0)
}

/// Bandwidth per device as Nomad's `NetworkIndex` counts it: the node's devices (those with a
/// name) offer their `MBits`; allocs use their networks' `MBits`, except that allocs whose
/// ports are recorded as port mappings (every alloc placed since Nomad 0.12) count none.
fn bandwidth(
    node: &Node,
    proposed: &[Arc<Allocation>],
) -> (BTreeMap<String, i64>, BTreeMap<String, i64>) {
    let avail: BTreeMap<String, i64> = node
        .node_resources
        .networks
        .iter()
        .filter(|n| !n.device.is_empty())
        .map(|n| (n.device.clone(), n.mbits))
        .collect();
    let mut used: BTreeMap<String, i64> = BTreeMap::new();
    for a in proposed.iter().filter(|a| !a.client_terminal()) {
        let Some(ar) = a.allocated_resources.as_ref() else {
            continue;
        };
        if !ar.shared.ports.is_empty() {
            continue;
        }
        let tasks = ar
            .tasks
            .values()
            .filter_map(|t| t.networks.as_ref()?.first());
        for n in ar.shared.networks.iter().chain(tasks) {
            *used.entry(n.device.clone()).or_default() += n.mbits;
        }
    }
    (avail, used)
}

/// Nomad's `networkResourceDistance`: how far the alloc's bandwidth is from the ask's,
/// relative to the ask. With no bandwidth asked every alloc is equally far (Nomad divides by
/// zero there; the order it gets is then arbitrary and only the set matters).
pub fn network_distance(ask_mbits: i64, used_mbits: i64) -> f64 {
    if ask_mbits == 0 {
        return 0.0;
    }
    ((ask_mbits - used_mbits) as f64 / ask_mbits as f64).abs()
}

/// Nomad's `scoreForNetwork`: the distance plus the `max_parallel` penalty.
fn score(ask_mbits: i64, a: &Allocation, counts: &PreemptionCounts) -> f64 {
    let Some(net) = flattened_networks(a).into_iter().next() else {
        return f64::MAX;
    };
    network_distance(ask_mbits, net.mbits) + max_parallel_penalty(a, counts)
}

/// Allocs on `node` to evict so the group's network `ask` can be granted, or `None` when no
/// lower-priority allocs on one device free it. `proposed` is everything the plan leaves on
/// the node (allocs this plan already preempts or stops are not in it: their ports are free).
pub fn for_network(
    job: &Job,
    node: &Node,
    proposed: &[Arc<Allocation>],
    ask: &NetworkResource,
    counts: &PreemptionCounts,
) -> Option<Vec<Arc<Allocation>>> {
    // Candidates per device, and the static ports that allocs we may not evict hold there.
    let mut by_device: BTreeMap<String, Vec<Arc<Allocation>>> = BTreeMap::new();
    let mut protected: BTreeMap<String, BTreeSet<i32>> = BTreeMap::new();
    for a in proposed {
        let same_job = a.job_id == job.id && a.namespace == job.namespace;
        let Some(j) = a.job.as_ref().filter(|_| !same_job) else {
            continue;
        };
        let Some(net) = flattened_networks(a).into_iter().next() else {
            continue;
        };
        if job.priority - j.priority < PRIORITY_DELTA {
            let ports = net.reserved_ports.iter().map(|p| p.value);
            protected.entry(net.device).or_default().extend(ports);
            continue;
        }
        by_device.entry(net.device).or_default().push(a.clone());
    }
    if by_device.is_empty() {
        return None;
    }
    let (avail, used) = bandwidth(node, proposed);
    let needed = ask.mbits;

    'device: for (device, candidates) in by_device {
        let total = avail.get(&device).copied().unwrap_or(0);
        if total < needed {
            continue;
        }
        let free = total - used.get(&device).copied().unwrap_or(0);
        let mut freed = 0;
        let mut picked: Vec<Arc<Allocation>> = Vec::new();
        let mut rest = candidates;
        if !ask.reserved_ports.is_empty() {
            let mut holder: BTreeMap<i32, usize> = BTreeMap::new();
            for (i, a) in rest.iter().enumerate() {
                for n in flattened_networks(a) {
                    holder.extend(n.reserved_ports.iter().map(|p| (p.value, i)));
                }
            }
            let mut taken: BTreeSet<usize> = BTreeSet::new();
            for port in &ask.reserved_ports {
                if let Some(&i) = holder.get(&port.value) {
                    // One alloc holding two asked ports is evicted (and counted) once.
                    if taken.insert(i) {
                        freed += first_mbits(&rest[i]);
                        picked.push(rest[i].clone());
                    }
                } else if protected
                    .get(&device)
                    .is_some_and(|p| p.contains(&port.value))
                {
                    continue 'device;
                }
            }
            rest = rest
                .into_iter()
                .enumerate()
                .filter(|(i, _)| !taken.contains(i))
                .map(|(_, a)| a)
                .collect();
        }
        let mut met = freed + free >= needed;
        if !met {
            let mut by_priority: BTreeMap<i32, Vec<Arc<Allocation>>> = BTreeMap::new();
            for a in rest {
                let p = a.job.as_ref().map(|j| j.priority).unwrap_or(0);
                by_priority.entry(p).or_default().push(a);
            }
            'fill: for (_, mut allocs) in by_priority {
                allocs
                    .sort_by(|x, y| score(needed, x, counts).total_cmp(&score(needed, y, counts)));
                for a in allocs {
                    freed += first_mbits(&a);
                    picked.push(a);
                    if freed + free >= needed {
                        met = true;
                        break 'fill;
                    }
                }
            }
        }
        if !met {
            continue;
        }
        let kept = filter_superset(picked, free, needed);
        return (!kept.is_empty()).then_some(kept);
    }
    None
}

/// Nomad's `filterSuperset` for bandwidth: the picks, farthest from the ask first, until
/// the freed bandwidth meets a (non-zero) ask; with no bandwidth asked, every pick.
fn filter_superset(
    mut picked: Vec<Arc<Allocation>>,
    free: i64,
    needed: i64,
) -> Vec<Arc<Allocation>> {
    picked.sort_by(|a, b| {
        let (da, db) = (
            network_distance(needed, first_mbits(a)),
            network_distance(needed, first_mbits(b)),
        );
        db.total_cmp(&da)
    });
    let mut available = free;
    let mut out = Vec::new();
    for a in picked {
        available += first_mbits(&a);
        out.push(a);
        if available > 0 && needed > 0 && available >= needed {
            break;
        }
    }
    out
}
