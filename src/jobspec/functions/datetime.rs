//! `formatdate` and `timeadd` on RFC 3339 timestamps, with cty's format verbs.

use chrono::{DateTime, Datelike, FixedOffset, SecondsFormat, Timelike};
use serde_json::Value;

use super::*;
use crate::api::duration::parse_go_duration;

fn timestamp_arg(
    a: &[Value],
    i: usize,
    param: &'static str,
) -> Result<DateTime<FixedOffset>, FnError> {
    let st = str_arg(a, i, param)?;
    DateTime::parse_from_rfc3339(&st).map_err(|_| {
        arg_err(
            i,
            param,
            format!("not a valid RFC3339 timestamp: cannot use {st:?} as year"),
        )
    })
}

pub(super) fn timeadd(a: &[Value]) -> FnResult {
    let t = timestamp_arg(a, 0, "timestamp")?;
    let d = str_arg(a, 1, "duration")?;
    let ns = parse_go_duration(&d).map_err(|e| arg_err(1, "duration", e))?;
    let out = t
        .checked_add_signed(chrono::Duration::nanoseconds(ns))
        .ok_or_else(|| FnError::Call("result is out of range".into()))?;
    Ok(s(out.to_rfc3339_opts(SecondsFormat::AutoSi, true)))
}

const MONTHS: [&str; 12] = [
    "January",
    "February",
    "March",
    "April",
    "May",
    "June",
    "July",
    "August",
    "September",
    "October",
    "November",
    "December",
];
const DAYS: [&str; 7] = [
    "Monday",
    "Tuesday",
    "Wednesday",
    "Thursday",
    "Friday",
    "Saturday",
    "Sunday",
];

pub(super) fn formatdate(a: &[Value]) -> FnResult {
    let spec = str_arg(a, 0, "format")?;
    let t = timestamp_arg(a, 1, "time")?;
    let chars: Vec<char> = spec.chars().collect();
    let mut out = String::new();
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        if c == '\'' {
            // A quoted literal; '' inside (or alone) is one quote.
            let mut j = i + 1;
            if chars.get(j) == Some(&'\'') {
                out.push('\'');
                i = j + 1;
                continue;
            }
            loop {
                match chars.get(j) {
                    None => return Err(arg_err(0, "format", "unterminated literal '".into())),
                    Some('\'') if chars.get(j + 1) == Some(&'\'') => {
                        out.push('\'');
                        j += 2;
                    }
                    Some('\'') => break,
                    Some(ch) => {
                        out.push(*ch);
                        j += 1;
                    }
                }
            }
            i = j + 1;
            continue;
        }
        if !c.is_ascii_alphabetic() {
            out.push(c);
            i += 1;
            continue;
        }
        let mut j = i;
        while j < chars.len() && chars[j] == c {
            j += 1;
        }
        let tok: String = chars[i..j].iter().collect();
        i = j;
        let h12 = match t.hour() % 12 {
            0 => 12,
            h => h,
        };
        let off = t.offset().local_minus_utc();
        let (sg, oh, om) = (
            if off < 0 { '-' } else { '+' },
            off.abs() / 3600,
            off.abs() % 3600 / 60,
        );
        let piece = match tok.as_str() {
            "YYYY" => format!("{:04}", t.year()),
            "YY" => format!("{:02}", t.year().rem_euclid(100)),
            "MMMM" => MONTHS[t.month0() as usize].to_string(),
            "MMM" => MONTHS[t.month0() as usize][..3].to_string(),
            "MM" => format!("{:02}", t.month()),
            "M" => t.month().to_string(),
            "DD" => format!("{:02}", t.day()),
            "D" => t.day().to_string(),
            "EEEE" => DAYS[t.weekday().num_days_from_monday() as usize].to_string(),
            "EEE" => DAYS[t.weekday().num_days_from_monday() as usize][..3].to_string(),
            "hh" => format!("{:02}", t.hour()),
            "h" => t.hour().to_string(),
            "HH" => format!("{h12:02}"),
            "H" => h12.to_string(),
            "AA" => (if t.hour() < 12 { "AM" } else { "PM" }).to_string(),
            "aa" => (if t.hour() < 12 { "am" } else { "pm" }).to_string(),
            "mm" => format!("{:02}", t.minute()),
            "m" => t.minute().to_string(),
            "ss" => format!("{:02}", t.second()),
            "s" => t.second().to_string(),
            "Z" if off == 0 => "Z".to_string(),
            "Z" | "ZZZZZ" => format!("{sg}{oh:02}:{om:02}"),
            "ZZZ" if off == 0 => "UTC".to_string(),
            "ZZZ" | "ZZZZ" => format!("{sg}{oh:02}{om:02}"),
            _ => {
                return Err(arg_err(
                    0,
                    "format",
                    format!("invalid date format verb {tok:?}: unrecognized"),
                ))
            }
        };
        out.push_str(&piece);
    }
    Ok(s(out))
}
