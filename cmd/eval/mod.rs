//! `nomad eval ...`: interact with evaluations.

pub mod list;
pub mod status;

use clap::Subcommand;

#[derive(Debug, Subcommand)]
pub enum EvalCommand {
    /// Display evaluation status and placement failure reasons
    Status(status::Args),
    /// List the set of evaluations processed by Nomad
    List(list::Args),
}

pub async fn run(cmd: &EvalCommand) -> anyhow::Result<i32> {
    match cmd {
        EvalCommand::Status(a) => status::run(a, &a.global).await,
        EvalCommand::List(a) => list::run(a, &a.global).await,
    }
}
