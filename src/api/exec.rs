//! Nomad's alloc exec websocket protocol (`/v1/client/allocation/:id/exec`): JSON text
//! frames, one field set per frame. Bytes are base64 (Go's `[]byte` JSON encoding).
//!
//! ```text
//!  client -> agent   {"stdin":{"data":"aGkK"}}  {"stdin":{"close":true}}
//!                    {"tty_size":{"height":24,"width":80}}  {} (heartbeat)
//!  agent -> client   {"stdout":{"data":"..."}}  {"stderr":{"data":"..."}}
//!                    {"stdout":{"close":true}}  {"exited":true,"result":{"exit_code":3}}
//! ```
//! Errors end the socket with a close frame: 1011 for internal errors, 1008 otherwise, the
//! error text as the reason.

use serde::{Deserialize, Serialize};

/// Close code for errors Nomad maps from HTTP 500.
pub const CLOSE_INTERNAL_ERROR: u16 = 1011;
/// Close code for every other error (Nomad's placeholder `ClosePolicyViolation`).
pub const CLOSE_POLICY_VIOLATION: u16 = 1008;

#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExecStreamingIoOperation {
    #[serde(default, skip_serializing_if = "Vec::is_empty", with = "base64_opt")]
    pub data: Vec<u8>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub close: bool,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct TerminalSize {
    #[serde(default, skip_serializing_if = "is_zero")]
    pub height: u16,
    #[serde(default, skip_serializing_if = "is_zero")]
    pub width: u16,
}

fn is_zero(n: &u16) -> bool {
    *n == 0
}

/// A frame from the user (Nomad's `ExecStreamingInput`); `{}` is a heartbeat.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExecStreamingInput {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stdin: Option<ExecStreamingIoOperation>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub tty_size: Option<TerminalSize>,
}

#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExecStreamingExitResult {
    pub exit_code: i32,
}

/// A frame from the agent (Nomad's `ExecStreamingOutput`).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ExecStreamingOutput {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stdout: Option<ExecStreamingIoOperation>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stderr: Option<ExecStreamingIoOperation>,
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub exited: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub result: Option<ExecStreamingExitResult>,
}

impl ExecStreamingInput {
    pub fn stdin(data: &[u8]) -> Self {
        ExecStreamingInput {
            stdin: Some(ExecStreamingIoOperation {
                data: data.to_vec(),
                close: false,
            }),
            tty_size: None,
        }
    }

    pub fn stdin_close() -> Self {
        ExecStreamingInput {
            stdin: Some(ExecStreamingIoOperation {
                data: Vec::new(),
                close: true,
            }),
            tty_size: None,
        }
    }

    pub fn resize(height: u16, width: u16) -> Self {
        ExecStreamingInput {
            stdin: None,
            tty_size: Some(TerminalSize { height, width }),
        }
    }
}

impl ExecStreamingOutput {
    pub fn stdout(data: &[u8]) -> Self {
        ExecStreamingOutput {
            stdout: Some(ExecStreamingIoOperation {
                data: data.to_vec(),
                close: false,
            }),
            ..Default::default()
        }
    }

    pub fn stderr(data: &[u8]) -> Self {
        ExecStreamingOutput {
            stderr: Some(ExecStreamingIoOperation {
                data: data.to_vec(),
                close: false,
            }),
            ..Default::default()
        }
    }

    pub fn exited(code: i32) -> Self {
        ExecStreamingOutput {
            exited: true,
            result: Some(ExecStreamingExitResult { exit_code: code }),
            ..Default::default()
        }
    }
}

mod base64_opt {
    use base64::Engine as _;
    use serde::{Deserialize, Deserializer, Serializer};

    pub fn serialize<S: Serializer>(data: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&base64::engine::general_purpose::STANDARD.encode(data))
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<u8>, D::Error> {
        match Option::<String>::deserialize(d)? {
            None => Ok(Vec::new()),
            Some(t) => base64::engine::general_purpose::STANDARD
                .decode(t.as_bytes())
                .map_err(serde::de::Error::custom),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn input_frames_encode_like_nomads_client() {
        let enc = |v: &ExecStreamingInput| serde_json::to_string(v).expect("encodes");
        assert_eq!(
            enc(&ExecStreamingInput::stdin(b"hi\n")),
            r#"{"stdin":{"data":"aGkK"}}"#
        );
        assert_eq!(
            enc(&ExecStreamingInput::stdin_close()),
            r#"{"stdin":{"close":true}}"#
        );
        assert_eq!(
            enc(&ExecStreamingInput::resize(24, 80)),
            r#"{"tty_size":{"height":24,"width":80}}"#
        );
        assert_eq!(enc(&ExecStreamingInput::default()), "{}");
    }

    #[test]
    fn output_frames_round_trip() {
        let enc = |v: &ExecStreamingOutput| serde_json::to_string(v).expect("encodes");
        assert_eq!(
            enc(&ExecStreamingOutput::stdout(b"ok")),
            r#"{"stdout":{"data":"b2s="}}"#
        );
        assert_eq!(
            enc(&ExecStreamingOutput::exited(3)),
            r#"{"exited":true,"result":{"exit_code":3}}"#
        );
        // exit_code 0 is still written: Go's field has no omitempty.
        assert_eq!(
            enc(&ExecStreamingOutput::exited(0)),
            r#"{"exited":true,"result":{"exit_code":0}}"#
        );
        let back: ExecStreamingOutput =
            serde_json::from_str(r#"{"stderr":{"data":"ZXJy","close":false}}"#).expect("decodes");
        assert_eq!(back, ExecStreamingOutput::stderr(b"err"));
        let hb: ExecStreamingInput = serde_json::from_str("{}").expect("decodes");
        assert_eq!(hb, ExecStreamingInput::default());
        assert!(serde_json::from_str::<ExecStreamingInput>(r#"{"stdin":{"data":"!!"}}"#).is_err());
    }
}
