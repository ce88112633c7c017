use super::*;
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
