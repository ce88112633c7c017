//! The exec plugin's agent config (`plugin "exec" { config { ... } }`) and a task's driver
//! config, with Nomad's names, defaults and validation messages.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde_json::Value;

use super::super::{DriverError, PluginConfig, TaskConfig};

/// Nomad's `DefaultChrootEnv`: host path -> path inside the task.
pub const DEFAULT_CHROOT_ENV: [(&str, &str); 9] = [
    ("/bin", "/bin"),
    ("/etc", "/etc"),
    ("/lib", "/lib"),
    ("/lib32", "/lib32"),
    ("/lib64", "/lib64"),
    ("/run/resolvconf", "/run/resolvconf"),
    ("/sbin", "/sbin"),
    ("/usr", "/usr"),
    ("/run/systemd/resolve", "/run/systemd/resolve"),
];

/// Nomad's `capabilities.NomadDefaults()`.
pub const DEFAULT_CAPS: [&str; 13] = [
    "AUDIT_WRITE",
    "CHOWN",
    "DAC_OVERRIDE",
    "FOWNER",
    "FSETID",
    "KILL",
    "MKNOD",
    "NET_BIND_SERVICE",
    "SETFCAP",
    "SETGID",
    "SETPCAP",
    "SETUID",
    "SYS_CHROOT",
];

/// Linux capability names by number (linux/capability.h).
const CAP_NAMES: [&str; 41] = [
    "CHOWN",
    "DAC_OVERRIDE",
    "DAC_READ_SEARCH",
    "FOWNER",
    "FSETID",
    "KILL",
    "SETGID",
    "SETUID",
    "SETPCAP",
    "LINUX_IMMUTABLE",
    "NET_BIND_SERVICE",
    "NET_BROADCAST",
    "NET_ADMIN",
    "NET_RAW",
    "IPC_LOCK",
    "IPC_OWNER",
    "SYS_MODULE",
    "SYS_RAWIO",
    "SYS_CHROOT",
    "SYS_PTRACE",
    "SYS_PACCT",
    "SYS_ADMIN",
    "SYS_BOOT",
    "SYS_NICE",
    "SYS_RESOURCE",
    "SYS_TIME",
    "SYS_TTY_CONFIG",
    "MKNOD",
    "LEASE",
    "AUDIT_WRITE",
    "AUDIT_CONTROL",
    "SETFCAP",
    "MAC_OVERRIDE",
    "MAC_ADMIN",
    "SYSLOG",
    "WAKE_ALARM",
    "BLOCK_SUSPEND",
    "AUDIT_READ",
    "PERFMON",
    "BPF",
    "CHECKPOINT_RESTORE",
];

pub const MODE_PRIVATE: &str = "private";
pub const MODE_HOST: &str = "host";

/// `CAP_NET_RAW`, `net_raw` -> `NET_RAW`; `all` stays `ALL`.
fn normalize_cap(c: &str) -> String {
    let up = c.trim().to_ascii_uppercase();
    up.strip_prefix("CAP_").map(str::to_string).unwrap_or(up)
}

pub fn cap_number(name: &str) -> Option<u32> {
    let n = normalize_cap(name);
    CAP_NAMES.iter().position(|c| *c == n).map(|i| i as u32)
}

/// Nomad's `capabilities.Calculate`: (defaults ∩ allow_caps) - cap_drop + cap_add, where
/// every cap_add must be allowed. Returns capability numbers.
pub fn calculate_caps(
    allow: &[String],
    add: &[String],
    drop: &[String],
) -> Result<Vec<u32>, DriverError> {
    let expand = |list: &[String]| -> Vec<String> {
        if list.iter().any(|c| normalize_cap(c) == "ALL") {
            CAP_NAMES.iter().map(|c| c.to_string()).collect()
        } else {
            list.iter().map(|c| normalize_cap(c)).collect()
        }
    };
    let (allow, add, drop) = (expand(allow), expand(add), expand(drop));
    let missing: Vec<String> = add
        .iter()
        .filter(|c| !allow.contains(c))
        .map(|c| c.to_lowercase())
        .collect();
    if !missing.is_empty() {
        return Err(DriverError::InvalidConfig(format!(
            "driver does not allow the following capabilities: {}",
            missing.join(", ")
        )));
    }
    let mut result: Vec<String> = DEFAULT_CAPS
        .iter()
        .map(|c| c.to_string())
        .filter(|c| allow.contains(c) && !drop.contains(c))
        .collect();
    result.extend(add);
    let mut nums: Vec<u32> = result.iter().filter_map(|c| cap_number(c)).collect();
    nums.sort_unstable();
    nums.dedup();
    Ok(nums)
}

