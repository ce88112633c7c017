//! Operator.SchedulerGetConfiguration / SchedulerSetConfiguration: the scheduler
//! configuration, stored through raft, and the eval broker pause it controls.

use crate::api::{SchedulerConfiguration, SchedulerSetConfigurationResponse};
use crate::server::fsm::Command;
use crate::server::state::CAS_MISMATCH;
use crate::server::{Server, ServerError};

/// Nomad's `ErrJobRegistrationDisabled` text.
pub const ERR_JOB_REGISTRATION_DISABLED: &str =
    "Job registration, dispatch, and scale are disabled by the scheduler configuration";

/// The configuration in force and the index it was written at (Nomad's defaults at index 0
/// until first written).
pub fn get_scheduler_config(server: &Server) -> (u64, SchedulerConfiguration) {
    let snap = server.state().snapshot();
    let config = snap.scheduler_config();
    (config.modify_index, config)
}

/// Stores `config`; with `cas` only if the stored `ModifyIndex` equals it. A failed
/// check-and-set is `Updated: false`, not an error, as Nomad answers it.
pub async fn set_scheduler_config(
    server: &Server,
    config: SchedulerConfiguration,
    cas: Option<u64>,
) -> Result<SchedulerSetConfigurationResponse, ServerError> {
    config.validate().map_err(ServerError::BadRequest)?;
    let pause = config.pause_eval_broker;
    match server
        .propose(Command::SchedulerSetConfig { config, cas })
        .await
    {
        Ok(resp) => {
            super::super::leader::set_broker_paused(server, pause);
            Ok(SchedulerSetConfigurationResponse {
                updated: true,
                index: resp.index,
            })
        }
        Err(ServerError::Apply(e)) if e == CAS_MISMATCH => {
            let index = server.state().snapshot().latest_index();
            Ok(SchedulerSetConfigurationResponse {
                updated: false,
                index,
            })
        }
        Err(e) => Err(e),
    }
}

/// Nomad's `registrationsAreAllowed` without ACLs: rejected while the configuration says so.
pub fn check_registration_allowed(server: &Server) -> Result<(), ServerError> {
    if server
        .state()
        .snapshot()
        .scheduler_config()
        .reject_job_registration
    {
        return Err(ServerError::Apply(
            ERR_JOB_REGISTRATION_DISABLED.to_string(),
        ));
    }
    Ok(())
}
