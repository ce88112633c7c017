//! Node feasibility: the yes/no filters a node must pass before it is ranked (Nomad's
//! `feasible.go`): readiness, node pool, datacenter globs, drivers and constraints.
//!
//! Every check is a pure function of the node and the ask, so the tables in the tests pin
//! Nomad's operator semantics one by one.

use std::collections::BTreeSet;

use crate::api::{Constraint, Job, Node, TaskGroup};

use super::version::{version_matches, VersionFlavor};

pub const CONSTRAINT_DISTINCT_HOSTS: &str = "distinct_hosts";
pub const CONSTRAINT_DISTINCT_PROPERTY: &str = "distinct_property";
pub const CONSTRAINT_REGEX: &str = "regexp";
pub const CONSTRAINT_VERSION: &str = "version";
pub const CONSTRAINT_SEMVER: &str = "semver";
pub const CONSTRAINT_SET_CONTAINS: &str = "set_contains";
pub const CONSTRAINT_SET_CONTAINS_ALL: &str = "set_contains_all";
pub const CONSTRAINT_SET_CONTAINS_ANY: &str = "set_contains_any";
pub const CONSTRAINT_IS_SET: &str = "is_set";
pub const CONSTRAINT_IS_NOT_SET: &str = "is_not_set";

/// Nomad's filter reason when a node lacks a task driver.
pub const FILTER_MISSING_DRIVERS: &str = "missing drivers";

/// The pool name that matches every node.
pub const NODE_POOL_ALL: &str = "all";

/// The key Nomad uses in `ConstraintFiltered`: `"<LTarget> <Operand> <RTarget>"`.
pub fn constraint_key(c: &Constraint) -> String {
    format!("{} {} {}", c.l_target, c.operand, c.r_target)
}

/// `*`-only glob, as Nomad's datacenter matching (ryanuber/go-glob).
pub fn glob_match(pattern: &str, value: &str) -> bool {
    if !pattern.contains('*') {
        return pattern == value;
    }
    let parts: Vec<&str> = pattern.split('*').collect();
    let (first, last) = (parts[0], parts[parts.len() - 1]);
    if !value.starts_with(first) || !value.ends_with(last) || value.len() < first.len() + last.len()
    {
        return false;
    }
    let mut rest = &value[first.len()..value.len() - last.len()];
    for mid in &parts[1..parts.len() - 1] {
        match rest.find(mid) {
            Some(pos) => rest = &rest[pos + mid.len()..],
            None => return false,
        }
    }
    true
}

pub fn node_in_any_dc(node: &Node, dcs: &[String]) -> bool {
    dcs.iter().any(|dc| glob_match(dc, &node.datacenter))
}

/// The job's pool, with Nomad's default when unset.
pub fn job_pool(job: &Job) -> &str {
    if job.node_pool.is_empty() {
        crate::api::DEFAULT_NODE_POOL
    } else {
        &job.node_pool
    }
}

pub fn node_in_pool(node: &Node, pool: &str) -> bool {
    if pool == NODE_POOL_ALL {
        return true;
    }
    let node_pool = if node.node_pool.is_empty() {
        crate::api::DEFAULT_NODE_POOL
    } else {
        &node.node_pool
    };
    node_pool == pool
}

/// Resolves a constraint target against a node: literals resolve to themselves,
/// `${...}` interpolations to the node's value, or `None` when the node has no such value.
pub fn resolve_target<'a>(target: &'a str, node: &'a Node) -> Option<&'a str> {
    if !target.starts_with("${") {
        return Some(target);
    }
    match target {
        "${node.unique.id}" => return Some(&node.id),
        "${node.datacenter}" => return Some(&node.datacenter),
        "${node.unique.name}" => return Some(&node.name),
        "${node.class}" => return Some(&node.node_class),
        "${node.pool}" => return Some(&node.node_pool),
        _ => {}
    }
    let inner = target.strip_prefix("${")?.strip_suffix('}')?;
    if let Some(key) = inner.strip_prefix("attr.") {
        return node.attributes.get(key).map(String::as_str);
    }
    if let Some(key) = inner.strip_prefix("meta.") {
        return node.meta.get(key).map(String::as_str);
    }
    None
}

