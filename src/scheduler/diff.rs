//! The job diff `nomad job plan` prints (Nomad's `Job.Diff`): what changed between the stored
//! job and the submitted one, as typed objects and flat fields.
//!
//! The walk works on each block's JSON form, so a field added to `api::Job` shows up in the
//! diff without code here. What is specific to Nomad is listed per level: which fields are
//! server-maintained (filtered), which blocks are sets (constraints, services: matched by
//! content, not position), how ports and networks are named, and where unchanged fields are
//! still shown (`contextual`: inside an edited `Config` or `Resources`).
//!
//! Flattening follows Nomad's flatmap: a block's own fields are its scalars plus string maps
//! such as `Meta` (`Meta[owner]`); nested blocks become objects of their own; a driver
//! `Config` is flattened completely (`args[1]`, `port_map[0][http]`).

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

use super::diff_fields::*;
use crate::api::{DiffType, Job, JobDiff, ObjectDiff, TaskDiff, TaskGroupDiff};

#[derive(Debug, thiserror::Error)]
pub enum DiffError {
    #[error("can not diff jobs with different IDs: {old:?} and {new:?}")]
    DifferentIds { old: String, new: String },
    #[error("failed to encode job for diffing: {0}")]
    Encode(#[from] serde_json::Error),
}

/// Fields of a job that the server maintains; a change in them is not a change of the job.
const JOB_FILTER: &[&str] = &[
    "ID",
    "Status",
    "StatusDescription",
    "Version",
    "Stable",
    "CreateIndex",
    "ModifyIndex",
    "JobModifyIndex",
    "Update",
    "SubmitTime",
    "NomadTokenID",
    "VaultToken",
];

/// Group fields that are pointers in Nomad's structs, which its flattening skips.
const GROUP_FILTER: &[&str] = &[
    "Name",
    "MaxClientDisconnect",
    "StopAfterClientDisconnect",
    "MaxRunDuration",
    "ShutdownDelay",
];

const TASK_FILTER: &[&str] = &["Name", "Config"];

/// Diff two versions of a job. `None` on one side means the job is added or removed.
/// `contextual` keeps unchanged fields inside edited objects, as `job plan` asks for.
pub fn job_diff(
    old: Option<&Job>,
    new: Option<&Job>,
    contextual: bool,
) -> Result<JobDiff, DiffError> {
    if let (Some(o), Some(n)) = (old, new) {
        if o.id != n.id {
            return Err(DiffError::DifferentIds {
                old: o.id.clone(),
                new: n.id.clone(),
            });
        }
    }
    let old_v = old.map(serde_json::to_value).transpose()?;
    let new_v = new.map(serde_json::to_value).transpose()?;
    let (o, n) = (old_v.as_ref(), new_v.as_ref());
    let mut diff = JobDiff {
        id: new.or(old).map(|j| j.id.clone()).unwrap_or_default(),
        // Edited only if something the user wrote changed, worked out below.
        r#type: match (o, n) {
            (None, Some(_)) => DiffType::Added,
            (Some(_), None) => DiffType::Deleted,
            _ => DiffType::None,
        },
        ..Default::default()
    };
    if o.is_none() && n.is_none() {
        return Ok(diff);
    }
    diff.fields = field_diffs(&flat(o, JOB_FILTER), &flat(n, JOB_FILTER), false);
    if let Some(d) = string_set_diff(
        &strings(o, "Datacenters"),
        &strings(n, "Datacenters"),
        "Datacenters",
        contextual,
    ) {
        if d.r#type != DiffType::None {
            diff.objects.push(d);
        }
    }
    diff.objects.extend(set_diff(
        &list(o, "Constraints"),
        &list(n, "Constraints"),
        "Constraint",
        contextual,
    ));
    diff.objects.extend(set_diff(
        &list(o, "Affinities"),
        &list(n, "Affinities"),
        "Affinity",
        contextual,
    ));
    diff.task_groups = group_diffs(&list(o, "TaskGroups"), &list(n, "TaskGroups"), contextual);
    diff.objects.extend(deep_diff(
        get(o, "Periodic"),
        get(n, "Periodic"),
        "Periodic",
        contextual,
    ));
    diff.objects.extend(deep_diff(
        get(o, "ParameterizedJob"),
        get(n, "ParameterizedJob"),
        "ParameterizedJob",
        contextual,
    ));
    if diff.r#type == DiffType::None {
        let changed = diff.fields.iter().any(|f| f.r#type != DiffType::None)
            || diff.objects.iter().any(|o| o.r#type != DiffType::None)
            || diff.task_groups.iter().any(|t| t.r#type != DiffType::None);
        if changed {
            diff.r#type = DiffType::Edited;
        }
    }
    Ok(diff)
}

fn group_diffs(old: &[Value], new: &[Value], contextual: bool) -> Vec<TaskGroupDiff> {
    paired_by_name(old, new)
        .into_iter()
        .map(|(name, o, n)| group_diff(&name, o, n, contextual))
        .collect()
}

fn group_diff(name: &str, o: Option<&Value>, n: Option<&Value>, contextual: bool) -> TaskGroupDiff {
    let mut diff = TaskGroupDiff {
        name: name.to_string(),
        r#type: presence_type(o, n).unwrap_or(DiffType::None),
        ..Default::default()
    };
    let (mut old_flat, mut new_flat) = (flat(o, GROUP_FILTER), flat(n, GROUP_FILTER));
    if o.is_some() && n.is_some() {
        // Nomad compares ShutdownDelay even when it is unset on one side.
        old_flat.insert(
            "ShutdownDelay".into(),
            scalar_or_empty(get(o, "ShutdownDelay")),
        );
        new_flat.insert(
            "ShutdownDelay".into(),
            scalar_or_empty(get(n, "ShutdownDelay")),
        );
    }
    diff.fields = field_diffs(&old_flat, &new_flat, false);
    let objs = &mut diff.objects;
    objs.extend(set_diff(
        &list(o, "Constraints"),
        &list(n, "Constraints"),
        "Constraint",
        contextual,
    ));
    objs.extend(set_diff(
        &list(o, "Affinities"),
        &list(n, "Affinities"),
        "Affinity",
        contextual,
    ));
    for (key, label, filter) in [
        ("RestartPolicy", "RestartPolicy", &[][..]),
        ("Migrate", "Migrate", &[][..]),
        ("ReschedulePolicy", "ReschedulePolicy", &[][..]),
        ("EphemeralDisk", "EphemeralDisk", &[][..]),
        ("Consul", "Consul", &[][..]),
        ("Update", "Update", &["Stagger"][..]),
    ] {
        objs.extend(primitive_object_diff(
            get(o, key),
            get(n, key),
            filter,
            label,
            contextual,
        ));
    }
    objs.extend(deep_diff(
        get(o, "Disconnect"),
        get(n, "Disconnect"),
        "Disconnect",
        contextual,
    ));
    objs.extend(network_diffs(
        &list(o, "Networks"),
        &list(n, "Networks"),
        contextual,
    ));
    objs.extend(deep_diff(
        get(o, "Scaling"),
        get(n, "Scaling"),
        "Scaling",
        contextual,
    ));
    objs.extend(set_diff(
        &list(o, "Services"),
        &list(n, "Services"),
        "Service",
        contextual,
    ));
    objs.extend(map_diffs(
        get(o, "Volumes"),
        get(n, "Volumes"),
        "Volume",
        contextual,
    ));
    diff.tasks = paired_by_name(&list(o, "Tasks"), &list(n, "Tasks"))
        .into_iter()
        .map(|(name, o, n)| task_diff(&name, o, n, contextual))
        .collect();
    diff
}

fn task_diff(name: &str, o: Option<&Value>, n: Option<&Value>, contextual: bool) -> TaskDiff {
    let mut diff = TaskDiff {
        name: name.to_string(),
        r#type: presence_type(o, n).unwrap_or(DiffType::None),
        ..Default::default()
    };
    diff.fields = field_diffs(&flat(o, TASK_FILTER), &flat(n, TASK_FILTER), false);
    let objs = &mut diff.objects;
    objs.extend(set_diff(
        &list(o, "Constraints"),
        &list(n, "Constraints"),
        "Constraint",
        contextual,
    ));
    objs.extend(set_diff(
        &list(o, "Affinities"),
        &list(n, "Affinities"),
        "Affinity",
        contextual,
    ));
    objs.extend(config_diff(get(o, "Config"), get(n, "Config"), contextual));
    objs.extend(resources_diff(
        get(o, "Resources"),
        get(n, "Resources"),
        contextual,
    ));
    for key in ["LogConfig", "DispatchPayload"] {
        objs.extend(primitive_object_diff(
            get(o, key),
            get(n, key),
            &[],
            key,
            contextual,
        ));
    }
    objs.extend(set_diff(
        &list(o, "Artifacts"),
        &list(n, "Artifacts"),
        "Artifact",
        contextual,
    ));
    objs.extend(set_diff(
        &list(o, "Services"),
        &list(n, "Services"),
        "Service",
        contextual,
    ));
    objs.extend(deep_diff(
        get(o, "Vault"),
        get(n, "Vault"),
        "Vault",
        contextual,
    ));
    objs.extend(set_diff(
        &list(o, "Secrets"),
        &list(n, "Secrets"),
        "Secret",
        contextual,
    ));
    objs.extend(primitive_object_diff(
        get(o, "Consul"),
        get(n, "Consul"),
        &[],
        "Consul",
        contextual,
    ));
    objs.extend(set_diff(
        &list(o, "Templates"),
        &list(n, "Templates"),
        "Template",
        contextual,
    ));
    objs.extend(deep_diff(
        get(o, "Identity"),
        get(n, "Identity"),
        "Identity",
        contextual,
    ));
    objs.extend(set_diff(
        &list(o, "Identities"),
        &list(n, "Identities"),
        "Identity",
        contextual,
    ));
    objs.extend(set_diff(
        &list(o, "Actions"),
        &list(n, "Actions"),
        "Action",
        contextual,
    ));
    objs.extend(set_diff(
        &list(o, "VolumeMounts"),
        &list(n, "VolumeMounts"),
        "VolumeMount",
        contextual,
    ));
    objs.extend(deep_diff(
        get(o, "Schedule"),
        get(n, "Schedule"),
        "Schedule",
        contextual,
    ));
    diff
}

/// A driver config, flattened all the way down; unchanged keys shown when contextual.
fn config_diff(o: Option<&Value>, n: Option<&Value>, contextual: bool) -> Option<ObjectDiff> {
    if o == n {
        return None;
    }
    let empty = |v: Option<&Value>| v.and_then(Value::as_object).is_none_or(Map::is_empty);
    let r#type = if empty(o) {
        DiffType::Added
    } else if empty(n) {
        DiffType::Deleted
    } else {
        DiffType::Edited
    };
    let full = |v: Option<&Value>| {
        let mut out = Flat::new();
        if let Some(v) = v.filter(|v| !v.is_null()) {
            flatten_all("", v, &mut out);
        }
        out
    };
    Some(ObjectDiff {
        name: "Config".into(),
        r#type,
        fields: field_diffs(&full(o), &full(n), contextual),
        objects: Vec::new(),
    })
}

