//! The template watcher: once the task runs, it follows the inputs of the task's templates
//! (service lookups by blocking query, files by polling), re-renders after the `wait`
//! window, and applies each changed template's `change_mode` (restart, signal, script, noop)
//! to the task through [`Lifecycle`].

use std::collections::{BTreeMap, BTreeSet};
use std::sync::{Arc, Mutex};
use std::time::Duration;

use futures::stream::{FuturesUnordered, StreamExt};
use rand::{Rng, SeedableRng};
use tokio_util::sync::CancellationToken;

use super::{
    query, TemplateSet, DEFAULT_WAIT, FILE_POLL, RETRY, SERVICE_WAIT, TASK_HOOK_FAILED,
    TASK_HOOK_MESSAGE,
};
use crate::api::{now_nanos, TaskEvent, TASK_KILLING};
use crate::client::template::brain::Data;
use crate::client::template::Dependency;
use crate::drivers::exec_stream::{ExecOutput, ExecSession};
use crate::drivers::{Driver, DriverError};

/// What the watcher may do to its task (Nomad's `TaskLifecycle` for the template manager).
#[derive(Clone)]
pub struct Lifecycle {
    /// Append an event to the task.
    pub note: Arc<dyn Fn(TaskEvent) + Send + Sync>,
    /// Restart the running task (after the event was noted).
    pub restart: Arc<dyn Fn() + Send + Sync>,
    /// Kill the task with this event as its Killing event (marks it failed).
    pub kill: Arc<dyn Fn(TaskEvent) + Send + Sync>,
    pub driver: Option<Arc<dyn Driver>>,
    pub handle: super::super::SharedHandle,
    /// The env templates' variables, read by every later start of the task.
    pub template_env: Arc<Mutex<BTreeMap<String, String>>>,
}

impl Lifecycle {
    fn running_handle(&self) -> Option<crate::drivers::TaskHandle> {
        self.handle
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .clone()
    }
}

/// A Killing event that fails the task, with `msg` as its display message.
pub fn killing_event(msg: String) -> TaskEvent {
    let mut e = TaskEvent::new(TASK_KILLING, now_nanos());
    e.display_message = msg;
    e.fails_task = true;
    e.details.insert("fails_task".into(), "true".into());
    e
}

fn hook_event(kind: &str, msg: String) -> TaskEvent {
    let mut e = TaskEvent::new(kind, now_nanos());
    e.display_message = msg;
    e
}

/// The watcher: runs until cancelled (the task runner's end).
pub struct Watcher {
    set: TemplateSet,
    life: Lifecycle,
    cancel: CancellationToken,
    rng: rand::rngs::StdRng,
    /// Last seen text of each `source` template file, so one edit is one change.
    sources_seen: BTreeMap<usize, Option<String>>,
}

type QueryResult = (Dependency, u64, Result<(Data, u64), String>);

impl Watcher {
    pub fn new(set: TemplateSet, life: Lifecycle, cancel: CancellationToken, seed: u64) -> Self {
        Watcher {
            set,
            life,
            cancel,
            rng: rand::rngs::StdRng::seed_from_u64(seed),
            sources_seen: BTreeMap::new(),
        }
    }

    /// Templates to keep watching: all but `once` ones.
    fn watched(&self) -> BTreeSet<usize> {
        self.set
            .specs
            .iter()
            .enumerate()
            .filter(|(_, s)| s.t.once != Some(true))
            .map(|(i, _)| i)
            .collect()
    }

    fn deps(&self, watched: &BTreeSet<usize>) -> BTreeSet<Dependency> {
        watched
            .iter()
            .flat_map(|i| self.set.specs[*i].used.iter().cloned())
            .collect()
    }

