//! Task events with Nomad's types, `Details` keys and `DisplayMessage` texts
//! (`TaskEvent.PopulateEventDisplayMessage`).

use crate::api::{
    TaskEvent, TASK_DRIVER_FAILURE, TASK_KILLED, TASK_KILLING, TASK_NOT_RESTARTING, TASK_RECEIVED,
    TASK_RESTARTING, TASK_SETUP, TASK_SETUP_FAILURE, TASK_SIBLING_FAILED, TASK_STARTED,
    TASK_TERMINATED,
};
use crate::drivers::{format_go_nanos, DriverTaskEvent, ExitResult};

use super::restarts::REASON_WITHIN_POLICY;

/// Nomad's `TaskDriverMessage`: an informational event a driver emitted.
pub const TASK_DRIVER_MESSAGE: &str = "Driver";
pub const TASK_BUILDING_TASK_DIR: &str = "Building Task Directory";
pub const TASK_LEADER_DEAD: &str = "Leader Task Dead";
pub const TASK_MAIN_DEAD: &str = "Main Tasks Dead";
pub const TASK_WAITING_SHUTDOWN_DELAY: &str = "Waiting for shutdown delay";
pub const TASK_SKIPPING_SHUTDOWN_DELAY: &str = "Skipping shutdown delay";

fn event(kind: &str, now: i64, display: String) -> TaskEvent {
    let mut e = TaskEvent::new(kind, now);
    e.display_message = display;
    e
}

pub fn received(now: i64) -> TaskEvent {
    event(TASK_RECEIVED, now, "Task received by client".into())
}

pub fn setup_building_dir(now: i64) -> TaskEvent {
    let mut e = event(TASK_SETUP, now, TASK_BUILDING_TASK_DIR.into());
    e.message = TASK_BUILDING_TASK_DIR.into();
    e.details
        .insert("message".into(), TASK_BUILDING_TASK_DIR.into());
    e
}

pub fn setup_failure(now: i64, err: &str) -> TaskEvent {
    let mut e = event(TASK_SETUP_FAILURE, now, err.to_string());
    e.setup_error = err.to_string();
    e.details.insert("setup_error".into(), err.to_string());
    e.fails_task = true;
    e.details.insert("fails_task".into(), "true".into());
    e
}

pub fn started(now: i64) -> TaskEvent {
    event(TASK_STARTED, now, "Task started by client".into())
}

pub fn driver_failure(now: i64, err: &str) -> TaskEvent {
    let display = if err.is_empty() {
        "Failed to start task".to_string()
    } else {
        err.to_string()
    };
    let mut e = event(TASK_DRIVER_FAILURE, now, display);
    e.driver_error = err.to_string();
    e.details.insert("driver_error".into(), err.to_string());
    e
}

/// A driver's event as the task event Nomad's alloc runner records for it
/// (`GetTaskEventHandler`): type "Driver", the message as `DriverMessage` and display
/// message, the annotations as `Details`, the driver's timestamp.
pub fn driver_message(ev: &DriverTaskEvent) -> TaskEvent {
    let mut e = event(TASK_DRIVER_MESSAGE, ev.timestamp, ev.message.clone());
    e.driver_message = ev.message.clone();
    e.details = ev.annotations.clone();
    e
}

pub fn terminated(now: i64, r: &ExitResult) -> TaskEvent {
    let mut parts = vec![format!("Exit Code: {}", r.exit_code)];
    if r.signal != 0 {
        parts.push(format!("Signal: {}", r.signal));
    }
    if let Some(msg) = &r.err {
        parts.push(format!("Exit Message: {msg:?}"));
    }
    let mut e = event(TASK_TERMINATED, now, parts.join(", "));
    e.exit_code = r.exit_code;
    e.signal = r.signal;
    e.details
        .insert("exit_code".into(), r.exit_code.to_string());
    e.details.insert("signal".into(), r.signal.to_string());
    e.details
        .insert("oom_killed".into(), r.oom_killed.to_string());
    if let Some(msg) = &r.err {
        e.message = msg.clone();
        e.details.insert("exit_message".into(), msg.clone());
    }
    e
}

