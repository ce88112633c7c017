//! Cron expressions as Nomad's `periodic` block reads them (the cronexpr syntax), and the
//! next launch time of a periodic job (Nomad's `PeriodicConfig.Next`).
//!
//! Syntax: 5 fields `min hour dom month dow`, 6 fields `min hour dom month dow year`, or 7
//! fields `sec min hour dom month dow year`; `*`, `?`, lists, ranges, steps (`*/5`, `10-40/10`),
//! month and weekday names (`JAN`, `MON-FRI`), `7` for Sunday, `L` (last day of month, or
//! `5L` last Friday), `W` (`15W` nearest weekday, `LW`), `#` (`1#2` second Monday), and the
//! shorthands `@yearly`, `@annually`, `@monthly`, `@weekly`, `@daily`, `@midnight`, `@hourly`.
//! When both day fields are restricted a day matching either runs, as in cron.
//!
//! Times are evaluated in the job's `time_zone` (IANA name, default UTC); a local time that
//! does not exist (a DST gap) is skipped, an ambiguous one runs at its first occurrence.

use chrono::{DateTime, Datelike, Duration, NaiveDate, NaiveDateTime, TimeZone, Timelike, Weekday};
use chrono_tz::Tz;

use super::job::{Job, PeriodicConfig};

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CronError {
    #[error("Invalid cron spec {spec:?}: {reason}")]
    Invalid { spec: String, reason: String },
    #[error("Invalid time zone {0:?}: unknown time zone {0}")]
    TimeZone(String),
    #[error("{0}")]
    Config(String),
}

/// A set of allowed values 0..=63 as a bit mask.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
struct Bits(u64);

impl Bits {
    fn has(self, v: u32) -> bool {
        v < 64 && self.0 & (1 << v) != 0
    }
    fn set(&mut self, v: u32) {
        self.0 |= 1 << v;
    }
}

/// One parsed cron expression.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CronExpr {
    seconds: Bits,
    minutes: Bits,
    hours: Bits,
    months: Bits,
    days: DaySpec,
    /// Allowed years; empty means every year up to 2099.
    years: Vec<i32>,
}

#[derive(Debug, Clone, PartialEq, Eq, Default)]
struct DaySpec {
    /// Day-of-month field was `*` or `?`.
    dom_any: bool,
    dom: Bits,
    dom_last: bool,
    /// `LW`: the last weekday of the month.
    dom_last_weekday: bool,
    /// `15W`: the weekday nearest these days.
    dom_nearest_weekday: Vec<u32>,
    dow_any: bool,
    dow: Bits,
    /// `5L`: the last such weekday of the month.
    dow_last: Vec<u32>,
    /// `1#2`: (weekday, nth).
    dow_nth: Vec<(u32, u32)>,
}

const MONTHS: [&str; 12] = [
    "JAN", "FEB", "MAR", "APR", "MAY", "JUN", "JUL", "AUG", "SEP", "OCT", "NOV", "DEC",
];
const WEEKDAYS: [&str; 7] = ["SUN", "MON", "TUE", "WED", "THU", "FRI", "SAT"];
const MAX_YEAR: i32 = 2099;

