//! Scheduler benchmark, in two parts.
//!
//! 1. Scheduler only (the grid of Nomad's BenchmarkServiceScheduler): one eval for a service
//!    job of {50, 200, 1200} allocs over {500, 1k, 5k, 10k} nodes, against an in-memory
//!    state. Nodes have realistic attributes: 3 datacenters, 4 classes, drivers, resources.
//!    Each cell runs without and with a spread block (`${node.datacenter}`, targets
//!    50/30/20 %, which makes the stack score max(100, count) nodes per placement, as Nomad's
//!    does). Keys `eval_ms_<allocs>x<nodes>`, `eval_ms_spread_<allocs>x<nodes>`, then
//!    `eval_ms_10k_nodes_1200_allocs`.
//! 2. End to end (`common/e2e.rs`): the real server with raft on disk, 5,000 simulated nodes
//!    and 1,000 service jobs x 100 allocs through the endpoints. Keys include `eval_p99_ms`,
//!    `peak_rss_mb` and, last, `placements_per_sec`.
//!
//! `QUICK=1`: fewer grid repetitions, and the end-to-end run at
//! 1,000 nodes x 200 jobs x 100 (20,000 placements); under a minute in all.
//! `-- --nodes N --jobs N --count N` set the end-to-end scale.
//! `SCHEDULER_BENCH_CELLS=1200x10000,spread_1200x10000` runs only the named grid cells (for
//! profiling one cell), and the end-to-end run only if `e2e` is named.

#[path = "common/e2e.rs"]
mod e2e;

use std::collections::HashMap;
use std::sync::Arc;
use std::time::Instant;

use nomad::api::*;
use nomad::scheduler::{process_eval, SchedulerContext, StateView};

struct BenchState {
    jobs: Vec<Arc<Job>>,
    nodes: Vec<Arc<Node>>,
    by_id: HashMap<String, Arc<Node>>,
}

impl StateView for BenchState {
    fn index(&self) -> u64 {
        1000
    }
    fn job(&self, namespace: &str, id: &str) -> Option<Arc<Job>> {
        self.jobs
            .iter()
            .find(|j| j.namespace == namespace && j.id == id)
            .cloned()
    }
    fn node(&self, id: &str) -> Option<Arc<Node>> {
        self.by_id.get(id).cloned()
    }
    fn nodes(&self) -> Vec<Arc<Node>> {
        self.nodes.clone()
    }
    fn allocs_by_job(&self, _: &str, _: &str) -> Vec<Arc<Allocation>> {
        Vec::new()
    }
    fn allocs_by_node(&self, _: &str) -> Vec<Arc<Allocation>> {
        Vec::new()
    }
    fn alloc(&self, _: &str) -> Option<Arc<Allocation>> {
        None
    }
}

fn node(i: usize) -> Node {
    Node {
        scheduling_eligibility: NODE_ELIGIBLE.to_string(),
        ..e2e::sim_node(i)
    }
}

fn job(count: i32) -> Job {
    Job {
        id: "bench".to_string(),
        name: "bench".to_string(),
        job_modify_index: 10,
        ..e2e::service_job(0, count)
    }
}

fn spread_job(count: i32) -> Job {
    let mut j = job(count);
    j.task_groups[0].spreads = Some(serde_json::json!([{
        "Attribute": "${node.datacenter}",
        "Weight": 100,
        "SpreadTarget": [
            {"Value": "dc1", "Percent": 50},
            {"Value": "dc2", "Percent": 30},
            {"Value": "dc3", "Percent": 20}
        ]
    }]));
    j
}

fn eval_ms(nodes: usize, count: i32, reps: usize, spread: bool) -> f64 {
    let nodes: Vec<Arc<Node>> = (0..nodes).map(|i| Arc::new(node(i))).collect();
    let by_id = nodes.iter().map(|n| (n.id.clone(), n.clone())).collect();
    let j = if spread {
        spread_job(count)
    } else {
        job(count)
    };
    let state = BenchState {
        jobs: vec![Arc::new(j.clone())],
        nodes,
        by_id,
    };
    let eval = Evaluation {
        id: "00000000-0000-4000-8000-00000000e001".into(),
        namespace: j.namespace.clone(),
        job_id: j.id.clone(),
        r#type: j.r#type.clone(),
        priority: j.priority,
        triggered_by: TRIGGER_JOB_REGISTER.into(),
        status: EVAL_STATUS_PENDING.into(),
        job_modify_index: j.job_modify_index,
        ..Default::default()
    };
    let mut best = f64::MAX;
    for rep in 0..reps {
        let ctx = SchedulerContext {
            now: 1,
            seed: rep as u64,
        };
        let start = Instant::now();
        let result = process_eval(&eval, &state, ctx);
        let ms = start.elapsed().as_secs_f64() * 1000.0;
        let placed: usize = match &result {
            Ok(r) => r.plan.node_allocation.values().map(Vec::len).sum(),
            Err(e) => {
                eprintln!("scheduler error: {e}");
                0
            }
        };
        assert_eq!(placed, count as usize, "every alloc placed");
        best = best.min(ms);
    }
    best
}

fn main() {
    let quick = std::env::var("QUICK").is_ok_and(|v| v == "1");
    let reps = if quick { 2 } else { 5 };
    let cells = std::env::var("SCHEDULER_BENCH_CELLS").ok();
    let wanted = |cell: &str| {
        cells
            .as_deref()
            .is_none_or(|c| c.split(',').any(|w| w.trim() == cell))
    };
    let mut headline = None;
    for nodes in [500usize, 1000, 5000, 10_000] {
        for count in [50, 200, 1200] {
            if wanted(&format!("{count}x{nodes}")) {
                let ms = eval_ms(nodes, count, reps, false);
                println!("eval_ms_{count}x{nodes}: {ms:.2}");
                if nodes == 10_000 && count == 1200 {
                    headline = Some(ms);
                }
            }
            if wanted(&format!("spread_{count}x{nodes}")) {
                let ms = eval_ms(nodes, count, reps, true);
                println!("eval_ms_spread_{count}x{nodes}: {ms:.2}");
            }
        }
    }
    if let Some(ms) = headline {
        println!("eval_ms_10k_nodes_1200_allocs: {ms:.2}");
    }
    if wanted("e2e") {
        let default = if quick { e2e::QUICK } else { e2e::DEFAULT };
        e2e::run_and_print(e2e::scale_from_args(default), 600);
    }
}
