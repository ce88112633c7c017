use super::*;
use crate::api::{AllocatedPortMapping, NetworkResource, Port};
use crate::scheduler::testing::{alloc, job, node};

fn low_job(id: &str, priority: i32, cpu: i64, mem: i64) -> Arc<Job> {
    let mut j = job(1);
    j.id = id.into();
    j.priority = priority;
    let r = j.task_groups[0].tasks[0]
        .resources
        .as_mut()
        .expect("resources");
    r.cpu = cpu;
    r.memory_mb = mem;
    Arc::new(j)
}

fn ask(cpu: f64, mem: f64) -> Res {
    Res {
        cpu,
        mem,
        disk: 0.0,
    }
}

#[test]
fn distance_table() {
    // (ask, used, expected distance)
    let cases = [
        (ask(1000.0, 1000.0), ask(1000.0, 1000.0), 0.0),
        (ask(1000.0, 1000.0), ask(0.0, 0.0), 2f64.sqrt()),
        (ask(1000.0, 0.0), ask(500.0, 4000.0), 0.5), // memory not asked: ignored
        (ask(1000.0, 1000.0), ask(2000.0, 1000.0), 1.0),
    ];
    for (a, u, want) in cases {
        let got = distance(&a, &u);
        assert!((got - want).abs() < 1e-9, "{a:?} {u:?}: {got} != {want}");
    }
}

#[test]
fn preemption_score_is_logistic_in_net_priority() {
    let j = low_job("low", 20, 100, 100);
    let a = Arc::new(alloc(&j, 0, "n1"));
    // net priority 20 + 20/20 = 21: far below 2048, so close to 1.
    let s = preemption_score(std::slice::from_ref(&a));
    assert!((s - 1.0 / (1.0 + (0.0048f64 * (21.0 - 2048.0)).exp())).abs() < 1e-12);
    assert!(s > 0.99);
}

#[test]
fn picks_lowest_priority_and_closest_fit() {
    let n = node("n1"); // 4000 MHz, 8192 MB
    let high = {
        let mut j = job(1);
        j.priority = 70;
        j
    };
    // Node full: 1000 and 2000 MHz at priority 20, 500 at 55 (15 below: preemptible) and 500
    // at 65 (too close to preempt).
    let a20s = Arc::new(alloc(&low_job("a", 20, 1000, 1000), 0, "n1"));
    let a20l = Arc::new(alloc(&low_job("b", 20, 2000, 2000), 0, "n1"));
    let a55 = Arc::new(alloc(&low_job("c", 55, 500, 500), 0, "n1"));
    let a65 = Arc::new(alloc(&low_job("d", 65, 500, 500), 0, "n1"));
    let proposed = vec![a20s.clone(), a20l.clone(), a55.clone(), a65.clone()];
    let counts = PreemptionCounts::new();

    // Asking 1000 MHz: the 1000 MHz prio-20 alloc is the exact fit.
    let got = for_task_group(&high, &n, &proposed, &ask(1000.0, 1000.0), &counts).expect("some");
    let ids: Vec<_> = got.iter().map(|a| a.job_id.as_str()).collect();
    assert_eq!(ids, vec!["a"]);

    // Asking 3000 MHz: both prio-20 allocs are needed; prio 55 is not touched.
    let got = for_task_group(&high, &n, &proposed, &ask(3000.0, 1000.0), &counts).expect("some");
    let mut ids: Vec<_> = got.iter().map(|a| a.job_id.as_str()).collect();
    ids.sort();
    assert_eq!(ids, vec!["a", "b"]);

    // 3500 MHz reaches into priority 55 once priority 20 is used up.
    let got = for_task_group(&high, &n, &proposed, &ask(3500.0, 1000.0), &counts).expect("some");
    let mut ids: Vec<_> = got.iter().map(|a| a.job_id.as_str()).collect();
    ids.sort();
    assert_eq!(ids, vec!["a", "b", "c"]);

    // More than every preemptible alloc frees: none.
    assert!(for_task_group(&high, &n, &proposed, &ask(3900.0, 100.0), &counts).is_none());

    // A job of priority 25 may not preempt priority 20 (delta < 10).
    let mut near = job(1);
    near.priority = 25;
    assert!(for_task_group(&near, &n, &proposed, &ask(1000.0, 100.0), &counts).is_none());
}

