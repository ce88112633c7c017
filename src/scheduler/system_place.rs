//! Placing one system alloc on one given node (Nomad's `computePlacements` with the system
//! stack set to that single node): feasibility, host volumes, distinct properties, ranking
//! (with preemption when enabled for the job's type), and the bookkeeping of what failed.
//! A placement that fails is reported per group, coalesced; one filtered by constraints is
//! only reported when the group could be placed nowhere (`filtered`).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use rand::rngs::StdRng;

use crate::api::{
    AllocMetric, Allocation, Evaluation, Job, Node, PlanAnnotations, TaskGroup, JOB_TYPE_SYSBATCH,
};

use super::generic::{exhaust_resources, record_preemptions};
use super::host_volumes;
use super::node_check::{feasible, filter_node, Eligibility};
use super::plan_ctx::PlanCtx;
use super::propertyset::DistinctProperties;
use super::ranking::{rank, RankedNode, SelectOptions};
use super::reconcile::STATUS_ALLOC_UPDATING;
use super::reconcile_deploy::join_deployment;
use super::StateView;

/// One placement asked of the placer.
pub(super) struct PlaceRequest<'a> {
    pub node: &'a Arc<Node>,
    pub tg: &'a TaskGroup,
    /// A live alloc this one replaces on the node: stopped only if the new one is placed.
    pub replaces: Option<&'a Allocation>,
    /// The group's last terminal alloc on the node, for `PreviousAllocation`.
    pub previous_terminal: Option<&'a Allocation>,
    /// The deployment the alloc belongs to ("" for none).
    pub deployment_id: &'a str,
    pub canary: bool,
}

/// The state that placements of one system pass share.
pub(super) struct Placer<'a, 'p> {
    pub eval: &'a Evaluation,
    pub job: &'a Arc<Job>,
    pub state: &'a dyn StateView,
    pub now: i64,
    pub pctx: &'a mut PlanCtx<'p>,
    pub rng: &'a mut StdRng,
    pub ids: &'a mut StdRng,
    pub elig: Eligibility,
    pub opts: SelectOptions,
    pub by_dc: BTreeMap<String, i64>,
    pub nodes_in_pool: i64,
    pub pool: String,
    pub distinct: BTreeMap<String, DistinctProperties>,
    /// Groups placed at least once this pass.
    pub placed_any: BTreeSet<String>,
    /// Merged metrics of nodes filtered out, per group.
    pub filtered: BTreeMap<String, AllocMetric>,
    pub failed: &'a mut BTreeMap<String, AllocMetric>,
    pub queued: &'a mut BTreeMap<String, i64>,
    pub preempted_jobs: &'a mut BTreeMap<(String, String), Arc<Job>>,
    /// The pass's plan annotations. Preemptions are counted only when the eval asks for
    /// annotations (a job plan), and a sysbatch placement on a node filtered out is taken
    /// back from `Place`, both as Nomad's system and sysbatch schedulers do.
    pub annotations: &'a mut PlanAnnotations,
}

