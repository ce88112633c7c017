//! Validation of policy blocks and constraints (restart, reschedule, update, migrate), split
//! from `validate` to keep each file to one concern. Texts are Nomad's.

use crate::api::{
    Constraint, MigrateStrategy, ReschedulePolicy, RestartPolicy, UpdateStrategy, SECOND,
};

use super::duration::format_go_duration as dur;
use super::validate::format_multierror;

pub(super) fn restart_errors(r: &RestartPolicy) -> Vec<String> {
    let mut e = Vec::new();
    if r.mode != "delay" && r.mode != "fail" {
        e.push(format!("Unsupported restart mode: {:?}", r.mode));
    }
    if r.attempts == 0 && r.mode != "fail" {
        e.push(format!(
            "Restart policy {:?} with {} attempts is ambiguous",
            r.mode, r.attempts
        ));
    }
    if r.interval < 5 * SECOND {
        e.push(format!(
            "Interval can not be less than 5s (got {})",
            dur(r.interval)
        ));
    }
    if i64::from(r.attempts).saturating_mul(r.delay) > r.interval {
        e.push(format!(
            "Nomad can't restart the TaskGroup {} times in an interval of {} with a delay of {}",
            r.attempts,
            dur(r.interval),
            dur(r.delay)
        ));
    }
    e
}

const RESCHEDULE_MIN_DELAY: i64 = 5 * SECOND;
const RESCHEDULE_MIN_INTERVAL: i64 = 15 * SECOND;

pub(super) fn reschedule_errors(r: &ReschedulePolicy) -> Vec<String> {
    if !(r.attempts > 0 || r.unlimited) {
        return Vec::new();
    }
    let mut e = Vec::new();
    if r.attempts > 0 {
        if r.interval <= 0 {
            e.push("Interval must be a non zero value if Attempts > 0".to_string());
        }
        if r.unlimited {
            e.push(format!(
                "Reschedule Policy with Attempts = {}, Interval = {}, and Unlimited = {} is ambiguous",
                r.attempts,
                dur(r.interval),
                r.unlimited
            ));
            e.push("If Attempts >0, Unlimited cannot also be set to true".to_string());
        }
    }
    let mut pre_check = true;
    if r.delay < RESCHEDULE_MIN_DELAY {
        e.push(format!(
            "Delay cannot be less than 5s (got {})",
            dur(r.delay)
        ));
        pre_check = false;
    }
    let functions = ["constant", "exponential", "fibonacci"];
    if !functions.contains(&r.delay_function.as_str()) {
        e.push(format!(
            "Invalid delay function {:?}, must be one of [\"constant\" \"exponential\" \"fibonacci\"]",
            r.delay_function
        ));
        pre_check = false;
    }
    if r.delay_function != "constant" {
        if r.max_delay < RESCHEDULE_MIN_DELAY {
            e.push(format!(
                "Max Delay cannot be less than 5s (got {})",
                dur(r.delay)
            ));
            pre_check = false;
        }
        if r.max_delay < r.delay {
            e.push(format!(
                "Max Delay cannot be less than Delay {} (got {})",
                dur(r.delay),
                dur(r.max_delay)
            ));
            pre_check = false;
        }
    }
    if !r.unlimited {
        if r.interval < RESCHEDULE_MIN_INTERVAL {
            e.push(format!(
                "Interval cannot be less than 15s (got {})",
                dur(r.interval)
            ));
        }
        if pre_check {
            e.extend(reschedule_delay_errors(r));
        }
    }
    e
}

