//! Nomad-native service checks (`service { provider = "nomad" check { ... } }`): which checks
//! an alloc has and where they point (`spec`), running one (`checker`), deciding when a failing
//! check restarts its task (`restart`), and the per-alloc hook that runs them every `interval`
//! and keeps the latest result of each (`hook`).
//!
//! Nomad's native checks are http and tcp only; script checks are run here too (inside their
//! task through the driver's exec), with the same result shape. grpc checks are not:
//! validation rejects them for Nomad services.

pub mod checker;
pub mod hook;
pub mod restart;
pub mod spec;

pub use hook::{ChecksHook, ChecksHookParams, SharedResults};
