//! End-to-end scheduler runs for ranking, spreads, distinct_property, cores, memory_max and
//! preemption, against the operator's scheduler configuration.

use std::sync::Arc;

use crate::api::{Allocation, Constraint, Job, Node, SchedulerConfiguration, ALLOC_DESIRED_EVICT};
use crate::scheduler::testing::{alloc, eval_for, job, node, TestState};
use crate::scheduler::{process_eval, SchedulerContext, SchedulerResult};

fn ctx() -> SchedulerContext {
    SchedulerContext {
        now: 1_700_000_000_000_000_000,
        seed: 7,
    }
}

fn run(
    j: &Job,
    nodes: Vec<Node>,
    allocs: Vec<Allocation>,
    config: SchedulerConfiguration,
) -> SchedulerResult {
    let s = TestState {
        index: 100,
        jobs: vec![Arc::new(j.clone())],
        nodes: nodes.into_iter().map(Arc::new).collect(),
        allocs: allocs.into_iter().map(Arc::new).collect(),
        config,
    };
    process_eval(&eval_for(j), &s, ctx()).expect("scheduler runs")
}

fn placed(r: &SchedulerResult) -> Vec<&Allocation> {
    r.plan.node_allocation.values().flatten().collect()
}

fn rack_node(id: &str, rack: &str) -> Node {
    let mut n = node(id);
    n.meta.insert("rack".into(), rack.into());
    n
}

/// A priority-`prio` job `id` of one alloc asking `cpu` MHz and `mem` MB.
fn other_job(id: &str, prio: i32, cpu: i64, mem: i64) -> Arc<Job> {
    let mut j = job(1);
    j.id = id.into();
    j.priority = prio;
    let r = j.task_groups[0].tasks[0]
        .resources
        .as_mut()
        .expect("resources");
    r.cpu = cpu;
    r.memory_mb = mem;
    Arc::new(j)
}

fn spread_config() -> SchedulerConfiguration {
    SchedulerConfiguration {
        scheduler_algorithm: "spread".into(),
        ..Default::default()
    }
}

#[test]
fn algorithm_binpack_fills_and_spread_empties() {
    let busy = other_job("busy", 50, 3000, 6000);
    let existing = alloc(&busy, 0, "n1");
    let j = job(1);
    let nodes = || vec![node("n1"), node("n2")];
    let r = run(
        &j,
        nodes(),
        vec![existing.clone()],
        SchedulerConfiguration::default(),
    );
    assert_eq!(
        placed(&r)[0].node_id,
        "n1",
        "binpack prefers the fuller node"
    );
    let r = run(&j, nodes(), vec![existing], spread_config());
    let a = placed(&r)[0];
    assert_eq!(a.node_id, "n2", "spread prefers the emptier node");
    let meta = a
        .metrics
        .as_ref()
        .and_then(|m| m.score_meta_data.as_ref())
        .expect("scores");
    let top = &meta[0];
    assert_eq!(top.node_id, "n2");
    // Empty node under spread: (10^0.875 + 10^(1-256/8192)) - 2 over 18.
    let want = (10f64.powf(1.0 - 500.0 / 4000.0) + 10f64.powf(1.0 - 256.0 / 8192.0) - 2.0) / 18.0;
    assert!((top.scores["binpack"] - want).abs() < 1e-9);
    assert_eq!(top.norm_score, top.scores["binpack"]);
}

#[test]
fn spread_targets_split_the_count_by_percent() {
    let mut j = job(10);
    j.task_groups[0].spreads = Some(serde_json::json!([{
        "Attribute": "${meta.rack}", "Weight": 100,
        "SpreadTarget": [{"Value": "r1", "Percent": 70}, {"Value": "r2", "Percent": 30}]
    }]));
    let nodes: Vec<Node> = (0..10)
        .map(|i| rack_node(&format!("n{i}"), if i < 5 { "r1" } else { "r2" }))
        .collect();
    let r = run(&j, nodes, vec![], SchedulerConfiguration::default());
    let on_r1 = placed(&r)
        .iter()
        .filter(|a| a.node_id.as_str() < "n5")
        .count();
    assert_eq!((on_r1, placed(&r).len() - on_r1), (7, 3));
    let m = placed(&r)[0].metrics.clone().expect("metrics");
    assert!(m.score_meta_data.as_ref().expect("meta")[0]
        .scores
        .contains_key("allocation-spread"));
    assert_eq!(
        m.nodes_evaluated, 10,
        "spreads score every node up to the limit"
    );
}

#[test]
fn even_spread_without_targets() {
    let mut j = job(6);
    j.spreads = Some(serde_json::json!([{"Attribute": "${meta.rack}"}]));
    let racks = ["r1", "r2", "r3"];
    let nodes: Vec<Node> = (0..9)
        .map(|i| rack_node(&format!("n{i}"), racks[i % 3]))
        .collect();
    let by_node: std::collections::BTreeMap<String, String> = nodes
        .iter()
        .map(|n| (n.id.clone(), n.meta["rack"].clone()))
        .collect();
    let r = run(&j, nodes, vec![], SchedulerConfiguration::default());
    let mut per_rack = std::collections::BTreeMap::new();
    for a in placed(&r) {
        *per_rack.entry(by_node[&a.node_id].clone()).or_insert(0) += 1;
    }
    assert_eq!(
        per_rack.values().copied().collect::<Vec<_>>(),
        vec![2, 2, 2]
    );
}