/// ReschedulePolicy.validateDelayParams: can `attempts` fit into `interval`?
fn reschedule_delay_errors(r: &ReschedulePolicy) -> Vec<String> {
    // Nomad walks every attempt; cap the walk so a hostile `attempts` cannot stall the server
    // (only the numbers quoted in the error can differ for such policies).
    let attempts = i64::from(r.attempts.clamp(0, 100_000));
    let (valid, possible, recommended) = match r.delay_function.as_str() {
        "constant" => {
            let rec = attempts.saturating_mul(r.delay);
            if r.interval < rec {
                (false, r.interval / r.delay.max(1), rec)
            } else {
                (true, 0, rec)
            }
        }
        "exponential" => {
            let mut rec: i64 = 0;
            let mut possible = 0;
            for i in 0..attempts {
                let factor = 2i64.saturating_pow(i.min(62) as u32);
                let mut next = factor.saturating_mul(r.delay);
                if next > r.max_delay {
                    next = r.max_delay;
                    rec = rec.saturating_add(next);
                } else {
                    rec = next;
                }
                if rec < r.interval {
                    possible += 1;
                }
            }
            (possible >= attempts, possible, rec)
        }
        "fibonacci" => {
            let mut slots = vec![r.delay, r.delay];
            let mut ceiling = false;
            for i in 2..attempts.max(2) as usize {
                let next = if ceiling {
                    slots[i - 1].saturating_add(r.max_delay)
                } else {
                    let n = slots[i - 1].saturating_add(slots[i - 2]);
                    if n > r.max_delay {
                        ceiling = true;
                        r.max_delay
                    } else {
                        n
                    }
                };
                slots.push(next);
            }
            let rec = *slots.last().unwrap_or(&0);
            if r.interval < rec {
                let possible = slots.iter().position(|s| *s > r.interval).unwrap_or(0) as i64;
                (false, possible, rec)
            } else {
                (true, 0, rec)
            }
        }
        _ => return Vec::new(),
    };
    if valid {
        return Vec::new();
    }
    let first = if r.delay_function == "constant" {
        format!(
            "Nomad can only make {possible} attempts in {} with initial delay {} and delay function {:?}",
            dur(r.interval),
            dur(r.delay),
            r.delay_function
        )
    } else {
        format!(
            "Nomad can only make {possible} attempts in {} with initial delay {}, delay function {:?}, and delay ceiling {}",
            dur(r.interval),
            dur(r.delay),
            r.delay_function,
            dur(r.max_delay)
        )
    };
    let rounded = (recommended + SECOND / 2) / SECOND * SECOND;
    vec![
        first,
        format!(
            "Set the interval to at least {} to accommodate {} attempts",
            dur(rounded),
            r.attempts
        ),
    ]
}

pub(super) fn update_errors(u: &UpdateStrategy) -> Vec<String> {
    let mut e = Vec::new();
    if !["checks", "task_states", "manual"].contains(&u.health_check.as_str()) {
        e.push(format!("Invalid health check given: {:?}", u.health_check));
    }
    if u.max_parallel < 0 {
        e.push(format!(
            "Max parallel can not be less than zero: {} < 0",
            u.max_parallel
        ));
    }
    if u.canary < 0 {
        e.push(format!(
            "Canary count can not be less than zero: {} < 0",
            u.canary
        ));
    }
    if u.canary == 0 && u.auto_promote {
        e.push("Auto Promote requires a Canary count greater than zero".to_string());
    }
    if u.min_healthy_time < 0 {
        e.push(format!(
            "Minimum healthy time may not be less than zero: {}",
            dur(u.min_healthy_time)
        ));
    }
    if u.healthy_deadline <= 0 {
        e.push(format!(
            "Healthy deadline must be greater than zero: {}",
            dur(u.healthy_deadline)
        ));
    }
    if u.progress_deadline < 0 {
        e.push(format!(
            "Progress deadline must be zero or greater: {}",
            dur(u.progress_deadline)
        ));
    }
    if u.min_healthy_time >= u.healthy_deadline {
        e.push(format!(
            "Minimum healthy time must be less than healthy deadline: {} > {}",
            dur(u.min_healthy_time),
            dur(u.healthy_deadline)
        ));
    }
    if u.progress_deadline != 0 && u.healthy_deadline >= u.progress_deadline {
        e.push(format!(
            "Healthy deadline must be less than progress deadline: {} > {}",
            dur(u.healthy_deadline),
            dur(u.progress_deadline)
        ));
    }
    if u.stagger <= 0 {
        e.push(format!(
            "Stagger must be greater than zero: {}",
            dur(u.stagger)
        ));
    }
    e
}

pub(super) fn migrate_errors(m: &MigrateStrategy) -> Vec<String> {
    let mut e = Vec::new();
    if m.max_parallel < 0 {
        e.push(format!(
            "MaxParallel must be >= 0 but found {}",
            m.max_parallel
        ));
    }
    match m.health_check.as_str() {
        "checks" | "task_states" => {}
        "" => {
            if m.max_parallel > 0 {
                e.push("Missing HealthCheck".to_string());
            }
        }
        other => e.push(format!("Invalid HealthCheck: {other:?}")),
    }
    if m.min_healthy_time < 0 {
        e.push(format!(
            "MinHealthyTime is {} and must be >= 0",
            dur(m.min_healthy_time)
        ));
    }
    if m.healthy_deadline < 0 {
        e.push(format!(
            "HealthyDeadline is {} and must be >= 0",
            dur(m.healthy_deadline)
        ));
    }
    if m.min_healthy_time > m.healthy_deadline {
        e.push("MinHealthyTime must be less than HealthyDeadline".to_string());
    }
    e
}

