//! `nomad node ...`: interact with client nodes.

pub mod drain;
mod drain_monitor;
pub mod eligibility;
mod lookup;
pub mod node_meta;
pub mod status;

use clap::Subcommand;

#[derive(Debug, Subcommand)]
pub enum NodeCommand {
    /// Display status information about nodes
    Status(status::Args),
    /// Toggle drain mode on a given node
    Drain(drain::Args),
    /// Toggle scheduling eligibility for a given node
    Eligibility(eligibility::Args),
    /// Interact with node metadata
    #[command(subcommand)]
    Meta(node_meta::MetaCommand),
}

pub async fn run(cmd: &NodeCommand) -> anyhow::Result<i32> {
    match cmd {
        NodeCommand::Status(a) => status::run(a, &a.global).await,
        NodeCommand::Drain(a) => drain::run(a, &a.global).await,
        NodeCommand::Eligibility(a) => eligibility::run(a, &a.global).await,
        NodeCommand::Meta(c) => node_meta::run(c).await,
    }
}
