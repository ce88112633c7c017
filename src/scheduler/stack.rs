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
//!
//! Feasibility lives in `node_check`, ranking one node in `ranking`; this module walks the
//! nodes and keeps what stays true between placements.

use std::cmp::Ordering;
use std::collections::HashMap;
use std::sync::Arc;

use rand::rngs::StdRng;
use rustc_hash::FxHashMap;

use crate::api::{AllocMetric, Job, Node, TaskGroup};

use super::feasible::CONSTRAINT_DISTINCT_HOSTS;
use super::node_check::{
    exhaust_node, feasibility_class, filter_node, reads_unique, static_feasible, DistinctHosts,
};
use super::plan_ctx::PlanCtx;
use super::propertyset::DistinctProperties;
use super::ranking::{
    add_penalty, base_scores, cacheable, needs_all, rank_view, GroupAsk, NodeView, Ranked, Scores,
    Slot,
};
use super::ready::ReadyNodes;
use super::spread::SpreadScorer;

use super::node_check::Eligibility;
use super::ranking::{RankedNode, SelectOptions};

/// Options scoring at or below this may be skipped by the limit (Nomad's skipScoreThreshold).
const SKIP_SCORE_THRESHOLD: f64 = 0.0;
/// At most this many low-scoring options are skipped (Nomad's maxSkip).
const MAX_SKIP: usize = 3;
/// Top-scoring nodes kept in `ScoreMetaData` (Nomad's MaxRetainedNodeScores).
const MAX_RETAINED_NODE_SCORES: usize = 5;

/// Per node (by stack position), the outcome of [`static_feasible`] for one group, and per
/// feasibility class when the group's constraints read no unique node field.
struct FeasibilityCache {
    /// 0 = not checked yet, 1 = feasible, 2 + i = filtered for `reasons[i]`.
    state: Vec<u32>,
    reasons: Vec<String>,
    /// Outcomes by [`feasibility_class`]; `None` when the group reads unique fields.
    by_class: Option<FxHashMap<u64, u32>>,
}

impl FeasibilityCache {
    fn new(nodes: usize, job: &Job, tg: &TaskGroup) -> Self {
        FeasibilityCache {
            state: vec![0; nodes],
            reasons: Vec::new(),
            by_class: (!reads_unique(job, tg)).then(FxHashMap::default),
        }
    }

    /// The cached outcome, checking the node (or its class) the first time. A repeated
    /// check would record nothing new in `elig` (each computed class keeps its first
    /// outcome, and a feasibility class has one computed class), so skipping it is exact.
    fn check(
        &mut self,
        pos: usize,
        node: &Node,
        job: &Job,
        tg: &TaskGroup,
        elig: &mut Eligibility,
    ) -> Result<(), &str> {
        if self.state[pos] == 0 {
            let class = self.by_class.as_ref().map(|_| feasibility_class(node));
            let known = class.and_then(|c| self.by_class.as_ref()?.get(&c).copied());
            self.state[pos] = match known {
                Some(state) => state,
                None => {
                    let state = self.outcome(static_feasible(node, job, tg, elig));
                    if let (Some(c), Some(by_class)) = (class, self.by_class.as_mut()) {
                        by_class.insert(c, state);
                    }
                    state
                }
            };
        }
        match self.state[pos] {
            1 => Ok(()),
            s => Err(&self.reasons[(s - 2) as usize]),
        }
    }

    /// The state value of a check's outcome, interning the filter reason.
    fn outcome(&mut self, checked: Result<(), String>) -> u32 {
        match checked {
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
        }
    }
}

