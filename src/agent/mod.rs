//! Agent configuration (HCL files, flags, -dev defaults) and the wiring of server + client.

pub mod config;
