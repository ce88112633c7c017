//! Exec (interactive, or to completion for script checks) and resource stats of a container,
//! as Nomad's docker driver does them: `POST /containers/:id/exec` then `POST /exec/:id/start`
//! with the connection hijacked (HTTP upgrade to a raw stream) or read whole,
//! `POST /exec/:id/resize` for TTY size changes, and `GET /exec/:id/json` for the exit code;
//! stats from `GET /containers/:id/stats`.
//!
//! Without a TTY the hijacked stream carries Docker's stdcopy frames (stdout/stderr
//! multiplexed); with one it is the terminal's raw bytes.

use std::time::Duration;

use bytes::Bytes;
use http_body_util::Full;
use hyper::{Method, Request, StatusCode};
use hyper_util::rt::TokioIo;
use serde_json::{json, Value};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::UnixStream;

use super::api::{read_body, ApiError, DockerApi};
use super::logs::demux;
use crate::drivers::exec_stream::{keep_tail, ExecInput, ExecOutput, ExecSession};
use crate::drivers::stats::{
    CpuStats, MemoryStats, ResourceUsage, TaskResourceUsage, MEASURED_MAX_USAGE, MEASURED_PERCENT,
    MEASURED_RSS, MEASURED_SWAP, MEASURED_USAGE,
};
use crate::drivers::{DriverError, ExecTaskResult};

fn fail(e: ApiError) -> DriverError {
    DriverError::SignalFailed(format!("failed to exec: {e}"))
}

/// Starts the exec and returns the hijacked connection.
async fn start_hijacked(
    api: &DockerApi,
    exec_id: &str,
    tty: bool,
) -> Result<hyper::upgrade::Upgraded, ApiError> {
    let stream = tokio::time::timeout(Duration::from_secs(2), UnixStream::connect(api.socket()))
        .await
        .map_err(|_| ApiError::Timeout)?
        .map_err(|e| ApiError::Connect(api.socket().to_string(), e.to_string()))?;
    let (mut sender, conn) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|e| ApiError::Http(e.to_string()))?;
    tokio::spawn(async move {
        let _ = conn.with_upgrades().await;
    });
    let body = serde_json::to_vec(&json!({"Detach": false, "Tty": tty}))
        .map_err(|e| ApiError::Http(e.to_string()))?;
    let req = Request::builder()
        .method(Method::POST)
        .uri(format!("http://docker/exec/{exec_id}/start"))
        .header("Host", "docker")
        .header("Content-Type", "application/json")
        .header("Connection", "Upgrade")
        .header("Upgrade", "tcp")
        .body(Full::new(Bytes::from(body)))
        .map_err(|e| ApiError::Http(e.to_string()))?;
    let resp = sender
        .send_request(req)
        .await
        .map_err(|e| ApiError::Http(e.to_string()))?;
    if resp.status() != StatusCode::SWITCHING_PROTOCOLS && !resp.status().is_success() {
        return Err(ApiError::Status {
            status: resp.status().as_u16(),
            message: format!("exec start failed with status {}", resp.status()),
        });
    }
    hyper::upgrade::on(resp)
        .await
        .map_err(|e| ApiError::Http(e.to_string()))
}

