use chrono::{TimeZone, Utc};

use super::*;

/// Unix nanoseconds of a UTC wall time.
fn utc(y: i32, mo: u32, d: u32, h: u32, mi: u32, s: u32) -> i64 {
    Utc.with_ymd_and_hms(y, mo, d, h, mi, s)
        .single()
        .and_then(|t| t.timestamp_nanos_opt())
        .expect("valid time")
}

fn next(spec: &str, zone: &str, after: i64) -> Option<i64> {
    let cfg = PeriodicConfig {
        spec: Some(spec.to_string()),
        time_zone: Some(zone.to_string()),
        ..Default::default()
    };
    PeriodicSpec::from_config(&cfg)
        .expect("valid")
        .next_after(after)
}

#[test]
fn next_times_in_utc() {
    let from = utc(2026, 12, 3, 6, 30, 15); // a Thursday
    let table = [
        ("*/15 * * * *", utc(2026, 12, 3, 6, 45, 0)),
        ("0 * * * *", utc(2026, 12, 3, 7, 0, 0)),
        ("30 6 * * *", utc(2026, 12, 4, 6, 30, 0)),
        ("@daily", utc(2026, 12, 4, 0, 0, 0)),
        ("@midnight", utc(2026, 12, 4, 0, 0, 0)),
        ("@hourly", utc(2026, 12, 3, 7, 0, 0)),
        ("@weekly", utc(2026, 12, 6, 0, 0, 0)),
        ("@monthly", utc(2027, 1, 1, 0, 0, 0)),
        ("@yearly", utc(2027, 1, 1, 0, 0, 0)),
        ("0 9 * * MON-FRI", utc(2026, 12, 3, 9, 0, 0)),
        ("0 9 * * SAT,SUN", utc(2026, 12, 5, 9, 0, 0)),
        ("0 9 * * 7", utc(2026, 12, 6, 9, 0, 0)),
        ("0 0 1 JAN *", utc(2027, 1, 1, 0, 0, 0)),
        ("0 0 L * *", utc(2026, 12, 31, 0, 0, 0)),
        ("0 0 * * 5L", utc(2026, 12, 25, 0, 0, 0)),
        ("0 0 * * 1#2", utc(2026, 12, 14, 0, 0, 0)),
        // Dec 5 2026 is a Saturday: the nearest weekday is Friday the 4th.
        ("0 0 5W * *", utc(2026, 12, 4, 0, 0, 0)),
        ("0 0 29 2 *", utc(2028, 2, 29, 0, 0, 0)),
        ("30 * * * * * *", utc(2026, 12, 3, 6, 30, 30)),
        ("0 0 1 1 * 2030", utc(2030, 1, 1, 0, 0, 0)),
        ("10-40/10 6 * * *", utc(2026, 12, 3, 6, 40, 0)),
    ];
    for (spec, want) in table {
        assert_eq!(next(spec, "UTC", from), Some(want), "{spec}");
    }
}

#[test]
fn next_is_strictly_after_and_both_day_fields_or() {
    let at = utc(2026, 12, 3, 7, 0, 0);
    assert_eq!(
        next("0 * * * *", "UTC", at),
        Some(utc(2026, 12, 3, 8, 0, 0))
    );
    // Day 10 of the month or any Monday, whichever comes first.
    assert_eq!(
        next("0 0 10 * MON", "UTC", at),
        Some(utc(2026, 12, 7, 0, 0, 0))
    );
    assert_eq!(next("0 0 30 2 *", "UTC", at), None);
}

#[test]
fn time_zones_and_daylight_saving() {
    // 09:00 in New York on Dec 3 2026 is 14:00 UTC (EST).
    let from = utc(2026, 12, 3, 6, 0, 0);
    assert_eq!(
        next("0 9 * * *", "America/New_York", from),
        Some(utc(2026, 12, 3, 14, 0, 0))
    );
    // 02:30 does not exist on 2026-03-08 in New York: the next run is the day after.
    let before_gap = utc(2026, 3, 8, 5, 0, 0);
    assert_eq!(
        next("30 2 * * *", "America/New_York", before_gap),
        Some(utc(2026, 3, 9, 6, 30, 0))
    );
}

#[test]
fn multiple_crons_take_the_earliest() {
    let cfg = PeriodicConfig {
        specs: Some(vec!["0 12 * * *".into(), "0 8 * * *".into()]),
        ..Default::default()
    };
    let p = PeriodicSpec::from_config(&cfg).expect("valid");
    assert_eq!(
        p.next_after(utc(2026, 12, 3, 6, 0, 0)),
        Some(utc(2026, 12, 3, 8, 0, 0))
    );
}

#[test]
fn bad_specs_name_the_problem() {
    for spec in [
        "* * *",
        "61 * * * *",
        "* 25 * * *",
        "@often",
        "*/0 * * * *",
        "5-1 * * * *",
        "* * * FOO *",
    ] {
        let err = CronExpr::parse(spec).expect_err(spec);
        assert!(err.to_string().contains(spec), "{err}");
    }
    let cfg = PeriodicConfig {
        spec: Some("@daily".into()),
        time_zone: Some("Mars/Olympus".into()),
        ..Default::default()
    };
    assert_eq!(
        PeriodicSpec::from_config(&cfg)
            .expect_err("zone")
            .to_string(),
        "Invalid time zone \"Mars/Olympus\": unknown time zone Mars/Olympus"
    );
    assert!(PeriodicSpec::from_config(&PeriodicConfig::default()).is_err());
}
