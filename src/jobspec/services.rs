//! `service` blocks (group and task level) and their `check`s, kept as JSON values in Nomad's
//! stored shape (`structs.Service`) because no component interprets them yet; plus the
//! defaults, implied constraints and warnings Nomad's server derives from them.

use hcl_edit::structure::Block;
use serde_json::{Map, Value};

use crate::api::{Constraint, Job, TaskGroup};

use super::body::{Decoder, Schema};

const SERVICE_SCHEMA: Schema = Schema {
    attrs: &[
        "name",
        "tags",
        "canary_tags",
        "enable_tag_override",
        "port",
        "address_mode",
        "address",
        "task",
        "on_update",
        "provider",
        "cluster",
        "kind",
        "meta",
        "canary_meta",
        "tagged_addresses",
    ],
    blocks: &[
        ("check", &[]),
        ("check_restart", &[]),
        ("meta", &[]),
        ("canary_meta", &[]),
        ("tagged_addresses", &[]),
        ("connect", &[]),
        ("identity", &[]),
        ("weights", &[]),
    ],
    pending: &[],
};

const CHECK_SCHEMA: Schema = Schema {
    attrs: &[
        "name",
        "type",
        "command",
        "args",
        "path",
        "protocol",
        "port",
        "expose",
        "address_mode",
        "interval",
        "timeout",
        "initial_status",
        "notes",
        "tls_server_name",
        "tls_skip_verify",
        "method",
        "grpc_service",
        "grpc_use_tls",
        "task",
        "advertise",
        "success_before_passing",
        "failures_before_critical",
        "failures_before_warning",
        "body",
        "on_update",
    ],
    blocks: &[("check_restart", &[]), ("header", &[])],
    pending: &[],
};

const CHECK_RESTART_SCHEMA: Schema = Schema {
    attrs: &["limit", "grace", "ignore_warnings"],
    blocks: &[],
    pending: &[],
};

fn opt<T: Into<Value>>(v: Option<T>) -> Value {
    v.map(Into::into).unwrap_or(Value::Null)
}

fn map_value(m: Option<std::collections::BTreeMap<String, String>>) -> Value {
    m.map(|m| Value::Object(m.into_iter().map(|(k, v)| (k, Value::String(v))).collect()))
        .unwrap_or(Value::Null)
}

/// The `service` blocks of a body, or `None` when there are none.
pub fn decode_services(dec: &mut Decoder, blocks: Vec<&Block>) -> Option<Value> {
    let list: Vec<Value> = blocks.into_iter().map(|b| service(dec, b)).collect();
    (!list.is_empty()).then_some(Value::Array(list))
}

fn service(dec: &mut Decoder, b: &Block) -> Value {
    let c = dec.content(&b.body, &SERVICE_SCHEMA);
    let check_restart = dec
        .single(&c, "check_restart")
        .map(|cr| check_restart(dec, cr));
    let checks: Vec<Value> = c
        .blocks("check")
        .into_iter()
        .map(|cb| check(dec, cb))
        .collect();
    let connect = dec
        .single(&c, "connect")
        .map(|cb| super::services_connect::connect(dec, cb));
    let identity = dec
        .single(&c, "identity")
        .map(|ib| super::job_blocks::identity(dec, ib))
        .and_then(|w| serde_json::to_value(w).ok());
    let weights = dec
        .single(&c, "weights")
        .map(|wb| super::services_connect::weights(dec, wb));
    json_object!({
        "Address": dec.string(c.attr("address")).unwrap_or_default(),
        "AddressMode": dec.string(c.attr("address_mode")).unwrap_or_default(),
        "CanaryMeta": map_value(dec.string_map(&c, "canary_meta")),
        "CanaryTags": opt(dec.string_list(c.attr("canary_tags"))),
        "CheckRestart": check_restart.unwrap_or(Value::Null),
        "Checks": if checks.is_empty() { Value::Null } else { Value::Array(checks) },
        "Cluster": dec.string(c.attr("cluster")).unwrap_or_default(),
        "Connect": opt(connect),
        "EnableTagOverride": dec.bool(c.attr("enable_tag_override")).unwrap_or(false),
        "Identity": opt(identity),
        "Kind": dec.string(c.attr("kind")).unwrap_or_default(),
        "Meta": map_value(dec.string_map(&c, "meta")),
        "Name": dec.string(c.attr("name")).unwrap_or_default(),
        "Namespace": "",
        "OnUpdate": dec.string(c.attr("on_update")).unwrap_or_default(),
        "PortLabel": dec.string(c.attr("port")).unwrap_or_default(),
        "Provider": dec.string(c.attr("provider")).unwrap_or_default(),
        "TaggedAddresses": map_value(dec.string_map(&c, "tagged_addresses")),
        "Tags": opt(dec.string_list(c.attr("tags"))),
        "TaskName": dec.string(c.attr("task")).unwrap_or_default(),
        "Weights": opt(weights),
    })
}

