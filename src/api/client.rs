//! Typed HTTP client for the `/v1` API, used by `cmd/` and by the integration tests.
//!
//! It speaks to any Nomad-compatible agent the way Nomad's Go `api` package does: the same
//! query parameters (`index`, `wait`, `prefix`, `namespace`, `region`), the `X-Nomad-Token`
//! header, the `X-Nomad-*` response headers read into [`QueryMeta`], and the same error text
//! for non-2xx answers ("Unexpected response code: 404 (job not found)").
//!
//! This module owns transport only: it never formats output and never decides exit codes.

use std::time::Duration;

use base64::Engine as _;
use bytes::Bytes;
use futures::StreamExt as _;
use reqwest::{Method, StatusCode, Url};
use serde::de::DeserializeOwned;
use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::{
    AllocListStub, Allocation, Evaluation, Job, JobDeregisterResponse, JobListStub,
    JobRegisterRequest, JobRegisterResponse, JobSummary, Node, NodeListStub,
};

pub const DEFAULT_ADDRESS: &str = "http://127.0.0.1:4646";

#[derive(Debug, thiserror::Error)]
pub enum ClientError {
    /// Nomad's api package words non-2xx answers exactly like this; scripts grep for it.
    #[error("Unexpected response code: {status} ({body})")]
    Status { status: u16, body: String },
    #[error("invalid address {address:?}: {reason}")]
    InvalidAddress { address: String, reason: String },
    #[error("error building HTTP client: {0}")]
    Build(#[source] reqwest::Error),
    /// Transport failures, worded like Go's `Get "url": reason`. The reason is the flattened
    /// cause chain (reqwest repeats the URL at every level, so it is not kept as a source).
    #[error("{method} {url:?}: {reason}")]
    Request {
        method: Method,
        url: String,
        reason: String,
    },
    /// Not marked as a source: the message already carries the cause.
    #[error("decoding response of {url}: {error}")]
    Decode {
        url: String,
        error: serde_json::Error,
    },
    #[error("invalid log stream frame: {0}")]
    Frame(String),
}

impl ClientError {
    fn request(method: Method, url: impl ToString, err: reqwest::Error) -> Self {
        let mut parts: Vec<String> = Vec::new();
        let mut cause: Option<&dyn std::error::Error> = std::error::Error::source(&err);
        while let Some(c) = cause {
            let text = c.to_string();
            if !parts.contains(&text) {
                parts.push(text);
            }
            cause = c.source();
        }
        let reason = if parts.is_empty() {
            err.to_string()
        } else {
            parts.join(": ")
        };
        ClientError::Request {
            method,
            url: url.to_string(),
            reason,
        }
    }

    /// The HTTP status of an unexpected response, if this is one.
    pub fn status(&self) -> Option<u16> {
        match self {
            ClientError::Status { status, .. } => Some(*status),
            _ => None,
        }
    }

    pub fn is_not_found(&self) -> bool {
        self.status() == Some(404)
    }
}

pub type Result<T> = std::result::Result<T, ClientError>;

/// Where and as whom to talk. Empty options mean "let the agent decide" (its region, the
/// default namespace, no token), as in Nomad's `api.Config`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ClientConfig {
    /// `http://host:port`, `https://...` or `unix:///path/to/socket`.
    pub address: String,
    pub region: Option<String>,
    pub namespace: Option<String>,
    pub token: Option<String>,
}

impl Default for ClientConfig {
    fn default() -> Self {
        ClientConfig {
            address: DEFAULT_ADDRESS.to_string(),
            region: None,
            namespace: None,
            token: None,
        }
    }
}

impl ClientConfig {
    /// Defaults overridden by `NOMAD_ADDR`, `NOMAD_REGION`, `NOMAD_NAMESPACE`, `NOMAD_TOKEN`.
    pub fn from_env() -> Self {
        let var = |name: &str| std::env::var(name).ok().filter(|v| !v.is_empty());
        ClientConfig {
            address: var("NOMAD_ADDR").unwrap_or_else(|| DEFAULT_ADDRESS.to_string()),
            region: var("NOMAD_REGION"),
            namespace: var("NOMAD_NAMESPACE"),
            token: var("NOMAD_TOKEN"),
        }
    }
}

/// Options of one read, as Nomad's `api.QueryOptions`.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct QueryOptions {
    /// Blocking query: wait until the index is greater than this.
    pub index: u64,
    /// Upper bound of a blocking query's wait.
    pub wait: Option<Duration>,
    pub prefix: Option<String>,
    /// Overrides the client's namespace for this request.
    pub namespace: Option<String>,
    /// Overrides the client's region for this request.
    pub region: Option<String>,
    /// Extra query parameters (`task_states=false`, `resources=true`, ...).
    pub params: Vec<(String, String)>,
}

impl QueryOptions {
    pub fn prefix(prefix: &str) -> Self {
        QueryOptions {
            prefix: Some(prefix.to_string()),
            ..Default::default()
        }
    }

    pub fn namespace(namespace: &str) -> Self {
        QueryOptions {
            namespace: Some(namespace.to_string()),
            ..Default::default()
        }
    }
}

/// The answer of `PUT /v1/agent/join` (lower-case keys, as Nomad's `joinResponse`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Deserialize)]
#[serde(default)]
pub struct JoinResponse {
    pub num_joined: usize,
    pub error: String,
    pub warning: String,
}

/// What the agent said about the read, from the `X-Nomad-*` headers.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct QueryMeta {
    pub last_index: u64,
    pub known_leader: bool,
    pub last_contact: Duration,
    /// `X-Nomad-NextToken`: the token of the next page of a paginated list.
    pub next_token: String,
}

