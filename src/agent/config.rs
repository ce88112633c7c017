//! Agent configuration: `-dev` defaults, HCL/JSON config files (`-config FILE|DIR`), then flags,
//! merged in that order as Nomad's `nomad agent` does, then validated.
//!
//! Config files are decoded with hcl-rs into the HCL JSON shape and then into typed structs.
//! Keys this agent does not know (Nomad has many: `telemetry`, `acl`, `consul`, ...) are not an
//! error, as in Nomad's lenient HCL1 decoding; they are listed in `AgentConfig::unknown_keys`
//! so the agent can warn about them.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::Deserialize;
use serde_json::Value;

/// The `nomad agent` flags, as parsed by `cmd/agent.rs`. `None`/empty means "not given", so
/// config files and `-dev` defaults apply.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct CliFlags {
    pub dev: bool,
    /// `-config` may repeat; each is a file or a directory of `*.hcl`/`*.json` files.
    pub config: Vec<PathBuf>,
    pub bind: Option<String>,
    pub data_dir: Option<PathBuf>,
    pub node: Option<String>,
    pub dc: Option<String>,
    pub region: Option<String>,
    pub log_level: Option<String>,
    pub server: bool,
    pub client: bool,
    pub bootstrap_expect: Option<u32>,
    pub node_class: Option<String>,
    pub node_pool: Option<String>,
    /// `-meta key=value`, repeatable.
    pub meta: Vec<(String, String)>,
    /// `-servers` for a client-only agent.
    pub servers: Vec<String>,
}

/// Errors loading or validating the agent configuration. Texts follow Nomad's where it has one.
#[derive(Debug, thiserror::Error)]
pub enum ConfigError {
    #[error("Error loading configuration from {path}: {source}")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    #[error(
        "Error loading configuration from {path}: failed to decode HCL file {path}: {message}"
    )]
    Hcl { path: PathBuf, message: String },
    #[error(
        "Error loading configuration from {path}: failed to decode JSON file {path}: {message}"
    )]
    Json { path: PathBuf, message: String },
    #[error("Error loading configuration from {path}: {message}")]
    Decode { path: PathBuf, message: String },
    #[error("Must specify either server, client or dev mode for the agent.")]
    NoMode,
    #[error("Bootstrap requires server mode to be enabled")]
    BootstrapWithoutServer,
    #[error("server.bootstrap_expect must be at least 1 when the server is enabled (this agent bootstraps its raft cluster once that many servers have joined)")]
    BootstrapExpectZero,
    #[error("Region contains invalid characters")]
    InvalidRegion,
    #[error("Datacenter contains invalid characters (null or '*')")]
    InvalidDatacenter,
    #[error("{flag} must be given as an absolute path: got {path}")]
    RelativePath { flag: &'static str, path: PathBuf },
    #[error("Must specify \"data_dir\" config option or \"data-dir\" CLI flag")]
    MissingDataDir,
    #[error("Invalid Client.Meta key: {0}")]
    InvalidMetaKey(String),
    #[error("Invalid log level: {0:?} (must be one of TRACE, DEBUG, INFO, WARN, ERROR)")]
    InvalidLogLevel(String),
    #[error("Invalid port range: client.min_dynamic_port ({min}) must not be greater than client.max_dynamic_port ({max})")]
    InvalidPortRange { min: u16, max: u16 },
}

/// The agent's ports (`ports { http = 4646 rpc = 4647 serf = 4648 }`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Ports {
    pub http: u16,
    pub rpc: u16,
    pub serf: u16,
}

/// Per-protocol bind (`addresses`) or advertise (`advertise`) addresses; `None` = use bind_addr.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Addresses {
    pub http: Option<String>,
    pub rpc: Option<String>,
    pub serf: Option<String>,
}

#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ServerConfig {
    pub enabled: bool,
    /// Servers to wait for before bootstrapping raft.
    pub bootstrap_expect: u32,
    /// Scheduler workers; `None` = one per CPU core, as Nomad.
    pub num_schedulers: Option<u32>,
    /// Addresses of other servers to join.
    pub retry_join: Vec<String>,
}

/// Resources held back from scheduling on this node (`client { reserved { ... } }`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reserved {
    pub cpu: u64,
    pub memory_mb: u64,
    pub disk_mb: u64,
    /// Nomad's port-list syntax: "22,80,8000-8100".
    pub reserved_ports: String,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientConfig {
    pub enabled: bool,
    /// Server RPC addresses a client-only agent registers with.
    pub servers: Vec<String>,
    pub node_class: String,
    pub node_pool: String,
    pub meta: BTreeMap<String, String>,
    pub network_interface: Option<String>,
    pub reserved: Reserved,
    /// The range dynamic ports are chosen from.
    pub min_dynamic_port: u16,
    pub max_dynamic_port: u16,
    /// Legacy `options` map (`driver.raw_exec.enable` ...), still read by drivers.
    pub options: BTreeMap<String, String>,
    pub state_dir: Option<PathBuf>,
    pub alloc_dir: Option<PathBuf>,
}

