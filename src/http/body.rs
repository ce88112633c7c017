//! Request bodies. Nomad's own clients (the Go `api` package, the CLI's `-output`) send every
//! unset pointer field as `null`; Go decodes that as "absent". The data model's fields are
//! plain values with serde defaults, so nulls are removed before decoding: the result is
//! exactly what Nomad would have seen.

use axum::body::Bytes;
use serde::de::DeserializeOwned;
use serde_json::Value;

use super::error::HttpError;

/// Decode a JSON body the way Nomad's `decodeBody` does (empty body and syntax errors are
/// 400s, with the decoder's message).
pub fn decode<T: DeserializeOwned>(body: &Bytes) -> Result<T, HttpError> {
    if body.is_empty() {
        return Err(HttpError::BadRequest("Request body is empty".to_string()));
    }
    let mut value: Value =
        serde_json::from_slice(body).map_err(|e| HttpError::BadRequest(e.to_string()))?;
    strip_nulls(&mut value);
    serde_json::from_value(value).map_err(|e| HttpError::BadRequest(e.to_string()))
}

/// Remove every `"key": null` from objects, at any depth. Nulls inside arrays stay (Go keeps
/// them too: a nil element of a slice of pointers).
fn strip_nulls(v: &mut Value) {
    match v {
        Value::Object(map) => {
            map.retain(|_, v| !v.is_null());
            map.values_mut().for_each(strip_nulls);
        }
        Value::Array(items) => items.iter_mut().for_each(strip_nulls),
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn nulls_mean_absent_at_any_depth() {
        let mut v =
            serde_json::json!({"a": null, "b": {"c": null, "d": 1}, "e": [null, {"f": null}]});
        strip_nulls(&mut v);
        assert_eq!(v, serde_json::json!({"b": {"d": 1}, "e": [null, {}]}));
    }

    #[test]
    fn a_go_client_job_body_decodes() {
        let body = Bytes::from_static(
            br#"{"Job":{"Region":null,"Namespace":null,"ID":"x","Priority":null,
                "TaskGroups":[{"Name":"g","Count":null,"Tasks":[{"Name":"t","Env":null}]}]}}"#,
        );
        let req: crate::api::JobRegisterRequest = decode(&body).expect("decodes");
        let job = req.job.expect("job");
        assert_eq!(job.id, "x");
        assert_eq!(job.region, "");
        assert_eq!(job.task_groups[0].tasks[0].name, "t");
    }
}
