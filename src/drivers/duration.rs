//! Go `time.Duration` text: parsing (`"10s"`, `"1m30s"`, `"1.5h"`) for driver config and
//! formatting as Go's `Duration.String()` does (`"16.5s"`, `"30m0s"`), because Nomad's task
//! event messages embed durations in that form.

use std::time::Duration;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("time: invalid duration {0:?}")]
pub struct DurationParseError(pub String);

/// Parses a Go duration string. An empty string is zero, as Nomad's drivers treat it.
/// Negative durations are rejected: no caller has a use for them.
pub fn parse_go_duration(s: &str) -> Result<Duration, DurationParseError> {
    let text = s.trim();
    if text.is_empty() {
        return Ok(Duration::ZERO);
    }
    match crate::api::duration::parse_go_duration(text) {
        Ok(ns) if ns >= 0 => Ok(Duration::from_nanos(ns as u64)),
        _ => Err(DurationParseError(s.to_string())),
    }
}

/// Formats like Go's `time.Duration.String()`.
pub fn format_go_duration(d: Duration) -> String {
    format_go_nanos(d.as_nanos().min(i64::MAX as u128) as i64)
}

/// Formats signed nanoseconds like Go's `time.Duration.String()`.
pub fn format_go_nanos(nanos: i64) -> String {
    crate::api::duration::format_go_duration(nanos)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn formats_like_go() {
        let cases = [
            (0, "0s"),
            (1, "1ns"),
            (1_500, "1.5µs"),
            (2_000_000, "2ms"),
            (5_000_000_000, "5s"),
            (16_500_000_000, "16.5s"),
            (1_800_000_000_000, "30m0s"),
            (3_600_000_000_000, "1h0m0s"),
            (3_723_000_000_000, "1h2m3s"),
            (15_123_456_789, "15.123456789s"),
            (-5_000_000_000, "-5s"),
        ];
        for (nanos, want) in cases {
            assert_eq!(format_go_nanos(nanos), want, "{nanos}");
        }
    }

    #[test]
    fn parses_go_durations() {
        assert_eq!(parse_go_duration("").unwrap(), Duration::ZERO);
        assert_eq!(parse_go_duration("10s").unwrap(), Duration::from_secs(10));
        assert_eq!(parse_go_duration("1m30s").unwrap(), Duration::from_secs(90));
        assert_eq!(
            parse_go_duration("1.5h").unwrap(),
            Duration::from_secs(5400)
        );
        assert_eq!(
            parse_go_duration("250ms").unwrap(),
            Duration::from_millis(250)
        );
        assert_eq!(parse_go_duration("3us").unwrap(), Duration::from_micros(3));
        assert!(parse_go_duration("10").is_err());
        assert!(parse_go_duration("s").is_err());
        assert!(parse_go_duration("5x").is_err());
        assert!(parse_go_duration("-1s").is_err());
    }
}