fn check(dec: &mut Decoder, b: &Block) -> Value {
    let c = dec.content(&b.body, &CHECK_SCHEMA);
    let header = dec
        .single(&c, "header")
        .and_then(|h| dec.free_form_block(h));
    json_object!({
        "AddressMode": dec.string(c.attr("address_mode")).unwrap_or_default(),
        "Advertise": dec.string(c.attr("advertise")).unwrap_or_default(),
        "Args": opt(dec.string_list(c.attr("args"))),
        "Body": dec.string(c.attr("body")).unwrap_or_default(),
        "CheckRestart": dec.single(&c, "check_restart").map(|cr| check_restart(dec, cr)).unwrap_or(Value::Null),
        "Command": dec.string(c.attr("command")).unwrap_or_default(),
        "Expose": dec.bool(c.attr("expose")).unwrap_or(false),
        "FailuresBeforeCritical": dec.int(c.attr("failures_before_critical")).unwrap_or(0),
        "FailuresBeforeWarning": dec.int(c.attr("failures_before_warning")).unwrap_or(0),
        "GRPCService": dec.string(c.attr("grpc_service")).unwrap_or_default(),
        "GRPCUseTLS": dec.bool(c.attr("grpc_use_tls")).unwrap_or(false),
        "Header": header.map(|h| Value::Object(h.into_iter().collect())).unwrap_or(Value::Null),
        "InitialStatus": dec.string(c.attr("initial_status")).unwrap_or_default(),
        "Interval": dec.duration(c.attr("interval")).unwrap_or(0),
        "Method": dec.string(c.attr("method")).unwrap_or_default(),
        "Name": dec.string(c.attr("name")).unwrap_or_default(),
        "Notes": dec.string(c.attr("notes")).unwrap_or_default(),
        "OnUpdate": dec.string(c.attr("on_update")).unwrap_or_default(),
        "Path": dec.string(c.attr("path")).unwrap_or_default(),
        "PortLabel": dec.string(c.attr("port")).unwrap_or_default(),
        "Protocol": dec.string(c.attr("protocol")).unwrap_or_default(),
        "SuccessBeforePassing": dec.int(c.attr("success_before_passing")).unwrap_or(0),
        "TLSServerName": dec.string(c.attr("tls_server_name")).unwrap_or_default(),
        "TLSSkipVerify": dec.bool(c.attr("tls_skip_verify")).unwrap_or(false),
        "TaskName": dec.string(c.attr("task")).unwrap_or_default(),
        "Timeout": dec.duration(c.attr("timeout")).unwrap_or(0),
        "Type": dec.string(c.attr("type")).unwrap_or_default(),
    })
}

fn check_restart(dec: &mut Decoder, b: &Block) -> Value {
    let c = dec.content(&b.body, &CHECK_RESTART_SCHEMA);
    json_object!({
        "Grace": dec.duration(c.attr("grace")).unwrap_or(0),
        "IgnoreWarnings": dec.bool(c.attr("ignore_warnings")).unwrap_or(false),
        "Limit": dec.int(c.attr("limit")).unwrap_or(0),
    })
}

fn str_field<'a>(s: &'a Map<String, Value>, key: &str) -> &'a str {
    s.get(key).and_then(Value::as_str).unwrap_or("")
}

fn set_if_empty(s: &mut Map<String, Value>, key: &str, value: &str) {
    if str_field(s, key).is_empty() {
        s.insert(key.to_string(), Value::String(value.to_string()));
    }
}