#[test]
fn distinct_property_limits_allocs_per_value() {
    let mut j = job(8);
    j.constraints = Some(vec![Constraint {
        l_target: "${meta.rack}".into(),
        operand: "distinct_property".into(),
        r_target: "2".into(),
    }]);
    let nodes: Vec<Node> = (0..6)
        .map(|i| rack_node(&format!("n{i}"), ["r1", "r2", "r3"][i % 3]))
        .collect();
    let r = run(&j, nodes, vec![], SchedulerConfiguration::default());
    assert_eq!(placed(&r).len(), 6);
    let failed = r.eval.failed_tg_allocs.as_ref().expect("failures")["g"].clone();
    assert_eq!(failed.coalesced_failures, 1);
    let reasons = failed.constraint_filtered.expect("filtered");
    assert!(
        reasons
            .keys()
            .all(|k| k.starts_with("distinct_property: ${meta.rack}=r")
                && k.ends_with(" used by 2 allocs")),
        "{reasons:?}"
    );
    assert_eq!(failed.nodes_filtered, 6);
}

#[test]
fn distinct_property_bad_count_and_missing_property() {
    let mut j = job(1);
    j.task_groups[0].constraints = Some(vec![Constraint {
        l_target: "${meta.rack}".into(),
        operand: "distinct_property".into(),
        r_target: "many".into(),
    }]);
    let r = run(
        &j,
        vec![rack_node("n1", "r1")],
        vec![],
        SchedulerConfiguration::default(),
    );
    let m = &r.eval.failed_tg_allocs.as_ref().expect("failed")["g"];
    let key = m
        .constraint_filtered
        .as_ref()
        .expect("filtered")
        .keys()
        .next()
        .cloned();
    assert!(key
        .expect("a reason")
        .starts_with("failed to convert RTarget \"many\" to uint64"));

    j.task_groups[0].constraints.as_mut().expect("set")[0].r_target = String::new();
    let r = run(
        &j,
        vec![node("n1")],
        vec![],
        SchedulerConfiguration::default(),
    );
    let m = &r.eval.failed_tg_allocs.as_ref().expect("failed")["g"];
    assert_eq!(
        m.constraint_filtered
            .as_ref()
            .expect("filtered")
            .keys()
            .collect::<Vec<_>>(),
        vec!["missing property \"${meta.rack}\""]
    );
}

#[test]
fn cores_are_granted_distinctly_and_exhaust() {
    let mut j = job(3);
    let r = j.task_groups[0].tasks[0]
        .resources
        .as_mut()
        .expect("resources");
    r.cpu = 0;
    r.cores = 2;
    let mut n = node("n1");
    n.node_resources.cpu.total_cpu_cores = 4;
    n.node_resources.cpu.reservable_cpu_cores = vec![0, 1, 2, 3];
    let res = run(&j, vec![n], vec![], SchedulerConfiguration::default());
    let allocs = placed(&res);
    assert_eq!(allocs.len(), 2);
    let mut cores: Vec<u32> = Vec::new();
    for a in &allocs {
        let t = &a.allocated_resources.as_ref().expect("res").tasks["t"];
        assert_eq!(t.cpu.cpu_shares, 2000, "two of four cores of 4000 MHz");
        cores.extend(t.cpu.reserved_cores.clone().expect("cores"));
    }
    cores.sort();
    assert_eq!(cores, vec![0, 1, 2, 3]);
    let m = &res.eval.failed_tg_allocs.as_ref().expect("failed")["g"];
    assert_eq!(m.dimension_exhausted.as_ref().expect("dims")["cores"], 1);
}

#[test]
fn memory_max_only_with_oversubscription() {
    let mut j = job(1);
    j.task_groups[0].tasks[0]
        .resources
        .as_mut()
        .expect("r")
        .memory_max_mb = 1024;
    let mem_max = |r: &SchedulerResult| {
        placed(r)[0]
            .allocated_resources
            .as_ref()
            .expect("res")
            .tasks["t"]
            .memory
            .memory_max_mb
    };
    let r = run(
        &j,
        vec![node("n1")],
        vec![],
        SchedulerConfiguration::default(),
    );
    assert_eq!(mem_max(&r), 0);
    let cfg = SchedulerConfiguration {
        memory_oversubscription_enabled: true,
        ..Default::default()
    };
    let r = run(&j, vec![node("n1")], vec![], cfg);
    assert_eq!(mem_max(&r), 1024);
}

