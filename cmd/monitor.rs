//! The evaluation monitor of `job run`, `job stop` and `eval status -monitor` (Nomad's
//! `command/monitor.go`): poll an eval and its allocs, print what changed, follow `NextEval`,
//! and exit 0, 1 (eval missing / error) or 2 (placement failures).
//!
//! When the last eval names a deployment (the scheduler records the job's deployment on every
//! service or system eval), the monitor goes on to follow it as `deployment status -monitor`
//! does, and exits 0 only if it ends successful, as Nomad's monitor.
//!
//! ```text
//!  pending --(poll)--> pending ... --(terminal)--> finished (0 | 2)
//!                                    |--NextEval--> monitor next eval
//!                                    \--DeploymentID--> monitor deployment (0 | 1)
//! ```

use std::collections::BTreeMap;
use std::io::IsTerminal as _;
use std::time::Duration;

use chrono::Local;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use nomad::api::client::Client;
use nomad::api::{AllocMetric, Evaluation};

use crate::output::{self, format_list, limit};

/// How often the eval is polled. Nomad waits a second; a shorter poll makes `job run` return
/// as soon as the scheduler is done without loading the agent noticeably.
const POLL: Duration = Duration::from_millis(250);

#[derive(Debug, Clone, Default, PartialEq)]
struct AllocState {
    id: String,
    group: String,
    node: String,
    desired: String,
    client: String,
    client_desc: String,
    index: u64,
}

#[derive(Debug, Clone, PartialEq)]
struct EvalState {
    status: String,
    node: String,
    deployment: String,
    job: String,
    allocs: BTreeMap<String, AllocState>,
    index: u64,
}

impl EvalState {
    fn new() -> Self {
        EvalState {
            status: nomad::api::EVAL_STATUS_PENDING.to_string(),
            node: String::new(),
            deployment: String::new(),
            job: String::new(),
            allocs: BTreeMap::new(),
            index: 0,
        }
    }
}

fn now() -> String {
    output::format_time(Local::now())
}

/// Lines that report the move from `old` to `new` (Nomad's `monitor.update`).
fn diff_lines(old: &EvalState, new: &EvalState, length: usize) -> Vec<String> {
    let t = now();
    let mut lines = Vec::new();
    if old.node.is_empty() && !new.node.is_empty() {
        lines.push(format!(
            "{t}: Evaluation triggered by node {:?}",
            limit(&new.node, length)
        ));
    }
    if old.job.is_empty() && !new.job.is_empty() {
        lines.push(format!("{t}: Evaluation triggered by job {:?}", new.job));
    }
    if old.deployment.is_empty() && !new.deployment.is_empty() {
        lines.push(format!(
            "{t}: Evaluation within deployment: {:?}",
            limit(&new.deployment, length)
        ));
    }
    let mut allocs: Vec<&AllocState> = new.allocs.values().collect();
    allocs.sort_by(|a, b| (a.index, &a.id).cmp(&(b.index, &b.id)));
    for alloc in allocs {
        match old.allocs.get(&alloc.id) {
            None if alloc.index < new.index => lines.push(format!(
                "{t}: Allocation {:?} modified: node {:?}, group {:?}",
                limit(&alloc.id, length),
                limit(&alloc.node, length),
                alloc.group
            )),
            None if alloc.desired == nomad::api::ALLOC_DESIRED_RUN => lines.push(format!(
                "{t}: Allocation {:?} created: node {:?}, group {:?}",
                limit(&alloc.id, length),
                limit(&alloc.node, length),
                alloc.group
            )),
            None => {}
            Some(prev) if prev.client != alloc.client => {
                let desc = if alloc.client_desc.is_empty() {
                    String::new()
                } else {
                    format!(" ({})", alloc.client_desc)
                };
                lines.push(format!(
                    "{t}: Allocation {:?} status changed: {:?} -> {:?}{desc}",
                    limit(&alloc.id, length),
                    prev.client,
                    alloc.client
                ));
            }
            Some(_) => {}
        }
    }
    if !old.status.is_empty()
        && new.status != nomad::api::ALLOC_CLIENT_PENDING
        && old.status != new.status
    {
        lines.push(format!(
            "{t}: Evaluation status changed: {:?} -> {:?}",
            old.status, new.status
        ));
    }
    lines
}

