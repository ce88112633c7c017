//! Which events one raft entry yields (Nomad's `eventsFromChanges`): the entry's `Command` is
//! its message type and names the event type; every job, alloc, eval, deployment and node row
//! the entry changed becomes one event carrying the row as stored.
//!
//! Rows are found from the command (the IDs it names, the jobs of its allocs and evals) and
//! kept when their `ModifyIndex` is this entry's, so no table is scanned.

use std::collections::BTreeSet;

use super::events::*;
use super::fsm::Command;
use super::state::{JobKey, StateSnapshot};

/// Nomad's event type for each message type.
pub fn event_type(cmd: &Command) -> &'static str {
    match cmd {
        Command::JobRegister { .. } => "JobRegistered",
        Command::JobDeregister { .. } => "JobDeregistered",
        Command::NodeRegister { .. } => "NodeRegistration",
        Command::NodeUpdateStatus { .. } => "NodeStreamEvent",
        Command::AllocClientUpdate { .. } => "AllocationUpdated",
        Command::EvalUpsert { .. } => "EvaluationUpdated",
        Command::ApplyPlan { .. } => "PlanResult",
        Command::DeploymentStatusUpdate { .. } => "DeploymentStatusUpdate",
        Command::DeploymentPromote { .. } => "DeploymentPromotion",
        Command::DeploymentAllocHealth { .. } => "DeploymentAllocHealth",
        Command::NodeUpdateDrain { .. } => "NodeDrain",
        Command::NodeUpdateEligibility { .. } => "NodeEligibility",
        Command::AllocUpdateDesiredTransition { .. } => "AllocationUpdateDesiredStatus",
        Command::Reap(_) => "JobBatchDeregistered",
        Command::ReconcileSummaries => "JobSummaryReconciled",
        Command::ServiceRegistrationUpsert { .. } => "ServiceRegistration",
        Command::ServiceRegistrationDelete { .. }
        | Command::ServiceRegistrationDeleteByAlloc { .. } => "ServiceDeregistration",
        Command::ScalingEvent { .. } => "JobScalingEvent",
        Command::SchedulerSetConfig { .. } => "SchedulerConfigUpdated",
        // Nomad publishes no events for version tags; the name is only for completeness.
        Command::JobVersionTag { .. } => "JobVersionTag",
    }
}

/// The rows a command may have changed.
#[derive(Default)]
struct Touched {
    jobs: BTreeSet<JobKey>,
    allocs: BTreeSet<String>,
    evals: BTreeSet<String>,
    deployments: BTreeSet<String>,
    nodes: BTreeSet<String>,
}

impl Touched {
    fn eval(&mut self, e: &crate::api::Evaluation) {
        self.evals.insert(e.id.clone());
        self.jobs.insert((e.namespace.clone(), e.job_id.clone()));
    }
    fn alloc_id(&mut self, snap: &StateSnapshot, id: &str) {
        self.allocs.insert(id.to_string());
        if let Some(a) = snap.alloc_by_id(id) {
            self.jobs.insert((a.namespace.clone(), a.job_id.clone()));
            if !a.deployment_id.is_empty() {
                self.deployments.insert(a.deployment_id.clone());
            }
        }
    }
    fn job(&mut self, j: &crate::api::Job) {
        self.jobs.insert((j.namespace.clone(), j.id.clone()));
    }
}