impl CronExpr {
    pub fn parse(spec: &str) -> Result<CronExpr, CronError> {
        let err = |reason: &str| CronError::Invalid {
            spec: spec.to_string(),
            reason: reason.to_string(),
        };
        let expanded = match spec.trim() {
            "@yearly" | "@annually" => "0 0 0 1 1 * *",
            "@monthly" => "0 0 0 1 * * *",
            "@weekly" => "0 0 0 * * 0 *",
            "@daily" | "@midnight" => "0 0 0 * * * *",
            "@hourly" => "0 0 * * * * *",
            s if s.starts_with('@') => return Err(err("unknown shorthand")),
            s => s,
        };
        let f: Vec<&str> = expanded.split_whitespace().collect();
        let (sec, rest) = match f.len() {
            5 | 6 => ("0", &f[..]),
            7 => (f[0], &f[1..]),
            _ => return Err(err("expected 5 to 7 fields")),
        };
        let year = rest.get(5).copied().unwrap_or("*");
        let names: &[&str] = &[];
        Ok(CronExpr {
            seconds: bits(sec, 0, 59, names).map_err(|r| err(&format!("seconds: {r}")))?,
            minutes: bits(rest[0], 0, 59, names).map_err(|r| err(&format!("minutes: {r}")))?,
            hours: bits(rest[1], 0, 23, names).map_err(|r| err(&format!("hours: {r}")))?,
            months: bits(rest[3], 1, 12, &MONTHS).map_err(|r| err(&format!("month: {r}")))?,
            days: day_spec(rest[2], rest[4]).map_err(|r| err(&r))?,
            years: years(year).map_err(|r| err(&format!("year: {r}")))?,
        })
    }

    /// The first time strictly after `after` that matches, in `tz`.
    pub fn next_after(&self, after: DateTime<Tz>) -> Option<DateTime<Tz>> {
        let tz = after.timezone();
        let start = after.naive_local().with_nanosecond(0)? + Duration::seconds(1);
        let mut t = start;
        // Each step moves to the next candidate second, minute, hour, day, month or year;
        // the bound only stops specs that can never match (`30 FEB`).
        for _ in 0..200_000 {
            if t.year() > MAX_YEAR {
                return None;
            }
            if !self.years.is_empty() && !self.years.contains(&t.year()) {
                t = NaiveDate::from_ymd_opt(t.year() + 1, 1, 1)?.and_hms_opt(0, 0, 0)?;
                continue;
            }
            if !self.months.has(t.month()) {
                t = first_of_next_month(t)?;
                continue;
            }
            if !self.days.matches(t.date()) {
                t = t.date().succ_opt()?.and_hms_opt(0, 0, 0)?;
                continue;
            }
            if !self.hours.has(t.hour()) {
                t = t.date().and_hms_opt(t.hour(), 0, 0)? + Duration::hours(1);
                continue;
            }
            if !self.minutes.has(t.minute()) {
                t = t.date().and_hms_opt(t.hour(), t.minute(), 0)? + Duration::minutes(1);
                continue;
            }
            if !self.seconds.has(t.second()) {
                t += Duration::seconds(1);
                continue;
            }
            match tz.from_local_datetime(&t).earliest() {
                Some(found) if found > after => return Some(found),
                // A DST gap, or a repeated hour already passed: look further.
                _ => t += Duration::seconds(1),
            }
        }
        None
    }
}

impl DaySpec {
    fn matches(&self, d: NaiveDate) -> bool {
        let dom_ok = self.dom_matches(d);
        let dow_ok = self.dow_matches(d);
        match (self.dom_any, self.dow_any) {
            (true, true) => true,
            (false, true) => dom_ok,
            (true, false) => dow_ok,
            (false, false) => dom_ok || dow_ok,
        }
    }

    fn dom_matches(&self, d: NaiveDate) -> bool {
        let last = last_day(d);
        if self.dom.has(d.day()) || (self.dom_last && d.day() == last) {
            return true;
        }
        if self.dom_last_weekday && d.day() == nearest_weekday(d, last) {
            return true;
        }
        self.dom_nearest_weekday
            .iter()
            .any(|&day| day <= last && d.day() == nearest_weekday(d, day))
    }

    fn dow_matches(&self, d: NaiveDate) -> bool {
        let wd = d.weekday().num_days_from_sunday();
        if self.dow.has(wd) {
            return true;
        }
        if self.dow_last.contains(&wd) && d.day() + 7 > last_day(d) {
            return true;
        }
        self.dow_nth
            .iter()
            .any(|&(w, n)| w == wd && (d.day() - 1) / 7 + 1 == n)
    }
}

