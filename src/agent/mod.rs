//! The agent: configuration (HCL files, flags, `-dev` defaults) and the wiring of server,
//! client and HTTP API into one process, with a clean shutdown on SIGINT/SIGTERM.
//!
//! This module owns start-up order (server, then client, then HTTP, so the API never answers
//! for parts that are not there) and shutdown order (client first so a dev agent's tasks stop
//! and report, then HTTP, then the server).

mod client_ops;
pub mod config;
mod logs;

use std::collections::BTreeMap;
use std::path::PathBuf;
use std::sync::Arc;

use serde_json::json;
use tokio_util::sync::CancellationToken;

use crate::client::{Client, ClientConfig, ClientHandle};
use crate::drivers::DriverConfig;
use crate::http::{self, AgentInfo, HttpState};
use crate::server::{Server, ServerConfig};
use config::AgentConfig;

#[derive(Debug, thiserror::Error)]
pub enum AgentError {
    #[error("failed to create data dir {path}: {source}")]
    DataDir {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("failed to start server: {0}")]
    Server(#[from] crate::server::ServerError),
    #[error("failed to start client: {0}")]
    Client(#[from] crate::client::ClientError),
    #[error("failed to start HTTP listener on {addr}: {source}")]
    Listen {
        addr: String,
        source: std::io::Error,
    },
    #[error("client-only agents need the server RPC transport, which this build does not have yet; run with server {{ enabled = true }}")]
    RemoteServers,
    #[error("failed to install signal handler: {0}")]
    Signal(std::io::Error),
}

/// Run the agent until SIGINT or SIGTERM.
pub async fn run(mut config: AgentConfig) -> Result<(), AgentError> {
    init_logging(&config.log_level);
    if config.node_name.is_empty() {
        // Nomad names the agent (and its node) after the host.
        config.node_name = nix::unistd::gethostname()
            .ok()
            .and_then(|h| h.into_string().ok())
            .unwrap_or_else(|| "nomad".to_string());
    }
    match &config.files[..] {
        [] => println!("==> No configuration files loaded"),
        files => println!(
            "==> Loaded configuration from {}",
            files
                .iter()
                .map(|f| f.display().to_string())
                .collect::<Vec<_>>()
                .join(", ")
        ),
    }
    println!("==> Starting Nomad agent...");
    let agent = Agent::start(&config).await?;
    agent.banner(&config);
    let signal = wait_for_signal().await?;
    println!("==> Caught signal: {signal}");
    println!("==> Gracefully shutting down agent...");
    agent.shutdown().await;
    Ok(())
}

struct Agent {
    server: Option<Server>,
    client: Option<Arc<ClientHandle>>,
    http_shutdown: CancellationToken,
    http_task: tokio::task::JoinHandle<std::io::Result<()>>,
    /// A dev agent without `data_dir` keeps its alloc dirs here and removes it on shutdown.
    temp_dir: Option<PathBuf>,
    http_addr: String,
    rpc_addr: String,
    serf_addr: String,
    node_id: String,
}

impl Agent {
    async fn start(config: &AgentConfig) -> Result<Agent, AgentError> {
        let bind = config.bind_addr.clone();
        let http_addr = format!("{bind}:{}", config.ports.http);
        let rpc_addr = format!("{bind}:{}", config.ports.rpc);
        let serf_addr = format!("{bind}:{}", config.ports.serf);

        let (data_dir, temp_dir) = match &config.data_dir {
            Some(d) => (d.clone(), None),
            None => {
                let d = std::env::temp_dir().join(format!("nomad-dev-{}", std::process::id()));
                (d.clone(), Some(d))
            }
        };
        std::fs::create_dir_all(&data_dir).map_err(|source| AgentError::DataDir {
            path: data_dir.clone(),
            source,
        })?;

        // Bind first: a port in use must fail start-up before anything else runs.
        let listener = tokio::net::TcpListener::bind(&http_addr)
            .await
            .map_err(|source| AgentError::Listen {
                addr: http_addr.clone(),
                source,
            })?;

        let server = if config.server.enabled {
            let defaults = ServerConfig::default();
            Some(
                Server::start(ServerConfig {
                    node_name: config.node_name.clone(),
                    region: config.region.clone(),
                    datacenter: config.datacenter.clone(),
                    // Dev mode without a data dir keeps raft in memory, like Nomad's -dev.
                    data_dir: config.data_dir.clone(),
                    rpc_addr: rpc_addr.clone(),
                    num_schedulers: config
                        .server
                        .num_schedulers
                        .map(|n| n as usize)
                        .unwrap_or(defaults.num_schedulers),
                    bootstrap_expect: config.server.bootstrap_expect,
                    gc: config.server.gc,
                    ..defaults
                })
                .await?,
            )
        } else {
            None
        };

        let client = if config.client.enabled {
            let Some(server) = &server else {
                return Err(AgentError::RemoteServers);
            };
            let handle =
                Client::start(client_config(config, &data_dir, &http_addr), server.rpc()).await?;
            Some(Arc::new(handle))
        } else {
            None
        };
        let node_id = client
            .as_ref()
            .map(|c| c.node_id().to_string())
            .unwrap_or_default();

        let info = AgentInfo {
            node_name: config.node_name.clone(),
            region: config.region.clone(),
            datacenter: config.datacenter.clone(),
            version: crate::VERSION.to_string(),
            http_addr: http_addr.clone(),
            rpc_addr: rpc_addr.clone(),
            serf_addr: serf_addr.clone(),
            server_enabled: server.is_some(),
            client_enabled: client.is_some(),
            config: self_config(config, &data_dir),
            member_tags: member_tags(config),
            client_node_id: client.as_ref().map(|c| c.node_id().to_string()),
            known_servers: server.iter().map(|_| rpc_addr.clone()).collect(),
        };
        let state = HttpState {
            server: server.clone(),
            client_logs: client
                .clone()
                .map(|c| Arc::new(logs::ClientLogs::new(c)) as Arc<dyn http::LogSource>),
            agent: Arc::new(info),
            client_ops: client.clone().map(|c| {
                Arc::new(client_ops::ClientOpsImpl::new(c)) as Arc<dyn http::client_api::ClientOps>
            }),
        };
        let http_shutdown = CancellationToken::new();
        let http_task = tokio::spawn(http::serve(
            listener,
            with_node_meta(http::router(state), client.as_deref()),
            http_shutdown.clone(),
        ));
        Ok(Agent {
            server,
            client,
            http_shutdown,
            http_task,
            temp_dir,
            http_addr,
            rpc_addr,
            serf_addr,
            node_id,
        })
    }

    /// Nomad's start-up banner: sorted keys, right-aligned to 18 columns.
    fn banner(&self, config: &AgentConfig) {
        let with_server = |http: &str| {
            if self.server.is_some() {
                format!(
                    "HTTP: {http}; RPC: {}; Serf: {}",
                    self.rpc_addr, self.serf_addr
                )
            } else {
                format!("HTTP: {http}")
            }
        };
        let mut info = BTreeMap::new();
        info.insert("advertise addrs", with_server(&self.http_addr));
        info.insert("bind addrs", with_server(&format!("[{}]", self.http_addr)));
        info.insert("client", self.client.is_some().to_string());
        info.insert("log level", config.log_level.clone());
        if self.server.is_some() {
            info.insert("node id", self.node_id.clone());
        }
        info.insert(
            "region",
            format!("{} (DC: {})", config.region, config.datacenter),
        );
        info.insert("server", self.server.is_some().to_string());
        info.insert("version", crate::VERSION.to_string());
        println!("==> Nomad agent configuration:\n");
        for (k, v) in info {
            println!("    {:>18}: {v}", title(k));
        }
        println!();
        println!("==> Nomad agent started! Log data will stream in below:\n");
    }

    async fn shutdown(self) {
        // HTTP first: its handlers hold the client (logs), which must be ours alone to stop.
        self.http_shutdown.cancel();
        if let Ok(Err(e)) = self.http_task.await {
            tracing::warn!(error = %e, "HTTP server");
        }
        if let Some(client) = self.client {
            // A dev agent stops its tasks, as Nomad's does. Until the client can re-attach to
            // running tasks after a restart (a later issue), every agent stops them, so a
            // restart never runs a task twice.
            match Arc::try_unwrap(client) {
                Ok(client) => client.shutdown(true).await,
                Err(_) => tracing::warn!("client still referenced at shutdown; tasks left running"),
            }
        }
        if let Some(server) = self.server {
            server.shutdown().await;
        }
        if let Some(dir) = self.temp_dir {
            if let Err(e) = std::fs::remove_dir_all(&dir) {
                tracing::debug!(dir = %dir.display(), error = %e, "removing dev data dir");
            }
        }
    }
}

/// "advertise addrs" -> "Advertise Addrs".
fn title(k: &str) -> String {
    k.split(' ')
        .map(|w| {
            let mut c = w.chars();
            c.next()
                .map(|f| f.to_uppercase().collect::<String>() + c.as_str())
                .unwrap_or_default()
        })
        .collect::<Vec<_>>()
        .join(" ")
}

fn client_config(
    config: &AgentConfig,
    data_dir: &std::path::Path,
    http_addr: &str,
) -> ClientConfig {
    let mut c = if config.dev {
        ClientConfig::dev(data_dir)
    } else {
        ClientConfig::new(data_dir)
    };
    c.node_name = config.node_name.clone();
    c.datacenter = config.datacenter.clone();
    c.region = config.region.clone();
    c.node_class = config.client.node_class.clone();
    c.node_pool = config.client.node_pool.clone();
    c.meta = config.client.meta.clone();
    c.http_addr = http_addr.to_string();
    if let Some(iface) = &config.client.network_interface {
        c.network_interface = iface.clone();
    }
    if c.network_ip.is_empty() && !config.bind_addr.is_empty() && config.bind_addr != "0.0.0.0" {
        c.network_ip = config.bind_addr.clone();
        if c.network_interface.is_empty() && config.bind_addr.starts_with("127.") {
            c.network_interface = "lo".to_string();
        }
    }
    c.network_speed = i64::try_from(config.client.network_speed).unwrap_or(i64::MAX);
    c.cpu_total_compute = config.client.cpu_total_compute;
    c.disk_total_mb = config.client.disk_total_mb;
    c.memory_total_mb = config.client.memory_total_mb;
    c.reservable_cores = config.client.reservable_cores.clone();
    c.reserved.cores = config.client.reserved.cores.clone();
    c.bridge_network_name = config.client.bridge_network_name.clone();
    c.bridge_network_hairpin_mode = config.client.bridge_network_hairpin_mode;
    c.node_max_allocs = i64::try_from(config.client.node_max_allocs).unwrap_or(i64::MAX);
    c.gc_volumes_on_node_gc = config.client.gc_volumes_on_node_gc;
    c.min_dynamic_port = i32::from(config.client.min_dynamic_port);
    c.max_dynamic_port = i32::from(config.client.max_dynamic_port);
    c.reserved.cpu_mhz = i64::try_from(config.client.reserved.cpu).unwrap_or(i64::MAX);
    c.reserved.memory_mb = i64::try_from(config.client.reserved.memory_mb).unwrap_or(i64::MAX);
    c.reserved.disk_mb = i64::try_from(config.client.reserved.disk_mb).unwrap_or(i64::MAX);
    c.reserved.reserved_ports = config.client.reserved.reserved_ports.clone();
    c.host_volumes = config.client.host_volumes.clone();
    let plugins = config
        .plugins
        .iter()
        .map(|(name, v)| {
            let map = v
                .as_object()
                .map(|o| o.iter().map(|(k, v)| (k.clone(), v.clone())).collect())
                .unwrap_or_default();
            (name.clone(), map)
        })
        .collect();
    c.drivers = DriverConfig {
        plugins,
        dev_mode: config.dev,
    };
    c
}

/// The `config` object of `/v1/agent/self`, with Nomad's field names for what we have.
fn self_config(config: &AgentConfig, data_dir: &std::path::Path) -> serde_json::Value {
    json!({
        "Region": config.region,
        "Datacenter": config.datacenter,
        "NodeName": config.node_name,
        "DataDir": data_dir.display().to_string(),
        "LogLevel": config.log_level,
        "BindAddr": config.bind_addr,
        "DevMode": config.dev,
        "Ports": { "HTTP": config.ports.http, "RPC": config.ports.rpc, "Serf": config.ports.serf },
        "Server": { "Enabled": config.server.enabled, "BootstrapExpect": config.server.bootstrap_expect },
        "Client": {
            "Enabled": config.client.enabled,
            "NodeClass": config.client.node_class,
            "NodePool": config.client.node_pool,
            "Meta": config.client.meta,
        },
        "Plugins": config.plugins.iter().map(|(name, c)| json!({"Name": name, "Config": c})).collect::<Vec<_>>(),
        "Files": config.files.iter().map(|f| f.display().to_string()).collect::<Vec<_>>(),
        "Version": { "Version": crate::VERSION, "VersionPrerelease": "", "VersionMetadata": "", "Revision": "" },
    })
}

fn member_tags(config: &AgentConfig) -> BTreeMap<String, String> {
    [
        ("build", crate::VERSION.to_string()),
        ("dc", config.datacenter.clone()),
        ("expect", config.server.bootstrap_expect.to_string()),
        ("mvn", "1".to_string()),
        ("port", config.ports.rpc.to_string()),
        ("raft_vsn", "3".to_string()),
        ("region", config.region.clone()),
        ("role", "nomad".to_string()),
        ("rpc_addr", config.bind_addr.clone()),
        ("vsn", "1".to_string()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect()
}

/// Nomad's level names (TRACE, DEBUG, INFO, WARN, ERROR/ERR) to a tracing filter. `RUST_LOG`
/// overrides it.
fn init_logging(level: &str) {
    let level = match level.to_ascii_uppercase().as_str() {
        "TRACE" => "trace",
        "DEBUG" => "debug",
        "WARN" => "warn",
        "ERR" | "ERROR" | "OFF" => "error",
        _ => "info",
    };
    let filter = tracing_subscriber::EnvFilter::try_from_default_env()
        .unwrap_or_else(|_| tracing_subscriber::EnvFilter::new(format!("warn,nomad={level}")));
    // A second init (tests starting agents in one process) keeps the first subscriber.
    use std::io::IsTerminal;
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter)
        .with_target(false)
        .with_ansi(std::io::stdout().is_terminal())
        .try_init();
}

async fn wait_for_signal() -> Result<&'static str, AgentError> {
    use tokio::signal::unix::{signal, SignalKind};
    let mut int = signal(SignalKind::interrupt()).map_err(AgentError::Signal)?;
    let mut term = signal(SignalKind::terminate()).map_err(AgentError::Signal)?;
    Ok(tokio::select! {
        _ = int.recv() => "interrupt",
        _ = term.recv() => "terminated",
    })
}

/// Give `/v1/client/metadata` the client's dynamic node metadata.
fn with_node_meta(router: axum::Router, client: Option<&ClientHandle>) -> axum::Router {
    match client {
        Some(c) => router.layer(axum::Extension(c.node_meta())),
        None => router,
    }
}
