//! `nomad agent [options]`: run a Nomad agent (server and/or client) until SIGINT/SIGTERM.
//! Parses the flags into `CliFlags`; loading config files and running belong to
//! `nomad::agent`.

use std::path::PathBuf;

use anyhow::{anyhow, Context as _};

use crate::agent_lib::config::{AgentConfig, CliFlags};
use crate::output;

#[derive(Debug, Clone, Default, clap::Args)]
pub struct Args {
    /// Start the agent in development mode: a server and client with in-memory defaults.
    #[arg(long)]
    pub dev: bool,
    /// The path to a config file or directory of files to load; can be specified multiple
    /// times.
    #[arg(long, value_name = "PATH")]
    pub config: Vec<PathBuf>,
    /// The address the agent will bind to for all of its various network services.
    #[arg(long, value_name = "ADDR")]
    pub bind: Option<String>,
    /// The path to the data directory.
    #[arg(long = "data-dir", value_name = "PATH")]
    pub data_dir: Option<PathBuf>,
    /// The name of the local agent.
    #[arg(long, value_name = "NAME")]
    pub node: Option<String>,
    /// The name of the datacenter this Nomad agent is a member of.
    #[arg(long, value_name = "DC")]
    pub dc: Option<String>,
    /// The region the Nomad agent is a member of.
    #[arg(long, value_name = "REGION")]
    pub region: Option<String>,
    /// The logging level (TRACE, DEBUG, INFO, WARN, ERROR).
    #[arg(long = "log-level", value_name = "LEVEL")]
    pub log_level: Option<String>,
    /// Enable server mode for the agent.
    #[arg(long)]
    pub server: bool,
    /// Enable client mode for the agent.
    #[arg(long)]
    pub client: bool,
    /// How many servers to wait for before bootstrapping.
    #[arg(long = "bootstrap-expect", value_name = "N")]
    pub bootstrap_expect: Option<u32>,
    /// Mark this node as a member of a node class.
    #[arg(long = "node-class", value_name = "CLASS")]
    pub node_class: Option<String>,
    /// The node pool this node is a member of.
    #[arg(long = "node-pool", value_name = "POOL")]
    pub node_pool: Option<String>,
    /// User specified metadata (key=value) to associate with the node; repeatable.
    #[arg(long, value_name = "KEY=VALUE")]
    pub meta: Vec<String>,
    /// A comma-separated list of known server addresses to connect to (client mode).
    #[arg(long, value_name = "ADDRS")]
    pub servers: Option<String>,
}

impl Args {
    pub fn to_flags(&self) -> anyhow::Result<CliFlags> {
        let meta = self
            .meta
            .iter()
            .map(|kv| {
                kv.split_once('=')
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .ok_or_else(|| anyhow!("Invalid meta {kv:?}: expected key=value"))
            })
            .collect::<anyhow::Result<Vec<_>>>()?;
        let servers = self
            .servers
            .iter()
            .flat_map(|s| s.split(','))
            .map(str::trim)
            .filter(|s| !s.is_empty())
            .map(str::to_string)
            .collect();
        Ok(CliFlags {
            dev: self.dev,
            config: self.config.clone(),
            bind: self.bind.clone(),
            data_dir: self.data_dir.clone(),
            node: self.node.clone(),
            dc: self.dc.clone(),
            region: self.region.clone(),
            log_level: self.log_level.clone(),
            server: self.server,
            client: self.client,
            bootstrap_expect: self.bootstrap_expect,
            node_class: self.node_class.clone(),
            node_pool: self.node_pool.clone(),
            meta,
            servers,
        })
    }
}

/// Runs on its own multi-threaded runtime: the agent is long-lived and busy, unlike the CLI
/// commands, which share one small current-thread runtime.
pub fn run(args: &Args) -> anyhow::Result<i32> {
    let flags = args.to_flags()?;
    let config = match AgentConfig::load(&flags) {
        Ok(c) => c,
        Err(e) => {
            output::err(format!("==> Error loading configuration: {e}"));
            return Ok(1);
        }
    };
    let rt = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("Error starting the agent runtime")?;
    match rt.block_on(crate::agent_lib::run(config)) {
        Ok(()) => Ok(0),
        Err(e) => {
            output::err(format!("==> Error starting agent: {e}"));
            Ok(1)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser as _;

    #[test]
    fn go_style_agent_flags_map_to_cli_flags() {
        let argv = crate::argv::normalize(
            [
                "nomad",
                "agent",
                "-dev",
                "-config",
                "a.hcl",
                "-config=dir",
                "-bind=0.0.0.0",
                "-data-dir",
                "/tmp/n",
                "-node",
                "n1",
                "-dc",
                "dc2",
                "-region",
                "r1",
                "-log-level=DEBUG",
                "-server",
                "-client",
                "-bootstrap-expect",
                "3",
                "-node-class",
                "c",
                "-node-pool",
                "p",
                "-meta",
                "a=b",
                "-meta",
                "c=d=e",
                "-servers",
                "10.0.0.1:4647, 10.0.0.2",
            ]
            .map(std::ffi::OsString::from),
        );
        let cli = crate::Cli::try_parse_from(argv).unwrap();
        let Some(crate::Command::Agent(args)) = cli.command else {
            panic!("not the agent command");
        };
        let flags = args.to_flags().unwrap();
        assert_eq!(
            flags,
            CliFlags {
                dev: true,
                config: vec!["a.hcl".into(), "dir".into()],
                bind: Some("0.0.0.0".into()),
                data_dir: Some("/tmp/n".into()),
                node: Some("n1".into()),
                dc: Some("dc2".into()),
                region: Some("r1".into()),
                log_level: Some("DEBUG".into()),
                server: true,
                client: true,
                bootstrap_expect: Some(3),
                node_class: Some("c".into()),
                node_pool: Some("p".into()),
                meta: vec![("a".into(), "b".into()), ("c".into(), "d=e".into())],
                servers: vec!["10.0.0.1:4647".into(), "10.0.0.2".into()],
            }
        );
        let bad = Args {
            meta: vec!["nokey".into()],
            ..Default::default()
        };
        assert!(bad.to_flags().is_err());
    }
}
