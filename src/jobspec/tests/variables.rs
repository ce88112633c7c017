//! Variable values from var files, the environment and `-var`, types, and validation rules:
//! each mistake gives one error that names where it is (the var file's own position).

use super::*;

const JOB: &str = r#"variable "count" {
  type = number
  validation {
    condition     = var.count > 0
    error_message = "count must be positive."
  }
}
variable "image" {
  default = "redis"
}
variable "ports" {
  default = [80, 443]
}
job "web" {
  group "g" {
    count = var.count
    task "t" {
      driver = "docker"
      config {
        image = var.image
        ports = var.ports
      }
    }
  }
}
"#;

fn file(name: &str, content: &str) -> VarFile {
    VarFile {
        filename: name.to_string(),
        content: content.to_string(),
    }
}

fn with(vars: Variables) -> Result<Job, String> {
    decode::decode(JOB, "job.hcl", &vars, None)
        .map_err(|e| JobspecError::from_decode("job.hcl", "file", e).to_string())
}

fn files(fs: &[(&str, &str)]) -> Variables {
    Variables {
        files: fs.iter().map(|(n, c)| file(n, c)).collect(),
        ..Variables::default()
    }
}

#[test]
fn var_files_set_typed_values_and_later_sources_win() {
    let vars = Variables {
        env: vec![
            ("count".into(), "7".into()),
            ("undeclared".into(), "x".into()),
        ],
        files: vec![
            file("a.hcl", "count = 2\nimage = \"nginx\"\n"),
            file("b.json", r#"{"count": 3, "ports": [8080, 8443]}"#),
        ],
        args: vec![("image".into(), "caddy".into())],
    };
    let job = with(vars).expect("parses");
    let g = &job.task_groups[0];
    assert_eq!(g.count, 3);
    let config = to_json(&g.tasks[0].config);
    assert_eq!(config["image"], "caddy");
    assert_eq!(config["ports"], serde_json::json!([8080, 8443]));
}

#[test]
fn a_bad_value_in_a_var_file_is_one_error_at_its_position() {
    let err = with(files(&[("vars.hcl", "image = \"x\"\ncount = \"abc\"\n")])).unwrap_err();
    assert_eq!(
        err,
        "Error parsing job file from job.hcl:\nvars.hcl:2,9-14: Invalid value for variable; The value for count is not compatible with the variable's type constraint: a number is required."
    );
}

#[test]
fn an_untyped_variable_takes_its_defaults_type() {
    // jobspec2 types `ports` as the tuple its default is: a longer list does not convert.
    let err = with(files(&[("v.hcl", "count = 1\nports = [1, 2, 3]\n")])).unwrap_err();
    assert!(
        err.contains("v.hcl:2,9-18: Invalid value for variable; The value for ports is not compatible with the variable's type constraint: tuple required."),
        "{err}"
    );
}

#[test]
fn var_file_syntax_errors_stop_the_parse() {
    let err = with(files(&[("vars.hcl", "count = [\n")])).unwrap_err();
    assert!(
        err.starts_with(
            "Error parsing job file from job.hcl:\nunable to parse var file: vars.hcl:"
        ),
        "{err}"
    );
    assert_eq!(err.lines().count(), 2, "one error: {err}");
}

#[test]
fn declarations_and_unknown_names_in_var_files() {
    let err = with(files(&[("d.hcl", "count = 1\nvariable \"x\" {}\n")])).unwrap_err();
    assert!(
        err.contains("d.hcl:2,1-9: Variable declaration in a .var file; A .var file is used to assign values to variables that have already been declared in job files, not to declare new variables. To declare variable \"x\", place this block in one of your job files"),
        "{err}"
    );
    let err = with(files(&[("u.hcl", "count = 1\ncont = 3\n")])).unwrap_err();
    assert_eq!(
        err,
        "Error parsing job file from job.hcl:\nu.hcl:2,1-9: Undefined variable; A \"cont\" variable was set but was not found in known variables. To declare variable \"cont\", place this block in your job files"
    );
}

#[test]
fn validation_rules_name_the_failing_value_and_the_rule() {
    let err = with(files(&[("z.hcl", "count = 0\n")])).unwrap_err();
    assert_eq!(
        err,
        "Error parsing job file from job.hcl:\nz.hcl:1,9-10: Invalid value for varfile variable; count must be positive.\n\nThis was checked by the validation rule at job.hcl:3,3-13."
    );
    let err = with(Variables::from_args(&[("count".into(), "-2".into())])).unwrap_err();
    assert!(
        err.contains("<value for var.count from arguments>:1,1-3: Invalid value for cmd variable; count must be positive."),
        "{err}"
    );
    assert!(with(Variables::from_args(&[("count".into(), "2".into())])).is_ok());
}

#[test]
fn malformed_validation_rules() {
    let src = r#"variable "a" {
  default = 1
  validation {
    condition     = local.x > 0
    error_message = " "
  }
}
job "j" {}
"#;
    let err = parse_err(src);
    assert!(
        err.contains("test.hcl:4,21-28: Invalid reference in variable validation; The condition for variable \"a\" can only refer to the variable itself, using var.a."),
        "{err}"
    );
    assert!(
        err.contains("test.hcl:4,21-32: Invalid variable validation condition; The condition for variable \"a\" must refer to var.a in order to test incoming values."),
        "{err}"
    );
    assert!(
        err.contains("test.hcl:5,21-24: Invalid validation error message; An empty or blank string is not a valid nor useful error message."),
        "{err}"
    );
    let missing = parse_err("variable \"a\" {\n  default = 1\n  validation {}\n}\njob \"j\" {}\n");
    assert!(
        missing.contains("Missing required argument; The argument \"condition\" is required, but no definition was found."),
        "{missing}"
    );
    // Names bound by a for expression are not references.
    let ok = "variable \"l\" {\n  default = [1]\n  validation {\n    condition     = alltrue([for x in var.l : x > 0])\n    error_message = \"all positive\"\n  }\n}\njob \"j\" {\n  group \"g\" {\n    task \"t\" {\n      driver = \"docker\"\n    }\n  }\n}\n";
    let err = parse_str(ok, "test.hcl", &[])
        .map(|_| ())
        .map_err(|e| e.to_string());
    assert!(
        err.as_ref()
            .err()
            .is_none_or(|e| !e.contains("Invalid reference")),
        "{err:?}"
    );
}

