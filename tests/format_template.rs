//! `-t <go template>` beside `-json` through the real agent: the template runs over the same
//! object `-json` prints; bad templates and `-json -t` fail with Nomad's text and exit 1.

use crate::harness::*;

#[test]
fn templates_format_the_json_objects_and_bad_ones_exit_1() {
    let agent = Agent::dev();
    let path = agent.path("tmpl.hcl");
    std::fs::write(&path, mock_job("tmpl", 1)).expect("write job");
    let path = path.to_str().expect("utf-8 path").to_string();
    assert_exit(&agent.nomad(&["job", "run", &path]), 0);

    let out = agent.nomad(&[
        "job",
        "inspect",
        "-t",
        "{{.ID}} {{len .TaskGroups}} {{range .TaskGroups}}{{.Name}}:{{.Count}}{{end}}",
        "tmpl",
    ]);
    assert_exit(&out, 0);
    assert_eq!(stdout(&out), "tmpl 1 web:1\n");

    let out = agent.nomad(&[
        "node",
        "status",
        "-t",
        "{{range .}}{{.Status}} {{.SchedulingEligibility}}{{end}}",
    ]);
    assert_exit(&out, 0);
    assert_eq!(stdout(&out), "ready eligible\n");

    let out = agent.nomad(&[
        "job",
        "allocs",
        "-t={{range .}}{{printf \"%s/%s\" .JobID .TaskGroup}}{{end}}",
        "tmpl",
    ]);
    assert_exit(&out, 0);
    assert_eq!(stdout(&out), "tmpl/web\n");

    let alloc_id = agent.get("/v1/job/tmpl/allocations")[0]["ID"]
        .as_str()
        .expect("alloc id")
        .to_string();
    let out = agent.nomad(&["alloc", "status", "-t", "{{.ClientStatus}}", &alloc_id]);
    assert_exit(&out, 0);
    assert_eq!(stdout(&out), "running\n");

    let out = agent.nomad(&[
        "eval",
        "list",
        "-t",
        "{{range .}}{{if eq .TriggeredBy \"job-register\"}}{{.Status}}{{end}}{{end}}",
    ]);
    assert_exit(&out, 0);
    assert_eq!(stdout(&out), "complete\n");

    let out = agent.nomad(&["job", "inspect", "-t", "{{.ID", "tmpl"]);
    assert_exit(&out, 1);
    assert_eq!(
        stderr(&out),
        "Error formatting the data: template: :1: unclosed action\n"
    );
    let out = agent.nomad(&["job", "inspect", "-t", "{{len .Priority}}", "tmpl"]);
    assert_exit(&out, 1);
    assert_eq!(
        stderr(&out),
        "Error formatting the data: template: :1:2: executing \"\" at <len .Priority>: error calling len: len of type int\n"
    );
    let out = agent.nomad(&["job", "inspect", "-json", "-t", "{{.ID}}", "tmpl"]);
    assert_exit(&out, 1);
    assert_eq!(
        stderr(&out),
        "Both json and template formatting are not allowed\n"
    );
}