fn resources_diff(o: Option<&Value>, n: Option<&Value>, contextual: bool) -> Option<ObjectDiff> {
    let r#type = presence_type(o, n)?;
    let mut diff = ObjectDiff {
        name: "Resources".into(),
        r#type,
        fields: field_diffs(&flat(o, &[]), &flat(n, &[]), contextual),
        objects: network_diffs(&list(o, "Networks"), &list(n, "Networks"), contextual),
    };
    diff.objects.extend(set_diff(
        &list(o, "Devices"),
        &list(n, "Devices"),
        "Device",
        contextual,
    ));
    diff.objects.extend(deep_diff(
        get(o, "NUMA"),
        get(n, "NUMA"),
        "NUMA",
        contextual,
    ));
    Some(diff)
}

/// Networks are matched by content: a changed network is one removed and one added.
fn network_diffs(old: &[Value], new: &[Value], contextual: bool) -> Vec<ObjectDiff> {
    let mut out = Vec::new();
    for o in old.iter().filter(|o| !new.contains(o)) {
        out.push(network_diff(Some(o), None, contextual));
    }
    for n in new.iter().filter(|n| !old.contains(n)) {
        out.push(network_diff(None, Some(n), contextual));
    }
    sort_objects(&mut out);
    out
}

fn network_diff(o: Option<&Value>, n: Option<&Value>, contextual: bool) -> ObjectDiff {
    const FILTER: &[&str] = &["Device", "CIDR", "IP", "MBits"];
    let mut diff = ObjectDiff {
        name: "Network".into(),
        r#type: presence_type(o, n).unwrap_or(DiffType::None),
        fields: field_diffs(&flat(o, FILTER), &flat(n, FILTER), contextual),
        objects: port_diffs(
            &list(o, "ReservedPorts"),
            &list(n, "ReservedPorts"),
            false,
            contextual,
        ),
    };
    diff.objects.extend(port_diffs(
        &list(o, "DynamicPorts"),
        &list(n, "DynamicPorts"),
        true,
        contextual,
    ));
    diff.objects
        .extend(deep_diff(get(o, "DNS"), get(n, "DNS"), "DNS", contextual));
    diff.objects
        .extend(deep_diff(get(o, "CNI"), get(n, "CNI"), "CNI", contextual));
    diff
}

/// Ports are matched by label.
fn port_diffs(old: &[Value], new: &[Value], dynamic: bool, contextual: bool) -> Vec<ObjectDiff> {
    let (name, filter): (&str, &[&str]) = if dynamic {
        ("Dynamic Port", &["Value", "IgnoreCollision"])
    } else {
        ("Static Port", &[])
    };
    let label = |v: &Value| {
        v.get("Label")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    let old_by: BTreeMap<String, &Value> = old.iter().map(|p| (label(p), p)).collect();
    let new_by: BTreeMap<String, &Value> = new.iter().map(|p| (label(p), p)).collect();
    let labels: BTreeSet<&String> = old_by.keys().chain(new_by.keys()).collect();
    let mut out: Vec<ObjectDiff> = labels
        .into_iter()
        .filter_map(|l| {
            primitive_object_diff(
                old_by.get(l).copied(),
                new_by.get(l).copied(),
                filter,
                name,
                contextual,
            )
        })
        .collect();
    sort_objects(&mut out);
    out
}

#[cfg(test)]
#[path = "diff_tests.rs"]
mod tests;
