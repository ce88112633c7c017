use std::time::Duration;

use super::*;
use crate::api::{RestartPolicy, MINUTE, SECOND};

fn machine(attempts: i32, mode: &str, batch: bool) -> TaskMachine {
    let policy = RestartPolicy {
        attempts,
        delay: 15 * SECOND,
        interval: 30 * MINUTE,
        mode: mode.into(),
        render_templates: false,
    };
    TaskMachine::new(RestartTracker::new(policy, batch, 0, 42), 0)
}

fn exit(code: i32, signal: i32) -> Event {
    Event::Exited(ExitResult {
        exit_code: code,
        signal,
        ..Default::default()
    })
}

fn kill() -> Event {
    Event::Kill {
        signal: "SIGINT".into(),
        kill_timeout: Duration::from_secs(5),
        delay: ShutdownDelay::None,
    }
}

fn types(m: &TaskMachine) -> Vec<&str> {
    m.state.events.iter().map(|e| e.r#type.as_str()).collect()
}

fn messages(m: &TaskMachine) -> Vec<&str> {
    m.state
        .events
        .iter()
        .map(|e| e.display_message.as_str())
        .collect()
}

#[test]
fn batch_task_runs_to_completion() {
    let mut m = machine(3, "fail", true);
    assert_eq!(m.next(Event::Begin, 1), vec![Action::Start { first: true }]);
    assert_eq!(m.next(Event::Started, 2), vec![]);
    assert_eq!(m.state.state, "running");
    assert_eq!(m.next(exit(0, 0), 3), vec![Action::Finish]);
    assert_eq!(
        types(&m),
        ["Received", "Task Setup", "Started", "Terminated"]
    );
    assert_eq!(
        messages(&m),
        [
            "Task received by client",
            "Building Task Directory",
            "Task started by client",
            "Exit Code: 0"
        ]
    );
    assert_eq!(m.state.state, "dead");
    assert!(!m.state.failed);
    assert!(m.state.started_at.is_some() && m.state.finished_at.is_some());
}

#[test]
fn service_exit_restarts_then_fails_after_attempts() {
    let mut m = machine(2, "fail", false);
    m.next(Event::Begin, 0);
    m.next(Event::Started, 0);
    for i in 0..2 {
        let actions = m.next(exit(1, 0), SECOND * (i + 1));
        let [Action::ScheduleRestart(d)] = actions.as_slice() else {
            panic!("{actions:?}")
        };
        assert!(*d >= Duration::from_secs(15) && *d < Duration::from_millis(18_750));
        assert_eq!(m.state.state, "pending");
        let last = m.state.events.last().unwrap();
        assert_eq!(last.r#type, "Restarting");
        assert!(last.display_message.starts_with("Task restarting in 1"));
        assert!(last.display_message.ends_with('s'));
        assert_eq!(
            m.next(Event::RestartDue, 0),
            vec![Action::Start { first: false }]
        );
        m.next(Event::Started, 0);
    }
    assert_eq!(m.state.restarts, 2);
    assert!(m.state.last_restart.is_some());
    assert_eq!(m.next(exit(1, 0), 10 * SECOND), vec![Action::Finish]);
    let last = m.state.events.last().unwrap();
    assert_eq!(last.r#type, "Not Restarting");
    assert_eq!(
        last.display_message,
        "Exceeded allowed attempts 2 in interval 30m0s and mode is \"fail\""
    );
    assert!(m.state.failed);
    assert_eq!(m.state.state, "dead");
}

#[test]
fn zero_attempts_service_exit_is_not_restarting() {
    let mut m = machine(0, "fail", false);
    m.next(Event::Begin, 0);
    m.next(Event::Started, 0);
    m.next(exit(0, 0), 0);
    assert_eq!(
        m.state.events.last().unwrap().display_message,
        "Policy allows no restarts"
    );
    assert!(m.state.failed);
}

#[test]
fn kill_while_running_emits_killing_terminated_killed() {
    let mut m = machine(2, "fail", false);
    m.next(Event::Begin, 0);
    m.next(Event::Started, 0);
    assert_eq!(
        m.next(kill(), 1),
        vec![Action::StopDriver {
            signal: "SIGINT".into(),
            timeout: Duration::from_secs(5),
            after: Duration::ZERO,
        }]
    );
    assert_eq!(m.next(kill(), 1), vec![], "a second kill is ignored");
    assert_eq!(m.next(exit(130, 2), 2), vec![Action::Finish]);
    let tail: Vec<_> = m.state.events.iter().skip(3).collect();
    assert_eq!(tail[0].r#type, "Killing");
    assert_eq!(
        tail[0].display_message,
        "Sent interrupt. Waiting 5s before force killing"
    );
    assert_eq!(tail[0].details["kill_timeout"], "5s");
    assert_eq!(tail[1].display_message, "Exit Code: 130, Signal: 2");
    assert_eq!(tail[2].r#type, "Killed");
    assert_eq!(tail[2].display_message, "Task successfully killed");
    assert!(!m.state.failed);
    assert_eq!(m.state.restarts, 0);
}

#[test]
fn unrecoverable_start_error_fails_and_recoverable_restarts() {
    let mut m = machine(2, "fail", false);
    m.next(Event::Begin, 0);
    let a = m.next(
        Event::StartFailed {
            error: "binary \"nope\" could not be found".into(),
            recoverable: false,
        },
        1,
    );
    assert_eq!(a, vec![Action::Finish]);
    assert_eq!(types(&m)[2..], ["Driver Failure", "Not Restarting"]);
    assert_eq!(
        m.state.events[2].display_message,
        "binary \"nope\" could not be found"
    );
    assert_eq!(m.state.events[3].display_message, "Error was unrecoverable");
    assert!(m.state.failed);

    let mut r = machine(2, "fail", false);
    r.next(Event::Begin, 0);
    let a = r.next(
        Event::StartFailed {
            error: "try later".into(),
            recoverable: true,
        },
        1,
    );
    assert!(matches!(a.as_slice(), [Action::ScheduleRestart(_)]));
}

#[test]
fn kill_during_restart_wait_or_before_start_goes_dead() {
    let mut m = machine(2, "delay", false);
    m.next(Event::Begin, 0);
    m.next(Event::Started, 0);
    m.next(exit(1, 0), 0);
    assert_eq!(m.phase, Phase::RestartWait);
    assert_eq!(m.next(kill(), 1), vec![Action::Finish]);
    assert_eq!(m.state.events.last().unwrap().r#type, "Killing");
    assert_eq!(m.state.state, "dead");

    let mut p = machine(2, "fail", false);
    assert_eq!(p.next(kill(), 1), vec![Action::Finish]);
    assert_eq!(p.next(Event::Begin, 2), vec![], "dead tasks do not start");
}

#[test]
fn kill_during_start_is_applied_once_started() {
    let mut m = machine(2, "fail", false);
    m.next(Event::Begin, 0);
    assert_eq!(m.next(kill(), 1), vec![]);
    let a = m.next(Event::Started, 2);
    assert!(matches!(a.as_slice(), [Action::StopDriver { .. }]));
    assert_eq!(m.phase, Phase::Killing);
}

#[test]
fn keeps_the_last_ten_events() {
    let mut m = machine(100, "fail", false);
    m.next(Event::Begin, 0);
    for _ in 0..10 {
        m.next(Event::Started, 0);
        m.next(exit(1, 0), 0);
        m.next(Event::RestartDue, 0);
    }
    assert_eq!(m.state.events.len(), MAX_EVENTS);
    // 32 events were recorded; the oldest (Received, Task Setup, ...) were dropped.
    assert!(types(&m).iter().all(|t| *t != "Received"));
    assert_eq!(types(&m)[..3], ["Restarting", "Started", "Terminated"]);
    assert_eq!(m.state.restarts, 10);
}

#[test]
fn rfc3339_matches_go_nano_format() {
    assert_eq!(rfc3339(0), "1970-01-01T00:00:00Z");
    assert_eq!(
        rfc3339(1_796_217_196_146_310_441),
        "2026-12-02T13:13:16.146310441Z"
    );
    assert_eq!(rfc3339(1_500_000_000), "1970-01-01T00:00:01.5Z");
}

#[test]
fn user_restart_stops_and_starts_again_without_using_the_policy() {
    // Zero attempts: an exit on its own would not restart, a user restart still does.
    let mut m = machine(0, "fail", false);
    m.next(Event::Begin, 1);
    m.next(Event::Started, 2);
    let restart = Event::Restart {
        signal: "SIGINT".into(),
        kill_timeout: Duration::from_secs(5),
    };
    assert_eq!(
        m.next(restart.clone(), 3),
        vec![Action::StopDriver {
            signal: "SIGINT".into(),
            timeout: Duration::from_secs(5),
            after: Duration::ZERO,
        }]
    );
    // Only a running task restarts; a second request while stopping is ignored.
    assert_eq!(m.next(restart, 4), vec![]);
    assert_eq!(
        m.next(exit(130, 2), 5),
        vec![Action::ScheduleRestart(Duration::ZERO)]
    );
    assert_eq!(m.state.restarts, 1);
    assert_eq!(m.state.state, "pending");
    assert!(!m.state.failed);
    assert_eq!(
        m.next(Event::RestartDue, 6),
        vec![Action::Start { first: false }]
    );
    m.next(Event::Started, 7);
    assert_eq!(
        types(&m)[2..],
        ["Started", "Terminated", "Restarting", "Started"]
    );
    assert_eq!(messages(&m)[4], "Task restarting in 0s");
}

#[test]
fn kill_during_user_restart_kills() {
    let mut m = machine(2, "fail", false);
    m.next(Event::Begin, 1);
    m.next(Event::Started, 2);
    m.next(
        Event::Restart {
            signal: "SIGINT".into(),
            kill_timeout: Duration::from_secs(5),
        },
        3,
    );
    assert!(matches!(m.next(kill(), 4)[..], [Action::StopDriver { .. }]));
    assert_eq!(m.next(exit(130, 2), 5), vec![Action::Finish]);
    assert_eq!(m.state.state, "dead");
    assert_eq!(types(&m).last(), Some(&"Killed"));
}

#[test]
fn shutdown_delay_is_waited_after_the_killing_event_unless_skipped() {
    let delay = Duration::from_secs(3);
    for (d, after, last) in [
        (
            ShutdownDelay::Wait(delay),
            delay,
            events::TASK_WAITING_SHUTDOWN_DELAY,
        ),
        (
            ShutdownDelay::Skip(delay),
            Duration::ZERO,
            events::TASK_SKIPPING_SHUTDOWN_DELAY,
        ),
    ] {
        let mut m = machine(2, "fail", false);
        m.next(Event::Begin, 0);
        m.next(Event::Started, 0);
        let ev = Event::Kill {
            signal: "SIGINT".into(),
            kill_timeout: Duration::from_secs(5),
            delay: d,
        };
        assert_eq!(
            m.next(ev, 1),
            vec![Action::StopDriver {
                signal: "SIGINT".into(),
                timeout: Duration::from_secs(5),
                after,
            }]
        );
        let t = types(&m);
        assert_eq!(&t[t.len() - 2..], &["Killing", last], "{d:?}");
        m.next(exit(130, 2), 5);
        assert!(m.is_dead());
        assert!(!m.state.failed);
    }
}
