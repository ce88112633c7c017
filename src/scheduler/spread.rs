//! Spread scoring (Nomad's `SpreadIterator`): for each `spread` block of the job and group,
//! boost nodes whose property value is below its desired share of the group's count (targets
//! with percentages, the rest under `*`), or, without targets, below the least-used value
//! (even spread). The boosts are weighted by each block's share of the summed weights.

use std::collections::{BTreeMap, BTreeSet};

use crate::api::{Job, Node, Spread, TaskGroup};

use super::plan_ctx::PlanCtx;
use super::propertyset::{PropertySet, IMPLICIT_TARGET};
use super::StateView;

/// Nomad's default weight for a spread block without one.
pub const DEFAULT_SPREAD_WEIGHT: i8 = 50;

/// Reads `spread` blocks from their JSON form; unreadable entries are skipped (the job was
/// validated when it was registered).
pub fn parse_spreads(v: Option<&serde_json::Value>) -> Vec<Spread> {
    let Some(list) = v.and_then(serde_json::Value::as_array) else {
        return Vec::new();
    };
    list.iter()
        .filter_map(|s| serde_json::from_value::<Spread>(s.clone()).ok())
        .filter(|s| !s.attribute.is_empty())
        .collect()
}

struct SpreadInfo {
    weight: f64,
    /// Target value -> desired alloc count; empty for an even spread.
    desired: BTreeMap<String, f64>,
    /// Bucket -> its desired count (`None`: not a target), resolved on first use: a score is
    /// asked for every node ranked, the buckets are few.
    by_bucket: Vec<Option<Option<f64>>>,
    /// Bucket -> its boost for the current placement (counts change only in `refresh`),
    /// except the boost of a zero-target bucket, which follows the lowest boost seen.
    boosts: Vec<Option<f64>>,
}

/// One group's spread state, kept across the group's placements like Nomad's iterator.
pub struct SpreadScorer {
    sets: Vec<(PropertySet, SpreadInfo)>,
    sum_weights: f64,
    lowest_boost: f64,
}

impl SpreadScorer {
    /// `None` when neither the job nor the group has spreads.
    pub fn new(state: &dyn StateView, job: &Job, tg: &TaskGroup) -> Option<Self> {
        let mut spreads = parse_spreads(tg.spreads.as_ref());
        spreads.extend(parse_spreads(job.spreads.as_ref()));
        if spreads.is_empty() {
            return None;
        }
        let count = f64::from(tg.count.max(0));
        let mut sets = Vec::with_capacity(spreads.len());
        let mut sum_weights = 0.0;
        for s in &spreads {
            let targets = s.spread_target.clone().unwrap_or_default();
            let mut desired = BTreeMap::new();
            let mut sum = 0.0;
            for t in &targets {
                let want = f64::from(t.percent) / 100.0 * count;
                desired.insert(t.value.clone(), want);
                sum += want;
            }
            if sum > 0.0 && sum < count {
                desired.insert(IMPLICIT_TARGET.to_string(), count - sum);
            }
            let weight = f64::from(s.weight.unwrap_or(DEFAULT_SPREAD_WEIGHT));
            sum_weights += weight;
            let values: BTreeSet<String> = targets.into_iter().map(|t| t.value).collect();
            let set = PropertySet::for_spread(state, job, &s.attribute, &tg.name, values);
            sets.push((
                set,
                SpreadInfo {
                    weight,
                    desired,
                    by_bucket: Vec::new(),
                    boosts: Vec::new(),
                },
            ));
        }
        Some(SpreadScorer {
            sets,
            sum_weights,
            lowest_boost: -1.0,
        })
    }

    /// Recounts the plan's placements; call before each placement.
    pub fn refresh(&mut self, state: &dyn StateView, job: &Job, pctx: &PlanCtx<'_>) {
        for (set, info) in &mut self.sets {
            set.populate_proposed(state, job, pctx);
            info.boosts.clear();
        }
    }

