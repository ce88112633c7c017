//! Agent configuration: `-dev` defaults, HCL/JSON config files (`-config FILE|DIR`), then flags,
//! merged in that order as Nomad's `nomad agent` does, then validated.
//!
//! Config files are decoded with hcl-rs into the HCL JSON shape and then into typed structs.
//! Keys this agent does not know (Nomad has many: `telemetry`, `acl`, `consul`, ...) are not an
//! error, as in Nomad's lenient HCL1 decoding; they are listed in `AgentConfig::unknown_keys`
//! so the agent can warn about them.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

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
    /// Core GC thresholds and interval.
    pub gc: crate::server::core_gc::GcThresholds,
}

/// Resources held back from scheduling on this node (`client { reserved { ... } }`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Reserved {
    pub cpu: u64,
    pub memory_mb: u64,
    pub disk_mb: u64,
    /// Nomad's port-list syntax: "22,80,8000-8100".
    pub reserved_ports: String,
    /// `reserved { cores }`: core ids withheld from scheduling.
    pub cores: Vec<u32>,
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
    pub network_speed: u64,
    pub cpu_total_compute: u64,
    pub disk_total_mb: u64,
    pub memory_total_mb: u64,
    /// `reservable_cores`: the only cores Nomad may use; None: the agent's cpuset.
    pub reservable_cores: Option<Vec<u32>>,
    pub bridge_network_name: String,
    pub bridge_network_hairpin_mode: bool,
    pub node_max_allocs: u64,
    pub gc_volumes_on_node_gc: bool,
    pub reserved: Reserved,
    /// The range dynamic ports are chosen from.
    pub min_dynamic_port: u16,
    pub max_dynamic_port: u16,
    /// Legacy `options` map (`driver.raw_exec.enable` ...), still read by drivers.
    pub options: BTreeMap<String, String>,
    pub state_dir: Option<PathBuf>,
    pub alloc_dir: Option<PathBuf>,
    /// `host_volume` blocks by name.
    pub host_volumes: BTreeMap<String, crate::client::config::HostVolumeConfig>,
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
                network_speed: 0,
                cpu_total_compute: 0,
                disk_total_mb: 0,
                memory_total_mb: 0,
                reservable_cores: None,
                bridge_network_name: String::new(),
                bridge_network_hairpin_mode: false,
                node_max_allocs: 0,
                gc_volumes_on_node_gc: false,
                reserved: Reserved::default(),
                min_dynamic_port: 20000,
                max_dynamic_port: 32000,
                options: BTreeMap::new(),
                state_dir: None,
                alloc_dir: None,
                host_volumes: BTreeMap::new(),
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
                config.merge_file(parsed, &file)?;
            }
        }
        config.apply_flags(flags);
        config.validate(flags)?;
        Ok(config)
    }

    fn merge_file(&mut self, f: FileConfig, path: &Path) -> Result<(), ConfigError> {
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
            let gc = &mut self.server.gc;
            for (dst, key, value) in [
                (&mut gc.interval, "job_gc_interval", s.job_gc_interval),
                (&mut gc.job, "job_gc_threshold", s.job_gc_threshold),
                (&mut gc.eval, "eval_gc_threshold", s.eval_gc_threshold),
                (
                    &mut gc.batch_eval,
                    "batch_eval_gc_threshold",
                    s.batch_eval_gc_threshold,
                ),
                (
                    &mut gc.deployment,
                    "deployment_gc_threshold",
                    s.deployment_gc_threshold,
                ),
                (&mut gc.node, "node_gc_threshold", s.node_gc_threshold),
            ] {
                if let Some(v) = value {
                    *dst = gc_duration(&v).map_err(|message| ConfigError::Decode {
                        path: path.to_path_buf(),
                        message: format!("server.{key}: {message}"),
                    })?;
                }
            }
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
            set(&mut dst.network_speed, c.network_speed);
            set(&mut dst.cpu_total_compute, c.cpu_total_compute);
            set(&mut dst.disk_total_mb, c.disk_total_mb);
            set(&mut dst.memory_total_mb, c.memory_total_mb);
            let cores = |key: &str, list: &str| {
                crate::client::fingerprint::cpu::parse_core_list(list).map_err(|message| {
                    ConfigError::Decode {
                        path: path.to_path_buf(),
                        message: format!("client.{key}: {message}"),
                    }
                })
            };
            if let Some(list) = &c.reservable_cores {
                dst.reservable_cores = Some(cores("reservable_cores", list)?);
            }
            if let Some(list) = c.reserved.as_ref().and_then(|r| r.cores.as_ref()) {
                dst.reserved.cores = cores("reserved.cores", list)?;
            }
            set(&mut dst.bridge_network_name, c.bridge_network_name);
            set(
                &mut dst.bridge_network_hairpin_mode,
                c.bridge_network_hairpin_mode,
            );
            set(&mut dst.node_max_allocs, c.node_max_allocs);
            set(&mut dst.gc_volumes_on_node_gc, c.gc_volumes_on_node_gc);
            set(&mut dst.min_dynamic_port, c.min_dynamic_port);
            set(&mut dst.max_dynamic_port, c.max_dynamic_port);
            set_opt(&mut dst.state_dir, c.state_dir);
            set_opt(&mut dst.alloc_dir, c.alloc_dir);
            if let Some(v) = c.host_volume {
                let vols = file::host_volumes(v).map_err(|message| ConfigError::Decode {
                    path: path.to_path_buf(),
                    message,
                })?;
                dst.host_volumes.extend(vols);
            }
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
        Ok(())
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

#[path = "config_file.rs"]
mod file;

use file::{config_files, merge_json, read_file, FileConfig};

#[cfg(test)]
#[path = "config_tests.rs"]
mod tests;

/// A GC threshold or interval: a Go duration, not negative.
fn gc_duration(s: &str) -> Result<std::time::Duration, String> {
    let ns = crate::api::duration::parse_go_duration(s)?;
    u64::try_from(ns)
        .map(std::time::Duration::from_nanos)
        .map_err(|_| format!("duration {s:?} must not be negative"))
}
