use super::*;
use crate::api::{
    Constraint, Deployment, DEPLOYMENT_STATUS_CANCELLED, DEPLOYMENT_STATUS_PAUSED,
    JOB_TYPE_SERVICE, NODE_ELIGIBLE, NODE_INELIGIBLE,
};
use crate::scheduler::reconcile::STATUS_ALLOC_UPDATING;
use crate::scheduler::testing::{alloc, eval_for, job, node, TestState};

const NOW: i64 = 1_700_000_000_000_000_000;

fn ctx() -> SchedulerContext {
    SchedulerContext { now: NOW, seed: 7 }
}

fn sys_job(kind: &str) -> Job {
    let mut j = job(1);
    j.id = "sys".into();
    j.name = "sys".into();
    j.r#type = kind.into();
    j
}

fn run(j: &Job, nodes: Vec<Node>, allocs: Vec<Allocation>) -> SchedulerResult {
    let state = TestState {
        index: 100,
        jobs: vec![Arc::new(j.clone())],
        nodes: nodes.into_iter().map(Arc::new).collect(),
        allocs: allocs.into_iter().map(Arc::new).collect(),
        ..Default::default()
    };
    super::super::process_eval(&eval_for(j), &state, ctx()).expect("system scheduler runs")
}

fn placed_nodes(r: &SchedulerResult) -> Vec<String> {
    let mut v: Vec<String> = r
        .plan
        .node_allocation
        .values()
        .flatten()
        .map(|a| a.node_id.clone())
        .collect();
    v.sort();
    v
}

fn stops(r: &SchedulerResult) -> Vec<(String, String)> {
    r.plan
        .node_update
        .values()
        .flatten()
        .map(|a| (a.node_id.clone(), a.desired_description.clone()))
        .collect()
}

#[test]
fn places_one_alloc_per_ready_node_named_index_zero() {
    let j = sys_job(JOB_TYPE_SYSTEM);
    let mut down = node("n3");
    down.status = "down".into();
    let mut other_dc = node("n4");
    other_dc.datacenter = "dc9".into();
    let r = run(&j, vec![node("n1"), node("n2"), down, other_dc], vec![]);
    assert_eq!(placed_nodes(&r), vec!["n1", "n2"]);
    for a in r.plan.node_allocation.values().flatten() {
        assert_eq!(a.name, "sys.g[0]");
        assert_eq!(a.metrics.as_ref().map(|m| m.nodes_evaluated), Some(1));
    }
    assert!(r.blocked_eval.is_none());
    assert_eq!(r.eval.status, EVAL_STATUS_COMPLETE);
    assert!(r.eval.failed_tg_allocs.is_none());
}

#[test]
fn existing_alloc_of_current_version_is_kept_and_new_node_gets_one() {
    let j = sys_job(JOB_TYPE_SYSTEM);
    let arc = Arc::new(j.clone());
    let r = run(&j, vec![node("n1"), node("n2")], vec![alloc(&arc, 0, "n1")]);
    assert_eq!(placed_nodes(&r), vec!["n2"]);
    assert!(r.plan.node_update.is_empty());
}

#[test]
fn node_that_became_infeasible_has_its_alloc_stopped() {
    let mut j = sys_job(JOB_TYPE_SYSTEM);
    j.constraints = Some(vec![Constraint {
        l_target: "${attr.kernel.name}".into(),
        operand: "=".into(),
        r_target: "linux".into(),
    }]);
    let arc = Arc::new(j.clone());
    let mut n2 = node("n2");
    n2.attributes.insert("kernel.name".into(), "windows".into());
    let r = run(
        &j,
        vec![node("n1"), n2],
        vec![alloc(&arc, 0, "n1"), alloc(&arc, 0, "n2")],
    );
    assert!(r.plan.node_allocation.is_empty());
    assert_eq!(
        stops(&r),
        vec![("n2".to_string(), STATUS_ALLOC_NODE_INFEASIBLE.to_string())]
    );
    // Filtered nodes are not failures while the group runs somewhere.
    assert!(r.eval.failed_tg_allocs.is_none());
}

