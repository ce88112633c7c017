//! `nomad eval ...`: interact with evaluations.

pub mod status;

use clap::Subcommand;

#[derive(Debug, Subcommand)]
pub enum EvalCommand {
    /// Display evaluation status and placement failure reasons
    Status(status::Args),
}

pub async fn run(cmd: &EvalCommand) -> anyhow::Result<i32> {
    match cmd {
        EvalCommand::Status(a) => status::run(a, &a.global).await,
    }
}