/// The merged configuration of one `nomad agent`.
#[derive(Debug, Clone, PartialEq)]
pub struct AgentConfig {
    pub region: String,
    pub datacenter: String,
    /// Empty means "the host name", resolved when the client starts.
    pub node_name: String,
    /// `None` only in dev mode, where the agent uses a temporary directory.
    pub data_dir: Option<PathBuf>,
    pub plugin_dir: Option<PathBuf>,
    pub bind_addr: String,
    pub ports: Ports,
    pub addresses: Addresses,
    pub advertise: Addresses,
    pub log_level: String,
    pub log_json: bool,
    pub dev: bool,
    pub leave_on_interrupt: bool,
    pub leave_on_terminate: bool,
    pub disable_update_check: bool,
    pub server: ServerConfig,
    pub client: ClientConfig,
    /// `plugin "<name>" { config { ... } }`: plugin name -> its `config` object.
    pub plugins: BTreeMap<String, Value>,
    /// The config files read, in merge order (reported by `/v1/agent/self`).
    pub files: Vec<PathBuf>,
    /// Dotted keys found in config files that this agent does not use.
    pub unknown_keys: Vec<String>,
}

impl Default for AgentConfig {
    /// Nomad's DefaultConfig.
    fn default() -> Self {
        AgentConfig {
            region: "global".to_string(),
            datacenter: "dc1".to_string(),
            node_name: String::new(),
            data_dir: None,
            plugin_dir: None,
            bind_addr: "0.0.0.0".to_string(),
            ports: Ports {
                http: 4646,
                rpc: 4647,
                serf: 4648,
            },
            addresses: Addresses::default(),
            advertise: Addresses::default(),
            log_level: "INFO".to_string(),
            log_json: false,
            dev: false,
            leave_on_interrupt: false,
            leave_on_terminate: false,
            disable_update_check: false,
            server: ServerConfig::default(),
            client: ClientConfig {
                enabled: false,
                servers: Vec::new(),
                node_class: String::new(),
                node_pool: "default".to_string(),
                meta: BTreeMap::new(),
                network_interface: None,
                reserved: Reserved::default(),
                min_dynamic_port: 20000,
                max_dynamic_port: 32000,
                options: BTreeMap::new(),
                state_dir: None,
                alloc_dir: None,
            },
            plugins: BTreeMap::new(),
            files: Vec::new(),
            unknown_keys: Vec::new(),
        }
    }
}

impl AgentConfig {
    /// Nomad's DevConfig: one node that is server and client, on loopback, with raw_exec
    /// (and the mock driver) enabled and DEBUG logs.
    pub fn dev() -> Self {
        let mut c = AgentConfig {
            bind_addr: "127.0.0.1".to_string(),
            log_level: "DEBUG".to_string(),
            dev: true,
            ..AgentConfig::default()
        };
        c.server.enabled = true;
        c.server.bootstrap_expect = 1;
        c.client.enabled = true;
        c.client.network_interface = Some("lo".to_string());
        c.client
            .options
            .insert("driver.raw_exec.enable".to_string(), "true".to_string());
        c.client
            .options
            .insert("driver.docker.volumes".to_string(), "true".to_string());
        for name in ["raw_exec", "mock_driver"] {
            c.plugins
                .insert(name.to_string(), serde_json::json!({"enabled": true}));
        }
        c
    }

    /// Defaults (or `-dev` defaults), then each `-config` file or directory in order, then
    /// the flags; then validation.
    pub fn load(flags: &CliFlags) -> Result<AgentConfig, ConfigError> {
        let mut config = if flags.dev {
            AgentConfig::dev()
        } else {
            AgentConfig::default()
        };
        for path in &flags.config {
            for file in config_files(path)? {
                let parsed = read_file(&file)?;
                config.merge_file(parsed, &file);
            }
        }
        config.apply_flags(flags);
        config.validate(flags)?;
        Ok(config)
    }

