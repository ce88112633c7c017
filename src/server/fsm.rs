//! The raft log's one command type, and the deterministic apply of it to the state store.
//!
//! Every state change is a `Command`. The leader stamps times and IDs before proposing, so
//! `apply` reads no clock and draws no randomness: every server applies the same log to the
//! same state.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use crate::api::{
    Allocation, Deployment, DeploymentStatusUpdate, Evaluation, Job, Node,
    DEPLOYMENT_STATUS_SUCCESSFUL,
};

/// One raft log entry's payload. Variants differ in size; entries are short-lived, so
/// boxing the big ones would buy nothing.
#[allow(clippy::large_enum_variant)]
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub enum Command {
    /// Register or update a job (the job is already canonicalized and versioned by the leader),
    /// with the eval that schedules it.
    JobRegister {
        job: Job,
        eval: Option<Evaluation>,
        submit_time: i64,
    },
    /// Stop (`purge = false`) or remove (`purge = true`) a job, with the eval that stops its
    /// allocs.
    JobDeregister {
        namespace: String,
        job_id: String,
        purge: bool,
        eval: Option<Evaluation>,
        time: i64,
    },
    /// Register or re-register a node.
    NodeRegister { node: Node, time: i64 },
    /// Change a node's status (heartbeat missed, node came back), with evals for its allocs.
    NodeUpdateStatus {
        node_id: String,
        status: String,
        evals: Vec<Evaluation>,
        time: i64,
    },
    /// Client-side updates of allocs (client status, task states), and evals they trigger.
    AllocClientUpdate {
        allocs: Vec<Allocation>,
        evals: Vec<Evaluation>,
        time: i64,
    },
    /// Create or update evals (broker acks, blocked evals, follow-ups).
    EvalUpsert { evals: Vec<Evaluation> },
    /// A committed plan: allocs to stop and allocs to place, plus the eval's own update.
    ApplyPlan {
        job: Option<Arc<Job>>,
        stopped: Vec<Allocation>,
        placed: Vec<Arc<Allocation>>,
        /// Eval updates committed with the plan: the outcome of the eval that made it.
        #[serde(default)]
        evals: Vec<Evaluation>,
        time: i64,
        /// The deployment the plan creates or updates.
        #[serde(default)]
        deployment: Option<Deployment>,
        /// Status changes of other deployments (older versions cancelled).
        #[serde(default)]
        deployment_updates: Vec<DeploymentStatusUpdate>,
    },
    /// A deployment's status changes (watcher, `deployment fail/pause/resume`), optionally with
    /// a job to register (auto-revert) and an eval to continue.
    DeploymentStatusUpdate {
        update: DeploymentStatusUpdate,
        job: Option<Job>,
        eval: Option<Evaluation>,
        time: i64,
    },
    /// Promote the canaries of some (empty: all) groups of a deployment.
    DeploymentPromote {
        deployment_id: String,
        groups: Vec<String>,
        eval: Option<Evaluation>,
        time: i64,
    },
    /// Set deployment health of allocs, possibly failing the deployment (and reverting) in
    /// the same entry.
    DeploymentAllocHealth {
        deployment_id: String,
        healthy: Vec<String>,
        unhealthy: Vec<String>,
        update: Option<DeploymentStatusUpdate>,
        job: Option<Job>,
        eval: Option<Evaluation>,
        time: i64,
    },
    /// Remove garbage: terminal jobs, evals, allocs, deployments and down nodes (core GC), or
    /// evals an operator deletes.
    Reap(super::state::Reap),
    /// Recount every job's summary from its allocs (`nomad system reconcile summaries`).
    ReconcileSummaries,
    /// Clients register the Nomad-native services of their running allocs.
    ServiceRegistrationUpsert {
        services: Vec<crate::api::ServiceRegistration>,
    },
    /// An operator removes one registration (`nomad service delete`).
    ServiceRegistrationDelete { namespace: String, id: String },
    /// A client removes the registrations of allocs it stopped.
    ServiceRegistrationDeleteByAlloc { alloc_ids: Vec<String> },
    /// Set, update or end the drain of nodes: one node from the drain endpoint, a batch when
    /// the drainer completes drains. The variant is the entry's message type: the event
    /// stream emits `NodeDrain` events for it.
    NodeUpdateDrain {
        updates: Vec<super::state::NodeDrainUpdate>,
        /// Evals for system jobs when a cancelled drain makes the node eligible again.
        evals: Vec<Evaluation>,
        time: i64,
    },
    /// Change a node's scheduling eligibility (`node eligibility`), with evals for system
    /// jobs when it becomes eligible.
    NodeUpdateEligibility {
        node_id: String,
        eligibility: String,
        event: Option<crate::api::NodeEvent>,
        evals: Vec<Evaluation>,
        time: i64,
    },
    /// The drainer marks allocs to migrate, with an eval per affected job.
    AllocUpdateDesiredTransition {
        transitions: std::collections::BTreeMap<String, crate::api::DesiredTransition>,
        evals: Vec<Evaluation>,
        time: i64,
    },
    /// Record a scaling event of a job's group (`job scale`, autoscalers).
    ScalingEvent {
        namespace: String,
        job_id: String,
        group: String,
        event: crate::api::ScalingEvent,
    },
    /// Store the operator's scheduler configuration; with `cas` only if the stored
    /// `ModifyIndex` equals it (a mismatch is reported as `state::CAS_MISMATCH`).
    SchedulerSetConfig {
        config: crate::api::SchedulerConfiguration,
        cas: Option<u64>,
    },
    /// Put a tag on a job version (`tag = Some`, time stamped by the leader) or remove the tag
    /// `name` from whichever version carries it (`tag = None`).
    JobVersionTag {
        namespace: String,
        job_id: String,
        name: String,
        target: super::state::TagTarget,
        tag: Option<crate::api::JobVersionTag>,
    },
}

