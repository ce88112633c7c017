//! `/v1/operator/scheduler/configuration`: GET the scheduler configuration, PUT/POST a new
//! one (`?cas=<ModifyIndex>` for check-and-set), as Nomad's operator endpoint.

use axum::body::Bytes;
use axum::extract::State;
use axum::http::Method;
use axum::response::{IntoResponse, Response};

use super::error::HttpError;
use super::query::{need_server, Req};
use super::respond::{json, Meta};
use super::HttpState;
use crate::api::{SchedulerConfiguration, SchedulerConfigurationResponse};
use crate::server::endpoints::operator as op;

pub async fn scheduler_configuration(
    State(st): State<HttpState>,
    req: Req,
    body: Bytes,
) -> Response {
    inner(&st, &req, &body)
        .await
        .unwrap_or_else(IntoResponse::into_response)
}

async fn inner(st: &HttpState, req: &Req, body: &Bytes) -> Result<Response, HttpError> {
    let server = need_server(st, req)?;
    match req.method {
        Method::GET => {
            let (index, config) = op::get_scheduler_config(server);
            let meta = Meta::query(server, index);
            let (known_leader, last_contact) = match meta {
                Meta::Query {
                    known_leader,
                    last_contact_ms,
                    ..
                } => (known_leader, last_contact_ms),
                Meta::Write { .. } => (true, 0),
            };
            let out = SchedulerConfigurationResponse {
                index,
                known_leader,
                last_contact,
                next_token: String::new(),
                scheduler_config: config,
            };
            Ok(json(&out, req.pretty(), Some(meta)))
        }
        Method::PUT | Method::POST => {
            let config: SchedulerConfiguration = serde_json::from_slice(body).map_err(|e| {
                HttpError::BadRequest(format!("Error parsing scheduler config: {e}"))
            })?;
            let cas =
                match req.params.iter().find(|(k, _)| k == "cas") {
                    None => None,
                    Some((_, v)) => Some(v.parse::<u64>().map_err(|e| {
                        HttpError::BadRequest(format!("Error parsing cas value: {e}"))
                    })?),
                };
            let out = op::set_scheduler_config(server, config, cas).await?;
            let meta = Meta::Write { index: out.index };
            Ok(json(&out, req.pretty(), Some(meta)))
        }
        _ => Err(HttpError::MethodNotAllowed),
    }
}
