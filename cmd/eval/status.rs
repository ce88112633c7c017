//! `nomad eval status [options] <evaluation>`: one evaluation, its plan and placements.

use std::collections::BTreeMap;

use anyhow::{anyhow, Context as _};
use nomad::api::{AllocListStub, DesiredUpdates, Evaluation, EvaluationStub};

use crate::job::status::eval_failure_status;
use crate::meta::{self, GlobalArgs};
use crate::monitor::{self, format_alloc_metrics};
use crate::output::{
    self, format_kv, format_list, format_list_with_spaces, limit, pretty_time_diff, FULL_ID,
    SHORT_ID,
};

#[derive(Debug, Clone, Default, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub global: GlobalArgs,
    /// Monitor an outstanding evaluation.
    #[arg(long)]
    pub monitor: bool,
    /// Show full information.
    #[arg(long)]
    pub verbose: bool,
    /// Output the evaluation in its JSON format.
    #[arg(long)]
    pub json: bool,
    /// Format and display the output using a Go template.
    #[arg(short = 't', value_name = "TEMPLATE")]
    pub template: Option<String>,
    /// The evaluation ID or prefix.
    pub eval: String,
}

pub async fn run(args: &Args, g: &GlobalArgs) -> anyhow::Result<i32> {
    let client = g.client()?;
    let evals = meta::evals_by_prefix(&client, &args.eval).await?;
    if evals.len() > 1 {
        return Err(anyhow!(
            "Prefix matched multiple evaluations\n\n{}",
            eval_list(&evals, args.verbose)
        ));
    }
    let length = if args.verbose { FULL_ID } else { SHORT_ID };
    if args.monitor {
        return monitor::monitor(&client, &evals[0].id, length).await;
    }
    let (eval, _) = client
        .evaluation(&evals[0].id, None)
        .await
        .context("Error querying evaluation")?;
    if output::wants_formatted(args.json, args.template.as_deref()) {
        return Ok(output::print_formatted(
            args.json,
            args.template.as_deref(),
            &eval,
        )?);
    }
    let (placed, _) = client
        .evaluation_allocations(&eval.id, None)
        .await
        .context("Error querying related allocations")?;
    format_eval(&eval, &placed, args.verbose, length)?;
    meta::print_ui_hint(
        &client,
        &format!("/evaluations?currentEval={}", eval.id),
        "View evaluation details",
    )
    .await;
    Ok(0)
}

/// The table printed for an ambiguous prefix (`formatEvalList`).
pub fn eval_list(evals: &[Evaluation], verbose: bool) -> String {
    let length = if verbose { FULL_ID } else { SHORT_ID };
    let mut rows = vec![
        "ID|Priority|Triggered By|Job ID|Namespace|Node ID|Status|Placement Failures".to_string(),
    ];
    for e in evals {
        rows.push(format!(
            "{}|{}|{}|{}|{}|{}|{}|{}",
            limit(&e.id, length),
            e.priority,
            e.triggered_by,
            e.job_id,
            e.namespace,
            limit(&e.node_id, length),
            e.status,
            eval_failure_status(e)
        ));
    }
    format_list(&rows)
}

