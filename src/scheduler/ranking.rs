//! Ranking one feasible node for a group: Nomad's BinPackIterator (ports, cores, resources,
//! preemption), JobAntiAffinityIterator, NodeReschedulingPenaltyIterator,
//! NodeAffinityIterator, PreemptionScoringIterator and ScoreNormalizationIterator. The stack
//! adds the spread score and picks among the ranked options.

use std::borrow::Cow;
use std::cell::OnceCell;
use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use rand::rngs::StdRng;

use crate::api::{
    AllocMetric, AllocatedCpuResources, AllocatedMemoryResources, AllocatedResources,
    AllocatedSharedResources, AllocatedTaskResources, Allocation, Job, Node, NodeScoreMeta,
    SchedulerConfiguration, TaskGroup, ALLOC_CLIENT_PENDING, ALLOC_DESIRED_RUN,
};

use super::feasible::{affinity_score, Affinity};
use super::node_check::exhaust_node;
use super::plan_ctx::PlanCtx;
use super::preempt::{self, preemption_score, Res};
use super::rank::{
    assign_ports, cores_in_use, fits, reservable_cores, score_fit_binpack, score_fit_spread,
    used_ports, HeldResources, NodeUsage, PortOffer, BINPACK_MAX_FIT_SCORE,
};

/// A score's slot. Slots are in the order Nomad's iterators record the scores, so the mean
/// adds them in the same order.
#[derive(Debug, Clone, Copy)]
pub(super) enum Slot {
    Binpack,
    JobAntiAffinity,
    ReschedulePenalty,
    NodeAffinity,
    Preemption,
    Spread,
}

const SCORE_SLOTS: usize = 6;

/// Nomad's names for the slots in `ScoreMetaData`.
const SLOT_NAMES: [&str; SCORE_SLOTS] = [
    "binpack",
    "job-anti-affinity",
    "node-reschedule-penalty",
    "node-affinity",
    "preemption",
    "allocation-spread",
];

/// An option's scores: every recorded one (those left out of the mean recorded as 0, as
/// Nomad records them) and the mean of those that count.
#[derive(Debug, Clone, Copy, Default, PartialEq)]
pub(super) struct Scores {
    vals: [f64; SCORE_SLOTS],
    /// Bit per slot: recorded in the metadata.
    recorded: u8,
    /// Bit per slot: part of the mean.
    in_mean: u8,
    pub(super) final_score: f64,
}

impl Scores {
    /// Adds a score to the mean (Nomad's ScoreNormalizationIterator).
    pub(super) fn add(&mut self, slot: Slot, score: f64) {
        self.record(slot, score);
        self.in_mean |= 1 << slot as u8;
        let mut sum = 0.0;
        let mut n = 0u32;
        for (i, v) in self.vals.iter().enumerate() {
            if self.in_mean & (1 << i) != 0 {
                sum += v;
                n += 1;
            }
        }
        self.final_score = sum / f64::from(n);
    }

    /// Records a score in the metadata only.
    pub(super) fn record(&mut self, slot: Slot, score: f64) {
        self.vals[slot as usize] = score;
        self.recorded |= 1 << slot as u8;
    }

    /// Nomad's `NodeScoreMeta` for this option on `node_id`.
    pub(super) fn meta(&self, node_id: &str) -> NodeScoreMeta {
        NodeScoreMeta {
            node_id: node_id.to_string(),
            norm_score: self.final_score,
            scores: (0..SCORE_SLOTS)
                .filter(|i| self.recorded & (1 << i) != 0)
                .map(|i| (std::borrow::Cow::Borrowed(SLOT_NAMES[i]), self.vals[i]))
                .collect(),
        }
    }
}

/// What ranking grants on one node beyond the group's template.
#[derive(Debug, Clone, Default)]
pub(super) struct Grant {
    pub(super) ports: Option<PortOffer>,
    /// The per-task grant when cores were picked on this node.
    pub(super) tasks: Option<Arc<BTreeMap<String, AllocatedTaskResources>>>,
    pub(super) preempted: Vec<Arc<Allocation>>,
}

/// A ranked option before the stack picks one: its scores and, only when ranking granted
/// something node-specific, the grant (so most options are small and cheap to move).
#[derive(Debug, Clone)]
pub(super) struct Ranked {
    pub(super) scores: Scores,
    pub(super) grant: Option<Box<Grant>>,
}