/// The agent's `plugin "exec" { config { } }`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExecPluginConfig {
    pub no_pivot_root: bool,
    pub default_pid_mode: String,
    pub default_ipc_mode: String,
    pub allow_caps: Vec<String>,
    /// Nomad's `denied_host_uids` / `_gids`: `"0,10-20"`.
    pub denied_host_uids: String,
    pub denied_host_gids: String,
    /// Host path -> task path; Nomad's client `chroot_env`, settable here too.
    pub chroot_env: BTreeMap<String, String>,
    /// Nomad's client `cgroup_parent`; empty means the default for the cgroup version.
    pub cgroup_parent: String,
}

impl Default for ExecPluginConfig {
    fn default() -> Self {
        ExecPluginConfig {
            no_pivot_root: false,
            default_pid_mode: MODE_PRIVATE.to_string(),
            default_ipc_mode: MODE_PRIVATE.to_string(),
            allow_caps: DEFAULT_CAPS.iter().map(|c| c.to_lowercase()).collect(),
            denied_host_uids: String::new(),
            denied_host_gids: String::new(),
            chroot_env: DEFAULT_CHROOT_ENV
                .iter()
                .map(|(a, b)| (a.to_string(), b.to_string()))
                .collect(),
            cgroup_parent: String::new(),
        }
    }
}

fn as_task(cfg: &PluginConfig) -> TaskConfig {
    TaskConfig {
        config: cfg.clone(),
        ..Default::default()
    }
}

impl ExecPluginConfig {
    pub fn parse(cfg: Option<&PluginConfig>) -> Result<Self, DriverError> {
        let mut out = ExecPluginConfig::default();
        let Some(cfg) = cfg else { return Ok(out) };
        // TaskConfig's typed accessors read any JSON map the same way.
        let t = as_task(cfg);
        if let Some(b) = t.config_bool("no_pivot_root")? {
            out.no_pivot_root = b;
        }
        if let Some(m) = t.config_str("default_pid_mode")? {
            out.default_pid_mode = m;
        }
        if let Some(m) = t.config_str("default_ipc_mode")? {
            out.default_ipc_mode = m;
        }
        if cfg.contains_key("allow_caps") {
            out.allow_caps = t.config_str_list("allow_caps")?;
        }
        out.denied_host_uids = t.config_str("denied_host_uids")?.unwrap_or_default();
        out.denied_host_gids = t.config_str("denied_host_gids")?.unwrap_or_default();
        out.cgroup_parent = t.config_str("cgroup_parent")?.unwrap_or_default();
        if let Some(env) = cfg.get("chroot_env") {
            out.chroot_env = parse_chroot_env(env)?;
        }
        out.validate()?;
        Ok(out)
    }

    fn validate(&self) -> Result<(), DriverError> {
        for (key, v) in [
            ("default_pid_mode", &self.default_pid_mode),
            ("default_ipc_mode", &self.default_ipc_mode),
        ] {
            if v != MODE_PRIVATE && v != MODE_HOST {
                return Err(DriverError::InvalidConfig(format!(
                    "{key} must be \"private\" or \"host\", got {v:?}"
                )));
            }
        }
        let bad: Vec<&String> = self
            .allow_caps
            .iter()
            .filter(|c| normalize_cap(c) != "ALL" && cap_number(c).is_none())
            .collect();
        if !bad.is_empty() {
            return Err(DriverError::InvalidConfig(format!(
                "allow_caps configured with capabilities not supported by system: {bad:?}"
            )));
        }
        parse_id_ranges(&self.denied_host_uids)?;
        parse_id_ranges(&self.denied_host_gids)?;
        Ok(())
    }
}

