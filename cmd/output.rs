//! Nomad's output conventions: `k = v` blocks and column tables exactly as the
//! `ryanuber/columnize` library lays them out, ISO-8601 times, "54s ago" relative times, Go
//! duration strings, IEC byte sizes, 4-space JSON, and stdout writes that report errors
//! (so a closed pipe ends the command quietly instead of panicking in `println!`).
//!
//! Tables are laid out here rather than with comfy-table: columnize pads every column but the
//! last, trims cells, and keeps the glue after an empty last cell (`300 MiB  ` in `alloc
//! status`); comfy-table always pads the last column, so the output would not be byte-equal.

use std::io::{BufRead as _, Write as _};

use chrono::{DateTime, Local, SecondsFormat, TimeZone as _};

/// Width of an ID without `-verbose`.
pub const SHORT_ID: usize = 8;
/// Width of an ID with `-verbose`.
pub const FULL_ID: usize = 36;

/// Write one line (plus newline) to stdout.
pub fn out(text: impl AsRef<str>) -> std::io::Result<()> {
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(text.as_ref().as_bytes())?;
    stdout.write_all(b"\n")?;
    stdout.flush()
}

/// Write raw bytes (log data) to stdout.
pub fn out_raw(bytes: &[u8]) -> std::io::Result<()> {
    let mut stdout = std::io::stdout().lock();
    stdout.write_all(bytes)?;
    stdout.flush()
}

/// Write one line to stderr (Nomad's `Ui.Error`/`Ui.Warn`). Errors writing stderr have nowhere
/// to be reported, so they are dropped.
pub fn err(text: impl AsRef<str>) {
    let mut stderr = std::io::stderr().lock();
    let _ = stderr.write_all(text.as_ref().as_bytes());
    let _ = stderr.write_all(b"\n");
}

/// columnize's `Format`: split rows on `|`, trim cells, replace empty cells with `empty`, pad
/// every column but a row's last to the column's widest cell, join with `glue`.
pub fn columnize(rows: &[String], glue: &str, empty: &str) -> String {
    columnize_cells(rows, glue, empty, true)
}

/// `format_kv` with columnize's `NoTrim` and no empty marker, as `job history` lays out a
/// version: a cell keeps its leading newline, so a multi-line value (the diff) starts on a
/// line of its own below `Diff = `.
pub fn format_kv_untrimmed(rows: &[String]) -> String {
    columnize_cells(rows, " = ", "", false)
}

fn columnize_cells(rows: &[String], glue: &str, empty: &str, trim: bool) -> String {
    let split: Vec<Vec<String>> = rows
        .iter()
        .map(|row| {
            row.split('|')
                .map(|cell| {
                    let cell = if trim { cell.trim() } else { cell };
                    if cell.is_empty() {
                        empty.to_string()
                    } else {
                        cell.to_string()
                    }
                })
                .collect()
        })
        .collect();
    let mut widths: Vec<usize> = Vec::new();
    for cells in &split {
        for (i, cell) in cells.iter().enumerate() {
            let w = cell.chars().count();
            match widths.get_mut(i) {
                Some(max) => *max = (*max).max(w),
                None => widths.push(w),
            }
        }
    }
    let mut lines = Vec::with_capacity(split.len());
    for cells in &split {
        let mut line = String::new();
        for (i, cell) in cells.iter().enumerate() {
            if i + 1 == cells.len() {
                line.push_str(cell);
            } else {
                line.push_str(cell);
                let pad = widths[i].saturating_sub(cell.chars().count());
                line.extend(std::iter::repeat_n(' ', pad));
                line.push_str(glue);
            }
        }
        lines.push(line);
    }
    lines.join("\n")
}

/// Nomad's `formatKV`: aligned `key = value` lines, empty values shown as `<none>`.
pub fn format_kv(rows: &[String]) -> String {
    columnize(rows, " = ", "<none>")
}

/// Nomad's `formatList`: a table with two-space gaps, empty cells shown as `<none>`.
pub fn format_list(rows: &[String]) -> String {
    columnize(rows, "  ", "<none>")
}

/// Nomad's `formatListWithSpaces` / `columnize.SimpleFormat`: empty cells stay empty.
pub fn format_list_with_spaces(rows: &[String]) -> String {
    columnize(rows, "  ", "")
}

/// The first `n` characters of an ID (`limit` in Nomad).
pub fn limit(s: &str, n: usize) -> &str {
    match s.char_indices().nth(n) {
        Some((i, _)) => &s[..i],
        None => s,
    }
}

