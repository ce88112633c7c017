//! Pulling an image, as Nomad's docker driver does (`pullImage`, the coordinator's
//! `PullImage` and progress.go): the pull's JSON progress stream is read as it arrives,
//! each layer's state is tracked, and while the pull goes on a "Docker image pull progress:
//! Pulled 1/3 (1.5MiB/4MiB) layers: ..." task event is emitted every two minutes (Nomad's
//! slow-progress report, checked on a ten-second tick). An `error` line in the stream is
//! the pull's failure.

use std::collections::BTreeMap;
use std::time::Duration;

use http_body_util::BodyExt;
use hyper::Method;
use serde_json::Value;
use tokio::time::Instant;

use super::api::{q, ApiError, DockerApi};
use super::config::split_image;
use crate::drivers::TaskConfig;

/// Nomad's `dockerImageProgressReportInterval`: how often progress is looked at.
const REPORT_INTERVAL: Duration = Duration::from_secs(10);
/// Nomad's `dockerImageSlowProgressReportInterval`: how often it becomes a task event.
const SLOW_REPORT_INTERVAL: Duration = Duration::from_secs(120);

/// The message of the task event emitted when a pull starts (Nomad's exact text).
pub const DOWNLOADING_IMAGE: &str = "Downloading image";

/// Nomad's `dockerImageRef`: `repo:tag`, or the bare repo for a digest reference.
pub fn image_ref(image: &str) -> String {
    let (repo, tag) = split_image(image);
    if tag.is_empty() {
        repo
    } else {
        format!("{repo}:{tag}")
    }
}

/// Pulls `image`, emitting "Downloading image" first and slow-progress events while the
/// pull runs, to the task `cfg` describes.
pub async fn pull(api: &DockerApi, cfg: &TaskConfig, image: &str) -> Result<(), ApiError> {
    let reference = image_ref(image);
    cfg.emit_event(DOWNLOADING_IMAGE, [("image", reference.as_str())]);
    let (repo, tag) = split_image(image);
    let path = format!("/images/create?fromImage={}&tag={}", q(&repo), q(&tag));
    let resp = api.send(Method::POST, &path, None).await?;
    let mut body = resp.into_body();
    let start = Instant::now();
    let mut progress = PullProgress::new(start);
    let mut ticker = tokio::time::interval_at(start + REPORT_INTERVAL, REPORT_INTERVAL);
    let mut buf: Vec<u8> = Vec::new();
    loop {
        tokio::select! {
            frame = body.frame() => match frame {
                None => break,
                Some(Err(e)) => return Err(ApiError::Http(e.to_string())),
                Some(Ok(frame)) => {
                    if let Ok(data) = frame.into_data() {
                        buf.extend_from_slice(&data);
                        while let Some(end) = buf.iter().position(|b| *b == b'\n') {
                            let line: Vec<u8> = buf.drain(..=end).collect();
                            progress.take_line(&line)?;
                        }
                    }
                }
            },
            _ = ticker.tick() => {
                if let Some(msg) = progress.slow_report(Instant::now()) {
                    cfg.emit_event(
                        &format!("Docker image pull progress: {msg}"),
                        [("image", image)],
                    );
                }
            }
        }
    }
    progress.take_line(&buf)
}

/// A layer's state, in the order a pull moves through them (Nomad's
/// `layerProgressStatus`); `Unknown` lines do not touch the layers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord)]
enum LayerStatus {
    Starting,
    Waiting,
    Downloading,
    Verifying,
    Downloaded,
    Extracting,
    Complete,
    Exists,
}

impl LayerStatus {
    fn parse(status: &str) -> Option<LayerStatus> {
        Some(match status {
            "Pulling fs layer" => LayerStatus::Starting,
            "Waiting" => LayerStatus::Waiting,
            "Downloading" => LayerStatus::Downloading,
            "Verifying Checksum" => LayerStatus::Verifying,
            "Download complete" => LayerStatus::Downloaded,
            "Extracting" => LayerStatus::Extracting,
            "Pull complete" => LayerStatus::Complete,
            "Already exists" => LayerStatus::Exists,
            _ => return None,
        })
    }
}

#[derive(Debug, Clone, Copy)]
struct Layer {
    status: LayerStatus,
    current: i64,
    total: i64,
}

