//! `nomad alloc stop|restart|signal`: act on one allocation.

use anyhow::anyhow;
use serde_json::Value;

use super::target;
use crate::meta::GlobalArgs;
use crate::monitor;
use crate::output::{self, FULL_ID, SHORT_ID};

#[derive(Debug, Clone, Default, clap::Args)]
pub struct StopArgs {
    #[command(flatten)]
    pub global: GlobalArgs,
    /// Return immediately instead of monitoring the eval.
    #[arg(long)]
    pub detach: bool,
    /// Ignore the group and tasks' shutdown_delay.
    #[arg(long = "no-shutdown-delay")]
    pub no_shutdown_delay: bool,
    #[arg(long)]
    pub verbose: bool,
    pub alloc: Vec<String>,
}

#[derive(Debug, Clone, Default, clap::Args)]
pub struct RestartArgs {
    #[command(flatten)]
    pub global: GlobalArgs,
    /// Restart every task of the allocation, including dead prestart and poststart tasks.
    #[arg(long = "all-tasks")]
    pub all_tasks: bool,
    /// The task to restart.
    #[arg(long, default_value = "")]
    pub task: String,
    #[arg(long)]
    pub verbose: bool,
    /// `<alloc> [<task>]`
    pub args: Vec<String>,
}

#[derive(Debug, Clone, Default, clap::Args)]
pub struct SignalArgs {
    #[command(flatten)]
    pub global: GlobalArgs,
    /// The signal to send.
    #[arg(short = 's', default_value = "SIGKILL")]
    pub signal: String,
    /// The task to signal.
    #[arg(long, default_value = "")]
    pub task: String,
    #[arg(long)]
    pub verbose: bool,
    /// `<alloc> [<task>]`
    pub args: Vec<String>,
}

pub async fn stop(args: &StopArgs, g: &GlobalArgs) -> anyhow::Result<i32> {
    let [id] = args.alloc.as_slice() else {
        output::err("This command takes one argument: <alloc-id>");
        output::err("For additional help try 'nomad alloc stop -help'");
        return Ok(1);
    };
    let client = g.client()?;
    let alloc = target::resolve(&client, id, args.verbose).await?;
    let resp: Value = client
        .alloc_stop(&alloc.id, args.no_shutdown_delay)
        .await
        .map_err(|e| anyhow!("Error stopping allocation: {e}"))?;
    let eval_id = resp
        .get("EvalID")
        .and_then(Value::as_str)
        .unwrap_or_default()
        .to_string();
    if args.detach {
        output::out(&eval_id)?;
        return Ok(0);
    }
    let length = if args.verbose { FULL_ID } else { SHORT_ID };
    monitor::monitor(&client, &eval_id, length).await
}

/// `<alloc> [<task>]` plus `-task`: the positional task wins, as in Nomad.
fn alloc_and_task<'a>(args: &'a [String], flag: &'a str) -> Option<(&'a str, &'a str)> {
    match args {
        [alloc] => Some((alloc, flag)),
        [alloc, task] => Some((alloc, task)),
        _ => None,
    }
}

pub async fn restart(args: &RestartArgs, g: &GlobalArgs) -> anyhow::Result<i32> {
    let Some((id, task)) = alloc_and_task(&args.args, &args.task) else {
        output::err("This command takes one or two arguments: <alloc-id> <task-name>");
        output::err("For additional help try 'nomad alloc restart -help'");
        return Ok(1);
    };
    if !task.is_empty() && args.all_tasks {
        output::err("The -all-tasks option is not allowed when restarting a specific task.");
        return Ok(1);
    }
    let client = g.client()?;
    let alloc = target::resolve(&client, id, args.verbose).await?;
    if !task.is_empty() {
        super::logs::validate_task(task, &alloc)?;
    }
    if let Err(e) = client.alloc_restart(&alloc.id, task, args.all_tasks).await {
        let target = if task.is_empty() {
            "allocation"
        } else {
            "task"
        };
        output::err(format!("Failed to restart {target}:\n\n{e}"));
        return Ok(1);
    }
    Ok(0)
}

pub async fn signal(args: &SignalArgs, g: &GlobalArgs) -> anyhow::Result<i32> {
    let Some((id, task)) = alloc_and_task(&args.args, &args.task) else {
        output::err("This command takes up to two arguments: <alloc-id> <task>");
        output::err("For additional help try 'nomad alloc signal -help'");
        return Ok(1);
    };
    let client = g.client()?;
    let alloc = target::resolve(&client, id, args.verbose).await?;
    if !task.is_empty() {
        super::logs::validate_task(task, &alloc)?;
    }
    client
        .alloc_signal(&alloc.id, task, &args.signal)
        .await
        .map_err(|e| anyhow!("Error signalling allocation: {e}"))?;
    Ok(0)
}
