//! The eval broker (Nomad's `nomad/eval_broker.go`): the leader's queue of evaluations
//! waiting for a scheduler worker.
//!
//! ```text
//!   enqueue ──(Wait / WaitUntil)──> waiting ──deadline──┐
//!      │                                                 v
//!      ├── another eval of the job outstanding ──> pending ──(ack of that eval)──┐
//!      v                                                                         v
//!    ready[type] (priority desc, create index asc) <─────────────────────────────┘
//!      │ dequeue (token)
//!      v
//!    unacked ──ack──> gone (newest pending eval of the job becomes ready, the rest cancelable)
//!      │ nack / nack timeout
//!      └──> waiting (1s, then 20s per extra attempt) ──> ready, or `_failed` at the delivery limit
//! ```
//!
//! Timers are lazy: every call first fires the deadlines that have passed, and a waiting
//! `dequeue` sleeps until its timeout or the next deadline, whichever is first. So the broker
//! owns no background task, and under paused tokio time the tests drive it exactly.
//! Only the leader's broker is enabled; disabling flushes everything.

use std::cmp::Reverse;
use std::collections::{BTreeMap, HashMap};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::Duration;

use tokio::sync::Notify;
use tokio::time::Instant;

use crate::api::Evaluation;

/// The queue evals land in after `delivery_limit` failed deliveries; the leader reaps it.
pub const FAILED_QUEUE: &str = "_failed";

#[derive(Debug, thiserror::Error, PartialEq, Eq)]
pub enum EvalBrokerError {
    #[error("eval broker disabled")]
    NotEnabled,
    #[error("Evaluation ID not found: {0}")]
    NotOutstanding(String),
    #[error("Token does not match for Evaluation ID {0}")]
    TokenMismatch(String),
    #[error("Evaluation ID {0} Ack'd after Nack timer expiration")]
    NackTimeoutReached(String),
}

/// Wall-clock source for `WaitUntil` (Unix nanoseconds). Injected so tests can tie it to
/// paused tokio time.
pub trait Clock: Send + Sync {
    fn unix_nanos(&self) -> i64;
}

/// The real wall clock.
pub struct SystemClock;

impl Clock for SystemClock {
    fn unix_nanos(&self) -> i64 {
        crate::api::now_nanos()
    }
}

/// A wall clock that starts at `base_unix` and advances with tokio's clock, so paused time
/// moves it too.
pub struct TokioClock {
    base_unix: i64,
    base: Instant,
}

impl TokioClock {
    pub fn new(base_unix: i64) -> Self {
        TokioClock {
            base_unix,
            base: Instant::now(),
        }
    }
}

impl Clock for TokioClock {
    fn unix_nanos(&self) -> i64 {
        self.base_unix + self.base.elapsed().as_nanos() as i64
    }
}

/// Nomad's server defaults.
#[derive(Debug, Clone)]
pub struct EvalBrokerConfig {
    pub nack_timeout: Duration,
    pub initial_nack_delay: Duration,
    pub subsequent_nack_delay: Duration,
    pub delivery_limit: u32,
}

