//! Shared by the alloc subcommands: resolve `<alloc>` (an ID prefix, or with `-job` a job
//! whose running alloc is picked at random, as Nomad's `getRandomJobAllocID`) to the full
//! allocation, and pick or validate its task.

use anyhow::{anyhow, Context as _};
use nomad::api::client::{Client, QueryOptions};
use nomad::api::{Allocation, ALLOC_CLIENT_RUNNING};
use rand::seq::IndexedRandom;

use crate::meta::{self, AllocLookup, GlobalArgs};
use crate::output::{FULL_ID, SHORT_ID};

/// A running alloc of `job_prefix` (optionally of `group`), chosen at random.
pub async fn random_job_alloc(
    client: &Client,
    g: &GlobalArgs,
    job_prefix: &str,
    group: &str,
) -> anyhow::Result<String> {
    let (job_id, ns) = meta::job_id_by_prefix(client, g, job_prefix).await?;
    let (allocs, _) = client
        .job_allocations(&job_id, false, Some(&QueryOptions::namespace(&ns)))
        .await
        .map_err(|e| anyhow!("Error fetching allocations: error querying job {job_id:?}: {e}"))?;
    if allocs.is_empty() {
        return Err(anyhow!(
            "Error fetching allocations: job {job_id:?} doesn't exist or it has no allocations"
        ));
    }
    let running: Vec<_> = allocs
        .iter()
        .filter(|a| group.is_empty() || a.task_group == group)
        .filter(|a| a.client_status == ALLOC_CLIENT_RUNNING)
        .collect();
    let pick = running.choose(&mut rand::rng()).ok_or_else(|| {
        anyhow!("Error fetching allocations: job {job_id:?} doesn't have any running allocations")
    })?;
    Ok(pick.id.clone())
}

/// The allocation `id` names (a prefix of at least two characters).
pub async fn resolve(client: &Client, id: &str, verbose: bool) -> anyhow::Result<Allocation> {
    if id.len() == 1 {
        return Err(anyhow!("Alloc ID must contain at least two characters."));
    }
    let length = if verbose { FULL_ID } else { SHORT_ID };
    let stub = match meta::alloc_by_prefix(client, id).await? {
        AllocLookup::One(s) => s,
        AllocLookup::Many(stubs) => {
            let table = meta::alloc_stub_table(&stubs, verbose, length, &[]);
            return Err(anyhow!("Prefix matched multiple allocations\n\n{table}"));
        }
    };
    let (alloc, _) = client
        .allocation(&stub.id, Some(&QueryOptions::namespace(&stub.namespace)))
        .await
        .context("Error querying allocation")?;
    Ok(alloc)
}

/// `task` checked against the alloc's group, or the group's only task when empty.
pub fn task_of(alloc: &Allocation, task: &str) -> anyhow::Result<String> {
    if task.is_empty() {
        super::logs::lookup_task(alloc)
    } else {
        super::logs::validate_task(task, alloc).map(|_| task.to_string())
    }
}
