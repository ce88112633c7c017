//! Job.Register and Job.Deregister.

use crate::api::*;
use crate::jobspec;
use crate::server::fsm::Command;
use crate::server::{Server, ServerError};

use crate::jobspec::{format_multierror, format_warnings};

/// Task drivers Nomad ships or that are commonly installed as plugins. A job may also use any
/// driver a registered node reports; anything else is a typo, caught at registration.
pub const KNOWN_DRIVERS: &[&str] = &[
    "docker",
    "exec",
    "exec2",
    "raw_exec",
    "java",
    "qemu",
    "podman",
    "containerd-driver",
    "mock_driver",
];

/// What Job.Register and Job.Validate check: Nomad's server-side defaults and validation, plus
/// a driver name no node reports and Nomad does not know. Returns the canonical job and its
/// warnings, or every problem found.
pub fn check(server: &Server, mut job: Job) -> Result<(Job, Vec<String>), Vec<String>> {
    jobspec::canonicalize(&mut job);
    let mut errors = Vec::new();
    let warnings = match jobspec::validate(&job) {
        Ok(w) => w,
        Err(e) => {
            errors.extend(e.errors);
            Vec::new()
        }
    };
    if let Err(e) = crate::api::cron::PeriodicSpec::from_job(&job) {
        errors.push(e.to_string());
    }
    let snap = server.state().snapshot();
    // Listed only for a driver Nomad doesn't ship: a large cluster's nodes are not walked
    // for every job registered.
    let mut nodes = None;
    for tg in &job.task_groups {
        for task in &tg.tasks {
            let d = task.driver.as_str();
            if d.is_empty() || KNOWN_DRIVERS.contains(&d) {
                continue;
            }
            let nodes = nodes.get_or_insert_with(|| snap.nodes_list());
            if nodes.iter().any(|n| n.drivers.contains_key(d)) {
                continue;
            }
            errors.push(format!(
                "Task \"{}\" in group \"{}\" uses unknown driver \"{d}\": no node reports it and it is not a Nomad driver",
                task.name, tg.name
            ));
        }
    }
    if errors.is_empty() {
        Ok((job, warnings))
    } else {
        Err(errors)
    }
}

/// Nomad's check of an eval priority override (0: none).
pub fn check_eval_priority(priority: i32) -> Result<(), ServerError> {
    if priority == 0 || (1..=jobspec::JOB_MAX_PRIORITY).contains(&priority) {
        Ok(())
    } else {
        Err(ServerError::BadRequest(
            "Eval priority must be between 1 and 100 inclusively".to_string(),
        ))
    }
}

/// Register (create or update) a job and create the eval that schedules it.
pub async fn register(
    server: &Server,
    req: JobRegisterRequest,
) -> Result<JobRegisterResponse, ServerError> {
    super::operator::check_registration_allowed(server)?;
    let Some(job) = req.job else {
        return Err(ServerError::BadRequest(
            "missing job for registration".to_string(),
        ));
    };
    check_eval_priority(req.eval_priority)?;
    let (mut job, warnings) =
        check(server, job).map_err(|errors| ServerError::BadRequest(format_multierror(&errors)))?;

    let snap = server.state().snapshot();
    let existing = snap.job_by_id(&job.namespace, &job.id);
    if req.preserve_counts {
        // Groups the running job has keep their count; new groups take the file's.
        if let Some(old) = &existing {
            for tg in &mut job.task_groups {
                if let Some(prev) = old.lookup_task_group(&tg.name) {
                    tg.count = prev.count;
                }
            }
        }
    }
    if req.enforce_index {
        let current = existing.as_ref().map(|j| j.job_modify_index).unwrap_or(0);
        if current != req.job_modify_index {
            return Err(ServerError::Conflict(if req.job_modify_index == 0 {
                format!(
                    "Enforcing job modify index 0: job \"{}\" already exists",
                    job.id
                )
            } else if existing.is_none() {
                format!(
                    "Enforcing job modify index {}: job does not exist",
                    req.job_modify_index
                )
            } else {
                format!(
                    "Enforcing job modify index {}: job exists with conflicting job modify index: {current}",
                    req.job_modify_index
                )
            }));
        }
    }

    let now = now_nanos();
    // Periodic and parameterized jobs are templates: they get no eval of their own.
    let eval = (!job.is_template()).then(|| Evaluation {
        id: generate_id(),
        namespace: job.namespace.clone(),
        priority: if req.eval_priority > 0 {
            req.eval_priority
        } else {
            job.priority
        },
        r#type: job.r#type.clone(),
        triggered_by: TRIGGER_JOB_REGISTER.to_string(),
        job_id: job.id.clone(),
        status: EVAL_STATUS_PENDING.to_string(),
        create_time: now,
        modify_time: now,
        ..Default::default()
    });

    let changed = existing
        .as_deref()
        .is_none_or(|old| spec_changed(old, &job));
    let resp = if changed {
        server
            .propose(Command::JobRegister {
                job,
                eval: eval.clone(),
                submit_time: now,
            })
            .await?
    } else if let Some(e) = &eval {
        // Nothing to version: re-evaluate the job as it is (Nomad does the same).
        server
            .propose(Command::EvalUpsert {
                evals: vec![e.clone()],
            })
            .await?
    } else {
        return Ok(JobRegisterResponse {
            job_modify_index: existing.map(|j| j.job_modify_index).unwrap_or(0),
            warnings: format_warnings(&warnings),
            ..Default::default()
        });
    };
    let job_modify_index = if changed {
        resp.index
    } else {
        existing.map(|j| j.job_modify_index).unwrap_or(resp.index)
    };
    Ok(JobRegisterResponse {
        eval_create_index: if eval.is_some() { resp.index } else { 0 },
        eval_id: eval.map(|e| e.id).unwrap_or_default(),
        index: resp.index,
        job_modify_index,
        known_leader: false,
        last_contact: 0,
        next_token: String::new(),
        warnings: format_warnings(&warnings),
    })
}

