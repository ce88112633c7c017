//! The docker plugin's agent config and a task's `config { }` block, with Nomad's names and
//! defaults (drivers/docker/config.go).

use std::collections::BTreeMap;
use std::time::Duration;

use serde_json::Value;

use crate::drivers::{parse_go_duration, DriverError, PluginConfig, TaskConfig};

#[derive(Debug, Clone, PartialEq)]
pub struct PluginSettings {
    pub endpoint: String,
    pub allow_privileged: bool,
    pub allow_caps: Vec<String>,
    pub volumes_enabled: bool,
    pub gc_container: bool,
    pub gc_image: bool,
    /// How long an image no task uses any more is kept before it is removed.
    pub gc_image_delay: Duration,
    /// Why the plugin config cannot be used (Nomad's `SetConfig` error); the driver then
    /// fingerprints as undetected with this as the reason.
    pub config_error: Option<String>,
}

/// Nomad's default `gc.image_delay`.
pub const DEFAULT_IMAGE_DELAY: Duration = Duration::from_secs(3 * 60);

/// Nomad's default `allow_caps`: Docker's default capability set.
const DEFAULT_CAPS: &[&str] = &[
    "audit_write",
    "chown",
    "dac_override",
    "fowner",
    "fsetid",
    "kill",
    "mknod",
    "net_bind_service",
    "setfcap",
    "setgid",
    "setpcap",
    "setuid",
    "sys_chroot",
];

/// HCL blocks arrive as an object or a one-element list of objects.
fn block(v: Option<&Value>) -> Option<&serde_json::Map<String, Value>> {
    match v? {
        Value::Object(m) => Some(m),
        Value::Array(items) => items.first().and_then(Value::as_object),
        _ => None,
    }
}

fn as_bool(v: Option<&Value>) -> Option<bool> {
    match v? {
        Value::Bool(b) => Some(*b),
        Value::String(s) => s.parse().ok(),
        _ => None,
    }
}

impl PluginSettings {
    pub fn from_config(cfg: Option<&PluginConfig>) -> Self {
        let empty = PluginConfig::new();
        let cfg = cfg.unwrap_or(&empty);
        let volumes = block(cfg.get("volumes"));
        let gc = block(cfg.get("gc"));
        let mut config_error = None;
        let gc_image_delay = match gc.and_then(|g| g.get("image_delay")) {
            Some(Value::String(s)) if !s.is_empty() => parse_go_duration(s).unwrap_or_else(|e| {
                config_error = Some(format!("failed to parse 'image_delay' duration: {e}"));
                DEFAULT_IMAGE_DELAY
            }),
            _ => DEFAULT_IMAGE_DELAY,
        };
        PluginSettings {
            endpoint: cfg
                .get("endpoint")
                .and_then(Value::as_str)
                .unwrap_or_default()
                .to_string(),
            allow_privileged: as_bool(cfg.get("allow_privileged")).unwrap_or(false),
            allow_caps: match cfg.get("allow_caps") {
                Some(Value::Array(a)) => a
                    .iter()
                    .filter_map(Value::as_str)
                    .map(|s| s.to_lowercase())
                    .collect(),
                _ => DEFAULT_CAPS.iter().map(|s| s.to_string()).collect(),
            },
            volumes_enabled: volumes
                .and_then(|v| as_bool(v.get("enabled")))
                .unwrap_or(false),
            gc_container: gc.and_then(|g| as_bool(g.get("container"))).unwrap_or(true),
            gc_image: gc.and_then(|g| as_bool(g.get("image"))).unwrap_or(true),
            gc_image_delay,
            config_error,
        }
    }
}

/// One `mount { }` block (Nomad's `DockerMount`); the options blocks are those of its type.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct MountSpec {
    pub kind: String,
    pub target: String,
    pub source: String,
    pub readonly: bool,
    /// `bind_options { propagation }`.
    pub propagation: String,
    pub volume_options: VolumeOptions,
    pub tmpfs_options: TmpfsOptions,
}

/// `volume_options { no_copy labels driver_config { name options } }`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct VolumeOptions {
    pub no_copy: bool,
    pub labels: BTreeMap<String, String>,
    pub driver_name: String,
    pub driver_options: BTreeMap<String, String>,
}

/// `tmpfs_options { size mode }`: size in bytes, mode as the number the job gives.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct TmpfsOptions {
    pub size: i64,
    pub mode: i64,
}

#[derive(Debug, Clone, Default, PartialEq)]
pub struct DockerTaskConfig {
    pub image: String,
    pub command: Option<String>,
    pub args: Vec<String>,
    pub entrypoint: Vec<String>,
    pub labels: BTreeMap<String, String>,
    pub ports: Vec<String>,
    pub port_map: BTreeMap<String, i64>,
    pub network_mode: String,
    pub volumes: Vec<String>,
    pub mounts: Vec<MountSpec>,
    pub privileged: bool,
    pub cap_add: Vec<String>,
    pub cap_drop: Vec<String>,
    pub work_dir: String,
    pub hostname: String,
    pub force_pull: bool,
    pub memory_hard_limit: i64,
}

/// `list(map(string))` in HCL's JSON shape: an object or a list of objects, merged.
fn string_map(v: Option<&Value>, key: &str) -> Result<BTreeMap<String, String>, DriverError> {
    let mut out = BTreeMap::new();
    let objs: Vec<&serde_json::Map<String, Value>> = match v {
        None | Some(Value::Null) => Vec::new(),
        Some(Value::Object(m)) => vec![m],
        Some(Value::Array(a)) => a.iter().filter_map(Value::as_object).collect(),
        Some(other) => {
            return Err(DriverError::InvalidConfig(format!(
                "{key:?} must be a map, got {other}"
            )))
        }
    };
    for m in objs {
        for (k, v) in m {
            let s = match v {
                Value::String(s) => s.clone(),
                other => other.to_string(),
            };
            out.insert(k.clone(), s);
        }
    }
    Ok(out)
}