/// structs.Constraint.Validate, rendered as Nomad renders the nested error.
pub(super) fn constraint_errors(c: &Constraint) -> Option<String> {
    let mut e = Vec::new();
    if c.operand.is_empty() {
        e.push("Missing constraint operand".to_string());
    }
    let mut require_ltarget = true;
    match c.operand.as_str() {
        "distinct_hosts" => require_ltarget = false,
        "set_contains_all" | "set_contains_any" | "set_contains" => {
            if c.r_target.is_empty() {
                e.push("Set contains constraint requires an RTarget".to_string());
            }
        }
        "regexp" => {
            if let Err(err) = regex::Regex::new(&c.r_target) {
                e.push(format!("Regular expression failed to compile: {err}"));
            }
        }
        "version" => {
            if !version_constraint_ok(&c.r_target) {
                e.push(format!(
                    "Version constraint is invalid: Malformed constraint: {}",
                    c.r_target
                ));
            }
        }
        "semver" => {
            if !version_constraint_ok(&c.r_target) {
                e.push(format!(
                    "Semver constraint is invalid: improper constraint: {}",
                    c.r_target
                ));
            }
        }
        "distinct_property" => {
            if !c.r_target.is_empty() {
                match c.r_target.parse::<u64>() {
                    Err(err) => e.push(format!(
                        "Failed to convert RTarget {:?} to uint64: strconv.ParseUint: parsing {:?}: {}",
                        c.r_target,
                        c.r_target,
                        if err.to_string().contains("too large") { "value out of range" } else { "invalid syntax" }
                    )),
                    Ok(0) => e.push(
                        "Distinct Property must have an allowed count of 1 or greater: 0 < 1"
                            .to_string(),
                    ),
                    Ok(_) => {}
                }
            }
        }
        "is_set" | "is_not_set" => {
            if !c.r_target.is_empty() {
                e.push(format!(
                    "Operator {:?} does not support an RTarget",
                    c.operand
                ));
            }
        }
        "=" | "==" | "is" | "!=" | "not" | "<" | "<=" | ">" | ">=" => {
            if c.r_target.is_empty() {
                e.push(format!("Operator {:?} requires an RTarget", c.operand));
            }
        }
        other => e.push(format!("Unknown constraint type {other:?}")),
    }
    if require_ltarget {
        if c.l_target.is_empty() {
            e.push("no attribute provided but is required by operator".to_string());
        } else if let Some(err) = constraint_attribute_error(&c.l_target) {
            e.push(err);
        }
    }
    (!e.is_empty()).then(|| format_multierror(&e))
}

fn constraint_attribute_error(target: &str) -> Option<String> {
    if !target.starts_with('$') {
        return None;
    }
    if !target.starts_with("${") {
        return Some(format!("attribute {target:?} is missing an opening brace"));
    }
    if !target.ends_with('}') {
        return Some(format!("attribute {target:?} is missing a closing brace"));
    }
    let exact = [
        "${node.unique.id}",
        "${node.datacenter}",
        "${node.unique.name}",
        "${node.class}",
        "${node.pool}",
    ];
    if exact.contains(&target)
        || ["${attr.", "${device.", "${meta."]
            .iter()
            .any(|p| target.starts_with(p))
    {
        return None;
    }
    Some(format!("unsupported attribute {target:?}"))
}

/// go-version / Nomad semver constraint syntax: comma-separated `[op] version` terms.
fn version_constraint_ok(s: &str) -> bool {
    // Compiled once: building it per constraint was most of `validate`'s time.
    static TERM: std::sync::LazyLock<Result<regex::Regex, regex::Error>> = std::sync::LazyLock::new(
        || {
            regex::Regex::new(
                r"^\s*(=|!=|>=|<=|>|<|~>)?\s*v?[0-9]+(\.[0-9]+)*(-[0-9A-Za-z.-]+)?(\+[0-9A-Za-z.-]+)?\s*$",
            )
        },
    );
    match &*TERM {
        Ok(re) => !s.trim().is_empty() && s.split(',').all(|t| re.is_match(t)),
        Err(_) => false,
    }
}