#[test]
fn exhausted_memory_reports_resources_exhausted() {
    let mut j = job(3);
    j.task_groups[0].tasks[0]
        .resources
        .as_mut()
        .expect("r")
        .memory_mb = 5000;
    let r = run(
        &j,
        vec![node("n1")],
        vec![],
        SchedulerConfiguration::default(),
    );
    let m = &r.eval.failed_tg_allocs.as_ref().expect("failed")["g"];
    assert_eq!(m.coalesced_failures, 1);
    assert_eq!(m.dimension_exhausted.as_ref().expect("dims")["memory"], 1);
    let re = m.resources_exhausted.as_ref().expect("resources exhausted");
    // Two failed placements (one coalesced), 5000 MB each.
    assert_eq!(re["t"]["MemoryMB"], 10000);
    assert_eq!(re["t"]["CPU"], 0);
}

fn full_node_with_low_priority() -> (Node, Allocation) {
    let low = other_job("low", 20, 3800, 1000);
    (node("n1"), alloc(&low, 0, "n1"))
}

#[test]
fn service_preemption_only_when_enabled() {
    let mut j = job(1);
    j.priority = 80;
    let (n, victim) = full_node_with_low_priority();
    let r = run(
        &j,
        vec![n.clone()],
        vec![victim.clone()],
        SchedulerConfiguration::default(),
    );
    assert!(
        placed(&r).is_empty(),
        "service preemption is off by default"
    );
    assert!(r.blocked_eval.is_some());

    let mut cfg = SchedulerConfiguration::default();
    cfg.preemption_config.service_scheduler_enabled = true;
    let r = run(&j, vec![n], vec![victim.clone()], cfg);
    let a = placed(&r)[0];
    assert_eq!(a.preempted_allocations, Some(vec![victim.id.clone()]));
    let evicted = &r.plan.node_update["n1"][0];
    assert_eq!(evicted.id, victim.id);
    assert_eq!(evicted.desired_status, ALLOC_DESIRED_EVICT);
    assert_eq!(
        evicted.desired_description,
        format!("Preempted by alloc ID {}", a.id)
    );
    assert_eq!(evicted.preempted_by_allocation, a.id);
    let scores = &a
        .metrics
        .as_ref()
        .expect("m")
        .score_meta_data
        .as_ref()
        .expect("meta")[0];
    assert!(scores.scores["preemption"] > 0.99);
    let follow = &r.followup_evals;
    assert_eq!(follow.len(), 1);
    assert_eq!(follow[0].job_id, "low");
    assert_eq!(follow[0].triggered_by, "preemption");
}

#[test]
fn close_priorities_never_preempt() {
    let mut j = job(1);
    j.priority = 25;
    let (n, victim) = full_node_with_low_priority();
    let mut cfg = SchedulerConfiguration::default();
    cfg.preemption_config.service_scheduler_enabled = true;
    let r = run(&j, vec![n], vec![victim], cfg);
    assert!(placed(&r).is_empty());
}

#[test]
fn system_jobs_preempt_by_default_and_not_when_disabled() {
    let mut j = job(1);
    j.r#type = "system".into();
    j.priority = 90;
    let (n, victim) = full_node_with_low_priority();
    let r = run(
        &j,
        vec![n.clone()],
        vec![victim.clone()],
        SchedulerConfiguration::default(),
    );
    assert_eq!(placed(&r).len(), 1);
    assert_eq!(
        r.plan.node_update["n1"][0].desired_status,
        ALLOC_DESIRED_EVICT
    );
    assert_eq!(r.followup_evals.len(), 1);

    let mut cfg = SchedulerConfiguration::default();
    cfg.preemption_config.system_scheduler_enabled = false;
    let r = run(&j, vec![n], vec![victim], cfg);
    assert!(placed(&r).is_empty());
    let m = &r.eval.failed_tg_allocs.as_ref().expect("failed")["g"];
    assert_eq!(m.dimension_exhausted.as_ref().expect("dims")["cpu"], 1);
}

#[test]
fn device_asks_place_only_on_nodes_with_the_devices() {
    let mut j = job(1);
    j.task_groups[0].tasks[0]
        .resources
        .as_mut()
        .expect("r")
        .devices = Some(serde_json::json!([{"Name": "nvidia/gpu", "Count": 1}]));
    let mut gpu = node("gpu");
    gpu.node_resources.devices = Some(serde_json::json!([{
        "Vendor": "nvidia", "Type": "gpu", "Name": "t4",
        "Instances": [{"ID": "GPU-0", "Healthy": true}]
    }]));
    let r = run(
        &j,
        vec![node("plain"), gpu],
        vec![],
        SchedulerConfiguration::default(),
    );
    let nodes: Vec<&str> = placed(&r).iter().map(|a| a.node_id.as_str()).collect();
    assert_eq!(nodes, ["gpu"]);

    // Without a node that has one, the group is not placed and the metric says why.
    let r = run(
        &j,
        vec![node("plain")],
        vec![],
        SchedulerConfiguration::default(),
    );
    assert!(placed(&r).is_empty());
    let m = &r.eval.failed_tg_allocs.as_ref().expect("failed")["g"];
    assert_eq!(
        m.constraint_filtered.as_ref().expect("filtered")["missing devices"],
        1
    );
}