    fn merge_file(&mut self, f: FileConfig, path: &Path) {
        set(&mut self.region, f.region);
        set(&mut self.datacenter, f.datacenter);
        set(&mut self.node_name, f.name);
        set_opt(&mut self.data_dir, f.data_dir);
        set_opt(&mut self.plugin_dir, f.plugin_dir);
        set(&mut self.bind_addr, f.bind_addr);
        set(&mut self.log_level, f.log_level);
        set(&mut self.log_json, f.log_json);
        set(&mut self.leave_on_interrupt, f.leave_on_interrupt);
        set(&mut self.leave_on_terminate, f.leave_on_terminate);
        set(&mut self.disable_update_check, f.disable_update_check);
        if let Some(p) = f.ports {
            set(&mut self.ports.http, p.http);
            set(&mut self.ports.rpc, p.rpc);
            set(&mut self.ports.serf, p.serf);
        }
        for (dst, src) in [
            (&mut self.addresses, f.addresses),
            (&mut self.advertise, f.advertise),
        ] {
            if let Some(a) = src {
                set_opt(&mut dst.http, a.http);
                set_opt(&mut dst.rpc, a.rpc);
                set_opt(&mut dst.serf, a.serf);
            }
        }
        if let Some(s) = f.server {
            set(&mut self.server.enabled, s.enabled);
            set(&mut self.server.bootstrap_expect, s.bootstrap_expect);
            set_opt(&mut self.server.num_schedulers, s.num_schedulers);
            self.server
                .retry_join
                .extend(s.server_join.and_then(|j| j.retry_join).unwrap_or_default());
            self.server
                .retry_join
                .extend(s.retry_join.unwrap_or_default());
            set_opt(&mut self.data_dir, s.data_dir);
        }
        if let Some(c) = f.client {
            let dst = &mut self.client;
            set(&mut dst.enabled, c.enabled);
            // Nomad appends servers across files and merges maps key by key.
            dst.servers.extend(c.servers.unwrap_or_default());
            set(&mut dst.node_class, c.node_class);
            set(&mut dst.node_pool, c.node_pool);
            dst.meta.extend(c.meta.unwrap_or_default());
            dst.options.extend(c.options.unwrap_or_default());
            set_opt(&mut dst.network_interface, c.network_interface);
            set(&mut dst.min_dynamic_port, c.min_dynamic_port);
            set(&mut dst.max_dynamic_port, c.max_dynamic_port);
            set_opt(&mut dst.state_dir, c.state_dir);
            set_opt(&mut dst.alloc_dir, c.alloc_dir);
            if let Some(r) = c.reserved {
                set(&mut dst.reserved.cpu, r.cpu);
                set(&mut dst.reserved.memory_mb, r.memory);
                set(&mut dst.reserved.disk_mb, r.disk);
                set(&mut dst.reserved.reserved_ports, r.reserved_ports);
            }
        }
        for (name, plugin) in f.plugins {
            let entry = self
                .plugins
                .entry(name)
                .or_insert_with(|| Value::Object(Default::default()));
            merge_json(entry, plugin);
        }
        self.unknown_keys.extend(f.unknown);
        self.files.push(path.to_path_buf());
    }

    /// Flags win over files; boolean flags can only switch a mode on, as in Nomad.
    fn apply_flags(&mut self, flags: &CliFlags) {
        if flags.dev {
            self.dev = true;
        }
        set(&mut self.bind_addr, flags.bind.clone());
        set_opt(&mut self.data_dir, flags.data_dir.clone());
        set(&mut self.node_name, flags.node.clone());
        set(&mut self.datacenter, flags.dc.clone());
        set(&mut self.region, flags.region.clone());
        set(&mut self.log_level, flags.log_level.clone());
        if flags.server {
            self.server.enabled = true;
        }
        if flags.client {
            self.client.enabled = true;
        }
        set(&mut self.server.bootstrap_expect, flags.bootstrap_expect);
        set(&mut self.client.node_class, flags.node_class.clone());
        set(&mut self.client.node_pool, flags.node_pool.clone());
        self.client.meta.extend(flags.meta.iter().cloned());
        self.client.servers.extend(flags.servers.iter().cloned());
    }

