//! Builds the Engine API's container-create body from a task (Nomad's
//! `createContainerConfig`): env, labels, binds for /alloc /local /secrets, `mount` blocks,
//! ports, limits.

use std::collections::BTreeMap;
use std::path::Path;

use serde_json::{json, Map, Value};

use super::config::{DockerTaskConfig, MountSpec, PluginSettings};
use crate::drivers::{DriverError, TaskConfig};

pub const LABEL_ALLOC_ID: &str = "com.hashicorp.nomad.alloc_id";

/// Nomad's container name: `<task>-<alloc_id>`.
pub fn container_name(cfg: &TaskConfig) -> String {
    format!("{}-{}", cfg.name.replace('/', "_"), cfg.alloc_id)
}

/// Nomad's `memoryLimits`: memory_max (or memory_hard_limit) is the hard limit and memory
/// the reservation; without a max, memory is the hard limit.
pub fn memory_limits(hard_limit_mb: i64, memory_mb: i64, memory_max_mb: i64) -> (i64, i64) {
    const MB: i64 = 1024 * 1024;
    let high = hard_limit_mb.max(memory_max_mb);
    if high <= 0 {
        (memory_mb * MB, 0)
    } else {
        (high * MB, memory_mb * MB)
    }
}

fn path_in_task(task_dir: &Path, src: &str) -> String {
    if Path::new(src).is_absolute() {
        src.to_string()
    } else {
        task_dir.join(src).display().to_string()
    }
}

/// Host ports for `ports = [...]` (group network) or `port_map` (task network), read from
/// the task env the client built: NOMAD_HOST_PORT_<label>, NOMAD_HOST_IP_/NOMAD_IP_<label>
/// and NOMAD_PORT_<label> (the `to` port for group ports).
fn port_bindings(
    cfg: &TaskConfig,
    d: &DockerTaskConfig,
) -> Result<Vec<(String, String, String)>, DriverError> {
    let mut out = Vec::new();
    let lookup = |label: &str| -> Option<(String, String, String)> {
        let host_port = cfg.env.get(&format!("NOMAD_HOST_PORT_{label}"))?.clone();
        let ip = cfg
            .env
            .get(&format!("NOMAD_HOST_IP_{label}"))
            .or_else(|| cfg.env.get(&format!("NOMAD_IP_{label}")))
            .cloned()
            .unwrap_or_default();
        let inner = cfg
            .env
            .get(&format!("NOMAD_PORT_{label}"))
            .cloned()
            .unwrap_or_else(|| host_port.clone());
        Some((ip, host_port, inner))
    };
    if !d.ports.is_empty() {
        for label in &d.ports {
            let Some((ip, host, inner)) = lookup(label) else {
                return Err(DriverError::InvalidConfig(format!(
                    "Port {label:?} not found, check network block"
                )));
            };
            out.push((ip, host, inner));
        }
    } else {
        for (label, to) in &d.port_map {
            let Some((ip, host, _)) = lookup(label) else {
                return Err(DriverError::InvalidConfig(
                    "Trying to map ports but no network interface is available".to_string(),
                ));
            };
            out.push((ip, host, to.to_string()));
        }
    }
    Ok(out)
}

fn string_object(m: &BTreeMap<String, String>) -> Map<String, Value> {
    m.iter().map(|(k, v)| (k.clone(), json!(v))).collect()
}