#[test]
fn lost_draining_and_out_of_scope_nodes() {
    let j = sys_job(JOB_TYPE_SYSTEM);
    let arc = Arc::new(j.clone());
    let mut down = node("down");
    down.status = "down".into();
    let mut drain = node("drain");
    drain.drain = true;
    let mut moved = node("moved");
    moved.datacenter = "dc2".into();
    let mut inel = node("inel");
    inel.scheduling_eligibility = NODE_INELIGIBLE.into();
    let mut drain_kept = node("drain-kept");
    drain_kept.drain = true;
    let mut allocs: Vec<_> = ["down", "drain", "moved", "inel", "gone", "drain-kept"]
        .iter()
        .map(|n| alloc(&arc, 0, n))
        .collect();
    // Only the alloc the drainer marked moves; the other draining node keeps its alloc.
    allocs[1].desired_transition.migrate = Some(true);
    let r = run(&j, vec![down, drain, moved, inel, drain_kept], allocs);
    let mut got = stops(&r);
    got.sort();
    assert_eq!(
        got,
        vec![
            ("down".into(), STATUS_ALLOC_LOST.to_string()),
            ("drain".into(), STATUS_ALLOC_MIGRATING.to_string()),
            ("gone".into(), STATUS_ALLOC_LOST.to_string()),
            ("moved".into(), STATUS_ALLOC_NOT_NEEDED.to_string()),
        ]
    );
    assert!(
        r.plan.node_allocation.is_empty(),
        "ineligible node keeps its alloc"
    );
}

#[test]
fn job_update_replaces_on_the_same_node() {
    let mut j = sys_job(JOB_TYPE_SYSTEM);
    let old = Arc::new(j.clone());
    j.job_modify_index = 20;
    j.task_groups[0].tasks[0].env = Some([("V".to_string(), "2".to_string())].into());
    let r = run(&j, vec![node("n1")], vec![alloc(&old, 0, "n1")]);
    assert_eq!(placed_nodes(&r), vec!["n1"]);
    assert_eq!(stops(&r), vec![("n1".into(), STATUS_ALLOC_UPDATING.into())]);
    let new = r
        .plan
        .node_allocation
        .values()
        .flatten()
        .next()
        .expect("one");
    assert_eq!(new.previous_allocation, "alloc-0-n1");
}

#[test]
fn stopped_job_stops_everything() {
    let mut j = sys_job(JOB_TYPE_SYSTEM);
    j.stop = true;
    let arc = Arc::new(j.clone());
    let r = run(&j, vec![node("n1")], vec![alloc(&arc, 0, "n1")]);
    assert_eq!(
        stops(&r),
        vec![("n1".into(), STATUS_ALLOC_NOT_NEEDED.into())]
    );
    assert!(r.plan.node_allocation.is_empty());
}

#[test]
fn sysbatch_is_not_replaced_after_success_but_is_after_failure_of_old_version() {
    let j = sys_job(JOB_TYPE_SYSBATCH);
    let arc = Arc::new(j.clone());
    let mut done = alloc(&arc, 0, "n1");
    done.client_status = ALLOC_CLIENT_COMPLETE.into();
    let mut old_job = j.clone();
    old_job.job_modify_index = 1;
    let mut old_done = alloc(&Arc::new(old_job), 0, "n2");
    old_done.client_status = ALLOC_CLIENT_COMPLETE.into();
    let r = run(
        &j,
        vec![node("n1"), node("n2"), node("n3")],
        vec![done, old_done],
    );
    assert_eq!(placed_nodes(&r), vec!["n2", "n3"]);

    // A system job re-places over a finished alloc.
    let s = sys_job(JOB_TYPE_SYSTEM);
    let sarc = Arc::new(s.clone());
    let mut fin = alloc(&sarc, 0, "n1");
    fin.client_status = ALLOC_CLIENT_COMPLETE.into();
    assert_eq!(
        placed_nodes(&run(&s, vec![node("n1")], vec![fin])),
        vec!["n1"]
    );
}