impl Placer<'_, '_> {
    /// Places the alloc; returns its ID, or `None` when the node cannot take it.
    pub fn place(&mut self, req: PlaceRequest<'_>) -> Option<String> {
        let PlaceRequest { node, tg, .. } = req;
        if let Some(prev) = req.replaces {
            self.pctx.stop(prev, STATUS_ALLOC_UPDATING, None);
        }
        let mut metric = AllocMetric {
            nodes_evaluated: 1,
            ..Default::default()
        };
        let job = self.job;
        let alloc_name = format!("{}.{}[0]", job.id, tg.name);
        let option = if !feasible(node, job, tg, self.pctx, &mut metric, &mut self.elig) {
            None
        } else if !host_volumes::feasible(node, tg, &alloc_name) {
            filter_node(&mut metric, node, host_volumes::FILTER_HOST_VOLUMES);
            None
        } else if let Err(reason) = self.distinct_check(node, tg) {
            filter_node(&mut metric, node, &reason);
            None
        } else {
            rank(node, job, tg, &self.opts, self.pctx, self.rng, &mut metric)
        };
        metric.nodes_available = self.by_dc.clone();
        metric.nodes_in_pool = self.nodes_in_pool;
        metric.node_pool = self.pool.clone();
        match option {
            Some((mut ranked, meta)) => {
                metric.score_meta_data = Some(vec![meta]);
                let victims = std::mem::take(&mut ranked.preempted);
                let prev = req.replaces.or(req.previous_terminal);
                let mut alloc = self.new_alloc(tg, ranked, metric, prev);
                join_deployment(&mut alloc, req.deployment_id, req.canary);
                let annotations = self.eval.annotate_plan.then_some(&mut *self.annotations);
                record_preemptions(
                    &mut alloc,
                    &victims,
                    self.pctx,
                    self.preempted_jobs,
                    annotations,
                );
                let id = alloc.id.clone();
                self.pctx.place(alloc);
                self.placed_any.insert(tg.name.clone());
                Some(id)
            }
            // The node no longer fits the group: what ran there stays stopped.
            None if metric.nodes_filtered > 0 => {
                merge_filtered(self.filtered.entry(tg.name.clone()).or_default(), &metric);
                if job.r#type == JOB_TYPE_SYSBATCH {
                    if let Some(u) = self.annotations.desired_tg_updates.get_mut(&tg.name) {
                        u.place = u.place.saturating_sub(1);
                    }
                }
                None
            }
            None => {
                *self.queued.entry(tg.name.clone()).or_default() += 1;
                match self.failed.get_mut(&tg.name) {
                    Some(m) => {
                        m.coalesced_failures += 1;
                        exhaust_resources(m, tg);
                    }
                    None => {
                        exhaust_resources(&mut metric, tg);
                        self.failed.insert(tg.name.clone(), metric);
                    }
                }
                self.keep_replaced(req.replaces);
                None
            }
        }
    }

    /// The group's `distinct_property` constraints against the plan so far.
    fn distinct_check(&mut self, node: &Node, tg: &TaskGroup) -> Result<(), String> {
        let (state, job) = (self.state, self.job);
        let props = self
            .distinct
            .entry(tg.name.clone())
            .or_insert_with(|| DistinctProperties::new(state, job, tg));
        if props.is_empty() {
            return Ok(());
        }
        props.refresh(state, job, self.pctx);
        props.check(node)
    }

    /// A replacement that cannot be placed must not stop the old version.
    fn keep_replaced(&mut self, prev: Option<&Allocation>) {
        if let Some(prev) = prev {
            self.pctx.unstop(prev);
        }
    }

    fn new_alloc(
        &mut self,
        tg: &TaskGroup,
        ranked: RankedNode,
        metric: AllocMetric,
        prev: Option<&Allocation>,
    ) -> Allocation {
        Allocation {
            id: super::seeded_uuid(self.ids),
            eval_id: self.eval.id.clone(),
            // System allocs all carry index 0, as Nomad names them.
            name: format!("{}.{}[0]", self.job.id, tg.name),
            previous_allocation: prev.map(|p| p.id.clone()).unwrap_or_default(),
            ..ranked.into_alloc(self.job, tg, metric, self.now)
        }
    }
}

/// Sums the filter counts of several single-node runs (Nomad's `mergeNodeFiltered`).
fn merge_filtered(acc: &mut AllocMetric, m: &AllocMetric) {
    acc.nodes_evaluated += m.nodes_evaluated;
    acc.nodes_filtered += m.nodes_filtered;
    acc.nodes_available = m.nodes_available.clone();
    acc.nodes_in_pool = m.nodes_in_pool;
    acc.node_pool = m.node_pool.clone();
    for (src, dst) in [
        (&m.class_filtered, &mut acc.class_filtered),
        (&m.constraint_filtered, &mut acc.constraint_filtered),
    ] {
        for (k, v) in src.iter().flatten() {
            *dst.get_or_insert_with(BTreeMap::new)
                .entry(k.clone())
                .or_default() += v;
        }
    }
}
