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

use crate::api::{DiffType, FieldDiff, Job, JobDiff, ObjectDiff, TaskDiff, TaskGroupDiff};

type Flat = BTreeMap<String, String>;

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

/// Object-valued fields that are Go maps of strings, flattened as `Name[key]`.
const STRING_MAPS: &[&str] = &["Meta", "Env", "GetterOptions", "GetterHeaders"];

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

/// Maps of named blocks (group volumes): each entry diffed under `label`.
fn map_diffs(
    o: Option<&Value>,
    n: Option<&Value>,
    label: &str,
    contextual: bool,
) -> Vec<ObjectDiff> {
    let empty = Map::new();
    let om = o.and_then(Value::as_object).unwrap_or(&empty);
    let nm = n.and_then(Value::as_object).unwrap_or(&empty);
    let keys: BTreeSet<&String> = om.keys().chain(nm.keys()).collect();
    let mut out: Vec<ObjectDiff> = keys
        .into_iter()
        .filter_map(|k| deep_diff(om.get(k), nm.get(k), label, contextual))
        .collect();
    sort_objects(&mut out);
    out
}

/// Blocks that form a set (constraints, services, templates): matched by content, so an
/// edited entry is a removed one and an added one.
fn set_diff(old: &[Value], new: &[Value], name: &str, contextual: bool) -> Vec<ObjectDiff> {
    let mut out = Vec::new();
    for o in old.iter().filter(|o| !new.contains(o)) {
        out.extend(deep_diff(Some(o), None, name, contextual));
    }
    for n in new.iter().filter(|n| !old.contains(n)) {
        out.extend(deep_diff(None, Some(n), name, contextual));
    }
    sort_objects(&mut out);
    out
}

/// A block's own fields, by Nomad's rules for a block of only scalars: the type is what the
/// field changes add up to, and no change at all is no diff.
fn primitive_object_diff(
    o: Option<&Value>,
    n: Option<&Value>,
    filter: &[&str],
    name: &str,
    contextual: bool,
) -> Option<ObjectDiff> {
    let fields = field_diffs(&flat(o, filter), &flat(n, filter), contextual);
    let has = |t: DiffType| fields.iter().any(|f| f.r#type == t);
    let r#type = if has(DiffType::Edited) || (has(DiffType::Added) && has(DiffType::Deleted)) {
        DiffType::Edited
    } else if has(DiffType::Added) {
        DiffType::Added
    } else if has(DiffType::Deleted) {
        DiffType::Deleted
    } else {
        return None;
    };
    Some(ObjectDiff {
        name: name.to_string(),
        r#type,
        fields,
        objects: Vec::new(),
    })
}

/// A block with nested blocks: its scalars as fields, nested objects and lists as objects
/// of their own (lists of strings as sets).
fn deep_diff(
    o: Option<&Value>,
    n: Option<&Value>,
    name: &str,
    contextual: bool,
) -> Option<ObjectDiff> {
    let r#type = presence_type(o, n)?;
    let mut diff = ObjectDiff {
        name: name.to_string(),
        r#type,
        fields: field_diffs(&flat(o, &[]), &flat(n, &[]), contextual),
        objects: Vec::new(),
    };
    let keys: BTreeSet<&String> = [o, n]
        .into_iter()
        .flatten()
        .filter_map(Value::as_object)
        .flat_map(Map::keys)
        .filter(|k| !STRING_MAPS.contains(&k.as_str()))
        .collect();
    for key in keys {
        let (ov, nv) = (get(o, key), get(n, key));
        let is_list = |v: Option<&Value>| v.is_some_and(Value::is_array);
        let is_obj = |v: Option<&Value>| v.is_some_and(Value::is_object);
        if is_obj(ov) || is_obj(nv) {
            diff.objects.extend(deep_diff(ov, nv, key, contextual));
        } else if is_list(ov) || is_list(nv) {
            let (ol, nl) = (list(o, key), list(n, key));
            if ol.iter().chain(&nl).all(Value::is_string) {
                let strs = |l: &[Value]| {
                    l.iter()
                        .filter_map(|s| s.as_str().map(String::from))
                        .collect::<Vec<_>>()
                };
                if let Some(d) = string_set_diff(&strs(&ol), &strs(&nl), key, contextual) {
                    if d.r#type != DiffType::None {
                        diff.objects.push(d);
                    }
                }
            } else {
                diff.objects.extend(set_diff(&ol, &nl, key, contextual));
            }
        }
    }
    let changed =
        diff.fields.iter().any(|f| f.r#type != DiffType::None) || !diff.objects.is_empty();
    if !changed {
        return None;
    }
    if diff.r#type == DiffType::None {
        diff.r#type = DiffType::Edited;
    }
    Some(diff)
}