/// ISO-8601 in the local zone (`Z` when that is UTC), or "" for times before 1970-01-01T00:00:01
/// (Go's zero time and unset fields), as Nomad's `formatTime`.
pub fn format_time(t: DateTime<Local>) -> String {
    if t.timestamp() < 1 {
        return String::new();
    }
    t.to_rfc3339_opts(SecondsFormat::Secs, true)
}

pub fn format_unix_nano(nanos: i64) -> String {
    format_time(Local.timestamp_nanos(nanos))
}

/// RFC 3339 text from the API (Go `time.Time` fields) -> local `formatTime`; "" if unparsable.
pub fn parse_rfc3339(text: &str) -> Option<DateTime<Local>> {
    DateTime::parse_from_rfc3339(text)
        .ok()
        .map(|t| t.with_timezone(&Local))
}

pub fn format_rfc3339(text: &str) -> String {
    parse_rfc3339(text).map(format_time).unwrap_or_default()
}

/// "N/A" for unset task times, as `formatTaskTimes`.
pub fn format_task_time(text: Option<&str>) -> String {
    match text.and_then(parse_rfc3339) {
        Some(t) if t.timestamp() > 0 => format_time(t),
        Some(t) if t.timestamp() == 0 => String::new(),
        _ => "N/A".to_string(),
    }
}

pub fn now_nanos() -> i64 {
    Local::now().timestamp_nanos_opt().unwrap_or(0)
}

/// Nomad's `prettyTimeDiff`: the two most significant units of the distance between `first`
/// and `second` (Unix nanos), rounded to seconds: "54s ago", "1h2m ago", "3d4h from now".
pub fn pretty_time_diff(first: i64, second: i64) -> String {
    if first == 0 {
        return String::new();
    }
    let round = |ns: i64| (ns + 500_000_000).div_euclid(1_000_000_000);
    let (a, b) = (round(first), round(second));
    let (secs, suffix) = if b >= a {
        (b - a, "ago")
    } else {
        (a - b, "from now")
    };
    let mut u = secs as u64;
    // Units from least to most significant; only the top two non-zero ones are printed.
    let mut parts: Vec<String> = Vec::new();
    let s = u % 60;
    if s > 0 {
        parts.push(format!("{s}s"));
    }
    u /= 60;
    if u > 0 {
        let m = u % 60;
        if m > 0 {
            parts.push(format!("{m}m"));
        }
        u /= 60;
        if u > 0 {
            let h = u % 24;
            if h > 0 {
                parts.push(format!("{h}h"));
            }
            u /= 24;
        }
        if u > 0 {
            let d = u % 30;
            if d > 0 {
                parts.push(format!("{d}d"));
            }
            u /= 30;
        }
        if u > 0 {
            let mo = u % 12;
            if mo > 0 {
                parts.push(format!("{mo}mo"));
            }
            u /= 12;
        }
        if u > 0 {
            parts.push(format!("{u}y"));
        }
    }
    if parts.is_empty() {
        return format!("0s {suffix}");
    }
    let top: Vec<String> = parts.into_iter().rev().take(2).collect();
    format!("{} {suffix}", top.concat())
}

/// Go's `time.Duration.String()` for a nanosecond count: "1h51m19s", "1.5s", "250ms", "0s".
pub fn go_duration(nanos: i64) -> String {
    if nanos == 0 {
        return "0s".to_string();
    }
    let neg = nanos < 0;
    let n = nanos.unsigned_abs();
    let sign = if neg { "-" } else { "" };
    if n < 1_000_000_000 {
        let (unit, div) = if n < 1_000 {
            ("ns", 1)
        } else if n < 1_000_000 {
            ("µs", 1_000)
        } else {
            ("ms", 1_000_000)
        };
        return format!("{sign}{}{unit}", frac(n, div));
    }
    let secs_total = n / 1_000_000_000;
    let h = secs_total / 3600;
    let m = (secs_total / 60) % 60;
    let s = frac(n % 60_000_000_000, 1_000_000_000);
    let mut out = sign.to_string();
    if h > 0 {
        out.push_str(&format!("{h}h"));
    }
    if h > 0 || m > 0 {
        out.push_str(&format!("{m}m"));
    }
    out.push_str(&format!("{s}s"));
    out
}

/// `value / div` with the fraction's trailing zeros trimmed, as Go prints durations.
fn frac(value: u64, div: u64) -> String {
    let whole = value / div;
    let rest = value % div;
    if rest == 0 {
        return whole.to_string();
    }
    let digits = div.to_string().len() - 1;
    let f = format!("{rest:0digits$}");
    format!("{whole}.{}", f.trim_end_matches('0'))
}

