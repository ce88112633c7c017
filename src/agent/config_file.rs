//! Reading agent config files: HCL (via hcl-rs, into the HCL JSON shape) or JSON, one file or
//! a directory of them, into `FileConfig` whose fields are all optional so merging can tell
//! "unset" from "zero".

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;

use super::ConfigError;

/// Objects merge key by key (Nomad's PluginConfigSetMerge); anything else is replaced.
pub(super) fn merge_json(dst: &mut Value, src: Value) {
    match (dst, src) {
        (Value::Object(d), Value::Object(s)) => {
            for (k, v) in s {
                match d.get_mut(&k) {
                    Some(existing) => merge_json(existing, v),
                    None => {
                        d.insert(k, v);
                    }
                }
            }
        }
        (d, s) => *d = s,
    }
}

/// A file is itself; a directory is its `*.hcl` and `*.json` files in name order, skipping
/// editor temporaries, as Nomad's LoadConfigDir.
pub(super) fn config_files(path: &Path) -> Result<Vec<PathBuf>, ConfigError> {
    let read_err = |source| ConfigError::Read {
        path: path.to_path_buf(),
        source,
    };
    let meta = std::fs::metadata(path).map_err(read_err)?;
    if !meta.is_dir() {
        return Ok(vec![path.to_path_buf()]);
    }
    let mut files = Vec::new();
    for entry in std::fs::read_dir(path).map_err(read_err)? {
        let entry = entry.map_err(read_err)?;
        let p = entry.path();
        let name = entry.file_name().to_string_lossy().to_string();
        let temporary = name.starts_with('.')
            || name.ends_with('~')
            || (name.starts_with('#') && name.ends_with('#'));
        if p.is_dir() || temporary || !(name.ends_with(".hcl") || name.ends_with(".json")) {
            continue;
        }
        files.push(p);
    }
    files.sort();
    Ok(files)
}

