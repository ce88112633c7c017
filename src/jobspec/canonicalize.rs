//! Nomad's server-side defaults for a submitted job: what `api.Job.Canonicalize`, the
//! api-to-structs conversion and `structs.Job.Canonicalize` (plus the register endpoint's
//! canonicalizer and node-pool hooks) do before a job is validated and stored.
//! Idempotent: canonicalizing a canonical job changes nothing.

use crate::api::{
    Job, NetworkResource, TaskGroup, UpdateStrategy, DEFAULT_NAMESPACE, DEFAULT_NODE_POOL,
    DEFAULT_REGION, JOB_DEFAULT_PRIORITY, JOB_TYPE_BATCH, JOB_TYPE_SERVICE, JOB_TYPE_SYSTEM,
    SECOND,
};

use super::canonicalize_blocks;
use super::policies::{
    default_ephemeral_disk, default_log_config, default_migrate, default_reschedule,
    default_resources, default_restart, default_update,
};
use super::services;

/// Nomad's default `kill_timeout`.
pub const DEFAULT_KILL_TIMEOUT: i64 = 5 * SECOND;

/// Fills in every default Nomad's server applies to a submitted job.
pub fn canonicalize(job: &mut Job) {
    if job.namespace.is_empty() {
        job.namespace = DEFAULT_NAMESPACE.to_string();
    }
    if job.region.is_empty() {
        job.region = DEFAULT_REGION.to_string();
    }
    if job.name.is_empty() {
        job.name = job.id.clone();
    }
    if job.priority == 0 {
        job.priority = JOB_DEFAULT_PRIORITY;
    }
    if job.r#type.is_empty() {
        job.r#type = JOB_TYPE_SERVICE.to_string();
    }
    if job.node_pool.is_empty() {
        job.node_pool = DEFAULT_NODE_POOL.to_string();
    }
    if job.datacenters.as_ref().is_none_or(|d| d.is_empty()) {
        job.datacenters = Some(vec!["*".to_string()]);
    }
    empty_to_none(&mut job.meta);
    empty_vec_to_none(&mut job.constraints);

    // Service and system jobs get the default update strategy, which their groups inherit.
    let job_type = job.r#type.clone();
    let job_update = match &job.update {
        Some(u) => Some(u.clone()),
        None if job_type == JOB_TYPE_SERVICE || job_type == JOB_TYPE_SYSTEM => {
            Some(default_update())
        }
        None => None,
    };
    let service_job = services::service_context(job);
    let (namespace, job_id) = (job.namespace.clone(), job.id.clone());
    let group = |tg: &mut TaskGroup| {
        canonicalize_group(tg, &job_type, job_update.as_ref());
        services::canonicalize_group_services(tg, &service_job);
        canonicalize_blocks::canonicalize_group_blocks(tg);
        set_scaling_target(tg, &namespace, &job_id);
    };
    each_group(&mut job.task_groups, group);
    canonicalize_blocks::canonicalize_job_blocks(job);
    // The update strategy now lives in the groups; the job keeps only stagger and
    // max_parallel (and is all zero when updates are off), as ApiJobToStructJob does.
    job.update = Some(match job_update {
        Some(u) if u.max_parallel > 0 => UpdateStrategy {
            stagger: u.stagger,
            max_parallel: u.max_parallel,
            ..UpdateStrategy::default()
        },
        _ => UpdateStrategy::default(),
    });
}

/// Runs `f` on every group; a group's defaults depend only on it and the job-level values
/// `f` captured, so a large job's second half is done on another thread.
fn each_group(groups: &mut [TaskGroup], f: impl Fn(&mut TaskGroup) + Sync) {
    if groups.len() < super::parallel::MIN_PARALLEL_GROUPS {
        groups.iter_mut().for_each(&f);
        return;
    }
    let mid = groups.len() / 2;
    let (first, second) = groups.split_at_mut(mid);
    std::thread::scope(|scope| {
        let handle = scope.spawn(|| second.iter_mut().for_each(&f));
        first.iter_mut().for_each(&f);
        if let Err(panic) = handle.join() {
            std::panic::resume_unwind(panic);
        }
    });
}