/// `kill_timeout_nanos` is already capped by the client's max_kill_timeout.
pub fn killing(now: i64, kill_timeout_nanos: i64) -> TaskEvent {
    let display = if kill_timeout_nanos != 0 {
        format!(
            "Sent interrupt. Waiting {} before force killing",
            format_go_nanos(kill_timeout_nanos)
        )
    } else {
        "Sent interrupt".to_string()
    };
    let mut e = event(TASK_KILLING, now, display);
    e.kill_timeout = kill_timeout_nanos;
    e.details
        .insert("kill_timeout".into(), format_go_nanos(kill_timeout_nanos));
    e
}

pub fn killed(now: i64) -> TaskEvent {
    event(TASK_KILLED, now, "Task successfully killed".into())
}

pub fn restarting(now: i64, delay_nanos: i64, reason: &str) -> TaskEvent {
    let in_text = format!("Task restarting in {}", format_go_nanos(delay_nanos));
    let display = if !reason.is_empty() && reason != REASON_WITHIN_POLICY {
        format!("{reason} - {in_text}")
    } else {
        in_text
    };
    let mut e = event(TASK_RESTARTING, now, display);
    e.start_delay = delay_nanos;
    e.restart_reason = reason.to_string();
    e.details
        .insert("start_delay".into(), delay_nanos.to_string());
    e.details
        .insert("restart_reason".into(), reason.to_string());
    e
}

pub fn not_restarting(now: i64, reason: &str) -> TaskEvent {
    let display = if reason.is_empty() {
        "Task exceeded restart policy".to_string()
    } else {
        reason.to_string()
    };
    let mut e = event(TASK_NOT_RESTARTING, now, display);
    e.restart_reason = reason.to_string();
    e.details
        .insert("restart_reason".into(), reason.to_string());
    e.fails_task = true;
    e.details.insert("fails_task".into(), "true".into());
    e
}

pub fn sibling_failed(now: i64, sibling: &str) -> TaskEvent {
    let mut e = event(
        TASK_SIBLING_FAILED,
        now,
        format!("Task's sibling {sibling:?} failed"),
    );
    e.failed_sibling = sibling.to_string();
    e.details
        .insert("failed_sibling".into(), sibling.to_string());
    e
}

pub fn leader_dead(now: i64) -> TaskEvent {
    event(TASK_LEADER_DEAD, now, "Leader Task in Group dead".into())
}

/// Nomad's `TaskDownloadingArtifacts`.
pub fn downloading_artifacts(now: i64) -> TaskEvent {
    event(
        "Downloading Artifacts",
        now,
        "Client is downloading artifacts".into(),
    )
}

/// Nomad's `TaskArtifactDownloadFailed`, with the error as its display message.
pub fn artifact_failed(now: i64, err: &str) -> TaskEvent {
    let mut e = event("Failed Artifact Download", now, err.to_string());
    e.download_error = err.to_string();
    e.details.insert("download_error".into(), err.to_string());
    e
}

/// Nomad's `TaskHookFailed` for a prestart hook's error (`<hook>: <error>`).
pub fn hook_failed(now: i64, msg: &str) -> TaskEvent {
    let mut e = event("Task hook failed", now, msg.to_string());
    e.message = msg.to_string();
    e
}

/// Killing the sidecars once every other task of the group is dead.
pub fn main_dead(now: i64) -> TaskEvent {
    event(TASK_MAIN_DEAD, now, "Main tasks in the group died".into())
}

pub fn waiting_shutdown_delay(now: i64, delay: std::time::Duration) -> TaskEvent {
    let d = format_go_nanos(delay.as_nanos() as i64);
    event(
        TASK_WAITING_SHUTDOWN_DELAY,
        now,
        format!("Waiting for shutdown_delay of {d} before killing the task."),
    )
}

pub fn skipping_shutdown_delay(now: i64, delay: std::time::Duration) -> TaskEvent {
    let d = format_go_nanos(delay.as_nanos() as i64);
    event(
        TASK_SKIPPING_SHUTDOWN_DELAY,
        now,
        format!("Skipping shutdown_delay of {d} before killing the task."),
    )
}