    /// The quiescence window for re-renders: each template's `wait`, else the client's
    /// default; the largest of the watched templates wins.
    fn wait_window(&self, watched: &BTreeSet<usize>) -> Option<(Duration, Duration)> {
        watched
            .iter()
            .map(|i| match self.set.specs[*i].t.wait.as_ref() {
                Some(w) => {
                    let min = Duration::from_nanos(w.min.unwrap_or(0).max(0) as u64);
                    let max = Duration::from_nanos(w.max.unwrap_or(0).max(0) as u64).max(min);
                    (min, max)
                }
                None => DEFAULT_WAIT,
            })
            .max()
    }

    fn spawn_query(
        &self,
        d: Dependency,
        pending: &mut FuturesUnordered<futures::future::BoxFuture<'static, QueryResult>>,
        delay: Duration,
    ) {
        let lookup = self.set.lookup.clone();
        let ns = self.set.namespace.clone();
        let index = self.set.indexes.get(&d).copied().unwrap_or(0);
        pending.push(Box::pin(async move {
            if !delay.is_zero() {
                tokio::time::sleep(delay).await;
            }
            let r = query(lookup, &ns, &d, index, SERVICE_WAIT).await;
            (d, index, r)
        }));
    }

    pub async fn run(mut self) {
        let watched = self.watched();
        if watched.is_empty() {
            return;
        }
        let mut pending = FuturesUnordered::new();
        let mut queried: BTreeSet<Dependency> = BTreeSet::new();
        let mut poll = tokio::time::interval(FILE_POLL);
        poll.set_missed_tick_behavior(tokio::time::MissedTickBehavior::Delay);
        // When a change was seen: (first change, last change).
        let mut dirty: Option<(tokio::time::Instant, tokio::time::Instant)> = None;
        let window = self.wait_window(&watched);
        loop {
            for d in self.deps(&watched) {
                if !matches!(d, Dependency::File(_)) && queried.insert(d.clone()) {
                    self.spawn_query(d, &mut pending, Duration::ZERO);
                }
            }
            let due = dirty.map(|(first, last)| match window {
                Some((min, max)) => (last + min).min(first + max),
                None => last,
            });
            tokio::select! {
                _ = self.cancel.cancelled() => return,
                Some((d, old_index, r)) = pending.next(), if !pending.is_empty() => {
                    match r {
                        Ok((data, index)) => {
                            let changed = self.set.brain.recall(&d) != Some(&data);
                            self.set.indexes.insert(d.clone(), index);
                            self.set.brain.remember(d.clone(), data);
                            if changed {
                                let now = tokio::time::Instant::now();
                                dirty = Some((dirty.map(|x| x.0).unwrap_or(now), now));
                            }
                            // Index went backwards or did not move: do not spin.
                            let delay = if index <= old_index && old_index != 0 { RETRY } else { Duration::ZERO };
                            if self.deps(&watched).contains(&d) {
                                self.spawn_query(d, &mut pending, delay);
                            } else {
                                queried.remove(&d);
                            }
                        }
                        Err(e) => {
                            tracing::warn!(error = %e, "template service lookup failed; retrying");
                            self.spawn_query(d, &mut pending, RETRY);
                        }
                    }
                }
                _ = poll.tick() => {
                    if self.files_changed(&watched) {
                        let now = tokio::time::Instant::now();
                        dirty = Some((dirty.map(|x| x.0).unwrap_or(now), now));
                    }
                }
                _ = tokio::time::sleep_until(due.unwrap_or_else(tokio::time::Instant::now)), if due.is_some() => {
                    dirty = None;
                    if !self.rerender(&watched).await {
                        return;
                    }
                }
            }
        }
    }

