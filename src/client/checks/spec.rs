//! The checks of an alloc's Nomad-provider services, read from the job's service blocks and
//! resolved to the address they probe.

use std::time::Duration;

use serde_json::Value;

use crate::api::{Allocation, Node, CHECK_HEALTHINESS, CHECK_READINESS};
use crate::client::taskenv::TaskEnv;

/// Nomad's defaults when a check leaves them out (structs.ServiceCheck.Canonicalize has
/// none for native checks; validation requires them, so these only guard against zero).
const MIN_INTERVAL: Duration = Duration::from_secs(1);
const DEFAULT_TIMEOUT: Duration = Duration::from_secs(5);

/// `check_restart { limit grace ignore_warnings }`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CheckRestart {
    pub limit: u32,
    pub grace: Duration,
    pub ignore_warnings: bool,
}

/// What a check does, from its `type`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CheckKind {
    Http,
    Tcp,
    /// Runs `command` inside the check's task (through the driver's exec).
    Script,
}

/// One check as written in the job (after interpolation).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct CheckSpec {
    pub name: String,
    /// The `type` as written (it is part of the check's ID); see [`CheckSpec::check_kind`].
    pub kind: String,
    /// Script checks: the program and its arguments.
    pub command: String,
    pub args: Vec<String>,
    pub path: String,
    pub method: String,
    pub headers: Vec<(String, String)>,
    pub body: String,
    pub protocol: String,
    pub port_label: String,
    pub address_mode: String,
    pub on_update: String,
    pub task_name: String,
    pub interval: Duration,
    pub timeout: Duration,
    pub tls_skip_verify: bool,
    pub check_restart: Option<CheckRestart>,
}

/// A check with what its results are labelled with and where it probes.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CheckTarget {
    pub id: String,
    /// The alloc's name (Nomad labels results with it, not the group's name).
    pub group: String,
    /// The task the check belongs to (empty for a group service without `task`).
    pub task: String,
    pub service: String,
    pub spec: CheckSpec,
    /// `host:port` to probe, or why it cannot be resolved (reported as the check's output).
    /// Empty for script checks, which probe nothing.
    pub address: Result<String, String>,
}

impl CheckTarget {
    pub fn mode(&self) -> &'static str {
        mode_of(&self.spec)
    }
}

/// `readiness` for `on_update = "ignore"`, otherwise `healthiness` (structs.GetCheckMode).
pub fn mode_of(c: &CheckSpec) -> &'static str {
    if c.on_update == "ignore" {
        CHECK_READINESS
    } else {
        CHECK_HEALTHINESS
    }
}

fn s(v: &Value, key: &str) -> String {
    v.get(key)
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string()
}

fn nanos(v: &Value, key: &str) -> Duration {
    Duration::from_nanos(v.get(key).and_then(Value::as_u64).unwrap_or(0))
}

/// `header { Name = ["a", "b"] }` in job order; plain string values are accepted too.
fn headers(v: &Value, env: &TaskEnv) -> Vec<(String, String)> {
    let mut out = Vec::new();
    for (name, values) in v
        .get("Header")
        .and_then(Value::as_object)
        .into_iter()
        .flatten()
    {
        match values {
            Value::Array(items) => {
                for item in items.iter().filter_map(Value::as_str) {
                    out.push((name.clone(), env.interpolate(item)));
                }
            }
            Value::String(item) => out.push((name.clone(), env.interpolate(item))),
            _ => {}
        }
    }
    out
}

impl CheckSpec {
    /// Job validation admits only http, tcp and script for Nomad services; anything else
    /// (a job stored before that rule) is probed as tcp, as Nomad's checker does.
    pub fn check_kind(&self) -> CheckKind {
        match self.kind.to_ascii_lowercase().as_str() {
            "http" => CheckKind::Http,
            "script" => CheckKind::Script,
            _ => CheckKind::Tcp,
        }
    }

