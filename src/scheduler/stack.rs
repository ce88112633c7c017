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

use std::cell::OnceCell;
use std::cmp::Ordering;
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

/// Score names in the order ranking records them (Nomad's names in `ScoreMetaData`).
const SCORE_SLOTS: usize = 6;

/// A node that passed feasibility and fits the group, with what it would grant.
#[derive(Debug, Clone)]
pub struct RankedNode {
    pub node: Arc<Node>,
    pub final_score: f64,
    /// The individual scores `final_score` is the mean of (the first `n_scores`).
    scores: [f64; SCORE_SLOTS],
    n_scores: usize,
    /// Every recorded score by name, those left out of the mean (recorded as 0) included;
    /// turned into a `NodeScoreMeta` only for the nodes the metric retains.
    named: [(&'static str, f64); SCORE_SLOTS],
    n_named: usize,
    pub ports: Option<PortOffer>,
    /// What each task is granted here (cores picked, memory_max as configured). Shared with
    /// the group's template unless cores were granted on this node.
    pub tasks: Arc<BTreeMap<String, AllocatedTaskResources>>,
    /// Allocs to evict so the group fits (empty unless preempting).
    pub preempted: Vec<Arc<Allocation>>,
}

impl RankedNode {
    /// Adds a score and recomputes the mean (Nomad's ScoreNormalizationIterator).
    fn add_score(&mut self, name: &'static str, score: f64) {
        self.scores[self.n_scores] = score;
        self.n_scores += 1;
        self.record(name, score);
        let scores = &self.scores[..self.n_scores];
        self.final_score = scores.iter().sum::<f64>() / scores.len() as f64;
    }

    /// Records a score in the metadata only (not part of the mean).
    fn record(&mut self, name: &'static str, score: f64) {
        self.named[self.n_named] = (name, score);
        self.n_named += 1;
    }

    /// Nomad's `NodeScoreMeta` for this option.
    pub fn score_meta(&self) -> NodeScoreMeta {
        NodeScoreMeta {
            node_id: self.node.id.clone(),
            norm_score: self.final_score,
            scores: self.named[..self.n_named]
                .iter()
                .map(|(k, v)| (k.to_string(), *v))
                .collect(),
        }
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

    /// Records the class's job-level outcome unless one is already recorded (the first wins).
    fn set_job(&mut self, class: &str, ok: bool) {
        if !class.is_empty() && !self.job.contains_key(class) {
            self.job.insert(class.to_string(), ok);
        }
    }

    /// Records the class's outcome for the group unless one is already recorded.
    fn set_group(&mut self, tg: &str, class: &str, ok: bool) {
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
    tasks: &mut Arc<BTreeMap<String, AllocatedTaskResources>>,
) -> Result<(), &'static str> {
    let wanted = |t: &crate::api::Task| t.resources.as_ref().map(|r| r.cores).unwrap_or(0);
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
        if let Some(tr) = Arc::make_mut(tasks).get_mut(&t.name) {
            tr.cpu.cpu_shares = mhz * picked.len() as i64;
            tr.cpu.reserved_cores = Some(picked);
        }
    }
    Ok(())
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
fn static_feasible(
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
    elig.set_group(&tg.name, &node.computed_class, true);
    Ok(())
}

/// The job's and the group's `distinct_hosts` asks.
#[derive(Debug, Clone, Copy)]
struct DistinctHosts {
    job: bool,
    group: bool,
}

impl DistinctHosts {
    fn of(job: &Job, tg: &TaskGroup) -> Self {
        DistinctHosts {
            job: wants_distinct_hosts(job.constraints.as_ref()),
            group: wants_distinct_hosts(tg.constraints.as_ref()),
        }
    }

    fn wanted(self) -> bool {
        self.job || self.group
    }

    /// Whether the node already holds an alloc the ask rules out.
    fn collides(self, job: &Job, tg: &TaskGroup, proposed: &[Arc<Allocation>]) -> bool {
        proposed.iter().any(|a| {
            let same_job = a.job_id == job.id && a.namespace == job.namespace;
            same_job && (self.job || a.task_group == tg.name)
        })
    }
}

/// What a group asks of every node it is ranked on, computed once per placement.
pub struct GroupAsk {
    /// The per-task grant before cores are picked.
    tasks: Arc<BTreeMap<String, AllocatedTaskResources>>,
    wants_cores: bool,
    cpu: i64,
    mem: i64,
    disk: i64,
}

impl GroupAsk {
    pub fn new(tg: &TaskGroup, oversubscribe: bool) -> Self {
        let tasks = task_resources(tg, oversubscribe);
        GroupAsk {
            cpu: tasks.values().map(|t| t.cpu.cpu_shares).sum(),
            mem: tasks.values().map(|t| t.memory.memory_mb).sum(),
            tasks: Arc::new(tasks),
            wants_cores: tg
                .tasks
                .iter()
                .any(|t| t.resources.as_ref().is_some_and(|r| r.cores > 0)),
            disk: tg.ephemeral_disk.as_ref().map(|d| d.size_mb).unwrap_or(0),
        }
    }
}

/// A node as the plan leaves it: the allocs proposed there and what they hold. The stack
/// keeps one per node across placements and drops it when the plan touches the node.
pub struct NodeView {
    proposed: Vec<Arc<Allocation>>,
    usage: NodeUsage,
    /// Ports held by allocs or reserved by the operator, built on first use.
    used_ports: OnceCell<BTreeSet<i32>>,
}

impl NodeView {
    pub fn new(proposed: Vec<Arc<Allocation>>) -> Self {
        NodeView {
            usage: NodeUsage::of(proposed.iter().map(|a| a.as_ref())),
            proposed,
            used_ports: OnceCell::new(),
        }
    }

    fn used_ports(&self, node: &Node) -> &BTreeSet<i32> {
        self.used_ports
            .get_or_init(|| used_ports(node, &self.usage))
    }
}

/// Fits and scores the group on a feasible node; `None` (recorded as exhausted) if it does
/// not fit, even with preemption when `opts.preempt`. Returns the option and its
/// `NodeScoreMeta` with the scores as Nomad names them; spread scores are added by the stack.
pub fn rank(
    node: &Arc<Node>,
    job: &Job,
    tg: &TaskGroup,
    opts: &SelectOptions,
    ctx: &mut PlanCtx<'_>,
    rng: &mut StdRng,
    metric: &mut AllocMetric,
) -> Option<(RankedNode, NodeScoreMeta)> {
    let view = NodeView::new(ctx.proposed(&node.id));
    let ask = GroupAsk::new(tg, opts.config.oversubscribe);
    let ranked = rank_view(
        node,
        &view,
        &ask,
        (job, tg),
        opts,
        ctx.preemptions(),
        rng,
        metric,
    )?;
    let meta = ranked.score_meta();
    Some((ranked, meta))
}

/// [`rank`] against a node view and a precomputed group ask.
#[allow(clippy::too_many_arguments)]
fn rank_view(
    node: &Arc<Node>,
    view: &NodeView,
    ask: &GroupAsk,
    (job, tg): (&Job, &TaskGroup),
    opts: &SelectOptions,
    preemptions: &preempt::PreemptionCounts,
    rng: &mut StdRng,
    metric: &mut AllocMetric,
) -> Option<RankedNode> {
    let ports = match tg.networks.as_ref().and_then(|n| n.first()) {
        Some(net) => match assign_ports(node, net, view.used_ports(node), rng) {
            Ok(offer) => Some(offer),
            Err(e) => {
                exhaust_node(metric, node, &format!("network: {e}"));
                return None;
            }
        },
        None => None,
    };

    let mut tasks = ask.tasks.clone();
    let (mut cpu, mut mem) = (ask.cpu, ask.mem);
    if ask.wants_cores {
        if let Err(dim) = grant_cores(node, tg, &view.proposed, &mut tasks) {
            exhaust_node(metric, node, dim);
            return None;
        }
        cpu = tasks.values().map(|t| t.cpu.cpu_shares).sum();
        mem = tasks.values().map(|t| t.memory.memory_mb).sum();
    }
    let ask = Res {
        cpu: cpu as f64,
        mem: mem as f64,
        disk: ask.disk as f64,
    };
    let mut usage = NodeUsage {
        cpu: view.usage.cpu,
        memory_mb: view.usage.memory_mb,
        disk_mb: view.usage.disk_mb,
        ports: BTreeSet::new(),
    };
    usage.cpu += ask.cpu as i64;
    usage.memory_mb += ask.mem as i64;
    usage.disk_mb += ask.disk as i64;
    let mut preempted = Vec::new();
    if let Err(dim) = fits(node, &usage) {
        let victims = opts
            .preempt
            .then(|| preempt::for_task_group(job, node, &view.proposed, &ask, preemptions))
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

    let mut ranked = RankedNode {
        node: node.clone(),
        final_score: 0.0,
        scores: [0.0; SCORE_SLOTS],
        n_scores: 0,
        named: [("", 0.0); SCORE_SLOTS],
        n_named: 0,
        ports,
        tasks,
        preempted,
    };
    let fit = if opts.config.spread_fit {
        score_fit_spread(node, &usage)
    } else {
        score_fit_binpack(node, &usage)
    };
    ranked.add_score("binpack", fit / BINPACK_MAX_FIT_SCORE);

    let collisions = view
        .proposed
        .iter()
        .filter(|a| a.job_id == job.id && a.namespace == job.namespace && a.task_group == tg.name)
        .count();
    if collisions > 0 && tg.count > 0 {
        let penalty = -((collisions + 1) as f64) / f64::from(tg.count);
        ranked.add_score("job-anti-affinity", penalty);
    } else {
        ranked.record("job-anti-affinity", 0.0);
    }

    if opts.penalty_nodes.contains(&node.id) {
        ranked.add_score("node-reschedule-penalty", -1.0);
    } else {
        ranked.record("node-reschedule-penalty", 0.0);
    }
    // Only groups with affinities get an affinity term in the mean; the others record 0.
    if opts.affinities.is_empty() {
        ranked.record("node-affinity", 0.0);
    } else {
        let score = affinity_score(&opts.affinities, node);
        ranked.add_score("node-affinity", score);
    }
    if !ranked.preempted.is_empty() {
        let score = preemption_score(&ranked.preempted);
        ranked.add_score("preemption", score);
    }
    Some(ranked)
}

/// Per node (by stack position), the outcome of [`static_feasible`] for one group.
struct FeasibilityCache {
    /// 0 = not checked yet, 1 = feasible, 2 + i = filtered for `reasons[i]`.
    state: Vec<u32>,
    reasons: Vec<String>,
}

impl FeasibilityCache {
    fn new(nodes: usize) -> Self {
        FeasibilityCache {
            state: vec![0; nodes],
            reasons: Vec::new(),
        }
    }

    /// The cached outcome, checking the node the first time. A repeated check would record
    /// nothing new in `elig` (each class keeps its first outcome), so skipping it is exact.
    fn check(
        &mut self,
        pos: usize,
        node: &Node,
        job: &Job,
        tg: &TaskGroup,
        elig: &mut Eligibility,
    ) -> Result<(), &str> {
        if self.state[pos] == 0 {
            self.state[pos] = match static_feasible(node, job, tg, elig) {
                Ok(()) => 1,
                Err(reason) => {
                    let i = match self.reasons.iter().position(|r| *r == reason) {
                        Some(i) => i,
                        None => {
                            self.reasons.push(reason);
                            self.reasons.len() - 1
                        }
                    };
                    2 + i as u32
                }
            };
        }
        match self.state[pos] {
            1 => Ok(()),
            s => Err(&self.reasons[(s - 2) as usize]),
        }
    }
}

/// The best few options' score metadata (Nomad's MaxRetainedNodeScores), in the order a
/// stable sort by descending normalised score would leave them.
#[derive(Default)]
struct TopScores(Vec<RankedNode>);

impl TopScores {
    fn offer(&mut self, option: &RankedNode) {
        let pos = self
            .0
            .iter()
            .position(|t| t.final_score.total_cmp(&option.final_score) == Ordering::Less)
            .unwrap_or(self.0.len());
        if pos < MAX_RETAINED_NODE_SCORES {
            // Only the node and the scores are kept.
            let kept = RankedNode {
                node: option.node.clone(),
                ports: None,
                tasks: option.tasks.clone(),
                preempted: Vec::new(),
                ..*option
            };
            self.0.insert(pos, kept);
            self.0.truncate(MAX_RETAINED_NODE_SCORES);
        }
    }
}

/// The shuffled candidate nodes and the cursor that persists across placements, so successive
/// placements start where the previous one stopped (Nomad's StaticIterator). Spread and
/// distinct_property counts are kept per group across the group's placements.
///
/// Between placements only the nodes the plan touched change, so the stack also keeps, per
/// node, its view (proposed allocs and usage, dropped when the plan's touched-node log names
/// the node) and, per group, the node's static feasibility (fixed for the run).
pub struct Stack {
    nodes: Vec<Arc<Node>>,
    offset: usize,
    limit: usize,
    spreads: HashMap<String, Option<SpreadScorer>>,
    distinct: HashMap<String, DistinctProperties>,
    views: Vec<Option<NodeView>>,
    /// Position in the plan's touched-node log up to which `views` are current.
    touched_cursor: usize,
    /// (hash of node ID, position), sorted, to find a touched node's position.
    by_id: Vec<(u64, usize)>,
    feasibility: HashMap<String, FeasibilityCache>,
}

/// 64-bit FNV-1a of a node ID (for the position index only).
fn id_hash(id: &str) -> u64 {
    id.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(b)).wrapping_mul(0x0100_0000_01b3)
    })
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
        let mut by_id: Vec<(u64, usize)> = nodes
            .iter()
            .enumerate()
            .map(|(i, n)| (id_hash(&n.id), i))
            .collect();
        by_id.sort_unstable();
        Stack {
            views: (0..n).map(|_| None).collect(),
            nodes,
            offset: 0,
            limit,
            spreads: HashMap::new(),
            distinct: HashMap::new(),
            touched_cursor: 0,
            by_id,
            feasibility: HashMap::new(),
        }
    }

