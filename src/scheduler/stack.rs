//! The placement stack for service and batch jobs (Nomad's `GenericStack`): walk the shuffled
//! nodes, filter by feasibility, rank by binpack and penalties, stop after a few ranked options
//! (the limit), pick the best. Metrics record why nodes fell out, keyed as Nomad keys them.
//!
//! ```text
//!  shuffled nodes -> job constraints -> drivers -> group/task constraints -> distinct_hosts
//!    -> distinct_property -> ports + cores + resources fit (or preemption)
//!    -> binpack|spread fit, job anti-affinity, reschedule penalty, node affinity,
//!       allocation spread, preemption -> normalised (mean) score
//!    -> limit (skip up to 3 options scoring <= 0) -> max score
//! ```

use std::collections::{BTreeMap, BTreeSet, HashMap};
use std::sync::Arc;

use rand::rngs::StdRng;

use crate::api::{
    AllocMetric, AllocatedCpuResources, AllocatedMemoryResources, AllocatedTaskResources,
    Allocation, Job, Node, NodeScoreMeta, SchedulerConfiguration, TaskGroup,
};

use super::feasible::{
    affinity_score, constraint_key, group_constraints, has_driver, meets_constraint,
    wants_distinct_hosts, Affinity, CONSTRAINT_DISTINCT_HOSTS, FILTER_MISSING_DRIVERS,
};
use super::plan_ctx::PlanCtx;
use super::preempt::{self, preemption_score, Res};
use super::propertyset::DistinctProperties;
use super::rank::{
    assign_ports, cores_in_use, fits, reservable_cores, score_fit_binpack, score_fit_spread,
    used_ports, NodeUsage, PortOffer, BINPACK_MAX_FIT_SCORE,
};
use super::spread::SpreadScorer;

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
    /// The individual scores `final_score` is the mean of.
    pub scores: Vec<f64>,
    pub ports: Option<PortOffer>,
    /// What each task is granted here (cores picked, memory_max as configured).
    pub tasks: BTreeMap<String, AllocatedTaskResources>,
    /// Allocs to evict so the group fits (empty unless preempting).
    pub preempted: Vec<Arc<Allocation>>,
}

impl RankedNode {
    /// Adds a score and recomputes the mean (Nomad's ScoreNormalizationIterator).
    fn add_score(&mut self, meta: &mut NodeScoreMeta, name: &str, score: f64) {
        self.scores.push(score);
        meta.scores.insert(name.to_string(), score);
        self.final_score = self.scores.iter().sum::<f64>() / self.scores.len() as f64;
        meta.norm_score = self.final_score;
    }
}

/// What the operator's scheduler configuration changes in ranking.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RankConfig {
    /// `spread` algorithm: score emptier nodes higher (ScoreFitSpread).
    pub spread_fit: bool,
    /// Memory oversubscription: tasks keep their `memory_max`.
    pub oversubscribe: bool,
    /// Nodes scored when a group has affinities or spreads.
    pub node_limit: usize,
}

impl Default for RankConfig {
    fn default() -> Self {
        RankConfig::from_config(&SchedulerConfiguration::default())
    }
}

impl RankConfig {
    pub fn from_config(c: &SchedulerConfiguration) -> Self {
        RankConfig {
            spread_fit: c.effective_algorithm() == crate::api::SCHEDULER_ALGORITHM_SPREAD,
            oversubscribe: c.memory_oversubscription_enabled,
            node_limit: usize::try_from(c.node_limit()).unwrap_or(usize::MAX),
        }
    }
}

#[derive(Debug, Clone, Default)]
pub struct SelectOptions {
    /// Nodes a rescheduled alloc failed on: scored -1 for node-reschedule-penalty.
    pub penalty_nodes: BTreeSet<String>,
    /// The group's merged affinities (job, group, tasks).
    pub affinities: Vec<Affinity>,
    /// The name of the alloc being placed (`job.group[N]`), for per-alloc host volumes.
    pub alloc_name: String,
    /// Consider evicting lower-priority allocs when the group does not fit.
    pub preempt: bool,
    pub config: RankConfig,
}

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

/// What each task of the group is granted: its asked cpu and memory, and `memory_max` only
/// when memory oversubscription is enabled (Nomad drops it otherwise).
pub fn task_resources(
    tg: &TaskGroup,
    oversubscribe: bool,
) -> BTreeMap<String, AllocatedTaskResources> {
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
                    memory_max_mb: if oversubscribe {
                        r.map(|r| r.memory_max_mb).unwrap_or(0)
                    } else {
                        0
                    },
                },
                ..Default::default()
            };
            (t.name.clone(), tr)
        })
        .collect()
}

