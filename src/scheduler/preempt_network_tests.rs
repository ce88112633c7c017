//! Scheduler runs where a group's static port is held by another job's alloc: evicted when
//! the holder's job is at least 10 priority levels lower and preemption is on, combined with
//! the cpu/memory preemption, and explained in the failure metric when nothing can be freed.

use std::sync::Arc;

use crate::api::{
    Allocation, Job, NetworkResource, Node, Port, SchedulerConfiguration, ALLOC_CLIENT_RUNNING,
    ALLOC_DESIRED_EVICT,
};
use crate::scheduler::testing::{eval_for, job, node, TestState};
use crate::scheduler::{process_eval, SchedulerContext, SchedulerResult};

const COLLISION: &str = "network: reserved port collision http=8080";

fn ctx() -> SchedulerContext {
    SchedulerContext {
        now: 1_700_000_000_000_000_000,
        seed: 7,
    }
}

fn run(j: &Job, allocs: &[Allocation], config: SchedulerConfiguration) -> SchedulerResult {
    let s = TestState {
        index: 100,
        jobs: vec![Arc::new(j.clone())],
        nodes: vec![Arc::new(node("n1"))],
        allocs: allocs.iter().cloned().map(Arc::new).collect(),
        config,
    };
    process_eval(&eval_for(j), &s, ctx()).expect("scheduler runs")
}

fn placed(r: &SchedulerResult) -> Vec<&Allocation> {
    r.plan.node_allocation.values().flatten().collect()
}

