//! `nomad eval status` against the real agent: the plan annotations the scheduler recorded on
//! the eval it finished and the evals linked to it, in Nomad's layout.

use std::time::Duration;

use crate::harness::*;

#[test]
fn eval_status_prints_the_plan_annotations_the_scheduler_recorded() {
    let agent = Agent::dev();
    agent.run_detached("example.hcl", mock_job("example", 2));
    let eval_id = wait_until(Duration::from_secs(30), "register eval complete", || {
        let evals = agent.get("/v1/job/example/evaluations");
        let eval = evals
            .as_array()?
            .iter()
            .find(|e| e["TriggeredBy"] == "job-register" && e["Status"] == "complete")?;
        eval["ID"].as_str().map(str::to_string)
    });

    let eval = agent.get(&format!("/v1/evaluation/{eval_id}"));
    let web = &eval["PlanAnnotations"]["DesiredTGUpdates"]["web"];
    assert_eq!(web.as_object().map(|o| o.len()), Some(12), "{eval}");
    assert_eq!(web["Place"], 2, "{eval}");

    let out = agent.nomad(&["eval", "status", &eval_id]);
    assert_exit(&out, 0);
    let text = stdout(&out);
    assert!(
        text.contains(
            "\n\nPlan Annotations\n\
             Task Group  Ignore  Place  Stop  InPlace  Destructive\n\
             web         0       2      0     0        0\n\
             \nPlaced Allocations\n"
        ),
        "{text}"
    );
    assert!(!text.contains("Preempted Allocations"), "{text}");
    assert!(!text.contains("Related Evaluations"), "{text}");
}

#[test]
fn eval_status_lists_the_blocked_eval_a_failed_placement_left_as_related() {
    let agent = Agent::dev();
    // More memory than the dev node has: the register eval blocks the rest.
    agent.run_detached(
        "example.hcl",
        mock_job("example", 2).replace("memory = 20", "memory = 100000000"),
    );
    let (eval_id, blocked_id) =
        wait_until(Duration::from_secs(30), "register eval blocked", || {
            let evals = agent.get("/v1/job/example/evaluations");
            let eval = evals.as_array()?.iter().find(|e| {
                e["TriggeredBy"] == "job-register" && e["BlockedEval"].as_str().is_some()
            })?;
            Some((
                eval["ID"].as_str()?.to_string(),
                eval["BlockedEval"].as_str()?.to_string(),
            ))
        });

    let out = agent.nomad(&["eval", "status", &eval_id]);
    assert_exit(&out, 0);
    let text = stdout(&out);
    let short = blocked_id.get(..8).unwrap_or_default();
    assert!(
        text.contains(&format!(
            "\n\nRelated Evaluations\n\
             ID        Priority  Triggered By   Node ID  Status   Description\n\
             {short}  50        queued-allocs  <none>   blocked  \
             created to place remaining allocations\n"
        )),
        "{text}"
    );
}
