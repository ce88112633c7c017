//! The generic half of the job diff: flattening blocks the way Nomad's flatmap does, field
//! and object diffs, sets matched by content, and the sort orders Nomad prints them in.
//! `diff` decides which of these each part of a job uses.

use std::collections::{BTreeMap, BTreeSet};

use serde_json::{Map, Value};

use crate::api::{DiffType, FieldDiff, ObjectDiff};

pub(super) type Flat = BTreeMap<String, String>;

/// Object-valued fields that are Go maps of strings, flattened as `Name[key]`.
const STRING_MAPS: &[&str] = &["Meta", "Env", "GetterOptions", "GetterHeaders"];

/// Maps of named blocks (group volumes): each entry diffed under `label`.
pub(super) fn map_diffs(
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
pub(super) fn set_diff(
    old: &[Value],
    new: &[Value],
    name: &str,
    contextual: bool,
) -> Vec<ObjectDiff> {
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
pub(super) fn primitive_object_diff(
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
pub(super) fn deep_diff(
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
pub(super) fn string_set_diff(
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

pub(super) fn field_diff(old: &str, new: &str, name: &str, contextual: bool) -> Option<FieldDiff> {
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

pub(super) fn field_diffs(old: &Flat, new: &Flat, contextual: bool) -> Vec<FieldDiff> {
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

pub(super) fn sort_fields(fields: &mut [FieldDiff]) {
    fields.sort_by(|a, b| (&a.name, &a.old, &a.new).cmp(&(&b.name, &b.old, &b.new)));
}

/// Nomad's ObjectDiff order: name, then Edited/Added/Deleted/None, then size, then fields.
pub(super) fn sort_objects(objects: &mut [ObjectDiff]) {
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
pub(super) fn presence_type(o: Option<&Value>, n: Option<&Value>) -> Option<DiffType> {
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
pub(super) fn paired_by_name<'a>(
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
pub(super) fn flat(v: Option<&Value>, filter: &[&str]) -> Flat {
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
pub(super) fn flatten_all(prefix: &str, v: &Value, out: &mut Flat) {
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

pub(super) fn scalar(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.clone()),
        Value::Bool(b) => Some(b.to_string()),
        Value::Number(n) => Some(n.to_string()),
        _ => None,
    }
}

pub(super) fn scalar_or_empty(v: Option<&Value>) -> String {
    v.and_then(scalar).unwrap_or_default()
}

pub(super) fn get<'a>(v: Option<&'a Value>, key: &str) -> Option<&'a Value> {
    v?.get(key).filter(|v| !v.is_null())
}

pub(super) fn list(v: Option<&Value>, key: &str) -> Vec<Value> {
    get(v, key)
        .and_then(Value::as_array)
        .cloned()
        .unwrap_or_default()
}

pub(super) fn strings(v: Option<&Value>, key: &str) -> Vec<String> {
    list(v, key)
        .iter()
        .filter_map(|s| s.as_str().map(String::from))
        .collect()
}
