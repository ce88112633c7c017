//! The placement stack for service and batch jobs (Nomad's `GenericStack`): walk the shuffled
//! nodes, filter by feasibility, rank by binpack and penalties, stop after a few ranked options
//! (the limit), pick the best. Metrics record why nodes fell out, keyed as Nomad keys them.
//!
//! ```text
//!  shuffled nodes -> job constraints -> drivers -> group/task constraints -> distinct_hosts
//!    -> ports + resources fit -> binpack, job anti-affinity, reschedule penalty
//!    -> limit (skip up to 3 options scoring <= 0) -> max score
//! ```

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use rand::rngs::StdRng;

use crate::api::{
    AllocMetric, AllocatedCpuResources, AllocatedMemoryResources, AllocatedTaskResources, Job,
    Node, NodeScoreMeta, TaskGroup,
};

use super::feasible::{
    affinity_score, constraint_key, group_constraints, has_driver, meets_constraint,
    wants_distinct_hosts, Affinity, CONSTRAINT_DISTINCT_HOSTS, FILTER_MISSING_DRIVERS,
};
use super::plan_ctx::PlanCtx;
use super::rank::{
    assign_ports, fits, score_fit_binpack, used_ports, NodeUsage, PortOffer, BINPACK_MAX_FIT_SCORE,
};

/// Options scoring at or below this may be skipped by the limit (Nomad's skipScoreThreshold).
const SKIP_SCORE_THRESHOLD: f64 = 0.0;
/// At most this many low-scoring options are skipped (Nomad's maxSkip).
const MAX_SKIP: usize = 3;
/// Top-scoring nodes kept in `ScoreMetaData` (Nomad's MaxRetainedNodeScores).
const MAX_RETAINED_NODE_SCORES: usize = 5;

/// A node that passed feasibility and fits the group, with what it would grant.
#[derive(Debug, Clone)]
pub struct RankedNode {
    pub node: Arc<Node>,
    pub final_score: f64,
    pub ports: Option<PortOffer>,
}

#[derive(Debug, Clone, Default)]
pub struct SelectOptions {
    /// Nodes a rescheduled alloc failed on: scored -1 for node-reschedule-penalty.
    pub penalty_nodes: BTreeSet<String>,
    /// The group's merged affinities (job, group, tasks).
    pub affinities: Vec<Affinity>,
    /// The name of the alloc being placed (`job.group[N]`), for per-alloc host volumes.
    pub alloc_name: String,
}

/// Nodes scored when a group has affinities (Nomad's default
/// NodeLimitForFeasibilityChecks), so preferences see enough of the cluster.
const AFFINITY_NODE_LIMIT: usize = 100;

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

    fn set_job(&mut self, class: &str, ok: bool) {
        if !class.is_empty() {
            self.job.entry(class.to_string()).or_insert(ok);
        }
    }

    fn set_group(&mut self, tg: &str, class: &str, ok: bool) {
        if !class.is_empty() {
            self.groups
                .entry(tg.to_string())
                .or_default()
                .entry(class.to_string())
                .or_insert(ok);
        }
    }
}

/// What each task of the group is granted: its asked cpu and memory.
pub fn task_resources(tg: &TaskGroup) -> BTreeMap<String, AllocatedTaskResources> {
    tg.tasks
        .iter()
        .map(|t| {
            let r = t.resources.as_ref();
            let tr = AllocatedTaskResources {
                cpu: AllocatedCpuResources {
                    cpu_shares: r.map(|r| r.cpu).unwrap_or(0),
                    reserved_cores: None,
                },
                memory: AllocatedMemoryResources {
                    memory_mb: r.map(|r| r.memory_mb).unwrap_or(0),
                    memory_max_mb: r.map(|r| r.memory_max_mb).unwrap_or(0),
                },
                ..Default::default()
            };
            (t.name.clone(), tr)
        })
        .collect()
}

/// Records metrics the way Nomad's `AllocMetric` methods do.
pub fn filter_node(m: &mut AllocMetric, node: &Node, reason: &str) {
    m.nodes_filtered += 1;
    if !node.node_class.is_empty() {
        *m.class_filtered
            .get_or_insert_with(BTreeMap::new)
            .entry(node.node_class.clone())
            .or_default() += 1;
    }
    if !reason.is_empty() {
        *m.constraint_filtered
            .get_or_insert_with(BTreeMap::new)
            .entry(reason.to_string())
            .or_default() += 1;
    }
}

