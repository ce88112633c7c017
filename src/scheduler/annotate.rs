//! Plan annotations for `nomad job plan` (Nomad's `scheduler/annotate.go` and the reconciler's
//! `DesiredUpdates`): what a dry-run plan would do per task group, and the notes on the job
//! diff that explain it ("1 create", "forces create/destroy update").
//!
//! The counts are read off the finished plan rather than kept by the reconciler, so they
//! describe exactly what would be submitted: a new alloc that replaces one stopped for an
//! update is a destructive update, one that replaces a migrated alloc is a migration, a
//! canary is a canary, an existing alloc placed again is an in-place update, and a live
//! alloc the plan does not touch is ignored. Placements that failed count as places.

use std::collections::BTreeMap;
use std::sync::Arc;

use super::reconcile::{STATUS_ALLOC_MIGRATING, STATUS_ALLOC_UPDATING};
use crate::api::{
    AllocMetric, Allocation, DesiredUpdates, DiffType, Job, JobDiff, Plan, TaskDiff, TaskGroupDiff,
};

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

/// Per task group, what `plan` would do given the job's `existing` allocs.
pub fn desired_updates(
    job: &Job,
    plan: &Plan,
    existing: &[Arc<Allocation>],
    failed: Option<&BTreeMap<String, AllocMetric>>,
) -> BTreeMap<String, DesiredUpdates> {
    let mut out: BTreeMap<String, DesiredUpdates> = job
        .task_groups
        .iter()
        .map(|tg| (tg.name.clone(), DesiredUpdates::default()))
        .collect();
    let stopped: BTreeMap<&str, &Allocation> = plan
        .node_update
        .values()
        .flatten()
        .map(|a| (a.id.as_str(), a))
        .collect();
    let existing_by_id: BTreeMap<&str, &Arc<Allocation>> =
        existing.iter().map(|a| (a.id.as_str(), a)).collect();
    let mut replaced: Vec<&str> = Vec::new();
    let mut touched: Vec<&str> = Vec::new();
    for alloc in plan.node_allocation.values().flatten() {
        let Some(u) = out.get_mut(&alloc.task_group) else {
            continue;
        };
        if let Some(old) = existing_by_id.get(alloc.id.as_str()) {
            touched.push(&alloc.id);
            if old.followup_eval_id != alloc.followup_eval_id {
                u.reschedule_later += 1;
            } else {
                u.in_place_update += 1;
            }
            continue;
        }
        let prev = stopped.get(alloc.previous_allocation.as_str());
        let prev_desc = prev.map(|p| p.desired_description.as_str());
        if is_canary(alloc) {
            u.canary += 1;
        } else if prev_desc == Some(STATUS_ALLOC_UPDATING) {
            u.destructive_update += 1;
            replaced.push(&alloc.previous_allocation);
        } else if prev_desc == Some(STATUS_ALLOC_MIGRATING) {
            u.migrate += 1;
            replaced.push(&alloc.previous_allocation);
        } else {
            u.place += 1;
        }
    }
    for alloc in plan.node_update.values().flatten() {
        if replaced.contains(&alloc.id.as_str()) {
            continue;
        }
        if let Some(u) = out.get_mut(&alloc.task_group) {
            u.stop += 1;
        }
    }
    // Live allocs the plan leaves alone; those of an older job version stayed only because
    // their replacement could not be placed.
    let mut outdated: BTreeMap<&str, u64> = BTreeMap::new();
    for alloc in existing {
        let live = alloc.desired_status == "run" && !alloc.client_terminal();
        let id = alloc.id.as_str();
        if live && !stopped.contains_key(id) && !touched.contains(&id) {
            if let Some(u) = out.get_mut(&alloc.task_group) {
                u.ignore += 1;
            }
            let old_version = alloc
                .job
                .as_ref()
                .is_some_and(|j| j.job_modify_index != job.job_modify_index);
            if old_version {
                *outdated.entry(alloc.task_group.as_str()).or_default() += 1;
            }
        }
    }
    for (tg, metric) in failed.into_iter().flatten() {
        let Some(u) = out.get_mut(tg) else {
            continue;
        };
        let failures = metric.coalesced_failures.max(0) as u64 + 1;
        let destructive = failures.min(outdated.get(tg.as_str()).copied().unwrap_or(0));
        u.ignore -= destructive;
        u.destructive_update += destructive;
        u.place += failures - destructive;
    }
    out
}

fn is_canary(alloc: &Allocation) -> bool {
    alloc
        .deployment_status
        .as_ref()
        .and_then(|d| d.get("Canary"))
        .and_then(serde_json::Value::as_bool)
        .unwrap_or(false)
}

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