/// What a pull has done so far (Nomad's `imageProgress`), fed the daemon's JSON lines.
#[derive(Debug)]
pub struct PullProgress {
    layers: BTreeMap<String, Layer>,
    seen_message: bool,
    pull_start: Instant,
    last_slow_report: Instant,
}

impl PullProgress {
    pub fn new(now: Instant) -> PullProgress {
        PullProgress {
            layers: BTreeMap::new(),
            seen_message: false,
            pull_start: now,
            last_slow_report: now,
        }
    }

    /// One line of the pull's stream; blank lines are skipped, an `error` line is the
    /// pull's failure.
    pub fn take_line(&mut self, line: &[u8]) -> Result<(), ApiError> {
        let line = line.trim_ascii();
        if line.is_empty() {
            return Ok(());
        }
        let v: Value = serde_json::from_slice(line)
            .map_err(|e| ApiError::Http(format!("bad image pull progress line: {e}")))?;
        if let Some(e) = v.get("error").and_then(Value::as_str) {
            return Err(ApiError::Http(e.to_string()));
        }
        if let Some(e) = v.pointer("/errorDetail/message").and_then(Value::as_str) {
            return Err(ApiError::Http(e.to_string()));
        }
        self.set(&v);
        Ok(())
    }

    fn set(&mut self, v: &Value) {
        self.seen_message = true;
        let status = v.get("status").and_then(Value::as_str).unwrap_or_default();
        let Some(status) = LayerStatus::parse(status) else {
            return;
        };
        let id = v.get("id").and_then(Value::as_str).unwrap_or_default();
        let layer = self.layers.entry(id.to_string()).or_insert(Layer {
            status,
            current: 0,
            total: 0,
        });
        layer.status = status;
        let detail = |k: &str| v.pointer(&format!("/progressDetail/{k}"))?.as_i64();
        match status {
            LayerStatus::Downloading => {
                if let (Some(c), Some(t)) = (detail("current"), detail("total")) {
                    layer.current = c;
                    layer.total = t;
                }
            }
            LayerStatus::Downloaded => layer.current = layer.total,
            _ => {}
        }
    }

    /// Nomad's progress line: layer counts, bytes, and an estimate of the time left.
    pub fn message(&self, now: Instant) -> String {
        if !self.seen_message {
            return "No progress".to_string();
        }
        let (mut pulled, mut pulling, mut waiting) = (0, 0, 0);
        for l in self.layers.values() {
            match l.status {
                LayerStatus::Starting | LayerStatus::Waiting => waiting += 1,
                LayerStatus::Downloading | LayerStatus::Verifying => pulling += 1,
                _ => pulled += 1,
            }
        }
        let cur: i64 = self.layers.values().map(|l| l.current).sum();
        let total: i64 = self.layers.values().map(|l| l.total).sum();
        let elapsed = now.saturating_duration_since(self.pull_start).as_nanos() as i64;
        // Go's integer arithmetic, in the same order.
        let est = if cur != 0 {
            (elapsed / cur).saturating_mul(total) - elapsed
        } else {
            0
        };
        let mut msg = format!(
            "Pulled {pulled}/{} ({}/{}) layers: {waiting} waiting/{pulling} pulling",
            self.layers.len(),
            bytes_size(cur as f64),
            bytes_size(total as f64),
        );
        if est > 0 {
            msg.push_str(&format!(
                " - est {:.1}s remaining",
                Duration::from_nanos(est as u64).as_secs_f64()
            ));
        }
        msg
    }

    /// The progress message when the last report is more than two minutes old.
    pub fn slow_report(&mut self, now: Instant) -> Option<String> {
        if now.saturating_duration_since(self.last_slow_report) <= SLOW_REPORT_INTERVAL {
            return None;
        }
        self.last_slow_report = now;
        Some(self.message(now))
    }
}

/// go-units' `BytesSize`: binary units, four significant digits (`%.4g`), e.g. "1.5MiB".
pub fn bytes_size(size: f64) -> String {
    const UNITS: [&str; 9] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB", "YiB"];
    let mut size = size;
    let mut i = 0;
    while size >= 1024.0 && i < UNITS.len() - 1 {
        size /= 1024.0;
        i += 1;
    }
    format!("{}{}", go_g4(size), UNITS[i])
}

