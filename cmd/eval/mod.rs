//! `nomad eval ...`: interact with evaluations.

pub mod delete;
pub mod list;
pub mod status;

use clap::Subcommand;

#[derive(Debug, Subcommand)]
pub enum EvalCommand {
    /// Delete evaluations
    Delete(delete::Args),
    /// List the set of evaluations processed by Nomad
    List(list::Args),
    /// Display evaluation status and placement failure reasons
    Status(status::Args),
}

pub async fn run(cmd: &EvalCommand) -> anyhow::Result<i32> {
    match cmd {
        EvalCommand::Delete(a) => delete::run(a, &a.global).await,
        EvalCommand::List(a) => list::run(a, &a.global).await,
        EvalCommand::Status(a) => status::run(a, &a.global).await,
    }
}
