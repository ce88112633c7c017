//! Core GC and evaluation housekeeping through the real agent: `nomad system gc` removes a
//! finished batch job with its evals and allocs; `nomad eval list` pages; `nomad eval delete`
//! refuses while the eval broker runs; `?filter=` on the list endpoints and `eval delete -filter`.

use std::time::Duration;

use serde_json::Value;

use crate::harness::*;

const BATCH: &str = r#"job "report" {
  datacenters = ["dc*"]
  type        = "batch"
  group "g" {
    task "t" {
      driver = "mock_driver"
      config {
        run_for = "100ms"
      }
      resources {
        cpu    = 20
        memory = 20
      }
    }
  }
}
"#;

#[test]
fn system_gc_removes_a_finished_batch_job_and_eval_list_pages() {
    let agent = Agent::dev();
    let path = agent.path("report.nomad.hcl");
    std::fs::write(&path, BATCH).expect("write job");
    let run = agent.nomad(&["job", "run", "-detach", path.to_str().expect("path")]);
    assert_exit(&run, 0);
    wait_until(Duration::from_secs(60), "batch job dead", || {
        let job = agent.get("/v1/job/report");
        (job["Status"] == "dead").then_some(())
    });
    let evals = agent.get("/v1/evaluations");
    let eval_id = evals[0]["ID"].as_str().expect("eval id").to_string();
    let alloc_id = agent.get("/v1/allocations")[0]["ID"]
        .as_str()
        .expect("alloc id")
        .to_string();

    // Listing shows the eval in Nomad's table.
    let list = agent.nomad(&["eval", "list"]);
    assert_exit(&list, 0);
    let text = stdout(&list);
    assert!(
        text.starts_with("ID        Priority  Triggered By  Job ID  Namespace  Node ID  Status    Placement Failures"),
        "{text}"
    );
    assert!(
        text.contains(&eval_id[..8]) && text.contains("complete"),
        "{text}"
    );

    // The broker runs, so deleting is refused with Nomad's reason.
    let del = agent.nomad(&["eval", "delete", &eval_id]);
    assert_exit(&del, 1);
    assert_eq!(stderr(&del).trim(), "Eval broker is not paused");
    assert!(
        stdout(&del).contains("nomad operator scheduler set-config -pause-eval-broker=true"),
        "{}",
        stdout(&del)
    );
    // The server refuses too, for API clients that skip the check.
    let (code, body) = http(
        "DELETE",
        &format!("{}/v1/evaluations", agent.addr()),
        Some(&format!("{{\"EvalIDs\":[\"{eval_id}\"]}}")),
    )
    .expect("delete");
    assert_eq!(code, 400);
    assert!(
        body.contains("eval broker is enabled; eval broker must be paused to delete evals"),
        "{body}"
    );
    // Paused, the eval goes.
    assert_exit(
        &agent.nomad(&[
            "operator",
            "scheduler",
            "set-config",
            "-pause-eval-broker=true",
        ]),
        0,
    );
    let del = agent.nomad(&["eval", "delete", &eval_id]);
    assert_exit(&del, 0);
    assert_eq!(stdout(&del).trim(), "Successfully deleted 1 evaluation");
    assert_exit(
        &agent.nomad(&[
            "operator",
            "scheduler",
            "set-config",
            "-pause-eval-broker=false",
        ]),
        0,
    );

    let gc = agent.nomad(&["system", "gc"]);
    assert_exit(&gc, 0);
    assert_eq!(stdout(&gc), "");
    let (code, body) = http_get(&format!("{}/v1/job/report", agent.addr())).expect("get job");
    assert_eq!((code, body.as_str()), (404, "job not found"));
    let (code, _) = http_get(&format!("{}/v1/evaluation/{eval_id}", agent.addr())).expect("eval");
    assert_eq!(code, 404);
    let (code, _) = http_get(&format!("{}/v1/allocation/{alloc_id}", agent.addr())).expect("alloc");
    assert_eq!(code, 404);
    let none = agent.nomad(&["eval", "list"]);
    assert_exit(&none, 0);
    assert_eq!(stdout(&none).trim(), "No evals found");
    assert_exit(&agent.nomad(&["system", "reconcile", "summaries"]), 0);
}

/// Register `n` batch jobs `report0`, `report1`, ...
fn run_reports(agent: &Agent, n: usize) {
    for i in 0..n {
        let hcl = BATCH.replace("\"report\"", &format!("\"report{i}\""));
        let path = agent.path(&format!("r{i}.nomad.hcl"));
        std::fs::write(&path, hcl).expect("write job");
        assert_exit(
            &agent.nomad(&["job", "run", "-detach", path.to_str().expect("path")]),
            0,
        );
    }
}