/// Go's `%.4g` for 0 and values from 1 up to a few thousand (what `bytes_size` passes):
/// four significant digits, trailing zeros dropped.
fn go_g4(x: f64) -> String {
    if x == 0.0 {
        return "0".to_string();
    }
    let int_digits = (x.abs().log10().floor() as i32 + 1).max(1);
    let decimals = (4 - int_digits).max(0) as usize;
    let s = format!("{x:.decimals$}");
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn line(v: Value) -> Vec<u8> {
        serde_json::to_vec(&v).expect("json")
    }

    #[test]
    fn image_refs_are_repo_and_tag_or_the_digest_reference() {
        assert_eq!(image_ref("busybox"), "busybox:latest");
        assert_eq!(image_ref("busybox:1.36"), "busybox:1.36");
        assert_eq!(image_ref("localhost:5000/app"), "localhost:5000/app:latest");
        assert_eq!(image_ref("redis@sha256:0123abcd"), "redis@sha256:0123abcd");
    }

    #[test]
    fn bytes_are_sized_as_go_units_does() {
        assert_eq!(bytes_size(0.0), "0B");
        assert_eq!(bytes_size(512.0), "512B");
        assert_eq!(bytes_size(1024.0), "1KiB");
        assert_eq!(bytes_size(1536.0), "1.5KiB");
        assert_eq!(bytes_size(4.0 * 1024.0 * 1024.0), "4MiB");
        assert_eq!(bytes_size(123_456_789.0), "117.7MiB");
        assert_eq!(bytes_size(1023.0 * 1024.0), "1023KiB");
        assert_eq!(bytes_size(2_000_000_000.0), "1.863GiB");
    }

    #[test]
    fn progress_counts_layers_bytes_and_estimates_the_rest() {
        let t0 = Instant::now();
        let mut p = PullProgress::new(t0);
        assert_eq!(p.message(t0), "No progress");
        for l in [
            json!({"status": "Pulling from library/busybox", "id": "latest"}),
            json!({"status": "Pulling fs layer", "id": "a"}),
            json!({"status": "Waiting", "id": "b"}),
            json!({"status": "Pulling fs layer", "id": "c"}),
            json!({"status": "Downloading", "id": "a",
                   "progressDetail": {"current": 1024 * 1024, "total": 2 * 1024 * 1024}}),
            json!({"status": "Downloading", "id": "c",
                   "progressDetail": {"current": 0, "total": 2 * 1024 * 1024}}),
            json!({"status": "Verifying Checksum", "id": "c"}),
            json!({"status": "Download complete", "id": "c"}),
        ] {
            p.take_line(&line(l)).expect("progress line");
        }
        // a: 1 MiB of 2 pulling; b waiting; c done (2 of 2 MiB). 3 MiB of 4 after 30 s:
        // 10 s a MiB, 10 s to go.
        assert_eq!(
            p.message(t0 + Duration::from_secs(30)),
            "Pulled 1/3 (3MiB/4MiB) layers: 1 waiting/1 pulling - est 10.0s remaining"
        );
    }

    #[test]
    fn an_error_line_fails_the_pull_and_blank_lines_are_skipped() {
        let t0 = Instant::now();
        let mut p = PullProgress::new(t0);
        p.take_line(b"  \r\n").expect("blank");
        let err = p
            .take_line(
                &line(json!({"errorDetail": {"message": "manifest unknown"}, "error": "manifest unknown"})),
            )
            .unwrap_err();
        assert_eq!(err.to_string(), "manifest unknown");
    }

    #[test]
    fn the_slow_report_comes_every_two_minutes() {
        let t0 = Instant::now();
        let mut p = PullProgress::new(t0);
        p.take_line(&line(json!({"status": "Waiting", "id": "a"})))
            .expect("line");
        assert_eq!(p.slow_report(t0 + Duration::from_secs(110)), None);
        assert_eq!(p.slow_report(t0 + Duration::from_secs(120)), None);
        assert_eq!(
            p.slow_report(t0 + Duration::from_secs(130)).as_deref(),
            Some("Pulled 0/1 (0B/0B) layers: 1 waiting/0 pulling")
        );
        assert_eq!(p.slow_report(t0 + Duration::from_secs(240)), None);
        assert!(p.slow_report(t0 + Duration::from_secs(260)).is_some());
    }
}
