//! `nomad job status [options] [job]`: list jobs, or show one job's details.

use anyhow::Context as _;
use nomad::api::client::{Client, QueryOptions};
use nomad::api::{AllocListStub, Evaluation, Job, JobSummary};
use serde::Serialize;

use super::{is_parameterized, is_periodic};
use crate::meta::{self, GlobalArgs};
use crate::monitor::format_alloc_metrics;
use crate::output::{self, format_kv, format_list, limit, FULL_ID, SHORT_ID};

/// Nomad prints at most this many failed task groups under "Placement Failure".
const MAX_FAILED_TGS: usize = 5;

#[derive(Debug, Clone, Default, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub global: GlobalArgs,
    /// Display short output. Used only when a single job is being queried.
    #[arg(long)]
    pub short: bool,
    /// Display the evaluations associated with the job.
    #[arg(long)]
    pub evals: bool,
    /// Display all allocations matching the job ID, including those from an older instance
    /// of the job.
    #[arg(long = "all-allocs")]
    pub all_allocs: bool,
    /// Display full information.
    #[arg(long)]
    pub verbose: bool,
    /// Output the job status in JSON format.
    #[arg(long)]
    pub json: bool,
    /// Format and display the output using a Go template.
    #[arg(short = 't', value_name = "TEMPLATE")]
    pub template: Option<String>,
    /// The job ID or prefix.
    pub job: Option<String>,
}

/// One entry of `-json` output (Nomad's `JobJson`).
#[derive(Serialize)]
#[serde(rename_all = "PascalCase")]
struct JobJson {
    summary: JobSummary,
    allocations: Vec<AllocListStub>,
    latest_deployment: Option<nomad::api::Deployment>,
    evaluations: Vec<Evaluation>,
}

