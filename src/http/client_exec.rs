//! `GET /v1/client/allocation/<id>/exec?task=&tty=&command=["..."]`: Nomad's exec
//! websocket (frames in `api::exec`). The query is checked before the upgrade; errors found
//! after it (unknown task, task not running) end the socket with a close frame carrying
//! Nomad's text.
//!
//! ```text
//!  socket ─ stdin / tty_size frames ─> ExecInput ─┐
//!                                                 ├─ ClientOps::exec (driver)
//!  socket <─ stdout / stderr frames <─ ExecOutput ┘
//!  socket <─ {"exited":true,"result":{"exit_code":N}}, then a normal close
//! ```

use std::sync::Arc;

use axum::extract::ws::rejection::WebSocketUpgradeRejection;
use axum::extract::ws::{CloseFrame, Message, WebSocket, WebSocketUpgrade};
use axum::response::{IntoResponse, Response};
use bytes::Bytes;
use futures::{SinkExt, StreamExt};

use super::client_api::{ClientOps, OpError};
use super::error::HttpError;
use super::query::{parse_go_bool, Req};
use crate::api::exec::{
    ExecStreamingInput, ExecStreamingOutput, CLOSE_INTERNAL_ERROR, CLOSE_POLICY_VIOLATION,
};
use crate::drivers::exec_stream::{ExecInput, ExecOutput, ExecSession};

/// What one exec asks for, after validating the query.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ExecParams {
    pub task: String,
    pub tty: bool,
    pub command: Vec<String>,
}

pub fn parse_params(req: &Req) -> Result<ExecParams, HttpError> {
    let raw = req.get("command").unwrap_or("");
    let command: Vec<String> = serde_json::from_str(raw)
        .map_err(|e| HttpError::Internal(format!("failed to marshal command into json: {e}")))?;
    let tty = match req.get("tty") {
        None => false,
        Some(v) => parse_go_bool(v).ok_or_else(|| {
            HttpError::Internal(format!(
                "tty value is not a boolean: strconv.ParseBool: parsing {v:?}: invalid syntax"
            ))
        })?,
    };
    Ok(ExecParams {
        task: req.get("task").unwrap_or("").to_string(),
        tty,
        command,
    })
}

pub fn exec(
    client: Arc<dyn ClientOps>,
    alloc_id: &str,
    req: &Req,
    ws: Result<WebSocketUpgrade, WebSocketUpgradeRejection>,
) -> Result<Response, HttpError> {
    let params = parse_params(req)?;
    let ws = ws.map_err(|e| HttpError::BadRequest(e.body_text()))?;
    let alloc_id = alloc_id.to_string();
    Ok(ws
        .on_upgrade(move |socket| run(socket, client, alloc_id, params))
        .into_response())
}

/// Decodes one input frame; `None` for a heartbeat.
pub fn decode_input(text: &[u8]) -> Result<Vec<ExecInput>, String> {
    let frame: ExecStreamingInput =
        serde_json::from_slice(text).map_err(|e| format!("failed to decode frame: {e}"))?;
    let mut out = Vec::new();
    if let Some(stdin) = frame.stdin {
        if !stdin.data.is_empty() {
            out.push(ExecInput::Stdin(Bytes::from(stdin.data)));
        }
        if stdin.close {
            out.push(ExecInput::StdinClose);
        }
    }
    if let Some(size) = frame.tty_size {
        out.push(ExecInput::Resize {
            height: size.height,
            width: size.width,
        });
    }
    Ok(out)
}

pub fn encode_output(chunk: &ExecOutput) -> String {
    let frame = match chunk {
        ExecOutput::Stdout(b) => ExecStreamingOutput::stdout(b),
        ExecOutput::Stderr(b) => ExecStreamingOutput::stderr(b),
    };
    serde_json::to_string(&frame).unwrap_or_default()
}

fn close_frame(e: &OpError) -> Message {
    let code = if e.status == 500 {
        CLOSE_INTERNAL_ERROR
    } else {
        CLOSE_POLICY_VIOLATION
    };
    // A close reason is limited to 123 bytes.
    let mut reason = e.message.clone();
    while reason.len() > 123 {
        reason.pop();
    }
    Message::Close(Some(CloseFrame {
        code,
        reason: reason.into(),
    }))
}