#[test]
fn exhausted_nodes_are_failed_placements_coalesced() {
    let mut j = sys_job(JOB_TYPE_SYSTEM);
    if let Some(r) = j.task_groups[0].tasks[0].resources.as_mut() {
        r.memory_mb = 100_000;
    }
    let r = run(&j, vec![node("n1"), node("n2"), node("n3")], vec![]);
    let failed = r.eval.failed_tg_allocs.expect("failures");
    let m = &failed["g"];
    assert_eq!(m.nodes_exhausted, 1);
    assert_eq!(m.coalesced_failures, 2);
    assert_eq!(m.dimension_exhausted.as_ref().map(|d| d["memory"]), Some(1));
    assert_eq!(r.eval.queued_allocations.as_ref().map(|q| q["g"]), Some(3));
    assert!(r.blocked_eval.is_none());
}

#[test]
fn filtered_everywhere_reports_merged_filter_metrics() {
    let mut j = sys_job(JOB_TYPE_SYSTEM);
    j.task_groups[0].tasks[0].driver = "docker".into();
    let r = run(&j, vec![node("n1"), node("n2")], vec![]);
    let failed = r.eval.failed_tg_allocs.expect("reported");
    assert_eq!(failed["g"].nodes_filtered, 2);
    assert_eq!(failed["g"].nodes_evaluated, 2);
    assert_eq!(r.eval.queued_allocations.as_ref().map(|q| q["g"]), Some(0));
}

#[test]
fn entry_dispatches_service_to_generic() {
    let mut j = sys_job(JOB_TYPE_SERVICE);
    j.task_groups[0].count = 1;
    let r = run(&j, vec![node("n1"), node("n2")], vec![]);
    assert_eq!(placed_nodes(&r).len(), 1);
    assert_eq!(NODE_ELIGIBLE, "eligible");
}

#[test]
fn a_non_destructive_job_update_is_made_in_place() {
    let mut j = sys_job(JOB_TYPE_SYSTEM);
    let old = Arc::new(j.clone());
    j.job_modify_index = 20;
    // kill_timeout is read on the next stop: no new task needed.
    j.task_groups[0].tasks[0].kill_timeout = Some(30 * crate::api::SECOND);
    let existing = alloc(&old, 0, "n1");
    let r = run(&j, vec![node("n1")], vec![existing.clone()]);
    assert!(stops(&r).is_empty(), "nothing is stopped: {:?}", stops(&r));
    let updated: Vec<_> = r.plan.node_allocation.values().flatten().collect();
    assert_eq!(updated.len(), 1);
    assert_eq!(updated[0].id, existing.id, "same alloc, updated in place");
    assert_eq!(
        updated[0].job.as_ref().map(|j| j.job_modify_index),
        Some(20)
    );
}

#[test]
fn without_an_update_block_every_node_is_replaced_at_once_with_no_deployment() {
    let mut j = sys_job(JOB_TYPE_SYSTEM);
    let old = Arc::new(j.clone());
    j.version = 1;
    j.job_modify_index = 20;
    j.task_groups[0].tasks[0].env = Some([("V".to_string(), "2".to_string())].into());
    let r = run(&j, nodes(3), old_allocs(&old, 3));
    assert_eq!(placed_nodes(&r).len(), 3);
    assert_eq!(stops(&r).len(), 3);
    assert!(r.followup_evals.is_empty(), "no stagger timer");
    assert!(r.plan.deployment.is_none());
    assert!(r.plan.deployment_updates.is_empty());
}

// Deployments (Nomad >= 1.11): a system job with `update { max_parallel > 0 }`.

/// The test state plus the job's latest deployment.
struct DeployState {
    inner: TestState,
    deployment: Option<Arc<Deployment>>,
}