/// go-humanize's `IBytes`: "1.6 MiB", "64 MiB", "252 GiB", "512 B".
pub fn ibytes(bytes: u64) -> String {
    const UNITS: [&str; 7] = ["B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB"];
    if bytes < 10 {
        return format!("{bytes} B");
    }
    let e = ((bytes as f64).ln() / 1024f64.ln()).floor() as usize;
    let e = e.min(UNITS.len() - 1);
    let val = ((bytes as f64 / 1024f64.powi(e as i32)) * 10.0 + 0.5).floor() / 10.0;
    if e == 0 {
        return format!("{bytes} B");
    }
    if val < 10.0 {
        format!("{val:.1} {}", UNITS[e])
    } else {
        format!("{val:.0} {}", UNITS[e])
    }
}

pub const BYTES_PER_MB: u64 = 1024 * 1024;

/// Nomad's JSON output (`-json`, `job inspect`, `job run -output`): 4-space indent.
pub fn json_pretty<T: serde::Serialize>(value: &T) -> serde_json::Result<String> {
    let mut buf = Vec::new();
    let fmt = serde_json::ser::PrettyFormatter::with_indent(b"    ");
    let mut ser = serde_json::Serializer::with_formatter(&mut buf, fmt);
    value.serialize(&mut ser)?;
    Ok(String::from_utf8_lossy(&buf).into_owned())
}

/// Nomad's `Format(json, template, data)` behind `-json` and `-t`: the data as 4-space JSON,
/// or run through a Go template over that same JSON. Errors are Nomad's texts, for the caller
/// to print before exiting 1.
pub fn format_data<T: serde::Serialize>(
    json: bool,
    template: Option<&str>,
    data: &T,
) -> Result<String, String> {
    let template = template.filter(|t| !t.is_empty());
    match (json, template) {
        (true, Some(_)) => Err("Both json and template formatting are not allowed".to_string()),
        (true, None) => json_pretty(data).map_err(|e| format!("Error formatting the data: {e}")),
        (false, Some(t)) => {
            let value = serde_json::to_value(data)
                .map_err(|e| format!("Error formatting the data: {e}"))?;
            crate::gotemplate::render(t, &value)
                .map_err(|e| format!("Error formatting the data: {e}"))
        }
        (false, None) => Err("no formatting option given".to_string()),
    }
}

/// Print `data` as `-json`/`-t` asked (see [`format_data`]); the exit code to return.
pub fn print_formatted<T: serde::Serialize>(
    json: bool,
    template: Option<&str>,
    data: &T,
) -> std::io::Result<i32> {
    match format_data(json, template, data) {
        Ok(text) => {
            out(text)?;
            Ok(0)
        }
        Err(e) => {
            err(e);
            Ok(1)
        }
    }
}

/// Whether `-json` or a non-empty `-t` asks for formatted output.
pub fn wants_formatted(json: bool, template: Option<&str>) -> bool {
    json || template.is_some_and(|t| !t.is_empty())
}

/// Nomad's multierror-style warnings text: "1 warning:\n\n* a" / "2 warnings:\n\n* a\n* b".
pub fn format_warning_list(warnings: &[String]) -> String {
    match warnings.len() {
        0 => String::new(),
        n => {
            let head = if n == 1 {
                "1 warning:\n".to_string()
            } else {
                format!("{n} warnings:\n")
            };
            let items: String = warnings
                .iter()
                .map(|w| format!("\n* {}", w.trim()))
                .collect();
            head + &items
        }
    }
}

/// The "<Header> Warnings:" block printed before a job's monitor/validation result.
pub fn format_warnings(header: &str, warnings: &str) -> String {
    format!("{header} Warnings:\n{warnings}\n")
}

/// Ask `question` on the terminal, as Nomad's `Ui.Ask` confirmations: `None` to go ahead (an
/// exact "y"), or `Some(exit code)` after printing why not (`cancel` for an empty or "n..."
/// answer).
pub fn confirm(question: &str, cancel: &str) -> anyhow::Result<Option<i32>> {
    out(question)?;
    let mut answer = String::new();
    std::io::stdin()
        .lock()
        .read_line(&mut answer)
        .map_err(|e| anyhow::anyhow!("Failed to parse answer: {e}"))?;
    let (code, message) = judge_answer(answer.trim(), cancel);
    if let Some(m) = message {
        out(m)?;
    }
    Ok(code)
}