    fn validate(&self, flags: &CliFlags) -> Result<(), ConfigError> {
        if !(self.server.enabled || self.client.enabled) {
            return Err(ConfigError::NoMode);
        }
        if self.region.contains('\0') {
            return Err(ConfigError::InvalidRegion);
        }
        if self.datacenter.contains('\0') || self.datacenter.contains('*') {
            return Err(ConfigError::InvalidDatacenter);
        }
        let level = self.log_level.to_ascii_uppercase();
        if !["TRACE", "DEBUG", "INFO", "WARN", "ERROR", "OFF"].contains(&level.as_str()) {
            return Err(ConfigError::InvalidLogLevel(self.log_level.clone()));
        }
        for (flag, dir) in [
            ("data-dir", &self.data_dir),
            ("plugin-dir", &self.plugin_dir),
            ("alloc-dir", &self.client.alloc_dir),
            ("state-dir", &self.client.state_dir),
        ] {
            if let Some(d) = dir {
                if !d.is_absolute() {
                    return Err(ConfigError::RelativePath {
                        flag,
                        path: d.clone(),
                    });
                }
            }
        }
        if self.client.enabled {
            if let Some(k) = self.client.meta.keys().find(|k| !valid_meta_key(k)) {
                return Err(ConfigError::InvalidMetaKey(k.clone()));
            }
            if self.client.min_dynamic_port > self.client.max_dynamic_port {
                return Err(ConfigError::InvalidPortRange {
                    min: self.client.min_dynamic_port,
                    max: self.client.max_dynamic_port,
                });
            }
        }
        if !self.dev && self.data_dir.is_none() {
            return Err(ConfigError::MissingDataDir);
        }
        if !self.server.enabled && flags.bootstrap_expect.is_some_and(|n| n > 0) {
            return Err(ConfigError::BootstrapWithoutServer);
        }
        if self.server.enabled && self.server.bootstrap_expect == 0 {
            return Err(ConfigError::BootstrapExpectZero);
        }
        Ok(())
    }
}

/// helper.IsValidInterpVariable: dot-separated non-empty segments.
fn valid_meta_key(k: &str) -> bool {
    !k.is_empty() && k.split('.').all(|s| !s.is_empty())
}

fn set<T>(dst: &mut T, src: Option<T>) {
    if let Some(v) = src {
        *dst = v;
    }
}

fn set_opt<T>(dst: &mut Option<T>, src: Option<T>) {
    if src.is_some() {
        *dst = src;
    }
}

/// Objects merge key by key (Nomad's PluginConfigSetMerge); anything else is replaced.
fn merge_json(dst: &mut Value, src: Value) {
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
fn config_files(path: &Path) -> Result<Vec<PathBuf>, ConfigError> {
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

fn read_file(path: &Path) -> Result<FileConfig, ConfigError> {
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
struct FileConfig {
    region: Option<String>,
    datacenter: Option<String>,
    name: Option<String>,
    data_dir: Option<PathBuf>,
    plugin_dir: Option<PathBuf>,
    bind_addr: Option<String>,
    log_level: Option<String>,
    log_json: Option<bool>,
    leave_on_interrupt: Option<bool>,
    leave_on_terminate: Option<bool>,
    disable_update_check: Option<bool>,
    ports: Option<FilePorts>,
    addresses: Option<FileAddresses>,
    advertise: Option<FileAddresses>,
    server: Option<FileServer>,
    client: Option<FileClient>,
    #[serde(skip)]
    plugins: BTreeMap<String, Value>,
    #[serde(skip)]
    unknown: Vec<String>,
}

#[derive(Debug, Default, Deserialize)]
struct FilePorts {
    http: Option<u16>,
    rpc: Option<u16>,
    serf: Option<u16>,
}

#[derive(Debug, Default, Deserialize)]
struct FileAddresses {
    http: Option<String>,
    rpc: Option<String>,
    serf: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
struct FileServerJoin {
    retry_join: Option<Vec<String>>,
}

#[derive(Debug, Default, Deserialize)]
struct FileServer {
    enabled: Option<bool>,
    bootstrap_expect: Option<u32>,
    num_schedulers: Option<u32>,
    data_dir: Option<PathBuf>,
    retry_join: Option<Vec<String>>,
    server_join: Option<FileServerJoin>,
}

#[derive(Debug, Default, Deserialize)]
struct FileReserved {
    cpu: Option<u64>,
    memory: Option<u64>,
    disk: Option<u64>,
    reserved_ports: Option<String>,
}

#[derive(Debug, Default, Deserialize)]
struct FileClient {
    enabled: Option<bool>,
    servers: Option<Vec<String>>,
    node_class: Option<String>,
    node_pool: Option<String>,
    meta: Option<BTreeMap<String, String>>,
    options: Option<BTreeMap<String, String>>,
    network_interface: Option<String>,
    reserved: Option<FileReserved>,
    min_dynamic_port: Option<u16>,
    max_dynamic_port: Option<u16>,
    state_dir: Option<PathBuf>,
    alloc_dir: Option<PathBuf>,
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
];
const CLIENT_KEYS: &[&str] = &[
    "enabled",
    "servers",
    "node_class",
    "node_pool",
    "meta",
    "options",
    "network_interface",
    "reserved",
    "min_dynamic_port",
    "max_dynamic_port",
    "state_dir",
    "alloc_dir",
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

#[cfg(test)]
#[path = "config_tests.rs"]
mod tests;