/// What applying a command yields to the proposer.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ApplyResponse {
    /// The raft index the command was applied at.
    pub index: u64,
    /// A validation-level failure detected in apply (e.g. node unknown). Empty on success.
    pub error: String,
}

/// The state machine raft drives. Implemented by the state store; raft only knows this trait.
pub trait Fsm: Send + Sync + 'static {
    /// Apply one committed command at `index`. Must be deterministic.
    fn apply(&self, index: u64, cmd: &Command) -> ApplyResponse;
    /// Apply a run of committed commands in log order; an FSM may make them one change of
    /// its state (readers then see the state after the last). Must equal applying each.
    fn apply_all(&self, cmds: &[(u64, &Command)]) -> Vec<ApplyResponse> {
        cmds.iter()
            .map(|&(index, cmd)| self.apply(index, cmd))
            .collect()
    }
    /// Serialise the whole state (for a raft snapshot).
    fn snapshot(&self) -> Vec<u8>;
    /// Replace the whole state with a snapshot made by `snapshot`.
    fn restore(&self, data: &[u8]) -> Result<(), String>;
    /// The index of the last applied command.
    fn last_applied(&self) -> u64;
}

use super::state::{StateSnapshot, StateStore};

impl Fsm for StateStore {
    fn apply(&self, index: u64, cmd: &Command) -> ApplyResponse {
        self.write(|s| apply_one(s, index, cmd))
    }

    fn apply_all(&self, cmds: &[(u64, &Command)]) -> Vec<ApplyResponse> {
        self.write(|s| {
            cmds.iter()
                .map(|&(index, cmd)| apply_one(s, index, cmd))
                .collect()
        })
    }

    fn snapshot(&self) -> Vec<u8> {
        StateStore::snapshot(self).to_bytes()
    }

    fn restore(&self, data: &[u8]) -> Result<(), String> {
        let restored = StateSnapshot::from_bytes(data).map_err(|e| e.to_string())?;
        self.write(|s| *s = restored);
        Ok(())
    }

    fn last_applied(&self) -> u64 {
        StateStore::snapshot(self).latest_index()
    }
}

/// Apply the command at `index` to a private copy of the state (the store's next version).
pub(crate) fn apply_one(s: &mut StateSnapshot, index: u64, cmd: &Command) -> ApplyResponse {
    s.set_index(index);
    let error = apply_to(s, index, cmd).err().unwrap_or_default();
    ApplyResponse { index, error }
}

