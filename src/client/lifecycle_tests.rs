use super::*;
use crate::api::TASK_STATE_RUNNING;

fn task(name: &str, hook: &str, sidecar: bool) -> Task {
    Task {
        name: name.into(),
        lifecycle: (!hook.is_empty())
            .then(|| serde_json::json!({"Hook": hook, "Sidecar": sidecar})),
        ..Default::default()
    }
}

fn st(state: &str, failed: bool) -> TaskState {
    TaskState {
        state: state.into(),
        failed,
        ..Default::default()
    }
}

fn states(list: &[(&str, &str, bool)]) -> BTreeMap<String, TaskState> {
    list.iter()
        .map(|(n, s, f)| (n.to_string(), st(s, *f)))
        .collect()
}

/// A group with one task of every stage.
fn full_group() -> Vec<Task> {
    vec![
        task("init", HOOK_PRESTART, false),
        task("proxy", HOOK_PRESTART, true),
        task("main", "", false),
        task("announce", HOOK_POSTSTART, false),
        task("log", HOOK_POSTSTART, true),
        task("cleanup", HOOK_POSTSTOP, false),
    ]
}

#[test]
fn stages_from_the_lifecycle_block() {
    let cases = [
        ("", false, Stage::Main),
        (HOOK_PRESTART, false, Stage::PrestartEphemeral),
        (HOOK_PRESTART, true, Stage::PrestartSidecar),
        (HOOK_POSTSTART, false, Stage::PoststartEphemeral),
        (HOOK_POSTSTART, true, Stage::PoststartSidecar),
        (HOOK_POSTSTOP, false, Stage::Poststop),
        (HOOK_POSTSTOP, true, Stage::Poststop),
    ];
    for (hook, sidecar, want) in cases {
        assert_eq!(
            Stage::of(&task("t", hook, sidecar)),
            want,
            "{hook} {sidecar}"
        );
    }
}

#[test]
fn success_restarts_only_service_mains_and_sidecars() {
    use Stage::*;
    let cases = [
        (Main, false, true),
        (Main, true, false),
        (PrestartSidecar, true, true),
        (PoststartSidecar, false, true),
        (PrestartEphemeral, false, false),
        (PoststartEphemeral, false, false),
        (Poststop, false, false),
    ];
    for (stage, batch, want) in cases {
        assert_eq!(stage.restarts_on_success(batch), want, "{stage:?} {batch}");
    }
}

#[test]
fn walks_the_phases_of_a_full_group() {
    let mut c = Coordinator::new(&full_group());
    let p = TASK_STATE_PENDING;
    let r = TASK_STATE_RUNNING;
    let d = TASK_STATE_DEAD;
    type Step<'a> = (&'a [(&'a str, &'a str, bool)], Phase, &'a [Stage]);
    let steps: &[Step] = &[
        (
            &[
                ("init", p, false),
                ("proxy", p, false),
                ("main", p, false),
                ("announce", p, false),
                ("log", p, false),
                ("cleanup", p, false),
            ],
            Phase::Prestart,
            &[Stage::PrestartEphemeral, Stage::PrestartSidecar],
        ),
        // The init task runs, the sidecar is not up yet: main still waits.
        (
            &[
                ("init", d, false),
                ("proxy", p, false),
                ("main", p, false),
                ("announce", p, false),
                ("log", p, false),
                ("cleanup", p, false),
            ],
            Phase::Prestart,
            &[Stage::PrestartEphemeral, Stage::PrestartSidecar],
        ),
        (
            &[
                ("init", d, false),
                ("proxy", r, false),
                ("main", p, false),
                ("announce", p, false),
                ("log", p, false),
                ("cleanup", p, false),
            ],
            Phase::Main,
            &[Stage::PrestartSidecar, Stage::Main],
        ),
        (
            &[
                ("init", d, false),
                ("proxy", r, false),
                ("main", r, false),
                ("announce", p, false),
                ("log", p, false),
                ("cleanup", p, false),
            ],
            Phase::Poststart,
            &[
                Stage::PrestartSidecar,
                Stage::Main,
                Stage::PoststartEphemeral,
                Stage::PoststartSidecar,
            ],
        ),
        (
            &[
                ("init", d, false),
                ("proxy", r, false),
                ("main", r, false),
                ("announce", d, false),
                ("log", r, false),
                ("cleanup", p, false),
            ],
            Phase::WaitAlloc,
            &[Stage::PrestartSidecar, Stage::Main, Stage::PoststartSidecar],
        ),
        (
            &[
                ("init", d, false),
                ("proxy", d, false),
                ("main", d, false),
                ("announce", d, false),
                ("log", d, false),
                ("cleanup", p, false),
            ],
            Phase::Poststop,
            &[Stage::Poststop],
        ),
    ];
    for (i, (s, phase, allowed)) in steps.iter().enumerate() {
        c.update(&states(s));
        assert_eq!(c.phase(), *phase, "step {i}");
        for stage in STAGES {
            assert_eq!(
                c.allows(stage),
                allowed.contains(&stage),
                "step {i}: {stage:?}"
            );
        }
    }
}

#[test]
fn a_failed_init_task_keeps_main_from_starting() {
    let mut c = Coordinator::new(&full_group());
    let all_pending = states(&[
        ("init", "pending", false),
        ("proxy", "pending", false),
        ("main", "pending", false),
        ("announce", "pending", false),
        ("log", "pending", false),
        ("cleanup", "pending", false),
    ]);
    c.update(&all_pending);
    let mut s = all_pending.clone();
    s.insert("init".into(), st(TASK_STATE_DEAD, true));
    s.insert("proxy".into(), st(TASK_STATE_RUNNING, false));
    c.update(&s);
    assert_eq!(c.phase(), Phase::Prestart);
    assert!(!c.allows(Stage::Main));
}

#[test]
fn without_hooks_main_tasks_start_at_once_and_poststop_runs_last() {
    let tasks = vec![task("a", "", false), task("b", "", false)];
    let mut c = Coordinator::new(&tasks);
    c.update(&states(&[("a", "pending", false), ("b", "pending", false)]));
    assert_eq!(c.phase(), Phase::Main);
    assert!(c.allows(Stage::Main));

    let tasks = vec![task("a", "", false), task("z", HOOK_POSTSTOP, false)];
    let mut c = Coordinator::new(&tasks);
    c.update(&states(&[("a", "pending", false), ("z", "pending", false)]));
    assert!(c.allows(Stage::Main) && !c.allows(Stage::Poststop));
    c.update(&states(&[("a", "running", false), ("z", "pending", false)]));
    assert_eq!(c.phase(), Phase::WaitAlloc);
    // A main task that failed still lets the poststop task run.
    c.update(&states(&[("a", "dead", true), ("z", "pending", false)]));
    assert_eq!(c.phase(), Phase::Poststop);
    assert!(c.allows(Stage::Poststop) && !c.allows(Stage::Main));
}

#[test]
fn a_restored_alloc_resumes_where_its_tasks_are() {
    let mut c = Coordinator::new(&full_group());
    c.restore(&states(&[
        ("init", "dead", false),
        ("proxy", "running", false),
        ("main", "running", false),
        ("announce", "dead", false),
        ("log", "running", false),
        ("cleanup", "pending", false),
    ]));
    assert_eq!(c.phase(), Phase::WaitAlloc);
}
