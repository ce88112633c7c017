//! `/v1/system/gc`, `/v1/system/reconcile/summaries`, and `DELETE /v1/evaluations`; plus the
//! pagination of `/v1/evaluations` (Nomad's `per_page` / `next_token`).

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderValue, Method, StatusCode};
use axum::response::{IntoResponse, Response};
use serde::{Deserialize, Serialize};

use super::error::HttpError;
use super::query::{need_server, Req};
use super::respond::{json, Meta};
use super::HttpState;
use crate::api::Evaluation;
use crate::server::endpoints::eval;

fn write_only(req: &Req) -> Result<(), HttpError> {
    if req.method == Method::PUT || req.method == Method::POST {
        Ok(())
    } else {
        Err(HttpError::MethodNotAllowed)
    }
}

/// An empty 200, as Nomad answers a write that returns nothing.
fn empty(index: Option<u64>) -> Response {
    let mut resp = StatusCode::OK.into_response();
    if let Some(index) = index {
        Meta::Write { index }.apply(&mut resp);
    }
    resp
}

pub async fn gc(State(st): State<HttpState>, req: Req) -> Response {
    let out = async {
        write_only(&req)?;
        let server = need_server(&st, &req)?;
        eval::force_gc(server).await?;
        Ok::<_, HttpError>(empty(None))
    };
    out.await.unwrap_or_else(IntoResponse::into_response)
}

pub async fn reconcile_summaries(State(st): State<HttpState>, req: Req) -> Response {
    let out = async {
        write_only(&req)?;
        let server = need_server(&st, &req)?;
        let index = eval::reconcile_summaries(server).await?;
        Ok::<_, HttpError>(empty(Some(index)))
    };
    out.await.unwrap_or_else(IntoResponse::into_response)
}

/// Nomad's `EvalDeleteRequest`.
#[derive(Debug, Default, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
struct EvalDeleteRequest {
    #[serde(rename = "EvalIDs")]
    eval_ids: Vec<String>,
    filter: String,
}

#[derive(Debug, Serialize)]
#[serde(rename_all = "PascalCase")]
struct EvalDeleteResponse {
    count: usize,
}

/// `DELETE /v1/evaluations`.
pub async fn delete_evals(st: &HttpState, req: &Req, body: &Bytes) -> Result<Response, HttpError> {
    let server = need_server(st, req)?;
    let r: EvalDeleteRequest = super::body::decode(body)?;
    let (count, index) = eval::delete(server, &r.eval_ids, &r.filter).await?;
    Ok(json(
        &EvalDeleteResponse { count },
        req.pretty(),
        Some(Meta::Write { index }),
    ))
}

/// One page of `evals` (sorted by create index, then ID, as Nomad lists them without a
/// prefix; by ID with one), and the token of the next page if any. A token is
/// `<CreateIndex>.<ID>` (or `<ID>` with a prefix), the first eval of the next page.
pub fn paginate(
    mut evals: Vec<std::sync::Arc<Evaluation>>,
    req: &Req,
) -> Result<(Vec<std::sync::Arc<Evaluation>>, Option<String>), HttpError> {
    let by_id = !req.prefix().is_empty();
    if !by_id {
        evals.sort_by(|a, b| (a.create_index, &a.id).cmp(&(b.create_index, &b.id)));
    }
    paginate_by(evals, req, |e| {
        if by_id {
            e.id.clone()
        } else {
            format!("{}.{}", e.create_index, e.id)
        }
    })
}

/// One page of `items` (already in list order; `?reverse=true` reverses it) by `?per_page=`
/// and `?next_token=`, where `token` names an item; returns the page and the token of the
/// first item of the next page, if any (Nomad's paginator).
pub fn paginate_by<T>(
    mut items: Vec<T>,
    req: &Req,
    token: impl Fn(&T) -> String,
) -> Result<(Vec<T>, Option<String>), HttpError> {
    if req.flag("reverse") {
        items.reverse();
    }
    if let Some(next) = req.get("next_token") {
        match items.iter().position(|e| token(e) == next) {
            Some(i) => {
                items.drain(..i);
            }
            None => items.clear(),
        }
    }
    let per_page = match req.get("per_page") {
        None => 0,
        Some(v) => v
            .parse::<usize>()
            .map_err(|_| HttpError::BadRequest(format!("Invalid per_page value: {v:?}")))?,
    };
    if per_page == 0 || items.len() <= per_page {
        return Ok((items, None));
    }
    let next = token(&items[per_page]);
    items.truncate(per_page);
    Ok((items, Some(next)))
}

/// Add `X-Nomad-NextToken` to a list response.
pub fn with_next_token(mut resp: Response, token: Option<String>) -> Response {
    if let Some(t) = token.and_then(|t| HeaderValue::from_str(&t).ok()) {
        resp.headers_mut().insert("X-Nomad-NextToken", t);
    }
    resp
}
