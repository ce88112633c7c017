//! A task's environment (Nomad's `client/taskenv`): the `NOMAD_*` variables, ports, meta,
//! the host environment for drivers without filesystem isolation, and the task's own `env`,
//! plus `${...}` interpolation of env values and driver config strings.

use std::collections::BTreeMap;

use serde_json::Value;

use super::alloc_dir::AllocDir;
use crate::api::{Allocation, NetworkResource, Node, Task};

/// Host variables never passed to tasks (Nomad's default `env.denylist`).
pub const DEFAULT_ENV_DENYLIST: &[&str] = &[
    "CONSUL_TOKEN",
    "CONSUL_HTTP_TOKEN",
    "CONSUL_HTTP_TOKEN_FILE",
    "NOMAD_TOKEN",
    "VAULT_TOKEN",
    "CONSUL_LICENSE",
    "NOMAD_LICENSE",
    "VAULT_LICENSE",
    "CONSUL_LICENSE_PATH",
    "NOMAD_LICENSE_PATH",
    "VAULT_LICENSE_PATH",
    "AWS_ACCESS_KEY_ID",
    "AWS_SECRET_ACCESS_KEY",
    "AWS_SESSION_TOKEN",
    "AWS_METADATA_URL",
    "GOOGLE_APPLICATION_CREDENTIALS",
    "GOOGLE_OAUTH_ACCESS_TOKEN",
];

/// Prefixes whose keys are cleaned to valid shell names (Nomad #2405).
const PREFIXES_TO_CLEAN: &[&str] = &[
    "NOMAD_ADDR_",
    "NOMAD_IP_",
    "NOMAD_PORT_",
    "NOMAD_HOST_PORT_",
    "NOMAD_META_",
];

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TaskEnv {
    pub env: BTreeMap<String, String>,
    /// `attr.*`, `meta.*`, `node.*` values for interpolation.
    pub node_attrs: BTreeMap<String, String>,
}

pub struct EnvInputs<'a> {
    pub alloc: &'a Allocation,
    pub task: &'a Task,
    pub node: &'a Node,
    pub region: &'a str,
    pub alloc_dir: &'a AllocDir,
    /// The agent's environment, for drivers that do not isolate the filesystem.
    pub host_env: Option<BTreeMap<String, String>>,
}

/// Nomad's `helper.CleanEnvVar`: anything but `[A-Za-z0-9_.]` (no leading digit) becomes `_`.
pub fn clean_env_var(s: &str) -> String {
    s.bytes()
        .enumerate()
        .map(|(i, c)| match c {
            b'_' | b'.' | b'a'..=b'z' | b'A'..=b'Z' => c as char,
            b'0'..=b'9' if i > 0 => c as char,
            _ => '_',
        })
        .collect()
}

/// `0-2,5` from a core list, as Nomad's idset prints.
pub fn format_core_set(cores: &[u32]) -> String {
    let mut sorted = cores.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    let mut parts = Vec::new();
    let mut i = 0;
    while i < sorted.len() {
        let start = sorted[i];
        let mut end = start;
        while i + 1 < sorted.len() && sorted[i + 1] == end + 1 {
            i += 1;
            end = sorted[i];
        }
        parts.push(if start == end {
            start.to_string()
        } else {
            format!("{start}-{end}")
        });
        i += 1;
    }
    parts.join(",")
}

fn join_host_port(ip: &str, port: &str) -> String {
    if ip.contains(':') {
        format!("[{ip}]:{port}")
    } else {
        format!("{ip}:{port}")
    }
}

fn node_attrs(node: &Node, region: &str) -> BTreeMap<String, String> {
    let mut m = BTreeMap::new();
    if !region.is_empty() {
        m.insert("node.region".to_string(), region.to_string());
    }
    m.insert("node.unique.id".to_string(), node.id.clone());
    m.insert("node.unique.name".to_string(), node.name.clone());
    m.insert("node.class".to_string(), node.node_class.clone());
    m.insert("node.datacenter".to_string(), node.datacenter.clone());
    m.insert("node.pool".to_string(), node.node_pool.clone());
    for (k, v) in &node.attributes {
        m.insert(format!("attr.{k}"), v.clone());
    }
    for (k, v) in &node.meta {
        m.insert(format!("meta.{k}"), v.clone());
    }
    m
}