/// Whether `node` satisfies one constraint. `distinct_*` operands are placement-time
/// properties checked elsewhere, so they pass here, as in Nomad.
pub fn meets_constraint(c: &Constraint, node: &Node) -> bool {
    let l = resolve_target(&c.l_target, node);
    let r = resolve_target(&c.r_target, node);
    check_operand(&c.operand, l, r)
}

/// Nomad's `checkConstraint` on resolved targets (`None` = not found on the node).
pub fn check_operand(operand: &str, l: Option<&str>, r: Option<&str>) -> bool {
    match operand {
        CONSTRAINT_DISTINCT_HOSTS | CONSTRAINT_DISTINCT_PROPERTY => true,
        "=" | "==" | "is" => matches!((l, r), (Some(a), Some(b)) if a == b),
        // Nomad compares the raw values with a missing target read as "", so a missing
        // attribute is "not equal" to any non-empty literal.
        "!=" | "not" => l.unwrap_or("") != r.unwrap_or(""),
        "<" | "<=" | ">" | ">=" => match (l, r) {
            (Some(a), Some(b)) => check_order(operand, a, b),
            _ => false,
        },
        CONSTRAINT_IS_SET => l.is_some(),
        CONSTRAINT_IS_NOT_SET => l.is_none(),
        CONSTRAINT_VERSION => both(l, r, |a, b| version_matches(VersionFlavor::Go, a, b)),
        CONSTRAINT_SEMVER => both(l, r, |a, b| version_matches(VersionFlavor::Semver, a, b)),
        CONSTRAINT_REGEX => both(l, r, |a, b| {
            regex::Regex::new(b)
                .map(|re| re.is_match(a))
                .unwrap_or(false)
        }),
        CONSTRAINT_SET_CONTAINS | CONSTRAINT_SET_CONTAINS_ALL => both(l, r, |a, b| {
            let have = split_set(a);
            b.split(',').all(|x| have.contains(x.trim()))
        }),
        CONSTRAINT_SET_CONTAINS_ANY => both(l, r, |a, b| {
            let have = split_set(a);
            b.split(',').any(|x| have.contains(x.trim()))
        }),
        _ => false,
    }
}

fn both(l: Option<&str>, r: Option<&str>, f: impl Fn(&str, &str) -> bool) -> bool {
    match (l, r) {
        (Some(a), Some(b)) => f(a, b),
        _ => false,
    }
}

fn split_set(s: &str) -> BTreeSet<&str> {
    s.split(',').map(str::trim).collect()
}

/// Integers if both parse, else floats if both parse, else lexical (Nomad's `checkOrder`).
pub fn check_order(op: &str, a: &str, b: &str) -> bool {
    use std::cmp::Ordering;
    let ord = if let (Ok(x), Ok(y)) = (a.parse::<i64>(), b.parse::<i64>()) {
        x.cmp(&y)
    } else if let (Ok(x), Ok(y)) = (a.parse::<f64>(), b.parse::<f64>()) {
        match x.partial_cmp(&y) {
            Some(o) => o,
            None => return false,
        }
    } else {
        a.cmp(b)
    };
    match op {
        "<" => ord == Ordering::Less,
        "<=" => ord != Ordering::Greater,
        ">" => ord == Ordering::Greater,
        ">=" => ord != Ordering::Less,
        _ => false,
    }
}

/// Whether the node runs `driver`: the driver info says detected and healthy, or (for old
/// clients without driver info) the `driver.<name>` attribute parses as a true bool.
pub fn has_driver(node: &Node, driver: &str) -> bool {
    if let Some(info) = node.drivers.get(driver) {
        return info.detected && info.healthy;
    }
    match node.attributes.get(&format!("driver.{driver}")) {
        Some(v) => parse_go_bool(v).unwrap_or(false),
        None => false,
    }
}

