//! A small Docker Engine API client over the daemon's unix socket (HTTP/1.1 through hyper),
//! with a timeout on every call that is not meant to block (so a dead daemon never hangs
//! the client).

use std::time::Duration;

use bytes::Bytes;
use http_body_util::{BodyExt, Full};
use hyper::body::Incoming;
use hyper::{Method, Request, Response};
use hyper_util::rt::TokioIo;
use serde_json::Value;
use tokio::net::UnixStream;

/// Short calls (inspect, create, kill ...): the daemon answers these in milliseconds.
pub const API_TIMEOUT: Duration = Duration::from_secs(10);

#[derive(Debug, thiserror::Error)]
pub enum ApiError {
    #[error("cannot connect to the Docker daemon at unix://{0}: {1}")]
    Connect(String, String),
    #[error("docker API call timed out")]
    Timeout,
    #[error("{0}")]
    Http(String),
    /// The daemon's own message for a non-2xx status.
    #[error("{message}")]
    Status { status: u16, message: String },
}

impl ApiError {
    pub fn status(&self) -> Option<u16> {
        match self {
            ApiError::Status { status, .. } => Some(*status),
            _ => None,
        }
    }
}

#[derive(Debug, Clone)]
pub struct DockerApi {
    socket: String,
}

impl DockerApi {
    /// `endpoint` is Nomad's plugin option (`unix:///var/run/docker.sock`); empty means
    /// `$DOCKER_HOST` or the default socket.
    pub fn new(endpoint: &str) -> Self {
        let ep = if endpoint.is_empty() {
            std::env::var("DOCKER_HOST").unwrap_or_default()
        } else {
            endpoint.to_string()
        };
        let socket = ep
            .strip_prefix("unix://")
            .map(str::to_string)
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| "/var/run/docker.sock".to_string());
        DockerApi { socket }
    }

    /// The daemon's unix socket path.
    pub fn socket(&self) -> &str {
        &self.socket
    }

    /// Sends one request on a fresh connection and returns the response with its body
    /// unread (streams such as logs and wait are read by the caller).
    pub async fn send(
        &self,
        method: Method,
        path: &str,
        body: Option<&Value>,
    ) -> Result<Response<Incoming>, ApiError> {
        let stream =
            tokio::time::timeout(Duration::from_secs(2), UnixStream::connect(&self.socket))
                .await
                .map_err(|_| ApiError::Timeout)?
                .map_err(|e| ApiError::Connect(self.socket.clone(), e.to_string()))?;
        let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
            .await
            .map_err(|e| ApiError::Http(e.to_string()))?;
        tokio::spawn(async move {
            let _ = conn.await;
        });
        let bytes = match body {
            Some(v) => {
                Bytes::from(serde_json::to_vec(v).map_err(|e| ApiError::Http(e.to_string()))?)
            }
            None => Bytes::new(),
        };
        let req = Request::builder()
            .method(method)
            .uri(format!("http://docker{path}"))
            .header("Host", "docker")
            .header("Content-Type", "application/json")
            .body(Full::new(bytes))
            .map_err(|e| ApiError::Http(e.to_string()))?;
        let resp = sender
            .send_request(req)
            .await
            .map_err(|e| ApiError::Http(e.to_string()))?;
        if resp.status().is_success() {
            return Ok(resp);
        }
        let status = resp.status().as_u16();
        let body = read_body(resp).await.unwrap_or_default();
        let message = serde_json::from_slice::<Value>(&body)
            .ok()
            .and_then(|v| v.get("message").and_then(Value::as_str).map(str::to_string))
            .unwrap_or_else(|| String::from_utf8_lossy(&body).trim().to_string());
        Err(ApiError::Status { status, message })
    }

    /// A short call whose JSON answer is read whole, bounded by `timeout`.
    pub async fn call(
        &self,
        method: Method,
        path: &str,
        body: Option<&Value>,
        timeout: Duration,
    ) -> Result<Value, ApiError> {
        let fut = async {
            let resp = self.send(method, path, body).await?;
            let bytes = read_body(resp).await?;
            if bytes.is_empty() {
                return Ok(Value::Null);
            }
            serde_json::from_slice(&bytes).map_err(|e| ApiError::Http(e.to_string()))
        };
        tokio::time::timeout(timeout, fut)
            .await
            .map_err(|_| ApiError::Timeout)?
    }

    pub async fn get(&self, path: &str) -> Result<Value, ApiError> {
        self.call(Method::GET, path, None, API_TIMEOUT).await
    }

    pub async fn post(&self, path: &str, body: Option<&Value>) -> Result<Value, ApiError> {
        self.call(Method::POST, path, body, API_TIMEOUT).await
    }
}

pub async fn read_body(resp: Response<Incoming>) -> Result<Bytes, ApiError> {
    resp.into_body()
        .collect()
        .await
        .map(|c| c.to_bytes())
        .map_err(|e| ApiError::Http(e.to_string()))
}

/// Percent-encodes a query value.
pub fn q(s: &str) -> String {
    let mut out = String::new();
    for b in s.bytes() {
        if b.is_ascii_alphanumeric() || b"-_.~".contains(&b) {
            out.push(b as char);
        } else {
            out.push_str(&format!("%{b:02X}"));
        }
    }
    out
}
