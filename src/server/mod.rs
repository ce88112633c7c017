//! The server: raft, the state store, the FSM, endpoints and the leader's control loops.

pub mod blocked_evals;
pub mod eval_broker;
pub mod fsm;
pub mod raft;
pub mod rpc;
pub mod state;