fn task_network_env(env: &mut BTreeMap<String, String>, nets: &[NetworkResource]) {
    for n in nets {
        for p in n.reserved_ports.iter().chain(&n.dynamic_ports) {
            let port = p.value.to_string();
            let family = if n.ip.contains(':') {
                "NOMAD_IPv6_"
            } else {
                "NOMAD_IPv4_"
            };
            env.insert(format!("NOMAD_IP_{}", p.label), n.ip.clone());
            env.insert(format!("{family}{}", p.label), n.ip.clone());
            env.insert(format!("NOMAD_HOST_PORT_{}", p.label), port.clone());
            env.insert(
                format!("NOMAD_ADDR_{}", p.label),
                join_host_port(&n.ip, &port),
            );
            env.insert(format!("NOMAD_PORT_{}", p.label), port);
        }
    }
}

impl TaskEnv {
    pub fn build(inp: EnvInputs<'_>) -> TaskEnv {
        let EnvInputs {
            alloc,
            task,
            node,
            region,
            alloc_dir,
            host_env,
        } = inp;
        let attrs = node_attrs(node, region);
        let mut env = BTreeMap::new();
        let dirs = alloc_dir.task(&task.name);
        env.insert("NOMAD_ALLOC_DIR".into(), path_str(&alloc_dir.shared()));
        env.insert("NOMAD_TASK_DIR".into(), path_str(&dirs.local));
        env.insert("NOMAD_SECRETS_DIR".into(), path_str(&dirs.secrets));

        let task_res = alloc
            .allocated_resources
            .as_ref()
            .and_then(|ar| ar.tasks.get(&task.name));
        let (cpu, mem, mem_max, cores) = match task_res {
            Some(tr) => (
                tr.cpu.cpu_shares,
                tr.memory.memory_mb,
                tr.memory.memory_max_mb,
                tr.cpu.reserved_cores.clone().unwrap_or_default(),
            ),
            None => task
                .resources
                .as_ref()
                .map(|r| (r.cpu, r.memory_mb, r.memory_max_mb, Vec::new()))
                .unwrap_or_default(),
        };
        if mem != 0 {
            env.insert("NOMAD_MEMORY_LIMIT".into(), mem.to_string());
        }
        if mem_max != 0 {
            env.insert("NOMAD_MEMORY_MAX_LIMIT".into(), mem_max.to_string());
        }
        if cpu != 0 {
            env.insert("NOMAD_CPU_LIMIT".into(), cpu.to_string());
        }
        if !cores.is_empty() {
            env.insert("NOMAD_CPU_CORES".into(), format_core_set(&cores));
        }
        if !alloc.id.is_empty() {
            env.insert("NOMAD_ALLOC_ID".into(), alloc.id.clone());
            env.insert(
                "NOMAD_SHORT_ALLOC_ID".into(),
                crate::api::short_id(&alloc.id).to_string(),
            );
        }
        let mut put = |k: &str, v: &str| {
            if !v.is_empty() {
                env.insert(k.to_string(), v.to_string());
            }
        };
        put("NOMAD_ALLOC_NAME", &alloc.name);
        put("NOMAD_GROUP_NAME", &alloc.task_group);
        put("NOMAD_TASK_NAME", &task.name);
        let job = alloc.job.as_deref();
        put(
            "NOMAD_JOB_ID",
            job.map(|j| j.id.as_str()).unwrap_or(&alloc.job_id),
        );
        put("NOMAD_JOB_NAME", job.map(|j| j.name.as_str()).unwrap_or(""));
        put(
            "NOMAD_JOB_PARENT_ID",
            job.map(|j| j.parent_id.as_str()).unwrap_or(""),
        );
        put("NOMAD_DC", &node.datacenter);
        put("NOMAD_PARENT_CGROUP", &node.cgroup_parent);
        put("NOMAD_NAMESPACE", &alloc.namespace);
        put("NOMAD_REGION", region);
        // Nomad prints -1 for an unparsable name, and omits it.
        if let Some(idx) = alloc.index() {
            env.insert("NOMAD_ALLOC_INDEX".into(), idx.to_string());
        }

        if let Some(nets) = task_res.and_then(|t| t.networks.as_ref()) {
            task_network_env(&mut env, nets);
        }
        if let Some(ar) = &alloc.allocated_resources {
            for p in &ar.shared.ports {
                let port = p.value.to_string();
                let addr = join_host_port(&p.host_ip, &port);
                let inner = if p.to > 0 { p.to } else { p.value }.to_string();
                env.insert(format!("NOMAD_ADDR_{}", p.label), addr.clone());
                env.insert(format!("NOMAD_HOST_ADDR_{}", p.label), addr);
                env.insert(format!("NOMAD_IP_{}", p.label), p.host_ip.clone());
                env.insert(format!("NOMAD_HOST_IP_{}", p.label), p.host_ip.clone());
                env.insert(format!("NOMAD_PORT_{}", p.label), inner.clone());
                env.insert(format!("NOMAD_ALLOC_PORT_{}", p.label), inner);
                env.insert(format!("NOMAD_HOST_PORT_{}", p.label), port);
            }
        }

        // Job < group < task meta, each key also upper-cased.
        let mut meta = BTreeMap::new();
        if let Some(j) = job {
            meta.extend(j.meta.clone().unwrap_or_default());
            if let Some(tg) = j.lookup_task_group(&alloc.task_group) {
                meta.extend(tg.meta.clone().unwrap_or_default());
            }
        }
        meta.extend(task.meta.clone().unwrap_or_default());
        let mut meta_env = BTreeMap::new();
        for (k, v) in &meta {
            let v = interpolate(v, &attrs, &env);
            meta_env.insert(format!("NOMAD_META_{}", k.to_uppercase()), v.clone());
            meta_env.insert(format!("NOMAD_META_{k}"), v);
        }
        env.extend(meta_env);

        if let Some(host) = host_env {
            for (k, v) in host {
                if !env.contains_key(&k) && !DEFAULT_ENV_DENYLIST.contains(&k.as_str()) {
                    env.insert(k, v);
                }
            }
        }
        if let Some(task_env) = &task.env {
            let base = env.clone();
            for (k, v) in task_env {
                env.insert(k.clone(), interpolate(v, &attrs, &base));
            }
        }

        let env = env
            .into_iter()
            .map(|(k, v)| {
                if PREFIXES_TO_CLEAN.iter().any(|p| k.starts_with(p)) {
                    (clean_env_var(&k), v)
                } else {
                    (k, v)
                }
            })
            .collect();
        TaskEnv {
            env,
            node_attrs: attrs,
        }
    }

