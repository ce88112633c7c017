//! `nomad operator ...`: cluster-wide operator tools.

pub mod api;
pub mod scheduler;

use clap::Subcommand;

#[derive(Debug, Subcommand)]
pub enum OperatorCommand {
    /// Query Nomad's HTTP API like curl
    Api(api::Args),
    /// Provides access to the scheduler configuration
    #[command(subcommand)]
    Scheduler(scheduler::SchedulerCommand),
}

pub async fn run(cmd: &OperatorCommand) -> anyhow::Result<i32> {
    match cmd {
        OperatorCommand::Api(a) => api::run(a).await,
        OperatorCommand::Scheduler(c) => scheduler::run(c).await,
    }
}
