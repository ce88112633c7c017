//! nomad-rs: a workload orchestrator compatible with HashiCorp Nomad.
//!
//! The library does all the work; `cmd/` only parses arguments, calls in here and prints.
//! See `../shared/DESIGN.md` for the map.

pub mod agent;
pub mod api;
pub mod client;
pub mod drivers;
pub mod http;
pub mod jobspec;
pub mod scheduler;
pub mod server;

/// The version this binary reports (`nomad version`, `nomad.version` attribute).
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
