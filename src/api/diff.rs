//! Job diffs as `POST /v1/job/:id/plan` returns them (Nomad's `JobDiff`, `TaskGroupDiff`,
//! `TaskDiff`, `ObjectDiff`, `FieldDiff`). The diff itself is computed by
//! `scheduler::diff`; these are only the wire types the CLI prints.
//!
//! Empty lists serialise as `null`, as Go's nil slices do.

use std::collections::BTreeMap;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

/// How an object changed between the old and the new job.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub enum DiffType {
    #[default]
    None,
    Added,
    Deleted,
    Edited,
}

impl DiffType {
    /// Nomad sorts diffs Edited, Added, Deleted, None.
    pub fn rank(self) -> u8 {
        match self {
            DiffType::Edited => 0,
            DiffType::Added => 1,
            DiffType::Deleted => 2,
            DiffType::None => 3,
        }
    }
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct FieldDiff {
    #[serde(with = "null_if_empty")]
    pub annotations: Vec<String>,
    pub name: String,
    pub new: String,
    pub old: String,
    pub r#type: DiffType,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct ObjectDiff {
    #[serde(with = "null_if_empty")]
    pub fields: Vec<FieldDiff>,
    pub name: String,
    #[serde(with = "null_if_empty")]
    pub objects: Vec<ObjectDiff>,
    pub r#type: DiffType,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct TaskDiff {
    #[serde(with = "null_if_empty")]
    pub annotations: Vec<String>,
    #[serde(with = "null_if_empty")]
    pub fields: Vec<FieldDiff>,
    pub name: String,
    #[serde(with = "null_if_empty")]
    pub objects: Vec<ObjectDiff>,
    pub r#type: DiffType,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct TaskGroupDiff {
    #[serde(with = "null_if_empty")]
    pub fields: Vec<FieldDiff>,
    pub name: String,
    #[serde(with = "null_if_empty")]
    pub objects: Vec<ObjectDiff>,
    #[serde(with = "null_if_empty")]
    pub tasks: Vec<TaskDiff>,
    pub r#type: DiffType,
    /// Update type ("create", "create/destroy update", ...) -> count, from the plan.
    pub updates: Option<BTreeMap<String, u64>>,
}

#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "PascalCase")]
pub struct JobDiff {
    #[serde(with = "null_if_empty")]
    pub fields: Vec<FieldDiff>,
    #[serde(rename = "ID")]
    pub id: String,
    #[serde(with = "null_if_empty")]
    pub objects: Vec<ObjectDiff>,
    #[serde(with = "null_if_empty")]
    pub task_groups: Vec<TaskGroupDiff>,
    pub r#type: DiffType,
}

/// `Vec` fields that Go writes as `null` when empty and that may arrive as `null`.
mod null_if_empty {
    use super::*;

    pub fn serialize<T: Serialize, S: Serializer>(v: &[T], s: S) -> Result<S::Ok, S::Error> {
        if v.is_empty() {
            s.serialize_none()
        } else {
            v.serialize(s)
        }
    }

    pub fn deserialize<'de, T: Deserialize<'de>, D: Deserializer<'de>>(
        d: D,
    ) -> Result<Vec<T>, D::Error> {
        Ok(Option::<Vec<T>>::deserialize(d)?.unwrap_or_default())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn empty_lists_are_null_and_types_are_names() {
        let d = ObjectDiff {
            name: "Config".into(),
            r#type: DiffType::Edited,
            ..Default::default()
        };
        let v = serde_json::to_value(&d).expect("serialise");
        assert_eq!(
            v,
            serde_json::json!({"Fields": null, "Name": "Config", "Objects": null, "Type": "Edited"})
        );
        let back: ObjectDiff = serde_json::from_value(v).expect("deserialise");
        assert_eq!(back, d);
    }
}