fn static_ports(ports: &[(&str, i32)]) -> Option<Vec<NetworkResource>> {
    Some(vec![NetworkResource {
        reserved_ports: ports
            .iter()
            .map(|(label, value)| Port {
                label: label.to_string(),
                value: *value,
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    }])
}

/// A job `id` of type `kind` and priority `prio` whose group asks `cpu` MHz and `ports`.
fn port_job(id: &str, kind: &str, prio: i32, cpu: i64, ports: &[(&str, i32)]) -> Job {
    let mut j = job(1);
    j.id = id.into();
    j.name = id.into();
    j.r#type = kind.into();
    j.priority = prio;
    let tg = &mut j.task_groups[0];
    tg.networks = static_ports(ports);
    tg.tasks[0].resources.as_mut().expect("resources").cpu = cpu;
    j
}

/// `j`'s alloc on n1 as the scheduler places it, running.
fn running(j: &Job) -> Allocation {
    let r = run(j, &[], SchedulerConfiguration::default());
    let mut a = placed(&r).first().copied().cloned().expect("placed");
    a.client_status = ALLOC_CLIENT_RUNNING.into();
    a
}

fn evicted_ids(r: &SchedulerResult) -> Vec<String> {
    r.plan
        .node_update
        .values()
        .flatten()
        .filter(|a| a.desired_status == ALLOC_DESIRED_EVICT)
        .map(|a| a.id.clone())
        .collect()
}

#[test]
fn system_job_static_port_preempts_low_priority_service_holder() {
    let victim = running(&port_job("low", "service", 20, 500, &[("web", 8080)]));
    let sys = port_job("sys", "system", 70, 500, &[("http", 8080)]);
    let r = run(&sys, std::slice::from_ref(&victim), Default::default());

    let a = placed(&r)[0];
    assert_eq!(a.preempted_allocations, Some(vec![victim.id.clone()]));
    let ports = &a.allocated_resources.as_ref().expect("res").shared.ports;
    assert_eq!(ports[0].value, 8080);
    let evicted = &r.plan.node_update["n1"];
    assert_eq!(evicted.len(), 1);
    assert_eq!(evicted[0].id, victim.id);
    assert_eq!(evicted[0].desired_status, ALLOC_DESIRED_EVICT);
    assert_eq!(
        evicted[0].desired_description,
        format!("Preempted by alloc ID {}", a.id)
    );
    assert_eq!(evicted[0].preempted_by_allocation, a.id);
    let meta = &a.metrics.as_ref().expect("metrics").score_meta_data;
    assert!(meta.as_ref().expect("meta")[0].scores["preemption"] > 0.99);
    assert_eq!(r.followup_evals.len(), 1);
    assert_eq!(r.followup_evals[0].job_id, "low");
    assert_eq!(r.followup_evals[0].triggered_by, "preemption");
    assert!(r.eval.failed_tg_allocs.is_none());
}

#[test]
fn port_held_at_equal_priority_fails_with_the_collision() {
    let holder = running(&port_job("peer", "service", 50, 500, &[("web", 8080)]));
    let sys = port_job("sys", "system", 50, 500, &[("http", 8080)]);
    let r = run(&sys, std::slice::from_ref(&holder), Default::default());
    assert!(placed(&r).is_empty());
    assert!(evicted_ids(&r).is_empty());
    let m = &r.eval.failed_tg_allocs.as_ref().expect("failed")["g"];
    assert_eq!(m.nodes_exhausted, 1);
    let dims = m.dimension_exhausted.as_ref().expect("dims");
    assert_eq!(dims.get(COLLISION), Some(&1), "{dims:?}");
}

#[test]
fn port_preemption_off_for_the_type_fails_with_the_collision() {
    let victim = running(&port_job("low", "service", 20, 500, &[("web", 8080)]));
    let sys = port_job("sys", "system", 70, 500, &[("http", 8080)]);
    let mut cfg = SchedulerConfiguration::default();
    cfg.preemption_config.system_scheduler_enabled = false;
    let r = run(&sys, std::slice::from_ref(&victim), cfg);
    assert!(placed(&r).is_empty());
    let m = &r.eval.failed_tg_allocs.as_ref().expect("failed")["g"];
    assert_eq!(m.dimension_exhausted.as_ref().expect("dims")[COLLISION], 1);

    // A service job preempts its port only once service preemption is enabled.
    let svc = port_job("svc", "service", 70, 500, &[("http", 8080)]);
    let r = run(&svc, std::slice::from_ref(&victim), Default::default());
    assert!(placed(&r).is_empty());
    let mut cfg = SchedulerConfiguration::default();
    cfg.preemption_config.service_scheduler_enabled = true;
    let r = run(&svc, std::slice::from_ref(&victim), cfg);
    assert_eq!(placed(&r)[0].preempted_allocations, Some(vec![victim.id]));
}

#[test]
fn port_and_cpu_preemptions_are_combined() {
    // n1 has 4000 MHz: the port holder uses 500, a port-less alloc 3000.
    let holder = running(&port_job("low", "service", 20, 500, &[("web", 8080)]));
    let mut big = running(&port_job("big", "batch", 20, 3000, &[]));
    big.id = format!("{}-big", big.id);

    // 1000 MHz fits once the holder is gone: only the holder is evicted.
    let sys = port_job("sys", "system", 70, 1000, &[("http", 8080)]);
    let r = run(&sys, &[holder.clone(), big.clone()], Default::default());
    assert_eq!(
        placed(&r)[0].preempted_allocations,
        Some(vec![holder.id.clone()])
    );

    // 1500 MHz does not: the cpu preemption adds the other alloc, after the port's.
    let sys = port_job("sys", "system", 70, 1500, &[("http", 8080)]);
    let r = run(&sys, &[holder.clone(), big.clone()], Default::default());
    let a = placed(&r)[0];
    assert_eq!(
        a.preempted_allocations,
        Some(vec![holder.id.clone(), big.id.clone()])
    );
    let mut evicted = evicted_ids(&r);
    evicted.sort();
    let mut want = vec![holder.id.clone(), big.id.clone()];
    want.sort();
    assert_eq!(evicted, want);
    assert_eq!(r.followup_evals.len(), 2);
}

#[test]
fn a_port_freed_by_an_earlier_preemption_in_the_plan_is_reused() {
    // One low-priority alloc holds both ports; the system job's two groups each need one.
    let victim = running(&port_job(
        "low",
        "service",
        20,
        500,
        &[("a", 8080), ("b", 9090)],
    ));
    let mut sys = port_job("sys", "system", 70, 500, &[("http", 8080)]);
    let mut second = sys.task_groups[0].clone();
    second.name = "g2".into();
    second.networks = static_ports(&[("admin", 9090)]);
    sys.task_groups.push(second);

    let r = run(&sys, std::slice::from_ref(&victim), Default::default());
    let p = placed(&r);
    assert_eq!(p.len(), 2);
    let preempting: Vec<_> = p
        .iter()
        .filter_map(|a| a.preempted_allocations.clone())
        .collect();
    assert_eq!(preempting, vec![vec![victim.id.clone()]]);
    assert_eq!(evicted_ids(&r), vec![victim.id]);
}

#[test]
fn node_reserved_port_is_never_freed() {
    // A low-priority alloc on the node holds another port: evicting it would not help.
    let other = running(&port_job("low", "service", 20, 500, &[("web", 9090)]));
    let mut n: Node = node("n1");
    n.reserved_resources.networks.reserved_host_ports = "8080".into();
    let sys = port_job("sys", "system", 70, 500, &[("http", 8080)]);
    let s = TestState {
        index: 100,
        jobs: vec![Arc::new(sys.clone())],
        nodes: vec![Arc::new(n)],
        allocs: vec![Arc::new(other)],
        ..Default::default()
    };
    let r = process_eval(&eval_for(&sys), &s, ctx()).expect("scheduler runs");
    assert!(placed(&r).is_empty());
    assert!(evicted_ids(&r).is_empty());
    let m = &r.eval.failed_tg_allocs.as_ref().expect("failed")["g"];
    assert_eq!(m.dimension_exhausted.as_ref().expect("dims")[COLLISION], 1);
}