/// The weekday (Mon-Fri) nearest `day` of `d`'s month, never leaving the month.
fn nearest_weekday(d: NaiveDate, day: u32) -> u32 {
    let Some(target) = d.with_day(day) else {
        return 0;
    };
    let last = last_day(d);
    match target.weekday() {
        Weekday::Sat if day == 1 => 3,
        Weekday::Sat => day - 1,
        Weekday::Sun if day == last => day - 2,
        Weekday::Sun => day + 1,
        _ => day,
    }
}

fn last_day(d: NaiveDate) -> u32 {
    let (y, m) = if d.month() == 12 {
        (d.year() + 1, 1)
    } else {
        (d.year(), d.month() + 1)
    };
    NaiveDate::from_ymd_opt(y, m, 1)
        .and_then(|n| n.pred_opt())
        .map(|p| p.day())
        .unwrap_or(28)
}

fn first_of_next_month(t: NaiveDateTime) -> Option<NaiveDateTime> {
    let (y, m) = if t.month() == 12 {
        (t.year() + 1, 1)
    } else {
        (t.year(), t.month() + 1)
    };
    NaiveDate::from_ymd_opt(y, m, 1)?.and_hms_opt(0, 0, 0)
}

fn day_spec(dom: &str, dow: &str) -> Result<DaySpec, String> {
    let mut s = DaySpec {
        dom_any: dom == "*" || dom == "?",
        dow_any: dow == "*" || dow == "?",
        ..Default::default()
    };
    if !s.dom_any {
        for part in dom.split(',') {
            let up = part.to_ascii_uppercase();
            if up == "L" {
                s.dom_last = true;
            } else if up == "LW" {
                s.dom_last_weekday = true;
            } else if let Some(day) = up.strip_suffix('W') {
                s.dom_nearest_weekday.push(number(day, 1, 31, &[])?);
            } else {
                s.dom.0 |= bits(part, 1, 31, &[])
                    .map_err(|r| format!("day of month: {r}"))?
                    .0;
            }
        }
    }
    if !s.dow_any {
        for part in dow.split(',') {
            let up = part.to_ascii_uppercase();
            let weekday = |v: &str| number(v, 0, 7, &WEEKDAYS).map(|d| d % 7);
            if let Some(day) = up.strip_suffix('L') {
                s.dow_last.push(weekday(day)?);
            } else if let Some((day, nth)) = up.split_once('#') {
                s.dow_nth.push((weekday(day)?, number(nth, 1, 5, &[])?));
            } else {
                let b = bits(part, 0, 7, &WEEKDAYS).map_err(|r| format!("day of week: {r}"))?;
                s.dow.0 |= b.0;
                if b.has(7) {
                    s.dow.set(0);
                }
            }
        }
    }
    Ok(s)
}