#[test]
fn variable_types_are_checked_like_jobspec2() {
    let err = parse_err("variable \"a\" {\n  type = any\n}\njob \"j\" {}\n");
    assert!(
        err.contains("test.hcl:2,10-13: Invalid type specification; The keyword \"any\" cannot be used in this type specification: an exact type is required."),
        "{err}"
    );
    let err = parse_err(
        "variable \"a\" {\n  type    = list(number)\n  default = [\"x\"]\n}\njob \"j\" {}\n",
    );
    assert!(
        err.contains("test.hcl:3,13-18: Invalid default value for variable; This default value is not compatible with the variable's type constraint: a number is required."),
        "{err}"
    );
    let src = "variable \"m\" {\n  type = map(string)\n}\njob \"j\" {\n  meta = var.m\n}\n";
    let job = parse_str(src, "test.hcl", &[("m".into(), "{a = 1}".into())]).expect("parses");
    assert_eq!(
        job.meta
            .as_ref()
            .and_then(|m| m.get("a"))
            .map(String::as_str),
        Some("1")
    );
}

#[test]
fn env_values_are_converted_and_reported() {
    let vars = Variables {
        env: vec![("count".into(), "many".into())],
        ..Variables::default()
    };
    assert_eq!(
        with(vars).unwrap_err(),
        "Error parsing job file from job.hcl:\n<nil>: Invalid value for variable; The value for count is not compatible with the variable's type constraint: a number is required."
    );
}

#[test]
fn jobs_parse_variables_text_is_var_content() {
    let vars = Variables {
        files: vec![file("input.hcl", "count = [")],
        ..Variables::default()
    };
    let err = parse_str_recording_with(JOB, "input.hcl", &vars).unwrap_err();
    assert!(
        err.problems()
            .starts_with("unable to parse var content: input.hcl:1,"),
        "{}",
        err.problems()
    );
}
