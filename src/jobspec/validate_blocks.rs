//! Validation of the integration and volume blocks (structs.go's TaskGroup.Validate volume
//! and scaling checks, Task.Validate's csi_plugin, identity and secret checks), with Nomad's
//! error texts. Blocks that are not their api struct's shape are skipped here.

use std::collections::BTreeMap;
use std::collections::BTreeSet;

use serde::de::DeserializeOwned;
use serde_json::Value;

use crate::api::{
    Job, ScalingPolicy, Secret, Task, TaskCsiPluginConfig, TaskGroup, Vault, VolumeRequest,
    WorkloadIdentity, JOB_TYPE_SYSBATCH, JOB_TYPE_SYSTEM, SCALING_POLICY_TYPE_HORIZONTAL,
};

use super::validate::format_multierror;

fn typed<T: DeserializeOwned>(v: &Option<Value>) -> Option<T> {
    serde_json::from_value(v.clone()?).ok()
}

/// "Task group scaling policy validation failed: ..." when the group's policy is invalid.
pub fn scaling_error(j: &Job, tg: &TaskGroup) -> Option<String> {
    let p: ScalingPolicy = typed(&tg.scaling)?;
    let count = i64::from(tg.count);
    // The agent's api-to-structs conversion: a missing max is -1, a missing min the count.
    let max = p.max.unwrap_or(-1);
    let min = p.min.unwrap_or(count);
    let mut inner = Vec::new();
    if p.r#type.is_empty() {
        inner.push("missing scaling policy type".to_string());
    } else if p.r#type != SCALING_POLICY_TYPE_HORIZONTAL {
        // Nomad CE knows only horizontal policies (structs_ce.go validateType).
        inner.push(format!("scaling policy type \"{}\" is not valid", p.r#type));
    }
    if max < 0 {
        inner.push("maximum count must be specified and non-negative".to_string());
    } else if max < min {
        inner.push("maximum count must not be less than minimum count".to_string());
    }
    if min < 0 {
        inner.push("minimum count must be specified and non-negative".to_string());
    }
    let mut e: Vec<String> = inner
        .into_iter()
        .map(|m| format!("Scaling policy invalid: {m}"))
        .collect();
    if max < count {
        e.push("Scaling policy invalid: task group count must not be greater than maximum count in scaling policy".to_string());
    }
    let multiregion_global = j
        .multiregion
        .as_ref()
        .and_then(|m| m.get("Regions"))
        .and_then(Value::as_array)
        .is_some_and(|r| !r.is_empty())
        && tg.count == 0
        && j.region == "global";
    if count < min && !multiregion_global {
        e.push("Scaling policy invalid: task group count must not be less than minimum count in scaling policy".to_string());
    }
    (!e.is_empty()).then(|| {
        format!(
            "Task group scaling policy validation failed: {}",
            format_multierror(&e)
        )
    })
}

/// structs VolumeRequest.Validate (of a host or csi volume) for each of the group's volumes, in name order.
pub fn volume_errors(job_type: &str, tg: &TaskGroup) -> Vec<String> {
    let Some(vols) = typed::<BTreeMap<String, VolumeRequest>>(&tg.volumes) else {
        return Vec::new();
    };
    let canaries = tg.update.as_ref().map(|u| u.canary).unwrap_or(0);
    vols.iter()
        .filter_map(|(name, v)| {
            let err = if v.r#type != "host" && v.r#type != "csi" {
                // Nomad returns this one as a plain error, not as a list.
                format!("volume has unrecognized type {}", v.r#type)
            } else {
                let e = volume_request_errors(v, job_type, tg.count, canaries);
                if e.is_empty() {
                    return None;
                }
                format_multierror(&e)
            };
            Some(format!(
                "Task group volume validation for {name} failed: {err}"
            ))
        })
        .collect()
}

fn volume_request_errors(
    v: &VolumeRequest,
    job_type: &str,
    count: i32,
    canaries: i32,
) -> Vec<String> {
    let mut e = Vec::new();
    if v.source.is_empty() {
        e.push("volume has an empty source".to_string());
    }
    if v.per_alloc {
        if job_type == JOB_TYPE_SYSTEM || job_type == JOB_TYPE_SYSBATCH {
            e.push("volume cannot be per_alloc for system or sysbatch jobs".to_string());
        }
        if canaries > 0 {
            e.push("volume cannot be per_alloc when canaries are in use".to_string());
        }
        if v.sticky {
            e.push("volume cannot be per_alloc and sticky at the same time".to_string());
        }
    }
    let mode = v.access_mode.as_str();
    let many = count > 1 && !v.per_alloc;
    if v.r#type == "host" {
        if v.mount_options.is_some() {
            e.push("host volumes cannot have mount options".to_string());
        }
        match mode {
            "single-node-reader-only" if !v.read_only => {
                e.push(format!("{mode} volumes must be read-only"))
            }
            "single-node-reader-only"
            | "single-node-writer"
            | "single-node-single-writer"
            | "single-node-multi-writer"
            | "" => {}
            _ => e.push(format!(
                "host volumes cannot be mounted with {mode} access mode"
            )),
        }
        return e;
    }
    match v.attachment_mode.as_str() {
        "" => e.push("CSI volumes must have an attachment mode".to_string()),
        "block-device" if v.mount_options.is_some() => {
            e.push("block devices cannot have mount options".to_string())
        }
        _ => {}
    }
    match mode {
        "" => e.push("CSI volumes must have an access mode".to_string()),
        "single-node-reader-only" => {
            if !v.read_only {
                e.push(format!("{mode} volumes must be read-only"));
            }
            if many {
                e.push(format!(
                    "volume with {mode} access mode allows only one reader"
                ));
            }
        }
        "single-node-writer" if many => e.push(format!(
            "volume with {mode} access mode allows only one reader or writer"
        )),
        "multi-node-reader-only" if !v.read_only => {
            e.push(format!("{mode} volumes must be read-only"))
        }
        "multi-node-single-writer" if !v.read_only && many => e.push(format!(
            "volume with {mode} access mode allows only one writer"
        )),
        _ => {}
    }
    e
}

