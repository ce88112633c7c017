//! Randomised invariants over many seeded scenarios (a hand-rolled property test: the seed
//! of a failing case is in the assertion message).

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crate::api::{NetworkResource, Port, Resources};
use crate::scheduler::rank::node_capacity;
use crate::scheduler::testing::{eval_for, job, node, TestState};
use crate::scheduler::{process_eval, SchedulerContext};

#[test]
fn random_clusters_never_overcommit_and_are_deterministic() {
    for case in 0..150u64 {
        let mut r = StdRng::seed_from_u64(case);
        let n_nodes = r.random_range(0..12);
        let nodes: Vec<_> = (0..n_nodes)
            .map(|i| {
                let mut n = node(&format!("n{i:02}"));
                n.node_resources.cpu.cpu_shares = r.random_range(500..4000);
                n.node_resources.memory.memory_mb = r.random_range(256..4096);
                n.node_resources.min_dynamic_port = 20000;
                n.node_resources.max_dynamic_port = 20000 + r.random_range(0..4);
                if r.random_bool(0.2) {
                    n.status = "down".into();
                }
                Arc::new(n)
            })
            .collect();
        let count = r.random_range(0..20);
        let mut j = job(count);
        j.task_groups[0].tasks[0].resources = Some(Resources {
            cpu: r.random_range(100..1500),
            memory_mb: r.random_range(64..1024),
            ..Default::default()
        });
        if r.random_bool(0.5) {
            j.task_groups[0].networks = Some(vec![NetworkResource {
                dynamic_ports: vec![Port {
                    label: "http".into(),
                    ..Default::default()
                }],
                ..Default::default()
            }]);
        }
        if r.random_bool(0.3) {
            j.r#type = "batch".into();
        }
        let state = TestState {
            index: 7,
            jobs: vec![Arc::new(j.clone())],
            nodes: nodes.clone(),
            allocs: vec![],
            ..Default::default()
        };
        let mut e = eval_for(&j);
        e.r#type = j.r#type.clone();
        let ctx = SchedulerContext { now: 1, seed: case };
        let a = process_eval(&e, &state, ctx).expect("runs");
        let b = process_eval(&e, &state, ctx).expect("runs");
        assert_eq!(a.plan, b.plan, "case {case}: deterministic");

        let mut per_node: BTreeMap<&str, (i64, i64, BTreeSet<i32>)> = BTreeMap::new();
        let mut names = BTreeSet::new();
        for alloc in a.plan.node_allocation.values().flatten() {
            let n = nodes
                .iter()
                .find(|n| n.id == alloc.node_id)
                .expect("known node");
            assert!(n.status == "ready", "case {case}: placed on a down node");
            let res = alloc.comparable_resources();
            let entry = per_node.entry(&alloc.node_id).or_default();
            entry.0 += res.cpu;
            entry.1 += res.memory_mb;
            for p in alloc.reserved_ports() {
                assert!(
                    entry.2.insert(p),
                    "case {case}: port {p} reused on {}",
                    n.id
                );
            }
            assert!(
                names.insert(alloc.name.clone()),
                "case {case}: duplicate name"
            );
        }
        for (id, (cpu, mem, _)) in &per_node {
            let n = nodes.iter().find(|n| n.id == *id).expect("node");
            let (cap_cpu, cap_mem, _) = node_capacity(n);
            assert!(
                *cpu <= cap_cpu && *mem <= cap_mem,
                "case {case}: {id} overcommitted"
            );
        }
        let queued = a
            .eval
            .queued_allocations
            .as_ref()
            .map(|q| q["g"])
            .unwrap_or(0);
        assert_eq!(
            names.len() as i64 + queued,
            count as i64,
            "case {case}: placed + queued"
        );
        assert_eq!(
            a.blocked_eval.is_some(),
            queued > 0,
            "case {case}: blocked eval"
        );
    }
}

#[test]
#[ignore = "throughput probe: cargo test --release -- --ignored throughput"]
fn throughput_probe() {
    let nodes: Vec<_> = (0..1000)
        .map(|i| Arc::new(node(&format!("n{i:04}"))))
        .collect();
    let j = job(10_000);
    let mut j2 = j.clone();
    j2.task_groups[0].tasks[0].resources = Some(Resources {
        cpu: 10,
        memory_mb: 10,
        ..Default::default()
    });
    let state = TestState {
        index: 1,
        jobs: vec![Arc::new(j2.clone())],
        nodes,
        allocs: vec![],
        ..Default::default()
    };
    let start = std::time::Instant::now();
    let r =
        process_eval(&eval_for(&j2), &state, SchedulerContext { now: 1, seed: 1 }).expect("runs");
    let placed: usize = r.plan.node_allocation.values().map(Vec::len).sum();
    eprintln!("placed {placed} in {:?}", start.elapsed());
    assert_eq!(placed, 10_000);
}
