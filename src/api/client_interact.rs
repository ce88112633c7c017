//! `Client` calls for interactive access to allocations: the alloc filesystem
//! (`/v1/client/fs/*`), stop/restart/signal, and the exec websocket.

use bytes::Bytes;
use reqwest::Method;
use serde_json::{json, Value};
use tokio_tungstenite::tungstenite;

use super::{escape, Client, ClientError, FrameDecoder, LogStream, Origin, QueryOptions, Result};
use crate::client::fs::AllocFileInfo;

/// The exec websocket as tokio-tungstenite gives it.
pub type ExecSocket =
    tokio_tungstenite::WebSocketStream<tokio_tungstenite::MaybeTlsStream<tokio::net::TcpStream>>;

fn params(pairs: &[(&str, String)]) -> QueryOptions {
    QueryOptions {
        params: pairs
            .iter()
            .map(|(k, v)| (k.to_string(), v.clone()))
            .collect(),
        ..Default::default()
    }
}

impl Client {
    /// `GET /v1/client/fs/ls/:alloc?path=`.
    pub async fn fs_ls(&self, alloc_id: &str, path: &str) -> Result<Vec<AllocFileInfo>> {
        let q = params(&[("path", path.to_string())]);
        let (v, _) = self
            .query(&format!("/v1/client/fs/ls/{}", escape(alloc_id)), Some(&q))
            .await?;
        Ok(v)
    }

    /// `GET /v1/client/fs/stat/:alloc?path=`.
    pub async fn fs_stat(&self, alloc_id: &str, path: &str) -> Result<AllocFileInfo> {
        let q = params(&[("path", path.to_string())]);
        let (v, _) = self
            .query(
                &format!("/v1/client/fs/stat/{}", escape(alloc_id)),
                Some(&q),
            )
            .await?;
        Ok(v)
    }

    /// `GET /v1/client/fs/cat/:alloc?path=`: the whole file.
    pub async fn fs_cat(&self, alloc_id: &str, path: &str) -> Result<Bytes> {
        let q = params(&[("path", path.to_string())]);
        let url = self.url(&format!("/v1/client/fs/cat/{}", escape(alloc_id)), Some(&q));
        let resp = self.send(Method::GET, url.clone(), None).await?;
        resp.bytes()
            .await
            .map_err(|e| ClientError::request(Method::GET, &url, e))
    }

    /// `GET /v1/client/fs/stream/:alloc`: framed, like a log stream.
    pub async fn fs_stream(
        &self,
        alloc_id: &str,
        path: &str,
        origin: Origin,
        offset: i64,
        follow: bool,
    ) -> Result<LogStream> {
        let q = params(&[
            ("path", path.to_string()),
            ("origin", origin.as_str().to_string()),
            ("offset", offset.to_string()),
            ("follow", follow.to_string()),
        ]);
        let url = self.url(
            &format!("/v1/client/fs/stream/{}", escape(alloc_id)),
            Some(&q),
        );
        let resp = self.send(Method::GET, url.clone(), None).await?;
        Ok(LogStream {
            inner: futures::StreamExt::boxed(resp.bytes_stream()),
            url: url.to_string(),
            decoder: FrameDecoder::default(),
            pending: Default::default(),
        })
    }

    /// `PUT /v1/allocation/:id/stop`: `{EvalID, Index}`.
    pub async fn alloc_stop(&self, alloc_id: &str, no_shutdown_delay: bool) -> Result<Value> {
        let q = params(&[("no_shutdown_delay", no_shutdown_delay.to_string())]);
        let (v, _) = self
            .write::<Value, Value>(
                Method::PUT,
                &format!("/v1/allocation/{}/stop", escape(alloc_id)),
                None,
                Some(&q),
            )
            .await?;
        Ok(v)
    }

    /// `PUT /v1/client/allocation/:id/restart`.
    pub async fn alloc_restart(&self, alloc_id: &str, task: &str, all_tasks: bool) -> Result<()> {
        let body = json!({"TaskName": task, "AllTasks": all_tasks});
        self.write::<Value, Value>(
            Method::PUT,
            &format!("/v1/client/allocation/{}/restart", escape(alloc_id)),
            Some(&body),
            None,
        )
        .await?;
        Ok(())
    }

    /// `PUT /v1/client/allocation/:id/signal`.
    pub async fn alloc_signal(&self, alloc_id: &str, task: &str, signal: &str) -> Result<()> {
        let body = json!({"Task": task, "Signal": signal});
        self.write::<Value, Value>(
            Method::PUT,
            &format!("/v1/client/allocation/{}/signal", escape(alloc_id)),
            Some(&body),
            None,
        )
        .await?;
        Ok(())
    }

    /// Opens the exec websocket (`ws://.../v1/client/allocation/:id/exec`).
    pub async fn alloc_exec_socket(
        &self,
        alloc_id: &str,
        task: &str,
        tty: bool,
        command: &[String],
    ) -> Result<ExecSocket> {
        let cmd = serde_json::to_string(command).unwrap_or_else(|_| "[]".to_string());
        let q = params(&[
            ("task", task.to_string()),
            ("tty", tty.to_string()),
            ("command", cmd),
        ]);
        let mut url = self.url(
            &format!("/v1/client/allocation/{}/exec", escape(alloc_id)),
            Some(&q),
        );
        let scheme = if url.scheme() == "https" { "wss" } else { "ws" };
        let _ = url.set_scheme(scheme);
        let mut req = tungstenite::client::IntoClientRequest::into_client_request(url.as_str())
            .map_err(|e| ws_error(&url, e))?;
        if let Some(token) = self.config.token.as_deref() {
            if let Ok(v) = token.parse() {
                req.headers_mut().insert("X-Nomad-Token", v);
            }
        }
        let (socket, _) = tokio_tungstenite::connect_async(req)
            .await
            .map_err(|e| ws_error(&url, e))?;
        Ok(socket)
    }
}

fn ws_error(url: &reqwest::Url, e: tungstenite::Error) -> ClientError {
    match e {
        tungstenite::Error::Http(resp) => ClientError::Status {
            status: resp.status().as_u16(),
            body: resp
                .body()
                .as_ref()
                .map(|b| String::from_utf8_lossy(b).into_owned())
                .unwrap_or_default(),
        },
        other => ClientError::Request {
            method: Method::GET,
            url: url.to_string(),
            reason: other.to_string(),
        },
    }
}
