//! How many of a job's allocs sit on each value of a node property (Nomad's `propertySet`),
//! counting the snapshot's allocs and what the plan being built adds and stops. Spreads score
//! against these counts; `distinct_property` filters on them.

use std::collections::{BTreeSet, HashMap};

use crate::api::{Allocation, Constraint, Job, Node};

use super::feasible::{resolve_target, CONSTRAINT_DISTINCT_PROPERTY};
use super::plan_ctx::PlanCtx;
use super::StateView;

/// The bucket values outside a spread's targets count towards.
pub const IMPLICIT_TARGET: &str = "*";

pub struct PropertySet {
    /// The node property, e.g. `${meta.rack}`.
    pub attribute: String,
    /// Only this group's allocs count; `None` counts the whole job (job-level constraints).
    group: Option<String>,
    /// For `distinct_property`: how many allocs may share one value.
    pub allowed: u64,
    /// Spread target values; others are counted under [`IMPLICIT_TARGET`].
    targets: BTreeSet<String>,
    existing: HashMap<String, u64>,
    proposed: HashMap<String, u64>,
    cleared: HashMap<String, u64>,
    /// existing + proposed - cleared, recomputed when the counts change.
    combined: HashMap<String, u64>,
    error: Option<String>,
    /// Node ID -> its value of `attribute` (resolved once per run).
    node_values: HashMap<String, Option<String>>,
}

impl PropertySet {
    /// A set for a spread: counts only `group`'s allocs and buckets by `targets`.
    pub fn for_spread(
        state: &dyn StateView,
        job: &Job,
        attribute: &str,
        group: &str,
        targets: BTreeSet<String>,
    ) -> Self {
        let mut p = Self::empty(attribute, Some(group.to_string()), 0);
        p.targets = targets;
        p.populate_existing(state, job);
        p
    }

    /// A set for a `distinct_property` constraint at job level (`group = None`) or group
    /// level. An `RTarget` that is not an unsigned integer makes every node fail, as Nomad.
    pub fn for_constraint(
        state: &dyn StateView,
        job: &Job,
        c: &Constraint,
        group: Option<&str>,
    ) -> Self {
        let mut p = Self::empty(&c.l_target, group.map(str::to_string), 1);
        if !c.r_target.is_empty() {
            match c.r_target.parse::<u64>() {
                Ok(n) => p.allowed = n,
                Err(e) => {
                    p.error = Some(format!(
                        "failed to convert RTarget {:?} to uint64: {e}",
                        c.r_target
                    ));
                    return p;
                }
            }
        }
        p.populate_existing(state, job);
        p
    }

    fn empty(attribute: &str, group: Option<String>, allowed: u64) -> Self {
        PropertySet {
            attribute: attribute.to_string(),
            group,
            allowed,
            targets: BTreeSet::new(),
            existing: HashMap::new(),
            proposed: HashMap::new(),
            cleared: HashMap::new(),
            combined: HashMap::new(),
            error: None,
            node_values: HashMap::new(),
        }
    }

    fn counts(&self, a: &Allocation, skip_terminal: bool) -> bool {
        !(skip_terminal && a.terminal()) && self.group.as_ref().is_none_or(|g| *g == a.task_group)
    }

    fn value_of(&mut self, state: &dyn StateView, node_id: &str) -> Option<String> {
        if let Some(v) = self.node_values.get(node_id) {
            return v.clone();
        }
        let v = state
            .node(node_id)
            .and_then(|n| resolve_target(&self.attribute, &n).map(str::to_string));
        self.node_values.insert(node_id.to_string(), v.clone());
        v
    }

    fn bucket(&self, value: String) -> String {
        if self.targets.is_empty() || self.targets.contains(&value) {
            value
        } else {
            IMPLICIT_TARGET.to_string()
        }
    }

    fn populate_existing(&mut self, state: &dyn StateView, job: &Job) {
        for a in state.allocs_by_job(&job.namespace, &job.id) {
            if !self.counts(&a, true) {
                continue;
            }
            if let Some(v) = self.value_of(state, &a.node_id) {
                *self.existing.entry(self.bucket(v)).or_default() += 1;
            }
        }
        self.combined = self.existing.clone();
    }