/// Nomad's `formatAllocMetrics` without scores: why placements failed, one `* ...` per line.
pub fn format_alloc_metrics(m: &AllocMetric, prefix: &str) -> String {
    let mut out = Vec::new();
    if m.nodes_evaluated == 0 {
        out.push(format!("{prefix}* No nodes were eligible for evaluation"));
    }
    for (dc, available) in &m.nodes_available {
        if *available == 0 {
            out.push(format!(
                "{prefix}* No nodes are available in datacenter {dc:?}"
            ));
        }
    }
    for (class, n) in m.class_filtered.iter().flatten() {
        out.push(format!(
            "{prefix}* Class {class:?}: {n} nodes excluded by filter"
        ));
    }
    for (c, n) in m.constraint_filtered.iter().flatten() {
        out.push(format!(
            "{prefix}* Constraint {c:?}: {n} nodes excluded by filter"
        ));
    }
    if m.nodes_exhausted > 0 {
        out.push(format!(
            "{prefix}* Resources exhausted on {} nodes",
            m.nodes_exhausted
        ));
    }
    for (class, n) in m.class_exhausted.iter().flatten() {
        out.push(format!("{prefix}* Class {class:?} exhausted on {n} nodes"));
    }
    for (dim, n) in m.dimension_exhausted.iter().flatten() {
        out.push(format!(
            "{prefix}* Dimension {dim:?} exhausted on {n} nodes"
        ));
    }
    for q in m.quota_exhausted.iter().flatten() {
        out.push(format!("{prefix}* Quota limit hit {q:?}"));
    }
    out.join("\n")
}

/// `formatAllocMetrics` with scores (`alloc status -verbose`).
pub fn format_alloc_metrics_with_scores(m: &AllocMetric, prefix: &str) -> String {
    let mut out = format_alloc_metrics(m, prefix);
    let metas = m.score_meta_data.as_deref().unwrap_or(&[]);
    if !metas.is_empty() {
        let mut names: Vec<&str> = metas
            .iter()
            .flat_map(|s| s.scores.keys().map(|k| k.as_ref()))
            .collect();
        names.sort();
        names.dedup();
        let mut rows = vec![format!("Node|{}|final score", names.join("|"))];
        for s in metas {
            let mut row = format!("{}|", s.node_id);
            for n in &names {
                row.push_str(&format!(
                    "{}|",
                    go_g3(s.scores.get(*n).copied().unwrap_or(0.0))
                ));
            }
            row.push_str(&go_g3(s.norm_score));
            rows.push(row);
        }
        if !out.is_empty() {
            out.push('\n');
        }
        out.push_str(&format_list(&rows));
    } else {
        for (name, score) in m.scores.iter().flatten() {
            if !out.is_empty() {
                out.push('\n');
            }
            out.push_str(&format!("{prefix}* Score {name:?} = {score:.6}"));
        }
    }
    out
}

/// Go's `%.3g`: three significant digits, trailing zeros dropped.
fn go_g3(v: f64) -> String {
    if v == 0.0 {
        return "0".to_string();
    }
    let exp = v.abs().log10().floor() as i32;
    if !(-4..3).contains(&exp) {
        let s = format!("{v:.2e}");
        // Rust prints 1.23e5; Go prints 1.23e+05.
        if let Some((mant, e)) = s.split_once('e') {
            let mant = trim_zeros(mant);
            let (sign, digits) = match e.strip_prefix('-') {
                Some(d) => ('-', d),
                None => ('+', e),
            };
            return format!("{mant}e{sign}{digits:0>2}");
        }
        return s;
    }
    let decimals = (2 - exp).max(0) as usize;
    trim_zeros(&format!("{v:.decimals$}")).to_string()
}

fn trim_zeros(s: &str) -> &str {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.')
    } else {
        s
    }
}

/// Where monitor lines go: a spinner that keeps the current status on a TTY, plain lines
/// otherwise (pipes, CI logs, the recorded samples).
enum Printer {
    Plain,
    Spinner(ProgressBar),
}