/// What the agent said about a write (`X-Nomad-Index`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct WriteMeta {
    pub last_index: u64,
}

/// One member of `GET /v1/agent/members`.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct AgentMember {
    pub addr: String,
    pub delegate_cur: u8,
    pub delegate_max: u8,
    pub delegate_min: u8,
    pub name: String,
    pub port: u16,
    pub protocol_cur: u8,
    pub protocol_max: u8,
    pub protocol_min: u8,
    pub status: String,
    pub tags: std::collections::BTreeMap<String, String>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct ServerMembers {
    pub members: Vec<AgentMember>,
    #[serde(rename = "ServerDC")]
    pub server_dc: String,
    pub server_name: String,
    pub server_region: String,
}

/// Response of `PUT /v1/validate/job`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct JobValidateResponse {
    pub driver_config_validated: bool,
    pub error: String,
    pub validation_errors: Option<Vec<String>>,
    pub warnings: String,
}

/// Response of `POST /v1/search`: context name -> matching IDs (null when none).
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct SearchResponse {
    pub matches: std::collections::BTreeMap<String, Option<Vec<String>>>,
    pub truncations: std::collections::BTreeMap<String, bool>,
}

/// Which end of a log file `offset` counts from.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Origin {
    Start,
    End,
}

impl Origin {
    fn as_str(self) -> &'static str {
        match self {
            Origin::Start => "start",
            Origin::End => "end",
        }
    }
}

/// `GET /v1/client/fs/logs/:alloc` parameters.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LogsRequest {
    pub alloc_id: String,
    pub task: String,
    /// `stdout` or `stderr`.
    pub log_type: String,
    pub follow: bool,
    pub origin: Origin,
    pub offset: i64,
}

/// One frame of Nomad's framed stream encoding (`StreamFrame`). Heartbeats are frames with
/// every field empty; [`FrameDecoder`] drops them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct StreamFrame {
    pub offset: i64,
    /// Base64 on the wire, decoded here.
    #[serde(with = "base64_bytes")]
    pub data: Vec<u8>,
    pub file: String,
    /// "file deleted" / "file truncated" when the file changed under the reader.
    pub file_event: String,
}

impl StreamFrame {
    pub fn is_heartbeat(&self) -> bool {
        self.data.is_empty() && self.file.is_empty() && self.file_event.is_empty()
    }
}

mod base64_bytes {
    use base64::Engine as _;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(data: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&base64::engine::general_purpose::STANDARD.encode(data))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        let text: Option<String> = Option::deserialize(d)?;
        match text {
            None => Ok(Vec::new()),
            Some(t) => base64::engine::general_purpose::STANDARD
                .decode(t.as_bytes())
                .map_err(serde::de::Error::custom),
        }
    }
}

/// Incremental decoder for the framed log stream: JSON objects back to back with no separator,
/// split across HTTP chunks at arbitrary byte positions.
#[derive(Debug, Default)]
pub struct FrameDecoder {
    buf: Vec<u8>,
}

impl FrameDecoder {
    /// Feed bytes; returns every complete non-heartbeat frame. A partial trailing object is
    /// kept for the next call.
    pub fn push(&mut self, chunk: &[u8]) -> Result<Vec<StreamFrame>> {
        self.buf.extend_from_slice(chunk);
        let mut frames = Vec::new();
        let mut consumed = 0;
        {
            let mut iter =
                serde_json::Deserializer::from_slice(&self.buf).into_iter::<StreamFrame>();
            loop {
                match iter.next() {
                    Some(Ok(frame)) => {
                        consumed = iter.byte_offset();
                        if !frame.is_heartbeat() {
                            frames.push(frame);
                        }
                    }
                    Some(Err(e)) if e.is_eof() => break,
                    Some(Err(e)) => return Err(ClientError::Frame(e.to_string())),
                    None => {
                        consumed = iter.byte_offset();
                        break;
                    }
                }
            }
        }
        self.buf.drain(..consumed);
        Ok(frames)
    }

    /// Bytes of an incomplete frame left over at the end of the stream.
    pub fn finish(&self) -> Result<()> {
        if self.buf.iter().all(u8::is_ascii_whitespace) {
            Ok(())
        } else {
            Err(ClientError::Frame(format!(
                "stream ended inside a frame ({} bytes left)",
                self.buf.len()
            )))
        }
    }
}

/// A streaming log response: framed (decoded frames) or `plain=true` raw bytes.
pub struct LogStream {
    inner: futures::stream::BoxStream<'static, reqwest::Result<Bytes>>,
    url: String,
    decoder: FrameDecoder,
    pending: std::collections::VecDeque<StreamFrame>,
}

impl LogStream {
    /// The next frame with data, or None when the agent closed the stream.
    pub async fn next_frame(&mut self) -> Result<Option<StreamFrame>> {
        loop {
            if let Some(f) = self.pending.pop_front() {
                return Ok(Some(f));
            }
            match self.inner.next().await {
                Some(Ok(chunk)) => self.pending.extend(self.decoder.push(&chunk)?),
                Some(Err(e)) => return Err(ClientError::request(Method::GET, &self.url, e)),
                None => {
                    self.decoder.finish()?;
                    return Ok(None);
                }
            }
        }
    }
}

/// The typed client. Cheap to clone (reqwest's pool is shared).
#[derive(Debug, Clone)]
pub struct Client {
    http: reqwest::Client,
    base: Url,
    config: ClientConfig,
}

