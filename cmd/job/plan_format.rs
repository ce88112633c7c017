//! The text of `nomad job plan`: the annotated job diff, the scheduler dry-run summary and
//! the check-index hint, laid out as Nomad's `command/job_plan.go` prints them (without
//! colour).

use nomad::api::{
    DiffType, FieldDiff, JobDiff, JobPlanResponse, ObjectDiff, TaskDiff, TaskGroupDiff,
};

use crate::monitor::format_alloc_metrics;

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

/// What the scheduler dry run found: placement failures, a rolling update's next eval, the
/// next periodic launch.
pub fn format_dry_run(resp: &JobPlanResponse, job_type: &str, now_nanos: i64) -> String {
    let rolling = resp
        .created_evals
        .iter()
        .flatten()
        .find(|e| e.triggered_by == "rolling-update");
    let mut out = String::new();
    match resp.failed_tg_allocs.as_ref().filter(|f| !f.is_empty()) {
        None => out += "- All tasks successfully allocated.\n",
        Some(failed) => {
            out += if job_type == "system" {
                "- WARNING: Failed to place allocations on all nodes.\n"
            } else {
                "- WARNING: Failed to place all allocations.\n"
            };
            for (tg, m) in failed {
                let noun = if m.coalesced_failures > 0 {
                    "allocations"
                } else {
                    "allocation"
                };
                out += &format!(
                    "  Task Group {} (failed to place {} {noun}):\n",
                    go_quote(tg),
                    m.coalesced_failures + 1
                );
                out += &format!("{}\n\n", format_alloc_metrics(m, "    "));
            }
            if rolling.is_none() {
                out.pop();
            }
        }
    }
    if let Some(e) = rolling {
        out += &format!(
            "- Rolling update, next evaluation will be in {}.\n",
            crate::output::go_duration(e.wait)
        );
    }
    if let Some(next) = resp.next_periodic_launch.as_deref() {
        if let Some(t) = crate::output::parse_rfc3339(next) {
            let secs = |n: i64| n.div_euclid(1_000_000_000) * 1_000_000_000;
            let until = t
                .timestamp_nanos_opt()
                .map(|n| secs(n) - secs(now_nanos))
                .unwrap_or(0);
            out += &format!(
                "- If submitted now, next periodic launch would be at {} ({} from now).\n",
                crate::output::format_time(t),
                crate::output::go_duration(until)
            );
        }
    }
    out.trim_end_matches('\n').to_string()
}

/// Nomad's exit code: 1 when allocations would be created or destroyed, else 0.
pub fn exit_code(resp: &JobPlanResponse) -> i32 {
    if resp
        .diff
        .as_ref()
        .is_none_or(|d| d.r#type == DiffType::None)
    {
        return 0;
    }
    let changes = resp
        .annotations
        .iter()
        .flat_map(|a| a.desired_tg_updates.values())
        .any(|d| d.stop + d.place + d.migrate + d.destructive_update + d.canary > 0);
    i32::from(changes)
}

/// The `Job Modify Index` paragraph; `run_args` are the flags to repeat on `job run`.
pub fn format_job_modify_index(index: u64, run_args: &str, path: &str) -> String {
    format!(
        "Job Modify Index: {index}\nTo submit the job with version verification run:\n\n\
         nomad job run -check-index {index} {run_args}{path}\n\n\
         When running the job with the check-index flag, the job will only be run if the\n\
         job modify index given matches the server-side version. If the index has\n\
         changed, another user has modified the job and the plan's results are\n\
         potentially invalid."
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    const RECORDED: &str = r#"{"Annotations": {"DesiredTGUpdates": {"web": {"Canary": 0, "DestructiveUpdate": 1, "Disconnect": 0, "Ignore": 0, "InPlaceUpdate": 0, "Migrate": 0, "Place": 0, "Preemptions": 0, "Reconnect": 0, "RescheduleLater": 0, "RescheduleNow": 0, "Stop": 0}}, "PreemptedAllocs": null}, "CreatedEvals": null, "Diff": {"Fields": null, "ID": "example", "Objects": null, "TaskGroups": [{"Fields": null, "Name": "web", "Objects": null, "Tasks": [{"Annotations": ["forces create/destroy update"], "Fields": null, "Name": "server", "Objects": [{"Fields": [{"Annotations": null, "Name": "args[0]", "New": "-c", "Old": "-c", "Type": "None"}, {"Annotations": null, "Name": "args[1]", "New": "echo hello; exec sleep 2000", "Old": "echo hello; exec sleep 1000", "Type": "Edited"}, {"Annotations": null, "Name": "command", "New": "/bin/sh", "Old": "/bin/sh", "Type": "None"}], "Name": "Config", "Objects": null, "Type": "Edited"}], "Type": "Edited"}], "Type": "Edited", "Updates": {"create/destroy update": 1}}], "Type": "Edited"}, "FailedTGAllocs": null, "Index": 11, "JobModifyIndex": 11, "NextPeriodicLaunch": null, "Warnings": "1 warning:\n\n* group \"web\" defines services, but neither the group nor any of its tasks have shutdown_delay set"}"#;

    /// The diff of Nomad's recorded `POST /v1/job/example/plan` response prints as Nomad's
    /// recorded CLI output.
    #[test]
    fn recorded_plan_prints_like_nomad() {
        // Restated from a real Nomad 2.0 response (api-samples/POST_v1_job_ID_plan).
        let resp: JobPlanResponse = serde_json::from_str(RECORDED).expect("sample decodes");
        let diff = resp.diff.as_ref().expect("diff");
        let text = format!("{}\n", format_job_diff(diff, false).trim());
        let want = "+/- Job: \"example\"\n\
+/- Task Group: \"web\" (1 create/destroy update)\n  \
+/- Task: \"server\" (forces create/destroy update)\n    \
+/- Config {\n          \
args[0]: \"-c\"\n      \
+/- args[1]: \"echo hello; exec sleep 1000\" => \"echo hello; exec sleep 2000\"\n          \
command: \"/bin/sh\"\n        \
}\n";
        assert_eq!(text, want);
        assert_eq!(
            format_dry_run(&resp, "service", 0),
            "- All tasks successfully allocated."
        );
        assert_eq!(exit_code(&resp), 1);
        let idx = format_job_modify_index(11, "", "example2.hcl");
        assert!(idx.starts_with("Job Modify Index: 11\nTo submit the job with version verification run:\n\nnomad job run -check-index 11 example2.hcl\n\n"));
    }

    #[test]
    fn go_quote_escapes_like_go() {
        assert_eq!(go_quote("a\"b\\c\nd\u{1}"), "\"a\\\"b\\\\c\\nd\\x01\"");
        assert_eq!(go_quote("héllo"), "\"héllo\"");
    }
}
