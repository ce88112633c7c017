use std::collections::BTreeMap;

use serde_json::json;

use super::*;
use crate::api::{Constraint, DesiredUpdates};
use crate::scheduler::annotate::{annotate, ANNOTATION_FORCES_DESTRUCTIVE_UPDATE};
use crate::scheduler::testing;

fn with_args(args: &[&str]) -> Job {
    let mut j = testing::job(1);
    j.task_groups[0].tasks[0].config = Some(BTreeMap::from([
        ("command".to_string(), json!("/bin/sh")),
        ("args".to_string(), json!(args)),
    ]));
    j
}

#[test]
fn identical_jobs_diff_to_none() {
    let a = with_args(&["-c", "sleep 1"]);
    let mut b = a.clone();
    // Server-maintained fields are no change.
    b.version = 3;
    b.job_modify_index = 99;
    b.submit_time = 12345;
    let d = job_diff(Some(&a), Some(&b), true).expect("diff");
    assert_eq!(d.r#type, DiffType::None, "{d:#?}");
    assert!(d.fields.is_empty() && d.objects.is_empty());
    assert_eq!(d.task_groups.len(), 1);
    assert_eq!(d.task_groups[0].r#type, DiffType::None);
    assert_eq!(d.task_groups[0].tasks[0].r#type, DiffType::None);
}

#[test]
fn config_edit_is_contextual_like_nomads_sample() {
    let old = with_args(&["-c", "echo hello; exec sleep 1000"]);
    let new = with_args(&["-c", "echo hello; exec sleep 2000"]);
    let mut d = job_diff(Some(&old), Some(&new), true).expect("diff");
    let updates = BTreeMap::from([(
        "g".to_string(),
        DesiredUpdates {
            destructive_update: 1,
            ..Default::default()
        },
    )]);
    annotate(&mut d, &updates);
    let v = serde_json::to_value(&d).expect("json");
    assert_eq!(
        v,
        json!({
            "Fields": null, "ID": "web", "Objects": null, "Type": "Edited",
            "TaskGroups": [{
                "Fields": null, "Name": "g", "Objects": null, "Type": "Edited",
                "Updates": {"create/destroy update": 1},
                "Tasks": [{
                    "Annotations": [ANNOTATION_FORCES_DESTRUCTIVE_UPDATE],
                    "Fields": null, "Name": "t", "Type": "Edited",
                    "Objects": [{
                        "Name": "Config", "Type": "Edited", "Objects": null,
                        "Fields": [
                            {"Annotations": null, "Name": "args[0]", "New": "-c", "Old": "-c", "Type": "None"},
                            {"Annotations": null, "Name": "args[1]", "New": "echo hello; exec sleep 2000",
                             "Old": "echo hello; exec sleep 1000", "Type": "Edited"},
                            {"Annotations": null, "Name": "command", "New": "/bin/sh", "Old": "/bin/sh", "Type": "None"}
                        ]
                    }]
                }]
            }]
        })
    );
}

#[test]
fn new_job_is_added_with_its_fields() {
    let new = testing::job(2);
    let d = job_diff(None, Some(&new), true).expect("diff");
    assert_eq!(d.r#type, DiffType::Added);
    let names: Vec<_> = d.fields.iter().map(|f| f.name.as_str()).collect();
    assert!(
        names.contains(&"Priority") && names.contains(&"Type"),
        "{names:?}"
    );
    assert!(d
        .fields
        .iter()
        .all(|f| f.r#type == DiffType::Added && f.old.is_empty()));
    assert_eq!(d.objects[0].name, "Datacenters");
    assert_eq!(d.objects[0].r#type, DiffType::Added);
    let tg = &d.task_groups[0];
    assert_eq!(tg.r#type, DiffType::Added);
    let count = tg.fields.iter().find(|f| f.name == "Count").expect("count");
    assert_eq!((count.old.as_str(), count.new.as_str()), ("", "2"));
    assert_eq!(tg.tasks[0].r#type, DiffType::Added);
}

#[test]
fn count_change_is_annotated_and_meta_is_flattened() {
    let old = testing::job(1);
    let mut new = testing::job(3);
    new.meta = Some(BTreeMap::from([("owner".to_string(), "ops".to_string())]));
    let mut d = job_diff(Some(&old), Some(&new), true).expect("diff");
    annotate(&mut d, &BTreeMap::new());
    assert_eq!(d.r#type, DiffType::Edited);
    let meta = &d.fields[0];
    assert_eq!(
        (meta.name.as_str(), meta.r#type),
        ("Meta[owner]", DiffType::Added)
    );
    let count = &d.task_groups[0].fields[0];
    assert_eq!(count.name, "Count");
    assert_eq!((count.old.as_str(), count.new.as_str()), ("1", "3"));
    assert_eq!(count.annotations, vec!["forces create".to_string()]);
    // The task is untouched.
    assert_eq!(d.task_groups[0].tasks[0].r#type, DiffType::None);
}

#[test]
fn constraints_are_a_set_and_datacenters_a_string_set() {
    let c = |v: &str| Constraint {
        l_target: "${attr.kernel.name}".into(),
        operand: "=".into(),
        r_target: v.into(),
    };
    let mut old = testing::job(1);
    old.constraints = Some(vec![c("linux")]);
    let mut new = old.clone();
    new.constraints = Some(vec![c("darwin")]);
    new.datacenters = Some(vec!["dc1".into(), "dc2".into()]);
    let d = job_diff(Some(&old), Some(&new), false).expect("diff");
    let summary: Vec<_> = d
        .objects
        .iter()
        .map(|o| (o.name.as_str(), o.r#type))
        .collect();
    assert_eq!(
        summary,
        vec![
            ("Datacenters", DiffType::Added),
            ("Constraint", DiffType::Added),
            ("Constraint", DiffType::Deleted),
        ]
    );
    let dc = &d.objects[0].fields;
    assert_eq!(dc.len(), 1);
    assert_eq!(dc[0].new, "dc2");
}

#[test]
fn removed_group_and_task_changes_annotate_tasks() {
    let old = testing::job(1);
    let mut new = old.clone();
    new.task_groups[0].tasks[0].driver = "exec".into();
    new.task_groups[0].tasks[0].kill_timeout = Some(5);
    let mut d = job_diff(Some(&old), Some(&new), true).expect("diff");
    annotate(&mut d, &BTreeMap::new());
    let t = &d.task_groups[0].tasks[0];
    let fields: Vec<_> = t
        .fields
        .iter()
        .map(|f| (f.name.as_str(), f.r#type))
        .collect();
    assert_eq!(
        fields,
        vec![
            ("Driver", DiffType::Edited),
            ("KillTimeout", DiffType::Added)
        ]
    );
    assert_eq!(
        t.annotations,
        vec![ANNOTATION_FORCES_DESTRUCTIVE_UPDATE.to_string()]
    );

    let gone = job_diff(Some(&old), None, false).expect("diff");
    assert_eq!(gone.r#type, DiffType::Deleted);
    assert_eq!(gone.task_groups[0].r#type, DiffType::Deleted);
}

#[test]
fn jobs_with_different_ids_do_not_diff() {
    let a = testing::job(1);
    let mut b = a.clone();
    b.id = "other".into();
    assert!(matches!(
        job_diff(Some(&a), Some(&b), true),
        Err(DiffError::DifferentIds { .. })
    ));
}
