//! `nomad node meta apply|read`: change or show a client's dynamic node metadata.

use std::collections::BTreeMap;

use anyhow::anyhow;
use clap::Subcommand;
use nomad::api::client::Client;
use nomad::api::NodeMetaApplyRequest;

use super::lookup::one_node;
use crate::meta::GlobalArgs;
use crate::output::{self, format_kv};

#[derive(Debug, Subcommand)]
pub enum MetaCommand {
    /// Modify node metadata
    Apply(ApplyArgs),
    /// Read node metadata
    Read(ReadArgs),
}

#[derive(Debug, Clone, Default, clap::Args)]
pub struct ApplyArgs {
    #[command(flatten)]
    pub global: GlobalArgs,
    /// Updates metadata on the specified node (default: the agent's own).
    #[arg(long = "node-id")]
    pub node_id: Option<String>,
    /// Comma separated keys to unset.
    #[arg(long)]
    pub unset: Option<String>,
    /// key=value pairs to set.
    pub pairs: Vec<String>,
}

#[derive(Debug, Clone, Default, clap::Args)]
pub struct ReadArgs {
    #[command(flatten)]
    pub global: GlobalArgs,
    /// Reads metadata from the specified node (default: the agent's own).
    #[arg(long = "node-id")]
    pub node_id: Option<String>,
    /// Output the metadata in its JSON format.
    #[arg(long)]
    pub json: bool,
    /// Format and display the output using a Go template.
    #[arg(short = 't', value_name = "TEMPLATE")]
    pub template: Option<String>,
}

pub async fn run(cmd: &MetaCommand) -> anyhow::Result<i32> {
    match cmd {
        MetaCommand::Apply(a) => apply(a).await,
        MetaCommand::Read(a) => read(a).await,
    }
}

async fn node_id(client: &Client, id: Option<&str>) -> anyhow::Result<String> {
    match id {
        Some(id) => Ok(one_node(client, Some(id), false, "Error querying node")
            .await?
            .id),
        None => Ok(String::new()),
    }
}

/// Nomad's `parseMapFromArgs` plus `-unset`: `k=v` sets, a bare `k` sets "", unset keys map
/// to `None`.
fn changes(pairs: &[String], unset: Option<&str>) -> BTreeMap<String, Option<String>> {
    let mut m = BTreeMap::new();
    for pair in pairs {
        let (k, v) = pair.split_once('=').unwrap_or((pair, ""));
        m.insert(k.to_string(), Some(v.to_string()));
    }
    for k in unset.unwrap_or("").split(',').filter(|k| !k.is_empty()) {
        m.insert(k.to_string(), None);
    }
    m
}

async fn apply(args: &ApplyArgs) -> anyhow::Result<i32> {
    if args.pairs.is_empty() && args.unset.as_deref().is_none_or(str::is_empty) {
        output::err("Must specify -unset or at least 1 key=value pair");
        return Ok(1);
    }
    let client = args.global.client()?;
    let node_id = node_id(&client, args.node_id.as_deref()).await?;
    let req = NodeMetaApplyRequest {
        node_id,
        meta: changes(&args.pairs, args.unset.as_deref()),
    };
    client
        .node_meta_apply(&req)
        .await
        .map_err(|e| anyhow!("Error applying dynamic node metadata: {e}"))?;
    Ok(0)
}

fn kv(meta: impl Iterator<Item = (String, String)>) -> String {
    let rows: Vec<String> = meta
        .filter(|(k, _)| !k.is_empty())
        .map(|(k, v)| format!("{k}|{v}"))
        .collect();
    format_kv(&rows)
}

async fn read(args: &ReadArgs) -> anyhow::Result<i32> {
    let client = args.global.client()?;
    let node_id = node_id(&client, args.node_id.as_deref()).await?;
    let id = (!node_id.is_empty()).then_some(node_id.as_str());
    let (meta, _) = client
        .node_meta_read(id)
        .await
        .map_err(|e| anyhow!("Error reading dynamic node metadata: {e}"))?;
    if output::wants_formatted(args.json, args.template.as_deref()) {
        return Ok(output::print_formatted(
            args.json,
            args.template.as_deref(),
            &meta,
        )?);
    }
    output::out("All Meta")?;
    output::out(kv(meta.meta.into_iter()))?;
    output::out("\nDynamic Meta")?;
    let dynamic = meta
        .dynamic
        .into_iter()
        .map(|(k, v)| (k, v.unwrap_or_else(|| "<unset>".to_string())));
    output::out(kv(dynamic))?;
    output::out("\nStatic Meta")?;
    output::out(kv(meta.static_.into_iter()))?;
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_and_unset_become_changes() {
        let pairs = vec!["a=1".to_string(), "b".to_string(), "c=x=y".to_string()];
        let m = changes(&pairs, Some("d,,e"));
        assert_eq!(m["a"].as_deref(), Some("1"));
        assert_eq!(m["b"].as_deref(), Some(""));
        assert_eq!(m["c"].as_deref(), Some("x=y"));
        assert_eq!(m["d"], None);
        assert_eq!(m["e"], None);
        assert_eq!(m.len(), 5);
    }
}