/// One `mount` block as the Engine API's `Mount` (Nomad's `toDockerMount`): the options of
/// its type, with empty fields left out as the API's own encoding leaves them; a bind source
/// relative to the task dir, and outside the alloc dir only with `volumes.enabled`; named
/// volumes only with `volumes.enabled`.
fn engine_mount(
    cfg: &TaskConfig,
    m: &MountSpec,
    plugin: &PluginSettings,
) -> Result<Value, DriverError> {
    let mut o = json!({"Type": m.kind, "Target": m.target, "ReadOnly": m.readonly});
    let mut source = m.source.clone();
    match m.kind.as_str() {
        "volume" => {
            if !plugin.volumes_enabled {
                return Err(DriverError::InvalidConfig(format!(
                    "volumes are not enabled; cannot mount volume: {:?}",
                    m.source
                )));
            }
            let v = &m.volume_options;
            let mut driver = Map::new();
            if !v.driver_name.is_empty() {
                driver.insert("Name".into(), json!(v.driver_name));
            }
            if !v.driver_options.is_empty() {
                driver.insert("Options".into(), string_object(&v.driver_options).into());
            }
            let mut opts = Map::new();
            if v.no_copy {
                opts.insert("NoCopy".into(), json!(true));
            }
            if !v.labels.is_empty() {
                opts.insert("Labels".into(), string_object(&v.labels).into());
            }
            opts.insert("DriverConfig".into(), driver.into());
            o["VolumeOptions"] = opts.into();
        }
        "bind" => {
            source = path_in_task(&cfg.task_dir, &source);
            if !plugin.volumes_enabled && !Path::new(&source).starts_with(&cfg.alloc_dir) {
                return Err(DriverError::InvalidConfig(format!(
                    "volumes are not enabled; cannot mount host path: {source:?}"
                )));
            }
            let mut opts = Map::new();
            if !m.propagation.is_empty() {
                opts.insert("Propagation".into(), json!(m.propagation));
            }
            o["BindOptions"] = opts.into();
        }
        "tmpfs" => {
            if !source.is_empty() {
                return Err(DriverError::InvalidConfig(
                    "invalid source, must be \"\" for tmpfs".into(),
                ));
            }
            let t = &m.tmpfs_options;
            let mut opts = Map::new();
            if t.size != 0 {
                opts.insert("SizeBytes".into(), json!(t.size));
            }
            if t.mode != 0 {
                opts.insert("Mode".into(), json!(t.mode));
            }
            o["TmpfsOptions"] = opts.into();
        }
        other => {
            return Err(DriverError::InvalidConfig(format!(
                "invalid mount type, must be \"bind\", \"volume\", \"tmpfs\": {other:?}"
            )))
        }
    }
    if !source.is_empty() {
        o["Source"] = json!(source);
    }
    Ok(o)
}

