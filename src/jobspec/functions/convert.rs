//! Hashes, UUIDs and type conversions.

use aws_lc_rs::digest;
use serde_json::Value;

use super::*;
use crate::jobspec::eval::as_bool;

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

pub(super) fn hash(a: &[Value], alg: &'static digest::Algorithm) -> FnResult {
    let st = str_arg(a, 0, "str")?;
    Ok(s(hex(digest::digest(alg, st.as_bytes()).as_ref())))
}

/// RFC 4122 name-based UUID: SHA-1 over namespace bytes and name.
pub(super) fn uuidv5(a: &[Value]) -> FnResult {
    let ns = str_arg(a, 0, "namespace")?;
    let name = str_arg(a, 1, "name")?;
    let ns = match ns.as_str() {
        "dns" => uuid::Uuid::NAMESPACE_DNS,
        "url" => uuid::Uuid::NAMESPACE_URL,
        "oid" => uuid::Uuid::NAMESPACE_OID,
        "x500" => uuid::Uuid::NAMESPACE_X500,
        other => uuid::Uuid::parse_str(other).map_err(|e| {
            arg_err(
                0,
                "namespace",
                format!("uuidv5() doesn't support namespace {other} ({e})"),
            )
        })?,
    };
    let mut data = ns.as_bytes().to_vec();
    data.extend_from_slice(name.as_bytes());
    let sum = digest::digest(&digest::SHA1_FOR_LEGACY_USE_ONLY, &data);
    let mut bytes = [0u8; 16];
    bytes.copy_from_slice(&sum.as_ref()[..16]);
    Ok(s(uuid::Builder::from_sha1_bytes(bytes)
        .into_uuid()
        .to_string()))
}

pub(super) fn tostring(a: &[Value]) -> FnResult {
    match &a[0] {
        Value::Null => Ok(Value::Null),
        v => value_to_string(v)
            .map(s)
            .ok_or_else(|| arg_err(0, "v", "cannot convert collection to string".into())),
    }
}

pub(super) fn tonumber(a: &[Value]) -> FnResult {
    match &a[0] {
        Value::Null => Ok(Value::Null),
        v => as_f64(v)
            .filter(|_| !matches!(v, Value::Bool(_)))
            .map(float_value)
            .ok_or_else(|| arg_err(0, "v", "a number is required".into())),
    }
}

pub(super) fn tobool(a: &[Value]) -> FnResult {
    match &a[0] {
        Value::Null => Ok(Value::Null),
        v => as_bool(v)
            .map(Value::Bool)
            .ok_or_else(|| arg_err(0, "v", "a bool is required".into())),
    }
}

pub(super) fn tolist(a: &[Value]) -> FnResult {
    match &a[0] {
        Value::Null => Ok(Value::Null),
        Value::Array(_) => Ok(a[0].clone()),
        _ => Err(arg_err(0, "v", "list or tuple required".into())),
    }
}

/// cty sets of strings or numbers iterate in sorted order.
pub(super) fn toset(a: &[Value]) -> FnResult {
    let mut items = match &a[0] {
        Value::Null => return Ok(Value::Null),
        Value::Array(v) => distinct(v.clone()),
        _ => return Err(arg_err(0, "v", "list, tuple or set required".into())),
    };
    if items.iter().all(|v| v.is_number()) {
        items.sort_by(|x, y| {
            let (x, y) = (x.as_f64().unwrap_or(0.0), y.as_f64().unwrap_or(0.0));
            x.total_cmp(&y)
        });
    } else if items
        .iter()
        .all(|v| v.is_string() || v.is_number() || v.is_boolean())
    {
        let mut strs: Vec<String> = items.iter().filter_map(value_to_string).collect();
        strs.sort();
        strs.dedup();
        items = strs.into_iter().map(s).collect();
    }
    Ok(Value::Array(items))
}

pub(super) fn tomap(a: &[Value]) -> FnResult {
    match &a[0] {
        Value::Null => Ok(Value::Null),
        Value::Object(m) => Ok(Value::Object(m.clone())),
        _ => Err(arg_err(0, "v", "map or object required".into())),
    }
}
