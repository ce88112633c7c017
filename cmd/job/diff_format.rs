//! A job diff as Nomad's CLI prints it (`formatJobDiff` in `command/job_plan.go`, without
//! colour): the annotated diff of `nomad job plan` and the per-version diffs of
//! `nomad job history -p`.

use nomad::api::{DiffType, FieldDiff, JobDiff, ObjectDiff, TaskDiff, TaskGroupDiff};

/// The marker before a diffed name and its width.
fn marker(t: DiffType) -> (&'static str, usize) {
    match t {
        DiffType::Added => ("+ ", 2),
        DiffType::Deleted => ("- ", 2),
        DiffType::Edited => ("+/- ", 4),
        DiffType::None => ("", 0),
    }
}

fn spaces(n: usize) -> String {
    " ".repeat(n)
}

/// Go's `%q`: double quotes, with backslash escapes for quotes, backslashes and control
/// characters.
pub fn go_quote(s: &str) -> String {
    let mut out = String::with_capacity(s.len() + 2);
    out.push('"');
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\t' => out.push_str("\\t"),
            '\r' => out.push_str("\\r"),
            '\u{7}' => out.push_str("\\a"),
            '\u{8}' => out.push_str("\\b"),
            '\u{c}' => out.push_str("\\f"),
            '\u{b}' => out.push_str("\\v"),
            c if (c as u32) < 0x20 || c as u32 == 0x7f => {
                out.push_str(&format!("\\x{:02x}", c as u32))
            }
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The job diff; `verbose` expands added and removed groups and tasks.
pub fn format_job_diff(job: &JobDiff, verbose: bool) -> String {
    let (m, _) = marker(job.r#type);
    let mut out = format!("{m}Job: {}\n", go_quote(&job.id));
    let (longest_field, mut longest_marker) = longest_prefixes(&job.fields, &job.objects);
    for tg in &job.task_groups {
        longest_marker = longest_marker.max(marker(tg.r#type).1);
    }
    if job.r#type == DiffType::Edited || verbose {
        let fo = aligned(&job.fields, &job.objects, 0, longest_field, longest_marker);
        out += &fo;
        if !fo.is_empty() {
            out.push('\n');
        }
    }
    for tg in &job.task_groups {
        let prefix = longest_marker - marker(tg.r#type).1;
        out += &format_group(tg, prefix, verbose);
        out.push('\n');
    }
    out
}

fn format_group(tg: &TaskGroupDiff, prefix: usize, verbose: bool) -> String {
    let (m, _) = marker(tg.r#type);
    let mut out = format!("{m}{}Task Group: {}", spaces(prefix), go_quote(&tg.name));
    match tg.updates.as_ref().filter(|u| !u.is_empty()) {
        Some(updates) => {
            let parts: Vec<String> = updates.iter().map(|(k, n)| format!("{n} {k}")).collect();
            out += &format!(" ({})\n", parts.join(", "));
        }
        None => out.push('\n'),
    }
    let (longest_field, mut longest_marker) = longest_prefixes(&tg.fields, &tg.objects);
    for t in &tg.tasks {
        longest_marker = longest_marker.max(marker(t.r#type).1);
    }
    let sub = prefix + 2;
    if tg.r#type == DiffType::Edited || verbose {
        let fo = aligned(&tg.fields, &tg.objects, sub, longest_field, longest_marker);
        out += &fo;
        if !fo.is_empty() {
            out.push('\n');
        }
    }
    for t in &tg.tasks {
        let p = longest_marker - marker(t.r#type).1;
        out += &format_task(t, sub, p, verbose);
        out.push('\n');
    }
    out
}

fn format_task(task: &TaskDiff, start: usize, prefix: usize, verbose: bool) -> String {
    let (m, _) = marker(task.r#type);
    let mut out = format!(
        "{}{m}{}Task: {}",
        spaces(start),
        spaces(prefix),
        go_quote(&task.name)
    );
    if !task.annotations.is_empty() {
        out += &format!(" ({})", task.annotations.join(", "));
    }
    match task.r#type {
        DiffType::None => return out,
        DiffType::Added | DiffType::Deleted if !verbose => return out,
        _ => out.push('\n'),
    }
    let (longest_field, longest_marker) = longest_prefixes(&task.fields, &task.objects);
    out += &aligned(
        &task.fields,
        &task.objects,
        start + 2,
        longest_field,
        longest_marker,
    );
    out
}

fn format_object(diff: &ObjectDiff, start: usize, key_prefix: usize) -> String {
    let (m, mlen) = marker(diff.r#type);
    let mut out = format!(
        "{}{m}{}{} {{\n",
        spaces(start),
        spaces(key_prefix),
        diff.name
    );
    let (longest_field, longest_marker) = longest_prefixes(&diff.fields, &diff.objects);
    out += &aligned(
        &diff.fields,
        &diff.objects,
        start + key_prefix + 2,
        longest_field,
        longest_marker,
    );
    format!("{out}\n{}}}", spaces(start + mlen + key_prefix))
}

fn format_field(diff: &FieldDiff, start: usize, key_prefix: usize, value_prefix: usize) -> String {
    let (m, _) = marker(diff.r#type);
    let mut out = format!(
        "{}{m}{}{}: {}",
        spaces(start),
        spaces(key_prefix),
        diff.name,
        spaces(value_prefix)
    );
    out += &match diff.r#type {
        DiffType::Added => go_quote(&diff.new),
        DiffType::Deleted => go_quote(&diff.old),
        DiffType::Edited => format!("{} => {}", go_quote(&diff.old), go_quote(&diff.new)),
        DiffType::None => go_quote(&diff.new),
    };
    if !diff.annotations.is_empty() {
        out += &format!(" ({})", diff.annotations.join(", "));
    }
    out
}

/// Fields then objects, each on its own line, names and values aligned.
fn aligned(
    fields: &[FieldDiff],
    objects: &[ObjectDiff],
    start: usize,
    longest_field: usize,
    longest_marker: usize,
) -> String {
    let mut out = String::new();
    for (i, f) in fields.iter().enumerate() {
        let kp = longest_marker - marker(f.r#type).1;
        let vp = longest_field - f.name.len();
        out += &format_field(f, start, kp, vp);
        if i + 1 != fields.len() || !objects.is_empty() {
            out.push('\n');
        }
    }
    for (i, o) in objects.iter().enumerate() {
        let kp = longest_marker - marker(o.r#type).1;
        out += &format_object(o, start, kp);
        if i + 1 != objects.len() {
            out.push('\n');
        }
    }
    out
}

fn longest_prefixes(fields: &[FieldDiff], objects: &[ObjectDiff]) -> (usize, usize) {
    let mut field = 0;
    let mut mark = 0;
    for f in fields {
        field = field.max(f.name.len());
        mark = mark.max(marker(f.r#type).1);
    }
    for o in objects {
        mark = mark.max(marker(o.r#type).1);
    }
    (field, mark)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn go_quote_escapes_like_go() {
        assert_eq!(go_quote("a\"b\\c\nd\u{1}"), "\"a\\\"b\\\\c\\nd\\x01\"");
        assert_eq!(go_quote("héllo"), "\"héllo\"");
    }
}