impl Client {
    pub fn new(config: ClientConfig) -> Result<Self> {
        let invalid = |reason: &str| ClientError::InvalidAddress {
            address: config.address.clone(),
            reason: reason.to_string(),
        };
        let mut builder = reqwest::Client::builder();
        let base = if let Some(path) = config.address.strip_prefix("unix://") {
            if path.is_empty() {
                return Err(invalid("missing socket path"));
            }
            builder = builder.unix_socket(std::path::PathBuf::from(path));
            // The host is ignored over a unix socket; it only fills the Host header.
            Url::parse("http://localhost").map_err(|e| invalid(&e.to_string()))?
        } else {
            let url = Url::parse(&config.address).map_err(|e| invalid(&e.to_string()))?;
            if url.scheme() != "http" && url.scheme() != "https" {
                return Err(invalid("scheme must be http, https or unix"));
            }
            url
        };
        let http = builder.build().map_err(ClientError::Build)?;
        Ok(Client { http, base, config })
    }

    pub fn from_env() -> Result<Self> {
        Client::new(ClientConfig::from_env())
    }

    pub fn config(&self) -> &ClientConfig {
        &self.config
    }

    /// The address as given, for building UI links.
    pub fn address(&self) -> &str {
        &self.config.address
    }

    pub fn set_region(&mut self, region: &str) {
        self.config.region = Some(region.to_string());
    }

    pub fn set_namespace(&mut self, namespace: &str) {
        self.config.namespace = Some(namespace.to_string());
    }

    fn url(&self, path: &str, q: Option<&QueryOptions>) -> Url {
        let mut url = self.base.clone();
        let base_path = url.path().trim_end_matches('/').to_string();
        url.set_path(&format!("{base_path}{path}"));
        {
            let mut pairs = url.query_pairs_mut();
            let q_ns = q.and_then(|q| q.namespace.as_deref());
            if let Some(ns) = q_ns.or(self.config.namespace.as_deref()) {
                pairs.append_pair("namespace", ns);
            }
            let q_region = q.and_then(|q| q.region.as_deref());
            if let Some(region) = q_region.or(self.config.region.as_deref()) {
                pairs.append_pair("region", region);
            }
            if let Some(q) = q {
                if q.index > 0 {
                    pairs.append_pair("index", &q.index.to_string());
                }
                if let Some(wait) = q.wait {
                    pairs.append_pair("wait", &format!("{}ms", wait.as_millis()));
                }
                if let Some(prefix) = q.prefix.as_deref() {
                    pairs.append_pair("prefix", prefix);
                }
                for (k, v) in &q.params {
                    pairs.append_pair(k, v);
                }
            }
        }
        if url.query() == Some("") {
            url.set_query(None);
        }
        url
    }

    async fn send(
        &self,
        method: Method,
        url: Url,
        body: Option<Vec<u8>>,
    ) -> Result<reqwest::Response> {
        let mut req = self.http.request(method.clone(), url.clone());
        if let Some(token) = self.config.token.as_deref() {
            req = req.header("X-Nomad-Token", token);
        }
        if let Some(body) = body {
            req = req.header("Content-Type", "application/json").body(body);
        }
        let resp = req
            .send()
            .await
            .map_err(|e| ClientError::request(method.clone(), &url, e))?;
        if resp.status().is_success() {
            return Ok(resp);
        }
        let status = resp.status();
        let body = resp.text().await.unwrap_or_default();
        Err(ClientError::Status {
            status: status.as_u16(),
            body,
        })
    }

    async fn decode<T: DeserializeOwned>(url: &Url, resp: reqwest::Response) -> Result<T> {
        let bytes = resp
            .bytes()
            .await
            .map_err(|e| ClientError::request(Method::GET, url, e))?;
        serde_json::from_slice(&bytes).map_err(|error| ClientError::Decode {
            url: url.to_string(),
            error,
        })
    }

    /// GET returning the decoded body and the query meta headers.
    pub async fn query<T: DeserializeOwned>(
        &self,
        path: &str,
        q: Option<&QueryOptions>,
    ) -> Result<(T, QueryMeta)> {
        let url = self.url(path, q);
        let resp = self.send(Method::GET, url.clone(), None).await?;
        let meta = query_meta(resp.headers());
        Ok((Self::decode(&url, resp).await?, meta))
    }

    /// PUT/POST/DELETE with an optional JSON body.
    pub async fn write<B: Serialize, T: DeserializeOwned>(
        &self,
        method: Method,
        path: &str,
        body: Option<&B>,
        q: Option<&QueryOptions>,
    ) -> Result<(T, WriteMeta)> {
        let url = self.url(path, q);
        let body = match body {
            Some(b) => Some(serde_json::to_vec(b).map_err(|error| ClientError::Decode {
                url: url.to_string(),
                error,
            })?),
            None => None,
        };
        let resp = self.send(method, url.clone(), body).await?;
        let meta = WriteMeta {
            last_index: header_u64(resp.headers(), "X-Nomad-Index"),
        };
        Ok((Self::decode(&url, resp).await?, meta))
    }

    // ---- deployments ----

    pub async fn deployments(
        &self,
        q: Option<&QueryOptions>,
    ) -> Result<(Vec<super::Deployment>, QueryMeta)> {
        self.query("/v1/deployments", q).await
    }

    pub async fn deployment(
        &self,
        id: &str,
        q: Option<&QueryOptions>,
    ) -> Result<(super::Deployment, QueryMeta)> {
        self.query(&format!("/v1/deployment/{}", escape(id)), q)
            .await
    }

    pub async fn deployment_allocations(
        &self,
        id: &str,
        q: Option<&QueryOptions>,
    ) -> Result<(Vec<AllocListStub>, QueryMeta)> {
        self.query(&format!("/v1/deployment/allocations/{}", escape(id)), q)
            .await
    }

