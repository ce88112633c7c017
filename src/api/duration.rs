//! Go `time.Duration` syntax ("30s", "1h30m", "1.5h", "300ms") to nanoseconds and back: the
//! one implementation for the jobspec, its validation messages, driver config, task event
//! texts and the HTTP `wait` parameter, which all speak Go durations.

/// Parses a Go duration string into nanoseconds, with Go's error texts
/// (`time: invalid duration "x"`, `time: missing unit in duration "1"`, ...).
pub fn parse_go_duration(s: &str) -> Result<i64, String> {
    let orig = s;
    let invalid = || format!("time: invalid duration \"{orig}\"");
    let mut rest = s;
    let mut neg = false;
    if let Some(r) = rest.strip_prefix('-') {
        neg = true;
        rest = r;
    } else if let Some(r) = rest.strip_prefix('+') {
        rest = r;
    }
    if rest == "0" {
        return Ok(0);
    }
    if rest.is_empty() {
        return Err(invalid());
    }
    let mut total: f64 = 0.0;
    while !rest.is_empty() {
        let num_len = rest
            .find(|c: char| !(c.is_ascii_digit() || c == '.'))
            .unwrap_or(rest.len());
        let num = &rest[..num_len];
        if num.is_empty() || num == "." {
            return Err(invalid());
        }
        let value: f64 = num.parse().map_err(|_| invalid())?;
        rest = &rest[num_len..];
        let unit_len = rest
            .find(|c: char| c.is_ascii_digit() || c == '.')
            .unwrap_or(rest.len());
        let unit = &rest[..unit_len];
        if unit.is_empty() {
            return Err(format!("time: missing unit in duration \"{orig}\""));
        }
        let scale: f64 = match unit {
            "ns" => 1.0,
            "us" | "µs" | "μs" => 1e3,
            "ms" => 1e6,
            "s" => 1e9,
            "m" => 60e9,
            "h" => 3600e9,
            _ => {
                return Err(format!(
                    "time: unknown unit \"{unit}\" in duration \"{orig}\""
                ))
            }
        };
        total += value * scale;
        rest = &rest[unit_len..];
    }
    if total > i64::MAX as f64 {
        return Err(invalid());
    }
    let n = total.round() as i64;
    Ok(if neg { -n } else { n })
}

/// Formats nanoseconds like Go's `time.Duration.String()`: "0s", "1.5s", "5m0s", "1h0m0s".
pub fn format_go_duration(ns: i64) -> String {
    if ns == 0 {
        return "0s".to_string();
    }
    let neg = ns < 0;
    let u = ns.unsigned_abs();
    let sign = if neg { "-" } else { "" };
    if u < 1_000_000_000 {
        // Sub-second values use the largest unit that keeps an integer part.
        let (unit, div) = if u < 1_000 {
            ("ns", 1u64)
        } else if u < 1_000_000 {
            ("µs", 1_000)
        } else {
            ("ms", 1_000_000)
        };
        return format!("{sign}{}{unit}", frac(u, div));
    }
    let hours = u / 3_600_000_000_000;
    let rem = u % 3_600_000_000_000;
    let mins = rem / 60_000_000_000;
    let secs_ns = rem % 60_000_000_000;
    let secs = frac(secs_ns, 1_000_000_000);
    if hours > 0 {
        format!("{sign}{hours}h{mins}m{secs}s")
    } else if mins > 0 {
        format!("{sign}{mins}m{secs}s")
    } else {
        format!("{sign}{secs}s")
    }
}

/// `v / div` with the fractional part printed without trailing zeros.
fn frac(v: u64, div: u64) -> String {
    let int = v / div;
    let rem = v % div;
    if rem == 0 {
        return int.to_string();
    }
    let width = div.to_string().len() - 1;
    let digits = format!("{rem:0width$}");
    format!("{int}.{}", digits.trim_end_matches('0'))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::{HOUR, MINUTE, SECOND};

    #[test]
    fn parses_go_durations() {
        assert_eq!(parse_go_duration("30s"), Ok(30 * SECOND));
        assert_eq!(parse_go_duration("1h30m"), Ok(HOUR + 30 * MINUTE));
        assert_eq!(parse_go_duration("1.5h"), Ok(HOUR + 30 * MINUTE));
        assert_eq!(parse_go_duration("300ms"), Ok(300_000_000));
        assert_eq!(parse_go_duration("0"), Ok(0));
        assert_eq!(parse_go_duration("-5s"), Ok(-5 * SECOND));
        assert_eq!(
            parse_go_duration("abc"),
            Err("time: invalid duration \"abc\"".to_string())
        );
        assert_eq!(
            parse_go_duration("10"),
            Err("time: missing unit in duration \"10\"".to_string())
        );
        assert_eq!(
            parse_go_duration("10x"),
            Err("time: unknown unit \"x\" in duration \"10x\"".to_string())
        );
    }

    #[test]
    fn formats_like_go() {
        assert_eq!(format_go_duration(0), "0s");
        assert_eq!(format_go_duration(5 * SECOND), "5s");
        assert_eq!(format_go_duration(5 * MINUTE), "5m0s");
        assert_eq!(format_go_duration(HOUR), "1h0m0s");
        assert_eq!(format_go_duration(1_500_000_000), "1.5s");
        assert_eq!(format_go_duration(24 * HOUR), "24h0m0s");
        assert_eq!(format_go_duration(2_000_000), "2ms");
    }
}