#[test]
fn eval_list_pages_with_next_tokens() {
    let agent = Agent::dev();
    run_reports(&agent, 3);
    let all = wait_until(Duration::from_secs(30), "three evals", || {
        let evals = agent.get("/v1/evaluations");
        (evals.as_array()?.len() == 3).then_some(evals)
    });
    let mut ids: Vec<&str> = all
        .as_array()
        .expect("list")
        .iter()
        .filter_map(|e| e["ID"].as_str())
        .collect();
    ids.sort();

    let mut seen = Vec::new();
    let mut token = String::new();
    for _ in 0..3 {
        let url = format!(
            "{}/v1/evaluations?per_page=2&next_token={token}",
            agent.addr()
        );
        let (code, headers, body) = http_with_headers("GET", &url, None).expect("page");
        assert_eq!(code, 200, "{body}");
        let page: Value = serde_json::from_str(&body).expect("json page");
        seen.extend(
            page.as_array()
                .expect("page")
                .iter()
                .filter_map(|e| e["ID"].as_str().map(String::from)),
        );
        match headers.iter().find(|(k, _)| k == "x-nomad-nexttoken") {
            Some((_, t)) => token = t.clone(),
            None => break,
        }
    }
    seen.sort();
    assert_eq!(seen, ids);

    let paged = agent.nomad(&["eval", "list", "-per-page", "2"]);
    assert_exit(&paged, 0);
    let text = stdout(&paged);
    assert!(
        text.contains("Results have been paginated. To get the next page run:"),
        "{text}"
    );
    assert!(
        text.contains("eval list -per-page 2 -page-token "),
        "{text}"
    );
}

/// Percent-encode a query value (the filter expressions have spaces, quotes and brackets).
fn enc(s: &str) -> String {
    s.bytes()
        .map(|b| match b {
            b'A'..=b'Z' | b'a'..=b'z' | b'0'..=b'9' | b'-' | b'_' | b'.' | b'~' => {
                (b as char).to_string()
            }
            _ => format!("%{b:02X}"),
        })
        .collect()
}

#[test]
fn list_filters_and_eval_delete_by_filter() {
    let agent = Agent::dev();
    run_reports(&agent, 3);
    wait_until(Duration::from_secs(60), "three dead batch jobs", || {
        let jobs = agent.get("/v1/jobs");
        let jobs = jobs.as_array()?;
        (jobs.len() == 3 && jobs.iter().all(|j| j["Status"] == "dead")).then_some(())
    });
    let count = |path: &str, filter: &str| -> usize {
        let v = agent.get(&format!("{path}?filter={}", enc(filter)));
        v.as_array().map_or(0, Vec::len)
    };
    assert_eq!(count("/v1/evaluations", r#"JobID == "report1""#), 1);
    assert_eq!(count("/v1/jobs", r#"ID matches "report[02]""#), 2);
    assert_eq!(count("/v1/jobs", r#"Type == batch and Priority == 50"#), 3);
    assert_eq!(count("/v1/allocations", r#"JobID == "report2""#), 1);
    assert_eq!(count("/v1/allocations", "ClientStatus != complete"), 0);
    assert_eq!(
        count("/v1/nodes", r#"Attributes["kernel.name"] == linux"#),
        1
    );
    assert_eq!(count("/v1/nodes", "Meta.nope == x"), 0);
    assert_eq!(count("/v1/deployments", "Status == running"), 0);

    // A filter that does not parse, and one naming no field, are 400s with Nomad's texts.
    let (code, body) = http_get(&format!(
        "{}/v1/jobs?filter={}",
        agent.addr(),
        enc("Status ==")
    ))
    .expect("get");
    assert_eq!(code, 400, "{body}");
    assert!(
        body.starts_with(
            "failed to create result paginator: failed to read filter expression: 1:10 (9)"
        ),
        "{body}"
    );
    let (code, body) = http_get(&format!(
        "{}/v1/evaluations?filter={}",
        agent.addr(),
        enc("Nope == 1")
    ))
    .expect("get");
    assert_eq!(code, 400, "{body}");
    assert!(
        body.starts_with("failed to read result page: error finding value in datum"),
        "{body}"
    );

    let list = agent.nomad(&["eval", "list", "-filter", r#"JobID == "report0""#]);
    assert_exit(&list, 0);
    assert_eq!(stdout(&list).lines().count(), 2, "{}", stdout(&list));
    let nodes = agent.nomad(&["node", "status", "-filter", r#"Status == "down""#]);
    assert_exit(&nodes, 0);
    assert_eq!(stdout(&nodes).trim(), "No nodes registered");
    let counted = agent.get(&format!(
        "/v1/evaluations/count?filter={}",
        enc(r#"JobID != "report0""#)
    ));
    assert_eq!(counted["Count"], 2);

    // Deleting by filter: only while paused, only the matching evals.
    assert_exit(
        &agent.nomad(&[
            "operator",
            "scheduler",
            "set-config",
            "-pause-eval-broker=true",
        ]),
        0,
    );
    let del = agent.nomad(&["eval", "delete", "-yes", "-filter", r#"JobID != "report0""#]);
    assert_exit(&del, 0);
    assert_eq!(stdout(&del).trim(), "Successfully deleted 2 evaluations");
    let left = agent.get("/v1/evaluations");
    let left = left.as_array().expect("list");
    assert_eq!(left.len(), 1);
    assert_eq!(left[0]["JobID"], "report0");
    let none = agent.nomad(&["eval", "delete", "-yes", "-filter", r#"JobID == "nope""#]);
    assert_exit(&none, 0);
    assert_eq!(stdout(&none).trim(), "No evaluations were deleted");
    let both = agent.nomad(&["eval", "delete", "-filter", "x == 1", "abc"]);
    assert_exit(&both, 1);
    assert!(
        stderr(&both).contains("evaluation ID or filter flag required"),
        "{}",
        stderr(&both)
    );
}