    /// Whether a watched file lookup or source template changed (updating the brain).
    fn files_changed(&mut self, watched: &BTreeSet<usize>) -> bool {
        let mut changed = false;
        for d in self.deps(watched) {
            if let Dependency::File(p) = &d {
                let now = std::fs::read_to_string(p).ok();
                let before = match self.set.brain.recall(&d) {
                    Some(Data::File(c)) => c.clone(),
                    _ => None,
                };
                if now != before {
                    match now {
                        Some(c) => self.set.brain.remember(d.clone(), Data::File(Some(c))),
                        None => self.set.brain.forget(&d),
                    }
                    changed = true;
                }
            }
        }
        for i in watched {
            let s = &self.set.specs[*i];
            if !s.t.embedded_tmpl.as_deref().unwrap_or("").is_empty() {
                continue;
            }
            let Some(p) = &s.source else { continue };
            let now = std::fs::read_to_string(p).ok();
            let before = self
                .sources_seen
                .entry(*i)
                .or_insert_with(|| Some(s.text.clone()));
            if *before != now {
                *before = now;
                changed = true;
            }
        }
        changed
    }

    /// Renders the watched templates and applies change modes; false once the task was
    /// killed because of a template failure.
    async fn rerender(&mut self, watched: &BTreeSet<usize>) -> bool {
        let pass = match self.set.render(Some(watched)) {
            Ok(p) => p,
            Err(e) => {
                (self.life.kill)(killing_event(format!("Template failed: {e}")));
                return false;
            }
        };
        if !pass.missing.is_empty() {
            // New lookups appeared (a branch now taken): fetch them and render again soon.
            let files: BTreeSet<Dependency> = pass
                .missing
                .iter()
                .filter(|d| matches!(d, Dependency::File(_)))
                .cloned()
                .collect();
            if let Err(e) = self.set.fetch(&files).await {
                tracing::warn!(error = %e, "template file lookup failed");
            }
            let others: BTreeSet<Dependency> = pass
                .missing
                .iter()
                .filter(|d| !matches!(d, Dependency::File(_)))
                .cloned()
                .collect();
            if let Err(e) = self.set.fetch(&others).await {
                tracing::warn!(error = %e, "template service lookup failed");
            }
            if pass
                .missing
                .iter()
                .all(|d| self.set.brain.recall(d).is_some())
            {
                return Box::pin(self.rerender(watched)).await;
            }
            return true;
        }
        if pass.changed.is_empty() {
            return true;
        }
        self.on_rendered(&pass.changed).await
    }

    /// Nomad's `onTemplateRendered`: refresh env templates, then restart, or signal and
    /// run scripts, after a random splay.
    async fn on_rendered(&mut self, changed: &[usize]) -> bool {
        match self.set.template_env() {
            Ok(env) => {
                *self
                    .life
                    .template_env
                    .lock()
                    .unwrap_or_else(|e| e.into_inner()) = env
            }
            Err(e) => {
                (self.life.kill)(killing_event(format!(
                    "Template failed to read environment variables: {e}"
                )));
                return false;
            }
        }
        let mut restart = false;
        let mut signals: BTreeSet<String> = BTreeSet::new();
        let mut scripts = Vec::new();
        let mut splay = 0i64;
        for i in changed {
            let s = &self.set.specs[*i];
            match s.change_mode() {
                "restart" => restart = true,
                "signal" => {
                    signals.insert(s.t.change_signal.clone().unwrap_or_default());
                }
                "script" => {
                    if let Some(cs) = &s.t.change_script {
                        scripts.push(cs.clone());
                    }
                }
                _ => continue,
            }
            splay = splay.max(s.t.splay.unwrap_or(0));
        }
        if !restart && signals.is_empty() && scripts.is_empty() {
            return true;
        }
        if splay > 0 {
            let offset = Duration::from_nanos(self.rng.random_range(0..splay as u64));
            tokio::select! {
                _ = self.cancel.cancelled() => return false,
                _ = tokio::time::sleep(offset) => {}
            }
        }
        if restart {
            let mut e = hook_event(
                crate::client::control::TASK_RESTART_SIGNAL,
                "Template with change_mode restart re-rendered".into(),
            );
            e.details.insert("restart_reason".into(), String::new());
            (self.life.note)(e);
            (self.life.restart)();
            return true;
        }
        if !self.signal(&signals).await {
            return false;
        }
        for cs in scripts {
            if !self.script(&cs).await {
                return false;
            }
        }
        true
    }