/// Go's `strconv.ParseBool`.
pub fn parse_go_bool(v: &str) -> Option<bool> {
    match v {
        "1" | "t" | "T" | "true" | "TRUE" | "True" => Some(true),
        "0" | "f" | "F" | "false" | "FALSE" | "False" => Some(false),
        _ => None,
    }
}

/// The drivers every task of the group needs.
pub fn group_drivers(tg: &TaskGroup) -> BTreeSet<&str> {
    tg.tasks.iter().map(|t| t.driver.as_str()).collect()
}

/// Group constraints followed by every task's constraints (Nomad's `TaskGroupConstraints`).
pub fn group_constraints(tg: &TaskGroup) -> Vec<&Constraint> {
    let mut out: Vec<&Constraint> = tg.constraints.iter().flatten().collect();
    for t in &tg.tasks {
        out.extend(t.constraints.iter().flatten());
    }
    out
}

/// Whether a constraint list asks for distinct hosts (an empty or unparsable RTarget means
/// yes, as Nomad).
pub fn wants_distinct_hosts(constraints: Option<&Vec<Constraint>>) -> bool {
    constraints
        .into_iter()
        .flatten()
        .find(|c| c.operand == CONSTRAINT_DISTINCT_HOSTS)
        .map(|c| c.r_target.is_empty() || parse_go_bool(&c.r_target).unwrap_or(true))
        .unwrap_or(false)
}

/// Whether any constraint depends on a node-unique value, which makes the computed class
/// meaningless for this job (Nomad's "escaped" computed class).
pub fn escapes_computed_class<'a>(constraints: impl IntoIterator<Item = &'a Constraint>) -> bool {
    constraints.into_iter().any(|c| {
        [&c.l_target, &c.r_target].iter().any(|t| {
            t.starts_with("${node.unique.")
                || t.starts_with("${attr.unique.")
                || t.starts_with("${meta.unique.")
        })
    })
}

/// One `affinity` block: like a constraint, with a weight in [-100, 100].
#[derive(Debug, Clone, PartialEq)]
pub struct Affinity {
    pub constraint: Constraint,
    pub weight: f64,
}

/// Reads affinities from their JSON form (`[{"LTarget", "RTarget", "Operand", "Weight"}]`);
/// entries without a usable weight are skipped, as a zero weight carries no preference.
pub fn parse_affinities(v: Option<&serde_json::Value>) -> Vec<Affinity> {
    let Some(list) = v.and_then(serde_json::Value::as_array) else {
        return Vec::new();
    };
    list.iter()
        .filter_map(|a| {
            let text = |k: &str| a.get(k).and_then(serde_json::Value::as_str).unwrap_or("");
            let weight = a.get("Weight").and_then(serde_json::Value::as_f64)?;
            (weight != 0.0).then(|| Affinity {
                constraint: Constraint {
                    l_target: text("LTarget").to_string(),
                    operand: text("Operand").to_string(),
                    r_target: text("RTarget").to_string(),
                },
                weight,
            })
        })
        .collect()
}

/// Job, group and task affinities of a group, in Nomad's merge order.
pub fn group_affinities(job: &Job, tg: &TaskGroup) -> Vec<Affinity> {
    let mut out = parse_affinities(job.affinities.as_ref());
    out.extend(parse_affinities(tg.affinities.as_ref()));
    for t in &tg.tasks {
        out.extend(parse_affinities(t.affinities.as_ref()));
    }
    out
}

/// Nomad's node-affinity score: matching weights over the sum of absolute weights.
pub fn affinity_score(affinities: &[Affinity], node: &Node) -> f64 {
    let total: f64 = affinities.iter().map(|a| a.weight.abs()).sum();
    if total == 0.0 {
        return 0.0;
    }
    let matched: f64 = affinities
        .iter()
        .filter(|a| meets_constraint(&a.constraint, node))
        .map(|a| a.weight)
        .sum();
    matched / total
}

#[cfg(test)]
#[path = "feasible_tests.rs"]
mod tests;
