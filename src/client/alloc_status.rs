//! The alloc's client status from its task states (Nomad's `getClientStatus`), and the
//! client-owned fields sent to the servers.

use std::collections::BTreeMap;

use crate::api::{
    Allocation, TaskState, ALLOC_CLIENT_COMPLETE, ALLOC_CLIENT_FAILED, ALLOC_CLIENT_PENDING,
    ALLOC_CLIENT_RUNNING, TASK_STATE_DEAD, TASK_STATE_PENDING, TASK_STATE_RUNNING,
};

pub fn client_status(states: &BTreeMap<String, TaskState>) -> (&'static str, &'static str) {
    let (mut pending, mut running, mut dead, mut failed) = (false, false, false, false);
    for s in states.values() {
        match s.state.as_str() {
            TASK_STATE_RUNNING => running = true,
            TASK_STATE_PENDING => pending = true,
            TASK_STATE_DEAD if s.failed => failed = true,
            TASK_STATE_DEAD => dead = true,
            _ => {}
        }
    }
    if failed {
        (ALLOC_CLIENT_FAILED, "Failed tasks")
    } else if running {
        (ALLOC_CLIENT_RUNNING, "Tasks are running")
    } else if pending {
        (ALLOC_CLIENT_PENDING, "No tasks have started")
    } else if dead {
        (ALLOC_CLIENT_COMPLETE, "All tasks have completed")
    } else {
        ("", "")
    }
}

/// The update for `Node.UpdateAlloc`: only the fields the client owns. Terminal allocs get
/// a `FinishedAt` on every task, which the server's reschedule logic reads.
pub fn client_update(
    alloc_id: &str,
    node_id: &str,
    mut states: BTreeMap<String, TaskState>,
    now_rfc3339: &str,
) -> Allocation {
    let (status, description) = client_status(&states);
    let terminal = status == ALLOC_CLIENT_COMPLETE || status == ALLOC_CLIENT_FAILED;
    if terminal {
        for s in states.values_mut() {
            if s.finished_at.is_none() {
                s.finished_at = Some(now_rfc3339.to_string());
            }
        }
    }
    Allocation {
        id: alloc_id.to_string(),
        node_id: node_id.to_string(),
        client_status: status.to_string(),
        client_description: description.to_string(),
        task_states: Some(states),
        // What Nomad's client reports for host networking.
        network_status: Some(serde_json::json!({
            "Address": "",
            "AddressIPv6": "",
            "DNS": null,
            "InterfaceName": "",
        })),
        ..Default::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ts(state: &str, failed: bool) -> TaskState {
        TaskState {
            state: state.into(),
            failed,
            ..Default::default()
        }
    }

    #[test]
    fn status_table() {
        type Case<'a> = (&'a [(&'a str, bool)], (&'a str, &'a str));
        let cases: &[Case] = &[
            (&[("pending", false)], ("pending", "No tasks have started")),
            (
                &[("running", false), ("pending", false)],
                ("running", "Tasks are running"),
            ),
            (
                &[("dead", false), ("running", false)],
                ("running", "Tasks are running"),
            ),
            (
                &[("dead", false), ("dead", false)],
                ("complete", "All tasks have completed"),
            ),
            (
                &[("dead", true), ("running", false)],
                ("failed", "Failed tasks"),
            ),
            (&[], ("", "")),
        ];
        for (tasks, want) in cases {
            let states = tasks
                .iter()
                .enumerate()
                .map(|(i, (s, f))| (format!("t{i}"), ts(s, *f)))
                .collect();
            assert_eq!(client_status(&states), *want, "{tasks:?}");
        }
    }

    #[test]
    fn terminal_update_sets_finished_at() {
        let states = BTreeMap::from([("a".to_string(), ts("dead", false))]);
        let u = client_update("id", "node", states, "2026-01-01T00:00:00Z");
        assert_eq!(u.client_status, "complete");
        assert_eq!(
            u.task_states.unwrap()["a"].finished_at.as_deref(),
            Some("2026-01-01T00:00:00Z")
        );
    }
}
