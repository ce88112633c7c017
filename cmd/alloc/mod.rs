//! `nomad alloc ...`: interact with allocations.

pub mod actions;
pub mod checks;
pub mod exec;
pub mod fs;
pub mod logs;
pub mod status;
mod status_stats;
mod target;

use clap::Subcommand;

#[derive(Debug, Subcommand)]
pub enum AllocCommand {
    /// Display allocation status information and metadata
    Status(status::Args),
    /// Streams the logs of a task
    Logs(logs::Args),
    /// Inspect the contents of an allocation directory
    Fs(fs::Args),
    /// Execute commands in task
    Exec(exec::Args),
    /// Outputs service health check status information.
    Checks(checks::Args),
    /// Stop and reschedule a running allocation
    Stop(actions::StopArgs),
    /// Restart a running allocation
    Restart(actions::RestartArgs),
    /// Signal a running allocation
    Signal(actions::SignalArgs),
}

pub async fn run(cmd: &AllocCommand) -> anyhow::Result<i32> {
    match cmd {
        AllocCommand::Status(a) => status::run(a, &a.global).await,
        AllocCommand::Logs(a) => logs::run(a, &a.global).await,
        AllocCommand::Fs(a) => fs::run(a, &a.global).await,
        AllocCommand::Exec(a) => exec::run(a, &a.global).await,
        AllocCommand::Checks(a) => checks::run(a, &a.global).await,
        AllocCommand::Stop(a) => actions::stop(a, &a.global).await,
        AllocCommand::Restart(a) => actions::restart(a, &a.global).await,
        AllocCommand::Signal(a) => actions::signal(a, &a.global).await,
    }
}