/// api.Service.Canonicalize followed by structs.Service.Canonicalize. `task` is `None` for a
/// group service.
fn canonicalize_service(s: &mut Map<String, Value>, job: &Job, group: &str, task: Option<&str>) {
    super::services_connect::canonicalize_connect(s);
    let base = match task {
        Some(t) => format!("{}-{group}-{t}", job.name),
        None => format!("{}-{group}", job.name),
    };
    set_if_empty(s, "Name", &base);
    let name = str_field(s, "Name")
        .replace("${JOB}", &job.name)
        .replace("${TASKGROUP}", group)
        .replace("${TASK}", task.unwrap_or("group"))
        .replace(
            "${BASE}",
            &format!("{}-{group}-{}", job.name, task.unwrap_or("group")),
        );
    s.insert("Name".to_string(), Value::String(name.clone()));
    set_if_empty(s, "AddressMode", "auto");
    set_if_empty(s, "OnUpdate", "require_healthy");
    set_if_empty(s, "Provider", "consul");
    set_if_empty(s, "Cluster", "default");
    if let Some(t) = task {
        set_if_empty(s, "TaskName", t);
    }
    let namespace = if str_field(s, "Provider") == "nomad" {
        job.namespace.clone()
    } else {
        "default".to_string()
    };
    if str_field(s, "Namespace").is_empty() || str_field(s, "Provider") == "nomad" {
        s.insert("Namespace".to_string(), Value::String(namespace));
    }
    // Nomad's Service has no omitempty: these keys are always there, null when unset (a
    // job submitted through the API with them left out reads back with them).
    for key in [
        "CanaryMeta",
        "CanaryTags",
        "Checks",
        "Connect",
        "Identity",
        "Meta",
        "TaggedAddresses",
        "Tags",
        "Weights",
    ] {
        s.entry(key.to_string()).or_insert(Value::Null);
    }
    for key in ["Meta", "CanaryMeta", "TaggedAddresses"] {
        if s.get(key)
            .and_then(Value::as_object)
            .is_some_and(|m| m.is_empty())
        {
            s.insert(key.to_string(), Value::Null);
        }
    }
    for key in ["Tags", "CanaryTags", "Checks"] {
        if s.get(key)
            .and_then(Value::as_array)
            .is_some_and(|a| a.is_empty())
        {
            s.insert(key.to_string(), Value::Null);
        }
    }
    let on_update = str_field(s, "OnUpdate").to_string();
    let task_name = str_field(s, "TaskName").to_string();
    let service_restart = s.get("CheckRestart").cloned().filter(|v| !v.is_null());
    if let Some(Value::Array(checks)) = s.get_mut("Checks") {
        for c in checks.iter_mut().filter_map(Value::as_object_mut) {
            // api.ServiceCheck's `Advertise` has no field in Nomad's structs: the server
            // drops it.
            c.remove("Advertise");
            set_if_empty(c, "OnUpdate", &on_update);
            set_if_empty(c, "Name", &format!("service: {name:?} check"));
            if !task_name.is_empty() {
                set_if_empty(c, "TaskName", &task_name);
            }
            if c.get("CheckRestart").is_none_or(Value::is_null) {
                if let Some(r) = &service_restart {
                    c.insert("CheckRestart".to_string(), r.clone());
                }
            }
        }
    }
}

fn services_mut(v: &mut Option<Value>) -> impl Iterator<Item = &mut Map<String, Value>> {
    v.iter_mut()
        .filter_map(Value::as_array_mut)
        .flatten()
        .filter_map(Value::as_object_mut)
}

fn services(v: &Option<Value>) -> impl Iterator<Item = &Map<String, Value>> {
    v.iter()
        .filter_map(Value::as_array)
        .flatten()
        .filter_map(Value::as_object)
}

/// The job fields services read (its name and namespace), for `canonicalize_group_services`;
/// copying the whole job for them was a tenth of the parse benchmark (BENCHMARKS.md).
pub fn service_context(job: &Job) -> Job {
    Job {
        name: job.name.clone(),
        namespace: job.namespace.clone(),
        ..Job::default()
    }
}

