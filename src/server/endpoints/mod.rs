//! Server endpoints as plain async fns over the server core: each validates, stamps times and
//! IDs (so the FSM stays deterministic), proposes one `Command`, and answers with the index.

pub mod deployment;
pub mod job;
pub mod node;
pub mod operator;
