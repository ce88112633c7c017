//! `nomad job restart [options] <job>`: restart (or reschedule) a job's running allocations in
//! batches, as Nomad's command does: in place through the client's restart, or with
//! `-reschedule` by stopping each one and waiting for its replacement to run.

use std::collections::BTreeSet;
use std::io::IsTerminal as _;
use std::time::Duration;

use anyhow::anyhow;
use nomad::api::client::{Client, QueryOptions};
use nomad::api::{AllocListStub, Job};

use crate::meta::{self, GlobalArgs};
use crate::output::{self, limit, FULL_ID, SHORT_ID};

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub global: GlobalArgs,
    /// Restart every task of each allocation, not only the running ones.
    #[arg(long = "all-tasks")]
    pub all_tasks: bool,
    /// How many allocations to restart at once: a number or a percentage.
    #[arg(long = "batch-size", value_name = "N|N%", default_value = "1")]
    pub batch_size: String,
    /// How long to wait between batches, or "ask" to ask each time.
    #[arg(long = "batch-wait", value_name = "DURATION|ask", default_value = "0s")]
    pub batch_wait: String,
    /// Only allocations of this task group (repeatable).
    #[arg(long = "group", value_name = "GROUP")]
    pub groups: Vec<String>,
    /// Only this task (repeatable).
    #[arg(long = "task", value_name = "TASK")]
    pub tasks: Vec<String>,
    /// What to do when a batch fails: "ask" or "fail".
    #[arg(long = "on-error", value_name = "ask|fail", default_value = "ask")]
    pub on_error: String,
    /// Stop allocations without waiting out their shutdown_delay (with -reschedule).
    #[arg(long = "no-shutdown-delay")]
    pub no_shutdown_delay: bool,
    /// Stop each allocation and wait for a replacement instead of restarting in place.
    #[arg(long)]
    pub reschedule: bool,
    /// Answer yes to every question.
    #[arg(long)]
    pub yes: bool,
    /// Display full information.
    #[arg(long)]
    pub verbose: bool,
    /// The job ID or prefix.
    pub job: Vec<String>,
}

/// The options once checked.
struct Plan {
    batch_size: usize,
    batch_percent: bool,
    batch_wait: Option<Duration>,
    fail_on_error: bool,
    groups: BTreeSet<String>,
    tasks: BTreeSet<String>,
    length: usize,
}

fn now() -> String {
    output::format_time(chrono::Local::now())
}

fn check(args: &Args) -> Result<Plan, String> {
    if args.job.len() != 1 {
        return Err("This command takes one argument: <job>".into());
    }
    let (digits, percent) = match args.batch_size.strip_suffix('%') {
        Some(d) => (d, true),
        None => (args.batch_size.as_str(), false),
    };
    if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
        return Err(format!(
            "Invalid -batch-size value {:?}: batch size must be an integer or a percentage",
            args.batch_size
        ));
    }
    let batch_size: usize = digits
        .parse()
        .map_err(|e| format!("Invalid -batch-size value {:?}: {e}", args.batch_size))?;
    if batch_size == 0 {
        return Err(format!(
            "Invalid -batch-size value {:?}: number value must be greater than zero",
            args.batch_size
        ));
    }
    let interactive = std::io::stdin().is_terminal() && std::io::stdout().is_terminal();
    let batch_wait = if args.batch_wait.eq_ignore_ascii_case("ask") {
        if !interactive && !args.yes {
            return Err(
                "Invalid -batch-wait value \"ask\": \"ask\" cannot be used when terminal is not interactive"
                    .into(),
            );
        }
        None
    } else {
        let nanos = nomad::api::duration::parse_go_duration(&args.batch_wait)
            .map_err(|e| format!("Invalid -batch-wait value {:?}: {e}", args.batch_wait))?;
        Some(Duration::from_nanos(nanos.max(0) as u64))
    };
    let fail_on_error = match args.on_error.as_str() {
        "ask" if !interactive && !args.yes => {
            return Err(
                "Invalid -on-error value \"ask\": \"ask\" cannot be used when terminal is not interactive"
                    .into(),
            )
        }
        "ask" => false,
        "fail" => true,
        other => {
            return Err(format!(
                "Invalid -on-error value {other:?}: valid options are \"ask\" and \"fail\""
            ))
        }
    };
    if args.all_tasks && !args.tasks.is_empty() {
        return Err("The -all-tasks option cannot be used with -task".into());
    }
    if args.reschedule && !args.tasks.is_empty() {
        return Err("The -reschedule option cannot be used with -task".into());
    }
    Ok(Plan {
        batch_size,
        batch_percent: percent,
        batch_wait,
        fail_on_error,
        groups: args.groups.iter().cloned().collect(),
        tasks: args.tasks.iter().cloned().collect(),
        length: if args.verbose { FULL_ID } else { SHORT_ID },
    })
}

