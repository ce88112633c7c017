//! `nomad server ...`: interact with servers.

pub mod force_leave;
pub mod join;
pub mod members;

use clap::Subcommand;

#[derive(Debug, Subcommand)]
pub enum ServerCommand {
    /// Display a list of known servers and their status
    Members(members::Args),
    /// Join server nodes together
    Join(join::Args),
    /// Force a server into the 'left' state
    #[command(name = "force-leave")]
    ForceLeave(force_leave::Args),
}

pub async fn run(cmd: &ServerCommand) -> anyhow::Result<i32> {
    match cmd {
        ServerCommand::Members(a) => members::run(a, &a.global).await,
        ServerCommand::Join(a) => join::run(a, &a.global).await,
        ServerCommand::ForceLeave(a) => force_leave::run(a, &a.global).await,
    }
}
