//! `nomad system gc` and `nomad system reconcile summaries`.

use anyhow::Context as _;
use clap::Subcommand;

use crate::meta::GlobalArgs;

#[derive(Debug, Subcommand)]
pub enum SystemCommand {
    /// Run the system garbage collection process
    Gc(GcArgs),
    /// Perform system reconciliation tasks
    #[command(subcommand)]
    Reconcile(ReconcileCommand),
}

#[derive(Debug, Subcommand)]
pub enum ReconcileCommand {
    /// Reconciles the summaries of all registered jobs
    Summaries(GcArgs),
}

#[derive(Debug, Clone, Default, clap::Args)]
pub struct GcArgs {
    #[command(flatten)]
    pub global: GlobalArgs,
}

pub async fn run(cmd: &SystemCommand) -> anyhow::Result<i32> {
    match cmd {
        SystemCommand::Gc(a) => {
            a.global
                .client()?
                .system_gc()
                .await
                .context("Error running system garbage-collection")?;
        }
        SystemCommand::Reconcile(ReconcileCommand::Summaries(a)) => {
            a.global
                .client()?
                .system_reconcile_summaries()
                .await
                .context("Error running system summary reconciliation")?;
        }
    }
    Ok(0)
}