    /// `groups` empty promotes every group (`All: true`).
    pub async fn deployment_promote(
        &self,
        id: &str,
        groups: &[String],
    ) -> Result<(super::DeploymentUpdateResponse, WriteMeta)> {
        let body = serde_json::json!({
            "DeploymentID": id,
            "All": groups.is_empty(),
            "Groups": (!groups.is_empty()).then_some(groups),
        });
        let path = format!("/v1/deployment/promote/{}", escape(id));
        self.write(Method::PUT, &path, Some(&body), None).await
    }

    pub async fn deployment_fail(
        &self,
        id: &str,
    ) -> Result<(super::DeploymentUpdateResponse, WriteMeta)> {
        let body = serde_json::json!({ "DeploymentID": id });
        let path = format!("/v1/deployment/fail/{}", escape(id));
        self.write(Method::PUT, &path, Some(&body), None).await
    }

    pub async fn deployment_pause(
        &self,
        id: &str,
        pause: bool,
    ) -> Result<(super::DeploymentUpdateResponse, WriteMeta)> {
        let body = serde_json::json!({ "DeploymentID": id, "Pause": pause });
        let path = format!("/v1/deployment/pause/{}", escape(id));
        self.write(Method::PUT, &path, Some(&body), None).await
    }

    pub async fn deployment_unblock(
        &self,
        id: &str,
    ) -> Result<(super::DeploymentUpdateResponse, WriteMeta)> {
        let body = serde_json::json!({ "DeploymentID": id });
        let path = format!("/v1/deployment/unblock/{}", escape(id));
        self.write(Method::PUT, &path, Some(&body), None).await
    }

    pub async fn job_deployments(
        &self,
        job_id: &str,
        q: Option<&QueryOptions>,
    ) -> Result<(Vec<super::Deployment>, QueryMeta)> {
        self.query(&format!("/v1/job/{}/deployments", escape(job_id)), q)
            .await
    }

    /// The job's latest deployment, `None` when it has none.
    pub async fn job_latest_deployment(
        &self,
        job_id: &str,
        q: Option<&QueryOptions>,
    ) -> Result<(Option<super::Deployment>, QueryMeta)> {
        self.query(&format!("/v1/job/{}/deployment", escape(job_id)), q)
            .await
    }

    /// `GET /v1/job/:id/versions`: every version, newest first.
    pub async fn job_versions(
        &self,
        job_id: &str,
        q: Option<&QueryOptions>,
    ) -> Result<(Vec<Job>, QueryMeta)> {
        #[derive(Deserialize)]
        #[serde(rename_all = "PascalCase")]
        struct Versions {
            #[serde(default)]
            versions: Vec<Job>,
        }
        let (v, meta): (Versions, _) = self
            .query(&format!("/v1/job/{}/versions", escape(job_id)), q)
            .await?;
        Ok((v.versions, meta))
    }

    /// `PUT /v1/job/:id/revert`.
    pub async fn job_revert(
        &self,
        job_id: &str,
        version: u64,
        enforce_prior_version: Option<u64>,
    ) -> Result<(JobRegisterResponse, WriteMeta)> {
        let body = serde_json::json!({
            "JobID": job_id,
            "JobVersion": version,
            "EnforcePriorVersion": enforce_prior_version,
        });
        let path = format!("/v1/job/{}/revert", escape(job_id));
        self.write(Method::PUT, &path, Some(&body), None).await
    }

    // ---- jobs ----

    /// `PUT /v1/jobs`. `opts.check_index` sets EnforceIndex/JobModifyIndex (`job run
    /// -check-index`).
    pub async fn register_job(
        &self,
        job: &Job,
        opts: &RegisterOptions,
    ) -> Result<(JobRegisterResponse, WriteMeta)> {
        let req = JobRegisterRequest {
            job: Some(job.clone()),
            enforce_index: opts.check_index.is_some(),
            job_modify_index: opts.check_index.unwrap_or(0),
            policy_override: opts.policy_override,
            preserve_counts: opts.preserve_counts,
            eval_priority: opts.eval_priority,
        };
        // A job names its own namespace/region; the request goes there, as Nomad's CLI does.
        let q = QueryOptions {
            namespace: non_empty(&job.namespace),
            region: non_empty(&job.region),
            ..Default::default()
        };
        self.write(Method::PUT, "/v1/jobs", Some(&req), Some(&q))
            .await
    }

    /// Sorted by ID, as Nomad's api package returns them.
    pub async fn jobs(&self, q: Option<&QueryOptions>) -> Result<(Vec<JobListStub>, QueryMeta)> {
        let (mut jobs, meta): (Vec<JobListStub>, _) = self.query("/v1/jobs", q).await?;
        jobs.sort_by(|a, b| a.id.cmp(&b.id));
        Ok((jobs, meta))
    }

    pub async fn job(&self, id: &str, q: Option<&QueryOptions>) -> Result<(Job, QueryMeta)> {
        self.query(&format!("/v1/job/{}", escape(id)), q).await
    }

    /// `DELETE /v1/job/:id[?purge=true]`.
    pub async fn deregister_job(
        &self,
        id: &str,
        purge: bool,
        q: Option<&QueryOptions>,
    ) -> Result<(JobDeregisterResponse, WriteMeta)> {
        let mut q = q.cloned().unwrap_or_default();
        if purge {
            q.params.push(("purge".into(), "true".into()));
        }
        self.write::<(), _>(
            Method::DELETE,
            &format!("/v1/job/{}", escape(id)),
            None,
            Some(&q),
        )
        .await
    }