pub async fn run(args: &Args, g: &GlobalArgs) -> anyhow::Result<i32> {
    let plan = match check(args) {
        Ok(p) => p,
        Err(e) => {
            output::err(e);
            output::err("For additional help try 'nomad job restart -help'");
            return Ok(1);
        }
    };
    let mut client = g.client()?;
    let job = meta::job_by_prefix(&client, g, args.job[0].trim()).await?;
    client.set_namespace(&job.namespace);
    if args.reschedule && !matches!(job.r#type.as_str(), "batch" | "service" | "system") {
        output::err(format!(
            "Jobs of type {:?} are not allowed to be rescheduled.",
            job.r#type
        ));
        return Ok(1);
    }
    let versions = match client.job_versions(&job.id, None).await {
        Ok((v, _)) => v,
        Err(e) => {
            output::err(format!(
                "Error retrieving versions of job {:?}: {e}",
                job.id
            ));
            return Ok(1);
        }
    };
    let stubs = match client.job_allocations(&job.id, true, None).await {
        Ok((a, _)) => a,
        Err(e) => {
            output::err(format!(
                "Error retrieving allocations for job {:?}: {e}",
                job.id
            ));
            return Ok(1);
        }
    };
    let targets = select(&stubs, &versions, &plan, args.verbose)?;
    if targets.is_empty() {
        output::out("No allocations to restart")?;
        return Ok(0);
    }
    let batch = if plan.batch_percent {
        (targets.len() * plan.batch_size).div_ceil(100).max(1)
    } else {
        plan.batch_size
    };
    let noun = if targets.len() == 1 {
        "allocation"
    } else {
        "allocations"
    };
    output::out(format!(
        "==> {}: Restarting {} {noun}",
        now(),
        targets.len()
    ))?;

    let mut errors: Vec<String> = Vec::new();
    let mut ask_each_batch = plan.batch_wait.is_none();
    let mut wait = plan.batch_wait.unwrap_or_default();
    let mut canceled = false;
    let chunks: Vec<&[AllocListStub]> = targets.chunks(batch).collect();
    for (i, chunk) in chunks.iter().enumerate() {
        if let Err(e) = no_active_deployment(&client, &job.id, plan.length).await {
            errors.push(e);
            break;
        }
        if batch > 1 {
            output::out(format!(
                "==> {}: Restarting {} batch of {} allocations",
                now(),
                ordinal(i + 1),
                chunk.len()
            ))?;
        }
        let results = futures::future::join_all(
            chunk
                .iter()
                .map(|a| handle_alloc(&client, a, &job, &plan, args)),
        )
        .await;
        let batch_errors: Vec<String> = results.into_iter().filter_map(Result::err).collect();
        let failed = !batch_errors.is_empty();
        errors.extend(batch_errors.iter().cloned());
        if i + 1 == chunks.len() {
            break;
        }
        if failed && plan.fail_on_error {
            output::out(format!("==> {}: Stopping job restart due to error", now()))?;
            break;
        }
        if !args.yes && (ask_each_batch || failed) {
            if failed {
                output::err(format!("==> {}: {}", now(), error_list(&batch_errors)));
            }
            match proceed(failed, ask_each_batch)? {
                Proceed::No => {
                    output::out(format!("==> {}: Job restart canceled", now()))?;
                    canceled = true;
                    break;
                }
                Proceed::Yes => {}
                Proceed::Wait(d) => {
                    ask_each_batch = false;
                    wait = d;
                    output::out(format!(
                        "==> {}: Proceeding restarts with new wait time of {}",
                        now(),
                        output::go_duration(d.as_nanos() as i64)
                    ))?;
                }
            }
        }
        if !wait.is_zero() {
            output::out(format!(
                "==> {}: Waiting {} before restarting the next batch",
                now(),
                output::go_duration(wait.as_nanos() as i64)
            ))?;
            tokio::time::sleep(wait).await;
        }
    }
    if !errors.is_empty() {
        if !canceled {
            output::out(format!("==> {}: Job restart finished with errors", now()))?;
        }
        output::err(format!("\n{}", error_list(&errors)));
        return Ok(1);
    }
    if !canceled {
        output::out(format!("==> {}: Job restart finished", now()))?;
        output::out("\nJob restarted successfully!")?;
    }
    Ok(0)
}

