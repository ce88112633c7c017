//! Nomad-native service check results (`structs.CheckQueryResult`) as the client's
//! `/v1/client/allocation/<id>/checks` answers them, and the CLI's view (`api.AllocCheckStatus`).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

pub const CHECK_SUCCESS: &str = "success";
pub const CHECK_FAILURE: &str = "failure";
pub const CHECK_PENDING: &str = "pending";
pub const CHECK_HEALTHINESS: &str = "healthiness";
pub const CHECK_READINESS: &str = "readiness";

/// The latest result of one check, fields in the order Nomad's struct declares them.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase", default)]
pub struct CheckQueryResult {
    #[serde(rename = "ID")]
    pub id: String,
    /// `healthiness`, or `readiness` for checks with `on_update = "ignore"`.
    pub mode: String,
    /// `success`, `failure` or `pending`.
    pub status: String,
    #[serde(skip_serializing_if = "is_zero")]
    pub status_code: i32,
    pub output: String,
    /// Unix seconds.
    pub timestamp: i64,
    /// The allocation's name (`job.group[0]`), as Nomad reports it.
    pub group: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    pub task: String,
    pub service: String,
    pub check: String,
}

fn is_zero(v: &i32) -> bool {
    *v == 0
}

/// Check ID -> latest result.
pub type AllocCheckResults = BTreeMap<String, CheckQueryResult>;

/// One check as Nomad's Go API client decodes it (`nomad alloc checks -json` prints this).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "PascalCase")]
pub struct AllocCheckStatus {
    #[serde(rename = "ID")]
    pub id: String,
    pub check: String,
    pub group: String,
    pub mode: String,
    pub output: String,
    pub service: String,
    pub task: String,
    pub status: String,
    pub status_code: i32,
    pub timestamp: i64,
}

impl From<CheckQueryResult> for AllocCheckStatus {
    fn from(r: CheckQueryResult) -> Self {
        AllocCheckStatus {
            id: r.id,
            check: r.check,
            group: r.group,
            mode: r.mode,
            output: r.output,
            service: r.service,
            task: r.task,
            status: r.status,
            status_code: r.status_code,
            timestamp: r.timestamp,
        }
    }
}
