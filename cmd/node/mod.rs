//! `nomad node ...`: interact with client nodes.

pub mod status;

use clap::Subcommand;

#[derive(Debug, Subcommand)]
pub enum NodeCommand {
    /// Display status information about nodes
    Status(status::Args),
}

pub async fn run(cmd: &NodeCommand) -> anyhow::Result<i32> {
    match cmd {
        NodeCommand::Status(a) => status::run(a, &a.global).await,
    }
}
