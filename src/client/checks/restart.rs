//! `check_restart`: when a failing check restarts its task. A pure state machine over
//! (now, latest status), as Nomad's check watcher decides it:
//!
//! ```text
//!   healthy ──failure/pending (past grace)──> unhealthy since T
//!      ^                                          │ now >= T + interval*(limit-1)
//!      └──── success ─────────────────────────────┴──> restart (grace starts again)
//! ```
//! Only script checks warn (exit code 1, fed here as `warning`): a warning is unhealthy
//! unless `ignore_warnings`, as Nomad's watcher treats Consul's warning status.

use std::time::Duration;

use tokio::time::Instant;

use crate::api::{CHECK_FAILURE, CHECK_PENDING};

use super::checker::STATUS_WARNING;
use super::spec::CheckRestart;

#[derive(Debug, Clone)]
pub struct Restarter {
    grace: Duration,
    /// How long a check may stay unhealthy before the restart: `interval * (limit - 1)`.
    time_limit: Duration,
    grace_until: Instant,
    unhealthy_since: Option<Instant>,
    /// A warning counts as healthy.
    ignore_warnings: bool,
}

impl Restarter {
    /// A watch that starts now (the task has just started).
    pub fn new(cfg: &CheckRestart, interval: Duration, now: Instant) -> Restarter {
        Restarter {
            grace: cfg.grace,
            time_limit: interval * cfg.limit.saturating_sub(1),
            grace_until: now + cfg.grace,
            unhealthy_since: None,
            ignore_warnings: cfg.ignore_warnings,
        }
    }

    /// The task (re)started at `now`: forget earlier failures, grace again.
    pub fn reset(&mut self, now: Instant) {
        self.grace_until = now + self.grace;
        self.unhealthy_since = None;
    }

    /// Feeds the latest status; true when the task must be restarted now (the watch then
    /// starts over).
    pub fn apply(&mut self, now: Instant, status: &str) -> bool {
        let unhealthy = match status {
            CHECK_FAILURE | CHECK_PENDING => true,
            STATUS_WARNING => !self.ignore_warnings,
            _ => false,
        };
        if !unhealthy {
            self.unhealthy_since = None;
            return false;
        }
        if now < self.grace_until {
            return false;
        }
        let since = *self.unhealthy_since.get_or_insert(now);
        if now >= since + self.time_limit {
            self.reset(now);
            return true;
        }
        false
    }
}

/// Nomad's restart reason for a check that stayed unhealthy.
pub fn restart_reason(check: &str) -> String {
    format!("healthcheck: check {check:?} unhealthy")
}

#[cfg(test)]
mod tests {
    use super::*;

    const SEC: Duration = Duration::from_secs(1);

    fn cfg(limit: u32, grace: u64) -> CheckRestart {
        CheckRestart {
            limit,
            grace: Duration::from_secs(grace),
            ignore_warnings: false,
        }
    }

    #[test]
    fn restarts_after_limit_consecutive_failures() {
        let t0 = Instant::now();
        let mut r = Restarter::new(&cfg(3, 0), SEC, t0);
        // Failures at 0s, 1s, 2s: the third one is interval*(limit-1) after the first.
        assert!(!r.apply(t0, "failure"));
        assert!(!r.apply(t0 + SEC, "failure"));
        assert!(r.apply(t0 + 2 * SEC, "failure"));
        // The watch started over.
        assert!(!r.apply(t0 + 3 * SEC, "failure"));
    }

    #[test]
    fn success_in_between_starts_the_count_again() {
        let t0 = Instant::now();
        let mut r = Restarter::new(&cfg(2, 0), SEC, t0);
        assert!(!r.apply(t0, "failure"));
        assert!(!r.apply(t0 + SEC, "success"));
        assert!(!r.apply(t0 + 2 * SEC, "failure"));
        assert!(r.apply(t0 + 3 * SEC, "failure"));
    }

    #[test]
    fn failures_within_grace_do_not_count() {
        let t0 = Instant::now();
        let mut r = Restarter::new(&cfg(1, 10), SEC, t0);
        for i in 0..10 {
            assert!(!r.apply(t0 + i * SEC, "failure"), "at {i}s");
        }
        assert!(r.apply(t0 + 10 * SEC, "failure"));
    }

    #[test]
    fn pending_counts_as_unhealthy_and_reset_grants_grace() {
        let t0 = Instant::now();
        let mut r = Restarter::new(&cfg(1, 5), SEC, t0);
        assert!(r.apply(t0 + 5 * SEC, "pending"));
        r.reset(t0 + 6 * SEC);
        assert!(!r.apply(t0 + 7 * SEC, "failure"));
        assert!(r.apply(t0 + 11 * SEC, "failure"));
    }

    #[test]
    fn warnings_are_unhealthy_unless_ignored() {
        let t0 = Instant::now();
        let mut r = Restarter::new(&cfg(2, 0), SEC, t0);
        assert!(!r.apply(t0, "warning"));
        assert!(r.apply(t0 + SEC, "warning"));
        let mut ignoring = Restarter::new(
            &CheckRestart {
                ignore_warnings: true,
                ..cfg(2, 0)
            },
            SEC,
            t0,
        );
        assert!(!ignoring.apply(t0, "failure"));
        // A warning in between is healthy: the failures start counting again.
        assert!(!ignoring.apply(t0 + SEC, "warning"));
        assert!(!ignoring.apply(t0 + 2 * SEC, "failure"));
        assert!(ignoring.apply(t0 + 3 * SEC, "failure"));
        for i in 4..10 {
            assert!(!ignoring.apply(t0 + i * SEC, "warning"), "at {i}s");
        }
    }

    #[test]
    fn reason_is_nomads() {
        assert_eq!(
            restart_reason("alive"),
            "healthcheck: check \"alive\" unhealthy"
        );
    }
}
