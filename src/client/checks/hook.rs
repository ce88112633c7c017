//! The per-alloc checks hook: started by the alloc runner once the alloc runs, it runs each
//! Nomad-provider check every `interval` (the first after half of one, as Nomad does), keeps
//! the latest result per check for `/v1/client/allocation/<id>/checks`, and restarts a task
//! whose check stays unhealthy past its `check_restart`. Stopped (and its results purged)
//! when the alloc stops.

use std::collections::BTreeMap;
use std::sync::{Arc, RwLock};

use tokio::task::JoinSet;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::checker::Checker;
use super::restart::{restart_reason, Restarter};
use super::spec::{targets_of_service, CheckTarget};
use crate::api::{AllocCheckResults, Allocation, CheckQueryResult, Node, Task, CHECK_PENDING};
use crate::client::alloc_dir::AllocDir;
use crate::client::control::{restart_signaled, TaskControl};
use crate::client::services::nomad_services;
use crate::client::taskenv::{EnvInputs, TaskEnv};

/// Check ID -> latest result, shared with the client's endpoints.
pub type SharedResults = Arc<RwLock<AllocCheckResults>>;

/// The alloc's tasks by name, as the alloc runner fills them.
pub type Tasks = Arc<RwLock<BTreeMap<String, TaskControl>>>;

pub struct ChecksHookParams<'a> {
    pub alloc: &'a Allocation,
    pub node: &'a Node,
    pub region: &'a str,
    pub alloc_dir: &'a AllocDir,
    pub tasks: Tasks,
    pub results: SharedResults,
}

/// The running hook; `stop` then `join` it.
pub struct ChecksHook {
    cancel: CancellationToken,
    observers: JoinSet<()>,
    results: SharedResults,
}

/// Every check of the alloc's Nomad-provider services (group ones interpolated with the
/// first task's environment, as the service registrations are).
pub fn targets(alloc: &Allocation, node: &Node, region: &str, dir: &AllocDir) -> Vec<CheckTarget> {
    let Some(group) = alloc
        .job
        .as_deref()
        .and_then(|j| j.lookup_task_group(&alloc.task_group))
    else {
        return Vec::new();
    };
    let env_for = |task: &Task| {
        TaskEnv::build(EnvInputs {
            alloc,
            task,
            node,
            region,
            alloc_dir: dir,
            host_env: None,
        })
    };
    let mut out = Vec::new();
    if let Some(first) = group.tasks.first() {
        let env = env_for(first);
        for svc in nomad_services(&group.services) {
            out.extend(targets_of_service(alloc, node, &env, svc));
        }
    }
    for task in &group.tasks {
        let env = env_for(task);
        for svc in nomad_services(&task.services) {
            out.extend(targets_of_service(alloc, node, &env, svc));
        }
    }
    out
}

fn store(results: &SharedResults, r: CheckQueryResult) {
    results
        .write()
        .unwrap_or_else(|e| e.into_inner())
        .insert(r.id.clone(), r);
}

impl ChecksHook {
    /// Seeds every check with Nomad's pending stub and starts one observer per check.
    pub fn spawn(p: ChecksHookParams<'_>) -> ChecksHook {
        let cancel = CancellationToken::new();
        let mut observers = JoinSet::new();
        let checker = Checker::default();
        let now = chrono::Utc::now().timestamp();
        for t in targets(p.alloc, p.node, p.region, p.alloc_dir) {
            store(
                &p.results,
                CheckQueryResult {
                    id: t.id.clone(),
                    mode: t.mode().to_string(),
                    status: CHECK_PENDING.to_string(),
                    output: "nomad: waiting to run".to_string(),
                    timestamp: now,
                    group: t.group.clone(),
                    task: t.task.clone(),
                    service: t.service.clone(),
                    check: t.spec.name.clone(),
                    status_code: 0,
                },
            );
            observers.spawn(observe(
                t,
                checker.clone(),
                p.results.clone(),
                p.tasks.clone(),
                cancel.clone(),
            ));
        }
        ChecksHook {
            cancel,
            observers,
            results: p.results,
        }
    }

    /// Stops every observer and drops the alloc's results (Nomad purges them at kill).
    pub fn stop(&self) {
        self.cancel.cancel();
        self.results
            .write()
            .unwrap_or_else(|e| e.into_inner())
            .clear();
    }

    pub async fn join(mut self) {
        self.cancel.cancel();
        while self.observers.join_next().await.is_some() {}
    }
}

/// Runs one check until cancelled.
async fn observe(
    t: CheckTarget,
    checker: Checker,
    results: SharedResults,
    tasks: Tasks,
    cancel: CancellationToken,
) {
    let mut restarter = t
        .spec
        .check_restart
        .as_ref()
        .filter(|_| !t.spec.task_name.is_empty())
        .map(|cfg| Restarter::new(cfg, t.spec.interval, Instant::now()));
    let mut seen_restarts: Option<u64> = None;
    let mut next = Instant::now() + t.spec.interval / 2;
    loop {
        tokio::select! {
            _ = cancel.cancelled() => return,
            _ = tokio::time::sleep_until(next) => {}
        }
        let r = tokio::select! {
            _ = cancel.cancelled() => return,
            r = checker.run(&t) => r,
        };
        let status = r.status.clone();
        if cancel.is_cancelled() {
            return;
        }
        store(&results, r);
        next = Instant::now() + t.spec.interval;
        let Some(restarter) = restarter.as_mut() else {
            continue;
        };
        let task = tasks
            .read()
            .unwrap_or_else(|e| e.into_inner())
            .get(&t.spec.task_name)
            .cloned();
        let Some(task) = task.filter(TaskControl::is_running) else {
            continue;
        };
        let now = Instant::now();
        let restarts = task.state().restarts;
        if seen_restarts.is_some_and(|n| n != restarts) {
            restarter.reset(now);
        }
        seen_restarts = Some(restarts);
        if restarter.apply(now, &status) {
            tracing::info!(check = %t.spec.name, task = %t.spec.task_name, "restarting task: check unhealthy");
            (task.note)(restart_signaled(&restart_reason(&t.spec.name)));
            (task.restart)();
        }
    }
}