    pub fn from_value(c: &Value, env: &TaskEnv) -> CheckSpec {
        let check_restart = c
            .get("CheckRestart")
            .filter(|r| r.is_object())
            .map(|r| CheckRestart {
                limit: r
                    .get("Limit")
                    .and_then(Value::as_u64)
                    .and_then(|l| u32::try_from(l).ok())
                    .unwrap_or(0),
                grace: nanos(r, "Grace"),
                ignore_warnings: r
                    .get("IgnoreWarnings")
                    .and_then(Value::as_bool)
                    .unwrap_or(false),
            })
            .filter(|r| r.limit > 0);
        let kind = s(c, "Type");
        let mut protocol = s(c, "Protocol");
        if kind.eq_ignore_ascii_case("http") && protocol.is_empty() {
            protocol = "http".to_string();
        }
        let timeout = nanos(c, "Timeout");
        CheckSpec {
            name: env.interpolate(&s(c, "Name")),
            path: env.interpolate(&s(c, "Path")),
            command: env.interpolate(&s(c, "Command")),
            args: c
                .get("Args")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
                .filter_map(Value::as_str)
                .map(|a| env.interpolate(a))
                .collect(),
            method: s(c, "Method"),
            headers: headers(c, env),
            body: env.interpolate(&s(c, "Body")),
            protocol,
            port_label: env.interpolate(&s(c, "PortLabel")),
            address_mode: s(c, "AddressMode"),
            on_update: s(c, "OnUpdate"),
            task_name: s(c, "TaskName"),
            interval: nanos(c, "Interval").max(MIN_INTERVAL),
            timeout: if timeout.is_zero() {
                DEFAULT_TIMEOUT
            } else {
                timeout
            },
            tls_skip_verify: c
                .get("TLSSkipVerify")
                .and_then(Value::as_bool)
                .unwrap_or(false),
            check_restart,
            kind,
        }
    }
}

/// Nomad's `NomadCheckID`: a SHA-256 over the alloc, group and the check's identity fields,
/// hex encoded, so an unchanged check keeps its ID across job updates.
pub fn check_id(alloc_id: &str, group: &str, c: &CheckSpec) -> String {
    let mut ctx = aws_lc_rs::digest::Context::new(&aws_lc_rs::digest::SHA256);
    let interval = c.interval.as_nanos() as i64;
    let timeout = c.timeout.as_nanos() as i64;
    for part in [
        alloc_id,
        group,
        &c.task_name,
        &c.name,
        &c.kind,
        &c.port_label,
        &c.on_update,
        &c.address_mode,
    ] {
        ctx.update(part.as_bytes());
    }
    ctx.update(&interval.to_le_bytes());
    ctx.update(&timeout.to_le_bytes());
    for part in [&c.protocol, &c.path, &c.method] {
        ctx.update(part.as_bytes());
    }
    ctx.update(if c.tls_skip_verify {
        b"true" as &[u8]
    } else {
        b"false"
    });
    // Nomad has no native script checks, so their IDs are ours to define: the command is part
    // of them, so that a job update changing it replaces the running check (updates keep
    // checks whose ID is unchanged). http and tcp IDs stay Nomad's.
    if c.check_kind() == CheckKind::Script {
        for part in std::iter::once(&c.command).chain(&c.args) {
            ctx.update(part.as_bytes());
            ctx.update(&[0]);
        }
    }
    ctx.finish()
        .as_ref()
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Where a check of a service with `service_port` and `service_address` probes (Nomad's
/// `GetAddress` for the `auto` and `host` modes).
fn address(
    alloc: &Allocation,
    node: &Node,
    service_port: &str,
    service_address: &str,
    c: &CheckSpec,
) -> Result<String, String> {
    let label = if c.port_label.is_empty() {
        service_port
    } else {
        &c.port_label
    };
    let (ip, port) = crate::client::services::resolve(alloc, node, label);
    if port == 0 && !label.is_empty() {
        return Err(format!(
            "invalid port {label:?}: port label not found or value is invalid"
        ));
    }
    let host = if service_address.is_empty() {
        ip
    } else {
        service_address.to_string()
    };
    if port == 0 {
        return Ok(host);
    }
    if host.contains(':') {
        Ok(format!("[{host}]:{port}"))
    } else {
        Ok(format!("{host}:{port}"))
    }
}

/// The checks of one Nomad-provider service (`svc`), owned by `task` ("" for a group one).
pub fn targets_of_service(
    alloc: &Allocation,
    node: &Node,
    env: &TaskEnv,
    svc: &Value,
) -> Vec<CheckTarget> {
    let service = env.interpolate(&s(svc, "Name"));
    let service_port = s(svc, "PortLabel");
    let service_address = env.interpolate(&s(svc, "Address"));
    let service_task = s(svc, "TaskName");
    svc.get("Checks")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .map(|c| {
            let mut spec = CheckSpec::from_value(c, env);
            if spec.task_name.is_empty() {
                spec.task_name = service_task.clone();
            }
            let address = match spec.check_kind() {
                CheckKind::Script => Ok(String::new()),
                CheckKind::Http | CheckKind::Tcp => {
                    address(alloc, node, &service_port, &service_address, &spec)
                }
            };
            CheckTarget {
                id: check_id(&alloc.id, &alloc.task_group, &spec),
                group: alloc.name.clone(),
                task: service_task.clone(),
                service: service.clone(),
                address,
                spec,
            }
        })
        .collect()
}
