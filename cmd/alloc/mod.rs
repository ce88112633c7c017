//! `nomad alloc ...`: interact with allocations.

pub mod logs;
pub mod status;

use clap::Subcommand;

#[derive(Debug, Subcommand)]
pub enum AllocCommand {
    /// Display allocation status information and metadata
    Status(status::Args),
    /// Streams the logs of a task
    Logs(logs::Args),
}

pub async fn run(cmd: &AllocCommand) -> anyhow::Result<i32> {
    match cmd {
        AllocCommand::Status(a) => status::run(a, &a.global).await,
        AllocCommand::Logs(a) => logs::run(a, &a.global).await,
    }
}
