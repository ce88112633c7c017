//! Digests and name-based UUIDs.

use aws_lc_rs::digest;
use serde_json::Value;

use super::*;

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
