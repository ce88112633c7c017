//! Task `kind` (api.Task.Kind, `hcl:"kind,optional"`), stored as written.

use super::*;

#[test]
fn task_kind_is_stored_as_written() {
    let job = parse(
        r#"job "k" {
  group "g" {
    task "proxy" {
      driver = "docker"
      kind   = "connect-proxy:web"
    }
  }
}
"#,
    );
    let task = &job.task_groups[0].tasks[0];
    assert_eq!(task.kind, "connect-proxy:web");
    assert_eq!(to_json(task)["Kind"], "connect-proxy:web");
}
