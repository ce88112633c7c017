//! The one integration-test binary: each module drives the real `nomad` binary.

mod harness;

mod agent;
mod api;
mod bad_input;
mod deployments;
mod docker;
mod durability;
mod examples;
mod job_output;
mod quickstart;