impl Printer {
    fn new() -> Self {
        if !std::io::stdout().is_terminal() {
            return Printer::Plain;
        }
        // Drawn on stdout so the monitor lines printed above it stay on stdout, as Nomad's.
        let pb = ProgressBar::with_draw_target(None, ProgressDrawTarget::stdout());
        if let Ok(style) = ProgressStyle::with_template("    {spinner} {msg}") {
            pb.set_style(style);
        }
        pb.enable_steady_tick(Duration::from_millis(120));
        Printer::Spinner(pb)
    }

    fn line(&self, text: &str) -> std::io::Result<()> {
        match self {
            Printer::Plain => output::out(text),
            Printer::Spinner(pb) => {
                pb.println(text);
                Ok(())
            }
        }
    }

    fn status(&self, text: String) {
        if let Printer::Spinner(pb) = self {
            pb.set_message(text);
        }
    }

    fn finish(&self) {
        if let Printer::Spinner(pb) = self {
            pb.finish_and_clear();
        }
    }
}

/// The longest each blocking query of the deployment monitor waits (Nomad passes no wait time,
/// so the server's five-minute maximum applies): a block is printed only on a change.
const DEPLOYMENT_WAIT: Duration = Duration::from_secs(300);

/// Monitor `eval_id` until it finishes, then its deployment if it has one; returns the exit
/// code.
pub async fn monitor(client: &Client, eval_id: &str, length: usize) -> anyhow::Result<i32> {
    monitor_expecting(client, eval_id, length, None).await
}

/// A deployment outcome the command itself asked for: (status, status description).
pub type ExpectedEnd = (&'static str, &'static str);

/// `job stop` cancels the job's deployment.
pub const STOPPED_JOB: ExpectedEnd = (
    nomad::api::DEPLOYMENT_STATUS_CANCELLED,
    nomad::api::DESC_STOPPED_JOB,
);
/// `deployment fail` fails it.
pub const FAILED_BY_USER: ExpectedEnd = (
    nomad::api::DEPLOYMENT_STATUS_FAILED,
    nomad::api::DESC_FAILED_BY_USER,
);

/// [`monitor`] for a command that ends the deployment on purpose: that end exits 0 too.
pub async fn monitor_expecting(
    client: &Client,
    eval_id: &str,
    length: usize,
    expected: Option<ExpectedEnd>,
) -> anyhow::Result<i32> {
    let printer = Printer::new();
    let outcome = monitor_with(client, eval_id, length, &printer).await;
    printer.finish();
    let (code, deployment) = outcome?;
    if deployment.is_empty() {
        return Ok(code);
    }
    output::out(format!(
        "==> {}: Monitoring deployment {:?}",
        now(),
        limit(&deployment, length)
    ))?;
    let deployments = crate::deployment::monitor::Monitor {
        client,
        length,
        verbose: length == output::FULL_ID,
        wait: DEPLOYMENT_WAIT,
        prefix: "    ",
    };
    let end = deployments.run(&deployment, 0).await?;
    Ok(deployment_exit_code(end.as_ref(), expected))
}

/// Exit 0 only for a successful deployment (which also clears a placement failure's 2), as
/// Nomad's monitor. One deliberate difference: the end a command asked for (`job stop`
/// cancelling the deployment, `deployment fail` failing it) exits 0 too, where Nomad exits 1
/// (a known quirk of its CLI, hashicorp/nomad#11968, that scripts have to work around).
fn deployment_exit_code(
    end: Option<&nomad::api::Deployment>,
    expected: Option<ExpectedEnd>,
) -> i32 {
    match end {
        Some(d) if d.status == nomad::api::DEPLOYMENT_STATUS_SUCCESSFUL => 0,
        Some(d) if expected == Some((d.status.as_str(), d.status_description.as_str())) => 0,
        _ => 1,
    }
}

