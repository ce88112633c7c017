//! Typed calls for node drain, eligibility and dynamic node metadata, on the shared `Client`.

use reqwest::Method;

use super::client::{Client, QueryMeta, QueryOptions, Result, WriteMeta};
use super::{
    NodeMetaApplyRequest, NodeMetaResponse, NodeUpdateDrainRequest, NodeUpdateEligibilityRequest,
    NodeUpdateResponse, NODE_ELIGIBLE, NODE_INELIGIBLE,
};

/// Percent-encode one path segment.
fn segment(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for b in s.bytes() {
        match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                out.push(b as char)
            }
            _ => out.push_str(&format!("%{b:02X}")),
        }
    }
    out
}

impl Client {
    /// `PUT /v1/node/<id>/drain`.
    pub async fn node_update_drain(
        &self,
        node_id: &str,
        req: &NodeUpdateDrainRequest,
    ) -> Result<(NodeUpdateResponse, WriteMeta)> {
        let path = format!("/v1/node/{}/drain", segment(node_id));
        self.write(Method::PUT, &path, Some(req), None).await
    }

    /// `PUT /v1/node/<id>/eligibility`.
    pub async fn node_toggle_eligibility(
        &self,
        node_id: &str,
        eligible: bool,
    ) -> Result<(NodeUpdateResponse, WriteMeta)> {
        let req = NodeUpdateEligibilityRequest {
            node_id: node_id.to_string(),
            eligibility: if eligible {
                NODE_ELIGIBLE
            } else {
                NODE_INELIGIBLE
            }
            .to_string(),
        };
        let path = format!("/v1/node/{}/eligibility", segment(node_id));
        self.write(Method::PUT, &path, Some(&req), None).await
    }

    /// `GET /v1/client/metadata[?node_id=]`.
    pub async fn node_meta_read(
        &self,
        node_id: Option<&str>,
    ) -> Result<(NodeMetaResponse, QueryMeta)> {
        let q = QueryOptions {
            params: node_id
                .map(|id| vec![("node_id".to_string(), id.to_string())])
                .unwrap_or_default(),
            ..Default::default()
        };
        self.query("/v1/client/metadata", Some(&q)).await
    }

    /// `POST /v1/client/metadata`.
    pub async fn node_meta_apply(&self, req: &NodeMetaApplyRequest) -> Result<NodeMetaResponse> {
        let q = QueryOptions {
            params: if req.node_id.is_empty() {
                Vec::new()
            } else {
                vec![("node_id".to_string(), req.node_id.clone())]
            },
            ..Default::default()
        };
        let (out, _) = self
            .write(Method::POST, "/v1/client/metadata", Some(req), Some(&q))
            .await?;
        Ok(out)
    }
}