pub async fn run(args: &Args, g: &GlobalArgs) -> anyhow::Result<i32> {
    let length = if args.verbose { FULL_ID } else { SHORT_ID };
    let client = g.client()?;

    let Some(prefix) = args.job.as_deref().map(str::trim) else {
        let (jobs, _) = client.jobs(None).await.context("Error querying jobs")?;
        if jobs.is_empty() {
            output::out("No running jobs")?;
        } else if output::wants_formatted(args.json, args.template.as_deref()) {
            let pairs: Vec<(String, String)> = jobs
                .iter()
                .map(|j| (j.id.clone(), j.namespace.clone()))
                .collect();
            let out = json_jobs(&client, args.all_allocs, &pairs).await?;
            return Ok(output::print_formatted(
                args.json,
                args.template.as_deref(),
                &out,
            )?);
        } else {
            output::out(meta::job_list_table(&jobs, g.all_namespaces()))?;
        }
        meta::print_ui_hint(&client, "/jobs", "View and manage Nomad jobs").await;
        return Ok(0);
    };

    let (job_id, namespace) = meta::job_id_by_prefix(&client, g, prefix).await?;
    let q = QueryOptions::namespace(&namespace);
    let (job, _) = client
        .job(&job_id, Some(&q))
        .await
        .context("Error querying job")?;

    if output::wants_formatted(args.json, args.template.as_deref()) {
        let out = json_jobs(&client, args.all_allocs, &[(job.id.clone(), namespace)]).await?;
        return Ok(output::print_formatted(
            args.json,
            args.template.as_deref(),
            &out,
        )?);
    }

    let (periodic, parameterized) = (is_periodic(&job), is_parameterized(&job));
    let mut basic = vec![
        format!("ID|{}", job.id),
        format!("Name|{}", job.name),
        format!("Submit Date|{}", output::format_unix_nano(job.submit_time)),
        format!("Type|{}", job.r#type),
        format!("Priority|{}", job.priority),
        format!(
            "Datacenters|{}",
            job.datacenters.clone().unwrap_or_default().join(",")
        ),
        format!("Namespace|{}", job.namespace),
        format!("Node Pool|{}", job.node_pool),
        format!("Status|{}", meta::status_string(&job.status, job.stop)),
        format!("Periodic|{periodic}"),
        format!("Parameterized|{parameterized}"),
    ];
    if !job.dispatch_idempotency_token.is_empty() {
        basic.push(format!(
            "Idempotency Token|{}",
            job.dispatch_idempotency_token
        ));
    }
    if periodic && !parameterized && job.stop {
        basic.push("Next Periodic Launch|none (job stopped)".to_string());
    } else if periodic && !parameterized {
        basic.extend(next_periodic_launch(&job, output::now_nanos()));
    }
    output::out(format_kv(&basic))?;

    let ui_path = format!("/jobs/{}@{}", job.id, job.namespace);
    if !args.short {
        if periodic || parameterized {
            output_children(&client, &job, &q, parameterized).await?;
        } else {
            output_job_info(&client, &job, &q, args, length).await?;
        }
    }
    meta::print_ui_hint(&client, &ui_path, "View job details and metrics").await;
    Ok(0)
}

async fn json_jobs(
    client: &Client,
    all_allocs: bool,
    jobs: &[(String, String)],
) -> anyhow::Result<Vec<JobJson>> {
    let mut out = Vec::with_capacity(jobs.len());
    for (id, ns) in jobs {
        let q = QueryOptions::namespace(ns);
        let (summary, _) = client
            .job_summary(id, Some(&q))
            .await
            .context("Error querying job summary")?;
        let (allocations, _) = client
            .job_allocations(id, all_allocs, Some(&q))
            .await
            .context("Error querying job allocations")?;
        let (evaluations, _) = client
            .job_evaluations(id, Some(&q))
            .await
            .context("Error querying job evaluations")?;
        let (latest_deployment, _) = client
            .job_latest_deployment(id, Some(&q))
            .await
            .context("Error querying latest job deployment")?;
        out.push(JobJson {
            summary,
            allocations,
            latest_deployment,
            evaluations,
        });
    }
    Ok(out)
}

async fn output_summary(client: &Client, job: &Job, q: &QueryOptions) -> anyhow::Result<()> {
    let (summary, _) = client
        .job_summary(&job.id, Some(q))
        .await
        .context("Error querying job summary")?;
    let (periodic, parameterized) = (is_periodic(job), is_parameterized(job));
    if !periodic && !parameterized {
        let mut rows =
            vec!["Task Group|Queued|Starting|Running|Failed|Complete|Lost|Unknown".to_string()];
        // BTreeMap: already sorted by task group, as Nomad sorts them.
        for (tg, s) in &summary.summary {
            rows.push(format!(
                "{tg}|{}|{}|{}|{}|{}|{}|{}",
                s.queued, s.starting, s.running, s.failed, s.complete, s.lost, s.unknown
            ));
        }
        output::out("\nSummary")?;
        output::out(format_list(&rows))?;
    }
    let c = &summary.children;
    if parameterized || periodic || c.pending + c.running + c.dead > 0 {
        output::out(if parameterized {
            "\nParameterized Job Summary"
        } else {
            "\nChildren Job Summary"
        })?;
        output::out(format_list(&[
            "Pending|Running|Dead".to_string(),
            format!("{}|{}|{}", c.pending, c.running, c.dead),
        ]))?;
    }
    Ok(())
}

/// `Next Periodic Launch|<time> (<in> from now)`, as Nomad computes it on the CLI side.
fn next_periodic_launch(job: &Job, now: i64) -> Option<String> {
    let spec = nomad::api::cron::PeriodicSpec::from_job(job).ok()??;
    let next = spec.next_after(now)?;
    let secs = |n: i64| n.div_euclid(1_000_000_000) * 1_000_000_000;
    Some(format!(
        "Next Periodic Launch|{} ({} from now)",
        output::format_unix_nano(next),
        output::go_duration(secs(next) - secs(now))
    ))
}

/// Periodic and parameterized jobs list their launched children instead of allocations.
async fn output_children(
    client: &Client,
    job: &Job,
    q: &QueryOptions,
    parameterized: bool,
) -> anyhow::Result<()> {
    if parameterized {
        let p = job.parameterized_job.clone().unwrap_or_default();
        let list = |key: &str| {
            p.get(key)
                .and_then(|v| v.as_array())
                .map(|a| {
                    a.iter()
                        .filter_map(|s| s.as_str())
                        .collect::<Vec<_>>()
                        .join(", ")
                })
                .unwrap_or_default()
        };
        output::out("\nParameterized Job")?;
        output::out(format_kv(&[
            format!(
                "Payload|{}",
                p.get("Payload").and_then(|v| v.as_str()).unwrap_or("")
            ),
            format!("Required Metadata|{}", list("MetaRequired")),
            format!("Optional Metadata|{}", list("MetaOptional")),
        ]))?;
    }
    output_summary(client, job, q).await?;
    let suffix = if parameterized {
        "/dispatch-"
    } else {
        "/periodic-"
    };
    let prefix = format!("{}{suffix}", job.id);
    let mut cq = q.clone();
    cq.prefix = Some(prefix);
    let (children, _) = client.jobs(Some(&cq)).await.context("Error querying job")?;
    if children.is_empty() {
        output::out(if parameterized {
            "\nNo dispatched instances of parameterized job found"
        } else {
            "\nNo instances of periodic job found"
        })?;
        return Ok(());
    }
    let mut rows = vec!["ID|Status".to_string()];
    for child in children.iter().filter(|c| c.parent_id == job.id) {
        rows.push(format!("{}|{}", child.id, child.status));
    }
    output::out(if parameterized {
        "\nDispatched Jobs"
    } else {
        "\nPreviously Launched Jobs"
    })?;
    output::out(format_list(&rows))?;
    Ok(())
}

async fn output_job_info(
    client: &Client,
    job: &Job,
    q: &QueryOptions,
    args: &Args,
    length: usize,
) -> anyhow::Result<()> {
    let (allocs, _) = client
        .job_allocations(&job.id, args.all_allocs, Some(q))
        .await
        .context("Error querying job allocations")?;
    let (evals, _) = client
        .job_evaluations(&job.id, Some(q))
        .await
        .context("Error querying job evaluations")?;

    output_summary(client, job, q).await?;

    let mut rows = vec!["ID|Priority|Triggered By|Status|Placement Failures".to_string()];
    let mut latest_failed: Option<&Evaluation> = None;
    let mut blocked = false;
    for e in &evals {
        rows.push(format!(
            "{}|{}|{}|{}|{}",
            limit(&e.id, length),
            e.priority,
            e.triggered_by,
            e.status,
            eval_failure_status(e)
        ));
        blocked |= e.status == nomad::api::EVAL_STATUS_BLOCKED;
        let has_failures = e.failed_tg_allocs.as_ref().is_some_and(|f| !f.is_empty());
        if has_failures && latest_failed.is_none_or(|l| l.create_index < e.create_index) {
            latest_failed = Some(e);
        }
    }
    if args.verbose || args.evals {
        output::out("\nEvaluations")?;
        output::out(format_list(&rows))?;
    }
    if let (true, Some(failed)) = (blocked, latest_failed) {
        output_failed_placements(failed)?;
    }
    output_rescheduling(client, job, &allocs, args.verbose, length).await?;

    let (latest, _) = client
        .job_latest_deployment(&job.id, Some(q))
        .await
        .context("Error querying latest job deployment")?;
    if let Some(d) = latest {
        output::out("\nLatest Deployment")?;
        output::out(crate::deployment::status::format_job_deployment(&d, length))?;
    }

    output::out("\nAllocations")?;
    let deadlines = meta::max_run_deadlines(Some(job), &allocs, args.verbose);
    output::out(meta::alloc_stub_table(
        &allocs,
        args.verbose,
        length,
        &deadlines,
    ))?;
    Ok(())
}

/// Nomad's `evalFailureStatus` text for the "Placement Failures" column.
pub fn eval_failure_status(e: &Evaluation) -> String {
    if e.status == nomad::api::EVAL_STATUS_BLOCKED {
        return "N/A - In Progress".to_string();
    }
    e.failed_tg_allocs
        .as_ref()
        .is_some_and(|f| !f.is_empty())
        .to_string()
}

fn output_failed_placements(eval: &Evaluation) -> anyhow::Result<()> {
    let Some(failed) = eval.failed_tg_allocs.as_ref().filter(|f| !f.is_empty()) else {
        return Ok(());
    };
    output::out("\nPlacement Failure")?;
    let n = failed.len();
    for (i, (tg, metrics)) in failed.iter().enumerate().take(MAX_FAILED_TGS) {
        output::out(format!("Task Group {tg:?}:"))?;
        output::out(format_alloc_metrics(metrics, "  "))?;
        if i + 1 != n {
            output::out("")?;
        }
    }
    if n > MAX_FAILED_TGS {
        output::out(format!(
            "\nPlacement failures truncated. To see remainder run:\nnomad eval-status {}",
            eval.id
        ))?;
    }
    Ok(())
}

/// "Future Rescheduling Attempts": follow-up evals of each group's newest alloc that are
/// still waiting.
async fn output_rescheduling(
    client: &Client,
    job: &Job,
    allocs: &[AllocListStub],
    verbose: bool,
    length: usize,
) -> anyhow::Result<()> {
    let mut newest: std::collections::BTreeMap<&str, &AllocListStub> = Default::default();
    for a in allocs {
        let slot = newest.entry(a.task_group.as_str()).or_insert(a);
        if a.modify_time > slot.modify_time {
            *slot = a;
        }
    }
    let now = output::now_nanos();
    let mut details = Vec::new();
    for (tg, alloc) in newest {
        if alloc.followup_eval_id.is_empty() {
            continue;
        }
        let Ok((eval, _)) = client.evaluation(&alloc.followup_eval_id, None).await else {
            continue;
        };
        if eval.wait_until == 0 || now > eval.wait_until {
            continue;
        }
        let when = output::pretty_time_diff(eval.wait_until, now);
        let id = limit(&alloc.followup_eval_id, length);
        if verbose {
            let policy = job
                .lookup_task_group(tg)
                .and_then(|g| g.reschedule_policy.as_ref())
                .map(|p| {
                    format!(
                        "Attempts: {} Interval: {} Delay: {} DelayFunction: {} MaxDelay: {} Unlimited: {}",
                        p.attempts,
                        output::go_duration(p.interval),
                        output::go_duration(p.delay),
                        p.delay_function,
                        output::go_duration(p.max_delay),
                        p.unlimited
                    )
                })
                .unwrap_or_default();
            details.push(format!("{tg}|{policy}|{id}|{when}"));
        } else {
            details.push(format!("{tg}|{id}|{when}"));
        }
    }
    if details.is_empty() {
        return Ok(());
    }
    let header = if verbose {
        "Task Group|Reschedule Policy|Eval ID|Eval Time"
    } else {
        "Task Group|Eval ID|Eval Time"
    };
    let mut rows = vec![header.to_string()];
    rows.extend(details);
    output::out("\nFuture Rescheduling Attempts")?;
    output::out(format_list(&rows))?;
    Ok(())
}