fn error_list(errors: &[String]) -> String {
    let noun = if errors.len() == 1 { "error" } else { "errors" };
    let points: Vec<String> = errors.iter().map(|e| format!("* {}", e.trim())).collect();
    format!(
        "{} {noun} occurred while restarting job:\n{}",
        errors.len(),
        points.join("\n")
    )
}

fn ordinal(n: usize) -> String {
    let suffix = match (n % 10, n % 100) {
        (_, 11..=13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}

/// The allocations to restart: running (or meant to run), not yet replaced, in the requested
/// groups and with one of the requested tasks; what is skipped is said with `-verbose`.
fn select(
    stubs: &[AllocListStub],
    versions: &[Job],
    plan: &Plan,
    verbose: bool,
) -> anyhow::Result<Vec<AllocListStub>> {
    let mut out = Vec::new();
    let skip = |why: String| -> anyhow::Result<()> {
        if verbose {
            output::out(format!("    {}: {why}", now()))?;
        }
        Ok(())
    };
    for a in stubs {
        let id = limit(&a.id, plan.length);
        if !(a.client_status == "running" || a.desired_status == "run") {
            skip(format!(
                "Skipping allocation {id:?} because desired status is {:?} and client status is {:?}",
                a.client_status, a.desired_status
            ))?;
            continue;
        }
        if !a.next_allocation.is_empty() {
            skip(format!(
                "Skipping allocation {id:?} because it has already been replaced by {:?}",
                limit(&a.next_allocation, plan.length)
            ))?;
            continue;
        }
        if !plan.groups.is_empty() && !plan.groups.contains(&a.task_group) {
            skip(format!(
                "Skipping allocation {id:?} because it doesn't have any of requested groups"
            ))?;
            continue;
        }
        if !plan.tasks.is_empty() && !plan.tasks.iter().any(|t| has_task(a, versions, t)) {
            skip(format!(
                "Skipping allocation {id:?} because it doesn't have any of requested tasks"
            ))?;
            continue;
        }
        out.push(a.clone());
    }
    Ok(out)
}

/// Whether the alloc's group, in the job version it runs, has `task`.
fn has_task(a: &AllocListStub, versions: &[Job], task: &str) -> bool {
    versions
        .iter()
        .find(|j| j.version == a.job_version)
        .and_then(|j| j.lookup_task_group(&a.task_group))
        .is_some_and(|g| g.tasks.iter().any(|t| t.name == task))
}

async fn no_active_deployment(client: &Client, job_id: &str, length: usize) -> Result<(), String> {
    let mut q = QueryOptions::default();
    q.params.push(("all".into(), "true".into()));
    let (list, _) = client
        .job_deployments(job_id, Some(&q))
        .await
        .map_err(|e| format!("Error retrieving deployments for job {job_id:?}: {e}"))?;
    for d in list {
        if !matches!(d.status.as_str(), "failed" | "successful" | "cancelled") {
            return Err(format!(
                "Deployment {:?} is {:?}",
                limit(&d.id, length),
                d.status
            ));
        }
    }
    Ok(())
}

async fn handle_alloc(
    client: &Client,
    a: &AllocListStub,
    job: &Job,
    plan: &Plan,
    args: &Args,
) -> Result<(), String> {
    let id = limit(&a.id, plan.length).to_string();
    let result = if args.reschedule {
        reschedule(client, a, job, plan, args.no_shutdown_delay).await
    } else {
        restart(client, a, plan, args.all_tasks).await
    };
    result.map_err(|e| format!("Error restarting allocation {id:?}: {e}"))
}

async fn restart(
    client: &Client,
    a: &AllocListStub,
    plan: &Plan,
    all_tasks: bool,
) -> Result<(), String> {
    let id = limit(&a.id, plan.length);
    let say =
        |text: String| output::out(format!("    {}: {text}", now())).map_err(|e| e.to_string());
    if all_tasks {
        say(format!(
            "Restarting all tasks in allocation {id:?} for group {:?}",
            a.task_group
        ))?;
        return client
            .alloc_restart(&a.id, "", true)
            .await
            .map_err(|e| e.to_string());
    }
    if plan.tasks.is_empty() {
        say(format!(
            "Restarting running tasks in allocation {id:?} for group {:?}",
            a.task_group
        ))?;
        return client
            .alloc_restart(&a.id, "", false)
            .await
            .map_err(|e| e.to_string());
    }
    let mut errors = Vec::new();
    for task in &plan.tasks {
        let in_alloc = a.task_states.as_ref().is_some_and(|s| s.contains_key(task));
        if !in_alloc {
            continue;
        }
        say(format!(
            "Restarting task {task:?} in allocation {id:?} for group {:?}",
            a.task_group
        ))?;
        if let Err(e) = client.alloc_restart(&a.id, task, false).await {
            errors.push(format!("Failed to restart task {task:?}: {e}"));
        }
    }
    if errors.is_empty() {
        Ok(())
    } else {
        Err(errors.join("; "))
    }
}

/// Stop the alloc and follow its replacements until one runs; a blocked eval with failures
/// for the group ends the wait with the placement failure.
async fn reschedule(
    client: &Client,
    a: &AllocListStub,
    job: &Job,
    plan: &Plan,
    no_shutdown_delay: bool,
) -> Result<(), String> {
    let short = |id: &str| limit(id, plan.length).to_string();
    output::out(format!(
        "    {}: Rescheduling allocation {:?} for group {:?}",
        now(),
        short(&a.id),
        a.task_group
    ))
    .map_err(|e| e.to_string())?;
    client
        .alloc_stop(&a.id, no_shutdown_delay)
        .await
        .map_err(|e| format!("Failed to stop allocation: {e}"))?;
    if job.r#type == "system" {
        client
            .evaluate_job(&job.id, true)
            .await
            .map_err(|e| format!("Failed evaluate job: {e}"))?;
    }
    let started = std::time::Instant::now();
    let mut last_note = started;
    let mut current = a.id.clone();
    loop {
        let (alloc, _) = client
            .allocation(&current, None)
            .await
            .map_err(|e| format!("Failed to retrieve allocation {:?}: {e}", short(&current)))?;
        if !alloc.next_allocation.is_empty() {
            output::out(format!(
                "    {}: Allocation {:?} replaced by {:?}, waiting for {:?} to start running",
                now(),
                short(&alloc.id),
                short(&alloc.next_allocation),
                short(&alloc.next_allocation)
            ))
            .map_err(|e| e.to_string())?;
            current = alloc.next_allocation.clone();
            continue;
        }
        if alloc.id != a.id && alloc.client_status == "running" {
            output::out(format!(
                "    {}: Allocation {:?} is {:?}",
                now(),
                short(&alloc.id),
                alloc.client_status
            ))
            .map_err(|e| e.to_string())?;
            return Ok(());
        }
        if let Some(e) =
            placement_failure(client, job, &a.task_group, alloc.modify_index, plan).await
        {
            return Err(e);
        }
        if last_note.elapsed() >= Duration::from_secs(60) {
            last_note = std::time::Instant::now();
            output::out(format!(
                "    {}: Still waiting for allocation {:?} to be replaced",
                now(),
                short(&a.id)
            ))
            .map_err(|e| e.to_string())?;
        }
        tokio::time::sleep(Duration::from_millis(250)).await;
    }
}

/// A blocked eval of the job, newer than `since`, that could not place the group.
async fn placement_failure(
    client: &Client,
    job: &Job,
    group: &str,
    since: u64,
    plan: &Plan,
) -> Option<String> {
    let (evals, _) = client.job_evaluations(&job.id, None).await.ok()?;
    evals
        .iter()
        .filter(|e| e.create_index >= since && e.status == "blocked")
        .find(|e| {
            e.failed_tg_allocs
                .as_ref()
                .is_some_and(|f| f.contains_key(group))
        })
        .map(|e| {
            format!(
                "Evaluation {:?} has placement failures for group {group:?}",
                limit(&e.id, plan.length)
            )
        })
}

enum Proceed {
    Yes,
    No,
    Wait(Duration),
}

/// Nomad's question between batches; an answer that is a duration sets the wait from then on.
fn proceed(failed: bool, durations_allowed: bool) -> anyhow::Result<Proceed> {
    let (question, mut options) = if failed {
        (
            "Ignore the errors above and proceed with the next batch?",
            "y/N".to_string(),
        )
    } else {
        ("Proceed with the next batch?", "Y/n".to_string())
    };
    if durations_allowed {
        options.push_str("/<wait duration>");
    }
    loop {
        output::out(format!("==> {}: {question} [{options}]", now()))?;
        let mut answer = String::new();
        std::io::stdin()
            .read_line(&mut answer)
            .map_err(|e| anyhow!("Failed to read answer: {e}"))?;
        let answer = answer.trim().to_lowercase();
        match answer.as_str() {
            "" => return Ok(if failed { Proceed::No } else { Proceed::Yes }),
            "y" | "yes" => return Ok(Proceed::Yes),
            "n" | "no" => return Ok(Proceed::No),
            other if durations_allowed => match nomad::api::duration::parse_go_duration(other) {
                Ok(n) => return Ok(Proceed::Wait(Duration::from_nanos(n.max(0) as u64))),
                Err(_) => output::out(format!("{}Invalid answer {other:?}", " ".repeat(31)))?,
            },
            other => output::out(format!("{}Invalid answer {other:?}", " ".repeat(31)))?,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(f: impl FnOnce(&mut Args)) -> Args {
        let mut a = Args {
            global: GlobalArgs::default(),
            all_tasks: false,
            batch_size: "1".into(),
            batch_wait: "0s".into(),
            groups: vec![],
            tasks: vec![],
            on_error: "fail".into(),
            no_shutdown_delay: false,
            reschedule: false,
            yes: false,
            verbose: false,
            job: vec!["web".into()],
        };
        f(&mut a);
        a
    }

    #[test]
    fn options_are_checked_like_nomad() {
        let err = |a: Args| check(&a).err().unwrap_or_default();
        assert!(
            err(args(|a| a.batch_size = "x".into())).contains("must be an integer or a percentage")
        );
        assert!(err(args(|a| a.batch_size = "0".into())).contains("greater than zero"));
        assert!(err(args(|a| a.on_error = "maybe".into()))
            .contains("valid options are \"ask\" and \"fail\""));
        assert!(err(args(|a| {
            a.all_tasks = true;
            a.tasks = vec!["t".into()];
        }))
        .contains("-all-tasks option cannot be used with -task"));
        assert!(err(args(|a| a.batch_wait = "soon".into())).contains("Invalid -batch-wait value"));
        assert!(err(args(|a| a.job.clear())).contains("takes one argument"));
        let p = check(&args(|a| a.batch_size = "50%".into())).expect("valid");
        assert!(p.batch_percent && p.batch_size == 50);
        assert_eq!(
            (ordinal(1), ordinal(2), ordinal(3), ordinal(11), ordinal(22)),
            (
                "1st".into(),
                "2nd".into(),
                "3rd".into(),
                "11th".into(),
                "22nd".into()
            )
        );
    }
}