impl StateView for DeployState {
    fn index(&self) -> u64 {
        self.inner.index()
    }
    fn job(&self, namespace: &str, id: &str) -> Option<Arc<Job>> {
        self.inner.job(namespace, id)
    }
    fn node(&self, id: &str) -> Option<Arc<Node>> {
        self.inner.node(id)
    }
    fn nodes(&self) -> Vec<Arc<Node>> {
        self.inner.nodes()
    }
    fn allocs_by_job(&self, namespace: &str, job_id: &str) -> Vec<Arc<Allocation>> {
        self.inner.allocs_by_job(namespace, job_id)
    }
    fn allocs_by_node(&self, node_id: &str) -> Vec<Arc<Allocation>> {
        self.inner.allocs_by_node(node_id)
    }
    fn alloc(&self, id: &str) -> Option<Arc<Allocation>> {
        self.inner.alloc(id)
    }
    fn latest_deployment(&self, _namespace: &str, _job_id: &str) -> Option<Arc<Deployment>> {
        self.deployment.clone()
    }
}

fn run_deploy(
    j: &Job,
    nodes: Vec<Node>,
    allocs: Vec<Allocation>,
    deployment: Option<&Deployment>,
) -> SchedulerResult {
    let state = DeployState {
        inner: TestState {
            index: 100,
            jobs: vec![Arc::new(j.clone())],
            nodes: nodes.into_iter().map(Arc::new).collect(),
            allocs: allocs.into_iter().map(Arc::new).collect(),
            ..Default::default()
        },
        deployment: deployment.cloned().map(Arc::new),
    };
    super::super::process_eval(&eval_for(j), &state, ctx()).expect("system scheduler runs")
}

fn nodes(n: usize) -> Vec<Node> {
    (1..=n).map(|i| node(&format!("n{i:02}"))).collect()
}

fn old_allocs(job: &Arc<Job>, n: usize) -> Vec<Allocation> {
    (1..=n)
        .map(|i| alloc(job, 0, &format!("n{i:02}")))
        .collect()
}

/// A system job with an update block (version 0), and its destructive next version.
fn rolling_job(max_parallel: i32, canary: i32) -> (Job, Job) {
    let mut v0 = sys_job(JOB_TYPE_SYSTEM);
    v0.task_groups[0].update = Some(crate::api::UpdateStrategy {
        max_parallel,
        canary,
        min_healthy_time: 10 * crate::api::SECOND,
        healthy_deadline: 300 * crate::api::SECOND,
        progress_deadline: 600 * crate::api::SECOND,
        ..Default::default()
    });
    let mut v1 = v0.clone();
    v1.version = 1;
    v1.job_modify_index = 20;
    v1.task_groups[0].tasks[0].env = Some([("V".to_string(), "2".to_string())].into());
    (v0, v1)
}

/// An alloc of `job` on `node` in deployment `d` with the given health and canary flag.
fn deployed(
    job: &Arc<Job>,
    node: &str,
    d: &str,
    healthy: Option<bool>,
    canary: bool,
) -> Allocation {
    let mut a = alloc(job, 0, node);
    a.id = format!("new-{node}");
    a.deployment_id = d.to_string();
    a.deployment_status = Some(
        crate::api::AllocDeploymentStatus {
            canary,
            healthy,
            ..Default::default()
        }
        .to_value(),
    );
    a
}

/// The deployment a previous pass wrote, as the state store holds it after recounting.
fn stored(r: &SchedulerResult, healthy: i64) -> Deployment {
    let mut d = r
        .plan
        .deployment
        .clone()
        .expect("the pass wrote a deployment");
    for st in d.task_groups.values_mut() {
        st.healthy_allocs = healthy;
    }
    d
}

fn placed(r: &SchedulerResult) -> Vec<&Allocation> {
    r.plan.node_allocation.values().flatten().collect()
}