    /// Recounts what the plan places and stops (Nomad's `PopulateProposed`); call before each
    /// placement.
    pub fn populate_proposed(&mut self, state: &dyn StateView, job: &Job, pctx: &PlanCtx<'_>) {
        if self.error.is_some() {
            return;
        }
        let mut proposed: HashMap<String, u64> = HashMap::new();
        let mut cleared: HashMap<String, u64> = HashMap::new();
        for (node_id, allocs) in &pctx.stops {
            let n = allocs
                .iter()
                .filter(|a| self.is_job(a, job) && self.counts(a, false));
            let n = n.count() as u64;
            if n > 0 {
                if let Some(v) = self.value_of(state, node_id) {
                    *cleared.entry(self.bucket(v)).or_default() += n;
                }
            }
        }
        for (node_id, allocs) in &pctx.placed {
            let n = allocs
                .iter()
                .filter(|a| self.is_job(a, job) && self.counts(a, true));
            let n = n.count() as u64;
            if n > 0 {
                if let Some(v) = self.value_of(state, node_id) {
                    *proposed.entry(self.bucket(v)).or_default() += n;
                }
            }
        }
        // A value that gains a placement gives back one of its stops (an alloc replaced on
        // the same value), as Nomad does.
        for value in proposed.keys() {
            if let Some(c) = cleared.get_mut(value) {
                if *c <= 1 {
                    cleared.remove(value);
                } else {
                    *c -= 1;
                }
            }
        }
        self.proposed = proposed;
        self.cleared = cleared;
        self.combined = self.compute_combined();
    }

    fn is_job(&self, a: &Allocation, job: &Job) -> bool {
        a.job_id == job.id && a.namespace == job.namespace
    }

    /// Existing plus proposed minus cleared, per bucket.
    pub fn combined(&self) -> &HashMap<String, u64> {
        &self.combined
    }

    fn compute_combined(&self) -> HashMap<String, u64> {
        let mut out = self.existing.clone();
        for (v, n) in &self.proposed {
            *out.entry(v.clone()).or_default() += n;
        }
        for (v, n) in &self.cleared {
            if let Some(c) = out.get_mut(v) {
                *c = c.saturating_sub(*n);
            }
        }
        out
    }

    /// The node's bucket and how many allocs already use it, or Nomad's error text.
    pub fn used_count(&self, node: &Node) -> Result<(String, u64), String> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        let Some(value) = resolve_target(&self.attribute, node) else {
            return Err(format!("missing property {:?}", self.attribute));
        };
        let bucket = self.bucket(value.to_string());
        let used = self.combined.get(&bucket).copied().unwrap_or(0);
        Ok((bucket, used))
    }

    /// Nomad's `SatisfiesDistinctProperties`: `Err` carries the filter reason.
    pub fn satisfies(&self, node: &Node) -> Result<(), String> {
        let (value, used) = self.used_count(node)?;
        if used < self.allowed {
            return Ok(());
        }
        Err(format!(
            "{CONSTRAINT_DISTINCT_PROPERTY}: {}={value} used by {used} allocs",
            self.attribute
        ))
    }
}

/// The `distinct_property` constraints of a job and one group (Nomad's
/// `DistinctPropertyIterator`): job-level ones count every group's allocs.
pub struct DistinctProperties {
    sets: Vec<PropertySet>,
}

impl DistinctProperties {
    pub fn new(state: &dyn StateView, job: &Job, tg: &crate::api::TaskGroup) -> Self {
        let is_distinct = |c: &&Constraint| c.operand == CONSTRAINT_DISTINCT_PROPERTY;
        let mut sets: Vec<PropertySet> = job
            .constraints
            .iter()
            .flatten()
            .filter(is_distinct)
            .map(|c| PropertySet::for_constraint(state, job, c, None))
            .collect();
        sets.extend(
            tg.constraints
                .iter()
                .flatten()
                .filter(is_distinct)
                .map(|c| PropertySet::for_constraint(state, job, c, Some(&tg.name))),
        );
        DistinctProperties { sets }
    }

    pub fn is_empty(&self) -> bool {
        self.sets.is_empty()
    }

    pub fn refresh(&mut self, state: &dyn StateView, job: &Job, pctx: &PlanCtx<'_>) {
        for s in &mut self.sets {
            s.populate_proposed(state, job, pctx);
        }
    }

    /// The first violated constraint's filter reason.
    pub fn check(&self, node: &Node) -> Result<(), String> {
        self.sets.iter().try_for_each(|s| s.satisfies(node))
    }
}