/// `chroot_env { "/bin" = "/bin" }` arrives as a map (or, from HCL blocks, a list of maps).
fn parse_chroot_env(v: &Value) -> Result<BTreeMap<String, String>, DriverError> {
    let mut out = BTreeMap::new();
    let maps: Vec<&serde_json::Map<String, Value>> = match v {
        Value::Object(m) => vec![m],
        Value::Array(items) => items.iter().filter_map(Value::as_object).collect(),
        other => {
            return Err(DriverError::InvalidConfig(format!(
                "chroot_env must be a map of host path to task path, got {other}"
            )))
        }
    };
    for m in maps {
        for (k, v) in m {
            let dest = v.as_str().ok_or_else(|| {
                DriverError::InvalidConfig(format!("chroot_env {k:?} must map to a string path"))
            })?;
            out.insert(k.clone(), dest.to_string());
        }
    }
    Ok(out)
}

/// `"0,10-20"` -> inclusive ranges.
pub fn parse_id_ranges(s: &str) -> Result<Vec<(u32, u32)>, DriverError> {
    let bad = |p: &str| DriverError::InvalidConfig(format!("invalid ID range {p:?} in {s:?}"));
    let mut out = Vec::new();
    for part in s.split(',').map(str::trim).filter(|p| !p.is_empty()) {
        let (lo, hi) = match part.split_once('-') {
            Some((a, b)) => (a.trim(), b.trim()),
            None => (part, part),
        };
        let lo: u32 = lo.parse().map_err(|_| bad(part))?;
        let hi: u32 = hi.parse().map_err(|_| bad(part))?;
        if lo > hi {
            return Err(bad(part));
        }
        out.push((lo, hi));
    }
    Ok(out)
}

/// A task's `config { }` for the exec driver.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExecTaskConfig {
    pub command: String,
    pub args: Vec<String>,
    pub pid_mode: String,
    pub ipc_mode: String,
    pub cap_add: Vec<String>,
    pub cap_drop: Vec<String>,
    pub work_dir: Option<PathBuf>,
}

impl ExecTaskConfig {
    pub fn parse(cfg: &TaskConfig) -> Result<Self, DriverError> {
        let command = cfg.config_str("command")?.ok_or_else(|| {
            DriverError::InvalidConfig(
                "Missing required argument: The argument \"command\" is required".to_string(),
            )
        })?;
        let out = ExecTaskConfig {
            command,
            args: cfg.config_str_list("args")?,
            pid_mode: cfg.config_str("pid_mode")?.unwrap_or_default(),
            ipc_mode: cfg.config_str("ipc_mode")?.unwrap_or_default(),
            cap_add: cfg.config_str_list("cap_add")?,
            cap_drop: cfg.config_str_list("cap_drop")?,
            work_dir: cfg.config_str("work_dir")?.map(PathBuf::from),
        };
        for (key, v) in [("pid_mode", &out.pid_mode), ("ipc_mode", &out.ipc_mode)] {
            if !v.is_empty() && v != MODE_PRIVATE && v != MODE_HOST {
                return Err(DriverError::InvalidConfig(format!(
                    "{key} must be \"private\" or \"host\", got {v:?}"
                )));
            }
        }
        if let Some(w) = &out.work_dir {
            if !w.is_absolute() {
                return Err(DriverError::InvalidConfig(format!(
                    "work_dir must be absolute but got relative path {:?}",
                    w.display().to_string()
                )));
            }
        }
        Ok(out)
    }
}

/// The task's setting wins over the plugin default (Nomad's `executor.IsolationMode`).
pub fn isolation_mode<'a>(default: &'a str, task: &'a str) -> &'a str {
    if task.is_empty() {
        default
    } else {
        task
    }
}