#[test]
fn max_parallel_penalty_steers_away_from_a_group_already_preempted() {
    let n = node("n1");
    let mut high = job(1);
    high.priority = 90;
    let mut with_migrate = (*low_job("m", 20, 1000, 1000)).clone();
    with_migrate.task_groups[0].migrate = Some(crate::api::MigrateStrategy {
        max_parallel: 1,
        ..Default::default()
    });
    let m = Arc::new(alloc(&Arc::new(with_migrate), 0, "n1"));
    let other = Arc::new(alloc(&low_job("o", 20, 1500, 1500), 0, "n1"));
    let mut counts = PreemptionCounts::new();
    // 1500 MHz free; asking 2200 needs either alloc. "m" (1000/1000) is the closer shape.
    let ask = ask(2200.0, 1000.0);
    let proposed = vec![m.clone(), other.clone()];
    let none: Vec<_> = for_task_group(&high, &n, &proposed, &ask, &counts)
        .expect("fits")
        .iter()
        .map(|a| a.job_id.clone())
        .collect();
    assert_eq!(none, vec!["m"], "closest fit without penalty");
    counts.insert(("default".into(), "m".into(), "g".into()), 1);
    let penalised: Vec<_> = for_task_group(&high, &n, &proposed, &ask, &counts)
        .expect("fits")
        .iter()
        .map(|a| a.job_id.clone())
        .collect();
    assert_eq!(penalised, vec!["o"]);
}

/// An alloc of a priority-`prio` job `id` holding static `ports` (and `mbits`) on `device`.
/// `legacy` records the ports only in the network, as allocs placed before Nomad 0.12 did:
/// such allocs count their bandwidth as used on the device.
fn port_alloc(
    id: &str,
    prio: i32,
    device: &str,
    ports: &[i32],
    mbits: i64,
    legacy: bool,
) -> Arc<Allocation> {
    let mut a = alloc(&low_job(id, prio, 100, 100), 0, "n1");
    a.id = format!("{id}-alloc");
    let reserved: Vec<Port> = ports
        .iter()
        .map(|p| Port {
            label: format!("p{p}"),
            value: *p,
            ..Default::default()
        })
        .collect();
    let shared = &mut a.allocated_resources.as_mut().expect("resources").shared;
    shared.networks = vec![NetworkResource {
        device: device.into(),
        ip: "10.0.0.1".into(),
        mbits,
        reserved_ports: reserved,
        ..Default::default()
    }];
    if !legacy {
        shared.ports = ports
            .iter()
            .map(|p| AllocatedPortMapping {
                label: format!("p{p}"),
                value: *p,
                to: *p,
                host_ip: "10.0.0.1".into(),
            })
            .collect();
    }
    Arc::new(a)
}

fn port_ask(ports: &[i32], mbits: i64) -> NetworkResource {
    NetworkResource {
        mbits,
        reserved_ports: ports
            .iter()
            .map(|p| Port {
                label: "http".into(),
                value: *p,
                ..Default::default()
            })
            .collect(),
        ..Default::default()
    }
}

/// A node whose `eth0` offers `mbits`.
fn net_node(mbits: i64) -> Node {
    let mut n = node("n1");
    n.node_resources.networks = vec![NetworkResource {
        device: "eth0".into(),
        ip: "10.0.0.1".into(),
        mbits,
        ..Default::default()
    }];
    n
}

fn ids(got: Option<Vec<Arc<Allocation>>>) -> Option<Vec<String>> {
    got.map(|v| v.iter().map(|a| a.job_id.clone()).collect())
}

#[test]
fn network_preemption_table() {
    let lo = |id, prio, ports: &[i32]| port_alloc(id, prio, "eth0", ports, 0, false);
    let mut same_job = (*lo("web", 10, &[8080])).clone();
    same_job.job = Some(Arc::new(job(1)));
    let same_job = Arc::new(same_job);
    // (case, preempting priority, allocs on the node, asked static ports, expected picks)
    type Case<'a> = (
        &'a str,
        i32,
        Vec<Arc<Allocation>>,
        Vec<i32>,
        Option<Vec<&'a str>>,
    );
    let cases: Vec<Case> = vec![
        (
            "the lowest-priority holder of the port, and only it",
            70,
            vec![lo("a", 20, &[8080]), lo("b", 10, &[9090])],
            vec![8080],
            Some(vec!["a"]),
        ),
        (
            "every asked port's holder, whatever its lower priority",
            70,
            vec![
                lo("a", 20, &[8080]),
                lo("b", 40, &[9090]),
                lo("c", 10, &[7070]),
            ],
            vec![8080, 9090],
            Some(vec!["a", "b"]),
        ),
        (
            "one alloc holding two asked ports is taken once",
            70,
            vec![lo("a", 20, &[8080, 9090])],
            vec![8080, 9090],
            Some(vec!["a"]),
        ),
        (
            "priority delta under 10: never",
            70,
            vec![lo("a", 61, &[8080])],
            vec![8080],
            None,
        ),
        (
            "delta of exactly 10 is enough",
            70,
            vec![lo("a", 60, &[8080])],
            vec![8080],
            Some(vec!["a"]),
        ),
        (
            "equal priority: never",
            50,
            vec![lo("a", 50, &[8080])],
            vec![8080],
            None,
        ),
        (
            "higher priority: never",
            50,
            vec![lo("a", 90, &[8080])],
            vec![8080],
            None,
        ),
        (
            "a protected holder of one asked port rules the device out",
            70,
            vec![lo("a", 20, &[8080]), lo("b", 65, &[9090])],
            vec![8080, 9090],
            None,
        ),
        (
            "the job's own alloc is not a candidate",
            70,
            vec![same_job.clone(), lo("b", 20, &[9090])],
            vec![8080],
            None,
        ),
        (
            "no asked port held by a candidate and no bandwidth asked: nothing to free",
            70,
            vec![lo("a", 20, &[9090])],
            vec![],
            None,
        ),
        (
            "allocs without networks are not candidates",
            70,
            vec![Arc::new(alloc(&low_job("a", 20, 100, 100), 0, "n1"))],
            vec![8080],
            None,
        ),
    ];
    let n = net_node(1000);
    for (case, prio, allocs, ports, want) in cases {
        let mut j = job(1);
        j.priority = prio;
        let got = for_network(
            &j,
            &n,
            &allocs,
            &port_ask(&ports, 0),
            &PreemptionCounts::new(),
        );
        let want = want.map(|w| w.into_iter().map(String::from).collect::<Vec<_>>());
        assert_eq!(ids(got), want, "{case}");
    }
}

