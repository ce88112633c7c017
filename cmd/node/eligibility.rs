//! `nomad node eligibility [options] <node>`: toggle whether a node takes new placements.

use anyhow::anyhow;

use super::lookup::one_node;
use crate::meta::GlobalArgs;
use crate::output;

#[derive(Debug, Clone, Default, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub global: GlobalArgs,
    /// Enable scheduling eligibility.
    #[arg(long)]
    pub enable: bool,
    /// Disable scheduling eligibility.
    #[arg(long)]
    pub disable: bool,
    /// Set the eligibility of the local node.
    #[arg(long = "self")]
    pub self_: bool,
    /// The node ID or prefix.
    pub node: Option<String>,
}

pub async fn run(args: &Args, g: &GlobalArgs) -> anyhow::Result<i32> {
    let hint = "For additional help try 'nomad node eligibility -help'";
    if args.enable == args.disable {
        output::err("Either the '-enable' or '-disable' flag must be set");
        output::err(hint);
        return Ok(1);
    }
    if args.node.is_some() == args.self_ {
        output::err("Node ID must be specified if -self isn't being used");
        output::err(hint);
        return Ok(1);
    }
    let client = g.client()?;
    let node = one_node(
        &client,
        args.node.as_deref(),
        args.self_,
        "Error updating scheduling eligibility",
    )
    .await?;
    client
        .node_toggle_eligibility(&node.id, args.enable)
        .await
        .map_err(|e| anyhow!("Error updating scheduling eligibility: {e}"))?;
    let state = if args.enable {
        "eligible"
    } else {
        "ineligible"
    };
    output::out(format!(
        "Node {:?} scheduling eligibility set: {state} for scheduling",
        node.id
    ))?;
    Ok(0)
}
