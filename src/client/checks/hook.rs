//! The per-alloc checks hook: started by the alloc runner once the alloc runs, it runs each
//! Nomad-provider check every `interval` (the first after half of one, as Nomad does; script
//! checks inside their task, while it runs), keeps the latest result per check for
//! `/v1/client/allocation/<id>/checks`, and restarts a task whose check stays unhealthy past
//! its `check_restart`. Stopped (and its results purged) when the alloc stops.

use std::collections::BTreeMap;
use std::sync::{Arc, RwLock};

use tokio::task::JoinSet;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use super::checker::{Checker, ScriptTask};
use super::restart::{restart_reason, Restarter};
use super::spec::{targets_of_service, CheckKind, CheckTarget};
use crate::api::{AllocCheckResults, Allocation, CheckQueryResult, Node, CHECK_PENDING};
use crate::client::alloc_dir::AllocDir;
use crate::client::control::{restart_signaled, TaskControl};
use crate::client::services::visit_nomad_services;

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
    /// Check ID -> its observer's token, so an update stops only the checks it removed.
    running: BTreeMap<String, CancellationToken>,
    checker: Checker,
    tasks: Tasks,
    results: SharedResults,
}

/// Every check of the alloc's Nomad-provider services (group ones interpolated with the
/// first task's environment, as the service registrations are).
pub fn targets(alloc: &Allocation, node: &Node, region: &str, dir: &AllocDir) -> Vec<CheckTarget> {
    let mut out = Vec::new();
    visit_nomad_services(alloc, node, region, dir, |env, _owner, svc| {
        out.extend(targets_of_service(alloc, node, env, svc));
    });
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
        let mut hook = ChecksHook {
            cancel: CancellationToken::new(),
            observers: JoinSet::new(),
            running: BTreeMap::new(),
            checker: Checker::default(),
            tasks: p.tasks.clone(),
            results: p.results.clone(),
        };
        hook.observe(targets(p.alloc, p.node, p.region, p.alloc_dir));
        hook
    }

    /// The alloc's job changed: start checks that are new (by ID), stop and forget the ones
    /// it no longer has; unchanged checks keep running with their results.
    pub fn update(&mut self, alloc: &Allocation, node: &Node, region: &str, dir: &AllocDir) {
        if self.cancel.is_cancelled() {
            return;
        }
        self.observe(targets(alloc, node, region, dir));
    }

    fn observe(&mut self, targets: Vec<CheckTarget>) {
        while self.observers.try_join_next().is_some() {}
        let wanted: std::collections::BTreeSet<String> =
            targets.iter().map(|t| t.id.clone()).collect();
        let gone: Vec<String> = self
            .running
            .keys()
            .filter(|id| !wanted.contains(*id))
            .cloned()
            .collect();
        for id in gone {
            if let Some(token) = self.running.remove(&id) {
                token.cancel();
            }
            self.results
                .write()
                .unwrap_or_else(|e| e.into_inner())
                .remove(&id);
        }
        let now = chrono::Utc::now().timestamp();
        for t in targets {
            if self.running.contains_key(&t.id) {
                continue;
            }
            store(
                &self.results,
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
            let token = self.cancel.child_token();
            self.running.insert(t.id.clone(), token.clone());
            self.observers.spawn(observe(
                t,
                self.checker.clone(),
                self.results.clone(),
                self.tasks.clone(),
                token,
            ));
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

/// The driver and live handle of `task` while it runs: where its script checks run.
fn script_task(tasks: &Tasks, task: &str) -> Option<ScriptTask> {
    let control = tasks
        .read()
        .unwrap_or_else(|e| e.into_inner())
        .get(task)
        .cloned()?;
    if !control.is_running() {
        return None;
    }
    let (driver, handle) = control.running()?;
    Some(ScriptTask { driver, handle })
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
        let script_task = match t.spec.check_kind() {
            CheckKind::Script => script_task(&tasks, &t.spec.task_name),
            CheckKind::Http | CheckKind::Tcp => None,
        };
        let run = tokio::select! {
            _ = cancel.cancelled() => return,
            r = checker.run_check(&t, script_task) => r,
        };
        let status = run.health.restart_status();
        if cancel.is_cancelled() {
            return;
        }
        store(&results, run.result);
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
        if restarter.apply(now, status) {
            tracing::info!(check = %t.spec.name, task = %t.spec.task_name, "restarting task: check unhealthy");
            (task.note)(restart_signaled(&restart_reason(&t.spec.name)));
            (task.restart)();
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::time::Duration;

    use serde_json::json;

    use super::*;
    use crate::api::Task;
    use crate::api::{Job, TaskGroup};

    /// An alloc whose group service has one tcp check named `check` on `port`.
    fn alloc(check: &str, port: u16) -> Allocation {
        let services = json!([{
            "Name": "svc", "Provider": "nomad", "PortLabel": port.to_string(),
            "Address": "127.0.0.1",
            "Checks": [{"Name": check, "Type": "tcp", "Interval": 200_000_000_i64,
                        "Timeout": 1_000_000_000_i64}],
        }]);
        let job = Job {
            id: "j".into(),
            name: "j".into(),
            task_groups: vec![TaskGroup {
                name: "g".into(),
                services: Some(services),
                tasks: vec![Task {
                    name: "t".into(),
                    ..Default::default()
                }],
                ..Default::default()
            }],
            ..Default::default()
        };
        Allocation {
            id: "a1".into(),
            name: "j.g[0]".into(),
            task_group: "g".into(),
            job: Some(Arc::new(job)),
            ..Default::default()
        }
    }

    async fn wait_for(results: &SharedResults, what: &str, f: impl Fn(&AllocCheckResults) -> bool) {
        tokio::time::timeout(Duration::from_secs(10), async {
            while !f(&results.read().unwrap_or_else(|e| e.into_inner())) {
                tokio::time::sleep(Duration::from_millis(20)).await;
            }
        })
        .await
        .unwrap_or_else(|_| panic!("timed out waiting for {what}"));
    }

    #[tokio::test]
    async fn runs_checks_replaces_changed_ones_and_purges_at_stop() {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let port = listener.local_addr().unwrap().port();
        let tmp = tempfile::tempdir().unwrap();
        let dir = AllocDir::new(tmp.path().to_path_buf());
        let node = Node::default();
        let results = SharedResults::default();
        let first = alloc("first", port);
        let mut hook = ChecksHook::spawn(ChecksHookParams {
            alloc: &first,
            node: &node,
            region: "global",
            alloc_dir: &dir,
            tasks: Tasks::default(),
            results: results.clone(),
        });
        {
            let r = results.read().unwrap();
            let stub = r.values().next().expect("a pending stub");
            assert_eq!(
                (stub.status.as_str(), stub.output.as_str()),
                ("pending", "nomad: waiting to run")
            );
            assert_eq!(
                (stub.group.as_str(), stub.service.as_str()),
                ("j.g[0]", "svc")
            );
        }
        wait_for(&results, "first check passes", |r| {
            r.values()
                .any(|c| c.check == "first" && c.status == "success")
        })
        .await;

        hook.update(&alloc("second", port), &node, "global", &dir);
        wait_for(&results, "second check replaces first", |r| {
            r.len() == 1
                && r.values()
                    .all(|c| c.check == "second" && c.status == "success")
        })
        .await;

        hook.stop();
        assert!(results.read().unwrap().is_empty());
        hook.join().await;
    }
}
