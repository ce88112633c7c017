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
    let err = || DurationParseError(s.to_string());
    let text = s.trim();
    if text.is_empty() || text == "0" {
        return Ok(Duration::ZERO);
    }
    let text = text.strip_prefix('+').unwrap_or(text);
    if text.starts_with('-') {
        return Err(err());
    }
    let mut total: f64 = 0.0;
    let mut rest = text;
    while !rest.is_empty() {
        let num_len = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .ok_or_else(err)?;
        if num_len == 0 {
            return Err(err());
        }
        let value: f64 = rest[..num_len].parse().map_err(|_| err())?;
        rest = &rest[num_len..];
        let unit_len = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let unit_ns = match &rest[..unit_len] {
            "ns" => 1.0,
            "us" | "µs" | "μs" => 1e3,
            "ms" => 1e6,
            "s" => 1e9,
            "m" => 60e9,
            "h" => 3600e9,
            _ => return Err(err()),
        };
        total += value * unit_ns;
        rest = &rest[unit_len..];
    }
    if !total.is_finite() || total > u64::MAX as f64 {
        return Err(err());
    }
    Ok(Duration::from_nanos(total.round() as u64))
}

/// Formats like Go's `time.Duration.String()`.
pub fn format_go_duration(d: Duration) -> String {
    format_go_nanos(d.as_nanos().min(i64::MAX as u128) as i64)
}

/// Formats signed nanoseconds like Go's `time.Duration.String()`.
pub fn format_go_nanos(nanos: i64) -> String {
    if nanos == 0 {
        return "0s".to_string();
    }
    let neg = nanos < 0;
    let n = nanos.unsigned_abs();
    let body = if n < 1_000 {
        format!("{n}ns")
    } else if n < 1_000_000 {
        format!("{}µs", fraction(n, 1_000))
    } else if n < 1_000_000_000 {
        format!("{}ms", fraction(n, 1_000_000))
    } else {
        let hours = n / 3_600_000_000_000;
        let mins = (n / 60_000_000_000) % 60;
        let secs = fraction(n % 60_000_000_000, 1_000_000_000);
        if hours > 0 {
            format!("{hours}h{mins}m{secs}s")
        } else if mins > 0 {
            format!("{mins}m{secs}s")
        } else {
            format!("{secs}s")
        }
    };
    if neg {
        format!("-{body}")
    } else {
        body
    }
}

/// `value / unit` with the remainder as a decimal fraction, trailing zeros trimmed.
fn fraction(value: u64, unit: u64) -> String {
    let whole = value / unit;
    let rem = value % unit;
    if rem == 0 {
        return whole.to_string();
    }
    let width = unit.ilog10() as usize;
    let digits = format!("{rem:0width$}");
    format!("{whole}.{}", digits.trim_end_matches('0'))
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