/// The verdict on a confirmation answer and what to print about it.
pub fn judge_answer<'a>(answer: &str, cancel: &'a str) -> (Option<i32>, Option<&'a str>) {
    let lower = answer.to_lowercase();
    if answer.is_empty() || lower.starts_with('n') {
        return (Some(0), Some(cancel));
    }
    if lower.starts_with('y') && answer.len() > 1 {
        return (Some(0), Some("For confirmation, an exact ‘y’ is required."));
    }
    if answer != "y" {
        return (
            Some(1),
            Some("No confirmation detected. For confirmation, an exact 'y' is required."),
        );
    }
    (None, None)
}

/// Query options carrying `?filter=` when a `-filter` flag was given.
pub fn filter_query(filter: Option<&str>) -> nomad::api::client::QueryOptions {
    let mut q = nomad::api::client::QueryOptions::default();
    if let Some(f) = filter.filter(|f| !f.is_empty()) {
        q.params.push(("filter".into(), f.to_string()));
    }
    q
}

/// Nomad's hint after a page of a paginated list: the same command line with the next token.
pub fn pagination_hint(next_token: &str) -> std::io::Result<()> {
    if next_token.is_empty() {
        return Ok(());
    }
    let argv: Vec<String> = std::env::args().collect();
    out(format!(
        "\nResults have been paginated. To get the next page run:\n\n{} -page-token {next_token}",
        args_without_page_token(&argv)
    ))
}

/// The command line without its `-page-token` flag (Nomad's `argsWithoutPageToken`).
fn args_without_page_token(argv: &[String]) -> String {
    let mut out = Vec::new();
    let mut i = 0;
    while i < argv.len() {
        let arg = &argv[i];
        let bare = arg.trim_start_matches('-');
        if arg.starts_with('-') && bare.starts_with("page-token") {
            i += if arg.contains('=') { 1 } else { 2 };
            continue;
        }
        out.push(arg.as_str());
        i += 1;
    }
    out.join(" ")
}

/// go-humanize's `FormatFloat("#,###.##", v)`: two decimals, commas between thousands.
pub fn humanize_float(v: f64) -> String {
    let fixed = format!("{:.2}", v.abs());
    let (int, frac) = fixed.split_once('.').unwrap_or((&fixed, "00"));
    let mut grouped = String::new();
    for (i, c) in int.chars().enumerate() {
        if i > 0 && (int.len() - i) % 3 == 0 {
            grouped.push(',');
        }
        grouped.push(c);
    }
    let sign = if v < 0.0 && fixed != "0.00" { "-" } else { "" };
    format!("{sign}{grouped}.{frac}")
}

#[cfg(test)]
mod tests {
    #[test]
    fn humanized_floats_have_two_decimals_and_grouping() {
        assert_eq!(super::humanize_float(3.0), "3.00");
        assert_eq!(super::humanize_float(12.345), "12.35");
        assert_eq!(super::humanize_float(1234567.5), "1,234,567.50");
        assert_eq!(super::humanize_float(-0.001), "0.00");
    }

    #[test]
    fn page_token_is_dropped_in_both_spellings() {
        let v = |s: &str| s.split(' ').map(String::from).collect::<Vec<_>>();
        assert_eq!(
            super::args_without_page_token(&v("nomad eval list -per-page 2 -page-token 5.abc")),
            "nomad eval list -per-page 2"
        );
        assert_eq!(
            super::args_without_page_token(&v("nomad eval list -page-token=5.abc -verbose")),
            "nomad eval list -verbose"
        );
    }

    use super::*;

    fn rows(r: &[&str]) -> Vec<String> {
        r.iter().map(|s| s.to_string()).collect()
    }

    #[test]
    fn kv_block_matches_nomad_job_status_sample() {
        let got = format_kv(&rows(&[
            "ID|example",
            "Name|example",
            "Submit Date|2026-12-02T13:13:40Z",
            "Type|service",
            "Priority|50",
            "Datacenters|*",
            "Namespace|default",
            "Node Pool|default",
            "Status|running",
            "Periodic|false",
            "Parameterized|false",
        ]));
        let want = "\
ID            = example
Name          = example
Submit Date   = 2026-12-02T13:13:40Z
Type          = service
Priority      = 50
Datacenters   = *
Namespace     = default
Node Pool     = default
Status        = running
Periodic      = false
Parameterized = false";
        assert_eq!(got, want);
    }

    #[test]
    fn list_matches_nomad_node_status_sample_with_none_for_empty() {
        let got = format_list(&rows(&[
            "ID|Node Pool|DC|Name|Class|Drain|Eligibility|Status",
            "83eb3a53|default|dc1|vm||false|eligible|ready",
        ]));
        let want = "\
ID        Node Pool  DC   Name  Class   Drain  Eligibility  Status
83eb3a53  default    dc1  vm    <none>  false  eligible     ready";
        assert_eq!(got, want);
    }