    async fn signal(&self, signals: &BTreeSet<String>) -> bool {
        let mut failed = Vec::new();
        for sig in signals {
            let (Some(d), Some(h)) = (self.life.driver.clone(), self.life.running_handle()) else {
                (self.life.note)(hook_event(
                    TASK_HOOK_MESSAGE,
                    format!("Template skipped signal {sig}: task is not running"),
                ));
                continue;
            };
            let mut e = hook_event(
                crate::client::control::TASK_SIGNALING,
                "Template re-rendered".into(),
            );
            e.task_signal = sig.clone();
            e.details.insert("signal".into(), sig.clone());
            (self.life.note)(e);
            if let Err(err) = d.signal(&h, sig).await {
                failed.push((sig.clone(), err.to_string()));
            }
        }
        if failed.is_empty() {
            return true;
        }
        let names: Vec<&str> = failed.iter().map(|(s, _)| s.as_str()).collect();
        let errs: Vec<&str> = failed.iter().map(|(_, e)| e.as_str()).collect();
        (self.life.kill)(killing_event(format!(
            "Template failed to send signals [{}]: {}",
            names.join(" "),
            errs.join("; ")
        )));
        false
    }

    /// Runs a change_script inside the task; with fail_on_error a failure kills it.
    async fn script(&self, cs: &crate::api::ChangeScript) -> bool {
        let cmd = cs.command.clone().unwrap_or_default();
        let args = cs.args.clone().unwrap_or_default();
        let timeout = Duration::from_nanos(cs.timeout.unwrap_or(5_000_000_000).max(0) as u64);
        let args_text = format!("[{}]", args.join(" "));
        let result = match (self.life.driver.clone(), self.life.running_handle()) {
            (Some(d), Some(h)) => exec(d, h, &cmd, &args, timeout).await,
            _ => Err((DriverError::Unsupported("exec").to_string(), -1)),
        };
        let failure = match result {
            Ok(0) => {
                (self.life.note)(hook_event(
                    TASK_HOOK_MESSAGE,
                    format!("Template successfully ran script {cmd} with arguments: {args_text}. Exit code: 0"),
                ));
                return true;
            }
            Ok(code) => format!(
                "Template ran script {cmd} with arguments {args_text} on change but it exited with code: {code}"
            ),
            Err((e, code)) => format!(
                "Template failed to run script {cmd} with arguments {args_text} on change: {e}. Exit code: {code}"
            ),
        };
        (self.life.note)(hook_event(TASK_HOOK_FAILED, failure));
        if cs.fail_on_error == Some(true) {
            (self.life.kill)(killing_event(
                "Template script failed, task is being killed".into(),
            ));
            return false;
        }
        true
    }
}

/// Runs `cmd args` in the task through the driver's exec, with a timeout; its output is
/// discarded (Nomad only reports the exit code).
async fn exec(
    driver: Arc<dyn Driver>,
    handle: crate::drivers::TaskHandle,
    cmd: &str,
    args: &[String],
    timeout: Duration,
) -> Result<i32, (String, i32)> {
    let mut command = vec![cmd.to_string()];
    command.extend(args.iter().cloned());
    let (session, input, mut output) = ExecSession::new(command, false);
    drop(input);
    let drain = async move {
        while let Some(ExecOutput::Stdout(_) | ExecOutput::Stderr(_)) = output.recv().await {}
    };
    let run = async {
        let (r, _) = tokio::join!(driver.exec_streaming(&handle, session), drain);
        r
    };
    match tokio::time::timeout(timeout, run).await {
        Ok(Ok(code)) => Ok(code),
        Ok(Err(e)) => Err((e.to_string(), -1)),
        Err(_) => Err(("context deadline exceeded".to_string(), -1)),
    }
}
