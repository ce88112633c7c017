//! go-cty-funcs' crypto functions that need more than a digest: `bcrypt` (golang.org/x/crypto
//! semantics: `$2a$` hashes, cost below 4 means the default 10, passwords over 72 bytes are
//! refused) and `rsadecrypt` (PKCS #1 v1.5 with a PEM "RSA PRIVATE KEY"), plus `md5`.

use base64::Engine as _;
use md5::Digest as _;
use rsa::pkcs1::DecodeRsaPrivateKey as _;
use rsa::pkcs8::DecodePrivateKey as _;
use serde_json::Value;

use super::*;

const DEFAULT_COST: i64 = 10;
const MIN_COST: i64 = 4;
const MAX_COST: i64 = 31;

pub(super) fn bcrypt_fn(a: &[Value]) -> FnResult {
    let input = str_arg(a, 0, "str")?;
    let mut cost = DEFAULT_COST;
    if a.len() > 1 {
        cost = int_arg(a, 1, "cost")?;
    }
    if a.len() > 2 {
        return Err(FnError::Call(
            "bcrypt() takes no more than two arguments".into(),
        ));
    }
    if cost < MIN_COST {
        cost = DEFAULT_COST;
    }
    let fail = |msg: String| FnError::Call(format!("error occured generating password {msg}"));
    if cost > MAX_COST {
        return Err(fail(format!(
            "crypto/bcrypt: cost {cost} is outside allowed range ({MIN_COST},{MAX_COST})"
        )));
    }
    if input.len() > 72 {
        return Err(fail("bcrypt: password length exceeds 72 bytes".into()));
    }
    let parts =
        bcrypt::hash_with_result(input.as_bytes(), cost as u32).map_err(|e| fail(e.to_string()))?;
    Ok(s(parts.format_for_version(bcrypt::Version::TwoA)))
}

pub(super) fn rsadecrypt(a: &[Value]) -> FnResult {
    let text = str_arg(a, 0, "ciphertext")?;
    let key = str_arg(a, 1, "privatekey")?;
    let cipher = base64::engine::general_purpose::STANDARD
        .decode(text.as_bytes())
        .map_err(|_| {
            FnError::Call(format!(
                "failed to decode input {text:?}: cipher text must be base64-encoded"
            ))
        })?;
    let block =
        pem_block(&key).ok_or_else(|| FnError::Call("failed to parse key: no key found".into()))?;
    if block.encrypted {
        return Err(FnError::Call(
            "failed to parse key: password protected keys are not supported. Please decrypt the key prior to use".into(),
        ));
    }
    let private = rsa::RsaPrivateKey::from_pkcs1_der(&block.der).map_err(|_| {
        // x509.ParsePKCS1PrivateKey's hint when the block holds a PKCS #8 key.
        if rsa::RsaPrivateKey::from_pkcs8_der(&block.der).is_ok() {
            FnError::Call("x509: failed to parse private key (use ParsePKCS8PrivateKey instead for this key format)".into())
        } else {
            FnError::Call("x509: malformed private key".into())
        }
    })?;
    let out = private
        .decrypt(rsa::Pkcs1v15Encrypt, &cipher)
        .map_err(|_| FnError::Call("crypto/rsa: decryption error".into()))?;
    Ok(s(String::from_utf8_lossy(&out).into_owned()))
}

struct PemBlock {
    der: Vec<u8>,
    encrypted: bool,
}

/// encoding/pem.Decode's first block: any label, optional `Key: value` headers.
fn pem_block(text: &str) -> Option<PemBlock> {
    let start = text.find("-----BEGIN ")?;
    let rest = &text[start + "-----BEGIN ".len()..];
    let label_end = rest.find("-----")?;
    let label = &rest[..label_end];
    let body = &rest[label_end + 5..];
    let end_marker = format!("-----END {label}-----");
    let end = body.find(&end_marker)?;
    let body = &body[..end];
    let mut encrypted = false;
    let mut b64 = String::new();
    for line in body.lines() {
        let line = line.trim();
        if let Some((k, v)) = line.split_once(':') {
            if k.trim() == "Proc-Type" && v.trim() == "4,ENCRYPTED" {
                encrypted = true;
            }
            continue;
        }
        b64.push_str(line);
    }
    let der = base64::engine::general_purpose::STANDARD
        .decode(b64.as_bytes())
        .ok()?;
    Some(PemBlock { der, encrypted })
}

pub(super) fn md5_fn(a: &[Value]) -> FnResult {
    let st = str_arg(a, 0, "str")?;
    let sum = md5::Md5::digest(st.as_bytes());
    Ok(s(sum.iter().map(|b| format!("{b:02x}")).collect()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    // A key and a ciphertext of "message" made with openssl (genrsa -traditional; pkeyutl
    // -encrypt with PKCS #1 v1.5 padding).
    const KEY: &str = include_str!("testdata/rsa_key.pem");
    const CIPHER: &str = include_str!("testdata/cipher.b64");
    const PKCS8_KEY: &str = include_str!("testdata/pkcs8_key.pem");

    #[test]
    fn rsadecrypt_decrypts_pkcs1v15() {
        assert_eq!(
            rsadecrypt(&[json!(CIPHER), json!(KEY)]),
            Ok(json!("message"))
        );
        let bad = rsadecrypt(&[json!("bad cipher"), json!(KEY)]).unwrap_err();
        assert_eq!(
            bad.to_string(),
            "Call to function failed: failed to decode input \"bad cipher\": cipher text must be base64-encoded."
        );
        let nokey = rsadecrypt(&[json!(CIPHER), json!("bad key")]).unwrap_err();
        assert!(nokey
            .to_string()
            .contains("failed to parse key: no key found"));
        let wrong = rsadecrypt(&[json!("aGVsbG8="), json!(KEY)]).unwrap_err();
        assert!(wrong.to_string().contains("crypto/rsa: decryption error"));
        let pkcs8 = rsadecrypt(&[json!(CIPHER), json!(PKCS8_KEY)]).unwrap_err();
        assert!(
            pkcs8
                .to_string()
                .contains("use ParsePKCS8PrivateKey instead"),
            "{pkcs8}"
        );
    }

    #[test]
    fn bcrypt_hashes_verify_and_use_2a() {
        let Ok(Value::String(h)) = bcrypt_fn(&[json!("test"), json!(4)]) else {
            panic!("bcrypt failed");
        };
        assert!(h.starts_with("$2a$04$"), "{h}");
        assert!(bcrypt::verify("test", &h).unwrap_or(false));
        let Ok(Value::String(h)) = bcrypt_fn(&[json!("test"), json!(1)]) else {
            panic!("bcrypt failed");
        };
        assert!(h.starts_with("$2a$10$"), "cost below 4 is the default: {h}");
        assert!(bcrypt_fn(&[json!("t"), json!(4), json!(5)]).is_err());
        assert!(bcrypt_fn(&[json!("x".repeat(73))])
            .unwrap_err()
            .to_string()
            .contains("password length exceeds 72 bytes"));
    }

    #[test]
    fn md5_hex() {
        assert_eq!(
            md5_fn(&[json!("hello world")]),
            Ok(json!("5eb63bbbe01eeed093cb22bb8f5acdc3"))
        );
    }
}