#[test]
fn first_run_creates_a_deployment_whose_desired_total_is_the_feasible_nodes() {
    let (j, _) = rolling_job(1, 0);
    let mut wrong_os = node("n99");
    wrong_os.drivers.clear();
    let mut all = nodes(3);
    all.push(wrong_os);
    let r = run_deploy(&j, all, vec![], None);
    let d = r.plan.deployment.as_ref().expect("a deployment is created");
    assert_eq!(d.status, crate::api::DEPLOYMENT_STATUS_RUNNING);
    assert_eq!(d.status_description, crate::api::DESC_RUNNING);
    assert_eq!((d.job_version, d.job_id.as_str()), (0, "sys"));
    let st = &d.task_groups["g"];
    assert_eq!(
        st.desired_total, 3,
        "the node without the driver is not counted"
    );
    assert_eq!(st.desired_canaries, 0);
    assert!(!st.auto_promote && st.progress_deadline == 600 * crate::api::SECOND);
    // A first placement is not a rolling update: every node gets its alloc at once.
    assert_eq!(placed_nodes(&r), vec!["n01", "n02", "n03"]);
    assert!(placed(&r).iter().all(|a| a.deployment_id == d.id));
    assert_eq!(r.eval.deployment_id, d.id);
    assert!(r.plan.deployment_updates.is_empty());

    // Once every alloc is healthy, the next pass marks the deployment successful.
    let arc = Arc::new(j.clone());
    let healthy: Vec<_> = ["n01", "n02", "n03"]
        .iter()
        .map(|n| deployed(&arc, n, &d.id, Some(true), false))
        .collect();
    let r2 = run_deploy(&j, nodes(3), healthy, Some(&stored(&r, 3)));
    assert!(placed(&r2).is_empty() && stops(&r2).is_empty());
    assert_eq!(r2.plan.deployment_updates.len(), 1);
    let u = &r2.plan.deployment_updates[0];
    assert_eq!(u.deployment_id, d.id);
    assert_eq!(u.status, crate::api::DEPLOYMENT_STATUS_SUCCESSFUL);
    assert_eq!(u.status_description, crate::api::DESC_SUCCESSFUL);
}

#[test]
fn destructive_updates_go_max_parallel_at_a_time_gated_by_health() {
    let (v0, v1) = rolling_job(2, 0);
    let old = Arc::new(v0);
    let r = run_deploy(&v1, nodes(5), old_allocs(&old, 5), None);
    let d = r
        .plan
        .deployment
        .clone()
        .expect("the new version makes a deployment");
    assert_eq!(d.job_version, 1);
    assert_eq!(d.task_groups["g"].desired_total, 5);
    assert_eq!(placed_nodes(&r), vec!["n01", "n02"], "max_parallel = 2");
    assert_eq!(stops(&r).len(), 2);
    assert!(placed(&r)
        .iter()
        .all(|a| a.deployment_id == d.id && !a.is_canary()));
    assert!(
        r.followup_evals.is_empty(),
        "the watcher's evals move it on"
    );

    // The first batch runs but is not healthy yet: nothing more moves.
    let new = Arc::new(v1.clone());
    let mut allocs: Vec<Allocation> = old_allocs(&old, 5).split_off(2);
    allocs.push(deployed(&new, "n01", &d.id, None, false));
    allocs.push(deployed(&new, "n02", &d.id, None, false));
    let r2 = run_deploy(&v1, nodes(5), allocs.clone(), Some(&stored(&r, 0)));
    assert!(placed(&r2).is_empty() && stops(&r2).is_empty());
    assert!(
        r2.plan.deployment.is_none(),
        "nothing changed in the deployment"
    );
    assert!(r2.plan.deployment_updates.is_empty());

    // One healthy frees one slot; an unhealthy one frees its slot too.
    allocs[3] = deployed(&new, "n01", &d.id, Some(true), false);
    allocs[4] = deployed(&new, "n02", &d.id, Some(false), false);
    let r3 = run_deploy(&v1, nodes(5), allocs, Some(&stored(&r, 1)));
    assert_eq!(placed_nodes(&r3), vec!["n03", "n04"]);
    assert!(r3.plan.deployment_updates.is_empty(), "not complete");
}

