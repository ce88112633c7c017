//! The node agent: registration, heartbeats, alloc and task runners, fingerprinting.

pub mod alloc_dir;
pub mod config;
pub mod fingerprint;
pub mod taskenv;
pub mod task_runner;
