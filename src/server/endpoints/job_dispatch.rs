//! Job.Dispatch: launch a child of a parameterized job with the caller's meta and payload.
//!
//! The child is a copy of the template named `<parent>/dispatch-<unix>-<8 hex>` (with an
//! optional prefix template before the time), marked `Dispatched`, with the dispatch meta
//! merged over the template's and the payload snappy-compressed into `Payload`, as Nomad
//! stores it. The client writes the payload into the task that asks for it
//! (`dispatch_payload { file = ... }`).

use std::collections::BTreeMap;

use base64::Engine as _;

use crate::api::*;
use crate::server::fsm::Command;
use crate::server::{Server, ServerError};

/// The largest payload a dispatch may carry (Nomad's DispatchPayloadSizeLimit).
pub const DISPATCH_PAYLOAD_SIZE_LIMIT: usize = 16 * 1024;
/// Job priorities a dispatch may ask for (Nomad's defaults).
const MIN_PRIORITY: i32 = 1;
const MAX_PRIORITY: i32 = 100;

/// What a dispatch request may get wrong, in Nomad's words.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DispatchError {
    #[error("missing parameterized job ID")]
    MissingJobId,
    #[error("parameterized job not found")]
    NotFound,
    #[error("Specified job {0:?} is not a parameterized job")]
    NotParameterized(String),
    #[error("Specified job {0:?} is stopped")]
    Stopped(String),
    #[error("Payload is not provided but required by parameterized job")]
    PayloadRequired,
    #[error("Payload provided but forbidden by parameterized job")]
    PayloadForbidden,
    #[error("Payload exceeds maximum size; {0} > {DISPATCH_PAYLOAD_SIZE_LIMIT}")]
    PayloadTooLarge(usize),
    #[error("Dispatch request included unpermitted metadata keys: [{}]", .0.join(" "))]
    UnpermittedMeta(Vec<String>),
    #[error("Dispatch did not provide required meta keys: [{}]", .0.join(" "))]
    MissingMeta(Vec<String>),
    #[error("dispatch job priority must be between [{MIN_PRIORITY}, {MAX_PRIORITY}]")]
    Priority,
}

impl From<DispatchError> for ServerError {
    fn from(e: DispatchError) -> Self {
        match e {
            DispatchError::NotFound => ServerError::NotFound(e.to_string()),
            other => ServerError::BadRequest(other.to_string()),
        }
    }
}

/// A dispatch as the HTTP layer hands it over.
#[derive(Debug, Clone, Default)]
pub struct DispatchArgs {
    pub namespace: String,
    pub request: JobDispatchRequest,
    pub idempotency_token: String,
}

pub async fn dispatch(
    server: &Server,
    args: DispatchArgs,
) -> Result<JobDispatchResponse, ServerError> {
    let req = &args.request;
    if req.job_id.is_empty() {
        return Err(DispatchError::MissingJobId.into());
    }
    let snap = server.state().snapshot();
    let parent = snap
        .job_by_id(&args.namespace, &req.job_id)
        .ok_or(DispatchError::NotFound)?;
    let priority = if req.priority == 0 {
        parent.priority
    } else {
        req.priority
    };
    validate(req, &parent, priority)?;
    if !args.idempotency_token.is_empty() {
        // A retried request gets the child the first one made, while that child exists.
        let earlier = snap.jobs(Some(&args.namespace)).into_iter().find(|j| {
            j.parent_id == parent.id && j.dispatch_idempotency_token == args.idempotency_token
        });
        if let Some(found) = earlier {
            return Ok(JobDispatchResponse {
                dispatched_job_id: found.id.clone(),
                job_create_index: found.create_index,
                index: found.modify_index,
                ..Default::default()
            });
        }
    }
    let now = now_nanos();
    let child = derive_child(&parent, &args, priority, now, &generate_id());
    let eval = (!child.is_periodic()).then(|| Evaluation {
        id: generate_id(),
        namespace: child.namespace.clone(),
        priority: child.priority,
        r#type: child.r#type.clone(),
        triggered_by: TRIGGER_JOB_REGISTER.to_string(),
        job_id: child.id.clone(),
        status: EVAL_STATUS_PENDING.to_string(),
        create_time: now,
        modify_time: now,
        ..Default::default()
    });
    let dispatched_job_id = child.id.clone();
    let resp = server
        .propose(Command::JobRegister {
            job: child,
            eval: eval.clone(),
            submit_time: now,
        })
        .await?;
    Ok(JobDispatchResponse {
        dispatched_job_id,
        eval_create_index: if eval.is_some() { resp.index } else { 0 },
        eval_id: eval.map(|e| e.id).unwrap_or_default(),
        index: resp.index,
        job_create_index: resp.index,
    })
}