#[test]
fn canaries_are_a_percentage_of_the_nodes_and_the_rest_waits_for_promotion() {
    let (v0, v1) = rolling_job(5, 30);
    let old = Arc::new(v0);
    let r = run_deploy(&v1, nodes(10), old_allocs(&old, 10), None);
    let d = r.plan.deployment.clone().expect("deployment");
    let st = &d.task_groups["g"];
    assert_eq!(st.desired_total, 10);
    assert_eq!(st.desired_canaries, 3, "ceil(30% of 10)");
    assert_eq!(
        d.status_description,
        crate::api::DESC_RUNNING_NEEDS_PROMOTION
    );
    let canaries = placed(&r);
    assert_eq!(canaries.len(), 3, "only the canaries replace old allocs");
    assert!(canaries
        .iter()
        .all(|a| a.is_canary() && a.deployment_id == d.id));
    assert_eq!(
        stops(&r).len(),
        3,
        "a system canary replaces the alloc on its node"
    );
    assert_eq!(st.placed_canaries.as_ref().map(Vec::len), Some(3));

    // Healthy canaries, not promoted: nothing else moves and the deployment is not done.
    let new = Arc::new(v1.clone());
    let mut allocs: Vec<Allocation> = old_allocs(&old, 10).split_off(3);
    for n in ["n01", "n02", "n03"] {
        allocs.push(deployed(&new, n, &d.id, Some(true), true));
    }
    let mut healthy = stored(&r, 3);
    let r2 = run_deploy(&v1, nodes(10), allocs.clone(), Some(&healthy));
    assert!(placed(&r2).is_empty() && stops(&r2).is_empty());
    assert!(r2.plan.deployment_updates.is_empty(), "waits for promotion");

    // Promoted: the other seven roll, max_parallel (5) at a time, not as canaries.
    healthy.task_groups.get_mut("g").expect("g").promoted = true;
    healthy.status_description = crate::api::DESC_RUNNING.into();
    let r3 = run_deploy(&v1, nodes(10), allocs, Some(&healthy));
    assert_eq!(placed(&r3).len(), 5);
    assert!(placed(&r3).iter().all(|a| !a.is_canary()));
    assert_eq!(
        r3.plan
            .deployment
            .as_ref()
            .map(|d| d.task_groups["g"].desired_canaries),
        None,
        "the deployment keeps its canary count"
    );
}

#[test]
fn canaries_are_capped_by_max_parallel_and_auto_promote_is_described() {
    let (v0, mut v1) = rolling_job(2, 50);
    if let Some(u) = v1.task_groups[0].update.as_mut() {
        u.auto_promote = true;
    }
    let old = Arc::new(v0);
    let r = run_deploy(&v1, nodes(10), old_allocs(&old, 10), None);
    let d = r.plan.deployment.as_ref().expect("deployment");
    assert_eq!(d.task_groups["g"].desired_canaries, 2, "5 capped by 2");
    assert_eq!(placed(&r).len(), 2);
    assert_eq!(
        d.status_description,
        crate::api::DESC_RUNNING_AUTO_PROMOTION
    );
}

#[test]
fn stopping_the_job_or_a_newer_version_cancels_the_running_deployment() {
    let (v0, v1) = rolling_job(1, 0);
    let old = Arc::new(v0);
    let r = run_deploy(&v1, nodes(2), old_allocs(&old, 2), None);
    let d = stored(&r, 0);

    let mut stopped = v1.clone();
    stopped.stop = true;
    let r2 = run_deploy(&stopped, nodes(2), old_allocs(&old, 2), Some(&d));
    assert_eq!(stops(&r2).len(), 2);
    assert_eq!(r2.plan.deployment_updates.len(), 1);
    assert_eq!(
        r2.plan.deployment_updates[0].status,
        DEPLOYMENT_STATUS_CANCELLED
    );
    assert_eq!(
        r2.plan.deployment_updates[0].status_description,
        crate::api::DESC_STOPPED_JOB
    );

    let mut v2 = v1.clone();
    v2.version = 2;
    v2.job_modify_index = 30;
    let r3 = run_deploy(&v2, nodes(2), old_allocs(&old, 2), Some(&d));
    let u = &r3.plan.deployment_updates[0];
    assert_eq!(
        (u.deployment_id.as_str(), u.status.as_str()),
        (d.id.as_str(), DEPLOYMENT_STATUS_CANCELLED)
    );
    assert_eq!(u.status_description, crate::api::DESC_NEWER_JOB);
    let new = r3
        .plan
        .deployment
        .as_ref()
        .expect("a deployment for version 2");
    assert_eq!(new.job_version, 2);
    assert_eq!(new.status, crate::api::DEPLOYMENT_STATUS_RUNNING);
}