    /// `GET /v1/job/:id/allocations` (`all=true` includes allocs of older job versions).
    pub async fn job_allocations(
        &self,
        id: &str,
        all: bool,
        q: Option<&QueryOptions>,
    ) -> Result<(Vec<AllocListStub>, QueryMeta)> {
        let mut q = q.cloned().unwrap_or_default();
        if all {
            q.params.push(("all".into(), "true".into()));
        }
        newest_first(
            self.query(&format!("/v1/job/{}/allocations", escape(id)), Some(&q))
                .await,
            |a: &AllocListStub| a.create_index,
        )
    }

    pub async fn job_evaluations(
        &self,
        id: &str,
        q: Option<&QueryOptions>,
    ) -> Result<(Vec<Evaluation>, QueryMeta)> {
        newest_first(
            self.query(&format!("/v1/job/{}/evaluations", escape(id)), q)
                .await,
            |e: &Evaluation| e.create_index,
        )
    }

    pub async fn job_summary(
        &self,
        id: &str,
        q: Option<&QueryOptions>,
    ) -> Result<(JobSummary, QueryMeta)> {
        self.query(&format!("/v1/job/{}/summary", escape(id)), q)
            .await
    }

    /// `POST /v1/jobs/parse`: the agent parses HCL and returns the bare Job.
    pub async fn parse_job(&self, hcl: &str, canonicalize: bool) -> Result<Job> {
        #[derive(Serialize)]
        #[serde(rename_all = "PascalCase")]
        struct ParseRequest<'a> {
            #[serde(rename = "JobHCL")]
            job_hcl: &'a str,
            canonicalize: bool,
        }
        let body = ParseRequest {
            job_hcl: hcl,
            canonicalize,
        };
        let (job, _) = self
            .write(Method::POST, "/v1/jobs/parse", Some(&body), None)
            .await?;
        Ok(job)
    }

    /// `PUT /v1/validate/job`.
    pub async fn validate_job(&self, job: &Job) -> Result<JobValidateResponse> {
        let req = JobRegisterRequest {
            job: Some(job.clone()),
            ..Default::default()
        };
        let (resp, _) = self
            .write(Method::PUT, "/v1/validate/job", Some(&req), None)
            .await?;
        Ok(resp)
    }

    // ---- allocations ----

    pub async fn allocations(
        &self,
        q: Option<&QueryOptions>,
    ) -> Result<(Vec<AllocListStub>, QueryMeta)> {
        newest_first(
            self.query("/v1/allocations", q).await,
            |a: &AllocListStub| a.create_index,
        )
    }

    pub async fn allocation(
        &self,
        id: &str,
        q: Option<&QueryOptions>,
    ) -> Result<(Allocation, QueryMeta)> {
        self.query(&format!("/v1/allocation/{}", escape(id)), q)
            .await
    }

    /// `GET /v1/client/allocation/:id/stats` (live resource usage, untyped).
    pub async fn allocation_stats(&self, id: &str) -> Result<Value> {
        let (v, _) = self
            .query(&format!("/v1/client/allocation/{}/stats", escape(id)), None)
            .await?;
        Ok(v)
    }

    /// `GET /v1/client/allocation/:id/checks`: the latest Nomad service check results.
    pub async fn allocation_checks(
        &self,
        id: &str,
        q: Option<&QueryOptions>,
    ) -> Result<crate::api::AllocCheckResults> {
        let (v, _) = self
            .query(&format!("/v1/client/allocation/{}/checks", escape(id)), q)
            .await?;
        Ok(v)
    }

    // ---- nodes ----

    pub async fn nodes(&self, q: Option<&QueryOptions>) -> Result<(Vec<NodeListStub>, QueryMeta)> {
        newest_first(self.query("/v1/nodes", q).await, |n: &NodeListStub| {
            n.create_index
        })
    }

    pub async fn node(&self, id: &str, q: Option<&QueryOptions>) -> Result<(Node, QueryMeta)> {
        self.query(&format!("/v1/node/{}", escape(id)), q).await
    }

    pub async fn node_allocations(
        &self,
        id: &str,
        q: Option<&QueryOptions>,
    ) -> Result<(Vec<Allocation>, QueryMeta)> {
        newest_first(
            self.query(&format!("/v1/node/{}/allocations", escape(id)), q)
                .await,
            |a: &Allocation| a.create_index,
        )
    }

    /// `GET /v1/client/stats?node_id=` (host stats, untyped).
    pub async fn node_stats(&self, node_id: &str) -> Result<Value> {
        let q = QueryOptions {
            params: vec![("node_id".into(), node_id.into())],
            ..Default::default()
        };
        let (v, _) = self.query("/v1/client/stats", Some(&q)).await?;
        Ok(v)
    }

    // ---- evaluations ----

    pub async fn evaluations(
        &self,
        q: Option<&QueryOptions>,
    ) -> Result<(Vec<Evaluation>, QueryMeta)> {
        newest_first(self.query("/v1/evaluations", q).await, |e: &Evaluation| {
            e.create_index
        })
    }

    /// One eval with its `RelatedEvals`: Nomad's `Evaluations().Info` always asks
    /// `related=true`.
    pub async fn evaluation(
        &self,
        id: &str,
        q: Option<&QueryOptions>,
    ) -> Result<(Evaluation, QueryMeta)> {
        let mut q = q.cloned().unwrap_or_default();
        q.params.push(("related".into(), "true".into()));
        self.query(&format!("/v1/evaluation/{}", escape(id)), Some(&q))
            .await
    }

    pub async fn evaluation_allocations(
        &self,
        id: &str,
        q: Option<&QueryOptions>,
    ) -> Result<(Vec<AllocListStub>, QueryMeta)> {
        newest_first(
            self.query(&format!("/v1/evaluation/{}/allocations", escape(id)), q)
                .await,
            |a: &AllocListStub| a.create_index,
        )
    }

    /// `DELETE /v1/evaluations`: returns how many were deleted.
    /// `DELETE /v1/evaluations` by IDs, or (with `ids` empty) by a filter expression.
    pub async fn delete_evaluations(&self, ids: &[String], filter: &str) -> Result<u64> {
        #[derive(Serialize)]
        struct Req<'a> {
            #[serde(rename = "EvalIDs")]
            ids: &'a [String],
            #[serde(rename = "Filter")]
            filter: &'a str,
        }
        let (resp, _): (Value, _) = self
            .write(
                Method::DELETE,
                "/v1/evaluations",
                Some(&Req { ids, filter }),
                None,
            )
            .await?;
        Ok(resp.get("Count").and_then(Value::as_u64).unwrap_or(0))
    }

    /// `GET /v1/evaluations/count`: how many evals match the query's prefix and filter.
    pub async fn evaluations_count(&self, q: Option<&QueryOptions>) -> Result<u64> {
        let (resp, _): (Value, _) = self.query("/v1/evaluations/count", q).await?;
        Ok(resp.get("Count").and_then(Value::as_u64).unwrap_or(0))
    }

    /// `PUT /v1/system/gc`: a forced garbage collection.
    pub async fn system_gc(&self) -> Result<()> {
        self.write_no_body(Method::PUT, "/v1/system/gc").await
    }

    /// `PUT /v1/system/reconcile/summaries`.
    pub async fn system_reconcile_summaries(&self) -> Result<()> {
        self.write_no_body(Method::PUT, "/v1/system/reconcile/summaries")
            .await
    }

    /// A write whose answer has no body.
    async fn write_no_body(&self, method: Method, path: &str) -> Result<()> {
        let url = self.url(path, None);
        self.send(method, url, None).await?;
        Ok(())
    }

    // ---- services ----

    pub async fn services(
        &self,
        q: Option<&QueryOptions>,
    ) -> Result<(Vec<super::ServiceRegistrationListStub>, QueryMeta)> {
        self.query("/v1/services", q).await
    }

    pub async fn service(
        &self,
        name: &str,
        q: Option<&QueryOptions>,
    ) -> Result<(Vec<super::ServiceRegistration>, QueryMeta)> {
        self.query(&format!("/v1/service/{}", escape(name)), q)
            .await
    }

    pub async fn delete_service(&self, name: &str, id: &str) -> Result<()> {
        let url = self.url(
            &format!("/v1/service/{}/{}", escape(name), escape(id)),
            None,
        );
        self.send(Method::DELETE, url, None).await?;
        Ok(())
    }

    // ---- status, agent, regions, search ----

    pub async fn status_leader(&self) -> Result<String> {
        Ok(self.query("/v1/status/leader", None).await?.0)
    }

    /// The leader of another region (`server members` asks each region it sees).
    pub async fn region_leader(&self, region: &str) -> Result<String> {
        let q = QueryOptions {
            region: Some(region.to_string()),
            ..Default::default()
        };
        Ok(self.query("/v1/status/leader", Some(&q)).await?.0)
    }

    pub async fn status_peers(&self) -> Result<Vec<String>> {
        Ok(self.query("/v1/status/peers", None).await?.0)
    }

    /// `GET /v1/agent/self`: `{config, member, stats}`, kept untyped because every agent
    /// version adds keys.
    pub async fn agent_self(&self) -> Result<Value> {
        Ok(self.query("/v1/agent/self", None).await?.0)
    }

    pub async fn agent_health(&self) -> Result<Value> {
        Ok(self.query("/v1/agent/health", None).await?.0)
    }

    pub async fn agent_members(&self) -> Result<ServerMembers> {
        Ok(self.query("/v1/agent/members", None).await?.0)
    }

    /// `PUT /v1/agent/join`: ask the agent's server to join the servers at `addrs`.
    pub async fn agent_join(&self, addrs: &[String]) -> Result<JoinResponse> {
        let q = QueryOptions {
            params: addrs
                .iter()
                .map(|a| ("address".to_string(), a.clone()))
                .collect(),
            ..Default::default()
        };
        Ok(self
            .write::<(), _>(Method::PUT, "/v1/agent/join", None, Some(&q))
            .await?
            .0)
    }

    /// `PUT /v1/agent/force-leave`: eject a failed server from the membership.
    pub async fn agent_force_leave(&self, node: &str, prune: bool) -> Result<()> {
        let mut q = QueryOptions::default();
        q.params.push(("node".to_string(), node.to_string()));
        if prune {
            q.params.push(("prune".to_string(), "1".to_string()));
        }
        let url = self.url("/v1/agent/force-leave", Some(&q));
        self.send(Method::PUT, url, None).await?;
        Ok(())
    }

    pub async fn regions(&self) -> Result<Vec<String>> {
        Ok(self.query("/v1/regions", None).await?.0)
    }

    /// `POST /v1/search` with context "all" (or one context name).
    pub async fn search(&self, prefix: &str, context: &str) -> Result<SearchResponse> {
        let body = serde_json::json!({ "Prefix": prefix, "Context": context });
        Ok(self
            .write(Method::POST, "/v1/search", Some(&body), None)
            .await?
            .0)
    }

    // ---- logs ----

    /// Framed log stream of one task's stdout/stderr.
    pub async fn logs(&self, req: &LogsRequest) -> Result<LogStream> {
        let url = self.logs_url(req, false);
        let resp = self.send(Method::GET, url.clone(), None).await?;
        Ok(LogStream {
            inner: resp.bytes_stream().boxed(),
            url: url.to_string(),
            decoder: FrameDecoder::default(),
            pending: Default::default(),
        })
    }

    /// `plain=true`: the raw bytes of the log, no framing.
    pub async fn logs_plain(&self, req: &LogsRequest) -> Result<Bytes> {
        let url = self.logs_url(req, true);
        let resp = self.send(Method::GET, url.clone(), None).await?;
        resp.bytes()
            .await
            .map_err(|e| ClientError::request(Method::GET, &url, e))
    }

    fn logs_url(&self, req: &LogsRequest, plain: bool) -> Url {
        let mut params = vec![
            ("task".to_string(), req.task.clone()),
            ("type".to_string(), req.log_type.clone()),
            ("follow".to_string(), req.follow.to_string()),
            ("origin".to_string(), req.origin.as_str().to_string()),
            ("offset".to_string(), req.offset.to_string()),
        ];
        if plain {
            params.push(("plain".into(), "true".into()));
        }
        let q = QueryOptions {
            params,
            ..Default::default()
        };
        self.url(
            &format!("/v1/client/fs/logs/{}", escape(&req.alloc_id)),
            Some(&q),
        )
    }
}