/// How a job is stopped (`nomad job stop` flags).
#[derive(Debug, Clone, Copy, Default)]
pub struct DeregisterOptions {
    /// Remove the job from state instead of marking it stopped.
    pub purge: bool,
    /// Priority of the stop's eval (0: the job's).
    pub eval_priority: i32,
    /// Stop the allocs without waiting out their groups' shutdown_delay.
    pub no_shutdown_delay: bool,
}

/// Stop a job (or purge it) and create the eval that stops its allocs.
pub async fn deregister(
    server: &Server,
    namespace: &str,
    job_id: &str,
    opts: DeregisterOptions,
) -> Result<JobDeregisterResponse, ServerError> {
    check_eval_priority(opts.eval_priority)?;
    let snap = server.state().snapshot();
    let Some(job) = snap.job_by_id(namespace, job_id) else {
        return Err(ServerError::NotFound("job not found".to_string()));
    };
    let now = now_nanos();
    if opts.no_shutdown_delay {
        // The job's allocs skip their shutdown_delay when the client stops them.
        let transitions: std::collections::BTreeMap<_, _> = snap
            .allocs_for_job(namespace, job_id)
            .iter()
            .filter(|a| !a.terminal())
            .map(|a| {
                let t = DesiredTransition {
                    no_shutdown_delay: Some(true),
                    ..Default::default()
                };
                (a.id.clone(), t)
            })
            .collect();
        if !transitions.is_empty() {
            server
                .propose(Command::AllocUpdateDesiredTransition {
                    transitions,
                    evals: Vec::new(),
                    time: now,
                })
                .await?;
        }
    }
    let purge = opts.purge;
    let eval = (!job.is_template()).then(|| Evaluation {
        id: generate_id(),
        namespace: namespace.to_string(),
        priority: if opts.eval_priority > 0 {
            opts.eval_priority
        } else {
            job.priority
        },
        r#type: job.r#type.clone(),
        triggered_by: TRIGGER_JOB_DEREGISTER.to_string(),
        job_id: job_id.to_string(),
        status: EVAL_STATUS_PENDING.to_string(),
        create_time: now,
        modify_time: now,
        ..Default::default()
    });
    let resp = server
        .propose(Command::JobDeregister {
            namespace: namespace.to_string(),
            job_id: job_id.to_string(),
            purge,
            eval: eval.clone(),
            time: now,
        })
        .await?;
    // A blocked eval of a stopped job has nothing left to place.
    if let Some(mut blocked) = server.blocked(|b| b.untrack(namespace, job_id)) {
        blocked.status = EVAL_STATUS_CANCELED.to_string();
        blocked.status_description = "job deregistered".to_string();
        blocked.modify_time = now;
        server
            .propose(Command::EvalUpsert {
                evals: vec![blocked],
            })
            .await?;
    }
    Ok(JobDeregisterResponse {
        eval_create_index: if eval.is_some() { resp.index } else { 0 },
        eval_id: eval.map(|e| e.id).unwrap_or_default(),
        index: resp.index,
        job_modify_index: resp.index,
        ..Default::default()
    })
}

/// Whether `new` differs from `old` in anything the user wrote (Nomad's Job.SpecChanged):
/// server-maintained fields are ignored.
pub fn spec_changed(old: &Job, new: &Job) -> bool {
    let strip = |j: &Job| Job {
        create_index: 0,
        modify_index: 0,
        job_modify_index: 0,
        version: 0,
        status: String::new(),
        status_description: String::new(),
        stable: false,
        submit_time: 0,
        ..j.clone()
    };
    strip(old) != strip(new)
}