/// Service defaults for one group and its tasks (`job` is the `service_context` of the
/// group's job), then the constraints Nomad implies from them (jobImpliedConstraints):
/// nomad-provider services need
/// `${attr.nomad.service_discovery} = true` (and `${attr.nomad.version}` semver >= 1.4.0 when
/// they have checks); consul ones `${attr.consul.version}` semver >= 1.8.0 unless the group or
/// task already constrains that attribute.
pub fn canonicalize_group_services(tg: &mut TaskGroup, job: &Job) {
    for s in services_mut(&mut tg.services) {
        canonicalize_service(s, job, &tg.name, None);
    }
    let group_name = tg.name.clone();
    for t in &mut tg.tasks {
        let task_name = t.name.clone();
        for s in services_mut(&mut t.services) {
            canonicalize_service(s, job, &group_name, Some(&task_name));
        }
    }
    implied_constraints(tg);
}

fn constraint(l: &str, op: &str, r: &str) -> Constraint {
    Constraint {
        l_target: l.to_string(),
        operand: op.to_string(),
        r_target: r.to_string(),
    }
}

fn implied_constraints(tg: &mut TaskGroup) {
    let all: Vec<&Map<String, Value>> = services(&tg.services)
        .chain(tg.tasks.iter().flat_map(|t| services(&t.services)))
        .collect();
    let nomad: Vec<&&Map<String, Value>> = all
        .iter()
        .filter(|s| str_field(s, "Provider") == "nomad")
        .collect();
    let mut wanted_full = Vec::new();
    if !nomad.is_empty() {
        wanted_full.push(constraint("${attr.nomad.service_discovery}", "=", "true"));
    }
    if nomad.iter().any(|s| {
        s.get("Checks")
            .and_then(Value::as_array)
            .is_some_and(|c| !c.is_empty())
    }) {
        wanted_full.push(constraint("${attr.nomad.version}", "semver", ">= 1.4.0"));
    }
    let consul_group = services(&tg.services).any(|s| str_field(s, "Provider") == "consul");
    let consul_tasks: Vec<bool> = tg
        .tasks
        .iter()
        .map(|t| services(&t.services).any(|s| str_field(s, "Provider") == "consul"))
        .collect();
    for c in wanted_full {
        let list = tg.constraints.get_or_insert_with(Vec::new);
        if !list.contains(&c) {
            list.push(c);
        }
    }
    let consul = constraint("${attr.consul.version}", "semver", ">= 1.8.0");
    let add_left = |list: &mut Option<Vec<Constraint>>| {
        let l = list.get_or_insert_with(Vec::new);
        if !l.iter().any(|c| c.l_target == consul.l_target) {
            l.push(consul.clone());
        }
    };
    if consul_group {
        add_left(&mut tg.constraints);
    }
    for (t, has) in tg.tasks.iter_mut().zip(consul_tasks) {
        if has {
            add_left(&mut t.constraints);
        }
    }
}

/// generateTaskGroupServiceShutdownDelayWarnings.
pub fn shutdown_delay_warnings(tg: &TaskGroup) -> Vec<String> {
    let mut w = Vec::new();
    let mut referenced = std::collections::BTreeSet::new();
    let mut unscoped = false;
    for s in services(&tg.services) {
        let task = str_field(s, "TaskName");
        if !task.is_empty() {
            referenced.insert(task.to_string());
        } else {
            unscoped = true;
        }
    }
    let group_delay = tg.shutdown_delay.is_some_and(|d| d > 0);
    let mut any_task_delay = false;
    for t in &tg.tasks {
        if referenced.contains(&t.name) && t.shutdown_delay == 0 {
            w.push(format!(
                "group {:?} references task {:?} in a service definition, but the task has no shutdown_delay set",
                tg.name, t.name
            ));
        }
        if t.shutdown_delay > 0 {
            any_task_delay = true;
        } else if services(&t.services).next().is_some() {
            w.push(format!(
                "task {:?} in group {:?} defines services, but has no shutdown_delay set",
                t.name, tg.name
            ));
        }
    }
    if unscoped && !group_delay && !any_task_delay {
        w.push(format!(
            "group {:?} defines services, but neither the group nor any of its tasks have shutdown_delay set",
            tg.name
        ));
    }
    w
}
