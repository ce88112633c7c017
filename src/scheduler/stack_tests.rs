//! The stack's per-node caches: views are dropped when the plan touches a node, so a cached
//! stack ranks exactly like a fresh one.

use std::sync::Arc;

use rand::rngs::StdRng;
use rand::SeedableRng;

use super::*;
use crate::api::NodeScoreMeta;
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

/// Places `j` allocs one by one on a stack, with a few nodes too small, other jobs' allocs on
/// some nodes, a reschedule penalty on some placements and stops along the way; returns
/// each placement's node and metric.
fn place_all(
    mut stack: Stack,
    state: &TestState,
    j: &Arc<Job>,
) -> Vec<(Option<String>, AllocMetric)> {
    let tg = &j.task_groups[0];
    let mut pctx = PlanCtx::new(state, 0);
    let mut rng = StdRng::seed_from_u64(11);
    let mut elig = Eligibility::default();
    let mut out = Vec::new();
    for i in 0..tg.count as u32 {
        let mut opts = SelectOptions {
            affinities: crate::scheduler::feasible::group_affinities(j, tg),
            alloc_name: format!("web.g[{i}]"),
            ..Default::default()
        };
        if i % 5 == 0 {
            opts.penalty_nodes.insert(format!("n{}", i % 7));
        }
        let mut metric = AllocMetric::default();
        let best = stack.select(j, tg, &opts, &mut pctx, &mut rng, &mut elig, &mut metric);
        if let Some(b) = &best {
            pctx.place(alloc(j, i, &b.node.id));
        }
        if i % 9 == 4 {
            if let Some(victim) = state.allocs.get(i as usize % state.allocs.len()) {
                pctx.stop(victim, "test stop", None);
            }
        }
        out.push((best.map(|b| b.node.id.clone()), metric));
    }
    out
}

#[test]
fn cached_rankings_change_no_decision() {
    let mut j = job(60);
    j.datacenters = Some(vec!["dc1".into(), "dc2".into(), "dc3".into()]);
    let tg = &mut j.task_groups[0];
    tg.spreads = Some(serde_json::json!([{
        "Attribute": "${node.datacenter}",
        "Weight": 70,
        "SpreadTarget": [{"Value": "dc1", "Percent": 60}, {"Value": "dc2", "Percent": 40}]
    }]));
    tg.affinities = Some(serde_json::json!([{
        "LTarget": "${node.class}", "Operand": "=", "RTarget": "big", "Weight": 50
    }]));
    let j = Arc::new(j);
    let other = {
        let mut o = job(1);
        o.id = "other".into();
        Arc::new(o)
    };
    let nodes: Vec<Arc<Node>> = (0..40)
        .map(|i| {
            let mut n = node(&format!("n{i}"));
            n.datacenter = ["dc1", "dc2", "dc3"][i % 3].into();
            n.node_class = if i % 4 == 0 {
                "big".into()
            } else {
                "small".into()
            };
            if i % 6 == 1 {
                // Room for two of the group's allocs only.
                n.node_resources.memory.memory_mb = 600;
            }
            Arc::new(n)
        })
        .collect();
    let allocs = (0..10)
        .map(|i| Arc::new(alloc(&other, i, &format!("n{}", i * 3))))
        .collect();
    let state = TestState {
        index: 5,
        jobs: vec![j.clone(), other],
        nodes,
        allocs,
        ..Default::default()
    };
    let cached = place_all(Stack::new(state.nodes(), false), &state, &j);
    let fresh = place_all(
        Stack::new(state.nodes(), false).without_rank_cache(),
        &state,
        &j,
    );
    assert_eq!(cached.len(), 60);
    assert!(cached.iter().filter(|(n, _)| n.is_some()).count() >= 50);
    assert!(
        cached.iter().any(|(_, m)| m.nodes_exhausted > 0),
        "some nodes fill up"
    );
    assert_eq!(cached, fresh);
}

#[test]
fn static_checks_shared_by_class_still_see_each_nodes_own_fields() {
    // All three nodes claim the same computed class; only n1 really fits the job.
    let mut j = job(1);
    j.constraints = Some(vec![crate::api::Constraint {
        l_target: "${attr.os.name}".into(),
        operand: "=".into(),
        r_target: "debian".into(),
    }]);
    let mut nodes: Vec<Node> = (1..=3).map(|i| node(&format!("n{i}"))).collect();
    for n in &mut nodes {
        n.attributes.insert("os.name".into(), "debian".into());
    }
    nodes[1]
        .attributes
        .insert("os.name".into(), "ubuntu".into());
    if let Some(d) = nodes[2].drivers.get_mut("raw_exec") {
        d.healthy = false;
    }
    let state = TestState {
        index: 5,
        jobs: vec![Arc::new(j.clone())],
        nodes: nodes.into_iter().map(Arc::new).collect(),
        ..Default::default()
    };
    let mut pctx = PlanCtx::new(&state, 0);
    let mut stack = Stack::new(state.nodes(), false);
    let (best, m) = select(&mut stack, &j, &mut pctx);
    assert_eq!(best.map(|b| b.node.id.clone()).as_deref(), Some("n1"));
    assert_eq!(m.nodes_filtered, 2, "{m:?}");
    let reasons = m.constraint_filtered.expect("reasons");
    assert_eq!(reasons["${attr.os.name} = debian"], 1);
    assert_eq!(reasons["missing drivers"], 1);
}

#[test]
fn a_constraint_on_a_unique_attribute_is_checked_per_node() {
    let mut j = job(1);
    j.constraints = Some(vec![crate::api::Constraint {
        l_target: "${attr.unique.hostname}".into(),
        operand: "=".into(),
        r_target: "h2".into(),
    }]);
    let nodes: Vec<Arc<Node>> = (1..=3)
        .map(|i| {
            let mut n = node(&format!("n{i}"));
            n.attributes
                .insert("unique.hostname".into(), format!("h{i}"));
            Arc::new(n)
        })
        .collect();
    let state = TestState {
        index: 5,
        jobs: vec![Arc::new(j.clone())],
        nodes,
        ..Default::default()
    };
    let mut pctx = PlanCtx::new(&state, 0);
    let mut stack = Stack::new(state.nodes(), false);
    let (best, m) = select(&mut stack, &j, &mut pctx);
    assert_eq!(best.map(|b| b.node.id.clone()).as_deref(), Some("n2"));
    assert_eq!(m.nodes_filtered, 2);
}