    pub fn interpolate(&self, s: &str) -> String {
        interpolate(s, &self.node_attrs, &self.env)
    }

    /// Interpolates every string inside a driver config value.
    pub fn interpolate_value(&self, v: &Value) -> Value {
        match v {
            Value::String(s) => Value::String(self.interpolate(s)),
            Value::Array(items) => {
                Value::Array(items.iter().map(|i| self.interpolate_value(i)).collect())
            }
            Value::Object(map) => Value::Object(
                map.iter()
                    .map(|(k, v)| (k.clone(), self.interpolate_value(v)))
                    .collect(),
            ),
            other => other.clone(),
        }
    }
}

fn path_str(p: &std::path::Path) -> String {
    p.display().to_string()
}

/// Replaces `${NAME}`, `${env["NAME"]}`, `${attr.k}`, `${meta.k}` and `${node.k}`; unknown
/// references are left as written, as Nomad does.
pub fn interpolate(
    s: &str,
    attrs: &BTreeMap<String, String>,
    env: &BTreeMap<String, String>,
) -> String {
    if !s.contains("${") {
        return s.to_string();
    }
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            out.push_str(&rest[start..]);
            return out;
        };
        let key = after[..end].trim();
        match lookup(key, attrs, env) {
            Some(v) => out.push_str(v),
            None => out.push_str(&rest[start..start + 2 + end + 1]),
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    out
}

fn lookup<'a>(
    key: &str,
    attrs: &'a BTreeMap<String, String>,
    env: &'a BTreeMap<String, String>,
) -> Option<&'a str> {
    if let Some(inner) = key
        .strip_prefix("env[")
        .and_then(|k| k.strip_suffix(']'))
        .map(|k| k.trim().trim_matches('"'))
    {
        return env.get(inner).map(String::as_str);
    }
    if let Some(inner) = key.strip_prefix("env.") {
        return env.get(inner).map(String::as_str);
    }
    attrs.get(key).or_else(|| env.get(key)).map(String::as_str)
}

#[cfg(test)]
#[path = "taskenv_tests.rs"]
mod tests;