impl DockerTaskConfig {
    pub fn decode(cfg: &TaskConfig) -> Result<Self, DriverError> {
        let unknown = super::schema::unknown_keys(&cfg.config);
        if !unknown.is_empty() {
            return Err(DriverError::StartFailed {
                message: super::schema::unknown_keys_message(&unknown),
                recoverable: false,
            });
        }
        let image = cfg
            .config_str("image")?
            .filter(|s| !s.is_empty())
            .ok_or_else(|| {
                DriverError::InvalidConfig(
                    "Missing required argument: The argument \"image\" is required".to_string(),
                )
            })?;
        let port_map = string_map(cfg.config.get("port_map"), "port_map")?
            .into_iter()
            .map(|(k, v)| {
                v.parse::<i64>().map(|n| (k.clone(), n)).map_err(|_| {
                    DriverError::InvalidConfig(format!("port_map {k:?} must be a number"))
                })
            })
            .collect::<Result<_, _>>()?;
        let mut mounts = Vec::new();
        for key in ["mount", "mounts"] {
            let items: Vec<&serde_json::Map<String, Value>> = match cfg.config.get(key) {
                Some(Value::Object(m)) => vec![m],
                Some(Value::Array(a)) => a.iter().filter_map(Value::as_object).collect(),
                _ => Vec::new(),
            };
            for m in items {
                mounts.push(mount_spec(m)?);
            }
        }
        Ok(DockerTaskConfig {
            image,
            command: cfg.config_str("command")?.filter(|s| !s.is_empty()),
            args: cfg.config_str_list("args")?,
            entrypoint: cfg.config_str_list("entrypoint")?,
            labels: string_map(cfg.config.get("labels"), "labels")?,
            ports: cfg.config_str_list("ports")?,
            port_map,
            network_mode: cfg.config_str("network_mode")?.unwrap_or_default(),
            volumes: cfg.config_str_list("volumes")?,
            mounts,
            privileged: cfg.config_bool("privileged")?.unwrap_or(false),
            cap_add: cfg.config_str_list("cap_add")?,
            cap_drop: cfg.config_str_list("cap_drop")?,
            work_dir: cfg.config_str("work_dir")?.unwrap_or_default(),
            hostname: cfg.config_str("hostname")?.unwrap_or_default(),
            force_pull: cfg.config_bool("force_pull")?.unwrap_or(false),
            memory_hard_limit: cfg.config_i64("memory_hard_limit")?.unwrap_or(0),
        })
    }
}

fn str_field(m: &serde_json::Map<String, Value>, key: &str) -> String {
    match m.get(key) {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Number(n)) => n.to_string(),
        _ => String::new(),
    }
}

fn number_field(
    m: &serde_json::Map<String, Value>,
    block: &str,
    key: &str,
) -> Result<i64, DriverError> {
    match m.get(key) {
        None | Some(Value::Null) => Ok(0),
        Some(Value::Number(n)) => n.as_i64().ok_or_else(|| {
            DriverError::InvalidConfig(format!("{block}.{key} must be a whole number, got {n}"))
        }),
        Some(Value::String(s)) => s.trim().parse().map_err(|_| {
            DriverError::InvalidConfig(format!("{block}.{key} must be a number, got {s:?}"))
        }),
        Some(other) => Err(DriverError::InvalidConfig(format!(
            "{block}.{key} must be a number, got {other}"
        ))),
    }
}

fn mount_spec(m: &serde_json::Map<String, Value>) -> Result<MountSpec, DriverError> {
    let kind = Some(str_field(m, "type"))
        .filter(|t| !t.is_empty())
        .unwrap_or_else(|| "volume".into());
    let mut spec = MountSpec {
        kind,
        target: str_field(m, "target"),
        source: str_field(m, "source"),
        readonly: as_bool(m.get("readonly")).unwrap_or(false),
        ..Default::default()
    };
    if let Some(b) = block(m.get("bind_options")) {
        spec.propagation = str_field(b, "propagation");
    }
    if let Some(v) = block(m.get("volume_options")) {
        spec.volume_options.no_copy = as_bool(v.get("no_copy")).unwrap_or(false);
        spec.volume_options.labels = string_map(v.get("labels"), "volume_options.labels")?;
        if let Some(d) = block(v.get("driver_config")) {
            spec.volume_options.driver_name = str_field(d, "name");
            spec.volume_options.driver_options =
                string_map(d.get("options"), "volume_options.driver_config.options")?;
        }
    }
    if let Some(t) = block(m.get("tmpfs_options")) {
        spec.tmpfs_options = TmpfsOptions {
            size: number_field(t, "tmpfs_options", "size")?,
            mode: number_field(t, "tmpfs_options", "mode")?,
        };
    }
    Ok(spec)
}

/// `repo:tag` with Nomad's default tag `latest`.
pub fn split_image(image: &str) -> (String, String) {
    let after_slash = image.rsplit('/').next().unwrap_or(image);
    if after_slash.contains('@') {
        return (image.to_string(), String::new());
    }
    match after_slash.rfind(':') {
        Some(i) => {
            let cut = image.len() - after_slash.len() + i;
            (image[..cut].to_string(), image[cut + 1..].to_string())
        }
        None => (image.to_string(), "latest".to_string()),
    }
}