impl Ranked {
    /// The option as the scheduler places it.
    pub(super) fn into_node(self, node: Arc<Node>, ask: &GroupAsk) -> RankedNode {
        let grant = self.grant.map(|g| *g).unwrap_or_default();
        RankedNode {
            node,
            scores: self.scores,
            ports: grant.ports,
            tasks: grant.tasks.unwrap_or_else(|| ask.tasks.clone()),
            preempted: grant.preempted,
        }
    }
}

/// A node that passed feasibility and fits the group, with what it would grant.
#[derive(Debug, Clone)]
pub struct RankedNode {
    pub node: Arc<Node>,
    scores: Scores,
    pub ports: Option<PortOffer>,
    /// What each task is granted here (cores picked, memory_max as configured). Shared with
    /// the group's template unless cores were granted on this node.
    pub tasks: Arc<BTreeMap<String, AllocatedTaskResources>>,
    /// Allocs to evict so the group fits (empty unless preempting).
    pub preempted: Vec<Arc<Allocation>>,
}

impl RankedNode {
    /// Nomad's `NodeScoreMeta` for this option.
    pub fn score_meta(&self) -> NodeScoreMeta {
        self.scores.meta(&self.node.id)
    }

    /// A pending alloc of `tg` on this option, holding what it was granted here (the group's
    /// disk, the offered networks and ports, each task's resources); the caller names it.
    pub fn into_alloc(
        self,
        job: &Arc<Job>,
        tg: &TaskGroup,
        metric: AllocMetric,
        now: i64,
    ) -> Allocation {
        let (networks, ports) = self
            .ports
            .map(|o| (o.networks, o.ports))
            .unwrap_or_default();
        let resources = AllocatedResources {
            shared: AllocatedSharedResources {
                disk_mb: tg.ephemeral_disk.as_ref().map(|d| d.size_mb).unwrap_or(0),
                networks,
                ports,
            },
            task_lifecycles: tg
                .tasks
                .iter()
                .map(|t| (t.name.clone(), t.lifecycle.clone()))
                .collect(),
            tasks: Arc::unwrap_or_clone(self.tasks),
        };
        Allocation {
            namespace: job.namespace.clone(),
            job_id: job.id.clone(),
            job: Some(job.clone()),
            task_group: tg.name.clone(),
            metrics: Some(Arc::new(metric)),
            node_id: self.node.id.clone(),
            node_name: self.node.name.clone(),
            allocated_resources: Some(resources),
            desired_status: ALLOC_DESIRED_RUN.to_string(),
            client_status: ALLOC_CLIENT_PENDING.to_string(),
            create_time: now,
            modify_time: now,
            ..Default::default()
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

/// What a group asks of every node it is ranked on, computed once per placement.
pub struct GroupAsk {
    /// The per-task grant before cores are picked.
    pub(super) tasks: Arc<BTreeMap<String, AllocatedTaskResources>>,
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

/// A node as the plan leaves it: what its allocs hold, the job's allocs there, and, for
/// groups that ask for cores or may preempt, every alloc there. The stack keeps one per node
/// across placements and drops it when the plan touches the node.
pub struct NodeView {
    usage: NodeUsage,
    /// The proposed allocs of the job being placed (anti-affinity, distinct hosts).
    pub(super) job_allocs: Vec<Arc<Allocation>>,
    /// Every proposed alloc, when loaded (see [`NodeView::load`]).
    proposed: Option<Vec<Arc<Allocation>>>,
    /// Ports held by allocs or reserved by the operator, built on first use.
    used_ports: OnceCell<BTreeSet<i32>>,
}

impl NodeView {
    /// The node's view for placing `job`; with `all`, every proposed alloc is loaded too.
    pub fn load(ctx: &mut PlanCtx<'_>, node_id: &str, job: &Job, all: bool) -> Self {
        NodeView {
            usage: ctx.usage(node_id),
            job_allocs: ctx.job_allocs(node_id, &job.namespace, &job.id),
            proposed: all.then(|| ctx.proposed(node_id)),
            used_ports: OnceCell::new(),
        }
    }

    /// Whether the view has every proposed alloc loaded.
    pub(super) fn has_all(&self) -> bool {
        self.proposed.is_some()
    }

    /// Every proposed alloc; empty when not loaded.
    fn all(&self) -> &[Arc<Allocation>] {
        self.proposed.as_deref().unwrap_or_default()
    }

    fn used_ports(&self, node: &Node) -> &BTreeSet<i32> {
        self.used_ports
            .get_or_init(|| used_ports(node, &self.usage))
    }

    /// What the node would hold with `cpu`, `mem` and `disk` more placed (ports left out).
    fn usage_with(&self, cpu: i64, mem: i64, disk: i64) -> NodeUsage {
        NodeUsage {
            cpu: self.usage.cpu + cpu,
            memory_mb: self.usage.memory_mb + mem,
            disk_mb: self.usage.disk_mb + disk,
            ports: BTreeSet::new(),
        }
    }
}

/// Fits and scores the group on a feasible node; `None` (recorded as exhausted) if it does
/// not fit, even with preemption when `opts.preempt`. Returns the option and its
/// `NodeScoreMeta` with the scores as Nomad names them.
pub fn rank(
    node: &Arc<Node>,
    job: &Job,
    tg: &TaskGroup,
    opts: &SelectOptions,
    ctx: &mut PlanCtx<'_>,
    rng: &mut StdRng,
    metric: &mut AllocMetric,
) -> Option<(RankedNode, NodeScoreMeta)> {
    let ask = GroupAsk::new(tg, opts.config.oversubscribe);
    let view = NodeView::load(ctx, &node.id, job, needs_all(&ask, opts));
    match rank_view(node, &view, &ask, (job, tg), opts, ctx.preemptions(), rng) {
        Ok(ranked) => {
            let ranked = ranked.into_node(node.clone(), &ask);
            let meta = ranked.score_meta();
            Some((ranked, meta))
        }
        Err(dim) => {
            exhaust_node(metric, node, &dim);
            None
        }
    }
}

/// [`rank`] against a node view and a precomputed group ask; `Err` names the exhausted
/// dimension as Nomad reports it.
pub(super) fn rank_view(
    node: &Node,
    view: &NodeView,
    ask: &GroupAsk,
    (job, tg): (&Job, &TaskGroup),
    opts: &SelectOptions,
    preemptions: &preempt::PreemptionCounts,
    rng: &mut StdRng,
) -> Result<Ranked, Cow<'static, str>> {
    let mut grant = Grant::default();
    // Nomad's BinPackIterator: the network first (evicting port holders when it cannot be
    // granted), then cores and resources against what the network evictions leave.
    let mut net_victims: Vec<Arc<Allocation>> = Vec::new();
    let mut left: Cow<'_, [Arc<Allocation>]> = Cow::Borrowed(view.all());
    if let Some(net) = tg.networks.as_ref().and_then(|n| n.first()) {
        let offer = match assign_ports(node, net, view.used_ports(node), rng) {
            Ok(offer) => offer,
            Err(e) if !opts.preempt => return Err(Cow::Owned(format!("network: {e}"))),
            Err(e) => {
                let victims = preempt::for_network(job, node, view.all(), net, preemptions)
                    .ok_or_else(|| Cow::Owned(format!("network: {e}")))?;
                let rest: Vec<Arc<Allocation>> = view
                    .all()
                    .iter()
                    .filter(|a| !victims.iter().any(|v| v.id == a.id))
                    .cloned()
                    .collect();
                let held = HeldResources::of(rest.iter().map(|a| a.as_ref())).into_usage();
                let offer = assign_ports(node, net, &used_ports(node, &held), rng)
                    .map_err(|e| Cow::Owned(format!("network: {e}")))?;
                net_victims = victims;
                left = Cow::Owned(rest);
                offer
            }
        };
        grant.ports = Some(offer);
    }
    let (mut cpu, mut mem) = (ask.cpu, ask.mem);
    if ask.wants_cores {
        let mut tasks = ask.tasks.clone();
        grant_cores(node, tg, &left, &mut tasks)?;
        cpu = tasks.values().map(|t| t.cpu.cpu_shares).sum();
        mem = tasks.values().map(|t| t.memory.memory_mb).sum();
        grant.tasks = Some(tasks);
    }
    let mut usage = view.usage_with(cpu, mem, ask.disk);
    for v in &net_victims {
        let r = v.comparable_resources();
        usage.cpu -= r.cpu;
        usage.memory_mb -= r.memory_mb;
        usage.disk_mb -= r.disk_mb;
    }
    let mut victims = net_victims;
    if let Err(dim) = fits(node, &usage) {
        let res = Res {
            cpu: cpu as f64,
            mem: mem as f64,
            disk: ask.disk as f64,
        };
        // As in Nomad, the fit is scored before these evictions (only the network's are
        // taken out of it): the overcommitted fit that made them necessary.
        let more = opts
            .preempt
            .then(|| preempt::for_task_group(job, node, &left, &res, preemptions))
            .flatten()
            .ok_or(Cow::Borrowed(dim))?;
        victims.extend(more);
    }
    grant.preempted = victims;
    let mut scores = score_usage(node, view, &usage, tg, opts);
    add_penalty(&mut scores, node, opts);
    if !grant.preempted.is_empty() {
        scores.add(Slot::Preemption, preemption_score(&grant.preempted));
    }
    let specific = grant.ports.is_some() || grant.tasks.is_some() || !grant.preempted.is_empty();
    Ok(Ranked {
        scores,
        grant: specific.then(|| Box::new(grant)),
    })
}

/// Whether ranking the group needs every alloc on the node, not just their sum: to grant
/// cores or to pick preemption victims.
pub(super) fn needs_all(ask: &GroupAsk, opts: &SelectOptions) -> bool {
    ask.wants_cores || opts.preempt
}

/// Whether ranking the group on a node depends only on the node's view and the group (no
/// ports picked at random, no cores), so the stack may keep the outcome of
/// [`base_scores`] until the plan touches the node.
pub(super) fn cacheable(tg: &TaskGroup, ask: &GroupAsk) -> bool {
    !ask.wants_cores && tg.networks.as_ref().is_none_or(|n| n.is_empty())
}

/// The part of [`rank_view`] that depends only on the view and the group, for a
/// [`cacheable`] group: the fit without preemption and the scores but the per-placement
/// reschedule penalty. `Err` is the exhausted dimension.
pub(super) fn base_scores(
    node: &Node,
    view: &NodeView,
    ask: &GroupAsk,
    tg: &TaskGroup,
    opts: &SelectOptions,
) -> Result<Scores, &'static str> {
    let usage = view.usage_with(ask.cpu, ask.mem, ask.disk);
    fits(node, &usage)?;
    Ok(score_usage(node, view, &usage, tg, opts))
}

/// Adds the reschedule penalty (a cached base's only per-placement score).
pub(super) fn add_penalty(scores: &mut Scores, node: &Node, opts: &SelectOptions) {
    if !opts.penalty_nodes.is_empty() && penalized(node, opts) {
        scores.add(Slot::ReschedulePenalty, -1.0);
    } else {
        scores.record(Slot::ReschedulePenalty, 0.0);
    }
}

/// Whether the alloc being placed failed on `node` before. Not inlined: a cached ranking
/// reads nothing else of the node, and inlined, the node's ID would be loaded (a cache miss
/// on a node table much larger than the cache) before the emptiness check.
#[inline(never)]
fn penalized(node: &Node, opts: &SelectOptions) -> bool {
    opts.penalty_nodes.contains(&node.id)
}

/// The fit score with the group placed (`usage`), job anti-affinity and node affinity.
fn score_usage(
    node: &Node,
    view: &NodeView,
    usage: &NodeUsage,
    tg: &TaskGroup,
    opts: &SelectOptions,
) -> Scores {
    let mut scores = Scores::default();
    let fit = if opts.config.spread_fit {
        score_fit_spread(node, usage)
    } else {
        score_fit_binpack(node, usage)
    };
    scores.add(Slot::Binpack, fit / BINPACK_MAX_FIT_SCORE);

    let collisions = view
        .job_allocs
        .iter()
        .filter(|a| a.task_group == tg.name)
        .count();
    if collisions > 0 && tg.count > 0 {
        let penalty = -((collisions + 1) as f64) / f64::from(tg.count);
        scores.add(Slot::JobAntiAffinity, penalty);
    } else {
        scores.record(Slot::JobAntiAffinity, 0.0);
    }
    // Only groups with affinities get an affinity term in the mean; the others record 0.
    if opts.affinities.is_empty() {
        scores.record(Slot::NodeAffinity, 0.0);
    } else {
        scores.add(Slot::NodeAffinity, affinity_score(&opts.affinities, node));
    }
    scores
}
