//! The stack's per-node caches: views are dropped when the plan touches a node, so a cached
//! stack ranks exactly like a fresh one.

use std::sync::Arc;

use rand::rngs::StdRng;
use rand::SeedableRng;

use super::*;
use crate::scheduler::testing::{alloc, job, node, TestState};
use crate::scheduler::StateView;

fn select(
    stack: &mut Stack,
    job: &Job,
    pctx: &mut PlanCtx<'_>,
) -> (Option<RankedNode>, AllocMetric) {
    let mut metric = AllocMetric::default();
    let mut rng = StdRng::seed_from_u64(3);
    let mut elig = Eligibility::default();
    let best = stack.select(
        job,
        &job.task_groups[0],
        &SelectOptions::default(),
        pctx,
        &mut rng,
        &mut elig,
        &mut metric,
    );
    (best, metric)
}

fn meta<'m>(m: &'m AllocMetric, node_id: &str) -> &'m NodeScoreMeta {
    m.score_meta_data
        .iter()
        .flatten()
        .find(|s| s.node_id == node_id)
        .expect("node scored")
}

#[test]
fn a_placement_or_stop_on_a_node_changes_its_score_for_the_next_placement() {
    let j = Arc::new(job(2));
    let other = {
        let mut o = job(1);
        o.id = "other".into();
        Arc::new(o)
    };
    let busy = Arc::new(alloc(&other, 0, "n2"));
    let state = TestState {
        index: 5,
        jobs: vec![j.clone(), other],
        nodes: vec![Arc::new(node("n1")), Arc::new(node("n2"))],
        allocs: vec![busy.clone()],
        ..Default::default()
    };
    let mut pctx = PlanCtx::new(&state, 0);
    let mut stack = Stack::new(state.nodes(), false);
    let (first, m1) = select(&mut stack, &j, &mut pctx);
    let first = first.expect("fits");
    // n2 already runs an alloc, so binpack prefers it.
    assert_eq!(first.node.id, "n2");
    let n1_before = meta(&m1, "n1").scores["binpack"];
    let n2_before = meta(&m1, "n2").scores["binpack"];

    pctx.place(alloc(&j, 0, "n1"));
    pctx.stop(&busy, "test stop", None);
    let (_, m2) = select(&mut stack, &j, &mut pctx);
    let n1 = meta(&m2, "n1");
    assert!(n1.scores["binpack"] > n1_before, "n1 holds one more alloc");
    assert_eq!(n1.scores["job-anti-affinity"], -1.0); // -(1 + 1) / 2
    assert!(
        meta(&m2, "n2").scores["binpack"] < n2_before,
        "n2's alloc stopped"
    );

    // A fresh stack over the same plan ranks the same way.
    let mut fresh = Stack::new(state.nodes(), false);
    let (_, m3) = select(&mut fresh, &j, &mut pctx);
    assert_eq!(m2.score_meta_data, m3.score_meta_data);

    // Taking the stop back restores n2's view.
    pctx.unstop(&busy);
    let (_, m4) = select(&mut stack, &j, &mut pctx);
    assert_eq!(meta(&m4, "n2").scores["binpack"], n2_before);
}

#[test]
fn filtered_nodes_report_their_reason_on_every_placement() {
    let mut j = job(1);
    j.constraints = Some(vec![crate::api::Constraint {
        l_target: "${attr.kernel.name}".into(),
        operand: "=".into(),
        r_target: "windows".into(),
    }]);
    let state = TestState {
        index: 5,
        jobs: vec![Arc::new(j.clone())],
        nodes: vec![Arc::new(node("n1")), Arc::new(node("n2"))],
        ..Default::default()
    };
    let mut pctx = PlanCtx::new(&state, 0);
    let mut stack = Stack::new(state.nodes(), false);
    for _ in 0..2 {
        let (best, m) = select(&mut stack, &j, &mut pctx);
        assert!(best.is_none());
        assert_eq!(m.nodes_filtered, 2);
        let reasons = m.constraint_filtered.expect("reasons");
        assert_eq!(reasons["${attr.kernel.name} = windows"], 2);
    }
}