async fn run(socket: WebSocket, client: Arc<dyn ClientOps>, alloc_id: String, p: ExecParams) {
    let (session, in_tx, mut out_rx) = ExecSession::new(p.command, p.tty);
    let mut exec = tokio::spawn(async move { client.exec(&alloc_id, &p.task, session).await });
    let (mut sink, mut stream) = socket.split();
    let mut input = Some(in_tx);
    let mut output_open = true;
    let result = loop {
        tokio::select! {
            msg = stream.next(), if input.is_some() => match msg {
                Some(Ok(Message::Text(t))) => forward(&mut input, t.as_bytes()).await,
                Some(Ok(Message::Binary(b))) => forward(&mut input, &b).await,
                Some(Ok(Message::Ping(_) | Message::Pong(_))) => {}
                // The user went away: dropping the input ends the command.
                Some(Ok(Message::Close(_))) | Some(Err(_)) | None => input = None,
            },
            chunk = out_rx.recv(), if output_open => match chunk {
                Some(c) => {
                    let _ = sink.send(Message::Text(encode_output(&c).into())).await;
                }
                None => output_open = false,
            },
            res = &mut exec => break res,
        }
    };
    // The session is gone with the exec: whatever output is left is buffered here.
    while let Some(c) = out_rx.recv().await {
        let _ = sink.send(Message::Text(encode_output(&c).into())).await;
    }
    let res = result.unwrap_or_else(|e| Err(OpError::new(500, e.to_string())));
    match res {
        Ok(code) => {
            let done =
                serde_json::to_string(&ExecStreamingOutput::exited(code)).unwrap_or_default();
            let _ = sink.send(Message::Text(done.into())).await;
            let _ = sink
                .send(Message::Close(Some(CloseFrame {
                    code: 1000,
                    reason: "".into(),
                })))
                .await;
        }
        Err(e) => {
            tracing::debug!(error = %e.message, "alloc exec failed");
            let _ = sink.send(close_frame(&e)).await;
        }
    }
}

async fn forward(input: &mut Option<tokio::sync::mpsc::Sender<ExecInput>>, text: &[u8]) {
    let Some(tx) = input.as_ref() else {
        return;
    };
    match decode_input(text) {
        Ok(msgs) => {
            for m in msgs {
                if tx.send(m).await.is_err() {
                    *input = None;
                    return;
                }
            }
        }
        Err(e) => {
            tracing::debug!(error = %e, "bad exec frame");
            *input = None;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use axum::http::Method;

    fn req(params: &[(&str, &str)]) -> Req {
        Req {
            method: Method::GET,
            params: params
                .iter()
                .map(|(k, v)| (k.to_string(), v.to_string()))
                .collect(),
            shutdown: None,
        }
    }

    #[test]
    fn params_follow_nomads_query() {
        let p = parse_params(&req(&[
            ("task", "web"),
            ("tty", "true"),
            ("command", r#"["sh","-c","exit 3"]"#),
        ]))
        .expect("parses");
        assert_eq!(
            p,
            ExecParams {
                task: "web".into(),
                tty: true,
                command: vec!["sh".into(), "-c".into(), "exit 3".into()]
            }
        );
        let bad = parse_params(&req(&[("command", "echo")])).expect_err("not json");
        assert!(bad
            .to_string()
            .starts_with("failed to marshal command into json"));
        let bad_tty = parse_params(&req(&[("command", "[]"), ("tty", "maybe")])).expect_err("tty");
        assert!(bad_tty
            .to_string()
            .starts_with("tty value is not a boolean"));
    }

    #[test]
    fn input_frames_decode_to_session_input() {
        assert_eq!(
            decode_input(br#"{"stdin":{"data":"aGkK"}}"#),
            Ok(vec![ExecInput::Stdin(Bytes::from_static(b"hi\n"))])
        );
        assert_eq!(
            decode_input(br#"{"stdin":{"close":true}}"#),
            Ok(vec![ExecInput::StdinClose])
        );
        assert_eq!(
            decode_input(br#"{"tty_size":{"height":40,"width":120}}"#),
            Ok(vec![ExecInput::Resize {
                height: 40,
                width: 120
            }])
        );
        assert_eq!(decode_input(b"{}"), Ok(vec![]));
        assert!(decode_input(b"nope").is_err());
        assert_eq!(
            encode_output(&ExecOutput::Stderr(Bytes::from_static(b"x"))),
            r#"{"stderr":{"data":"eA=="}}"#
        );
    }
}
