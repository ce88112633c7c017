//! `dynamic` blocks: iterator scoping rules that the corpus fixtures do not show.

use super::*;

#[test]
fn a_for_expression_variable_shadows_the_iterator() {
    let job = parse(
        r#"job "d" {
  group "g" {
    task "t" {
      driver = "raw_exec"
      dynamic "constraint" {
        for_each = ["a"]
        iterator = x
        content {
          attribute = "${attr.kernel.name}"
          value     = join(",", [for x in ["p", "q"] : "${x}-${x}"])
        }
      }
    }
  }
}
"#,
    );
    let c = &job.task_groups[0].tasks[0]
        .constraints
        .as_ref()
        .expect("constraints")[0];
    assert_eq!(c.r_target, "p-p,q-q");
}

#[test]
fn a_nested_dynamic_block_with_the_same_iterator_name_shadows_the_outer_one() {
    let job = parse(
        r#"job "d" {
  dynamic "group" {
    for_each = { outer = ["inner"] }
    iterator = it
    labels   = [it.key]
    content {
      dynamic "task" {
        for_each = it.value
        iterator = it
        labels   = [it.value]
        content {
          driver = it.value
        }
      }
    }
  }
}
"#,
    );
    let g = &job.task_groups[0];
    assert_eq!(g.name, "outer");
    assert_eq!(g.tasks[0].name, "inner");
    assert_eq!(g.tasks[0].driver, "inner");
}

#[test]
fn an_empty_for_each_generates_nothing() {
    let job = parse(
        r#"job "d" {
  group "g" {
    dynamic "task" {
      for_each = []
      labels   = ["never"]
      content {
        driver = "raw_exec"
      }
    }
  }
}
"#,
    );
    assert!(job.task_groups[0].tasks.is_empty());
}

#[test]
fn bad_labels_and_null_for_each_are_positioned() {
    let err = parse_err(
        r#"job "d" {
  group "g" {
    dynamic "task" {
      for_each = null
      content {}
    }
    dynamic "task" {
      for_each = [["x"]]
      labels   = [task.value]
      content {}
    }
    dynamic "task" {
      for_each = [1]
      labels   = "x"
      content {}
    }
  }
}
"#,
    );
    assert_eq!(
        err,
        "Error parsing job file from test.hcl:\n\
test.hcl:4,18-22: Invalid dynamic for_each value; Cannot use a null value in for_each. (in job \"d\" -> group \"g\" -> dynamic \"task\")\n\
test.hcl:9,19-29: Invalid dynamic block label; Cannot use this value as a dynamic block label: string required. (in job \"d\" -> group \"g\" -> dynamic \"task\")\n\
test.hcl:14,18-21: Invalid expression; A static list expression is required. (in job \"d\" -> group \"g\" -> dynamic \"task\")"
    );
}
