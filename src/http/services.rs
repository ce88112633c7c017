//! `/v1/services` and `/v1/service/<name>[/<id>]`: Nomad-native service discovery.

use std::collections::{BTreeMap, BTreeSet};

use axum::extract::rejection::PathRejection;
use axum::extract::{Path, State};
use axum::http::{Method, StatusCode};
use axum::response::{IntoResponse, Response};

use super::error::HttpError;
use super::query::{blocking, need_server, passes, Req};
use super::respond::{json, Meta};
use super::HttpState;
use crate::api::{
    choose, ServiceRegistration, ServiceRegistrationListStub, ServiceRegistrationStub,
};
use crate::server::endpoints::service;
use crate::server::state::Table;

pub async fn list(State(st): State<HttpState>, req: Req) -> Response {
    list_inner(&st, &req)
        .await
        .unwrap_or_else(IntoResponse::into_response)
}

async fn list_inner(st: &HttpState, req: &Req) -> Result<Response, HttpError> {
    if req.method != Method::GET {
        return Err(HttpError::MethodNotAllowed);
    }
    let server = need_server(st, req)?;
    let ns = req.namespace().to_string();
    let (meta, out) = blocking(server, req, &[Table::Services], |snap| {
        // namespace -> service -> union of tags
        let mut by_ns: BTreeMap<String, BTreeMap<String, BTreeSet<String>>> = BTreeMap::new();
        for r in snap.services(Some(&ns)) {
            by_ns
                .entry(r.namespace.clone())
                .or_default()
                .entry(r.service_name.clone())
                .or_default()
                .extend(r.tags.iter().cloned());
        }
        let out: Vec<ServiceRegistrationListStub> = by_ns
            .into_iter()
            .map(|(namespace, services)| ServiceRegistrationListStub {
                namespace,
                services: services
                    .into_iter()
                    .map(|(service_name, tags)| ServiceRegistrationStub {
                        service_name,
                        tags: tags.into_iter().collect(),
                    })
                    .collect(),
            })
            .collect();
        Ok((snap.table_index(Table::Services), out))
    })
    .await?;
    Ok(json(&out, req.pretty(), Some(meta)))
}

pub async fn specific(
    State(st): State<HttpState>,
    path: Result<Path<String>, PathRejection>,
    req: Req,
) -> Response {
    let out = match path {
        Ok(Path(rest)) => specific_inner(&st, &req, &rest).await,
        Err(e) => Err(HttpError::BadRequest(e.body_text())),
    };
    out.unwrap_or_else(IntoResponse::into_response)
}

async fn specific_inner(st: &HttpState, req: &Req, rest: &str) -> Result<Response, HttpError> {
    let parts: Vec<&str> = rest.split('/').collect();
    match parts.as_slice() {
        [name] => {
            if req.method != Method::GET {
                return Err(HttpError::MethodNotAllowed);
            }
            if name.is_empty() {
                return Err(HttpError::BadRequest("missing service name".to_string()));
            }
            get(st, req, name).await
        }
        [_, id] => {
            if req.method != Method::DELETE {
                return Err(HttpError::MethodNotAllowed);
            }
            if id.is_empty() {
                return Err(HttpError::BadRequest("missing service id".to_string()));
            }
            let server = need_server(st, req)?;
            let index = service::delete_by_id(server, req.namespace(), id).await?;
            let mut resp = StatusCode::OK.into_response();
            Meta::Write { index }.apply(&mut resp);
            Ok(resp)
        }
        _ => Err(HttpError::BadRequest("invalid URI".to_string())),
    }
}

async fn get(st: &HttpState, req: &Req, name: &str) -> Result<Response, HttpError> {
    let server = need_server(st, req)?;
    let ns = req.namespace().to_string();
    let pick = req.get("choose").map(str::to_string);
    let filter = req.filter()?;
    let (meta, out) = blocking(server, req, &[Table::Services], |snap| {
        let mut regs: Vec<ServiceRegistration> = Vec::new();
        for r in snap.services_by_name(&ns, name) {
            if passes(filter.as_ref(), &*r)? {
                regs.push((*r).clone());
            }
        }
        let regs = match &pick {
            Some(p) => choose(regs, p)
                .map_err(|e| HttpError::BadRequest(format!("failed to choose services: {e}")))?,
            None => regs,
        };
        Ok((snap.table_index(Table::Services), regs))
    })
    .await?;
    Ok(json(&out, req.pretty(), Some(meta)))
}
