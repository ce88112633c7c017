//! The text of `nomad job plan` besides the diff (`diff_format`): the scheduler dry-run
//! summary, the exit code and the check-index hint, laid out as Nomad's
//! `command/job_plan.go` prints them (without colour).

use nomad::api::{DiffType, JobPlanResponse};

use super::diff_format::go_quote;
use crate::monitor::format_alloc_metrics;

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
    use super::super::diff_format::format_job_diff;
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
}