/// Grants `cores = N` asks from the node's free reservable cores (lowest IDs first); such a
/// task's cpu shares become the cores' worth. `Err("cores")` when too few are free.
fn grant_cores(
    node: &Node,
    tg: &TaskGroup,
    proposed: &[Arc<Allocation>],
    tasks: &mut BTreeMap<String, AllocatedTaskResources>,
) -> Result<(), &'static str> {
    let wanted = |t: &crate::api::Task| t.resources.as_ref().map(|r| r.cores).unwrap_or(0);
    if tg.tasks.iter().all(|t| wanted(t) <= 0) {
        return Ok(());
    }
    let used = cores_in_use(proposed.iter().map(|a| a.as_ref()));
    let (cores, mhz) = reservable_cores(node);
    let mut free = cores.into_iter().filter(|c| !used.contains(c));
    for t in &tg.tasks {
        let n = usize::try_from(wanted(t)).unwrap_or(0);
        if n == 0 {
            continue;
        }
        let picked: Vec<u32> = free.by_ref().take(n).collect();
        if picked.len() < n {
            return Err("cores");
        }
        if let Some(tr) = tasks.get_mut(&t.name) {
            tr.cpu.cpu_shares = mhz * picked.len() as i64;
            tr.cpu.reserved_cores = Some(picked);
        }
    }
    Ok(())
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
/// not fit, even with preemption when `opts.preempt`. Scores are recorded into `meta` as
/// Nomad names them; spread scores are added by the stack.
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

    let mut tasks = task_resources(tg, opts.config.oversubscribe);
    if let Err(dim) = grant_cores(node, tg, &proposed, &mut tasks) {
        exhaust_node(metric, node, dim);
        return None;
    }
    let ask = Res {
        cpu: tasks.values().map(|t| t.cpu.cpu_shares).sum::<i64>() as f64,
        mem: tasks.values().map(|t| t.memory.memory_mb).sum::<i64>() as f64,
        disk: tg.ephemeral_disk.as_ref().map(|d| d.size_mb).unwrap_or(0) as f64,
    };
    usage.cpu += ask.cpu as i64;
    usage.memory_mb += ask.mem as i64;
    usage.disk_mb += ask.disk as i64;
    let mut preempted = Vec::new();
    if let Err(dim) = fits(node, &usage) {
        let victims = opts
            .preempt
            .then(|| preempt::for_task_group(job, node, &proposed, &ask, ctx.preemptions()))
            .flatten();
        let Some(victims) = victims else {
            exhaust_node(metric, node, dim);
            return None;
        };
        for v in &victims {
            let r = v.comparable_resources();
            usage.cpu -= r.cpu;
            usage.memory_mb -= r.memory_mb;
            usage.disk_mb -= r.disk_mb;
        }
        preempted = victims;
    }

    let mut meta = NodeScoreMeta {
        node_id: node.id.clone(),
        ..Default::default()
    };
    let mut ranked = RankedNode {
        node: node.clone(),
        final_score: 0.0,
        scores: Vec::with_capacity(4),
        ports,
        tasks,
        preempted,
    };
    let fit = if opts.config.spread_fit {
        score_fit_spread(node, &usage)
    } else {
        score_fit_binpack(node, &usage)
    };
    ranked.add_score(&mut meta, "binpack", fit / BINPACK_MAX_FIT_SCORE);

    let collisions = proposed
        .iter()
        .filter(|a| a.job_id == job.id && a.namespace == job.namespace && a.task_group == tg.name)
        .count();
    if collisions > 0 && tg.count > 0 {
        let penalty = -((collisions + 1) as f64) / f64::from(tg.count);
        ranked.add_score(&mut meta, "job-anti-affinity", penalty);
    } else {
        meta.scores.insert("job-anti-affinity".into(), 0.0);
    }

    if opts.penalty_nodes.contains(&node.id) {
        ranked.add_score(&mut meta, "node-reschedule-penalty", -1.0);
    } else {
        meta.scores.insert("node-reschedule-penalty".into(), 0.0);
    }
    // Only groups with affinities get an affinity term in the mean; the others record 0.
    if opts.affinities.is_empty() {
        meta.scores.insert("node-affinity".into(), 0.0);
    } else {
        let score = affinity_score(&opts.affinities, node);
        ranked.add_score(&mut meta, "node-affinity", score);
    }
    if !ranked.preempted.is_empty() {
        let score = preemption_score(&ranked.preempted);
        ranked.add_score(&mut meta, "preemption", score);
    }
    Some((ranked, meta))
}

