//! Rescheduling failed allocs: Nomad's default policies per job type, whether another attempt
//! is allowed within the policy's interval, the tracker a replacement carries, and the delays
//! (Nomad's `Allocation.NextDelay` / `NextRescheduleTime`): when a failed alloc may be
//! replaced, by `delay_function` constant, exponential or fibonacci, capped at `max_delay`
//! (and reset to `delay` once an alloc ran longer than the cap since its last reschedule).

use serde_json::{json, Value};

use crate::api::{Allocation, ReschedulePolicy, HOUR, JOB_TYPE_SERVICE, MINUTE, SECOND};

/// Nomad's `rescheduleWindowSize`: failures due within this window are replaced now.
pub const RESCHEDULE_WINDOW: i64 = SECOND;

/// The events of the alloc's reschedule tracker, oldest first.
fn tracker_events(alloc: &Allocation) -> impl Iterator<Item = &Value> {
    alloc
        .reschedule_tracker
        .as_ref()
        .and_then(|t| t.get("Events"))
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
}

/// (reschedule time, delay) of each earlier event in the alloc's tracker, oldest first.
fn events(alloc: &Allocation) -> Vec<(i64, i64)> {
    tracker_events(alloc)
        .map(|e| {
            (
                e.get("RescheduleTime").and_then(Value::as_i64).unwrap_or(0),
                e.get("Delay").and_then(Value::as_i64).unwrap_or(0),
            )
        })
        .collect()
}

/// When the alloc last changed on the client: the latest task finish, else its modify time.
pub fn last_event_time(alloc: &Allocation) -> i64 {
    alloc
        .task_states
        .iter()
        .flat_map(|m| m.values())
        .filter_map(|s| s.finished_at.as_deref())
        .filter_map(|t| chrono::DateTime::parse_from_rfc3339(t).ok())
        .filter_map(|t| t.timestamp_nanos_opt())
        .max()
        .unwrap_or(alloc.modify_time)
}

/// The delay before this failed alloc's replacement.
pub fn next_delay(alloc: &Allocation, policy: &ReschedulePolicy) -> i64 {
    let evs = events(alloc);
    let Some(&(last_time, last_delay)) = evs.last() else {
        return policy.delay;
    };
    let mut delay = match policy.delay_function.as_str() {
        "exponential" => last_delay.saturating_mul(2),
        "fibonacci" if evs.len() >= 2 => {
            let prev = evs[evs.len() - 2].1;
            // A series that hit the ceiling and was reset starts again.
            if prev == policy.max_delay && last_delay == policy.delay {
                last_delay
            } else {
                last_delay.saturating_add(prev)
            }
        }
        "fibonacci" => policy.delay,
        _ => return policy.delay,
    };
    if policy.max_delay > 0 && delay > policy.max_delay {
        delay = policy.max_delay;
        if last_event_time(alloc).saturating_sub(last_time) > delay {
            delay = policy.delay;
        }
    }
    delay
}

/// (time the replacement may be placed, delay used).
pub fn next_reschedule_time(alloc: &Allocation, policy: &ReschedulePolicy) -> (i64, i64) {
    let delay = next_delay(alloc, policy);
    (last_event_time(alloc).saturating_add(delay), delay)
}

/// Nomad's default reschedule policies per job type.
pub fn default_reschedule_policy(job_type: &str) -> ReschedulePolicy {
    if job_type == JOB_TYPE_SERVICE {
        ReschedulePolicy {
            attempts: 0,
            interval: 0,
            delay: 30 * SECOND,
            delay_function: "exponential".into(),
            max_delay: HOUR,
            unlimited: true,
        }
    } else {
        ReschedulePolicy {
            attempts: 1,
            interval: 24 * HOUR,
            delay: 5 * SECOND,
            delay_function: "constant".into(),
            max_delay: MINUTE,
            unlimited: false,
        }
    }
}

/// Reschedule times (Unix nanos) recorded in an alloc's tracker.
fn reschedule_times(alloc: &Allocation) -> Vec<i64> {
    tracker_events(alloc)
        .filter_map(|e| e.get("RescheduleTime").and_then(Value::as_i64))
        .collect()
}

pub fn may_reschedule(alloc: &Allocation, policy: &ReschedulePolicy, now: i64) -> bool {
    if alloc.desired_transition.force_reschedule == Some(true) {
        return true;
    }
    if policy.unlimited {
        return true;
    }
    if policy.attempts <= 0 {
        return false;
    }
    let since = now.saturating_sub(policy.interval);
    let recent = reschedule_times(alloc)
        .into_iter()
        .filter(|t| policy.interval <= 0 || *t > since)
        .count();
    recent < policy.attempts as usize
}

/// The tracker a rescheduled replacement carries: the previous events plus this one.
pub fn next_reschedule_tracker(prev: &Allocation, now: i64, delay: i64) -> Value {
    let mut events: Vec<Value> = prev
        .reschedule_tracker
        .as_ref()
        .and_then(|t| t.get("Events"))
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default();
    events.push(json!({
        "PrevAllocID": prev.id,
        "PrevNodeID": prev.node_id,
        "RescheduleTime": now,
        "Delay": delay,
    }));
    json!({ "Events": events })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::SECOND;
    use serde_json::json;

    fn policy(f: &str) -> ReschedulePolicy {
        ReschedulePolicy {
            delay: 5 * SECOND,
            delay_function: f.into(),
            max_delay: 60 * SECOND,
            unlimited: true,
            ..Default::default()
        }
    }

    fn with_delays(delays: &[i64], modify_time: i64) -> Allocation {
        let evs: Vec<Value> = delays
            .iter()
            .map(|d| json!({"RescheduleTime": modify_time - SECOND, "Delay": d}))
            .collect();
        Allocation {
            modify_time,
            reschedule_tracker: Some(json!({ "Events": evs })),
            ..Default::default()
        }
    }

    #[test]
    fn delay_functions() {
        let s = SECOND;
        assert_eq!(next_delay(&with_delays(&[], 0), &policy("constant")), 5 * s);
        assert_eq!(
            next_delay(&with_delays(&[5 * s], 100 * s), &policy("constant")),
            5 * s
        );
        assert_eq!(
            next_delay(&with_delays(&[5 * s], 100 * s), &policy("exponential")),
            10 * s
        );
        assert_eq!(
            next_delay(
                &with_delays(&[5 * s, 10 * s, 20 * s, 40 * s], 100 * s),
                &policy("exponential")
            ),
            60 * s,
            "capped at max_delay"
        );
        assert_eq!(
            next_delay(&with_delays(&[5 * s, 5 * s], 100 * s), &policy("fibonacci")),
            10 * s
        );
        assert_eq!(
            next_delay(
                &with_delays(&[5 * s, 5 * s, 10 * s], 100 * s),
                &policy("fibonacci")
            ),
            15 * s
        );
        assert_eq!(
            next_delay(
                &with_delays(&[60 * s, 5 * s], 100 * s),
                &policy("fibonacci")
            ),
            5 * s,
            "a reset series starts again"
        );
        // Past the cap with the alloc running longer than the cap since: back to delay.
        let mut a = with_delays(&[40 * s], 1000 * s);
        if let Some(t) = a.reschedule_tracker.as_mut() {
            t["Events"][0]["RescheduleTime"] = json!(0);
        }
        assert_eq!(next_delay(&a, &policy("exponential")), 5 * s);
    }
}
