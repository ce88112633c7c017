//! Job diff annotations for `nomad job plan` (Nomad's `scheduler/annotate.go`): the notes on
//! the diff that explain what the plan would do ("1 create", "forces create/destroy update").
//! The per-group counts come from the scheduler's plan annotations (`DesiredUpdates`, counted
//! by the reconcilers as the eval is scheduled).

use std::collections::BTreeMap;

use crate::api::{DesiredUpdates, DiffType, JobDiff, TaskDiff, TaskGroupDiff};

pub const ANNOTATION_FORCES_CREATE: &str = "forces create";
pub const ANNOTATION_FORCES_DESTROY: &str = "forces destroy";
pub const ANNOTATION_FORCES_INPLACE_UPDATE: &str = "forces in-place update";
pub const ANNOTATION_FORCES_DESTRUCTIVE_UPDATE: &str = "forces create/destroy update";

pub const UPDATE_TYPE_IGNORE: &str = "ignore";
pub const UPDATE_TYPE_CREATE: &str = "create";
pub const UPDATE_TYPE_DESTROY: &str = "destroy";
pub const UPDATE_TYPE_MIGRATE: &str = "migrate";
pub const UPDATE_TYPE_CANARY: &str = "canary";
pub const UPDATE_TYPE_INPLACE_UPDATE: &str = "in-place update";
pub const UPDATE_TYPE_DESTRUCTIVE_UPDATE: &str = "create/destroy update";

/// Add the plan's per-group counts and the count/task notes to a job diff.
pub fn annotate(diff: &mut JobDiff, updates: &BTreeMap<String, DesiredUpdates>) {
    for tg in &mut diff.task_groups {
        annotate_group(tg, updates.get(&tg.name));
    }
}

fn annotate_group(diff: &mut TaskGroupDiff, updates: Option<&DesiredUpdates>) {
    if let Some(u) = updates {
        let counts = [
            (UPDATE_TYPE_IGNORE, u.ignore),
            (UPDATE_TYPE_CREATE, u.place),
            (UPDATE_TYPE_MIGRATE, u.migrate),
            (UPDATE_TYPE_DESTROY, u.stop),
            (UPDATE_TYPE_CANARY, u.canary),
            (UPDATE_TYPE_INPLACE_UPDATE, u.in_place_update),
            (UPDATE_TYPE_DESTRUCTIVE_UPDATE, u.destructive_update),
        ];
        let map: BTreeMap<String, u64> = counts
            .into_iter()
            .filter(|(_, n)| *n != 0)
            .map(|(k, n)| (k.to_string(), n))
            .collect();
        diff.updates = Some(map);
    }
    if let Some(count) = diff.fields.iter_mut().find(|f| f.name == "Count") {
        let parse = |s: &str| s.parse::<i64>().unwrap_or(0);
        let (old, new) = (parse(&count.old), parse(&count.new));
        if old < new {
            count.annotations.push(ANNOTATION_FORCES_CREATE.to_string());
        } else if new < old {
            count
                .annotations
                .push(ANNOTATION_FORCES_DESTROY.to_string());
        }
    }
    let group_type = diff.r#type;
    for task in &mut diff.tasks {
        annotate_task(task, group_type);
    }
}

fn annotate_task(diff: &mut TaskDiff, group_type: DiffType) {
    if diff.r#type == DiffType::None {
        return;
    }
    if matches!(group_type, DiffType::Added | DiffType::Deleted) {
        match diff.r#type {
            DiffType::Added => return diff.annotations.push(ANNOTATION_FORCES_CREATE.into()),
            DiffType::Deleted => return diff.annotations.push(ANNOTATION_FORCES_DESTROY.into()),
            _ => {}
        }
    }
    // Every field change but the kill timeout replaces the task; of the objects, only
    // services, constraints, affinities, spreads and log settings (short of turning logging
    // on or off) are applied in place.
    let destructive = diff.fields.iter().any(|f| f.name != "KillTimeout")
        || diff.objects.iter().any(|o| match o.name.as_str() {
            "Service" | "Constraint" | "Affinity" | "Spread" => false,
            "LogConfig" => o.fields.iter().any(|f| f.name == "Disabled"),
            _ => true,
        });
    diff.annotations.push(if destructive {
        ANNOTATION_FORCES_DESTRUCTIVE_UPDATE.into()
    } else {
        ANNOTATION_FORCES_INPLACE_UPDATE.into()
    });
}