pub fn basic_rows(eval: &Evaluation, verbose: bool, length: usize, now: i64) -> Vec<String> {
    let when = |t: i64| {
        if verbose {
            output::format_unix_nano(t)
        } else {
            pretty_time_diff(t, now)
        }
    };
    let status_desc = if eval.status_description.is_empty() {
        eval.status.clone()
    } else {
        eval.status_description.clone()
    };
    let mut basic = vec![
        format!("ID|{}", limit(&eval.id, length)),
        format!("Create Time|{}", when(eval.create_time)),
        format!("Modify Time|{}", when(eval.modify_time)),
        format!("Status|{}", eval.status),
        format!("Status Description|{status_desc}"),
        format!("Type|{}", eval.r#type),
        format!("TriggeredBy|{}", eval.triggered_by),
        format!("Job ID|{}", eval.job_id),
        format!("Namespace|{}", eval.namespace),
    ];
    let trigger = match eval.triggered_by.as_str() {
        "node-update" => Some(("Node ID", &eval.node_id)),
        "max-plan-attempts" => Some(("Previous Eval", &eval.previous_eval)),
        _ => None,
    };
    if let Some((noun, subject)) = trigger.filter(|(_, s)| !s.is_empty()) {
        basic.push(format!("{noun}|{subject}"));
    }
    basic.push(format!("Priority|{}", eval.priority));
    basic.push(format!("Placement Failures|{}", eval_failure_status(eval)));
    if eval.wait_until != 0 {
        basic.push(format!(
            "Wait Until|{}",
            output::format_unix_nano(eval.wait_until)
        ));
    }
    basic.push(format!(
        "Previous Eval|{}",
        limit(&eval.previous_eval, length)
    ));
    basic.push(format!("Next Eval|{}", limit(&eval.next_eval, length)));
    basic.push(format!(
        "Blocked Eval|{}",
        limit(&eval.blocked_eval, length)
    ));
    basic
}

fn format_eval(
    eval: &Evaluation,
    placed: &[AllocListStub],
    verbose: bool,
    length: usize,
) -> anyhow::Result<()> {
    let now = output::now_nanos();
    output::out(eval_status_text(eval, placed, verbose, length, now))?;
    Ok(())
}

/// What `eval status` prints (Nomad's `formatEvalStatus`), times relative to `now`: the
/// evaluation, the evals linked to it, its plan annotations and the allocs it would preempt,
/// what it placed, and what it failed to place.
pub fn eval_status_text(
    eval: &Evaluation,
    placed: &[AllocListStub],
    verbose: bool,
    length: usize,
    now: i64,
) -> String {
    let mut sections = vec![format_kv(&basic_rows(eval, verbose, length, now))];
    if !eval.related_evals.is_empty() {
        let table = related_evals(&eval.related_evals, length);
        sections.push(format!("\nRelated Evaluations\n{table}"));
    }
    if let Some(annotations) = &eval.plan_annotations {
        if let Some(table) = plan_annotations(&annotations.desired_tg_updates, verbose) {
            sections.push(format!("\nPlan Annotations\n{table}"));
        }
        let preempted = annotations.preempted_allocs.as_deref().unwrap_or_default();
        if !preempted.is_empty() {
            let table = preempted_allocs(preempted, length, now);
            sections.push(format!("\nPreempted Allocations\n{table}"));
        }
    }
    if !placed.is_empty() {
        let table = meta::alloc_stub_table(placed, false, length, &[]);
        sections.push(format!("\nPlaced Allocations\n{table}"));
    }
    let failed = eval.failed_tg_allocs.clone().unwrap_or_default();
    if !failed.is_empty() {
        sections.push("\nFailed Placements".to_string());
        for (tg, m) in &failed {
            let noun = if m.coalesced_failures > 0 {
                "allocations"
            } else {
                "allocation"
            };
            sections.push(format!(
                "Task Group {tg:?} (failed to place {} {noun}):",
                m.coalesced_failures + 1
            ));
            sections.push(format_alloc_metrics(m, "  "));
        }
        if !eval.blocked_eval.is_empty() {
            sections.push(format!(
                "\nEvaluation {:?} waiting for additional capacity to place remainder",
                limit(&eval.blocked_eval, length)
            ));
        }
    }
    sections.join("\n")
}

/// Nomad's `formatRelatedEvalStubs`: IDs and node IDs cut to `length`, empty cells `<none>`.
pub fn related_evals(stubs: &[EvaluationStub], length: usize) -> String {
    let mut rows = vec!["ID|Priority|Triggered By|Node ID|Status|Description".to_string()];
    for e in stubs {
        rows.push(format!(
            "{}|{}|{}|{}|{}|{}",
            limit(&e.id, length),
            e.priority,
            e.triggered_by,
            limit(&e.node_id, length),
            e.status,
            e.status_description
        ));
    }
    format_list(&rows)
}

/// Nomad's `formatPreemptedAllocListStubs`: unlike the placed allocs, the preempted ones may
/// belong to other jobs, so the job is a column.
pub fn preempted_allocs(stubs: &[AllocListStub], length: usize, now: i64) -> String {
    let mut rows =
        vec!["ID|Job ID|Node ID|Task Group|Version|Desired|Status|Created|Modified".to_string()];
    for a in stubs {
        rows.push(format!(
            "{}|{}|{}|{}|{}|{}|{}|{}|{}",
            limit(&a.id, length),
            a.job_id,
            limit(&a.node_id, length),
            a.task_group,
            a.job_version,
            a.desired_status,
            a.client_status,
            pretty_time_diff(a.create_time, now),
            pretty_time_diff(a.modify_time, now)
        ));
    }
    format_list(&rows)
}

/// Nomad's `formatPlanAnnotations`: fixed columns, plus each optional column that is non-zero
/// for some group (all of them with `-verbose`); `None` when there is no group.
pub fn plan_annotations(
    updates: &BTreeMap<String, DesiredUpdates>,
    verbose: bool,
) -> Option<String> {
    if updates.is_empty() {
        return None;
    }
    let mut rows = vec!["Task Group|Ignore|Place|Stop|InPlace|Destructive".to_string()];
    for (tg, u) in updates {
        rows.push(format!(
            "{tg}|{}|{}|{}|{}|{}",
            u.ignore, u.place, u.stop, u.in_place_update, u.destructive_update
        ));
    }
    /// A column shown only when some group has a count in it.
    type Optional = (&'static str, fn(&DesiredUpdates) -> u64);
    let optional: [Optional; 7] = [
        ("Migrate", |u| u.migrate),
        ("Canary", |u| u.canary),
        ("Preemptions", |u| u.preemptions),
        ("Reschedule Now", |u| u.reschedule_now),
        ("Reschedule Later", |u| u.reschedule_later),
        ("Disconnect", |u| u.disconnect),
        ("Reconnect", |u| u.reconnect),
    ];
    for (col, value) in optional {
        let values: Vec<u64> = updates.values().map(value).collect();
        if verbose || values.iter().any(|v| *v > 0) {
            rows[0].push_str(&format!("|{col}"));
            for (row, v) in rows.iter_mut().skip(1).zip(values) {
                row.push_str(&format!("|{v}"));
            }
        }
    }
    Some(format_list_with_spaces(&rows))
}

#[cfg(test)]
mod tests {
    use super::*;
    use nomad::api::PlanAnnotations;

    const S: i64 = 1_000_000_000;
    const NOW: i64 = 1_800_000_000 * S;

    /// The evaluation of the recorded `nomad eval status` (cli-samples/nomad_eval_status.txt),
    /// with its plan annotations as GET /v1/evaluation/:id answered them.
    fn recorded_eval() -> Evaluation {
        let web = DesiredUpdates {
            ignore: 1,
            ..Default::default()
        };
        Evaluation {
            id: "18feb9b2-76f9-2c67-ffab-fdc48f333610".into(),
            create_time: NOW - 42 * S,
            modify_time: NOW - 42 * S,
            status: "complete".into(),
            r#type: "service".into(),
            triggered_by: "deployment-watcher".into(),
            job_id: "example".into(),
            namespace: "default".into(),
            priority: 50,
            plan_annotations: Some(PlanAnnotations {
                desired_tg_updates: BTreeMap::from([("web".to_string(), web)]),
                preempted_allocs: None,
            }),
            ..Default::default()
        }
    }

    #[test]
    fn eval_status_matches_the_recorded_nomad_output() {
        let got = eval_status_text(&recorded_eval(), &[], false, SHORT_ID, NOW);
        let want = "\
ID                 = 18feb9b2
Create Time        = 42s ago
Modify Time        = 42s ago
Status             = complete
Status Description = complete
Type               = service
TriggeredBy        = deployment-watcher
Job ID             = example
Namespace          = default
Priority           = 50
Placement Failures = false
Previous Eval      = <none>
Next Eval          = <none>
Blocked Eval       = <none>

Plan Annotations
Task Group  Ignore  Place  Stop  InPlace  Destructive
web         1       0      0     0        0";
        assert_eq!(got, want);

        // An eval no scheduler finished prints neither table.
        let pending = Evaluation {
            plan_annotations: None,
            ..recorded_eval()
        };
        let got = eval_status_text(&pending, &[], false, SHORT_ID, NOW);
        assert!(got.ends_with("Blocked Eval       = <none>"), "{got}");
    }

    #[test]
    fn preempted_allocations_follow_the_plan_annotations() {
        let mut eval = recorded_eval();
        let victim = AllocListStub {
            id: "0b6c0f3e-7a51-4f0b-b7f6-6a0f3c9e2d11".into(),
            job_id: "another".into(),
            node_id: "9d1a6d34-1f0e-4a1c-8c5e-2c3b4a5d6e7f".into(),
            task_group: "db".into(),
            job_version: 3,
            desired_status: "evict".into(),
            client_status: "complete".into(),
            create_time: NOW - 600 * S,
            modify_time: NOW - 2 * S,
            ..Default::default()
        };
        if let Some(a) = eval.plan_annotations.as_mut() {
            a.preempted_allocs = Some(vec![victim]);
            a.desired_tg_updates.insert(
                "web".into(),
                DesiredUpdates {
                    place: 1,
                    preemptions: 1,
                    ..Default::default()
                },
            );
        }
        let got = eval_status_text(&eval, &[], false, SHORT_ID, NOW);
        let want = "\
Plan Annotations
Task Group  Ignore  Place  Stop  InPlace  Destructive  Preemptions
web         0       1      0     0        0            1

Preempted Allocations
ID        Job ID   Node ID   Task Group  Version  Desired  Status    Created  Modified
0b6c0f3e  another  9d1a6d34  db          3        evict    complete  10m ago  2s ago";
        assert!(got.ends_with(want), "{got}");
    }

    #[test]
    fn related_evaluations_come_between_the_eval_and_its_plan_annotations() {
        let blocked = EvaluationStub {
            id: "6a7c1b7e-3f2d-4c55-9e0a-2b1f4d8c9e01".into(),
            priority: 50,
            triggered_by: "queued-allocs".into(),
            status: "blocked".into(),
            status_description: "created to place remaining allocations".into(),
            ..Default::default()
        };
        let node_update = EvaluationStub {
            id: "c0ffee00-1111-4222-8333-444455556666".into(),
            priority: 70,
            triggered_by: "node-update".into(),
            node_id: "9d1a6d34-1f0e-4a1c-8c5e-2c3b4a5d6e7f".into(),
            status: "complete".into(),
            ..Default::default()
        };
        let eval = Evaluation {
            blocked_eval: blocked.id.clone(),
            related_evals: vec![blocked, node_update],
            ..recorded_eval()
        };
        let got = eval_status_text(&eval, &[], false, SHORT_ID, NOW);
        let want = "\
Blocked Eval       = 6a7c1b7e

Related Evaluations
ID        Priority  Triggered By   Node ID   Status    Description
6a7c1b7e  50        queued-allocs  <none>    blocked   created to place remaining allocations
c0ffee00  70        node-update    9d1a6d34  complete  <none>

Plan Annotations
";
        assert!(got.contains(want), "{got}");

        // -verbose keeps the IDs whole.
        let got = eval_status_text(&eval, &[], true, FULL_ID, NOW);
        let want = "\
ID                                    Priority  Triggered By   Node ID                               Status    Description
6a7c1b7e-3f2d-4c55-9e0a-2b1f4d8c9e01  50        queued-allocs  <none>                                blocked   created to place remaining allocations
c0ffee00-1111-4222-8333-444455556666  70        node-update    9d1a6d34-1f0e-4a1c-8c5e-2c3b4a5d6e7f  complete  <none>
";
        assert!(got.contains(want), "{got}");
    }

    #[test]
    fn plan_annotations_show_only_the_optional_columns_in_use() {
        let updates = BTreeMap::from([
            (
                "foo".to_string(),
                DesiredUpdates {
                    place: 1,
                    ignore: 2,
                    canary: 1,
                    ..Default::default()
                },
            ),
            (
                "bar".to_string(),
                DesiredUpdates {
                    place: 1,
                    stop: 3,
                    reconnect: 2,
                    ..Default::default()
                },
            ),
        ]);
        assert_eq!(
            plan_annotations(&updates, false).as_deref(),
            Some(
                "Task Group  Ignore  Place  Stop  InPlace  Destructive  Canary  Reconnect\n\
                 bar         0       1      3     0        0            0       2\n\
                 foo         2       1      0     0        0            1       0"
            )
        );
        let verbose = plan_annotations(&updates, true).unwrap_or_default();
        assert!(
            verbose.starts_with(
                "Task Group  Ignore  Place  Stop  InPlace  Destructive  Migrate  Canary  \
                 Preemptions  Reschedule Now  Reschedule Later  Disconnect  Reconnect\n"
            ),
            "{verbose}"
        );
        assert_eq!(plan_annotations(&BTreeMap::new(), true), None);
    }
}