pub fn exhaust_node(m: &mut AllocMetric, node: &Node, dimension: &str) {
    m.nodes_exhausted += 1;
    if !node.node_class.is_empty() {
        *m.class_exhausted
            .get_or_insert_with(BTreeMap::new)
            .entry(node.node_class.clone())
            .or_default() += 1;
    }
    if !dimension.is_empty() {
        *m.dimension_exhausted
            .get_or_insert_with(BTreeMap::new)
            .entry(dimension.to_string())
            .or_default() += 1;
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
    for c in job.constraints.iter().flatten() {
        if !meets_constraint(c, node) {
            filter_node(metric, node, &constraint_key(c));
            elig.set_job(&node.computed_class, false);
            return false;
        }
    }
    elig.set_job(&node.computed_class, true);
    let drivers: BTreeSet<&str> = tg.tasks.iter().map(|t| t.driver.as_str()).collect();
    if !drivers.iter().all(|d| has_driver(node, d)) {
        filter_node(metric, node, FILTER_MISSING_DRIVERS);
        elig.set_group(&tg.name, &node.computed_class, false);
        return false;
    }
    for c in group_constraints(tg) {
        if !meets_constraint(c, node) {
            filter_node(metric, node, &constraint_key(c));
            elig.set_group(&tg.name, &node.computed_class, false);
            return false;
        }
    }
    elig.set_group(&tg.name, &node.computed_class, true);

    let job_distinct = wants_distinct_hosts(job.constraints.as_ref());
    let tg_distinct = wants_distinct_hosts(tg.constraints.as_ref());
    if job_distinct || tg_distinct {
        let collision = ctx.proposed(&node.id).iter().any(|a| {
            let same_job = a.job_id == job.id && a.namespace == job.namespace;
            same_job && (job_distinct || a.task_group == tg.name)
        });
        if collision {
            filter_node(metric, node, CONSTRAINT_DISTINCT_HOSTS);
            return false;
        }
    }
    true
}

/// Fits and scores the group on a feasible node; `None` (recorded as exhausted) if it does
/// not fit. Scores are recorded into `meta` as Nomad names them.
pub fn rank(
    node: &Arc<Node>,
    job: &Job,
    tg: &TaskGroup,
    opts: &SelectOptions,
    ctx: &mut PlanCtx<'_>,
    rng: &mut StdRng,
    metric: &mut AllocMetric,
) -> Option<(RankedNode, NodeScoreMeta)> {
    let proposed = ctx.proposed(&node.id);
    let mut usage = NodeUsage::of(proposed.iter().map(|a| a.as_ref()));

    let ports = match tg.networks.as_ref().and_then(|n| n.first()) {
        Some(ask) => match assign_ports(node, ask, &used_ports(node, &usage), rng) {
            Ok(offer) => Some(offer),
            Err(e) => {
                exhaust_node(metric, node, &format!("network: {e}"));
                return None;
            }
        },
        None => None,
    };

    usage.add(&tg.combined_resources());
    if let Err(dim) = fits(node, &usage) {
        exhaust_node(metric, node, dim);
        return None;
    }

    let mut meta = NodeScoreMeta {
        node_id: node.id.clone(),
        ..Default::default()
    };
    let mut scores = Vec::with_capacity(3);
    let binpack = score_fit_binpack(node, &usage) / BINPACK_MAX_FIT_SCORE;
    scores.push(binpack);
    meta.scores.insert("binpack".into(), binpack);

    let collisions = proposed
        .iter()
        .filter(|a| a.job_id == job.id && a.task_group == tg.name)
        .count();
    let anti = if collisions > 0 && tg.count > 0 {
        let penalty = -((collisions + 1) as f64) / tg.count as f64;
        scores.push(penalty);
        penalty
    } else {
        0.0
    };
    meta.scores.insert("job-anti-affinity".into(), anti);

    let resched = if opts.penalty_nodes.contains(&node.id) {
        scores.push(-1.0);
        -1.0
    } else {
        0.0
    };
    meta.scores
        .insert("node-reschedule-penalty".into(), resched);
    // Only groups with affinities get an affinity term in the average; the others record 0.
    let affinity = if opts.affinities.is_empty() {
        0.0
    } else {
        let score = affinity_score(&opts.affinities, node);
        scores.push(score);
        score
    };
    meta.scores.insert("node-affinity".into(), affinity);

    let final_score = scores.iter().sum::<f64>() / scores.len() as f64;
    meta.norm_score = final_score;

    Some((
        RankedNode {
            node: node.clone(),
            final_score,
            ports,
        },
        meta,
    ))
}

/// The shuffled candidate nodes and the cursor that persists across placements, so successive
/// placements start where the previous one stopped (Nomad's StaticIterator).
pub struct Stack {
    nodes: Vec<Arc<Node>>,
    offset: usize,
    limit: usize,
}

impl Stack {
    /// `batch` jobs score 2 options (power of two choices); services score
    /// `max(2, ceil(log2(n)))`.
    pub fn new(nodes: Vec<Arc<Node>>, batch: bool) -> Self {
        let n = nodes.len();
        let mut limit = 2;
        if !batch && n > 0 {
            let log = (n as f64).log2().ceil() as usize;
            limit = limit.max(log);
        }
        Stack {
            nodes,
            offset: 0,
            limit,
        }
    }

    #[cfg(test)]
    pub fn limit(&self) -> usize {
        self.limit
    }

    #[allow(clippy::too_many_arguments)]
    pub fn select(
        &mut self,
        job: &Job,
        tg: &TaskGroup,
        opts: &SelectOptions,
        ctx: &mut PlanCtx<'_>,
        rng: &mut StdRng,
        elig: &mut Eligibility,
        metric: &mut AllocMetric,
    ) -> Option<RankedNode> {
        let mut seen = 0usize;
        let mut metas: Vec<NodeScoreMeta> = Vec::new();
        let mut source =
            |stack: &mut Stack, metric: &mut AllocMetric, metas: &mut Vec<NodeScoreMeta>| loop {
                let n = stack.nodes.len();
                if seen == n {
                    return None;
                }
                if stack.offset >= n {
                    stack.offset = 0;
                }
                let node = stack.nodes[stack.offset].clone();
                stack.offset += 1;
                seen += 1;
                metric.nodes_evaluated += 1;
                if !feasible(&node, job, tg, ctx, metric, elig) {
                    continue;
                }
                if !super::host_volumes::feasible(&node, tg, &opts.alloc_name) {
                    filter_node(metric, &node, super::host_volumes::FILTER_HOST_VOLUMES);
                    continue;
                }
                if let Some((ranked, meta)) = rank(&node, job, tg, opts, ctx, rng, metric) {
                    metas.push(meta);
                    return Some(ranked);
                }
            };

        let mut skipped: Vec<RankedNode> = Vec::new();
        let mut skipped_idx = 0usize;
        let mut best: Option<RankedNode> = None;
        let mut returned = 0usize;
        let limit = if opts.affinities.is_empty() {
            self.limit
        } else {
            AFFINITY_NODE_LIMIT.max(tg.count.max(0) as usize)
        };
        while returned < limit {
            let mut option = match source(self, metric, &mut metas) {
                Some(o) => Some(o),
                None if skipped_idx < skipped.len() => {
                    skipped_idx += 1;
                    Some(skipped[skipped_idx - 1].clone())
                }
                None => None,
            };
            let Some(_) = option else { break };
            while skipped.len() < MAX_SKIP
                && option
                    .as_ref()
                    .is_some_and(|o| o.final_score <= SKIP_SCORE_THRESHOLD)
            {
                if let Some(o) = option.take() {
                    skipped.push(o);
                }
                option = source(self, metric, &mut metas);
            }
            returned += 1;
            if option.is_none() && skipped_idx < skipped.len() {
                skipped_idx += 1;
                option = Some(skipped[skipped_idx - 1].clone());
            }
            let Some(o) = option else { break };
            if best.as_ref().is_none_or(|b| o.final_score > b.final_score) {
                best = Some(o);
            }
        }

        metas.sort_by(|a, b| b.norm_score.total_cmp(&a.norm_score));
        metas.truncate(MAX_RETAINED_NODE_SCORES);
        if !metas.is_empty() {
            metric.score_meta_data = Some(metas);
        }
        best
    }
}
