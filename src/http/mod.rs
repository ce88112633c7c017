//! The /v1 HTTP API (axum).