/// Nomad's stringSetDiff: a set of strings as an object whose fields all carry `name`.
fn string_set_diff(
    old: &[String],
    new: &[String],
    name: &str,
    contextual: bool,
) -> Option<ObjectDiff> {
    let o: BTreeSet<&String> = old.iter().collect();
    let n: BTreeSet<&String> = new.iter().collect();
    if o == n && !contextual {
        return None;
    }
    let mut fields = Vec::new();
    let (mut added, mut removed) = (false, false);
    for k in &o {
        if !n.contains(k) {
            fields.extend(field_diff(k, "", name, contextual));
            removed = true;
        } else if contextual {
            fields.extend(field_diff(k, k, name, contextual));
        }
    }
    for k in n.difference(&o) {
        fields.extend(field_diff("", k, name, contextual));
        added = true;
    }
    sort_fields(&mut fields);
    let r#type = match (added, removed) {
        (true, true) => DiffType::Edited,
        (true, false) => DiffType::Added,
        (false, true) => DiffType::Deleted,
        (false, false) if fields.is_empty() => return None,
        (false, false) => DiffType::None,
    };
    Some(ObjectDiff {
        name: name.to_string(),
        r#type,
        fields,
        objects: Vec::new(),
    })
}

fn field_diff(old: &str, new: &str, name: &str, contextual: bool) -> Option<FieldDiff> {
    let r#type = if old == new {
        if !contextual {
            return None;
        }
        DiffType::None
    } else if old.is_empty() {
        DiffType::Added
    } else if new.is_empty() {
        DiffType::Deleted
    } else {
        DiffType::Edited
    };
    Some(FieldDiff {
        name: name.to_string(),
        r#type,
        old: old.to_string(),
        new: new.to_string(),
        annotations: Vec::new(),
    })
}

fn field_diffs(old: &Flat, new: &Flat, contextual: bool) -> Vec<FieldDiff> {
    let names: BTreeSet<&String> = old.keys().chain(new.keys()).collect();
    let empty = String::new();
    let mut out: Vec<FieldDiff> = names
        .into_iter()
        .filter_map(|k| {
            let o = old.get(k).unwrap_or(&empty);
            let n = new.get(k).unwrap_or(&empty);
            field_diff(o, n, k, contextual)
        })
        .collect();
    sort_fields(&mut out);
    out
}

fn sort_fields(fields: &mut [FieldDiff]) {
    fields.sort_by(|a, b| (&a.name, &a.old, &a.new).cmp(&(&b.name, &b.old, &b.new)));
}