    #[test]
    fn list_with_spaces_keeps_empty_last_cell_glue_like_alloc_status() {
        let got = format_list_with_spaces(&rows(&[
            "CPU|Memory|Disk|Addresses",
            "0/100 MHz|1.6 MiB/64 MiB|300 MiB|",
        ]));
        let want = "\
CPU        Memory          Disk     Addresses
0/100 MHz  1.6 MiB/64 MiB  300 MiB  ";
        assert_eq!(got, want);
    }

    #[test]
    fn kv_empty_value_is_none_and_rows_of_unequal_length_align() {
        let got = format_kv(&rows(&["Desired Description|", "ID|x"]));
        assert_eq!(got, "Desired Description = <none>\nID                  = x");
        let got = format_list(&rows(&["a|b|c", "long"]));
        assert_eq!(got, "a     b  c\nlong");
    }

    #[test]
    fn pretty_time_diff_keeps_two_units() {
        let s = 1_000_000_000i64;
        let base = 1_700_000_000 * s;
        assert_eq!(pretty_time_diff(base, base + 54 * s), "54s ago");
        assert_eq!(pretty_time_diff(base, base), "0s ago");
        assert_eq!(pretty_time_diff(base, base + 3723 * s), "1h2m ago");
        assert_eq!(pretty_time_diff(base, base + 3600 * s), "1h ago");
        assert_eq!(
            pretty_time_diff(
                base,
                base + (10 * 30 * 86400 + 12 * 86400 + 3 * 3600 + 2) * s
            ),
            "10mo12d ago"
        );
        assert_eq!(pretty_time_diff(base + 90 * s, base), "1m30s from now");
        assert_eq!(pretty_time_diff(0, base), "");
        // Rounded to the nearest second like Go's Round(time.Second).
        assert_eq!(pretty_time_diff(base, base + 1_600_000_000), "2s ago");
    }

    #[test]
    fn go_durations() {
        let s = 1_000_000_000i64;
        assert_eq!(go_duration(0), "0s");
        assert_eq!(go_duration(6679 * s), "1h51m19s");
        assert_eq!(go_duration(5 * s), "5s");
        assert_eq!(go_duration(90 * s), "1m30s");
        assert_eq!(go_duration(3600 * s), "1h0m0s");
        assert_eq!(go_duration(1_500_000_000), "1.5s");
        assert_eq!(go_duration(250_000_000), "250ms");
        assert_eq!(go_duration(1_500), "1.5µs");
        assert_eq!(go_duration(42), "42ns");
        assert_eq!(go_duration(-2 * s), "-2s");
    }

    #[test]
    fn ibytes_like_go_humanize() {
        assert_eq!(ibytes(64 * BYTES_PER_MB), "64 MiB");
        assert_eq!(ibytes(300 * BYTES_PER_MB), "300 MiB");
        assert_eq!(ibytes(1_677_721), "1.6 MiB");
        assert_eq!(ibytes(24 * 1024 * BYTES_PER_MB), "24 GiB");
        assert_eq!(ibytes(512), "512 B");
        assert_eq!(ibytes(0), "0 B");
        assert_eq!(ibytes(1024), "1.0 KiB");
    }

    #[test]
    fn times_and_ids() {
        assert_eq!(format_unix_nano(0), "");
        assert_eq!(format_rfc3339("0001-01-01T00:00:00Z"), "");
        assert_eq!(format_task_time(None), "N/A");
        assert_eq!(
            limit("0dfb874c-22c5-84f4-be02-3dc0b95cc830", SHORT_ID),
            "0dfb874c"
        );
        assert_eq!(limit("ab", SHORT_ID), "ab");
        // Offsets depend on the local zone; the instant must survive formatting.
        let t = format_rfc3339("2026-12-02T13:13:41Z");
        assert_eq!(
            DateTime::parse_from_rfc3339(&t).unwrap().timestamp(),
            DateTime::parse_from_rfc3339("2026-12-02T13:13:41Z")
                .unwrap()
                .timestamp()
        );
    }

    #[test]
    fn warnings_and_json() {
        let w = format_warning_list(&["a".into()]);
        assert_eq!(w, "1 warning:\n\n* a");
        assert_eq!(
            format_warning_list(&["a".into(), "b ".into()]),
            "2 warnings:\n\n* a\n* b"
        );
        assert_eq!(
            json_pretty(&serde_json::json!({"Job": {"ID": "x"}})).unwrap(),
            "{\n    \"Job\": {\n        \"ID\": \"x\"\n    }\n}"
        );
    }
}
