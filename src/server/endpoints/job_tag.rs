//! Job.TagVersion: name a job version (`nomad job tag apply`) or remove a name (`unset`).

use serde::Serialize;

use crate::api::{now_nanos, JobVersionTag};
use crate::server::fsm::Command;
use crate::server::state::TagTarget;
use crate::server::{Server, ServerError};

/// Nomad's `JobTagResponse`: the tag as stored (empty fields after an unset).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize)]
#[serde(rename_all = "PascalCase")]
pub struct TagResponse {
    pub name: String,
    pub description: String,
    pub tagged_time: i64,
    pub index: u64,
}

/// What to tag: `version` unless `latest` (then `version` must be 0, as Nomad checks).
#[derive(Debug, Clone, Default)]
pub struct ApplyArgs {
    pub namespace: String,
    pub job_id: String,
    pub name: String,
    pub description: String,
    pub version: u64,
    pub latest: bool,
}

pub async fn apply(server: &Server, args: ApplyArgs) -> Result<TagResponse, ServerError> {
    if args.latest && args.version > 0 {
        return Err(ServerError::BadRequest(format!(
            "version must be zero when tagging latest, got: {}",
            args.version
        )));
    }
    let target = if args.latest {
        TagTarget::Latest
    } else {
        TagTarget::Version(args.version)
    };
    let tag = JobVersionTag {
        name: args.name.clone(),
        description: args.description,
        tagged_time: now_nanos(),
    };
    let applied = server
        .propose(Command::JobVersionTag {
            namespace: args.namespace,
            job_id: args.job_id,
            name: args.name,
            target,
            tag: Some(tag.clone()),
        })
        .await?;
    Ok(TagResponse {
        name: tag.name,
        description: tag.description,
        tagged_time: tag.tagged_time,
        index: applied.index,
    })
}

pub async fn unset(
    server: &Server,
    namespace: &str,
    job_id: &str,
    name: &str,
) -> Result<TagResponse, ServerError> {
    let applied = server
        .propose(Command::JobVersionTag {
            namespace: namespace.to_string(),
            job_id: job_id.to_string(),
            name: name.to_string(),
            target: TagTarget::Latest,
            tag: None,
        })
        .await?;
    Ok(TagResponse {
        index: applied.index,
        ..Default::default()
    })
}