/// Runs `session` inside the container; returns the command's exit code.
pub async fn exec_streaming(
    api: &DockerApi,
    container_id: &str,
    mut s: ExecSession,
) -> Result<i32, DriverError> {
    let created = api
        .post(
            &format!("/containers/{container_id}/exec"),
            Some(&json!({
                "Cmd": s.command,
                "AttachStdin": true,
                "AttachStdout": true,
                "AttachStderr": true,
                "Tty": s.tty,
            })),
        )
        .await
        .map_err(fail)?;
    let exec_id = created
        .get("Id")
        .and_then(Value::as_str)
        .ok_or_else(|| fail(ApiError::Http("exec create returned no Id".to_string())))?
        .to_string();
    let io = start_hijacked(api, &exec_id, s.tty).await.map_err(fail)?;
    let (mut rd, mut wr) = tokio::io::split(TokioIo::new(io));
    let mut buf = vec![0u8; 8192];
    let mut pending = Vec::new();
    'session: loop {
        tokio::select! {
            msg = s.input.recv() => match msg {
                Some(ExecInput::Stdin(data)) => {
                    let _ = wr.write_all(&data).await;
                }
                // A terminal has no half-close (docker would end the whole session): send
                // the terminal's EOF character instead.
                Some(ExecInput::StdinClose) if s.tty => {
                    let _ = wr.write_all(&[4]).await;
                }
                Some(ExecInput::StdinClose) => {
                    let _ = wr.shutdown().await;
                }
                Some(ExecInput::Resize { height, width }) => {
                    let path = format!("/exec/{exec_id}/resize?h={height}&w={width}");
                    if let Err(e) = api.post(&path, None).await {
                        tracing::debug!(error = %e, "resizing exec tty failed");
                    }
                }
                // The caller hung up: dropping the stream detaches from the command.
                None => return Err(DriverError::SignalFailed("exec session closed".to_string())),
            },
            n = rd.read(&mut buf) => match n {
                Ok(0) | Err(_) => break,
                Ok(n) => {
                    let chunks = if s.tty {
                        vec![ExecOutput::Stdout(Bytes::copy_from_slice(&buf[..n]))]
                    } else {
                        pending.extend_from_slice(&buf[..n]);
                        demux(&mut pending)
                            .into_iter()
                            .map(|(stream, p)| if stream == 2 {
                                ExecOutput::Stderr(Bytes::from(p))
                            } else {
                                ExecOutput::Stdout(Bytes::from(p))
                            })
                            .collect()
                    };
                    for c in chunks {
                        if s.output.send(c).await.is_err() {
                            break 'session;
                        }
                    }
                }
            },
        }
    }
    let info = api
        .get(&format!("/exec/{exec_id}/json"))
        .await
        .map_err(fail)?;
    Ok(info.get("ExitCode").and_then(Value::as_i64).unwrap_or(-1) as i32)
}

/// Runs `command` in the container to completion and collects its output, as Nomad's
/// docker driver's `ExecTask` does: stdout and stderr apart, the last 4 KiB of each.
pub async fn exec(
    api: &DockerApi,
    container_id: &str,
    command: Vec<String>,
    timeout: Duration,
) -> Result<ExecTaskResult, DriverError> {
    let created = api
        .post(
            &format!("/containers/{container_id}/exec"),
            Some(&json!({"Cmd": command, "AttachStdout": true, "AttachStderr": true})),
        )
        .await
        .map_err(fail)?;
    let exec_id = created
        .get("Id")
        .and_then(Value::as_str)
        .ok_or_else(|| fail(ApiError::Http("exec create returned no Id".to_string())))?
        .to_string();
    let run = async {
        let resp = api
            .send(
                Method::POST,
                &format!("/exec/{exec_id}/start"),
                Some(&json!({"Detach": false, "Tty": false})),
            )
            .await?;
        read_body(resp).await
    };
    let body = tokio::time::timeout(timeout, run)
        .await
        .map_err(|_| DriverError::DeadlineExceeded)?
        .map_err(fail)?;
    let mut buf = body.to_vec();
    let mut result = ExecTaskResult::default();
    for (stream, payload) in demux(&mut buf) {
        let out = if stream == 2 {
            &mut result.stderr
        } else {
            &mut result.stdout
        };
        keep_tail(out, &payload);
    }
    let info = api
        .get(&format!("/exec/{exec_id}/json"))
        .await
        .map_err(fail)?;
    result.exit_code = info.get("ExitCode").and_then(Value::as_i64).unwrap_or(-1) as i32;
    Ok(result)
}

fn n(v: &Value, p: &str) -> u64 {
    v.pointer(p).and_then(Value::as_u64).unwrap_or(0)
}

