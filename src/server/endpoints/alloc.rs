//! `Alloc.Stop` (`nomad alloc stop`): mark the alloc to migrate and create the eval that
//! stops it and places its replacement, as Nomad does.

use serde::{Deserialize, Serialize};

use crate::api::{
    generate_id, now_nanos, DesiredTransition, Evaluation, EVAL_STATUS_PENDING, TRIGGER_ALLOC_STOP,
};
use crate::server::fsm::Command;
use crate::server::{Server, ServerError};

/// Nomad's `AllocStopResponse`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct AllocStopResponse {
    #[serde(rename = "EvalID")]
    pub eval_id: String,
    pub index: u64,
}

pub async fn stop(
    server: &Server,
    alloc_id: &str,
    no_shutdown_delay: bool,
) -> Result<AllocStopResponse, ServerError> {
    let snap = server.state().snapshot();
    let alloc = snap
        .alloc_by_id(alloc_id)
        .ok_or_else(|| ServerError::NotFound("alloc not found".to_string()))?;
    let job = alloc
        .job
        .as_deref()
        .ok_or_else(|| ServerError::BadRequest("alloc has no job".to_string()))?;
    let now = now_nanos();
    let eval = Evaluation {
        id: generate_id(),
        namespace: alloc.namespace.clone(),
        priority: job.priority,
        r#type: job.r#type.clone(),
        triggered_by: TRIGGER_ALLOC_STOP.to_string(),
        job_id: alloc.job_id.clone(),
        job_modify_index: job.modify_index,
        status: EVAL_STATUS_PENDING.to_string(),
        create_time: now,
        modify_time: now,
        ..Default::default()
    };
    let transition = DesiredTransition {
        migrate: Some(true),
        no_shutdown_delay: no_shutdown_delay.then_some(true),
        ..Default::default()
    };
    let resp = server
        .propose(Command::AllocUpdateDesiredTransition {
            transitions: [(alloc.id.clone(), transition)].into(),
            evals: vec![eval.clone()],
            time: now,
        })
        .await?;
    Ok(AllocStopResponse {
        eval_id: eval.id,
        index: resp.index,
    })
}
