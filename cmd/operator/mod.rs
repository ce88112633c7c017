//! `nomad operator ...`: cluster-wide operator tools.

pub mod scheduler;

use clap::Subcommand;

#[derive(Debug, Subcommand)]
pub enum OperatorCommand {
    /// Provides access to the scheduler configuration
    #[command(subcommand)]
    Scheduler(scheduler::SchedulerCommand),
}

pub async fn run(cmd: &OperatorCommand) -> anyhow::Result<i32> {
    match cmd {
        OperatorCommand::Scheduler(c) => scheduler::run(c).await,
    }
}