/// Apply one command to a private copy of the state. An `Err` is a request that cannot apply
/// (e.g. an unknown node); it is reported to the proposer and changes nothing else.
fn apply_to(s: &mut StateSnapshot, index: u64, cmd: &Command) -> Result<(), String> {
    match cmd {
        Command::JobRegister {
            job,
            eval,
            submit_time,
        } => {
            s.upsert_job(index, job.clone(), *submit_time);
            if let Some(eval) = eval {
                s.upsert_eval(index, eval.clone());
            }
            s.refresh_job(index, &(job.namespace.clone(), job.id.clone()));
        }
        Command::JobDeregister {
            namespace,
            job_id,
            purge,
            eval,
            time,
        } => {
            let k = (namespace.clone(), job_id.clone());
            if *purge {
                s.delete_job(index, namespace, job_id);
                s.delete_job_deployments(index, &k);
            } else if let Some(existing) = s.job_by_id(namespace, job_id) {
                let mut job = (*existing).clone();
                job.stop = true;
                s.upsert_job(index, job, *time);
            }
            if let Some(eval) = eval {
                s.upsert_eval(index, eval.clone());
            }
            s.refresh_job(index, &k);
        }
        Command::NodeRegister { node, time } => s.upsert_node(index, node.clone(), *time),
        Command::NodeUpdateStatus {
            node_id,
            status,
            evals,
            time,
        } => {
            if !s.update_node_status(index, node_id, status, *time) {
                return Err(format!("node {node_id} not found"));
            }
            if status == crate::api::NODE_STATUS_DOWN {
                // A down node's services are unreachable: stop advertising them.
                s.delete_services_where(index, |r| r.node_id == *node_id);
            }
            for e in evals {
                s.upsert_eval(index, e.clone());
            }
            for k in StateSnapshot::keys_of(&[], evals) {
                s.refresh_job(index, &k);
            }
        }
        Command::AllocClientUpdate {
            allocs,
            evals,
            time,
        } => {
            // Client updates carry only IDs and client fields; the job comes from the store.
            let updated: Vec<_> = allocs
                .iter()
                .filter_map(|a| s.update_alloc_from_client(index, a, *time))
                .map(|a| (*a).clone())
                .collect();
            let finished: std::collections::BTreeSet<&str> = updated
                .iter()
                .filter(|a| a.client_terminal())
                .map(|a| a.id.as_str())
                .collect();
            if !finished.is_empty() {
                s.delete_services_where(index, |r| finished.contains(r.alloc_id.as_str()));
            }
            for e in evals {
                s.upsert_eval(index, e.clone());
            }
            for k in StateSnapshot::keys_of(&updated, evals) {
                s.refresh_job(index, &k);
                s.recount_deployments(index, &k, *time);
            }
        }
        Command::EvalUpsert { evals } => {
            for e in evals {
                s.upsert_eval(index, e.clone());
            }
            for k in StateSnapshot::keys_of(&[], evals) {
                s.refresh_job(index, &k);
            }
        }
        Command::ApplyPlan {
            job,
            stopped,
            placed,
            evals,
            time,
            deployment,
            deployment_updates,
        } => {
            if let Some(d) = deployment {
                s.upsert_deployment(index, d.clone(), *time);
            }
            for u in deployment_updates {
                apply_status_update(s, index, u, *time);
            }
            for a in stopped {
                let mut a = a.clone();
                a.modify_time = *time;
                s.upsert_alloc(index, a, None);
            }
            for a in placed {
                let mut a = (**a).clone();
                a.modify_time = *time;
                s.upsert_alloc(index, a, job.as_ref());
            }
            for e in evals {
                s.upsert_eval(index, e.clone());
            }
            for k in
                StateSnapshot::keys_of(stopped.iter().chain(placed.iter().map(|a| &**a)), evals)
            {
                s.refresh_job(index, &k);
                s.recount_deployments(index, &k, *time);
            }
        }
        Command::DeploymentStatusUpdate {
            update,
            job,
            eval,
            time,
        } => {
            if !apply_status_update(s, index, update, *time) {
                return Err(format!("deployment {} not found", update.deployment_id));
            }
            register_and_eval(s, index, job.as_ref(), eval.as_ref(), *time);
        }
        Command::DeploymentPromote {
            deployment_id,
            groups,
            eval,
            time,
        } => {
            s.promote_deployment(index, deployment_id, groups, *time)?;
            register_and_eval(s, index, None, eval.as_ref(), *time);
        }
        Command::DeploymentAllocHealth {
            deployment_id,
            healthy,
            unhealthy,
            update,
            job,
            eval,
            time,
        } => {
            let Some(d) = s.deployment_by_id(deployment_id) else {
                return Err(format!("deployment {deployment_id} not found"));
            };
            s.set_alloc_health(index, healthy, unhealthy, *time);
            s.recount_deployments(index, &(d.namespace.clone(), d.job_id.clone()), *time);
            if let Some(u) = update {
                apply_status_update(s, index, u, *time);
            }
            register_and_eval(s, index, job.as_ref(), eval.as_ref(), *time);
        }
        Command::Reap(r) => {
            s.reap(index, r);
            s.delete_services_where(index, |reg| r.allocs.contains(&reg.alloc_id));
        }
        Command::ServiceRegistrationUpsert { services } => s.upsert_services(index, services),
        Command::ServiceRegistrationDelete { namespace, id } => {
            if !s.delete_service(index, namespace, id) {
                return Err("service registration not found".to_string());
            }
        }
        Command::ServiceRegistrationDeleteByAlloc { alloc_ids } => {
            s.delete_services_where(index, |r| alloc_ids.contains(&r.alloc_id));
        }
        Command::ReconcileSummaries => {
            for job in s.jobs(None) {
                s.refresh_job(index, &(job.namespace.clone(), job.id.clone()));
            }
        }
        Command::NodeUpdateDrain {
            updates,
            evals,
            time,
        } => {
            for u in updates {
                if !s.update_node_drain(index, u, *time) && updates.len() == 1 {
                    return Err(format!("node {} not found", u.node_id));
                }
            }
            upsert_evals(s, index, evals);
        }
        Command::NodeUpdateEligibility {
            node_id,
            eligibility,
            event,
            evals,
            time,
        } => {
            if !s.update_node_eligibility(index, node_id, eligibility, event.as_ref(), *time) {
                return Err(format!("node {node_id} not found"));
            }
            upsert_evals(s, index, evals);
        }
        Command::AllocUpdateDesiredTransition {
            transitions,
            evals,
            time,
        } => {
            s.update_desired_transitions(index, transitions, *time);
            upsert_evals(s, index, evals);
        }
        Command::ScalingEvent {
            namespace,
            job_id,
            group,
            event,
        } => s.add_scaling_event(index, namespace, job_id, group, event.clone()),
        Command::SchedulerSetConfig { config, cas } => {
            s.set_scheduler_config(index, config, *cas)?;
        }
        Command::JobVersionTag {
            namespace,
            job_id,
            name,
            target,
            tag,
        } => match tag {
            Some(tag) => s.tag_job_version(index, namespace, job_id, *target, tag)?,
            None => s.untag_job_version(index, namespace, job_id, name)?,
        },
    }
    Ok(())
}