/// Follows evals until the last one finishes: its exit code (0, 1 or 2) and the deployment
/// it names ("" when none, or when the monitor stopped on an error).
async fn monitor_with(
    client: &Client,
    first_eval: &str,
    length: usize,
    p: &Printer,
) -> anyhow::Result<(i32, String)> {
    let mut eval_id = first_eval.to_string();
    loop {
        let mut state = EvalState::new();
        p.line(&format!(
            "==> {}: Monitoring evaluation {:?}",
            now(),
            limit(&eval_id, length)
        ))?;
        let eval: Evaluation = loop {
            let eval = match client.evaluation(&eval_id, None).await {
                Ok((e, _)) => e,
                Err(_) => {
                    output::err(format!("==> No evaluation with id {eval_id:?} found"));
                    return Ok((1, String::new()));
                }
            };
            let allocs = match client.evaluation_allocations(&eval.id, None).await {
                Ok((a, _)) => a,
                Err(e) => {
                    output::err(format!("==> {}: Error reading allocations: {e}", now()));
                    return Ok((1, String::new()));
                }
            };
            let next = EvalState {
                status: eval.status.clone(),
                node: eval.node_id.clone(),
                deployment: eval.deployment_id.clone(),
                job: eval.job_id.clone(),
                index: eval.create_index,
                allocs: allocs
                    .iter()
                    .map(|a| {
                        (
                            a.id.clone(),
                            AllocState {
                                id: a.id.clone(),
                                group: a.task_group.clone(),
                                node: a.node_id.clone(),
                                desired: a.desired_status.clone(),
                                client: a.client_status.clone(),
                                client_desc: a.client_description.clone(),
                                index: a.create_index,
                            },
                        )
                    })
                    .collect(),
            };
            for line in diff_lines(&state, &next, length) {
                p.line(&format!("    {line}"))?;
            }
            state = next;
            p.status(format!(
                "Evaluation {:?} status: {:?}",
                limit(&eval.id, length),
                eval.status
            ));
            if eval.terminal() {
                break eval;
            }
            tokio::time::sleep(POLL).await;
        };

        let mut sched_failure = false;
        let failed = eval.failed_tg_allocs.clone().unwrap_or_default();
        if failed.is_empty() {
            p.line(&format!(
                "==> {}: Evaluation {:?} finished with status {:?}",
                now(),
                limit(&eval.id, length),
                eval.status
            ))?;
        } else {
            sched_failure = true;
            p.line(&format!(
                "==> {}: Evaluation {:?} finished with status {:?} but failed to place all allocations:",
                now(),
                limit(&eval.id, length),
                eval.status
            ))?;
            for (tg, metrics) in &failed {
                let noun = if metrics.coalesced_failures > 0 {
                    "allocations"
                } else {
                    "allocation"
                };
                p.line(&format!(
                    "    {}: Task Group {tg:?} (failed to place {} {noun}):",
                    now(),
                    metrics.coalesced_failures + 1
                ))?;
                for line in format_alloc_metrics(metrics, "  ").lines() {
                    p.line(&format!("    {line}"))?;
                }
            }
            if !eval.blocked_eval.is_empty() {
                p.line(&format!(
                    "    {}: Evaluation {:?} waiting for additional capacity to place remainder",
                    now(),
                    limit(&eval.blocked_eval, length)
                ))?;
            }
        }

        if !eval.next_eval.is_empty() {
            if eval.wait != 0 {
                p.line(&format!(
                    "==> {}: Monitoring next evaluation {:?} in {}",
                    now(),
                    limit(&eval.next_eval, length),
                    output::go_duration(eval.wait)
                ))?;
                tokio::time::sleep(Duration::from_nanos(eval.wait.max(0) as u64)).await;
            }
            eval_id = eval.next_eval.clone();
            continue;
        }
        return Ok((
            if sched_failure { 2 } else { 0 },
            eval.deployment_id.clone(),
        ));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_success_or_the_end_the_command_asked_for_exits_0() {
        let d = |status: &str, desc: &str| nomad::api::Deployment {
            status: status.into(),
            status_description: desc.into(),
            ..Default::default()
        };
        let ok = d("successful", nomad::api::DESC_SUCCESSFUL);
        assert_eq!(deployment_exit_code(Some(&ok), None), 0);
        assert_eq!(deployment_exit_code(Some(&ok), Some(STOPPED_JOB)), 0);
        let stopped = d("cancelled", nomad::api::DESC_STOPPED_JOB);
        assert_eq!(deployment_exit_code(Some(&stopped), None), 1);
        assert_eq!(deployment_exit_code(Some(&stopped), Some(STOPPED_JOB)), 0);
        let newer = d("cancelled", nomad::api::DESC_NEWER_JOB);
        assert_eq!(deployment_exit_code(Some(&newer), Some(STOPPED_JOB)), 1);
        let by_user = d("failed", nomad::api::DESC_FAILED_BY_USER);
        assert_eq!(
            deployment_exit_code(Some(&by_user), Some(FAILED_BY_USER)),
            0
        );
        assert_eq!(deployment_exit_code(Some(&by_user), Some(STOPPED_JOB)), 1);
        let unhealthy = d("failed", nomad::api::DESC_FAILED_ALLOCATIONS);
        assert_eq!(
            deployment_exit_code(Some(&unhealthy), Some(FAILED_BY_USER)),
            1
        );
        assert_eq!(deployment_exit_code(None, None), 1);
    }

    fn strip_time(lines: Vec<String>) -> Vec<String> {
        lines
            .into_iter()
            .map(|l| l.split_once(": ").map(|x| x.1.to_string()).unwrap_or(l))
            .collect()
    }

    #[test]
    fn first_poll_reports_job_and_created_allocs_then_status_changes() {
        let old = EvalState::new();
        let mut new = EvalState::new();
        new.job = "example".into();
        new.index = 11;
        new.allocs.insert(
            "9bdd316b-aaaa".into(),
            AllocState {
                id: "9bdd316b-aaaa".into(),
                group: "web".into(),
                node: "83eb3a53-bbbb".into(),
                desired: "run".into(),
                client: "pending".into(),
                index: 11,
                ..Default::default()
            },
        );
        assert_eq!(
            strip_time(diff_lines(&old, &new, 8)),
            [
                "Evaluation triggered by job \"example\"",
                "Allocation \"9bdd316b\" created: node \"83eb3a53\", group \"web\""
            ]
        );
        let mut done = new.clone();
        done.status = "complete".into();
        let a = done.allocs.get_mut("9bdd316b-aaaa").unwrap();
        a.client = "running".into();
        a.client_desc = "Tasks are running".into();
        assert_eq!(
            strip_time(diff_lines(&new, &done, 8)),
            [
                "Allocation \"9bdd316b\" status changed: \"pending\" -> \"running\" (Tasks are running)",
                "Evaluation status changed: \"pending\" -> \"complete\""
            ]
        );
    }

    #[test]
    fn older_allocs_are_reported_as_modified() {
        let mut new = EvalState::new();
        new.index = 20;
        new.allocs.insert(
            "a".into(),
            AllocState {
                id: "a".into(),
                group: "g".into(),
                node: "n".into(),
                desired: "run".into(),
                index: 5,
                ..Default::default()
            },
        );
        assert_eq!(
            strip_time(diff_lines(&EvalState::new(), &new, 8)),
            ["Allocation \"a\" modified: node \"n\", group \"g\""]
        );
    }

    #[test]
    fn placement_failure_metrics_lines() {
        let m = AllocMetric {
            nodes_evaluated: 1,
            nodes_exhausted: 1,
            nodes_available: [("dc1".to_string(), 1)].into(),
            dimension_exhausted: Some([("memory".to_string(), 1)].into()),
            constraint_filtered: Some([("${attr.kernel.name} = windows".to_string(), 2)].into()),
            ..Default::default()
        };
        assert_eq!(
            format_alloc_metrics(&m, "  "),
            "  * Constraint \"${attr.kernel.name} = windows\": 2 nodes excluded by filter\n  \
             * Resources exhausted on 1 nodes\n  * Dimension \"memory\" exhausted on 1 nodes"
        );
        let none = AllocMetric {
            nodes_available: [("dc9".to_string(), 0)].into(),
            ..Default::default()
        };
        assert_eq!(
            format_alloc_metrics(&none, ""),
            "* No nodes were eligible for evaluation\n* No nodes are available in datacenter \"dc9\""
        );
    }

    #[test]
    fn scores_use_go_g_format() {
        assert_eq!(go_g3(0.0), "0");
        assert_eq!(go_g3(0.5), "0.5");
        assert_eq!(go_g3(0.123456), "0.123");
        assert_eq!(go_g3(12.345), "12.3");
        assert_eq!(go_g3(-1.0), "-1");
        assert_eq!(go_g3(123456.0), "1.23e+05");
    }
}
