//! The node agent: registration, heartbeats, alloc and task runners, fingerprinting.
