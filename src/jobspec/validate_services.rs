//! Validation of `service` checks (structs.go's TaskGroup.validateServices and
//! validateScriptChecksInGroupServices, Task.Validate's validateServices, services.go's
//! ServiceCheck.validateNomad), with Nomad's error texts and nesting.
//!
//! Only the check rules the client's native checker depends on are here: the check type a
//! Nomad-provider service may use, what a script check needs (a command, a task to run in),
//! and the tasks checks refer to. Consul-provider checks are not validated (no component
//! runs them). Nomad's native checks are http and tcp only; this one also runs script checks,
//! so `script` is an allowed type and the only one that may ignore warnings (a script's exit
//! code 1 is its warning).

use std::collections::BTreeSet;

use serde_json::{Map, Value};

use crate::api::{Task, TaskGroup};

use super::validate::format_multierror;

/// The check types a `provider = "nomad"` service may use, as the error lists them.
pub const NOMAD_CHECK_TYPES: [&str; 3] = ["tcp", "http", "script"];

fn services(v: &Option<Value>) -> impl Iterator<Item = &Map<String, Value>> {
    v.iter()
        .filter_map(Value::as_array)
        .flatten()
        .filter_map(Value::as_object)
}

fn checks(s: &Map<String, Value>) -> impl Iterator<Item = &Map<String, Value>> {
    s.get("Checks")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_object)
}

fn str_field<'a>(m: &'a Map<String, Value>, key: &str) -> &'a str {
    m.get(key).and_then(Value::as_str).unwrap_or("")
}

/// ServiceCheck.validateNomad's rules for one check (the ones listed in the module doc).
fn nomad_check_error(c: &Map<String, Value>) -> Option<String> {
    let kind = str_field(c, "Type").to_ascii_lowercase();
    if !NOMAD_CHECK_TYPES.contains(&kind.as_str()) {
        return Some(format!(
            "invalid check type ({kind:?}), must be one of {}",
            NOMAD_CHECK_TYPES.join(", ")
        ));
    }
    if kind == "script" && str_field(c, "Command").is_empty() {
        return Some("script type must have a valid script path".to_string());
    }
    let ignore_warnings = c
        .get("CheckRestart")
        .and_then(|r| r.get("IgnoreWarnings"))
        .and_then(Value::as_bool)
        .unwrap_or(false);
    if ignore_warnings && kind != "script" {
        return Some(
            "ignore_warnings on check_restart only supported for Consul service checks".to_string(),
        );
    }
    None
}

/// Service.Validate's check part for one service: its errors, `None` when it has none.
fn service_error(s: &Map<String, Value>) -> Option<String> {
    if str_field(s, "Provider") != "nomad" {
        return None;
    }
    let errs: Vec<String> = checks(s).filter_map(nomad_check_error).collect();
    (!errs.is_empty()).then(|| format_multierror(&errs))
}

/// TaskGroup.validateServices: the group's services, and the tasks their checks name. Wrapped
/// by the caller as "Task group service validation failed: ...".
pub fn group_service_errors(tg: &TaskGroup) -> Vec<String> {
    let mut e = Vec::new();
    let tasks: BTreeSet<&str> = tg.tasks.iter().map(|t| t.name.as_str()).collect();
    for t in &tg.tasks {
        for s in services(&t.services) {
            for c in checks(s) {
                let task = str_field(c, "TaskName");
                if !task.is_empty() && task != t.name {
                    e.push(format!(
                        "Check {} is invalid: may only specify task the check belongs to, got {task:?}",
                        str_field(c, "Name")
                    ));
                }
            }
        }
    }
    for (i, s) in services(&tg.services).enumerate() {
        if let Some(err) = service_error(s) {
            e.push(format!(
                "Service[{i}] {} validation failed: {err}",
                str_field(s, "Name")
            ));
            continue;
        }
        for c in checks(s) {
            let task = str_field(c, "TaskName");
            if !task.is_empty() && !tasks.contains(task) {
                e.push(format!(
                    "Check {} invalid: refers to non-existent task {task}",
                    str_field(c, "Name")
                ));
            }
        }
    }
    e
}

/// TaskGroup.validateScriptChecksInGroupServices: a group service's script check must name
/// the task it runs in. Wrapped as "Task group service check validation failed: ...".
pub fn group_script_check_errors(tg: &TaskGroup) -> Vec<String> {
    let mut e = Vec::new();
    for s in services(&tg.services) {
        if !str_field(s, "TaskName").is_empty() {
            continue;
        }
        for c in checks(s) {
            if str_field(c, "Type") == "script" && str_field(c, "TaskName").is_empty() {
                e.push(format!(
                    "Service [{}]->{} or Check {} must specify task parameter",
                    tg.name,
                    str_field(s, "Name"),
                    str_field(c, "Name")
                ));
            }
        }
    }
    e
}

/// Task.Validate's validateServices, check part: one entry per invalid service.
pub fn task_service_errors(t: &Task) -> Vec<String> {
    services(&t.services)
        .enumerate()
        .filter_map(|(i, s)| {
            service_error(s).map(|err| {
                format!(
                    "service[{i}] {:?} validation failed: {err}",
                    str_field(s, "Name")
                )
            })
        })
        .collect()
}
