//! validate: service checks (the native checker's types, script checks' command and task),
//! in Nomad's words and nesting.

use super::*;

/// A service `web` with one check `c` whose body is `check`.
fn service(provider: &str, check: &str) -> String {
    format!(
        "service {{\n  name = \"web\"\n  port = \"http\"\n  provider = \"{provider}\"\n  check {{\n    name = \"c\"\n    interval = \"5s\"\n    timeout = \"2s\"\n{check}\n  }}\n}}"
    )
}

#[test]
fn nomad_checks_of_known_types_pass() {
    for check in [
        "type = \"http\"\npath = \"/\"",
        "type = \"tcp\"",
        "type = \"script\"\ncommand = \"/bin/true\"\ntask = \"server\"",
    ] {
        assert_eq!(errors(&service("nomad", check), ""), "", "{check}");
    }
    // A task's own service: the script check runs in that task without naming it.
    assert_eq!(
        errors(
            "",
            &service("nomad", "type = \"script\"\ncommand = \"/bin/true\"")
        ),
        ""
    );
}

#[test]
fn unknown_nomad_check_type_names_the_service_and_the_type() {
    let e = errors(&service("nomad", "type = \"grpc\""), "");
    assert_eq!(
        e,
        "1 error occurred:\n\t* Task group web validation failed: 1 error occurred:\n\t* Task group service validation failed: 1 error occurred:\n\t* Service[0] web validation failed: 1 error occurred:\n\t* invalid check type (\"grpc\"), must be one of tcp, http, script\n\n\n\n\n\n\n\n"
    );
    let e = errors("", &service("nomad", "type = \"Docker\""));
    assert!(
        e.contains("Task server validation failed: 1 error occurred:\n\t* 1 error occurred:\n\t* service[0] \"web\" validation failed: 1 error occurred:\n\t* invalid check type (\"docker\"), must be one of tcp, http, script"),
        "{e}"
    );
    // Consul checks are Consul's business.
    assert_eq!(errors(&service("consul", "type = \"grpc\""), ""), "");
}

#[test]
fn script_checks_need_a_command_and_a_task_in_group_services() {
    let e = errors(
        &service("nomad", "type = \"script\"\ntask = \"server\""),
        "",
    );
    assert!(e.contains("* Service[0] web validation failed: 1 error occurred:\n\t* script type must have a valid script path"), "{e}");
    let e = errors(
        &service("nomad", "type = \"script\"\ncommand = \"/bin/true\""),
        "",
    );
    assert!(
        e.contains("Task group service check validation failed: 1 error occurred:\n\t* Service [web]->web or Check c must specify task parameter"),
        "{e}"
    );
    let e = errors(
        &service(
            "nomad",
            "type = \"script\"\ncommand = \"/bin/true\"\ntask = \"nope\"",
        ),
        "",
    );
    assert!(
        e.contains("* Check c invalid: refers to non-existent task nope"),
        "{e}"
    );
    let e = errors(
        "",
        &service(
            "nomad",
            "type = \"script\"\ncommand = \"/bin/true\"\ntask = \"other\"",
        ),
    );
    assert!(
        e.contains(
            "* Check c is invalid: may only specify task the check belongs to, got \"other\""
        ),
        "{e}"
    );
}

#[test]
fn only_script_checks_may_ignore_warnings() {
    let restart = "check_restart {\n  limit = 3\n  ignore_warnings = true\n}";
    let e = errors(&service("nomad", &format!("type = \"tcp\"\n{restart}")), "");
    assert!(
        e.contains("* ignore_warnings on check_restart only supported for Consul service checks"),
        "{e}"
    );
    let script =
        format!("type = \"script\"\ncommand = \"/bin/true\"\ntask = \"server\"\n{restart}");
    assert_eq!(errors(&service("nomad", &script), ""), "");
}
