//! Following a node drain (Nomad's `Nodes.MonitorDrain`): one loop watches the node until its
//! drain strategy is gone, another watches its allocs until none is running; their messages
//! are printed with a timestamp as they come.

use std::collections::HashMap;

use nomad::api::client::{Client, QueryOptions};
use nomad::api::{
    Allocation, DrainStrategy, ALLOC_CLIENT_PENDING, ALLOC_CLIENT_RUNNING, ALLOC_DESIRED_STOP,
    JOB_TYPE_SYSTEM, NODE_STATUS_DOWN,
};
use tokio::sync::mpsc;

use super::drain::now;
use crate::output;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Level {
    Normal,
    Info,
    Warn,
    Error,
}

type Tx = mpsc::Sender<(Level, String)>;

/// Print drain progress until the drain completes and no alloc is left running.
pub async fn monitor(
    client: &Client,
    node_id: &str,
    index: u64,
    ignore_system: bool,
) -> std::io::Result<()> {
    let (tx, mut rx) = mpsc::channel(16);
    let watchers = {
        let tx2 = tx.clone();
        async move {
            tokio::join!(
                watch_node(client, node_id, index, tx),
                watch_allocs(client, node_id, ignore_system, tx2)
            );
        }
    };
    tokio::pin!(watchers);
    let mut watchers_done = false;
    loop {
        tokio::select! {
            _ = &mut watchers, if !watchers_done => watchers_done = true,
            msg = rx.recv() => match msg {
                None => return Ok(()),
                Some((level, text)) => {
                    let line = format!("{}: {text}", now());
                    match level {
                        Level::Normal | Level::Info => output::out(line)?,
                        Level::Warn | Level::Error => output::err(line),
                    }
                    if level == Level::Error {
                        return Ok(());
                    }
                }
            },
        }
    }
}

async fn watch_node(client: &Client, node_id: &str, mut index: u64, tx: Tx) {
    let mut last: Option<DrainStrategy> = None;
    loop {
        let q = QueryOptions {
            index,
            ..Default::default()
        };
        let (node, meta) = match client.node(node_id, Some(&q)).await {
            Ok(r) => r,
            Err(e) => {
                let _ = tx
                    .send((Level::Error, format!("Error monitoring node: {e}")))
                    .await;
                return;
            }
        };
        let Some(strategy) = node.drain_strategy else {
            let _ = tx
                .send((Level::Info, format!("Drain complete for node {node_id}")))
                .await;
            return;
        };
        if node.status == NODE_STATUS_DOWN {
            let _ = tx
                .send((Level::Warn, format!("Node {node_id:?} down")))
                .await;
        }
        if last.as_ref().is_some_and(|l| !same_strategy(l, &strategy)) {
            let text = format!(
                "Node {node_id:?} drain updated: {}",
                go_strategy_string(&strategy)
            );
            let _ = tx.send((Level::Info, text)).await;
        }
        last = Some(strategy);
        index = meta.last_index;
    }
}

fn same_strategy(a: &DrainStrategy, b: &DrainStrategy) -> bool {
    a.force_deadline == b.force_deadline
        && a.deadline == b.deadline
        && a.ignore_system_jobs == b.ignore_system_jobs
}

/// `DrainStrategy.String` with the deadline as Go prints a UTC `time.Time`.
fn go_strategy_string(s: &DrainStrategy) -> String {
    let when = chrono::DateTime::parse_from_rfc3339(&s.force_deadline)
        .map(|t| {
            let t = t.with_timezone(&chrono::Utc);
            let frac = format!("{:09}", t.timestamp_subsec_nanos());
            let frac = frac.trim_end_matches('0');
            let dot = if frac.is_empty() { "" } else { "." };
            format!("{}{dot}{frac} +0000 UTC", t.format("%Y-%m-%d %H:%M:%S"))
        })
        .unwrap_or_else(|_| s.force_deadline.clone());
    let shown = DrainStrategy {
        force_deadline: when,
        ..s.clone()
    };
    shown.describe()
}

/// What changed about one alloc between two reads, in Nomad's words.
fn alloc_change(orig: &Allocation, a: &Allocation) -> Option<String> {
    let migrating = a.desired_transition.migrate == Some(true);
    if orig.client_status != a.client_status {
        return Some(format!(
            "status {} -> {}",
            orig.client_status, a.client_status
        ));
    }
    if migrating && orig.desired_transition.migrate != Some(true) {
        return Some("marked for migration".to_string());
    }
    if migrating
        && orig.desired_status != a.desired_status
        && a.desired_status == ALLOC_DESIRED_STOP
    {
        return Some("draining".to_string());
    }
    None
}

async fn watch_allocs(client: &Client, node_id: &str, ignore_system: bool, tx: Tx) {
    let mut seen: HashMap<String, Allocation> = HashMap::new();
    let mut index = 0;
    loop {
        let q = QueryOptions {
            index,
            ..Default::default()
        };
        let (allocs, meta) = match client.node_allocations(node_id, Some(&q)).await {
            Ok(r) => r,
            Err(e) => {
                let text = format!("Error monitoring allocations: {e}");
                let _ = tx.send((Level::Error, text)).await;
                return;
            }
        };
        index = meta.last_index;
        let mut running = 0;
        for a in allocs {
            if let Some(text) = seen.get(&a.id).and_then(|orig| alloc_change(orig, &a)) {
                let _ = tx
                    .send((Level::Normal, format!("Alloc {:?} {text}", a.id)))
                    .await;
            }
            let system = a.job.as_ref().is_some_and(|j| j.r#type == JOB_TYPE_SYSTEM);
            let live =
                a.client_status == ALLOC_CLIENT_PENDING || a.client_status == ALLOC_CLIENT_RUNNING;
            if a.job.is_some() && live && !(ignore_system && system) {
                running += 1;
            }
            seen.insert(a.id.clone(), a);
        }
        if running == 0 {
            let text = format!("All allocations on node {node_id:?} have stopped");
            let _ = tx.send((Level::Info, text)).await;
            return;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn alloc_changes_in_nomads_words() {
        let orig = Allocation {
            client_status: "running".to_string(),
            desired_status: "run".to_string(),
            ..Default::default()
        };
        let mut marked = orig.clone();
        marked.desired_transition.migrate = Some(true);
        assert_eq!(
            alloc_change(&orig, &marked).as_deref(),
            Some("marked for migration")
        );
        let mut stopping = marked.clone();
        stopping.desired_status = "stop".to_string();
        assert_eq!(
            alloc_change(&marked, &stopping).as_deref(),
            Some("draining")
        );
        let mut done = stopping.clone();
        done.client_status = "complete".to_string();
        assert_eq!(
            alloc_change(&stopping, &done).as_deref(),
            Some("status running -> complete")
        );
        assert_eq!(alloc_change(&done, &done), None);
    }

    #[test]
    fn strategy_prints_like_go() {
        let s = DrainStrategy {
            deadline: 3_600_000_000_000,
            force_deadline: "2026-12-03T07:00:00.5Z".to_string(),
            ..Default::default()
        };
        assert_eq!(
            go_strategy_string(&s),
            "drain with deadline at 2026-12-03 07:00:00.5 +0000 UTC"
        );
    }
}
