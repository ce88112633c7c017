//! Node feasibility for one group outside ranking: the static checks (job, group and task
//! constraints, drivers) with the computed-class eligibility they record for blocked evals,
//! `distinct_hosts`, and the filter/exhaust counts in `AllocMetric`, kept as Nomad keys them.

use std::collections::BTreeMap;
use std::hash::{Hash as _, Hasher as _};
use std::sync::Arc;

use crate::api::{AllocMetric, Allocation, Constraint, Job, Node, TaskGroup};

use super::devices;
use super::feasible::{
    constraint_key, group_constraints, has_driver, meets_constraint, wants_distinct_hosts,
    CONSTRAINT_DISTINCT_HOSTS, FILTER_MISSING_DRIVERS,
};
use super::plan_ctx::PlanCtx;

/// Computed-class eligibility seen while checking nodes, for the blocked eval.
#[derive(Debug, Clone, Default)]
pub struct Eligibility {
    job: BTreeMap<String, bool>,
    groups: BTreeMap<String, BTreeMap<String, bool>>,
}

impl Eligibility {
    /// Nomad's merge: a class the job rules out is ineligible; else eligible if any group
    /// found it eligible; else ineligible if some group ruled it out.
    pub fn classes(&self) -> BTreeMap<String, bool> {
        let mut out = BTreeMap::new();
        for (class, ok) in &self.job {
            if !ok {
                out.insert(class.clone(), false);
            }
        }
        for classes in self.groups.values() {
            for (class, ok) in classes {
                if self.job.get(class) == Some(&false) {
                    continue;
                }
                let entry = out.entry(class.clone()).or_insert(*ok);
                *entry |= *ok;
            }
        }
        out
    }

    /// Records the class's job-level outcome unless one is already recorded (the first wins).
    pub(super) fn set_job(&mut self, class: &str, ok: bool) {
        if !class.is_empty() && !self.job.contains_key(class) {
            self.job.insert(class.to_string(), ok);
        }
    }

    /// Records the class's outcome for the group unless one is already recorded.
    pub(super) fn set_group(&mut self, tg: &str, class: &str, ok: bool) {
        if class.is_empty() {
            return;
        }
        if !self.groups.contains_key(tg) {
            self.groups.insert(tg.to_string(), BTreeMap::new());
        }
        if let Some(classes) = self.groups.get_mut(tg) {
            if !classes.contains_key(class) {
                classes.insert(class.to_string(), ok);
            }
        }
    }
}

/// Adds one to `key`'s count, allocating the key only the first time it is seen.
fn bump(map: &mut Option<BTreeMap<String, i64>>, key: &str) {
    let map = map.get_or_insert_with(BTreeMap::new);
    match map.get_mut(key) {
        Some(n) => *n += 1,
        None => {
            map.insert(key.to_string(), 1);
        }
    }
}

/// Records metrics the way Nomad's `AllocMetric` methods do.
pub fn filter_node(m: &mut AllocMetric, node: &Node, reason: &str) {
    m.nodes_filtered += 1;
    if !node.node_class.is_empty() {
        bump(&mut m.class_filtered, &node.node_class);
    }
    if !reason.is_empty() {
        bump(&mut m.constraint_filtered, reason);
    }
}

pub fn exhaust_node(m: &mut AllocMetric, node: &Node, dimension: &str) {
    m.nodes_exhausted += 1;
    if !node.node_class.is_empty() {
        bump(&mut m.class_exhausted, &node.node_class);
    }
    if !dimension.is_empty() {
        bump(&mut m.dimension_exhausted, dimension);
    }
}

/// Feasibility of one node for the group, recording the first failing check.
pub fn feasible(
    node: &Node,
    job: &Job,
    tg: &TaskGroup,
    ctx: &mut PlanCtx<'_>,
    metric: &mut AllocMetric,
    elig: &mut Eligibility,
) -> bool {
    if let Err(reason) = static_feasible(node, job, tg, elig) {
        filter_node(metric, node, &reason);
        return false;
    }
    let distinct = DistinctHosts::of(job, tg);
    if distinct.wanted() && distinct.collides(job, tg, &ctx.proposed(&node.id)) {
        filter_node(metric, node, CONSTRAINT_DISTINCT_HOSTS);
        return false;
    }
    true
}

