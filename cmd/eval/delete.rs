//! `nomad eval delete [options] <evaluation>`: remove an evaluation while the broker is paused.

use anyhow::anyhow;

use crate::meta::{self, GlobalArgs};
use crate::output;

#[derive(Debug, Clone, Default, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub global: GlobalArgs,
    /// Delete the evaluations matching this filter expression (see `nomad eval list -filter`).
    #[arg(long, value_name = "EXPR")]
    pub filter: Option<String>,
    /// Bypass the confirmation prompt.
    #[arg(long)]
    pub yes: bool,
    /// The evaluation ID or prefix.
    pub evals: Vec<String>,
}

pub async fn run(args: &Args, g: &GlobalArgs) -> anyhow::Result<i32> {
    let filter = args.filter.as_deref().unwrap_or("");
    if (filter.is_empty() && args.evals.is_empty())
        || (!filter.is_empty() && !args.evals.is_empty())
    {
        return Err(anyhow!(
            "Error validating command args and flags: evaluation ID or filter flag required"
        ));
    }
    if args.evals.len() > 1 {
        return Err(anyhow!(
            "Error validating command args and flags: expected 1 argument, got {}",
            args.evals.len()
        ));
    }
    let client = g.client()?;
    // As Nomad's CLI: refuse up front, with the way out, while the broker runs.
    let (config, _): (serde_json::Value, _) = client
        .query("/v1/operator/scheduler/configuration", None)
        .await
        .map_err(|e| anyhow!("Error querying scheduler configuration: {e}"))?;
    if config["SchedulerConfig"]["PauseEvalBroker"] != serde_json::Value::Bool(true) {
        output::err("Eval broker is not paused");
        output::out(
            "To delete evaluations you must first pause the eval broker by running \"nomad operator scheduler set-config -pause-eval-broker=true\"",
        )?;
        output::out(
            "After the deletion is complete, unpause the eval broker by running \"nomad operator scheduler set-config -pause-eval-broker=false\"",
        )?;
        return Ok(1);
    }
    let deleted = if filter.is_empty() {
        let evals = meta::evals_by_prefix(&client, &args.evals[0]).await?;
        if evals.len() > 1 {
            return Err(anyhow!(
                "Prefix matched multiple evaluations\n\n{}",
                super::status::eval_list(&evals, false)
            ));
        }
        client.delete_evaluations(&[evals[0].id.clone()], "").await
    } else {
        if !args.yes {
            let q = output::filter_query(Some(filter));
            let count = match client.evaluations_count(Some(&q)).await {
                Ok(n) => n,
                Err(e) => {
                    output::err(format!("Error deleting evaluations: {e}"));
                    return Ok(1);
                }
            };
            let question = format!("Are you sure you want to delete {count} evals? [y/N]");
            if let Some(code) = output::confirm(&question, "Cancelling eval deletion")? {
                return Ok(code);
            }
            output::out("")?;
        }
        client.delete_evaluations(&[], filter).await
    };
    match deleted {
        Ok(n) if n > 0 => {
            let noun = if n > 1 { "evaluations" } else { "evaluation" };
            output::out(format!("Successfully deleted {n} {noun}"))?;
            Ok(0)
        }
        Ok(_) => {
            output::out("No evaluations were deleted")?;
            Ok(0)
        }
        Err(e) => {
            output::err(format!("Error deleting evaluations: {e}"));
            Ok(1)
        }
    }
}