fn years(field: &str) -> Result<Vec<i32>, String> {
    if field == "*" || field == "?" {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    for part in field.split(',') {
        let (range, step) = split_step(part)?;
        let (lo, hi) = match range.split_once('-') {
            Some((a, b)) => (year(a)?, year(b)?),
            None if range == "*" => (1970, MAX_YEAR),
            None if step > 1 => (year(range)?, MAX_YEAR),
            None => (year(range)?, year(range)?),
        };
        out.extend((lo..=hi).step_by(step as usize));
    }
    Ok(out)
}

fn year(s: &str) -> Result<i32, String> {
    match s.parse::<i32>() {
        Ok(y) if (1970..=MAX_YEAR).contains(&y) => Ok(y),
        _ => Err(format!("{s:?} is not a year between 1970 and {MAX_YEAR}")),
    }
}

/// A list of values, ranges and steps between `min` and `max`.
fn bits(field: &str, min: u32, max: u32, names: &[&str]) -> Result<Bits, String> {
    let mut out = Bits::default();
    for part in field.split(',') {
        let (range, step) = split_step(part)?;
        let (lo, hi) = if range == "*" || range == "?" {
            (min, max)
        } else if let Some((a, b)) = range.split_once('-') {
            (number(a, min, max, names)?, number(b, min, max, names)?)
        } else {
            let v = number(range, min, max, names)?;
            // `5/15` means from 5 to the end in steps of 15.
            (v, if step > 1 { max } else { v })
        };
        if lo > hi {
            return Err(format!("range {range:?} runs backwards"));
        }
        for v in (lo..=hi).step_by(step as usize) {
            out.set(v);
        }
    }
    Ok(out)
}

fn split_step(part: &str) -> Result<(&str, u32), String> {
    match part.split_once('/') {
        None => Ok((part, 1)),
        Some((range, step)) => match step.parse::<u32>() {
            Ok(s) if s > 0 => Ok((range, s)),
            _ => Err(format!("bad step {step:?}")),
        },
    }
}

fn number(s: &str, min: u32, max: u32, names: &[&str]) -> Result<u32, String> {
    let up = s.to_ascii_uppercase();
    if let Some(i) = names.iter().position(|n| *n == up) {
        // Month names count from 1, weekday names from 0 (Sunday).
        return Ok(i as u32 + if names.len() == 12 { 1 } else { 0 });
    }
    match s.parse::<u32>() {
        Ok(v) if (min..=max).contains(&v) => Ok(v),
        _ => Err(format!("{s:?} is not a value between {min} and {max}")),
    }
}

/// A job's `periodic` block, parsed: every cron spec and the zone they run in.
#[derive(Debug, Clone)]
pub struct PeriodicSpec {
    pub enabled: bool,
    pub prohibit_overlap: bool,
    pub tz: Tz,
    pub exprs: Vec<CronExpr>,
}

impl PeriodicSpec {
    /// `Ok(None)` for a job without a `periodic` block.
    pub fn from_job(job: &Job) -> Result<Option<PeriodicSpec>, CronError> {
        let Some(v) = job.periodic.as_ref() else {
            return Ok(None);
        };
        let cfg: PeriodicConfig =
            serde_json::from_value(v.clone()).map_err(|e| CronError::Config(e.to_string()))?;
        Self::from_config(&cfg).map(Some)
    }

    pub fn from_config(cfg: &PeriodicConfig) -> Result<PeriodicSpec, CronError> {
        let zone = cfg
            .time_zone
            .as_deref()
            .filter(|z| !z.is_empty())
            .unwrap_or("UTC");
        let tz: Tz = zone
            .parse()
            .map_err(|_| CronError::TimeZone(zone.to_string()))?;
        let mut specs: Vec<&str> = Vec::new();
        if let Some(s) = cfg.spec.as_deref().filter(|s| !s.is_empty()) {
            specs.push(s);
        }
        specs.extend(
            cfg.specs
                .iter()
                .flatten()
                .map(String::as_str)
                .filter(|s| !s.is_empty()),
        );
        if specs.is_empty() {
            return Err(CronError::Config("Must specify a spec".to_string()));
        }
        let exprs = specs
            .into_iter()
            .map(CronExpr::parse)
            .collect::<Result<_, _>>()?;
        Ok(PeriodicSpec {
            enabled: cfg.enabled.unwrap_or(true),
            prohibit_overlap: cfg.prohibit_overlap.unwrap_or(false),
            tz,
            exprs,
        })
    }

    /// The earliest launch of any spec strictly after `after_nanos` (Unix nanoseconds).
    pub fn next_after(&self, after_nanos: i64) -> Option<i64> {
        let after = self.tz.timestamp_nanos(after_nanos);
        self.exprs
            .iter()
            .filter_map(|e| e.next_after(after))
            .filter_map(|t| t.timestamp_nanos_opt())
            .min()
    }
}

#[cfg(test)]
#[path = "cron_tests.rs"]
mod tests;