pub(super) fn read_file(path: &Path) -> Result<FileConfig, ConfigError> {
    let src = std::fs::read_to_string(path).map_err(|source| ConfigError::Read {
        path: path.to_path_buf(),
        source,
    })?;
    let is_json = path.extension().is_some_and(|e| e == "json");
    let value: Value = if is_json {
        serde_json::from_str(&src).map_err(|e| ConfigError::Json {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?
    } else {
        hcl::from_str(&src).map_err(|e| ConfigError::Hcl {
            path: path.to_path_buf(),
            message: e.to_string(),
        })?
    };
    FileConfig::from_value(value).map_err(|message| ConfigError::Decode {
        path: path.to_path_buf(),
        message,
    })
}

/// One config file as written: every field optional, so merging can tell "unset" from "zero".
#[derive(Debug, Default, Deserialize)]
pub(super) struct FileConfig {
    pub(super) region: Option<String>,
    pub(super) datacenter: Option<String>,
    pub(super) name: Option<String>,
    pub(super) data_dir: Option<PathBuf>,
    pub(super) plugin_dir: Option<PathBuf>,
    pub(super) bind_addr: Option<String>,
    pub(super) log_level: Option<String>,
    pub(super) log_json: Option<bool>,
    pub(super) leave_on_interrupt: Option<bool>,
    pub(super) leave_on_terminate: Option<bool>,
    pub(super) disable_update_check: Option<bool>,
    pub(super) ports: Option<FilePorts>,
    pub(super) addresses: Option<FileAddresses>,
    pub(super) advertise: Option<FileAddresses>,
    pub(super) server: Option<FileServer>,
    pub(super) client: Option<FileClient>,
    #[serde(skip)]
    pub(super) plugins: BTreeMap<String, Value>,
    #[serde(skip)]
    pub(super) unknown: Vec<String>,
}

#[derive(Debug, Default, Deserialize)]
pub(super) struct FilePorts {
    pub(super) http: Option<u16>,
    pub(super) rpc: Option<u16>,
    pub(super) serf: Option<u16>,
}

#[derive(Debug, Default, Deserialize)]
pub(super) struct FileAddresses {
    pub(super) http: Option<String>,
    pub(super) rpc: Option<String>,
    pub(super) serf: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
pub(super) struct FileServerJoin {
    pub(super) retry_join: Option<Vec<String>>,
}

#[derive(Debug, Default, Deserialize)]
pub(super) struct FileServer {
    pub(super) enabled: Option<bool>,
    pub(super) bootstrap_expect: Option<u32>,
    pub(super) num_schedulers: Option<u32>,
    pub(super) data_dir: Option<PathBuf>,
    pub(super) retry_join: Option<Vec<String>>,
    pub(super) server_join: Option<FileServerJoin>,
    pub(super) job_gc_interval: Option<String>,
    pub(super) job_gc_threshold: Option<String>,
    pub(super) eval_gc_threshold: Option<String>,
    pub(super) batch_eval_gc_threshold: Option<String>,
    pub(super) deployment_gc_threshold: Option<String>,
    pub(super) node_gc_threshold: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
pub(super) struct FileReserved {
    pub(super) cpu: Option<u64>,
    pub(super) memory: Option<u64>,
    pub(super) disk: Option<u64>,
    pub(super) reserved_ports: Option<String>,
    /// A core list ("0-1,3") withheld from scheduling.
    pub(super) cores: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
pub(super) struct FileClient {
    pub(super) enabled: Option<bool>,
    pub(super) servers: Option<Vec<String>>,
    pub(super) node_class: Option<String>,
    pub(super) node_pool: Option<String>,
    pub(super) meta: Option<BTreeMap<String, String>>,
    pub(super) options: Option<BTreeMap<String, String>>,
    pub(super) network_interface: Option<String>,
    pub(super) network_speed: Option<u64>,
    pub(super) cpu_total_compute: Option<u64>,
    pub(super) disk_total_mb: Option<u64>,
    pub(super) memory_total_mb: Option<u64>,
    pub(super) reservable_cores: Option<String>,
    pub(super) bridge_network_name: Option<String>,
    pub(super) bridge_network_hairpin_mode: Option<bool>,
    pub(super) node_max_allocs: Option<u64>,
    pub(super) gc_volumes_on_node_gc: Option<bool>,
    pub(super) reserved: Option<FileReserved>,
    pub(super) min_dynamic_port: Option<u16>,
    pub(super) max_dynamic_port: Option<u16>,
    pub(super) state_dir: Option<PathBuf>,
    pub(super) alloc_dir: Option<PathBuf>,
    /// `host_volume "<name>" { path read_only }`, kept raw: decoded by `host_volumes`.
    pub(super) host_volume: Option<Value>,
}

#[derive(Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
struct FileHostVolume {
    path: Option<PathBuf>,
    read_only: Option<bool>,
}

/// Decode `host_volume` blocks: HCL gives `{name: body}` (or a list of such, or, in JSON,
/// a list of bodies per name).
pub(super) fn host_volumes(
    v: Value,
) -> Result<Vec<(String, crate::client::config::HostVolumeConfig)>, String> {
    let mut out = Vec::new();
    let mut add = |name: &str, body: Value| -> Result<(), String> {
        let mut body = body;
        flatten_bodies(&mut body);
        let f: FileHostVolume = serde_json::from_value(body)
            .map_err(|e| format!("client.host_volume {name:?}: {e}"))?;
        let path = f
            .path
            .filter(|p| !p.as_os_str().is_empty())
            .ok_or_else(|| {
                format!("client.host_volume {name:?}: missing required field \"path\"")
            })?;
        if !path.is_absolute() {
            return Err(format!(
                "client.host_volume {name:?}: path must be absolute: got {}",
                path.display()
            ));
        }
        out.push((
            name.to_string(),
            crate::client::config::HostVolumeConfig {
                path,
                read_only: f.read_only.unwrap_or(false),
            },
        ));
        Ok(())
    };
    let items = match v {
        Value::Array(items) => items,
        other => vec![other],
    };
    for item in items {
        let Value::Object(named) = item else {
            return Err("client.host_volume: expected a labelled block".to_string());
        };
        for (name, body) in named {
            add(&name, body)?;
        }
    }
    Ok(out)
}

/// Known keys per section, so everything else can be reported as unknown.
const TOP_KEYS: &[&str] = &[
    "region",
    "datacenter",
    "name",
    "data_dir",
    "plugin_dir",
    "bind_addr",
    "log_level",
    "log_json",
    "leave_on_interrupt",
    "leave_on_terminate",
    "disable_update_check",
    "ports",
    "addresses",
    "advertise",
    "server",
    "client",
    "plugin",
];
const SERVER_KEYS: &[&str] = &[
    "enabled",
    "bootstrap_expect",
    "num_schedulers",
    "data_dir",
    "retry_join",
    "server_join",
    "job_gc_interval",
    "job_gc_threshold",
    "eval_gc_threshold",
    "batch_eval_gc_threshold",
    "deployment_gc_threshold",
    "node_gc_threshold",
];
const CLIENT_KEYS: &[&str] = &[
    "enabled",
    "servers",
    "node_class",
    "node_pool",
    "meta",
    "options",
    "network_interface",
    "network_speed",
    "cpu_total_compute",
    "disk_total_mb",
    "memory_total_mb",
    "reservable_cores",
    "bridge_network_name",
    "bridge_network_hairpin_mode",
    "node_max_allocs",
    "gc_volumes_on_node_gc",
    "reserved",
    "min_dynamic_port",
    "max_dynamic_port",
    "state_dir",
    "alloc_dir",
    "host_volume",
];

impl FileConfig {
    fn from_value(value: Value) -> Result<FileConfig, String> {
        let Value::Object(mut top) = value else {
            return Err("error parsing: root should be an object".to_string());
        };
        let mut unknown = Vec::new();
        // HCL JSON allows every block to be a list of bodies; fold those into one object.
        for key in ["ports", "addresses", "advertise", "server", "client"] {
            if let Some(v) = top.get_mut(key) {
                flatten_bodies(v);
                if let Value::Object(section) = v {
                    for sub in ["reserved", "meta", "options", "server_join"] {
                        if let Some(s) = section.get_mut(sub) {
                            flatten_bodies(s);
                        }
                    }
                }
            }
        }
        let plugins = match top.remove("plugin") {
            Some(v) => plugin_configs(v)?,
            None => BTreeMap::new(),
        };
        for (section, known) in [("server", SERVER_KEYS), ("client", CLIENT_KEYS)] {
            if let Some(Value::Object(m)) = top.get_mut(section) {
                let extra: Vec<String> = m
                    .keys()
                    .filter(|k| !known.contains(&k.as_str()))
                    .cloned()
                    .collect();
                for k in extra {
                    m.remove(&k);
                    unknown.push(format!("{section}.{k}"));
                }
            }
        }
        let extra: Vec<String> = top
            .keys()
            .filter(|k| !TOP_KEYS.contains(&k.as_str()))
            .cloned()
            .collect();
        for k in extra {
            top.remove(&k);
            unknown.push(k);
        }
        let mut f: FileConfig =
            serde_json::from_value(Value::Object(top)).map_err(|e| e.to_string())?;
        f.plugins = plugins;
        f.unknown = unknown;
        Ok(f)
    }
}

fn flatten_bodies(v: &mut Value) {
    if let Value::Array(items) = v {
        let mut merged = Value::Object(Default::default());
        for item in std::mem::take(items) {
            merge_json(&mut merged, item);
        }
        *v = merged;
    }
}

/// `plugin "name" { config { ... } }` in its HCL JSON shapes -> name -> config object.
fn plugin_configs(v: Value) -> Result<BTreeMap<String, Value>, String> {
    let mut out = BTreeMap::new();
    let items = match v {
        Value::Array(items) => items,
        other => vec![other],
    };
    for item in items {
        let Value::Object(by_name) = item else {
            return Err("plugin blocks must be labelled with the plugin name".to_string());
        };
        for (name, mut body) in by_name {
            flatten_bodies(&mut body);
            let mut config = match &mut body {
                Value::Object(b) => b
                    .remove("config")
                    .unwrap_or(Value::Object(Default::default())),
                _ => return Err(format!("plugin {name:?} must be a block")),
            };
            flatten_bodies(&mut config);
            let entry = out
                .entry(name)
                .or_insert_with(|| Value::Object(Default::default()));
            merge_json(entry, config);
        }
    }
    Ok(out)
}