/// Decode a whole framed body at once (e.g. a non-follow log read) into its data bytes.
pub fn decode_frames(body: &[u8]) -> Result<Vec<StreamFrame>> {
    let mut d = FrameDecoder::default();
    let frames = d.push(body)?;
    d.finish()?;
    Ok(frames)
}

/// Encode bytes as a frame, as an agent sends them (used by tests and fakes).
pub fn encode_frame(file: &str, offset: i64, data: &[u8]) -> String {
    format!(
        "{{\"Data\":\"{}\",\"File\":\"{}\",\"Offset\":{}}}",
        base64::engine::general_purpose::STANDARD.encode(data),
        file,
        offset
    )
}

/// Lists come back newest first (highest CreateIndex), as Nomad's api package sorts them; the
/// CLI tables print in that order.
fn newest_first<T>(
    r: Result<(Vec<T>, QueryMeta)>,
    key: impl Fn(&T) -> u64,
) -> Result<(Vec<T>, QueryMeta)> {
    let (mut items, meta) = r?;
    items.sort_by_key(|b| std::cmp::Reverse(key(b)));
    Ok((items, meta))
}

fn non_empty(s: &str) -> Option<String> {
    (!s.is_empty()).then(|| s.to_string())
}

/// IDs go into the path as one segment.
#[path = "client_interact.rs"]
mod interact;
pub use interact::ExecSocket;