impl Default for EvalBrokerConfig {
    fn default() -> Self {
        EvalBrokerConfig {
            nack_timeout: Duration::from_secs(60),
            initial_nack_delay: Duration::from_secs(1),
            subsequent_nack_delay: Duration::from_secs(20),
            delivery_limit: 3,
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SchedulerStats {
    pub ready: usize,
    pub unacked: usize,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct BrokerStats {
    pub total_ready: usize,
    pub total_unacked: usize,
    /// Evals held back because their job already has one outstanding (Nomad's TotalPending,
    /// formerly TotalBlocked).
    pub total_pending: usize,
    /// Evals waiting out a `Wait`, a `WaitUntil` or a nack delay.
    pub total_waiting: usize,
    pub total_cancelable: usize,
    pub by_scheduler: BTreeMap<String, SchedulerStats>,
}

/// Ready order: priority high first, then older create index first.
type ReadyKey = (Reverse<i32>, u64, String);

struct Unacked {
    eval: Evaluation,
    token: String,
    /// None while the nack timeout is paused.
    deadline: Option<Instant>,
}

#[derive(Default)]
struct Inner {
    enabled: bool,
    /// Eval ID -> times dequeued, for every eval the broker tracks.
    evals: HashMap<String, u32>,
    ready: BTreeMap<String, BTreeMap<ReadyKey, Evaluation>>,
    unack: HashMap<String, Unacked>,
    /// (namespace, job) -> the one eval of that job that is ready or unacked.
    job_evals: HashMap<(String, String), String>,
    pending: HashMap<(String, String), Vec<Evaluation>>,
    /// (deadline, eval ID) -> (eval, queue it goes to).
    waiting: BTreeMap<(Instant, String), (Evaluation, String)>,
    /// Token -> eval a scheduler reblocked while holding that token; enqueued on ack.
    requeue: HashMap<String, Evaluation>,
    cancelable: Vec<Evaluation>,
}

pub struct EvalBroker {
    config: EvalBrokerConfig,
    clock: Arc<dyn Clock>,
    inner: Mutex<Inner>,
    /// Wakes dequeuers when evals become ready or the broker is disabled.
    ready_notify: Notify,
    /// Signalled when evals become cancelable (a permit is kept, so none is missed).
    cancelable_notify: Notify,
}

fn job_key(e: &Evaluation) -> (String, String) {
    (e.namespace.clone(), e.job_id.clone())
}

impl EvalBroker {
    pub fn new(config: EvalBrokerConfig, clock: Arc<dyn Clock>) -> Self {
        EvalBroker {
            config,
            clock,
            inner: Mutex::new(Inner::default()),
            ready_notify: Notify::new(),
            cancelable_notify: Notify::new(),
        }
    }

    fn lock(&self) -> MutexGuard<'_, Inner> {
        // A panic while holding the lock leaves plain data behind; keep serving.
        self.inner.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub fn enabled(&self) -> bool {
        self.lock().enabled
    }

    /// Enables (leader) or disables (follower) the broker. Disabling drops every eval and
    /// wakes blocked dequeuers, which then get `NotEnabled`.
    pub fn set_enabled(&self, enabled: bool) {
        let mut inner = self.lock();
        let was = inner.enabled;
        if !enabled {
            *inner = Inner::default();
        }
        inner.enabled = enabled;
        drop(inner);
        if was != enabled {
            self.ready_notify.notify_waiters();
        }
    }

    /// Queues an eval. Ignored when disabled or already tracked.
    pub fn enqueue(&self, eval: Evaluation) {
        let mut inner = self.lock();
        self.process_enqueue(&mut inner, eval, None);
        drop(inner);
        self.ready_notify.notify_waiters();
    }

    /// Enqueues an eval that a scheduler reblocked while holding `token`: it becomes ready
    /// once that delivery is acked (Nomad's Eval.Reblock path).
    pub fn enqueue_with_token(&self, eval: Evaluation, token: &str) {
        let mut inner = self.lock();
        self.process_enqueue(&mut inner, eval, Some(token));
        drop(inner);
        self.ready_notify.notify_waiters();
    }

    fn process_enqueue(&self, inner: &mut Inner, eval: Evaluation, token: Option<&str>) {
        if !inner.enabled {
            return;
        }
        if inner.evals.contains_key(&eval.id) {
            if let Some(token) = token {
                if inner.unack.get(&eval.id).is_some_and(|u| u.token == token) {
                    inner.requeue.insert(token.to_string(), eval);
                }
            }
            return;
        }
        inner.evals.insert(eval.id.clone(), 0);
        let now = Instant::now();
        if eval.wait > 0 {
            let deadline = now + Duration::from_nanos(eval.wait as u64);
            let queue = eval.r#type.clone();
            inner
                .waiting
                .insert((deadline, eval.id.clone()), (eval, queue));
            return;
        }
        if eval.wait_until > 0 {
            let remaining = eval
                .wait_until
                .saturating_sub(self.clock.unix_nanos())
                .max(0);
            let deadline = now + Duration::from_nanos(remaining as u64);
            let queue = eval.r#type.clone();
            inner
                .waiting
                .insert((deadline, eval.id.clone()), (eval, queue));
            return;
        }
        let queue = eval.r#type.clone();
        Self::enqueue_locked(inner, eval, &queue);
    }

    fn enqueue_locked(inner: &mut Inner, eval: Evaluation, queue: &str) {
        if !inner.enabled {
            return;
        }
        let key = job_key(&eval);
        match inner.job_evals.get(&key) {
            None => {
                inner.job_evals.insert(key, eval.id.clone());
            }
            Some(id) if *id != eval.id => {
                inner.pending.entry(key).or_default().push(eval);
                return;
            }
            Some(_) => {}
        }
        let ready_key = (Reverse(eval.priority), eval.create_index, eval.id.clone());
        inner
            .ready
            .entry(queue.to_string())
            .or_default()
            .insert(ready_key, eval);
    }

    /// Fires every deadline that has passed: nack timeouts and waits.
    fn advance(&self, inner: &mut Inner) {
        let now = Instant::now();
        let expired: Vec<(String, String)> = inner
            .unack
            .iter()
            .filter(|(_, u)| u.deadline.is_some_and(|d| d <= now))
            .map(|(id, u)| (id.clone(), u.token.clone()))
            .collect();
        for (id, token) in expired {
            // The token is ours, so this cannot fail.
            let _ = self.nack_locked(inner, &id, &token);
        }
        while let Some(entry) = inner.waiting.first_entry() {
            if entry.key().0 > now {
                break;
            }
            let (eval, queue) = entry.remove();
            Self::enqueue_locked(inner, eval, &queue);
        }
    }

    fn next_deadline(inner: &Inner) -> Option<Instant> {
        let wait = inner.waiting.keys().next().map(|(d, _)| *d);
        let nack = inner.unack.values().filter_map(|u| u.deadline).min();
        match (wait, nack) {
            (Some(a), Some(b)) => Some(a.min(b)),
            (a, b) => a.or(b),
        }
    }

    fn scan(&self, inner: &mut Inner, types: &[&str]) -> Option<(Evaluation, String)> {
        let mut best: Option<(&str, ReadyKey)> = None;
        for t in types {
            let Some(first) = inner.ready.get(*t).and_then(|q| q.keys().next()) else {
                continue;
            };
            // Strictly better priority wins; ties keep the earlier-listed type.
            if best.as_ref().is_none_or(|(_, b)| first.0 < b.0) {
                best = Some((t, first.clone()));
            }
        }
        let (queue, key) = best?;
        let eval = inner.ready.get_mut(queue)?.remove(&key)?;
        let token = uuid::Uuid::new_v4().to_string();
        *inner.evals.entry(eval.id.clone()).or_insert(0) += 1;
        inner.unack.insert(
            eval.id.clone(),
            Unacked {
                eval: eval.clone(),
                token: token.clone(),
                deadline: Some(Instant::now() + self.config.nack_timeout),
            },
        );
        Some((eval, token))
    }

    /// Takes the best ready eval of the given scheduler types, waiting up to `timeout`
    /// (`Duration::ZERO` waits until one arrives, as Nomad). `Ok(None)` on timeout.
    pub async fn dequeue(
        &self,
        types: &[&str],
        timeout: Duration,
    ) -> Result<Option<(Evaluation, String)>, EvalBrokerError> {
        let give_up = (!timeout.is_zero()).then(|| Instant::now() + timeout);
        loop {
            let notified = self.ready_notify.notified();
            tokio::pin!(notified);
            notified.as_mut().enable();
            let next = {
                let mut inner = self.lock();
                if !inner.enabled {
                    return Err(EvalBrokerError::NotEnabled);
                }
                self.advance(&mut inner);
                if let Some(found) = self.scan(&mut inner, types) {
                    return Ok(Some(found));
                }
                Self::next_deadline(&inner)
            };
            if give_up.is_some_and(|g| Instant::now() >= g) {
                return Ok(None);
            }
            let wake = match (give_up, next) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            };
            match wake {
                Some(at) => {
                    tokio::select! {
                        _ = &mut notified => {}
                        _ = tokio::time::sleep_until(at) => {}
                    }
                }
                None => notified.await,
            }
        }
    }

    /// The token of an outstanding (dequeued, unacked) eval.
    pub fn outstanding(&self, eval_id: &str) -> Option<String> {
        let mut inner = self.lock();
        self.advance(&mut inner);
        inner.unack.get(eval_id).map(|u| u.token.clone())
    }

    fn check_token<'a>(
        inner: &'a mut Inner,
        eval_id: &str,
        token: &str,
    ) -> Result<&'a mut Unacked, EvalBrokerError> {
        let u = inner
            .unack
            .get_mut(eval_id)
            .ok_or_else(|| EvalBrokerError::NotOutstanding(eval_id.to_string()))?;
        if u.token != token {
            return Err(EvalBrokerError::TokenMismatch(eval_id.to_string()));
        }
        Ok(u)
    }

    /// Restarts the nack timeout of an outstanding eval (a worker still making progress).
    pub fn outstanding_reset(&self, eval_id: &str, token: &str) -> Result<(), EvalBrokerError> {
        let mut inner = self.lock();
        let timeout = self.config.nack_timeout;
        let u = Self::check_token(&mut inner, eval_id, token)?;
        u.deadline = Some(Instant::now() + timeout);
        Ok(())
    }

    /// Stops the nack clock while the eval's plan waits in the plan queue.
    pub fn pause_nack_timeout(&self, eval_id: &str, token: &str) -> Result<(), EvalBrokerError> {
        let mut inner = self.lock();
        let u = Self::check_token(&mut inner, eval_id, token)?;
        if u.deadline.is_some_and(|d| d <= Instant::now()) {
            return Err(EvalBrokerError::NackTimeoutReached(eval_id.to_string()));
        }
        u.deadline = None;
        Ok(())
    }

    pub fn resume_nack_timeout(&self, eval_id: &str, token: &str) -> Result<(), EvalBrokerError> {
        self.outstanding_reset(eval_id, token)
    }

    /// Completes a delivery. The newest pending eval of the job becomes ready; older pending
    /// ones become cancelable.
    pub fn ack(&self, eval_id: &str, token: &str) -> Result<(), EvalBrokerError> {
        let mut inner = self.lock();
        let requeued = inner.requeue.remove(token);
        let u = Self::check_token(&mut inner, eval_id, token)?;
        if u.deadline.is_some_and(|d| d <= Instant::now()) {
            let _ = self.nack_locked(&mut inner, eval_id, token);
            return Err(EvalBrokerError::NackTimeoutReached(eval_id.to_string()));
        }
        let Some(u) = inner.unack.remove(eval_id) else {
            return Err(EvalBrokerError::NotOutstanding(eval_id.to_string()));
        };
        inner.evals.remove(eval_id);
        let key = job_key(&u.eval);
        inner.job_evals.remove(&key);
        if let Some(mut pending) = inner.pending.remove(&key) {
            // Highest priority, then highest modify index, wins; the rest are superseded.
            pending.sort_by_key(|e| Reverse((e.priority, e.modify_index)));
            let mut rest = pending.into_iter();
            if let Some(next) = rest.next() {
                let before = inner.cancelable.len();
                inner.cancelable.extend(rest);
                if inner.cancelable.len() > before {
                    self.cancelable_notify.notify_one();
                }
                let queue = next.r#type.clone();
                Self::enqueue_locked(&mut inner, next, &queue);
            }
        }
        if let Some(eval) = requeued {
            self.process_enqueue(&mut inner, eval, None);
        }
        self.advance(&mut inner);
        drop(inner);
        self.ready_notify.notify_waiters();
        Ok(())
    }

    /// Fails a delivery: the eval is retried after a delay, or moved to `_failed` once it
    /// has been delivered `delivery_limit` times.
    pub fn nack(&self, eval_id: &str, token: &str) -> Result<(), EvalBrokerError> {
        let mut inner = self.lock();
        inner.requeue.remove(token);
        self.nack_locked(&mut inner, eval_id, token)?;
        self.advance(&mut inner);
        drop(inner);
        self.ready_notify.notify_waiters();
        Ok(())
    }

    fn nack_locked(
        &self,
        inner: &mut Inner,
        eval_id: &str,
        token: &str,
    ) -> Result<(), EvalBrokerError> {
        Self::check_token(inner, eval_id, token)?;
        let Some(u) = inner.unack.remove(eval_id) else {
            return Err(EvalBrokerError::NotOutstanding(eval_id.to_string()));
        };
        let dequeues = inner.evals.get(eval_id).copied().unwrap_or(0);
        let mut eval = u.eval;
        if dequeues >= self.config.delivery_limit {
            Self::enqueue_locked(inner, eval, FAILED_QUEUE);
            return Ok(());
        }
        let delay = self.nack_reenqueue_delay(dequeues);
        eval.wait = delay.as_nanos() as i64;
        if delay.is_zero() {
            let queue = eval.r#type.clone();
            Self::enqueue_locked(inner, eval, &queue);
        } else {
            let queue = eval.r#type.clone();
            let deadline = Instant::now() + delay;
            inner
                .waiting
                .insert((deadline, eval.id.clone()), (eval, queue));
        }
        Ok(())
    }

    fn nack_reenqueue_delay(&self, prev_dequeues: u32) -> Duration {
        match prev_dequeues {
            0 => Duration::ZERO,
            1 => self.config.initial_nack_delay,
            n => self.config.subsequent_nack_delay * (n - 1),
        }
    }

    /// Waits until evals became cancelable since the last wait.
    pub async fn cancelable_ready(&self) {
        self.cancelable_notify.notified().await;
    }

    /// Takes up to `max` superseded evals for the leader to mark canceled.
    pub fn cancelable(&self, max: usize) -> Vec<Evaluation> {
        let mut inner = self.lock();
        let n = max.min(inner.cancelable.len());
        inner.cancelable.drain(..n).collect()
    }

    pub fn stats(&self) -> BrokerStats {
        let mut inner = self.lock();
        self.advance(&mut inner);
        let mut s = BrokerStats {
            total_unacked: inner.unack.len(),
            total_pending: inner.pending.values().map(Vec::len).sum(),
            total_waiting: inner.waiting.len(),
            total_cancelable: inner.cancelable.len(),
            ..Default::default()
        };
        for (queue, evals) in &inner.ready {
            s.total_ready += evals.len();
            s.by_scheduler.entry(queue.clone()).or_default().ready += evals.len();
        }
        for u in inner.unack.values() {
            let queue =
                if inner.evals.get(&u.eval.id).copied().unwrap_or(0) > self.config.delivery_limit {
                    FAILED_QUEUE.to_string()
                } else {
                    u.eval.r#type.clone()
                };
            s.by_scheduler.entry(queue).or_default().unacked += 1;
        }
        s
    }
}

#[cfg(test)]
#[path = "eval_broker_tests.rs"]
mod tests;
