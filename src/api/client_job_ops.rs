//! Typed client calls for the job operations: plan, dispatch, periodic force, scale.
//! Kept beside `client.rs` so that file's job calls stay the register/read basics.

use std::collections::BTreeMap;

use reqwest::Method;

use super::client::{Client, QueryMeta, QueryOptions, Result, WriteMeta};
use super::{
    Job, JobDiff, JobDispatchRequest, JobDispatchResponse, JobPlanRequest, JobPlanResponse,
    JobRegisterResponse, JobScaleRequest, JobScaleStatus, PeriodicForceResponse,
};

/// Which diffs `job_versions_with_diffs` asks for (Nomad's `api.VersionsOptions`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct VersionsOptions {
    pub diffs: bool,
    /// Diff every version against the one carrying this tag.
    pub diff_tag: Option<String>,
    /// Diff every version against this one (ignored when `diff_tag` is set).
    pub diff_version: Option<u64>,
}

/// `GET /v1/job/:id/versions` with diffs: the versions newest first and their diffs.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct JobVersionsWithDiffs {
    pub versions: Vec<Job>,
    /// `diffs[i]` is what changed in `versions[i]`; the oldest has none unless the diffs
    /// are against a chosen version.
    pub diffs: Vec<JobDiff>,
}

impl Client {
    /// `POST /v1/job/:id/plan` (always with the diff, as Nomad's CLI asks).
    pub async fn plan_job(
        &self,
        job: &Job,
        policy_override: bool,
    ) -> Result<(JobPlanResponse, WriteMeta)> {
        let req = JobPlanRequest {
            job: Some(job.clone()),
            diff: true,
            policy_override,
        };
        let q = job_scope(job);
        let path = format!("/v1/job/{}/plan", path_segment(&job.id));
        self.write(Method::POST, &path, Some(&req), Some(&q)).await
    }

    /// `POST /v1/job/:id/dispatch`.
    pub async fn dispatch_job(
        &self,
        req: &JobDispatchRequest,
        idempotency_token: &str,
    ) -> Result<(JobDispatchResponse, WriteMeta)> {
        let mut q = QueryOptions::default();
        if !idempotency_token.is_empty() {
            q.params.push((
                "idempotency_token".to_string(),
                idempotency_token.to_string(),
            ));
        }
        let path = format!("/v1/job/{}/dispatch", path_segment(&req.job_id));
        self.write(Method::POST, &path, Some(req), Some(&q)).await
    }

    /// `POST /v1/job/:id/periodic/force`.
    pub async fn force_periodic(&self, job_id: &str) -> Result<(PeriodicForceResponse, WriteMeta)> {
        let path = format!("/v1/job/{}/periodic/force", path_segment(job_id));
        self.write::<(), _>(Method::POST, &path, None, None).await
    }

    /// `POST /v1/job/:id/scale`.
    pub async fn scale_job(
        &self,
        job_id: &str,
        group: &str,
        count: i64,
        message: &str,
        check_index: u64,
    ) -> Result<(JobRegisterResponse, WriteMeta)> {
        let req = JobScaleRequest {
            target: BTreeMap::from([
                ("Group".to_string(), group.to_string()),
                ("Job".to_string(), job_id.to_string()),
            ]),
            count: Some(count),
            message: message.to_string(),
            job_modify_index: check_index,
            ..Default::default()
        };
        let path = format!("/v1/job/{}/scale", path_segment(job_id));
        self.write(Method::POST, &path, Some(&req), None).await
    }

    /// `PUT /v1/job/:id/evaluate`: a new eval of the job, optionally forcing failed allocs to
    /// reschedule.
    pub async fn evaluate_job(
        &self,
        job_id: &str,
        force_reschedule: bool,
    ) -> Result<(JobRegisterResponse, WriteMeta)> {
        let body = serde_json::json!({
            "JobID": job_id,
            "EvalOptions": {"ForceReschedule": force_reschedule},
        });
        let path = format!("/v1/job/{}/evaluate", path_segment(job_id));
        self.write(Method::PUT, &path, Some(&body), None).await
    }

    /// `PUT /v1/job/:id/versions/:name/tag`: name `version` of the job.
    pub async fn tag_job_version(
        &self,
        job_id: &str,
        version: u64,
        name: &str,
        description: &str,
        q: Option<&QueryOptions>,
    ) -> Result<(serde_json::Value, WriteMeta)> {
        let body = serde_json::json!({
            "Version": version,
            "Description": description,
        });
        let path = tag_path(job_id, name);
        self.write(Method::PUT, &path, Some(&body), q).await
    }

    /// `DELETE /v1/job/:id/versions/:name/tag`: remove the tag `name` from the job.
    pub async fn untag_job_version(
        &self,
        job_id: &str,
        name: &str,
        q: Option<&QueryOptions>,
    ) -> Result<(serde_json::Value, WriteMeta)> {
        let path = tag_path(job_id, name);
        self.write::<(), _>(Method::DELETE, &path, None, q).await
    }

    /// `GET /v1/job/:id/versions?diffs=...`: every version, newest first, with the diffs
    /// `opts` asks for (`nomad job history -p`).
    pub async fn job_versions_with_diffs(
        &self,
        job_id: &str,
        opts: &VersionsOptions,
        q: Option<&QueryOptions>,
    ) -> Result<(JobVersionsWithDiffs, QueryMeta)> {
        #[derive(serde::Deserialize)]
        #[serde(rename_all = "PascalCase")]
        struct Body {
            #[serde(default)]
            versions: Option<Vec<Job>>,
            #[serde(default)]
            diffs: Option<Vec<JobDiff>>,
        }
        let mut q = q.cloned().unwrap_or_default();
        q.params.push(("diffs".into(), opts.diffs.to_string()));
        if let Some(tag) = &opts.diff_tag {
            q.params.push(("diff_tag".into(), tag.clone()));
        }
        if let Some(v) = opts.diff_version {
            q.params.push(("diff_version".into(), v.to_string()));
        }
        let path = format!("/v1/job/{}/versions", path_segment(job_id));
        let (body, meta): (Body, _) = self.query(&path, Some(&q)).await?;
        let out = JobVersionsWithDiffs {
            versions: body.versions.unwrap_or_default(),
            diffs: body.diffs.unwrap_or_default(),
        };
        Ok((out, meta))
    }

    /// `GET /v1/job/:id/scale`.
    pub async fn job_scale_status(&self, job_id: &str) -> Result<(JobScaleStatus, QueryMeta)> {
        let path = format!("/v1/job/{}/scale", path_segment(job_id));
        self.query(&path, None).await
    }
}

/// A job names its own namespace and region; the request goes there, as Nomad's CLI does.
fn job_scope(job: &Job) -> QueryOptions {
    let some = |s: &str| (!s.is_empty()).then(|| s.to_string());
    QueryOptions {
        namespace: some(&job.namespace),
        region: some(&job.region),
        ..Default::default()
    }
}

fn tag_path(job_id: &str, name: &str) -> String {
    format!(
        "/v1/job/{}/versions/{}/tag",
        path_segment(job_id),
        path_segment(name)
    )
}

/// A job ID as one path segment (dispatched IDs contain `/`).
fn path_segment(id: &str) -> String {
    let mut out = String::with_capacity(id.len());
    for b in id.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' | b'@' | b':' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}
