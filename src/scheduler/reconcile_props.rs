//! Property tests of the reconciler's invariants over random jobs, alloc sets and
//! deployments: placements never exceed the count, canaries never exceed the update block,
//! no two live allocs share a name within a job version, and a stopped job gets no new
//! deployment.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use proptest::prelude::*;

use crate::api::{
    AllocDeploymentStatus, Allocation, DeploymentState, Job, UpdateStrategy,
    DEPLOYMENT_STATUS_FAILED, DEPLOYMENT_STATUS_RUNNING, SECOND,
};
use crate::scheduler::reconcile::{reconcile, ReconcileInput, ReconcileResult, UpdateDecision};
use crate::scheduler::reconcile_deploy::new_deployment;
use crate::scheduler::testing::{alloc, job};

#[derive(Debug, Clone)]
struct Scenario {
    count: i32,
    max_parallel: i32,
    canary: i32,
    stopped: bool,
    /// Per existing alloc: (index, old version?, client status code, canary?, health code).
    allocs: Vec<(u32, bool, u8, bool, u8)>,
    /// None, running, promoted, failed.
    deployment: u8,
    inplace: bool,
}

fn scenario() -> impl Strategy<Value = Scenario> {
    (
        0i32..8,
        0i32..4,
        0i32..3,
        any::<bool>(),
        prop::collection::vec(
            (0u32..10, any::<bool>(), 0u8..4, any::<bool>(), 0u8..3),
            0..14,
        ),
        0u8..4,
        any::<bool>(),
    )
        .prop_map(
            |(count, max_parallel, canary, stopped, allocs, deployment, inplace)| Scenario {
                count,
                max_parallel,
                canary,
                stopped,
                allocs,
                deployment,
                inplace,
            },
        )
}

fn with_update(s: &Scenario, version: u64) -> Job {
    let mut j = job(s.count);
    j.version = version;
    j.job_modify_index = 10 + version;
    j.create_index = 1;
    j.stop = s.stopped && version == 1;
    j.task_groups[0].update = Some(UpdateStrategy {
        max_parallel: s.max_parallel,
        canary: s.canary,
        min_healthy_time: SECOND,
        ..Default::default()
    });
    j
}

fn build(s: &Scenario) -> (Job, Vec<Arc<Allocation>>, Option<crate::api::Deployment>) {
    let old = Arc::new(with_update(s, 0));
    let new = Arc::new(with_update(s, 1));
    let d = (s.deployment > 0).then(|| {
        let mut d = new_deployment(&new, "dep1", 0);
        d.status = if s.deployment == 3 {
            DEPLOYMENT_STATUS_FAILED
        } else {
            DEPLOYMENT_STATUS_RUNNING
        }
        .to_string();
        d.task_groups.insert(
            "g".into(),
            DeploymentState {
                desired_total: s.count as i64,
                desired_canaries: s.canary as i64,
                promoted: s.deployment == 2,
                ..Default::default()
            },
        );
        d
    });
    let allocs = s
        .allocs
        .iter()
        .enumerate()
        .map(|(n, &(index, is_old, status, canary, health))| {
            let j = if is_old { &old } else { &new };
            let mut a = alloc(j, index, "n1");
            a.id = format!("a{n}");
            a.client_status = ["running", "pending", "failed", "complete"][status as usize].into();
            if !is_old && d.is_some() {
                a.deployment_id = "dep1".into();
                a.deployment_status = Some(
                    AllocDeploymentStatus {
                        canary,
                        healthy: [None, Some(true), Some(false)][health as usize],
                        ..Default::default()
                    }
                    .to_value(),
                );
            }
            Arc::new(a)
        })
        .collect();
    ((*new).clone(), allocs, d)
}

fn run(s: &Scenario) -> (Job, Vec<Arc<Allocation>>, ReconcileResult) {
    let (j, allocs, d) = build(s);
    let tainted = BTreeMap::new();
    let input = ReconcileInput {
        job_id: "web",
        job: Some(&j),
        allocs: &allocs,
        tainted: &tainted,
        now: 1_000,
        deployment: d.as_ref(),
        new_deployment_id: "dep-new",
    };
    let inplace = s.inplace;
    let r = reconcile(&input, &mut |a, _| {
        if inplace {
            UpdateDecision::InPlace(Box::new(Allocation {
                job: Some(Arc::new(j.clone())),
                ..a.clone()
            }))
        } else {
            UpdateDecision::Destructive
        }
    });
    (j, allocs, r)
}

/// Live allocs after the result is applied: (name, version) must be unique.
fn live_after(allocs: &[Arc<Allocation>], r: &ReconcileResult) -> Vec<(String, u64)> {
    let stopped: BTreeSet<&str> = r
        .stops
        .iter()
        .map(|s| s.alloc.id.as_str())
        .chain(
            r.placements
                .iter()
                .filter(|p| p.stop_previous.is_some())
                .filter_map(|p| p.previous.as_ref().map(|a| a.id.as_str())),
        )
        .collect();
    let inplace: BTreeSet<&str> = r.inplace.iter().map(|a| a.id.as_str()).collect();
    let mut live: Vec<(String, u64)> = allocs
        .iter()
        .filter(|a| !a.terminal() && !stopped.contains(a.id.as_str()))
        .map(|a| {
            let v = if inplace.contains(a.id.as_str()) {
                1
            } else {
                a.job_version()
            };
            (a.name.clone(), v)
        })
        .collect();
    live.extend(r.placements.iter().map(|p| (p.name.clone(), 1)));
    live
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn placements_never_exceed_count(s in scenario()) {
        let (j, _, r) = run(&s);
        let non_canary = r.placements.iter().filter(|p| !p.canary).count();
        prop_assert!(non_canary <= j.task_groups[0].count.max(0) as usize,
            "{} placements for count {}", non_canary, j.task_groups[0].count);
    }

    #[test]
    fn canaries_never_exceed_the_update_block(s in scenario()) {
        let (_, allocs, r) = run(&s);
        let placed = r.placements.iter().filter(|p| p.canary).count();
        let existing = allocs
            .iter()
            .filter(|a| !a.terminal() && a.deployment_id == "dep1" && a.is_canary())
            .count();
        prop_assert!(placed <= s.canary.max(0) as usize);
        if placed > 0 {
            prop_assert!(placed + existing <= s.canary.max(0) as usize);
        }
    }

    #[test]
    fn no_two_live_allocs_share_a_name_within_a_version(s in scenario()) {
        // Start from a state the scheduler can reach: one alloc per name (replaced failed
        // allocs and canaries beside old allocs are covered by the unit tests).
        let mut seen = BTreeSet::new();
        let mut s = s;
        s.allocs.retain(|(i, _, _, _, _)| seen.insert(*i));
        let (_, allocs, r) = run(&s);
        let live = live_after(&allocs, &r);
        let unique: BTreeSet<_> = live.iter().collect();
        prop_assert_eq!(unique.len(), live.len(), "duplicates in {:?}", live);
    }

    #[test]
    fn a_stopped_job_gets_no_new_deployment(s in scenario()) {
        let mut s = s;
        s.stopped = true;
        let (_, _, r) = run(&s);
        prop_assert!(r.deployment.is_none());
        prop_assert!(r.placements.is_empty());
    }
}
