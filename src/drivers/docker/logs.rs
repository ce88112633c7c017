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
/// stops and the stream ends. With `since == 0` a final non-following read then copies any
/// tail the follow stream missed (the daemon can close it before the last lines are read).
pub async fn follow(
    api: DockerApi,
    id: String,
    since: i64,
    mut out: FileRotator,
    mut err: FileRotator,
) -> std::io::Result<()> {
    let mut written = [0usize; 3];
    copy(
        &api,
        &id,
        since,
        true,
        &mut out,
        &mut err,
        &mut written,
        [0; 3],
    )
    .await?;
    if since == 0 {
        let skip = written;
        let mut again = [0usize; 3];
        copy(&api, &id, 0, false, &mut out, &mut err, &mut again, skip).await?;
    }
    out.flush()?;
    err.flush()
}

#[allow(clippy::too_many_arguments)]
async fn copy(
    api: &DockerApi,
    id: &str,
    since: i64,
    follow: bool,
    out: &mut FileRotator,
    err: &mut FileRotator,
    written: &mut [usize; 3],
    skip: [usize; 3],
) -> std::io::Result<()> {
    let f = u8::from(follow);
    let path = format!("/containers/{id}/logs?follow={f}&stdout=1&stderr=1&since={since}");
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
                let idx = if stream == 2 { 2 } else { 1 };
                let start = written[idx];
                written[idx] += payload.len();
                // Only the bytes past what an earlier read already copied.
                let from = skip[idx].saturating_sub(start).min(payload.len());
                let w: &mut FileRotator = if idx == 2 { &mut *err } else { &mut *out };
                w.write_all(&payload[from..])?;
            }
            out.flush()?;
            err.flush()?;
        }
    }
    Ok(())
}
