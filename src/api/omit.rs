//! Nomad's `codec:",omitempty"` structs (`Allocation`, `Evaluation`, ...): every field whose
//! value is empty (zero number, false, "", nil or empty slice/map, zero struct, zero time) is
//! left out of the JSON. Fields of such structs carry
//! `#[serde(skip_serializing_if = "omit::empty")]`; the struct's `#[serde(default)]` gives
//! the same value back when the key is absent.

use serde::{Deserialize, Deserializer, Serializer};

/// The value equals its type's default (Go's zero value).
pub fn empty<T: Default + PartialEq>(v: &T) -> bool {
    *v == T::default()
}

/// A `time.Time` field held as Unix nanoseconds (0 = Go's zero time): written as RFC 3339,
/// read from RFC 3339 or from a number (the form this project wrote before).
pub mod unix_nanos_time {
    use super::*;

    pub fn serialize<S: Serializer>(nanos: &i64, s: S) -> Result<S::Ok, S::Error> {
        if *nanos == 0 {
            s.serialize_str(crate::api::ZERO_TIME)
        } else {
            s.serialize_str(&crate::api::format_rfc3339(*nanos))
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<i64, D::Error> {
        #[derive(Deserialize)]
        #[serde(untagged)]
        enum Form {
            Nanos(i64),
            Text(String),
            Null(()),
        }
        Ok(match Form::deserialize(d)? {
            Form::Nanos(n) => n,
            Form::Text(t) => crate::api::parse_rfc3339(&t).unwrap_or(0),
            Form::Null(()) => 0,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Debug, Default, PartialEq, serde::Serialize, Deserialize)]
    #[serde(default)]
    struct T {
        #[serde(skip_serializing_if = "empty")]
        a: String,
        #[serde(skip_serializing_if = "empty")]
        b: u64,
        #[serde(skip_serializing_if = "empty", with = "unix_nanos_time")]
        at: i64,
    }

    #[test]
    fn empty_fields_are_left_out_and_come_back_as_defaults() {
        let t = T::default();
        assert_eq!(serde_json::to_string(&t).expect("json"), "{}");
        let back: T = serde_json::from_str("{}").expect("parse");
        assert_eq!(back, t);
    }

    #[test]
    fn times_are_rfc3339_and_read_from_either_form() {
        let t = T {
            a: "x".into(),
            b: 3,
            at: 1_700_000_000_123_456_789,
        };
        let json = serde_json::to_string(&t).expect("json");
        assert_eq!(
            json,
            r#"{"a":"x","b":3,"at":"2023-11-14T22:13:20.123456789Z"}"#
        );
        assert_eq!(serde_json::from_str::<T>(&json).expect("parse"), t);
        let old: T = serde_json::from_str(r#"{"at":1700000000123456789}"#).expect("parse");
        assert_eq!(old.at, 1_700_000_000_123_456_789);
        let zero: T = serde_json::from_str(r#"{"at":"0001-01-01T00:00:00Z"}"#).expect("parse");
        assert_eq!(zero.at, 0);
    }
}
