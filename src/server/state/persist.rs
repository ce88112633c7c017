//! Serialising the whole state for raft snapshots, and restoring it.

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::{key, ScalingEvents, StateSnapshot, Table};
use crate::api::{Allocation, Deployment, Evaluation, Job, JobSummary, Node, ServiceRegistration};

#[derive(Debug, thiserror::Error)]
pub enum PersistError {
    #[error("state snapshot is not valid: {0}")]
    Decode(#[from] serde_json::Error),
}

/// The on-disk form: plain lists. Alloc jobs are stored once per version (in `job_versions`)
/// and re-attached on restore, so a snapshot does not repeat a job for each of its allocs.
#[derive(Serialize, Deserialize)]
struct Persisted {
    index: u64,
    table_index: Vec<(Table, u64)>,
    jobs: Vec<Job>,
    job_versions: Vec<Job>,
    job_summaries: Vec<JobSummary>,
    nodes: Vec<Node>,
    allocs: Vec<Allocation>,
    evals: Vec<Evaluation>,
    /// Absent in snapshots written before deployments existed.
    #[serde(default)]
    deployments: Vec<Deployment>,
    /// Nomad-native service registrations (absent in older snapshots).
    #[serde(default)]
    services: Vec<ServiceRegistration>,
    /// Absent in snapshots written before scaling events existed.
    #[serde(default)]
    scaling_events: Vec<(String, String, ScalingEvents)>,
    /// (namespace, job, last launch); absent in older snapshots.
    #[serde(default)]
    periodic_launches: Vec<(String, String, i64)>,
    /// Absent in snapshots written before the operator configuration existed.
    #[serde(default)]
    scheduler_config: Option<crate::api::SchedulerConfiguration>,
}

impl StateSnapshot {
    pub fn to_bytes(&self) -> Vec<u8> {
        let p = Persisted {
            index: self.index,
            table_index: self.table_index.iter().map(|(t, i)| (*t, *i)).collect(),
            jobs: self.jobs.values().map(|j| (**j).clone()).collect(),
            job_versions: self.job_versions.values().map(|j| (**j).clone()).collect(),
            job_summaries: self.job_summaries.values().map(|s| (**s).clone()).collect(),
            nodes: self.nodes.values().map(|n| (**n).clone()).collect(),
            allocs: self
                .allocs
                .values()
                .map(|a| {
                    let mut a = (**a).clone();
                    // Keep only a reference when the version table has this job.
                    if let Some(j) = &a.job {
                        if self.job_versions.contains_key(&(
                            j.namespace.clone(),
                            j.id.clone(),
                            j.version,
                        )) {
                            a.job = Some(Arc::new(Job {
                                namespace: j.namespace.clone(),
                                id: j.id.clone(),
                                version: j.version,
                                ..Default::default()
                            }));
                        }
                    }
                    a
                })
                .collect(),
            evals: self.evals.values().map(|e| (**e).clone()).collect(),
            deployments: self.deployments.values().map(|d| (**d).clone()).collect(),
            services: self.services.values().map(|r| (**r).clone()).collect(),
            scaling_events: self
                .scaling_events
                .iter()
                .map(|((ns, id), e)| (ns.clone(), id.clone(), (**e).clone()))
                .collect(),
            periodic_launches: self
                .periodic_launches
                .iter()
                .map(|((ns, id), at)| (ns.clone(), id.clone(), *at))
                .collect(),
            scheduler_config: self.scheduler_config.as_deref().cloned(),
        };
        // Serialising plain data structures cannot fail.
        serde_json::to_vec(&p).unwrap_or_default()
    }

    pub fn from_bytes(data: &[u8]) -> Result<StateSnapshot, PersistError> {
        let p: Persisted = serde_json::from_slice(data)?;
        let mut s = StateSnapshot {
            index: p.index,
            scheduler_config: p.scheduler_config.map(Arc::new),
            ..Default::default()
        };
        for (t, i) in p.table_index {
            s.table_index.insert(t, i);
        }
        for j in p.job_versions {
            s.job_versions
                .insert((j.namespace.clone(), j.id.clone(), j.version), Arc::new(j));
        }
        for j in p.jobs {
            let k = key(&j.namespace, &j.id);
            let shared = s
                .job_versions
                .get(&(k.0.clone(), k.1.clone(), j.version))
                .cloned();
            s.jobs.insert(
                k,
                shared.filter(|v| **v == j).unwrap_or_else(|| Arc::new(j)),
            );
        }
        for sum in p.job_summaries {
            s.job_summaries
                .insert(key(&sum.namespace, &sum.job_id), Arc::new(sum));
        }
        for n in p.nodes {
            s.nodes.insert(n.id.clone(), Arc::new(n));
        }
        for mut a in p.allocs {
            if let Some(j) = &a.job {
                if let Some(full) =
                    s.job_versions
                        .get(&(j.namespace.clone(), j.id.clone(), j.version))
                {
                    a.job = Some(full.clone());
                }
            }
            s.put_alloc(Arc::new(a));
        }
        for e in p.evals {
            s.evals_by_job
                .entry(key(&e.namespace, &e.job_id))
                .or_default()
                .insert(e.id.clone());
            s.evals.insert(e.id.clone(), Arc::new(e));
        }
        for d in p.deployments {
            s.deployments_by_job
                .entry(key(&d.namespace, &d.job_id))
                .or_default()
                .insert(d.id.clone());
            s.deployments.insert(d.id.clone(), Arc::new(d));
        }
        for r in p.services {
            s.services.insert(r.id.clone(), Arc::new(r));
        }
        for (ns, id, events) in p.scaling_events {
            s.scaling_events.insert(key(&ns, &id), Arc::new(events));
        }
        for (ns, id, at) in p.periodic_launches {
            s.periodic_launches.insert(key(&ns, &id), at);
        }
        Ok(s)
    }
}
