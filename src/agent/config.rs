//! Agent configuration: `-dev` defaults, HCL config files (`-config FILE|DIR`), then flags.

use std::path::PathBuf;

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