fn touched(cmd: &Command, after: &StateSnapshot) -> Touched {
    let mut t = Touched::default();
    match cmd {
        Command::JobRegister { job, eval, .. } => {
            t.job(job);
            eval.iter().for_each(|e| t.eval(e));
        }
        Command::JobDeregister {
            namespace,
            job_id,
            eval,
            ..
        } => {
            t.jobs.insert((namespace.clone(), job_id.clone()));
            eval.iter().for_each(|e| t.eval(e));
        }
        Command::NodeRegister { node, .. } => {
            t.nodes.insert(node.id.clone());
        }
        Command::NodeUpdateStatus { node_id, evals, .. } => {
            t.nodes.insert(node_id.clone());
            evals.iter().for_each(|e| t.eval(e));
        }
        Command::AllocClientUpdate { allocs, evals, .. } => {
            allocs.iter().for_each(|a| t.alloc_id(after, &a.id));
            evals.iter().for_each(|e| t.eval(e));
        }
        Command::EvalUpsert { evals } => evals.iter().for_each(|e| t.eval(e)),
        Command::ApplyPlan {
            stopped,
            placed,
            evals,
            deployment,
            deployment_updates,
            ..
        } => {
            for id in stopped
                .iter()
                .map(|a| &a.id)
                .chain(placed.iter().map(|a| &a.id))
            {
                t.alloc_id(after, id);
            }
            evals.iter().for_each(|e| t.eval(e));
            t.deployments
                .extend(deployment.iter().map(|d| d.id.clone()));
            t.deployments
                .extend(deployment_updates.iter().map(|u| u.deployment_id.clone()));
        }
        Command::DeploymentStatusUpdate {
            update, job, eval, ..
        } => {
            t.deployments.insert(update.deployment_id.clone());
            job.iter().for_each(|j| t.job(j));
            eval.iter().for_each(|e| t.eval(e));
        }
        Command::DeploymentPromote {
            deployment_id,
            eval,
            ..
        } => {
            t.deployments.insert(deployment_id.clone());
            eval.iter().for_each(|e| t.eval(e));
            if let Some(d) = after.deployment_by_id(deployment_id) {
                for a in after.allocs_for_job(&d.namespace, &d.job_id) {
                    t.allocs.insert(a.id.clone());
                }
            }
        }
        Command::DeploymentAllocHealth {
            deployment_id,
            healthy,
            unhealthy,
            job,
            eval,
            ..
        } => {
            t.deployments.insert(deployment_id.clone());
            for id in healthy.iter().chain(unhealthy) {
                t.alloc_id(after, id);
            }
            job.iter().for_each(|j| t.job(j));
            eval.iter().for_each(|e| t.eval(e));
        }
        Command::NodeUpdateDrain { updates, evals, .. } => {
            t.nodes.extend(updates.iter().map(|u| u.node_id.clone()));
            evals.iter().for_each(|e| t.eval(e));
        }
        Command::NodeUpdateEligibility { node_id, evals, .. } => {
            t.nodes.insert(node_id.clone());
            evals.iter().for_each(|e| t.eval(e));
        }
        Command::AllocUpdateDesiredTransition {
            transitions, evals, ..
        } => {
            for id in transitions.keys() {
                t.alloc_id(after, id);
            }
            evals.iter().for_each(|e| t.eval(e));
        }
        // Removed rows and service registrations carry no job/alloc/eval/node row events.
        Command::Reap(_)
        | Command::ReconcileSummaries
        | Command::ServiceRegistrationUpsert { .. }
        | Command::ServiceRegistrationDelete { .. }
        | Command::ServiceRegistrationDeleteByAlloc { .. }
        | Command::SchedulerSetConfig { .. }
        | Command::JobVersionTag { .. } => {}
        Command::ScalingEvent {
            namespace, job_id, ..
        } => {
            t.jobs.insert((namespace.clone(), job_id.clone()));
        }
    }
    t
}

/// Whether `for_command` reads the state before the command: only for rows the command may
/// remove (purged jobs), whose events carry the row as it was.
pub fn needs_before(cmd: &Command) -> bool {
    matches!(
        cmd,
        Command::JobDeregister { purge: true, .. } | Command::Reap(_)
    )
}

/// The events of the entry at `index`, given the state before and after it applied (`before`
/// is read only when `needs_before` says so).
pub fn for_command(
    cmd: &Command,
    index: u64,
    before: &StateSnapshot,
    after: &StateSnapshot,
) -> EventBatch {
    let ty = event_type(cmd);
    let t = touched(cmd, after);
    let mut events = Vec::new();
    let mut push = |topic, key: String, namespace: String, filter_keys, payload| {
        events.push(Event {
            filter_keys,
            index,
            key,
            namespace,
            payload,
            topic,
            r#type: ty,
        })
    };
    for id in &t.nodes {
        if let Some(n) = after.node_by_id(id).filter(|n| n.modify_index == index) {
            push(
                TOPIC_NODE,
                id.clone(),
                String::new(),
                None,
                Payload::Node(n),
            );
        }
    }
    for id in &t.deployments {
        if let Some(d) = after
            .deployment_by_id(id)
            .filter(|d| d.modify_index == index)
        {
            let keys = Some(vec![d.job_id.clone()]);
            let ns = d.namespace.clone();
            push(
                TOPIC_DEPLOYMENT,
                id.clone(),
                ns,
                keys,
                Payload::Deployment(d),
            );
        }
    }
    for id in &t.evals {
        if let Some(e) = after.eval_by_id(id).filter(|e| e.modify_index == index) {
            let keys = Some(vec![e.job_id.clone(), e.deployment_id.clone()]);
            let ns = e.namespace.clone();
            push(
                TOPIC_EVALUATION,
                id.clone(),
                ns,
                keys,
                Payload::Evaluation(e),
            );
        }
    }
    for id in &t.allocs {
        if let Some(a) = after.alloc_by_id(id).filter(|a| a.modify_index == index) {
            let keys = Some(vec![a.job_id.clone(), a.deployment_id.clone()]);
            let ns = a.namespace.clone();
            push(
                TOPIC_ALLOCATION,
                id.clone(),
                ns,
                keys,
                Payload::Allocation(a),
            );
        }
    }
    for (ns, id) in &t.jobs {
        let job = match after.job_by_id(ns, id) {
            Some(j) => (j.modify_index == index).then_some(j),
            // Purged in this entry: the event carries the job as it was.
            None => before.job_by_id(ns, id),
        };
        if let Some(j) = job {
            push(TOPIC_JOB, id.clone(), ns.clone(), None, Payload::Job(j));
        }
    }
    EventBatch { events, index }
}
