//! Copies a container's output (the Engine API's multiplexed log stream) into the alloc's
//! rotated `<task>.stdout.N` / `<task>.stderr.N` files.

use std::io::Write;

use http_body_util::BodyExt;
use hyper::Method;

use super::api::DockerApi;
use crate::drivers::logging::FileRotator;

/// Splits Docker's stdcopy framing: 8-byte header (stream id, 3 zero bytes, big-endian
/// length) then the payload. Returns complete frames and leaves the rest in `buf`.
pub fn demux(buf: &mut Vec<u8>) -> Vec<(u8, Vec<u8>)> {
    let mut out = Vec::new();
    loop {
        if buf.len() < 8 {
            break;
        }
        let len = u32::from_be_bytes([buf[4], buf[5], buf[6], buf[7]]) as usize;
        if buf.len() < 8 + len {
            break;
        }
        let stream = buf[0];
        let payload = buf[8..8 + len].to_vec();
        buf.drain(..8 + len);
        out.push((stream, payload));
    }
    out
}

/// Follows the container's logs from `since` (unix seconds; 0 = all) until the container
/// stops and the stream ends.
pub async fn follow(
    api: DockerApi,
    id: String,
    since: i64,
    mut out: FileRotator,
    mut err: FileRotator,
) -> std::io::Result<()> {
    let path = format!("/containers/{id}/logs?follow=1&stdout=1&stderr=1&since={since}");
    let resp = match api.send(Method::GET, &path, None).await {
        Ok(r) => r,
        Err(e) => return Err(std::io::Error::other(e.to_string())),
    };
    let mut body = resp.into_body();
    let mut buf = Vec::new();
    while let Some(frame) = body.frame().await {
        let Ok(frame) = frame else { break };
        if let Ok(data) = frame.into_data() {
            buf.extend_from_slice(&data);
            for (stream, payload) in demux(&mut buf) {
                if stream == 2 {
                    err.write_all(&payload)?;
                } else {
                    out.write_all(&payload)?;
                }
            }
            out.flush()?;
            err.flush()?;
        }
    }
    out.flush()?;
    err.flush()
}