fn escape(segment: &str) -> String {
    let mut out = String::with_capacity(segment.len());
    for b in segment.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' | b'@' | b':' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

fn header_u64(h: &reqwest::header::HeaderMap, name: &str) -> u64 {
    h.get(name)
        .and_then(|v| v.to_str().ok())
        .and_then(|v| v.parse().ok())
        .unwrap_or(0)
}

fn query_meta(h: &reqwest::header::HeaderMap) -> QueryMeta {
    QueryMeta {
        last_index: header_u64(h, "X-Nomad-Index"),
        known_leader: h
            .get("X-Nomad-KnownLeader")
            .and_then(|v| v.to_str().ok())
            .map(|v| v == "true")
            .unwrap_or(false),
        last_contact: Duration::from_millis(header_u64(h, "X-Nomad-LastContact")),
        next_token: h
            .get("X-Nomad-NextToken")
            .and_then(|v| v.to_str().ok())
            .unwrap_or_default()
            .to_string(),
    }
}

/// Whether an HTTP status means "the agent has no such endpoint" rather than a real failure.
pub fn is_missing_endpoint(err: &ClientError) -> bool {
    matches!(err.status(), Some(s) if s == StatusCode::NOT_FOUND.as_u16() || s == StatusCode::METHOD_NOT_ALLOWED.as_u16())
}

/// How `job run` registers: Nomad's `RegisterOptions`.
#[derive(Debug, Clone, Default)]
pub struct RegisterOptions {
    /// Register only if the job's modify index is this (0: only if it does not exist).
    pub check_index: Option<u64>,
    /// Keep the counts of groups the running job already has.
    pub preserve_counts: bool,
    /// Override soft-mandatory policies (Sentinel; accepted for compatibility).
    pub policy_override: bool,
    /// Priority of the registration's eval (0: the job's).
    pub eval_priority: i32,
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn decoder_handles_frames_split_at_any_byte_and_drops_heartbeats() {
        // The recorded follow stream: one data frame then heartbeats, no separators.
        let wire =
            br#"{"Data":"aGVsbG8K","File":"alloc/logs/server.stdout.0","Offset":6}{}{}{}{}{}"#;
        for split in 0..wire.len() {
            let mut d = FrameDecoder::default();
            let mut frames = d.push(&wire[..split]).unwrap();
            frames.extend(d.push(&wire[split..]).unwrap());
            d.finish().unwrap();
            assert_eq!(frames.len(), 1, "split at {split}");
            assert_eq!(frames[0].data, b"hello\n");
            assert_eq!(frames[0].file, "alloc/logs/server.stdout.0");
            assert_eq!(frames[0].offset, 6);
        }
    }

    #[test]
    fn decoder_reports_truncated_and_garbage_streams() {
        let mut d = FrameDecoder::default();
        assert!(d.push(br#"{"Data":"aGVs"#).unwrap().is_empty());
        assert!(d.finish().is_err());
        let mut d = FrameDecoder::default();
        assert!(matches!(d.push(b"{]"), Err(ClientError::Frame(_))));
        let mut d = FrameDecoder::default();
        assert!(d.push(br#"{"Data":"!!notbase64"}"#).is_err());
    }

    #[test]
    fn encode_then_decode_round_trips() {
        let wire = format!(
            "{}{{}}{}",
            encode_frame("f.stdout.0", 3, b"abc"),
            encode_frame("f.stdout.0", 5, b"\x00\xffz")
        );
        let frames = decode_frames(wire.as_bytes()).unwrap();
        let data: Vec<u8> = frames.iter().flat_map(|f| f.data.clone()).collect();
        assert_eq!(data, b"abc\x00\xffz");
    }

    #[test]
    fn file_events_are_not_heartbeats() {
        let frames = decode_frames(br#"{"FileEvent":"file truncated","File":"x"}"#).unwrap();
        assert_eq!(frames[0].file_event, "file truncated");
    }

    #[test]
    fn urls_carry_nomad_query_parameters() {
        let mut c = Client::new(ClientConfig {
            address: "http://10.0.0.1:4646/".into(),
            region: Some("east".into()),
            namespace: Some("prod".into()),
            token: None,
        })
        .unwrap();
        let q = QueryOptions {
            index: 7,
            wait: Some(Duration::from_secs(5)),
            prefix: Some("ex".into()),
            namespace: Some("other".into()),
            params: vec![("task_states".into(), "false".into())],
            ..Default::default()
        };
        let url = c.url("/v1/jobs", Some(&q));
        assert_eq!(
            url.as_str(),
            "http://10.0.0.1:4646/v1/jobs?namespace=other&region=east&index=7&wait=5000ms&prefix=ex&task_states=false"
        );
        c.config.namespace = None;
        c.config.region = None;
        assert_eq!(
            c.url("/v1/job/a b", None).as_str(),
            "http://10.0.0.1:4646/v1/job/a%20b"
        );
        assert_eq!(
            c.url(&format!("/v1/job/{}", escape("a/b")), None).as_str(),
            "http://10.0.0.1:4646/v1/job/a%2Fb"
        );
    }

    #[test]
    fn bad_addresses_are_errors_not_panics() {
        for addr in ["", "127.0.0.1:4646", "ftp://x", "unix://"] {
            let r = Client::new(ClientConfig {
                address: addr.into(),
                ..Default::default()
            });
            assert!(
                matches!(r, Err(ClientError::InvalidAddress { .. })),
                "{addr}"
            );
        }
        assert!(Client::new(ClientConfig {
            address: "unix:///tmp/nomad.sock".into(),
            ..Default::default()
        })
        .is_ok());
    }

    /// A tiny agent that answers like Nomad (headers, plain-text errors, framed logs).
    async fn fake_agent() -> (String, tokio::task::JoinHandle<()>) {
        use axum::http::{HeaderMap, StatusCode};
        use axum::routing::get;
        let app =
            axum::Router::new()
                .route(
                    "/v1/job/{id}",
                    get(
                        |axum::extract::Path(id): axum::extract::Path<String>,
                         headers: HeaderMap| async move {
                            let mut h = axum::http::HeaderMap::new();
                            h.insert("X-Nomad-Index", "27".parse().unwrap());
                            h.insert("X-Nomad-Knownleader", "true".parse().unwrap());
                            h.insert("X-Nomad-Lastcontact", "12".parse().unwrap());
                            if id != "example" {
                                return (StatusCode::NOT_FOUND, h, "job not found".to_string());
                            }
                            let token = headers
                                .get("X-Nomad-Token")
                                .and_then(|v| v.to_str().ok())
                                .unwrap_or("")
                                .to_string();
                            let body =
                                serde_json::json!({"ID": "example", "Name": token, "Priority": 50});
                            (StatusCode::OK, h, body.to_string())
                        },
                    ),
                )
                .route(
                    "/v1/client/fs/logs/{id}",
                    get(|| async {
                        let mut s = encode_frame("alloc/logs/t.stdout.0", 6, b"hello\n");
                        s.push_str("{}");
                        s.push_str(&encode_frame("alloc/logs/t.stdout.0", 12, b"world\n"));
                        s
                    }),
                );
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let handle = tokio::spawn(async move {
            let _ = axum::serve(listener, app).await;
        });
        (format!("http://{addr}"), handle)
    }

    #[tokio::test]
    async fn reads_return_query_meta_and_errors_carry_status_and_body() {
        let (addr, server) = fake_agent().await;
        let c = Client::new(ClientConfig {
            address: addr,
            token: Some("secret-token".into()),
            ..Default::default()
        })
        .unwrap();
        let (job, meta) = c.job("example", None).await.unwrap();
        assert_eq!(job.id, "example");
        assert_eq!(job.name, "secret-token", "token header was sent");
        assert_eq!(
            meta,
            QueryMeta {
                last_index: 27,
                known_leader: true,
                last_contact: Duration::from_millis(12),
                next_token: String::new(),
            }
        );
        let err = c.job("nope", None).await.unwrap_err();
        assert!(err.is_not_found());
        assert_eq!(
            err.to_string(),
            "Unexpected response code: 404 (job not found)"
        );

        let mut stream = c
            .logs(&LogsRequest {
                alloc_id: "a1".into(),
                task: "t".into(),
                log_type: "stdout".into(),
                follow: false,
                origin: Origin::Start,
                offset: 0,
            })
            .await
            .unwrap();
        let mut out = Vec::new();
        while let Some(f) = stream.next_frame().await.unwrap() {
            out.extend(f.data);
        }
        assert_eq!(out, b"hello\nworld\n");
        server.abort();
    }
}