    /// The node's total spread boost (Nomad's `allocation-spread` score), for a node outside
    /// the stack.
    #[cfg(test)]
    pub fn score(&mut self, node: &Node) -> f64 {
        let mut total = 0.0;
        for i in 0..self.sets.len() {
            let set = &mut self.sets[i].0;
            let b = match set.error() {
                Some(_) => None,
                None => set.bucket_of(node),
            };
            total += self.boost(i, b);
        }
        total
    }

    /// [`SpreadScorer::score`] for the node at stack position `pos` (its buckets cached).
    pub fn score_at(&mut self, pos: usize, node: &Node) -> f64 {
        let mut total = 0.0;
        for i in 0..self.sets.len() {
            let set = &mut self.sets[i].0;
            let b = match set.error() {
                Some(_) => None,
                None => set.bucket_at(pos, node),
            };
            total += self.boost(i, b);
        }
        total
    }

    /// Set `i`'s boost for a node in bucket `b` (`None`: the node lacks the property).
    fn boost(&mut self, i: usize, b: Option<usize>) -> f64 {
        let Some(b) = b else {
            return -1.0;
        };
        if let Some(Some(boost)) = self.sets[i].1.boosts.get(b) {
            return *boost;
        }
        let boost = self.compute_boost(i, b);
        let info = &mut self.sets[i].1;
        if let Some(boost) = boost {
            if info.boosts.len() <= b {
                info.boosts.resize(b + 1, None);
            }
            info.boosts[b] = Some(boost);
        }
        boost.unwrap_or(self.lowest_boost)
    }

    /// Set `i`'s boost for bucket `b`; `None` for a zero-target bucket, whose boost is the
    /// lowest boost seen so far.
    fn compute_boost(&mut self, i: usize, b: usize) -> Option<f64> {
        let (set, info) = &mut self.sets[i];
        let used = set.used_in(b) as f64 + 1.0;
        if info.desired.is_empty() {
            return Some(even_spread_boost(set, b));
        }
        if info.by_bucket.len() <= b {
            info.by_bucket.resize(b + 1, None);
        }
        let desired = &info.desired;
        let want = *info.by_bucket[b].get_or_insert_with(|| {
            desired
                .get(set.bucket(b))
                .or_else(|| desired.get(IMPLICIT_TARGET))
                .copied()
        });
        let Some(want) = want else {
            return Some(-1.0);
        };
        let weight = info.weight;
        if want == 0.0 {
            return None;
        }
        let weight = if self.sum_weights == 0.0 {
            0.0
        } else {
            weight / self.sum_weights
        };
        let boost = (want - used) / want * weight;
        if boost < self.lowest_boost {
            self.lowest_boost = boost;
        }
        Some(boost)
    }
}

/// Nomad's `evenSpreadScoreBoost`: a value below the least-used one is boosted by how far
/// below it is; the least-used value is boosted by the spread between least and most used;
/// when every value is used equally no value is preferred (-1).
///
/// Nomad scans a Go map (random order) for the least and most used values, treating a count
/// of 0 as "unset", so a value whose allocs were all stopped makes the result depend on the
/// scan order; here the scan goes in the buckets' first-seen order, so runs are reproducible.
fn even_spread_boost(set: &PropertySet, b: usize) -> f64 {
    let mut used = set.present_counts().peekable();
    if used.peek().is_none() {
        return 0.0;
    }
    let current = set.used_in(b);
    let (mut min, mut max) = (0u64, 0u64);
    for n in used {
        if min == 0 || n < min {
            min = n;
        }
        if max == 0 || n > max {
            max = n;
        }
    }
    if current != min {
        if min == 0 {
            return -1.0;
        }
        return (min as f64 - current as f64) / min as f64;
    }
    if min == max {
        return -1.0;
    }
    if min == 0 {
        return 1.0;
    }
    (max - min) as f64 / min as f64
}

#[cfg(test)]
#[path = "spread_tests.rs"]
mod tests;
