//! `nomad server ...`: interact with servers.

pub mod members;

use clap::Subcommand;

#[derive(Debug, Subcommand)]
pub enum ServerCommand {
    /// Display a list of known servers and their status
    Members(members::Args),
}

pub async fn run(cmd: &ServerCommand) -> anyhow::Result<i32> {
    match cmd {
        ServerCommand::Members(a) => members::run(a, &a.global).await,
    }
}
