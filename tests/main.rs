//! The one integration-test binary: each module drives the real `nomad` binary.

mod harness;

mod agent;
mod api;
mod artifacts;
mod bad_input;
mod checks;
mod deployments;
mod docker;
mod durability;
mod eval_status;
mod examples;
mod exec;
mod format_template;
mod gc;
mod host_volumes;
mod interact;
mod job_ops;
mod job_output;
mod job_versions;
mod lifecycle;
mod nodes;
mod operator;
mod quickstart;
mod restart_survival;
mod server_membership;
mod services;
mod system_jobs;
mod templates;