#[test]
fn a_paused_or_failed_deployment_makes_no_destructive_update() {
    let (v0, v1) = rolling_job(2, 0);
    let old = Arc::new(v0);
    let r = run_deploy(&v1, nodes(4), old_allocs(&old, 4), None);
    for status in [
        DEPLOYMENT_STATUS_PAUSED,
        crate::api::DEPLOYMENT_STATUS_FAILED,
    ] {
        let mut d = stored(&r, 0);
        d.status = status.into();
        let r2 = run_deploy(&v1, nodes(4), old_allocs(&old, 4), Some(&d));
        assert!(placed(&r2).is_empty(), "{status}");
        assert!(stops(&r2).is_empty(), "{status}");
        assert!(r2.plan.deployment_updates.is_empty(), "{status}");
    }
}

#[test]
fn an_in_place_update_joins_the_deployment_and_is_judged_anew() {
    let (v0, mut v1) = rolling_job(1, 0);
    v1.task_groups[0].tasks[0].env = None;
    v1.task_groups[0].tasks[0].kill_timeout = Some(30 * crate::api::SECOND);
    let old = Arc::new(v0);
    let mut existing = old_allocs(&old, 2);
    for a in &mut existing {
        a.deployment_id = "old-deployment".into();
        a.deployment_status = Some(serde_json::json!({"Healthy": true}));
    }
    let r = run_deploy(&v1, nodes(2), existing, None);
    let d = r
        .plan
        .deployment
        .as_ref()
        .expect("a spec change makes a deployment");
    assert!(stops(&r).is_empty());
    let updated = placed(&r);
    assert_eq!(
        updated.len(),
        2,
        "both in place, not limited by max_parallel"
    );
    assert!(updated.iter().all(|a| a.id.starts_with("alloc-")));
    assert!(updated
        .iter()
        .all(|a| a.deployment_id == d.id && a.deployment_status.is_none()));
}

#[test]
fn a_node_joining_after_a_successful_deployment_makes_no_new_one() {
    let (j, _) = rolling_job(1, 0);
    let arc = Arc::new(j.clone());
    let r = run_deploy(&j, nodes(2), vec![], None);
    let mut done = stored(&r, 2);
    done.status = crate::api::DEPLOYMENT_STATUS_SUCCESSFUL.into();
    let allocs = ["n01", "n02"]
        .iter()
        .map(|n| deployed(&arc, n, &done.id, Some(true), false))
        .collect();
    let r2 = run_deploy(&j, nodes(3), allocs, Some(&done));
    assert_eq!(placed_nodes(&r2), vec!["n03"]);
    assert!(r2.plan.deployment.is_none() && r2.plan.deployment_updates.is_empty());
    assert_eq!(placed(&r2)[0].deployment_id, "");
}

#[test]
fn sysbatch_jobs_get_no_deployment() {
    let (mut j, _) = rolling_job(1, 0);
    j.r#type = JOB_TYPE_SYSBATCH.into();
    let r = run_deploy(&j, nodes(2), vec![], None);
    assert_eq!(placed_nodes(&r).len(), 2);
    assert!(r.plan.deployment.is_none());
    assert!(placed(&r).iter().all(|a| a.deployment_id.is_empty()));
}

#[test]
fn an_eval_trigger_the_system_scheduler_does_not_handle_fails_the_eval() {
    let j = sys_job("system");
    let state = TestState {
        index: 10,
        jobs: vec![Arc::new(j.clone())],
        nodes: vec![Arc::new(node("n1"))],
        ..Default::default()
    };
    let mut eval = eval_for(&j);
    eval.triggered_by = "periodic-job".into();
    let r = super::super::process_eval(&eval, &state, ctx()).expect("system scheduler runs");
    assert_eq!(r.eval.status, "failed");
    assert_eq!(
        r.eval.status_description,
        "scheduler cannot handle 'periodic-job' evaluation reason"
    );
    assert!(r.plan.node_allocation.is_empty());
}
