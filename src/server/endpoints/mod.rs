//! Server endpoints as plain async fns over the server core: each validates, stamps times and
//! IDs (so the FSM stays deterministic), proposes one `Command`, and answers with the index.

pub mod alloc;
pub mod deployment;
pub mod eval;
pub mod job;
pub mod job_dispatch;
pub mod job_eval;
pub mod job_plan;
pub mod job_scale;
pub mod job_tag;
pub mod job_versions;
pub mod node;
pub mod node_drain;
pub mod operator;
pub mod service;