    #[cfg(test)]
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// Drops the views of the nodes the plan touched since the last call.
    fn sync_views(&mut self, ctx: &PlanCtx<'_>) {
        let (touched, next) = ctx.touched_since(self.touched_cursor);
        for id in touched {
            let h = id_hash(id);
            let from = self.by_id.partition_point(|(k, _)| *k < h);
            for &(k, pos) in &self.by_id[from..] {
                if k != h {
                    break;
                }
                if self.nodes[pos].id == *id {
                    self.views[pos] = None;
                }
            }
        }
        self.touched_cursor = next;
    }

    /// The view of the node at `pos`, built from the plan on first use.
    fn view(&mut self, pos: usize, ctx: &mut PlanCtx<'_>) -> &NodeView {
        let id = &self.nodes[pos].id;
        self.views[pos].get_or_insert_with(|| NodeView::new(ctx.proposed(id)))
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
        self.sync_views(ctx);
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
        let mut feasibility = self
            .feasibility
            .remove(&tg.name)
            .unwrap_or_else(|| FeasibilityCache::new(self.nodes.len()));
        let limit = if opts.affinities.is_empty() && spread.is_none() {
            self.limit
        } else {
            opts.config.node_limit.max(tg.count.max(0) as usize)
        };

        let mut top = TopScores::default();
        let best = {
            let mut source = NodeSource {
                stack: self,
                seen: 0,
                job,
                tg,
                opts,
                ask: GroupAsk::new(tg, opts.config.oversubscribe),
                distinct_hosts: DistinctHosts::of(job, tg),
                host_volumes: !super::host_volumes::host_requests(tg).is_empty(),
                spread: spread.as_mut(),
                distinct: &distinct,
                feasibility: &mut feasibility,
            };
            limit_max(limit, || source.next(ctx, rng, elig, metric, &mut top))
        };
        self.spreads.insert(tg.name.clone(), spread);
        self.distinct.insert(tg.name.clone(), distinct);
        self.feasibility.insert(tg.name.clone(), feasibility);

        if !top.0.is_empty() {
            metric.score_meta_data = Some(top.0.iter().map(RankedNode::score_meta).collect());
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
    ask: GroupAsk,
    distinct_hosts: DistinctHosts,
    /// Whether the group asks for host volumes at all.
    host_volumes: bool,
    spread: Option<&'s mut SpreadScorer>,
    distinct: &'s DistinctProperties,
    feasibility: &'s mut FeasibilityCache,
}

impl NodeSource<'_, '_> {
    fn next(
        &mut self,
        ctx: &mut PlanCtx<'_>,
        rng: &mut StdRng,
        elig: &mut Eligibility,
        metric: &mut AllocMetric,
        top: &mut TopScores,
    ) -> Option<RankedNode> {
        let n = self.stack.nodes.len();
        while self.seen < n {
            if self.stack.offset >= n {
                self.stack.offset = 0;
            }
            let pos = self.stack.offset;
            let ahead = pos + PREFETCH_AHEAD;
            let ahead = if ahead >= n { ahead - n } else { ahead };
            if ahead < n {
                prefetch_node(&self.stack.nodes[ahead]);
            }
            let node = self.stack.nodes[pos].clone();
            self.stack.offset += 1;
            self.seen += 1;
            metric.nodes_evaluated += 1;
            if let Err(reason) = self.feasibility.check(pos, &node, self.job, self.tg, elig) {
                filter_node(metric, &node, reason);
                continue;
            }
            if self.distinct_hosts.wanted() {
                let view = self.stack.view(pos, ctx);
                if self
                    .distinct_hosts
                    .collides(self.job, self.tg, &view.proposed)
                {
                    filter_node(metric, &node, CONSTRAINT_DISTINCT_HOSTS);
                    continue;
                }
            }
            if let Err(reason) = self.distinct.check(&node) {
                filter_node(metric, &node, &reason);
                continue;
            }
            if self.host_volumes
                && !super::host_volumes::feasible(&node, self.tg, &self.opts.alloc_name)
            {
                filter_node(metric, &node, super::host_volumes::FILTER_HOST_VOLUMES);
                continue;
            }
            let view = self.stack.view(pos, ctx);
            let Some(mut ranked) = rank_view(
                &node,
                view,
                &self.ask,
                (self.job, self.tg),
                self.opts,
                ctx.preemptions(),
                rng,
                metric,
            ) else {
                continue;
            };
            if let Some(spread) = self.spread.as_deref_mut() {
                let score = spread.score_at(pos, &node);
                if score != 0.0 {
                    ranked.add_score("allocation-spread", score);
                }
            }
            top.offer(&ranked);
            return Some(ranked);
        }
        None
    }
}

/// How many stack positions ahead of the one being ranked a node's memory is prefetched.
const PREFETCH_AHEAD: usize = 8;

/// Asks the CPU to start loading the parts of a node ranking reads (its reference count,
/// which cloning the `Arc` writes, and its resources). Nodes sit in shuffled order, each
/// visit is a cache miss on a large node table, and ranking walks the stack in order, so
/// loading a few positions ahead hides most of that latency.
#[inline]
fn prefetch_node(node: &Arc<Node>) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        let lines = [
            // The counts sit right before the data in the Arc's allocation.
            Arc::as_ptr(node).cast::<i8>().wrapping_sub(16),
            std::ptr::addr_of!(node.node_resources).cast::<i8>(),
            std::ptr::addr_of!(node.reserved_resources).cast::<i8>(),
        ];
        for p in lines {
            // SAFETY: a prefetch is only a hint; it never faults or changes memory, and the
            // addresses are inside a live allocation anyway.
            #[allow(unused_unsafe)]
            unsafe {
                _mm_prefetch::<_MM_HINT_T0>(p);
            }
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = node;
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

#[cfg(test)]
#[path = "stack_tests.rs"]
mod tests;