/// The checks that depend only on the node, the job and the group (job constraints, drivers,
/// group and task constraints), recording computed-class eligibility as they go. `Err`
/// carries the filter reason for the metric. Nomad caches this outcome per computed class;
/// the stack caches it per node, so a class that does not hash every attribute the
/// constraints read cannot change a decision.
pub(super) fn static_feasible(
    node: &Node,
    job: &Job,
    tg: &TaskGroup,
    elig: &mut Eligibility,
) -> Result<(), String> {
    for c in job.constraints.iter().flatten() {
        if !meets_constraint(c, node) {
            elig.set_job(&node.computed_class, false);
            return Err(constraint_key(c));
        }
    }
    elig.set_job(&node.computed_class, true);
    if !tg.tasks.iter().all(|t| has_driver(node, &t.driver)) {
        elig.set_group(&tg.name, &node.computed_class, false);
        return Err(FILTER_MISSING_DRIVERS.to_string());
    }
    for c in group_constraints(tg) {
        if !meets_constraint(c, node) {
            elig.set_group(&tg.name, &node.computed_class, false);
            return Err(constraint_key(c));
        }
    }
    if !devices::has_devices(node, tg) {
        elig.set_group(&tg.name, &node.computed_class, false);
        return Err(devices::FILTER_MISSING_DEVICES.to_string());
    }
    elig.set_group(&tg.name, &node.computed_class, true);
    Ok(())
}

/// The node's feasibility class: a hash of everything [`static_feasible`] reads except the
/// node's unique fields (`unique.*` attributes and meta, ID, name), and of the computed class
/// it records eligibility under. Nodes of one class pass or fail the static checks alike, and
/// record the same eligibility, for any group whose constraints read no unique field (see
/// [`reads_unique`]). Computed once per node value.
pub(super) fn feasibility_class(node: &Node) -> u64 {
    node.feasibility_class.get_or_init(|| {
        let mut h = std::hash::DefaultHasher::new();
        node.computed_class.hash(&mut h);
        node.datacenter.hash(&mut h);
        node.node_class.hash(&mut h);
        node.node_pool.hash(&mut h);
        for map in [&node.attributes, &node.meta] {
            for (k, v) in map.iter().filter(|(k, _)| !k.starts_with("unique.")) {
                k.hash(&mut h);
                v.hash(&mut h);
            }
            0xfeu8.hash(&mut h);
        }
        for (name, d) in &node.drivers {
            name.hash(&mut h);
            (d.detected, d.healthy).hash(&mut h);
        }
        if let Some(devices) = &node.node_resources.devices {
            devices.to_string().hash(&mut h);
        }
        h.finish()
    })
}

/// Whether a job or group constraint reads a unique node field, so the group's static checks
/// run per node rather than per [`feasibility_class`] (Nomad: the constraint escapes the
/// computed class).
pub(super) fn reads_unique(job: &Job, tg: &TaskGroup) -> bool {
    let unique = |c: &Constraint| c.l_target.contains("unique.") || c.r_target.contains("unique.");
    job.constraints.iter().flatten().any(unique) || group_constraints(tg).into_iter().any(unique)
}

/// The job's and the group's `distinct_hosts` asks.
#[derive(Debug, Clone, Copy)]
pub(super) struct DistinctHosts {
    job: bool,
    group: bool,
}

impl DistinctHosts {
    pub(super) fn of(job: &Job, tg: &TaskGroup) -> Self {
        DistinctHosts {
            job: wants_distinct_hosts(job.constraints.as_ref()),
            group: wants_distinct_hosts(tg.constraints.as_ref()),
        }
    }

    pub(super) fn wanted(self) -> bool {
        self.job || self.group
    }

    /// Whether the node already holds an alloc the ask rules out.
    pub(super) fn collides(self, job: &Job, tg: &TaskGroup, proposed: &[Arc<Allocation>]) -> bool {
        proposed.iter().any(|a| {
            let same_job = a.job_id == job.id && a.namespace == job.namespace;
            same_job && (self.job || a.task_group == tg.name)
        })
    }
}
