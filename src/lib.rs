//! nomad-rs: a workload orchestrator compatible with HashiCorp Nomad.
//!
//! The library does all the work; `cmd/` only parses arguments, calls in here and prints.
//! See `../shared/DESIGN.md` for the map.

pub mod agent;
pub mod api;
pub mod client;
pub mod drivers;
pub mod executor;
pub mod http;
pub mod jobspec;
pub mod scheduler;
pub mod server;

/// The version of this build (`nomad version`, `/v1/agent/self`).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");

/// The Nomad release whose CLI, API and job language this build implements. Nodes report it
/// as `nomad.version`, so constraints in existing job files (Nomad itself adds
/// `${attr.nomad.version} semver >= 1.4.0` for Nomad services) evaluate as on that release;
/// our own version goes in `nomad.revision`.
pub const NOMAD_COMPAT_VERSION: &str = "2.0.6";