#[test]
fn network_preemption_stays_on_one_device() {
    // The holder of 8080 on eth1 is a candidate; the protected holder of 9090 is on eth0,
    // so it does not rule eth1 out, but 9090 stays held: only eth1's holder is picked (the
    // caller then finds 9090 still taken and reports the collision).
    let mut high = job(1);
    high.priority = 70;
    let allocs = vec![
        port_alloc("a", 20, "eth1", &[8080], 0, false),
        port_alloc("b", 65, "eth0", &[9090], 0, false),
    ];
    let got = for_network(
        &high,
        &net_node(1000),
        &allocs,
        &port_ask(&[8080, 9090], 0),
        &PreemptionCounts::new(),
    );
    assert_eq!(ids(got), Some(vec!["a".to_string()]));
}

#[test]
fn network_preemption_for_bandwidth() {
    let mut high = job(1);
    high.priority = 70;
    // eth0 offers 1000 Mbit/s; legacy allocs use 600 + 300 (prio 20) and 50 (prio 30).
    let allocs = vec![
        port_alloc("a", 20, "eth0", &[], 600, true),
        port_alloc("b", 20, "eth0", &[], 300, true),
        port_alloc("c", 30, "eth0", &[], 50, true),
    ];
    let n = net_node(1000);
    let counts = PreemptionCounts::new();
    // (asked Mbit/s, expected picks in eviction order)
    let cases: [(i64, Option<Vec<&str>>); 4] = [
        (40, None),                  // 50 free already: nothing to take
        (500, Some(vec!["a"])),      // 600 is closest to 500 (distance 0.2 vs 0.4)
        (900, Some(vec!["b", "a"])), // both prio 20; farthest first after trimming
        (1100, None),                // more than the device offers
    ];
    for (mbits, want) in cases {
        let got = for_network(&high, &n, &allocs, &port_ask(&[], mbits), &counts);
        let want = want.map(|w| w.into_iter().map(String::from).collect::<Vec<_>>());
        assert_eq!(ids(got), want, "{mbits} Mbit/s");
    }
    // Allocs placed since Nomad 0.12 (ports recorded as mappings) count no bandwidth, as in
    // Nomad's network index: the device looks free.
    let modern = vec![port_alloc("a", 20, "eth0", &[7000], 900, false)];
    assert_eq!(
        ids(for_network(
            &high,
            &n,
            &modern,
            &port_ask(&[], 500),
            &counts
        )),
        None
    );
}

#[test]
fn network_preemption_max_parallel_penalty() {
    let mut high = job(1);
    high.priority = 70;
    let mut with_migrate = (*low_job("m", 20, 100, 100)).clone();
    with_migrate.task_groups[0].migrate = Some(crate::api::MigrateStrategy {
        max_parallel: 1,
        ..Default::default()
    });
    let mut m = (*port_alloc("m", 20, "eth0", &[], 500, true)).clone();
    m.job = Some(Arc::new(with_migrate));
    let m = Arc::new(m);
    let other = port_alloc("o", 20, "eth0", &[], 400, true);
    let allocs = vec![m, other];
    // 1000 offered, 900 used: asking 500 needs one of them; "m" (500) is the exact fit.
    let n = net_node(1000);
    let mut counts = PreemptionCounts::new();
    let ask = port_ask(&[], 500);
    assert_eq!(
        ids(for_network(&high, &n, &allocs, &ask, &counts)),
        Some(vec!["m".to_string()])
    );
    // Once the plan already preempts one of m's group, the penalty steers to "o".
    counts.insert(("default".into(), "m".into(), "g".into()), 1);
    assert_eq!(
        ids(for_network(&high, &n, &allocs, &ask, &counts)),
        Some(vec!["o".to_string()])
    );
}

#[test]
fn network_distance_table() {
    // (asked, used, distance)
    let cases = [
        (500, 500, 0.0),
        (500, 250, 0.5),
        (500, 1000, 1.0),
        (0, 300, 0.0),
    ];
    for (ask, used, want) in cases {
        let got = network::network_distance(ask, used);
        assert!((got - want).abs() < 1e-12, "{ask} {used}: {got}");
    }
}
