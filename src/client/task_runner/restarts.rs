//! The restart policy (Nomad's `RestartTracker`): attempts within an interval, a jittered
//! delay, then `fail` or `delay` mode. Pure: time comes in as Unix nanoseconds and the jitter
//! from a seeded RNG, so every decision is reproducible in tests.

use rand::rngs::StdRng;
use rand::{Rng, SeedableRng};

use crate::api::{RestartPolicy, RESTART_MODE_FAIL};
use crate::drivers::{format_go_nanos, ExitResult};

/// Percent of the delay added as jitter.
const JITTER: f64 = 0.25;

pub const REASON_NO_RESTARTS_ALLOWED: &str = "Policy allows no restarts";
pub const REASON_UNRECOVERABLE_ERROR: &str = "Error was unrecoverable";
pub const REASON_WITHIN_POLICY: &str = "Restart within policy";
pub const REASON_DELAY: &str = "Exceeded allowed attempts, applying a delay";
pub const REASON_SUCCESS: &str = "Restart unnecessary as task terminated successfully";

/// Why the task stopped running this time.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Outcome {
    StartError { recoverable: bool },
    Exited(ExitResult),
    Killed,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Decision {
    /// Never restart an explicitly killed task.
    Killed,
    Restart {
        delay_nanos: i64,
        reason: String,
    },
    NotRestarting {
        reason: String,
    },
    /// Finished and needs no restart (batch success).
    Terminated {
        reason: String,
    },
}

#[derive(Debug, Clone)]
pub struct RestartTracker {
    policy: RestartPolicy,
    /// Batch tasks are done after a successful exit; service tasks restart.
    on_success: bool,
    count: i32,
    interval_start: i64,
    rng: StdRng,
}

impl RestartTracker {
    pub fn new(policy: RestartPolicy, batch: bool, now: i64, seed: u64) -> Self {
        RestartTracker {
            policy,
            on_success: !batch,
            count: 0,
            interval_start: now,
            rng: StdRng::seed_from_u64(seed),
        }
    }

    pub fn set_policy(&mut self, policy: RestartPolicy) {
        self.policy = policy;
    }

    pub fn decide(&mut self, outcome: &Outcome, now: i64) -> Decision {
        if *outcome == Outcome::Killed {
            return Decision::Killed;
        }
        let success = matches!(outcome, Outcome::Exited(r) if r.successful());
        if self.policy.attempts == 0 {
            if !self.on_success && success {
                return Decision::Terminated {
                    reason: REASON_NO_RESTARTS_ALLOWED.to_string(),
                };
            }
            return Decision::NotRestarting {
                reason: REASON_NO_RESTARTS_ALLOWED.to_string(),
            };
        }
        if now > self.interval_start.saturating_add(self.policy.interval) {
            self.count = 0;
            self.interval_start = now;
        }
        self.count += 1;
        match outcome {
            Outcome::StartError { recoverable: false } => {
                return Decision::NotRestarting {
                    reason: REASON_UNRECOVERABLE_ERROR.to_string(),
                }
            }
            Outcome::Exited(_) if success && !self.on_success => {
                return Decision::Terminated {
                    reason: REASON_SUCCESS.to_string(),
                }
            }
            _ => {}
        }
        if self.count > self.policy.attempts {
            if self.policy.mode == RESTART_MODE_FAIL {
                return Decision::NotRestarting {
                    reason: format!(
                        "Exceeded allowed attempts {} in interval {} and mode is \"fail\"",
                        self.policy.attempts,
                        format_go_nanos(self.policy.interval)
                    ),
                };
            }
            let end = self.interval_start.saturating_add(self.policy.interval);
            return Decision::Restart {
                delay_nanos: (end - now).max(0),
                reason: REASON_DELAY.to_string(),
            };
        }
        Decision::Restart {
            delay_nanos: self.jittered_delay(),
            reason: REASON_WITHIN_POLICY.to_string(),
        }
    }

    fn jittered_delay(&mut self) -> i64 {
        let d = self.policy.delay.max(1);
        let j = self.rng.random_range(0..d) as f64 * JITTER;
        d + j as i64
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::{MINUTE, SECOND};

    fn policy(attempts: i32, mode: &str) -> RestartPolicy {
        RestartPolicy {
            attempts,
            delay: 15 * SECOND,
            interval: 30 * MINUTE,
            mode: mode.to_string(),
            render_templates: false,
        }
    }

    fn exit(code: i32) -> Outcome {
        Outcome::Exited(ExitResult {
            exit_code: code,
            ..Default::default()
        })
    }

    #[test]
    fn restarts_within_policy_with_jitter_then_fails() {
        let mut t = RestartTracker::new(policy(2, "fail"), false, 0, 7);
        for _ in 0..2 {
            match t.decide(&exit(1), SECOND) {
                Decision::Restart {
                    delay_nanos,
                    reason,
                } => {
                    assert_eq!(reason, REASON_WITHIN_POLICY);
                    assert!((15 * SECOND..15 * SECOND + 15 * SECOND / 4).contains(&delay_nanos));
                }
                other => panic!("{other:?}"),
            }
        }
        assert_eq!(
            t.decide(&exit(1), 2 * SECOND),
            Decision::NotRestarting {
                reason: "Exceeded allowed attempts 2 in interval 30m0s and mode is \"fail\"".into()
            }
        );
    }

    #[test]
    fn delay_mode_waits_for_the_next_interval() {
        let mut t = RestartTracker::new(policy(1, "delay"), false, 0, 1);
        assert!(matches!(
            t.decide(&exit(1), SECOND),
            Decision::Restart { .. }
        ));
        assert_eq!(
            t.decide(&exit(1), 10 * MINUTE),
            Decision::Restart {
                delay_nanos: 20 * MINUTE,
                reason: REASON_DELAY.into()
            }
        );
        // A new interval resets the count.
        assert!(matches!(
            t.decide(&exit(1), 31 * MINUTE),
            Decision::Restart { reason, .. } if reason == REASON_WITHIN_POLICY
        ));
    }

    #[test]
    fn batch_success_terminates_and_service_success_restarts() {
        let mut batch = RestartTracker::new(policy(3, "fail"), true, 0, 1);
        assert_eq!(
            batch.decide(&exit(0), SECOND),
            Decision::Terminated {
                reason: REASON_SUCCESS.into()
            }
        );
        let mut service = RestartTracker::new(policy(3, "fail"), false, 0, 1);
        assert!(matches!(
            service.decide(&exit(0), SECOND),
            Decision::Restart { .. }
        ));
    }

    #[test]
    fn zero_attempts_and_unrecoverable_errors() {
        let mut t = RestartTracker::new(policy(0, "fail"), false, 0, 1);
        assert_eq!(
            t.decide(&exit(0), SECOND),
            Decision::NotRestarting {
                reason: REASON_NO_RESTARTS_ALLOWED.into()
            }
        );
        let mut b = RestartTracker::new(policy(0, "fail"), true, 0, 1);
        assert!(matches!(
            b.decide(&exit(0), SECOND),
            Decision::Terminated { .. }
        ));
        let mut u = RestartTracker::new(policy(3, "fail"), false, 0, 1);
        assert_eq!(
            u.decide(&Outcome::StartError { recoverable: false }, SECOND),
            Decision::NotRestarting {
                reason: REASON_UNRECOVERABLE_ERROR.into()
            }
        );
        assert!(matches!(
            u.decide(&Outcome::StartError { recoverable: true }, SECOND),
            Decision::Restart { .. }
        ));
        assert_eq!(u.decide(&Outcome::Killed, SECOND), Decision::Killed);
    }
}
