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
    /// Bucket -> its index in the count vectors, buckets numbered in first-seen order (which
    /// is also the order [`PropertySet::present_counts`] visits them in).
    ids: HashMap<String, usize>,
    names: Vec<String>,
    existing: Vec<u64>,
    /// The plan's placed and stopped allocs of the job (and group), per bucket, summed from
    /// `node_counts`.
    placed: Vec<u64>,
    stopped: Vec<u64>,
    /// existing + proposed - cleared per bucket, `None` for a bucket Nomad's combined map
    /// would not hold; recomputed when the counts change.
    combined: Vec<Option<u64>>,
    error: Option<String>,
    /// Node ID -> the bucket of its value of `attribute` (resolved once per run).
    node_buckets: HashMap<String, Option<usize>>,
    /// Node ID -> the (placed, stopped) allocs counted there at the last refresh.
    node_counts: HashMap<String, (u64, u64)>,
    /// Position in the plan's touched-node log up to which `node_counts` are current.
    cursor: usize,
    /// Stack position -> bucket (`UNRESOLVED`, `MISSING` or an index), for the hot path.
    at: Vec<u32>,
}

const UNRESOLVED: u32 = u32::MAX;
const MISSING: u32 = u32::MAX - 1;

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
            ids: HashMap::new(),
            names: Vec::new(),
            existing: Vec::new(),
            placed: Vec::new(),
            stopped: Vec::new(),
            combined: Vec::new(),
            error: None,
            node_buckets: HashMap::new(),
            node_counts: HashMap::new(),
            cursor: 0,
            at: Vec::new(),
        }
    }

    fn counts(&self, a: &Allocation, skip_terminal: bool) -> bool {
        !(skip_terminal && a.terminal()) && self.group.as_ref().is_none_or(|g| *g == a.task_group)
    }

    /// The bucket a value counts under.
    fn bucket_name<'v>(&self, value: &'v str) -> &'v str {
        if self.targets.is_empty() || self.targets.contains(value) {
            value
        } else {
            IMPLICIT_TARGET
        }
    }

    fn intern(&mut self, value: &str) -> usize {
        let name = self.bucket_name(value);
        if let Some(&id) = self.ids.get(name) {
            return id;
        }
        let id = self.names.len();
        self.ids.insert(name.to_string(), id);
        self.names.push(name.to_string());
        self.existing.push(0);
        self.placed.push(0);
        self.stopped.push(0);
        self.combined.push(None);
        id
    }

    fn node_bucket(&mut self, state: &dyn StateView, node_id: &str) -> Option<usize> {
        if let Some(b) = self.node_buckets.get(node_id) {
            return *b;
        }
        let b = state.node(node_id).and_then(|n| {
            let value = resolve_target(&self.attribute, &n)?.to_string();
            Some(self.intern(&value))
        });
        self.node_buckets.insert(node_id.to_string(), b);
        b
    }

    fn populate_existing(&mut self, state: &dyn StateView, job: &Job) {
        for a in state.allocs_by_job(&job.namespace, &job.id) {
            if !self.counts(&a, true) {
                continue;
            }
            if let Some(b) = self.node_bucket(state, &a.node_id) {
                self.existing[b] += 1;
            }
        }
        self.compute_combined();
    }

    /// Recounts what the plan places and stops (Nomad's `PopulateProposed`); call before each
    /// placement. Only the nodes the plan touched since the last call are recounted.
    pub fn populate_proposed(&mut self, state: &dyn StateView, job: &Job, pctx: &PlanCtx<'_>) {
        if self.error.is_some() {
            return;
        }
        let (touched, next) = pctx.touched_since(self.cursor);
        self.cursor = next;
        if touched.is_empty() {
            return;
        }
        for node_id in touched {
            let stopped = pctx.stops().get(node_id).map_or(0, |allocs| {
                let n = allocs
                    .iter()
                    .filter(|a| self.is_job(a, job) && self.counts(a, false));
                n.count() as u64
            });
            let placed = pctx.placed().get(node_id).map_or(0, |allocs| {
                let n = allocs
                    .iter()
                    .filter(|a| self.is_job(a, job) && self.counts(a, true));
                n.count() as u64
            });
            let before = self.node_counts.get(node_id).copied().unwrap_or((0, 0));
            if before == (placed, stopped) {
                continue;
            }
            if let Some(b) = self.node_bucket(state, node_id) {
                self.placed[b] = self.placed[b] - before.0 + placed;
                self.stopped[b] = self.stopped[b] - before.1 + stopped;
            }
            self.node_counts.insert(node_id.clone(), (placed, stopped));
        }
        self.compute_combined();
    }

    fn is_job(&self, a: &Allocation, job: &Job) -> bool {
        a.job_id == job.id && a.namespace == job.namespace
    }

    /// Existing plus proposed minus cleared, per bucket, where a bucket that gains a
    /// placement gives back one of its stops (an alloc replaced on the same value), as Nomad
    /// does. Only buckets with existing or proposed allocs are in Nomad's combined map.
    fn compute_combined(&mut self) {
        for b in 0..self.names.len() {
            let proposed = self.placed[b];
            let mut cleared = self.stopped[b];
            if proposed > 0 {
                cleared = cleared.saturating_sub(1);
            }
            let present = self.existing[b] > 0 || proposed > 0;
            self.combined[b] =
                present.then(|| (self.existing[b] + proposed).saturating_sub(cleared));
        }
    }

    /// The combined counts of the buckets in Nomad's combined map, in first-seen order.
    pub fn present_counts(&self) -> impl Iterator<Item = u64> + '_ {
        self.combined.iter().flatten().copied()
    }

    /// How many allocs use bucket `b`.
    pub fn used_in(&self, b: usize) -> u64 {
        self.combined[b].unwrap_or(0)
    }

    pub fn bucket(&self, b: usize) -> &str {
        &self.names[b]
    }

    /// The node's bucket, or `None` when the node lacks the property. `pos` is the node's
    /// position in the stack, which caches the answer.
    pub fn bucket_at(&mut self, pos: usize, node: &Node) -> Option<usize> {
        if pos >= self.at.len() {
            self.at.resize(pos + 1, UNRESOLVED);
        }
        let b = match self.at[pos] {
            UNRESOLVED => {
                // Owned: the value may borrow `self.attribute` (a literal target).
                let value = resolve_target(&self.attribute, node).map(str::to_string);
                let b = match value {
                    Some(value) => self.intern(&value) as u32,
                    None => MISSING,
                };
                self.at[pos] = b;
                b
            }
            b => b,
        };
        (b != MISSING).then_some(b as usize)
    }

    /// The node's bucket, or `None` when the node lacks the property.
    #[cfg(test)]
    pub fn bucket_of(&mut self, node: &Node) -> Option<usize> {
        let value = resolve_target(&self.attribute, node)?.to_string();
        Some(self.intern(&value))
    }

    pub fn error(&self) -> Option<&str> {
        self.error.as_deref()
    }

    /// The node's bucket and how many allocs already use it, or Nomad's error text.
    pub fn used_count<'a>(&'a self, node: &'a Node) -> Result<(&'a str, u64), String> {
        if let Some(e) = &self.error {
            return Err(e.clone());
        }
        let Some(value) = resolve_target(&self.attribute, node) else {
            return Err(format!("missing property {:?}", self.attribute));
        };
        let bucket = self.bucket_name(value);
        let used = self.ids.get(bucket).map_or(0, |&b| self.used_in(b));
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
