//! Finding the one node a node subcommand acts on: by ID prefix or `-self`.

use anyhow::{anyhow, Context as _};
use nomad::api::client::{Client, QueryOptions};
use nomad::api::NodeListStub;

use super::status::{local_node_id, stub_list};
use crate::meta::sanitize_uuid_prefix;

/// The node named by `id` (a prefix) or, with `self_`, the agent's own node. `context` heads
/// lookup errors ("Error toggling drain mode").
pub async fn one_node(
    client: &Client,
    id: Option<&str>,
    self_: bool,
    context: &str,
) -> anyhow::Result<NodeListStub> {
    let id = match (id, self_) {
        (_, true) => local_node_id(client).await?,
        (Some(id), false) => id.to_string(),
        (None, false) => {
            return Err(anyhow!(
                "Node ID must be specified if -self isn't being used"
            ))
        }
    };
    if id.len() == 1 {
        return Err(anyhow!("Identifier must contain at least two characters."));
    }
    let id = sanitize_uuid_prefix(&id).to_string();
    let (nodes, _) = client
        .nodes(Some(&QueryOptions::prefix(&id)))
        .await
        .with_context(|| context.to_string())?;
    match nodes.len() {
        0 => Err(anyhow!("No node(s) with prefix or id {id:?} found")),
        1 => Ok(nodes.into_iter().next().unwrap_or_default()),
        _ => Err(anyhow!(
            "Prefix matched multiple nodes\n\n{}",
            stub_list(&nodes, true)
        )),
    }
}