/// Nomad's validateDispatchRequest, plus the checks on the template itself.
pub fn validate(
    req: &JobDispatchRequest,
    parent: &Job,
    priority: i32,
) -> Result<(), DispatchError> {
    if !parent.is_parameterized() {
        return Err(DispatchError::NotParameterized(req.job_id.clone()));
    }
    if parent.stop {
        return Err(DispatchError::Stopped(req.job_id.clone()));
    }
    let cfg: ParameterizedJobConfig = parent
        .parameterized_job
        .clone()
        .and_then(|v| serde_json::from_value(v).ok())
        .unwrap_or_default();
    let has_payload = !req.payload.is_empty();
    match cfg.payload.as_str() {
        "required" if !has_payload => return Err(DispatchError::PayloadRequired),
        "forbidden" if has_payload => return Err(DispatchError::PayloadForbidden),
        _ => {}
    }
    if req.payload.len() > DISPATCH_PAYLOAD_SIZE_LIMIT {
        return Err(DispatchError::PayloadTooLarge(req.payload.len()));
    }
    let required = cfg.meta_required.unwrap_or_default();
    let optional = cfg.meta_optional.unwrap_or_default();
    let meta = req.meta.clone().unwrap_or_default();
    let unpermitted: Vec<String> = meta
        .keys()
        .filter(|k| !required.contains(k) && !optional.contains(k))
        .cloned()
        .collect();
    if !unpermitted.is_empty() {
        return Err(DispatchError::UnpermittedMeta(unpermitted));
    }
    let mut missing: Vec<String> = required
        .iter()
        .filter(|k| !meta.contains_key(*k))
        .cloned()
        .collect();
    missing.sort();
    missing.dedup();
    if !missing.is_empty() {
        return Err(DispatchError::MissingMeta(missing));
    }
    if !(MIN_PRIORITY..=MAX_PRIORITY).contains(&priority) {
        return Err(DispatchError::Priority);
    }
    Ok(())
}

/// The child job of a dispatch; `uuid` supplies the 8 hex characters of its ID.
pub fn derive_child(parent: &Job, args: &DispatchArgs, priority: i32, now: i64, uuid: &str) -> Job {
    let mut child = parent.clone();
    let unix = now.div_euclid(1_000_000_000);
    let suffix = &uuid[..uuid.len().min(8)];
    let template = &args.request.id_prefix_template;
    child.id = if template.is_empty() {
        format!("{}/dispatch-{unix}-{suffix}", parent.id)
    } else {
        format!("{}/dispatch-{template}-{unix}-{suffix}", parent.id)
    };
    child.name = child.id.clone();
    child.parent_id = parent.id.clone();
    child.dispatched = true;
    child.status = String::new();
    child.status_description = String::new();
    child.dispatch_idempotency_token = args.idempotency_token.clone();
    child.priority = priority;
    child.submit_time = now;
    if let Some(extra) = args.request.meta.as_ref().filter(|m| !m.is_empty()) {
        let meta = child.meta.get_or_insert_with(BTreeMap::new);
        meta.extend(extra.iter().map(|(k, v)| (k.clone(), v.clone())));
    }
    let compressed = snap::raw::Encoder::new()
        .compress_vec(&args.request.payload)
        .unwrap_or_default();
    child.payload = (!args.request.payload.is_empty()).then(|| {
        serde_json::Value::String(base64::engine::general_purpose::STANDARD.encode(compressed))
    });
    child
}

#[cfg(test)]
mod tests {
    use super::*;