/// Converts one `/containers/:id/stats?stream=false` answer into Nomad's shape (its docker
/// driver's `DockerStatsToTaskResourceUsage`).
pub fn usage_from_docker(v: &Value, now: i64) -> TaskResourceUsage {
    let memory = MemoryStats {
        rss: n(v, "/memory_stats/stats/rss"),
        cache: n(v, "/memory_stats/stats/cache"),
        swap: n(v, "/memory_stats/stats/swap"),
        mapped_file: n(v, "/memory_stats/stats/mapped_file"),
        usage: n(v, "/memory_stats/usage"),
        max_usage: n(v, "/memory_stats/max_usage"),
        measured: vec![
            MEASURED_RSS.to_string(),
            MEASURED_SWAP.to_string(),
            MEASURED_USAGE.to_string(),
            MEASURED_MAX_USAGE.to_string(),
        ],
        ..Default::default()
    };
    let cpu_delta = n(v, "/cpu_stats/cpu_usage/total_usage")
        .saturating_sub(n(v, "/precpu_stats/cpu_usage/total_usage")) as f64;
    let sys_delta = n(v, "/cpu_stats/system_cpu_usage")
        .saturating_sub(n(v, "/precpu_stats/system_cpu_usage")) as f64;
    let cpus = n(v, "/cpu_stats/online_cpus").max(1) as f64;
    let share = |d: u64| {
        if sys_delta > 0.0 {
            d as f64 / sys_delta * cpus * 100.0
        } else {
            0.0
        }
    };
    let percent = if sys_delta > 0.0 {
        cpu_delta / sys_delta * cpus * 100.0
    } else {
        0.0
    };
    let cpu = CpuStats {
        system_mode: share(
            n(v, "/cpu_stats/cpu_usage/usage_in_kernelmode")
                .saturating_sub(n(v, "/precpu_stats/cpu_usage/usage_in_kernelmode")),
        ),
        user_mode: share(
            n(v, "/cpu_stats/cpu_usage/usage_in_usermode")
                .saturating_sub(n(v, "/precpu_stats/cpu_usage/usage_in_usermode")),
        ),
        throttled_periods: n(v, "/cpu_stats/throttling_data/throttled_periods"),
        throttled_time: n(v, "/cpu_stats/throttling_data/throttled_time"),
        percent,
        measured: vec![
            "Throttled Periods".to_string(),
            "Throttled Time".to_string(),
            MEASURED_PERCENT.to_string(),
        ],
        ..Default::default()
    };
    TaskResourceUsage {
        resource_usage: ResourceUsage {
            memory_stats: memory,
            cpu_stats: cpu,
            device_stats: None,
        },
        timestamp: now,
        pids: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn docker_stats_convert_to_nomad_usage() {
        let v = json!({
            "memory_stats": {"usage": 300, "max_usage": 400, "stats": {"rss": 100, "cache": 50}},
            "cpu_stats": {"cpu_usage": {"total_usage": 300, "usage_in_usermode": 200, "usage_in_kernelmode": 100},
                          "system_cpu_usage": 2000, "online_cpus": 2},
            "precpu_stats": {"cpu_usage": {"total_usage": 100, "usage_in_usermode": 100, "usage_in_kernelmode": 0},
                             "system_cpu_usage": 1000}
        });
        let u = usage_from_docker(&v, 5);
        assert_eq!(u.resource_usage.memory_stats.rss, 100);
        assert_eq!(u.resource_usage.memory_stats.cache, 50);
        assert_eq!(u.resource_usage.memory_stats.max_usage, 400);
        // 200 of 1000 system ns on 2 cpus: 40%.
        assert!((u.resource_usage.cpu_stats.percent - 40.0).abs() < 1e-9);
        assert!((u.resource_usage.cpu_stats.user_mode - 20.0).abs() < 1e-9);
        assert_eq!(u.timestamp, 5);
    }
}