/// The shuffled candidate nodes and the cursor that persists across placements, so successive
/// placements start where the previous one stopped (Nomad's StaticIterator). Spread and
/// distinct_property counts are kept per group across the group's placements.
pub struct Stack {
    nodes: Vec<Arc<Node>>,
    offset: usize,
    limit: usize,
    spreads: HashMap<String, Option<SpreadScorer>>,
    distinct: HashMap<String, DistinctProperties>,
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
            spreads: HashMap::new(),
            distinct: HashMap::new(),
        }
    }

    #[cfg(test)]
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// Picks the best of the next `limit` ranked nodes, as Nomad's LimitIterator and
    /// MaxScoreIterator: options scoring at or below 0 are set aside (up to 3) in favour of
    /// later ones, and returned only when nothing better remains.
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
        let state = ctx.state();
        let mut spread = self
            .spreads
            .remove(&tg.name)
            .unwrap_or_else(|| SpreadScorer::new(state, job, tg));
        if let Some(s) = spread.as_mut() {
            s.refresh(state, job, ctx);
        }
        let mut distinct = self
            .distinct
            .remove(&tg.name)
            .unwrap_or_else(|| DistinctProperties::new(state, job, tg));
        if !distinct.is_empty() {
            distinct.refresh(state, job, ctx);
        }
        let limit = if opts.affinities.is_empty() && spread.is_none() {
            self.limit
        } else {
            opts.config.node_limit.max(tg.count.max(0) as usize)
        };

        let mut metas: Vec<NodeScoreMeta> = Vec::new();
        let best = {
            let mut source = NodeSource {
                stack: self,
                seen: 0,
                job,
                tg,
                opts,
                spread: spread.as_mut(),
                distinct: &distinct,
            };
            limit_max(limit, || source.next(ctx, rng, elig, metric, &mut metas))
        };
        self.spreads.insert(tg.name.clone(), spread);
        self.distinct.insert(tg.name.clone(), distinct);

        metas.sort_by(|a, b| b.norm_score.total_cmp(&a.norm_score));
        metas.truncate(MAX_RETAINED_NODE_SCORES);
        if !metas.is_empty() {
            metric.score_meta_data = Some(metas);
        }
        best
    }
}

/// Walks the stack's nodes once from its cursor, yielding ranked nodes.
struct NodeSource<'s, 'j> {
    stack: &'s mut Stack,
    seen: usize,
    job: &'j Job,
    tg: &'j TaskGroup,
    opts: &'j SelectOptions,
    spread: Option<&'s mut SpreadScorer>,
    distinct: &'s DistinctProperties,
}

impl NodeSource<'_, '_> {
    fn next(
        &mut self,
        ctx: &mut PlanCtx<'_>,
        rng: &mut StdRng,
        elig: &mut Eligibility,
        metric: &mut AllocMetric,
        metas: &mut Vec<NodeScoreMeta>,
    ) -> Option<RankedNode> {
        let n = self.stack.nodes.len();
        while self.seen < n {
            if self.stack.offset >= n {
                self.stack.offset = 0;
            }
            let node = self.stack.nodes[self.stack.offset].clone();
            self.stack.offset += 1;
            self.seen += 1;
            metric.nodes_evaluated += 1;
            if !feasible(&node, self.job, self.tg, ctx, metric, elig) {
                continue;
            }
            if let Err(reason) = self.distinct.check(&node) {
                filter_node(metric, &node, &reason);
                continue;
            }
            if !super::host_volumes::feasible(&node, self.tg, &self.opts.alloc_name) {
                filter_node(metric, &node, super::host_volumes::FILTER_HOST_VOLUMES);
                continue;
            }
            let Some((mut ranked, mut meta)) =
                rank(&node, self.job, self.tg, self.opts, ctx, rng, metric)
            else {
                continue;
            };
            if let Some(spread) = self.spread.as_deref_mut() {
                let score = spread.score(&node);
                if score != 0.0 {
                    ranked.add_score(&mut meta, "allocation-spread", score);
                }
            }
            metas.push(meta);
            return Some(ranked);
        }
        None
    }
}

/// Nomad's LimitIterator feeding a MaxScoreIterator: take up to `limit` options from `next`,
/// setting aside up to [`MAX_SKIP`] that score at or below the threshold while better ones
/// may follow; the first highest-scoring option wins.
fn limit_max(limit: usize, mut next: impl FnMut() -> Option<RankedNode>) -> Option<RankedNode> {
    let mut skipped: Vec<RankedNode> = Vec::new();
    let mut skipped_idx = 0usize;
    let mut best: Option<RankedNode> = None;
    let mut returned = 0usize;
    while returned < limit {
        let mut option = next();
        while option.is_some()
            && skipped.len() < MAX_SKIP
            && option
                .as_ref()
                .is_some_and(|o| o.final_score <= SKIP_SCORE_THRESHOLD)
        {
            skipped.extend(option.take());
            option = next();
        }
        if option.is_none() && skipped_idx < skipped.len() {
            option = Some(skipped[skipped_idx].clone());
            skipped_idx += 1;
        }
        let Some(o) = option else { break };
        returned += 1;
        if best.as_ref().is_none_or(|b| o.final_score > b.final_score) {
            best = Some(o);
        }
    }
    best
}
