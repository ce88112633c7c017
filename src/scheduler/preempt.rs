//! Preemption (Nomad's `Preemptor`): when a group does not fit a node, find allocs of jobs
//! at least 10 priority levels lower whose eviction makes it fit. Ranking asks first for the
//! group's network (`network` submodule, Nomad's `PreemptForNetwork`: static port holders and
//! bandwidth), then, against what that leaves, for cpu/memory/disk ([`for_task_group`],
//! `PreemptForTaskGroup`); the node's preemptions are both sets, the network's first.
//!
//! For cpu/memory/disk, lowest priorities go first; within a priority the alloc closest in
//! shape to what is still needed is taken (penalised once its group's `migrate.max_parallel`
//! is already being preempted); then the picks are trimmed: taken back in order of distance
//! from the ask, farthest first, until they suffice.

use std::collections::BTreeMap;
use std::sync::Arc;

use crate::api::{Allocation, Job, Node};

use super::rank::node_capacity;

#[path = "preempt_network.rs"]
mod network;
pub use network::for_network;

/// Jobs must be at least this many priority levels apart for one to preempt the other.
pub const PRIORITY_DELTA: i32 = 10;
/// Distance added per preemption beyond a group's `migrate.max_parallel`.
const MAX_PARALLEL_PENALTY: f64 = 50.0;

/// Preemptions already in the plan, per (namespace, job, group).
pub type PreemptionCounts = BTreeMap<(String, String, String), usize>;

/// cpu (MHz), memory (MB), disk (MB).
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub struct Res {
    pub cpu: f64,
    pub mem: f64,
    pub disk: f64,
}

impl Res {
    pub fn of(a: &Allocation) -> Res {
        let r = a.comparable_resources();
        Res {
            cpu: r.cpu as f64,
            mem: r.memory_mb as f64,
            disk: r.disk_mb as f64,
        }
    }
    fn add(&mut self, o: &Res) {
        self.cpu += o.cpu;
        self.mem += o.mem;
        self.disk += o.disk;
    }
    fn sub(&mut self, o: &Res) {
        self.cpu -= o.cpu;
        self.mem -= o.mem;
        self.disk -= o.disk;
    }
    fn superset(&self, ask: &Res) -> bool {
        self.cpu >= ask.cpu && self.mem >= ask.mem && self.disk >= ask.disk
    }
}

/// Nomad's `basicResourceDistance`: how far `used` is from `ask`, per dimension relative to
/// the ask, as a euclidean norm.
pub fn distance(ask: &Res, used: &Res) -> f64 {
    let coord = |a: f64, u: f64| if a > 0.0 { (a - u) / a } else { 0.0 };
    let (m, c, d) = (
        coord(ask.mem, used.mem),
        coord(ask.cpu, used.cpu),
        coord(ask.disk, used.disk),
    );
    (m * m + c * c + d * d).sqrt()
}

/// Nomad's `scoreForTaskGroup`: the distance plus the `max_parallel` penalty.
fn score(ask: &Res, a: &Allocation, counts: &PreemptionCounts) -> f64 {
    distance(ask, &Res::of(a)) + max_parallel_penalty(a, counts)
}

/// What Nomad adds to an alloc's distance once its group's `migrate.max_parallel` allocs
/// are already being preempted by the plan: [`MAX_PARALLEL_PENALTY`] per alloc beyond it.
pub(super) fn max_parallel_penalty(a: &Allocation, counts: &PreemptionCounts) -> f64 {
    let max_parallel = a
        .job
        .as_ref()
        .and_then(|j| j.lookup_task_group(&a.task_group))
        .and_then(|tg| tg.migrate.as_ref())
        .map(|m| m.max_parallel.max(0) as usize)
        .unwrap_or(0);
    let k = (a.namespace.clone(), a.job_id.clone(), a.task_group.clone());
    let preempted = counts.get(&k).copied().unwrap_or(0);
    if max_parallel > 0 && preempted >= max_parallel {
        ((preempted + 1 - max_parallel) as f64) * MAX_PARALLEL_PENALTY
    } else {
        0.0
    }
}

/// Nomad's preemption score: a logistic curve of the preempted allocs' net priority
/// (`max + sum/max`), 0.5 at 2048, approaching 1 for low-priority victims.
pub fn preemption_score(victims: &[Arc<Allocation>]) -> f64 {
    let prio = |a: &Allocation| f64::from(a.job.as_ref().map(|j| j.priority).unwrap_or(0));
    let max = victims.iter().map(|a| prio(a)).fold(0.0, f64::max);
    let sum: f64 = victims.iter().map(|a| prio(a)).sum();
    let net = if max > 0.0 { max + sum / max } else { 0.0 };
    1.0 / (1.0 + (0.0048 * (net - 2048.0)).exp())
}

/// Allocs on `node` to evict so `ask` fits, or `None` when no set of lower-priority allocs
/// frees enough. `proposed` is everything the plan leaves on the node.
pub fn for_task_group(
    job: &Job,
    node: &Node,
    proposed: &[Arc<Allocation>],
    ask: &Res,
    counts: &PreemptionCounts,
) -> Option<Vec<Arc<Allocation>>> {
    let (cpu, mem, disk) = node_capacity(node);
    let mut remaining = Res {
        cpu: cpu as f64,
        mem: mem as f64,
        disk: disk as f64,
    };
    for a in proposed {
        remaining.sub(&Res::of(a));
    }
    // Candidates grouped by priority, lowest first.
    let mut groups: BTreeMap<i32, Vec<Arc<Allocation>>> = BTreeMap::new();
    for a in proposed {
        let Some(j) = a.job.as_ref() else { continue };
        let same_job = a.job_id == job.id && a.namespace == job.namespace;
        if same_job || job.priority - j.priority < PRIORITY_DELTA {
            continue;
        }
        groups.entry(j.priority).or_default().push(a.clone());
    }
    let mut available = remaining;
    let mut needed = *ask;
    let mut picked: Vec<Arc<Allocation>> = Vec::new();
    let mut met = false;
    for (_, mut allocs) in groups {
        while !allocs.is_empty() && !met {
            let best = allocs
                .iter()
                .enumerate()
                .map(|(i, a)| (i, score(&needed, a, counts)))
                .min_by(|x, y| x.1.total_cmp(&y.1))
                .map(|(i, _)| i)?;
            let a = allocs.swap_remove(best);
            let r = Res::of(&a);
            available.add(&r);
            needed.sub(&r);
            met = available.superset(ask);
            picked.push(a);
        }
        if met {
            break;
        }
    }
    if !met {
        return None;
    }
    // Nomad's filterSuperset: farthest from the ask first, until the ask fits.
    picked.sort_by(|a, b| {
        let (da, db) = (distance(ask, &Res::of(a)), distance(ask, &Res::of(b)));
        db.total_cmp(&da)
    });
    let mut avail = remaining;
    let mut out = Vec::new();
    for a in picked {
        avail.add(&Res::of(&a));
        out.push(a);
        if avail.superset(ask) {
            break;
        }
    }
    Some(out)
}

#[cfg(test)]
#[path = "preempt_tests.rs"]
mod tests;

#[cfg(test)]
#[path = "preempt_network_tests.rs"]
mod network_tests;