    fn template(payload: &str, required: &[&str], optional: &[&str]) -> Job {
        let cfg = ParameterizedJobConfig {
            payload: payload.to_string(),
            meta_required: Some(required.iter().map(|s| s.to_string()).collect()),
            meta_optional: Some(optional.iter().map(|s| s.to_string()).collect()),
        };
        Job {
            id: "report".into(),
            name: "report".into(),
            namespace: "default".into(),
            priority: 50,
            parameterized_job: serde_json::to_value(cfg).ok(),
            meta: Some(BTreeMap::from([("team".to_string(), "a".to_string())])),
            ..Default::default()
        }
    }

    fn request(meta: &[(&str, &str)], payload: &[u8]) -> JobDispatchRequest {
        JobDispatchRequest {
            job_id: "report".into(),
            payload: payload.to_vec(),
            meta: Some(
                meta.iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect(),
            ),
            ..Default::default()
        }
    }

    #[test]
    fn validation_follows_nomads_rules_and_words() {
        let t = template("required", &["customer"], &["region"]);
        let ok = request(&[("customer", "acme"), ("region", "eu")], b"data");
        assert_eq!(validate(&ok, &t, 50), Ok(()));
        let cases = [
            (
                request(&[("customer", "acme")], b""),
                "Payload is not provided but required by parameterized job",
            ),
            (
                request(&[("customer", "a"), ("color", "red")], b"x"),
                "Dispatch request included unpermitted metadata keys: [color]",
            ),
            (
                request(&[], b"x"),
                "Dispatch did not provide required meta keys: [customer]",
            ),
            (
                request(&[("customer", "a")], &[0; DISPATCH_PAYLOAD_SIZE_LIMIT + 1]),
                "Payload exceeds maximum size; 16385 > 16384",
            ),
        ];
        for (req, want) in cases {
            assert_eq!(validate(&req, &t, 50).expect_err(want).to_string(), want);
        }
        assert_eq!(
            validate(&ok, &t, 101).expect_err("priority").to_string(),
            "dispatch job priority must be between [1, 100]"
        );
        let forbidden = template("forbidden", &[], &[]);
        assert_eq!(
            validate(&request(&[], b"x"), &forbidden, 50),
            Err(DispatchError::PayloadForbidden)
        );
        let mut plain = template("", &[], &[]);
        plain.parameterized_job = None;
        assert_eq!(
            validate(&request(&[], b""), &plain, 50)
                .expect_err("plain")
                .to_string(),
            "Specified job \"report\" is not a parameterized job"
        );
        let mut child = template("", &[], &[]);
        child.dispatched = true;
        assert!(validate(&request(&[], b""), &child, 50).is_err());
    }

    #[test]
    fn child_is_named_marked_and_carries_compressed_payload() {
        let t = template("optional", &[], &["region"]);
        let args = DispatchArgs {
            namespace: "default".into(),
            request: request(&[("region", "eu")], b"hello hello hello"),
            idempotency_token: "tok".into(),
        };
        let now = 1_700_000_000_123_456_789;
        let c = derive_child(&t, &args, 70, now, "0123abcd-ffff");
        assert_eq!(c.id, "report/dispatch-1700000000-0123abcd");
        assert_eq!(
            (c.name.as_str(), c.parent_id.as_str()),
            (c.id.as_str(), "report")
        );
        assert!(c.dispatched && !c.is_parameterized());
        assert_eq!(c.priority, 70);
        assert_eq!(c.dispatch_idempotency_token, "tok");
        let meta = c.meta.clone().unwrap_or_default();
        assert_eq!(meta.get("team").map(String::as_str), Some("a"));
        assert_eq!(meta.get("region").map(String::as_str), Some("eu"));
        let b64 = c
            .payload
            .as_ref()
            .and_then(|v| v.as_str())
            .expect("payload");
        let raw = base64::engine::general_purpose::STANDARD
            .decode(b64)
            .expect("base64");
        let back = snap::raw::Decoder::new()
            .decompress_vec(&raw)
            .expect("snappy");
        assert_eq!(back, b"hello hello hello");

        let mut with_prefix = args.clone();
        with_prefix.request.id_prefix_template = "nightly".into();
        let c = derive_child(&t, &with_prefix, 70, now, "0123abcd");
        assert_eq!(c.id, "report/dispatch-nightly-1700000000-0123abcd");
    }
}