/// Nomad's ObjectDiff order: name, then Edited/Added/Deleted/None, then size, then fields.
fn sort_objects(objects: &mut [ObjectDiff]) {
    objects.sort_by(|a, b| {
        a.name
            .cmp(&b.name)
            .then(a.r#type.rank().cmp(&b.r#type.rank()))
            .then(a.fields.len().cmp(&b.fields.len()))
            .then(a.objects.len().cmp(&b.objects.len()))
            .then_with(|| {
                let key = |o: &ObjectDiff| {
                    o.fields
                        .iter()
                        .map(|f| (f.name.clone(), f.old.clone(), f.new.clone()))
                        .collect::<Vec<_>>()
                };
                key(a).cmp(&key(b))
            })
    });
}

/// Added, Deleted or Edited by which sides exist and whether they differ; `None` when both
/// are absent or equal.
fn presence_type(o: Option<&Value>, n: Option<&Value>) -> Option<DiffType> {
    fn present(v: Option<&Value>) -> Option<&Value> {
        v.filter(|v| !v.is_null())
    }
    match (present(o), present(n)) {
        (None, None) => None,
        (None, Some(_)) => Some(DiffType::Added),
        (Some(_), None) => Some(DiffType::Deleted),
        (Some(a), Some(b)) if a == b => None,
        (Some(_), Some(_)) => Some(DiffType::Edited),
    }
}

/// Pair named entries (groups, tasks) of two lists, in name order.
fn paired_by_name<'a>(
    old: &'a [Value],
    new: &'a [Value],
) -> Vec<(String, Option<&'a Value>, Option<&'a Value>)> {
    let name = |v: &Value| {
        v.get("Name")
            .and_then(Value::as_str)
            .unwrap_or("")
            .to_string()
    };
    let mut by: BTreeMap<String, (Option<&Value>, Option<&Value>)> = BTreeMap::new();
    for o in old {
        by.entry(name(o)).or_default().0 = Some(o);
    }
    for n in new {
        by.entry(name(n)).or_default().1 = Some(n);
    }
    by.into_iter().map(|(k, (o, n))| (k, o, n)).collect()
}

/// A block's scalar fields and string maps (Nomad's flatmap with primitiveOnly).
fn flat(v: Option<&Value>, filter: &[&str]) -> Flat {
    let mut out = Flat::new();
    let Some(m) = v.and_then(Value::as_object) else {
        return out;
    };
    for (k, val) in m {
        if filter.contains(&k.as_str()) {
            continue;
        }
        match val {
            Value::Object(sub) if STRING_MAPS.contains(&k.as_str()) => {
                for (sk, sv) in sub {
                    if let Some(s) = scalar(sv) {
                        out.insert(format!("{k}[{sk}]"), s);
                    }
                }
            }
            other => {
                if let Some(s) = scalar(other) {
                    out.insert(k.clone(), s);
                }
            }
        }
    }
    out
}

/// Everything under a value, keys as `a[0][b]` (Nomad's flatmap of a driver config).
fn flatten_all(prefix: &str, v: &Value, out: &mut Flat) {
    match v {
        Value::Null => {
            out.insert(prefix.to_string(), "nil".into());
        }
        Value::Array(items) => {
            for (i, item) in items.iter().enumerate() {
                flatten_all(&format!("{prefix}[{i}]"), item, out);
            }
        }
        Value::Object(m) => {
            for (k, item) in m {
                let p = if prefix.is_empty() {
                    k.clone()
                } else {
                    format!("{prefix}[{k}]")
                };
                flatten_all(&p, item, out);
            }
        }
        other => {
            out.insert(prefix.to_string(), scalar(other).unwrap_or_default());
        }
    }
}

fn scalar(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

fn scalar_or_empty(v: Option<&Value>) -> String {
    v.and_then(scalar).unwrap_or_default()
}

fn get<'a>(v: Option<&'a Value>, key: &str) -> Option<&'a Value> {
    v?.get(key).filter(|v| !v.is_null())
}

fn list(v: Option<&Value>, key: &str) -> Vec<Value> {
    get(v, key)
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
}

fn strings(v: Option<&Value>, key: &str) -> Vec<String> {
    list(v, key)
        .iter()
        .filter_map(|s| s.as_str().map(String::from))
        .collect()
}

#[cfg(test)]
#[path = "diff_tests.rs"]
mod tests;
