//! TEMPORARY integration shim (replaced by the hcl branch).
use crate::api::Job;

#[derive(Debug, thiserror::Error)]
#[error("{}", .errors.join("; "))]
pub struct ValidationError {
    pub errors: Vec<String>,
}

pub fn canonicalize(job: &mut Job) {
    if job.namespace.is_empty() {
        job.namespace = "default".into();
    }
    if job.region.is_empty() {
        job.region = "global".into();
    }
    if job.name.is_empty() {
        job.name = job.id.clone();
    }
    if job.r#type.is_empty() {
        job.r#type = "service".into();
    }
    if job.priority == 0 {
        job.priority = 50;
    }
    if job.node_pool.is_empty() {
        job.node_pool = "default".into();
    }
}

pub fn validate(job: &Job) -> Result<Vec<String>, ValidationError> {
    let mut errors = Vec::new();
    if job.task_groups.is_empty() {
        errors.push("Missing job task groups".to_string());
    }
    if errors.is_empty() {
        Ok(Vec::new())
    } else {
        Err(ValidationError { errors })
    }
}

/// TEMPORARY shim addition (http branch, so `/v1/jobs/parse` compiles): the hcl branch brings
/// the real `parse_str(src, filename, vars)`; drop this and `ParseError` when it merges.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct ParseError(pub String);

/// TEMPORARY shim addition (http branch); see `ParseError`.
pub fn parse_str(
    _src: &str,
    filename: &str,
    _vars: &[(String, String)],
) -> Result<Job, ParseError> {
    Err(ParseError(format!(
        "{filename}: the HCL parser is not part of this build"
    )))
}
