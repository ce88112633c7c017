//! `nomad status [options] [identifier]`: with no argument, the job list; otherwise resolve the
//! identifier (a prefix of a job, allocation, node or evaluation ID) and show that object.

use std::collections::BTreeMap;

use anyhow::anyhow;
use nomad::api::client::{self, Client, QueryOptions};

use crate::meta::{sanitize_uuid_prefix, GlobalArgs};
use crate::output;

#[derive(Debug, Clone, Default, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub global: GlobalArgs,
    /// Display full information.
    #[arg(long)]
    pub verbose: bool,
    /// A job, allocation, node or evaluation ID, or a prefix of one.
    pub identifier: Option<String>,
}

pub async fn run(args: &Args, g: &GlobalArgs) -> anyhow::Result<i32> {
    let Some(id) = args.identifier.as_deref() else {
        let a = crate::job::status::Args {
            verbose: args.verbose,
            global: g.clone(),
            ..Default::default()
        };
        return crate::job::status::run(&a, g).await;
    };
    let client = g.client()?;
    let matches = search(&client, id).await?;

    let mut exact: Vec<&str> = matches
        .iter()
        .filter(|(_, ids)| ids.first().map(String::as_str) == Some(id))
        .map(|(ctx, _)| ctx.as_str())
        .collect();
    let chosen = match exact.len() {
        1 => exact.remove(0).to_string(),
        0 => {
            let mut single = None;
            for (ctx, ids) in &matches {
                if ids.len() > 1 || (ids.len() == 1 && single.is_some()) {
                    multi_match_error(id, &matches);
                    return Ok(1);
                }
                if ids.len() == 1 {
                    single = Some(ctx.clone());
                }
            }
            single.unwrap_or_default()
        }
        _ => {
            multi_match_error(id, &matches);
            return Ok(1);
        }
    };

    let verbose = args.verbose;
    let id = id.to_string();
    match chosen.as_str() {
        "evals" => {
            let a = crate::eval::status::Args {
                verbose,
                global: g.clone(),
                eval: id,
                ..Default::default()
            };
            crate::eval::status::run(&a, g).await
        }
        "nodes" => {
            let a = crate::node::status::Args {
                verbose,
                global: g.clone(),
                node: Some(id),
                ..Default::default()
            };
            crate::node::status::run(&a, g).await
        }
        "allocs" => {
            let a = crate::alloc::status::Args {
                verbose,
                global: g.clone(),
                alloc: Some(id),
                ..Default::default()
            };
            crate::alloc::status::run(&a, g).await
        }
        "jobs" => {
            let a = crate::job::status::Args {
                verbose,
                global: g.clone(),
                job: Some(id),
                ..Default::default()
            };
            crate::job::status::run(&a, g).await
        }
        _ => Err(anyhow!("Unable to resolve ID: {id:?}")),
    }
}

/// Context -> matching IDs. Uses the agent's `/v1/search`; an agent without it is asked for
/// each kind of object by prefix instead.
async fn search(client: &Client, id: &str) -> anyhow::Result<BTreeMap<String, Vec<String>>> {
    match client.search(id, "all").await {
        Ok(resp) => Ok(resp
            .matches
            .into_iter()
            .map(|(ctx, ids)| (ctx, ids.unwrap_or_default()))
            .collect()),
        Err(e) if client::is_missing_endpoint(&e) => prefix_lookups(client, id).await,
        Err(e) => Err(anyhow!(
            "Error querying search with id: {:?}",
            e.to_string()
        )),
    }
}

async fn prefix_lookups(
    client: &Client,
    id: &str,
) -> anyhow::Result<BTreeMap<String, Vec<String>>> {
    let err =
        |e: client::ClientError| anyhow!("Error querying search with id: {:?}", e.to_string());
    let uuid = QueryOptions::prefix(sanitize_uuid_prefix(id));
    let mut m = BTreeMap::new();
    let (jobs, _) = client
        .jobs(Some(&QueryOptions::prefix(id)))
        .await
        .map_err(err)?;
    m.insert("jobs".into(), jobs.into_iter().map(|j| j.id).collect());
    let (allocs, _) = client.allocations(Some(&uuid)).await.map_err(err)?;
    m.insert("allocs".into(), allocs.into_iter().map(|a| a.id).collect());
    let (nodes, _) = client.nodes(Some(&uuid)).await.map_err(err)?;
    m.insert("nodes".into(), nodes.into_iter().map(|n| n.id).collect());
    let (evals, _) = client.evaluations(Some(&uuid)).await.map_err(err)?;
    m.insert("evals".into(), evals.into_iter().map(|e| e.id).collect());
    Ok(m)
}

fn multi_match_error(id: &str, matches: &BTreeMap<String, Vec<String>>) {
    output::err(format!("Multiple matches found for id {id:?}"));
    for (ctx, ids) in matches {
        if ids.is_empty() {
            continue;
        }
        let mut title = ctx.clone();
        if let Some(first) = title.get_mut(0..1) {
            first.make_ascii_uppercase();
        }
        output::err(format!("\n{title}:"));
        output::err(ids.join(", "));
    }
}