/// structs.ScalingPolicy.Canonicalize: a group's scaling policy targets that group of this
/// job, so the stored job says which namespace, job and group it scales.
fn set_scaling_target(tg: &mut TaskGroup, namespace: &str, job_id: &str) {
    if let Some(serde_json::Value::Object(policy)) = &mut tg.scaling {
        policy.insert(
            "Target".to_string(),
            serde_json::json!({
                "Namespace": namespace,
                "Job": job_id,
                "Group": tg.name,
            }),
        );
    }
}

fn update_is_empty(u: &UpdateStrategy) -> bool {
    *u == UpdateStrategy::default()
}

fn canonicalize_group(tg: &mut TaskGroup, job_type: &str, job_update: Option<&UpdateStrategy>) {
    empty_to_none(&mut tg.meta);
    empty_vec_to_none(&mut tg.constraints);

    if tg.ephemeral_disk.is_none() {
        tg.ephemeral_disk = Some(default_ephemeral_disk());
    }
    if tg.update.is_none() {
        if let Some(u) = job_update.filter(|u| !update_is_empty(u)) {
            tg.update = Some(u.clone());
        }
    }
    if tg.reschedule_policy.is_none()
        && (job_type == JOB_TYPE_SERVICE || job_type == JOB_TYPE_BATCH)
    {
        tg.reschedule_policy = Some(default_reschedule(job_type));
    }
    if tg.migrate.is_none() && job_type == JOB_TYPE_SERVICE {
        tg.migrate = Some(default_migrate());
    }
    if tg.restart_policy.is_none() {
        tg.restart_policy = Some(default_restart(job_type));
    }
    if let Some(nets) = &mut tg.networks {
        nets.iter_mut().for_each(canonicalize_network);
    }
    empty_vec_to_none(&mut tg.networks);

    let group_restart = tg.restart_policy.clone();
    for t in &mut tg.tasks {
        empty_to_none(&mut t.meta);
        empty_to_none(&mut t.env);
        empty_to_none(&mut t.config);
        empty_vec_to_none(&mut t.constraints);
        if t.resources.is_none() {
            t.resources = Some(default_resources());
        }
        if let Some(r) = &mut t.resources {
            if let Some(nets) = &mut r.networks {
                nets.iter_mut().for_each(canonicalize_network);
            }
            empty_vec_to_none(&mut r.networks);
            canonicalize_numa(&mut r.numa);
        }
        if t.kill_timeout.is_none_or(|k| k == 0) {
            t.kill_timeout = Some(DEFAULT_KILL_TIMEOUT);
        }
        match &mut t.log_config {
            None => t.log_config = Some(default_log_config()),
            // Nomad's structs.LogConfig has no `Enabled`: the server keeps `Disabled` only.
            Some(l) => l.enabled = None,
        }
        if t.restart_policy.is_none() {
            t.restart_policy = group_restart.clone();
        }
    }
}

/// NUMA.Canonicalize: an unset affinity is "none", an empty device list none at all.
fn canonicalize_numa(numa: &mut Option<serde_json::Value>) {
    let Some(serde_json::Value::Object(n)) = numa else {
        return;
    };
    if n.get("Affinity")
        .and_then(|a| a.as_str())
        .is_none_or(str::is_empty)
    {
        n.insert("Affinity".to_string(), "none".into());
    }
    if n.get("Devices")
        .and_then(|d| d.as_array())
        .is_none_or(Vec::is_empty)
    {
        n.insert("Devices".to_string(), serde_json::Value::Null);
    }
}

/// Ports without a host network belong to the "default" one.
fn canonicalize_network(n: &mut NetworkResource) {
    for p in n
        .dynamic_ports
        .iter_mut()
        .chain(n.reserved_ports.iter_mut())
    {
        if p.host_network.is_empty() {
            p.host_network = "default".to_string();
        }
    }
}

fn empty_to_none<K, V>(m: &mut Option<std::collections::BTreeMap<K, V>>) {
    if m.as_ref().is_some_and(|m| m.is_empty()) {
        *m = None;
    }
}

fn empty_vec_to_none<T>(v: &mut Option<Vec<T>>) {
    if v.as_ref().is_some_and(|v| v.is_empty()) {
        *v = None;
    }
}
