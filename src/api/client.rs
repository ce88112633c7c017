//! Typed HTTP client for the /v1 API (used by cmd/ and tests).