/// One group's rankings of the stack's nodes (by position) for a [`cacheable`] group: the
/// outcome of [`base_scores`] and the node's view epoch it was computed at.
#[derive(Default)]
struct RankCache(Vec<Option<(u32, Result<Scores, &'static str>)>>);

/// What the stack keeps per group across the group's placements.
struct GroupCache {
    feasibility: FeasibilityCache,
    ranks: RankCache,
    spread: Option<SpreadScorer>,
    distinct: DistinctProperties,
}

/// An option on its way through the limit: a stack position and its ranking.
struct Candidate {
    pos: usize,
    ranked: Ranked,
}

/// The best few options' scores (Nomad's MaxRetainedNodeScores), in the order a stable sort
/// by descending normalised score would leave them.
#[derive(Default)]
struct TopScores(Vec<(usize, Scores)>);

impl TopScores {
    fn offer(&mut self, pos: usize, scores: &Scores) {
        let at = self
            .0
            .iter()
            .position(|(_, t)| t.final_score.total_cmp(&scores.final_score) == Ordering::Less)
            .unwrap_or(self.0.len());
        if at < MAX_RETAINED_NODE_SCORES {
            self.0.insert(at, (pos, *scores));
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
/// the node) and, per group, the node's static feasibility (fixed for the run) and, for
/// groups without ports or cores, the node's fit and scores (until the node is touched).
pub struct Stack {
    nodes: Shuffled,
    offset: usize,
    limit: usize,
    views: Vec<Option<NodeView>>,
    /// Per node, how often its view was dropped: a cached ranking is current while its
    /// epoch matches.
    epochs: Vec<u32>,
    /// Position in the plan's touched-node log up to which `views` are current.
    touched_cursor: usize,
    groups: HashMap<String, GroupCache>,
    /// Tests turn the ranking cache off to check it changes no decision.
    #[cfg(test)]
    rank_cache: bool,
}

/// The ready nodes (shared with other evals) in this run's shuffled order: position `pos`
/// is `ready.nodes[order[pos]]`.
struct Shuffled {
    ready: Arc<ReadyNodes>,
    order: Vec<u32>,
    /// Inverse of `order`: position in `ready.nodes` -> position in the stack.
    pos_of: Vec<u32>,
}

impl Shuffled {
    fn new(ready: Arc<ReadyNodes>, order: Vec<u32>) -> Self {
        let mut pos_of = vec![0; order.len()];
        for (pos, &i) in order.iter().enumerate() {
            pos_of[i as usize] = pos as u32;
        }
        Shuffled {
            ready,
            order,
            pos_of,
        }
    }

    fn len(&self) -> usize {
        self.order.len()
    }

    fn at(&self, pos: usize) -> &Arc<Node> {
        &self.ready.nodes[self.order[pos] as usize]
    }

    /// The stack position of the node with ID `id`.
    fn position(&self, id: &str) -> Option<usize> {
        self.ready.position(id).map(|i| self.pos_of[i] as usize)
    }
}

impl Stack {
    /// A stack over `nodes` in the order given. `batch` jobs score 2 options (power of two
    /// choices); services score `max(2, ceil(log2(n)))`.
    #[cfg(test)]
    pub fn new(nodes: Vec<Arc<Node>>, batch: bool) -> Self {
        let order = (0..nodes.len() as u32).collect();
        Self::with_order(Arc::new(ReadyNodes::of(nodes)), order, batch)
    }

    /// A stack over the ready nodes in an order shuffled by `rng`.
    pub fn shuffled(ready: Arc<ReadyNodes>, rng: &mut StdRng, batch: bool) -> Self {
        use rand::seq::SliceRandom;
        let mut order: Vec<u32> = (0..ready.len() as u32).collect();
        order.shuffle(rng);
        Self::with_order(ready, order, batch)
    }

    fn with_order(ready: Arc<ReadyNodes>, order: Vec<u32>, batch: bool) -> Self {
        let n = order.len();
        let mut limit = 2;
        if !batch && n > 0 {
            let log = (n as f64).log2().ceil() as usize;
            limit = limit.max(log);
        }
        Stack {
            views: (0..n).map(|_| None).collect(),
            epochs: vec![0; n],
            nodes: Shuffled::new(ready, order),
            offset: 0,
            limit,
            touched_cursor: 0,
            groups: HashMap::new(),
            #[cfg(test)]
            rank_cache: true,
        }
    }

    #[cfg(test)]
    pub fn limit(&self) -> usize {
        self.limit
    }

    /// Drops the views (and so the cached rankings) of the nodes the plan touched since the
    /// last call.
    fn sync_views(&mut self, ctx: &PlanCtx<'_>) {
        let (touched, next) = ctx.touched_since(self.touched_cursor);
        for id in touched {
            if let Some(pos) = self.nodes.position(id) {
                self.views[pos] = None;
                self.epochs[pos] = self.epochs[pos].wrapping_add(1);
            }
        }
        self.touched_cursor = next;
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
        let n = self.nodes.len();
        let mut group = self.groups.remove(&tg.name).unwrap_or_else(|| GroupCache {
            feasibility: FeasibilityCache::new(n, job, tg),
            ranks: RankCache::default(),
            spread: SpreadScorer::new(state, job, tg),
            distinct: DistinctProperties::new(state, job, tg),
        });
        if let Some(s) = group.spread.as_mut() {
            s.refresh(state, job, ctx);
        }
        if !group.distinct.is_empty() {
            group.distinct.refresh(state, job, ctx);
        }
        let limit = if opts.affinities.is_empty() && group.spread.is_none() {
            self.limit
        } else {
            opts.config.node_limit.max(tg.count.max(0) as usize)
        };
        let ask = GroupAsk::new(tg, opts.config.oversubscribe);
        #[cfg(test)]
        let use_cache = self.rank_cache && cacheable(tg, &ask);
        #[cfg(not(test))]
        let use_cache = cacheable(tg, &ask);
        if use_cache && group.ranks.0.len() < n {
            group.ranks.0.resize(n, None);
        }

        let mut top = TopScores::default();
        let best = {
            let mut source = NodeSource {
                nodes: &self.nodes,
                views: &mut self.views,
                epochs: &self.epochs,
                offset: &mut self.offset,
                seen: 0,
                job,
                tg,
                opts,
                ask: &ask,
                use_cache,
                distinct_hosts: DistinctHosts::of(job, tg),
                host_volumes: !super::host_volumes::host_requests(tg).is_empty(),
                group: &mut group,
            };
            limit_max(limit, || source.next(ctx, rng, elig, metric, &mut top))
        };
        self.groups.insert(tg.name.clone(), group);

        if !top.0.is_empty() {
            metric.score_meta_data = Some(
                top.0
                    .iter()
                    .map(|(pos, s)| s.meta(&self.nodes.at(*pos).id))
                    .collect(),
            );
        }
        best.map(|c| c.ranked.into_node(self.nodes.at(c.pos).clone(), &ask))
    }

    #[cfg(test)]
    pub fn without_rank_cache(mut self) -> Self {
        self.rank_cache = false;
        self
    }
}

/// The view of the node at `pos` for placing `job`, built from the plan on first use, and
/// again when `all` of its allocs are wanted but were not loaded.
fn view<'v>(
    views: &'v mut [Option<NodeView>],
    (node, pos): (&Node, usize),
    ctx: &mut PlanCtx<'_>,
    job: &Job,
    all: bool,
) -> &'v NodeView {
    let slot = &mut views[pos];
    if all && slot.as_ref().is_some_and(|v| !v.has_all()) {
        *slot = None;
    }
    slot.get_or_insert_with(|| NodeView::load(ctx, &node.id, job, all))
}

/// Walks the stack's nodes once from its cursor, yielding ranked nodes.
struct NodeSource<'s, 'j> {
    nodes: &'s Shuffled,
    views: &'s mut [Option<NodeView>],
    epochs: &'s [u32],
    offset: &'s mut usize,
    seen: usize,
    job: &'j Job,
    tg: &'j TaskGroup,
    opts: &'j SelectOptions,
    ask: &'j GroupAsk,
    /// Whether rankings come from (and go to) the group's [`RankCache`].
    use_cache: bool,
    distinct_hosts: DistinctHosts,
    /// Whether the group asks for host volumes at all.
    host_volumes: bool,
    group: &'s mut GroupCache,
}

impl NodeSource<'_, '_> {
    fn next(
        &mut self,
        ctx: &mut PlanCtx<'_>,
        rng: &mut StdRng,
        elig: &mut Eligibility,
        metric: &mut AllocMetric,
        top: &mut TopScores,
    ) -> Option<Candidate> {
        let n = self.nodes.len();
        while self.seen < n {
            if *self.offset >= n {
                *self.offset = 0;
            }
            let pos = *self.offset;
            self.prefetch(pos);
            let node = self.nodes.at(pos);
            *self.offset += 1;
            self.seen += 1;
            metric.nodes_evaluated += 1;
            if let Err(reason) = self
                .group
                .feasibility
                .check(pos, node, self.job, self.tg, elig)
            {
                filter_node(metric, node, reason);
                continue;
            }
            if self.distinct_hosts.wanted() {
                let view = view(self.views, (node, pos), ctx, self.job, false);
                if self
                    .distinct_hosts
                    .collides(self.job, self.tg, &view.job_allocs)
                {
                    filter_node(metric, node, CONSTRAINT_DISTINCT_HOSTS);
                    continue;
                }
            }
            if let Err(reason) = self.group.distinct.check(node) {
                filter_node(metric, node, &reason);
                continue;
            }
            if self.host_volumes
                && !super::host_volumes::feasible(node, self.tg, &self.opts.alloc_name)
            {
                filter_node(metric, node, super::host_volumes::FILTER_HOST_VOLUMES);
                continue;
            }
            let Some(mut ranked) = self.rank(pos, ctx, rng, metric) else {
                continue;
            };
            if let Some(spread) = self.group.spread.as_mut() {
                let score = spread.score_at(pos, node);
                if score != 0.0 {
                    ranked.scores.add(Slot::Spread, score);
                }
            }
            top.offer(pos, &ranked.scores);
            return Some(Candidate { pos, ranked });
        }
        None
    }

    /// Ranks the feasible node at `pos`, from the group's cache when it is current;
    /// `None` when the group does not fit there (recorded as exhausted).
    fn rank(
        &mut self,
        pos: usize,
        ctx: &mut PlanCtx<'_>,
        rng: &mut StdRng,
        metric: &mut AllocMetric,
    ) -> Option<Ranked> {
        let node = self.nodes.at(pos);
        if self.use_cache {
            let epoch = self.epochs[pos];
            let base = match self.group.ranks.0[pos] {
                Some((at, base)) if at == epoch => base,
                _ => {
                    let view = view(self.views, (node, pos), ctx, self.job, false);
                    let base = base_scores(node, view, self.ask, self.tg, self.opts);
                    self.group.ranks.0[pos] = Some((epoch, base));
                    base
                }
            };
            match base {
                Ok(mut scores) => {
                    add_penalty(&mut scores, node, self.opts);
                    return Some(Ranked {
                        scores,
                        grant: None,
                    });
                }
                Err(dim) if !self.opts.preempt => {
                    exhaust_node(metric, node, dim);
                    return None;
                }
                // Preemption depends on the plan's other evictions: ranked afresh.
                Err(_) => {}
            }
        }
        let all = needs_all(self.ask, self.opts);
        let view = view(self.views, (node, pos), ctx, self.job, all);
        match rank_view(
            node,
            view,
            self.ask,
            (self.job, self.tg),
            self.opts,
            ctx.preemptions(),
            rng,
        ) {
            Ok(ranked) => Some(ranked),
            Err(dim) => {
                exhaust_node(metric, node, &dim);
                None
            }
        }
    }

    /// Starts loading the node [`PREFETCH_AHEAD`] positions on, and the ID of the node half
    /// as far on (its struct, loaded by then, says where the ID is), unless their rankings are
    /// cached (then ranking will not read them).
    fn prefetch(&self, pos: usize) {
        if let Some(ahead) = self.uncached_ahead(pos, PREFETCH_AHEAD) {
            prefetch_node(self.nodes.at(ahead));
        }
        if let Some(ahead) = self.uncached_ahead(pos, PREFETCH_AHEAD / 2) {
            prefetch_line(self.nodes.at(ahead).id.as_ptr());
        }
    }

    /// The stack position `by` on from `pos` (wrapping), unless its ranking is cached.
    fn uncached_ahead(&self, pos: usize, by: usize) -> Option<usize> {
        let n = self.nodes.len();
        let ahead = pos + by;
        let ahead = if ahead >= n { ahead - n } else { ahead };
        if ahead >= n {
            return None;
        }
        if self.use_cache {
            if let Some(Some((at, _))) = self.group.ranks.0.get(ahead) {
                if *at == self.epochs[ahead] {
                    return None;
                }
            }
        }
        Some(ahead)
    }
}

/// How many stack positions ahead of the one being ranked a node's memory is prefetched.
const PREFETCH_AHEAD: usize = 8;

/// Asks the CPU to start loading the parts of a node ranking reads (its resources). Nodes
/// sit in shuffled order, each visit is a cache miss on a large node table, and ranking walks
/// the stack in order, so loading a few positions ahead hides most of that latency.
#[inline]
fn prefetch_node(node: &Arc<Node>) {
    // The ID is read (hashed) first, to find the node's held resources in the state.
    prefetch_line(std::ptr::addr_of!(node.id).cast());
    prefetch_line(std::ptr::addr_of!(node.node_resources).cast());
    prefetch_line(std::ptr::addr_of!(node.reserved_resources).cast());
}

/// Asks the CPU to start loading the cache line holding `p`.
#[inline]
fn prefetch_line(p: *const u8) {
    #[cfg(target_arch = "x86_64")]
    {
        use std::arch::x86_64::{_mm_prefetch, _MM_HINT_T0};
        // SAFETY: a prefetch is only a hint; it never faults or changes memory, whatever the
        // address.
        #[allow(unused_unsafe)]
        unsafe {
            _mm_prefetch::<_MM_HINT_T0>(p.cast());
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = p;
}

/// Nomad's LimitIterator feeding a MaxScoreIterator: take up to `limit` options from `next`,
/// setting aside up to [`MAX_SKIP`] that score at or below the threshold while better ones
/// may follow; the first highest-scoring option wins.
fn limit_max(limit: usize, mut next: impl FnMut() -> Option<Candidate>) -> Option<Candidate> {
    let score = |c: &Candidate| c.ranked.scores.final_score;
    let mut skipped: Vec<Option<Candidate>> = Vec::new();
    let mut skipped_idx = 0usize;
    let mut best: Option<Candidate> = None;
    let mut returned = 0usize;
    while returned < limit {
        let mut option = next();
        while skipped.len() < MAX_SKIP
            && option
                .as_ref()
                .is_some_and(|o| score(o) <= SKIP_SCORE_THRESHOLD)
        {
            skipped.push(option.take());
            option = next();
        }
        if option.is_none() && skipped_idx < skipped.len() {
            option = skipped[skipped_idx].take();
            skipped_idx += 1;
        }
        let Some(o) = option else { break };
        returned += 1;
        if best.as_ref().is_none_or(|b| score(&o) > score(b)) {
            best = Some(o);
        }
    }
    best
}

#[cfg(test)]
#[path = "stack_tests.rs"]
mod tests;