pub fn create_body(
    cfg: &TaskConfig,
    d: &DockerTaskConfig,
    plugin: &PluginSettings,
) -> Result<Value, DriverError> {
    if d.privileged && !plugin.allow_privileged {
        return Err(DriverError::InvalidConfig(
            "Docker privileged mode is disabled on this Nomad agent".to_string(),
        ));
    }
    let allowed = &plugin.allow_caps;
    if !allowed.iter().any(|c| c == "all") {
        let bad: Vec<&String> = d
            .cap_add
            .iter()
            .filter(|c| {
                let c = c.to_lowercase();
                let c = c.trim_start_matches("cap_");
                !allowed.iter().any(|a| a == c)
            })
            .collect();
        if !bad.is_empty() {
            return Err(DriverError::InvalidConfig(format!(
                "Docker driver doesn't have the following caps allowlisted on this Nomad agent: {bad:?}"
            )));
        }
    }

    // Inside the container the task dirs live at fixed paths, as Nomad's docker driver does.
    let mut env: BTreeMap<String, String> = cfg.env.clone();
    env.insert("NOMAD_ALLOC_DIR".into(), "/alloc".into());
    env.insert("NOMAD_TASK_DIR".into(), "/local".into());
    env.insert("NOMAD_SECRETS_DIR".into(), "/secrets".into());
    let env: Vec<String> = env.iter().map(|(k, v)| format!("{k}={v}")).collect();

    let shared = cfg.alloc_dir.join("alloc");
    let mut binds = vec![
        format!("{}:/alloc", shared.display()),
        format!("{}:/local", cfg.task_dir.join("local").display()),
        format!("{}:/secrets", cfg.task_dir.join("secrets").display()),
    ];
    for v in &d.volumes {
        let mut parts = v.splitn(3, ':');
        let (Some(src), Some(dst)) = (parts.next(), parts.next()) else {
            return Err(DriverError::InvalidConfig(format!(
                "invalid docker volume {v:?}: expected src:dst[:mode]"
            )));
        };
        let src = path_in_task(&cfg.task_dir, src);
        if !plugin.volumes_enabled && !Path::new(&src).starts_with(&cfg.alloc_dir) {
            return Err(DriverError::InvalidConfig(format!(
                "volumes are not enabled; cannot mount host path: {v:?}"
            )));
        }
        let mut bind = format!("{src}:{dst}");
        if let Some(mode) = parts.next() {
            bind.push(':');
            bind.push_str(mode);
        }
        binds.push(bind);
    }
    let mut mounts = d
        .mounts
        .iter()
        .map(|m| engine_mount(cfg, m, plugin))
        .collect::<Result<Vec<_>, _>>()?;
    // Host volumes the operator configured: always allowed, whatever `volumes.enabled` says.
    for m in &cfg.mounts {
        let propagation = match m.propagation_mode.as_str() {
            "host-to-task" => "rslave",
            "bidirectional" => "rshared",
            _ => "rprivate",
        };
        mounts.push(json!({
            "Type": "bind",
            "Source": m.host_path.display().to_string(),
            "Target": m.task_path,
            "ReadOnly": m.readonly,
            "BindOptions": {"Propagation": propagation},
        }));
    }

    let mut labels: Map<String, Value> = d
        .labels
        .iter()
        .map(|(k, v)| (k.clone(), json!(v)))
        .collect();
    labels.insert(LABEL_ALLOC_ID.into(), json!(cfg.alloc_id));
    labels.insert("com.hashicorp.nomad.job_name".into(), json!(cfg.job_name));
    labels.insert(
        "com.hashicorp.nomad.task_group_name".into(),
        json!(cfg.task_group_name),
    );
    labels.insert("com.hashicorp.nomad.task_name".into(), json!(cfg.name));

    let mut port_bind = Map::new();
    let mut exposed = Map::new();
    for (ip, host, inner) in port_bindings(cfg, d)? {
        for proto in ["tcp", "udp"] {
            let key = format!("{inner}/{proto}");
            exposed.insert(key.clone(), json!({}));
            port_bind.insert(key, json!([{"HostIp": ip, "HostPort": host}]));
        }
    }

    let (memory, reservation) =
        memory_limits(d.memory_hard_limit, cfg.memory_mb, cfg.memory_max_mb);
    let network_mode = if d.network_mode.is_empty() {
        "default".to_string()
    } else {
        d.network_mode.clone()
    };
    let mut host = json!({
        "Binds": binds,
        "Mounts": mounts,
        "Privileged": d.privileged,
        "CapAdd": d.cap_add,
        "CapDrop": d.cap_drop,
        "NetworkMode": network_mode,
        "PortBindings": port_bind,
        "CpuShares": cfg.cpu_shares.max(2),
        "LogConfig": {"Type": "json-file", "Config": {"max-file": "2", "max-size": "2m"}},
    });
    if memory > 0 {
        host["Memory"] = json!(memory);
        host["MemorySwap"] = json!(memory);
        host["MemoryReservation"] = json!(reservation);
    }
    let mut body = json!({
        "Image": d.image,
        "Env": env,
        "Labels": labels,
        "ExposedPorts": exposed,
        "HostConfig": host,
    });
    if !cfg.user.is_empty() {
        body["User"] = json!(cfg.user);
    }
    if !d.hostname.is_empty() {
        body["Hostname"] = json!(d.hostname);
    }
    if !d.work_dir.is_empty() {
        body["WorkingDir"] = json!(d.work_dir);
    }
    if !d.entrypoint.is_empty() {
        body["Entrypoint"] = json!(d.entrypoint);
    }
    match &d.command {
        Some(c) => {
            let mut cmd = vec![c.clone()];
            cmd.extend(d.args.iter().cloned());
            body["Cmd"] = json!(cmd);
        }
        None if !d.args.is_empty() => body["Cmd"] = json!(d.args),
        None => {}
    }
    Ok(body)
}
