use super::*;
use crate::scheduler::plan_ctx::PlanCtx;
use crate::scheduler::testing::{alloc, job, node, TestState};
use std::sync::Arc;

fn rack_node(id: &str, rack: &str) -> Node {
    let mut n = node(id);
    n.meta.insert("rack".into(), rack.into());
    n
}

fn spread_job(targets: serde_json::Value) -> Job {
    let mut j = job(10);
    j.task_groups[0].spreads = Some(serde_json::json!([
        {"Attribute": "${meta.rack}", "Weight": 100, "SpreadTarget": targets}
    ]));
    j
}

fn state(j: &Job, nodes: Vec<Node>, allocs: Vec<(u32, &str)>) -> TestState {
    let j = Arc::new(j.clone());
    TestState {
        index: 10,
        jobs: vec![j.clone()],
        nodes: nodes.into_iter().map(Arc::new).collect(),
        allocs: allocs
            .into_iter()
            .map(|(i, n)| Arc::new(alloc(&j, i, n)))
            .collect(),
        ..Default::default()
    }
}

#[test]
fn targeted_spread_boost_table() {
    // 70% r1, 30% r2 of 10: desired 7 and 3. With 2 on r1 and 2 on r2 already:
    // r1: (7 - 3) / 7 = 0.571..., r2: (3 - 3) / 3 = 0, r3 (implicit, no remainder): -1.
    let j = spread_job(serde_json::json!([
        {"Value": "r1", "Percent": 70}, {"Value": "r2", "Percent": 30}
    ]));
    let nodes = vec![
        rack_node("a", "r1"),
        rack_node("b", "r2"),
        rack_node("c", "r3"),
    ];
    let s = state(
        &j,
        nodes.clone(),
        vec![(0, "a"), (1, "a"), (2, "b"), (3, "b")],
    );
    let pctx = PlanCtx::new(&s, 0);
    let mut sc = SpreadScorer::new(&s, &j, &j.task_groups[0]).expect("has spreads");
    sc.refresh(&s, &j, &pctx);
    let cases = [("a", 4.0 / 7.0), ("b", 0.0), ("c", -1.0)];
    for (id, want) in cases {
        let n = nodes.iter().find(|n| n.id == id).expect("node");
        let got = sc.score(n);
        assert!((got - want).abs() < 1e-9, "{id}: {got} != {want}");
    }
    // A node without the attribute is penalised.
    assert_eq!(sc.score(&node("x")), -1.0);
}

#[test]
fn implicit_target_takes_the_remainder() {
    let j = spread_job(serde_json::json!([{"Value": "r1", "Percent": 50}]));
    let s = state(&j, vec![rack_node("a", "r1"), rack_node("c", "r3")], vec![]);
    let pctx = PlanCtx::new(&s, 0);
    let mut sc = SpreadScorer::new(&s, &j, &j.task_groups[0]).expect("has spreads");
    sc.refresh(&s, &j, &pctx);
    // Both buckets want 5, none used: (5 - 1) / 5.
    assert!((sc.score(&rack_node("a", "r1")) - 0.8).abs() < 1e-9);
    assert!((sc.score(&rack_node("c", "r9")) - 0.8).abs() < 1e-9);
}

#[test]
fn even_spread_boost_table() {
    let j = spread_job(serde_json::Value::Null);
    // r1 used 2, r2 used 1, r3 unused (not in the use map until it has allocs).
    let nodes = vec![rack_node("a", "r1"), rack_node("b", "r2")];
    let s = state(&j, nodes, vec![(0, "a"), (1, "a"), (2, "b")]);
    let pctx = PlanCtx::new(&s, 0);
    let mut sc = SpreadScorer::new(&s, &j, &j.task_groups[0]).expect("has spreads");
    sc.refresh(&s, &j, &pctx);
    // (min - current) / min: r1 = (1 - 2) / 1 = -1; r2 is the minimum: (max - min) / min = 1;
    // r3 unused: (1 - 0) / 1 = 1.
    let cases = [("r1", -1.0), ("r2", 1.0), ("r3", 1.0)];
    for (rack, want) in cases {
        let got = sc.score(&rack_node("x", rack));
        assert!((got - want).abs() < 1e-9, "{rack}: {got} != {want}");
    }
    // Equal use everywhere: no value preferred.
    let s = state(
        &j,
        vec![rack_node("a", "r1"), rack_node("b", "r2")],
        vec![(0, "a"), (1, "b")],
    );
    let pctx = PlanCtx::new(&s, 0);
    let mut sc = SpreadScorer::new(&s, &j, &j.task_groups[0]).expect("has spreads");
    sc.refresh(&s, &j, &pctx);
    assert_eq!(sc.score(&rack_node("x", "r1")), -1.0);
}

#[test]
fn spreads_parse_with_default_weight() {
    let v = serde_json::json!([{"Attribute": "${node.datacenter}"}, {"Weight": 5}]);
    let got = parse_spreads(Some(&v));
    assert_eq!(got.len(), 1, "an entry without attribute is dropped");
    assert_eq!(got[0].weight, None);
    let j = {
        let mut j = job(4);
        j.spreads = Some(v);
        j
    };
    let s = state(&j, vec![node("a")], vec![]);
    let sc = SpreadScorer::new(&s, &j, &j.task_groups[0]).expect("job-level spread");
    assert_eq!(sc.sum_weights, f64::from(DEFAULT_SPREAD_WEIGHT));
}

#[test]
fn incremental_counts_match_a_fresh_count() {
    // Counts kept across placements (recounting only touched nodes) equal a set built and
    // counted from scratch over the same plan, through placements, stops and an unstop.
    let j = spread_job(serde_json::Value::Null);
    let nodes = vec![
        rack_node("a", "r1"),
        rack_node("b", "r2"),
        rack_node("c", "r2"),
    ];
    let s = state(&j, nodes, vec![(0, "a"), (1, "b")]);
    let existing: Vec<_> = s.allocs.clone();
    let jarc = s.jobs[0].clone();
    let mut pctx = PlanCtx::new(&s, 0);
    let tg = &j.task_groups[0];
    let mut kept = SpreadScorer::new(&s, &j, tg).expect("has spreads");
    let counts = |sc: &SpreadScorer| -> Vec<Vec<u64>> {
        sc.sets
            .iter()
            .map(|(set, _)| set.present_counts().collect())
            .collect()
    };
    type Step<'s> = Box<dyn Fn(&mut PlanCtx<'_>) + 's>;
    let steps: Vec<Step> = vec![
        Box::new(|p| p.place(alloc(&jarc, 2, "c"))),
        Box::new(|p| p.stop(&existing[1], "stop", None)),
        Box::new(|p| p.place(alloc(&jarc, 3, "b"))),
        Box::new(|p| p.unstop(&existing[1])),
        Box::new(|p| p.stop(&existing[0], "stop", None)),
    ];
    for step in &steps {
        step(&mut pctx);
        kept.refresh(&s, &j, &pctx);
        let mut fresh = SpreadScorer::new(&s, &j, tg).expect("has spreads");
        fresh.refresh(&s, &j, &pctx);
        assert_eq!(counts(&kept), counts(&fresh));
        for rack in ["r1", "r2", "r3"] {
            let n = rack_node("x", rack);
            assert_eq!(kept.score(&n), fresh.score(&n), "{rack}");
        }
    }
}