/// Nomad CE's Multiregion.Validate, for a job with regions.
pub fn multiregion_error(j: &Job) -> Option<String> {
    let regions = j
        .multiregion
        .as_ref()
        .and_then(|m| m.get("Regions"))
        .and_then(Value::as_array)?;
    (!regions.is_empty()).then(|| "Multiregion jobs are unlicensed.".to_string())
}

/// structs Vault.Validate.
fn vault_errors(v: &Vault) -> Vec<String> {
    match v.change_mode.as_deref().unwrap_or_default() {
        "signal" if v.change_signal.as_deref().unwrap_or_default().is_empty() => {
            vec!["Signal must be specified when using change mode \"signal\"".to_string()]
        }
        "signal" | "noop" | "restart" => Vec::new(),
        other => vec![format!("Unknown change mode {other:?}")],
    }
}

/// Task.Validate's vault, csi_plugin, identity and secret checks.
pub fn task_block_errors(t: &Task) -> Vec<String> {
    let mut e = Vec::new();
    if let Some(v) = typed::<Vault>(&t.vault) {
        let ve = vault_errors(&v);
        if !ve.is_empty() {
            e.push(format!(
                "Vault validation failed: {}",
                format_multierror(&ve)
            ));
        }
    }
    if let Some(p) = typed::<TaskCsiPluginConfig>(&t.csi_plugin_config) {
        if p.id.is_empty() {
            e.push("CSIPluginConfig must have a non-empty PluginID".to_string());
        }
        if !matches!(p.r#type.as_str(), "node" | "controller" | "monolith") {
            e.push(format!("CSIPluginConfig PluginType must be one of 'node', 'controller', or 'monolith', got: \"{}\"", p.r#type));
        }
        if !p.stage_publish_base_dir.is_empty()
            && !p.mount_dir.is_empty()
            && is_subdirectory(&p.mount_dir, &p.stage_publish_base_dir)
        {
            e.push(format!("CSIPluginConfig StagePublishBaseDir must not be a subdirectory of MountDir, got: StagePublishBaseDir=\"{}\" MountDir=\"{}\"", p.stage_publish_base_dir, p.mount_dir));
        }
    }
    if let Some(w) = typed::<WorkloadIdentity>(&t.identity) {
        let ie = identity_errors(&w);
        if !ie.is_empty() {
            e.push(format!(
                "Identity {:?} is invalid: {}",
                w.name,
                format_multierror(&ie)
            ));
        }
    }
    for w in typed::<Vec<WorkloadIdentity>>(&t.identities).unwrap_or_default() {
        if w.name == "default" {
            e.push("Duplicate default identities found".to_string());
        }
        let ie = identity_errors(&w);
        if !ie.is_empty() {
            e.push(format!(
                "Identity {:?} is invalid: {}",
                w.name,
                format_multierror(&ie)
            ));
        }
    }
    let mut seen = BTreeSet::new();
    for s in typed::<Vec<Secret>>(&t.secrets).unwrap_or_default() {
        if !seen.insert(s.name.clone()) {
            e.push(format!("Duplicate secret {:?} found", s.name));
        }
    }
    e
}

/// helper.IsSubdirectory: whether `sub` is `base` or below it, compared after cleaning.
fn is_subdirectory(base: &str, sub: &str) -> bool {
    let clean = |p: &str| -> Vec<String> {
        p.split('/')
            .filter(|s| !s.is_empty() && *s != ".")
            .map(str::to_string)
            .collect()
    };
    let (b, s) = (clean(base), clean(sub));
    s.len() >= b.len() && s[..b.len()] == b[..]
}

fn identity_name_ok(n: &str) -> bool {
    (1..=128).contains(&n.len())
        && n.chars()
            .all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_')
}

/// structs WorkloadIdentity.Validate.
fn identity_errors(w: &WorkloadIdentity) -> Vec<String> {
    let mut e = Vec::new();
    if !identity_name_ok(&w.name) {
        e.push(format!(
            "invalid name {:?}. Must match regex ^[a-zA-Z0-9-_]{{1,128}}$",
            w.name
        ));
    }
    for (i, aud) in w.audience.iter().flatten().enumerate() {
        if aud.is_empty() {
            e.push(format!(
                "an empty string is an invalid audience ({})",
                i + 1
            ));
        }
    }
    match w.change_mode.as_str() {
        "" | "noop" | "restart" => {
            if !w.change_signal.is_empty() {
                e.push(format!(
                    "can only use change_signal={:?} with change_mode=\"signal\"",
                    w.change_signal
                ));
            }
        }
        "signal" => {
            if w.change_signal.is_empty() {
                e.push(
                    "change_signal must be specified when using change_mode=\"signal\"".to_string(),
                );
            }
        }
        other => e.push(format!("invalid change_mode: {other}")),
    }
    if w.ttl > 0 && (w.name.is_empty() || w.name == "default") {
        e.push("ttl for default identity not yet supported".to_string());
    }
    if w.ttl < 0 {
        e.push("ttl must be >= 0".to_string());
    }
    if !w.filepath.is_empty() && !w.file {
        e.push("file parameter must be true in order to specify filepath".to_string());
    }
    e
}