fn upsert_evals(s: &mut StateSnapshot, index: u64, evals: &[Evaluation]) {
    for e in evals {
        s.upsert_eval(index, e.clone());
    }
    for k in StateSnapshot::keys_of(&[], evals) {
        s.refresh_job(index, &k);
    }
}

/// Apply a deployment status change; a successful deployment marks its job version stable.
fn apply_status_update(
    s: &mut StateSnapshot,
    index: u64,
    u: &DeploymentStatusUpdate,
    time: i64,
) -> bool {
    if !s.update_deployment_status(index, u, time) {
        return false;
    }
    if u.status == DEPLOYMENT_STATUS_SUCCESSFUL {
        if let Some(d) = s.deployment_by_id(&u.deployment_id) {
            s.set_job_stable(index, &d.namespace, &d.job_id, d.job_version);
        }
    }
    true
}

/// The job (a revert) and eval some deployment commands carry.
fn register_and_eval(
    s: &mut StateSnapshot,
    index: u64,
    job: Option<&Job>,
    eval: Option<&Evaluation>,
    time: i64,
) {
    if let Some(job) = job {
        s.upsert_job(index, job.clone(), time);
        s.refresh_job(index, &(job.namespace.clone(), job.id.clone()));
    }
    if let Some(e) = eval {
        s.upsert_eval(index, e.clone());
        s.refresh_job(index, &(e.namespace.clone(), e.job_id.clone()));
    }
}
