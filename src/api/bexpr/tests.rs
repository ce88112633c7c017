use serde_json::{json, Value};

use super::Filter;

fn datum() -> Value {
    json!({
        "ID": "5b3b0a8e",
        "Name": "web-api",
        "Status": "running",
        "Count": 3,
        "ModifyIndex": 18446744073709551615u64,
        "Priority": 50,
        "Weight": 0.5,
        "Stop": false,
        "Tags": ["http", "prod"],
        "Ports": [80, 443],
        "Meta": {"env": "prod", "a.b": "dotted", "empty": ""},
        "Periodic": null,
        "Datacenters": [],
        "TaskGroups": [
            {"Name": "api", "Count": 2, "Tasks": [{"Name": "server", "Driver": "docker"}]},
            {"Name": "db", "Count": 1, "Tasks": [{"Name": "pg", "Driver": "exec"}]}
        ],
        "Job": {"Type": "service", "Meta": {}}
    })
}

fn eval(expr: &str) -> Result<bool, String> {
    Filter::parse(expr)?.matches(&datum())
}

fn yes(expr: &str) {
    assert_eq!(eval(expr), Ok(true), "{expr}");
}

fn no(expr: &str) {
    assert_eq!(eval(expr), Ok(false), "{expr}");
}

#[test]
fn equality_coerces_the_literal_to_the_field() {
    yes(r#"Status == "running""#);
    yes("Status == running");
    yes("Status==`running`");
    no(r#"Status != "running""#);
    yes("Count == 3");
    yes(r#"Count == "3""#);
    yes(r#"Count == "0x3""#);
    no("Count == 4");
    yes("ModifyIndex == 18446744073709551615");
    yes("Weight == 0.5");
    yes("Stop == false");
    yes("Stop == F");
    yes("Stop != true");
    // An unquoted literal starting with a digit must be a number, as in go-bexpr.
    assert!(Filter::parse("ID == 5b3b0a8e").is_err());
    yes(r#"ID == "5b3b0a8e""#);
}

#[test]
fn maps_lists_and_missing_keys() {
    yes("Meta.env == prod");
    yes(r#"Meta["a.b"] == dotted"#);
    yes(r#""/Meta/env" == prod"#);
    yes("TaskGroups.0.Name == api");
    yes("TaskGroups.1.Tasks.0.Driver == exec");
    // A key a map lacks: nothing equals it, it is empty and nil.
    no("Meta.missing == x");
    yes("Meta.missing != x");
    yes("Meta.missing is empty");
    yes("Meta.missing is nil");
    no("x in Meta.missing");
    yes("Job.Meta.missing is empty");
}

#[test]
fn in_contains_empty_and_nil() {
    yes("http in Tags");
    yes(r#""prod" in Tags"#);
    yes("Tags contains http");
    no("Tags contains staging");
    yes("staging not in Tags");
    yes("Tags not contains staging");
    yes("443 in Ports");
    yes("env in Meta");
    no("missing in Meta");
    yes("api in Name");
    yes("Datacenters is empty");
    yes("Tags is not empty");
    yes("Meta.empty is empty");
    yes("Periodic is nil");
    yes("Job is not nil");
}

#[test]
fn regex_matches() {
    yes(r#"Name matches "^web-""#);
    no(r#"Name matches "^db""#);
    yes(r#"Name not matches "^db""#);
    let err = eval(r#"Count matches "3""#).unwrap_err();
    assert!(err.contains("not convertible to []byte"), "{err}");
    let err = Filter::parse(r#"Name matches "(""#).unwrap_err();
    assert!(
        err.contains("failed to compile regular expression"),
        "{err}"
    );
}

#[test]
fn boolean_operators_and_grouping() {
    yes("Status == running and Count == 3");
    no("Status == running and Count == 4");
    yes("Status == dead or Count == 3");
    yes("not Status == dead");
    yes("not not Status == running");
    yes("(Status == dead or Count == 3) and Stop == false");
    no("not (Status == running)");
    yes("  Status == running  ");
    yes("Status == running and\n  Count == 3");
    // `not`, `or`, `and` prefixes of identifiers are identifiers.
    assert!(Filter::parse("notice == 1").is_ok());
    assert!(Filter::parse("order == 1 or android == 2").is_ok());
}

#[test]
fn collections() {
    yes("any TaskGroups as tg { tg.Name == db }");
    no("all TaskGroups as tg { tg.Name == db }");
    yes("all TaskGroups as tg { tg.Count == 1 or tg.Count == 2 }");
    yes("any TaskGroups as _, tg { any tg.Tasks as t { t.Driver == docker } }");
    yes("any Meta as k { k == env }");
    yes("any Meta as k, v { k == env and v == prod }");
    yes("all Datacenters as d { d == never }");
    yes("any Tags as i, _ { i == 1 }");
    let err = eval("any TaskGroups as x, x { x == 1 }").unwrap_err();
    assert!(err.contains("placeholder for both"), "{err}");
    let err = eval("any Status as s { s == x }").unwrap_err();
    assert!(err.contains("is not a list or a map"), "{err}");
}

#[test]
fn evaluation_errors_name_the_selector() {
    let err = eval("Nope == 1").unwrap_err();
    assert!(
        err.contains(r#"couldn't find key: struct field with name "Nope""#),
        "{err}"
    );
    let err = eval("Count == abc").unwrap_err();
    assert!(err.contains("strconv.ParseInt"), "{err}");
    let err = eval("Tags == http").unwrap_err();
    assert!(
        err.contains("unable to find suitable primitive comparison"),
        "{err}"
    );
    let err = eval("TaskGroups.9.Name == x").unwrap_err();
    assert!(err.contains("out of range"), "{err}");
}

#[test]
fn parse_errors_give_a_position() {
    for (expr, want) in [
        ("Status ==", "1:10 (9)"),
        (r#"Status == "running"#, "Unterminated string literal"),
        ("(Status == running", "Unmatched parentheses"),
        ("Meta[env] == x", "Invalid index"),
        (r#"Meta["env" == x"#, "Unclosed index expression"),
        ("Count == 3x", "Invalid number literal"),
        ("Status = running", "no match found"),
        ("", "no match found"),
        ("Status == running and", "1:22 (21)"),
        ("x in 3", "Invalid selector"),
    ] {
        let err = Filter::parse(expr).unwrap_err();
        assert!(err.contains(want), "{expr:?}: {err}");
    }
}

#[test]
fn filter_items_keeps_passing_items_in_order() {
    let items = vec![json!({"N": 1}), json!({"N": 2}), json!({"N": 3})];
    let f = Filter::parse("N != 2").expect("parses");
    let out = super::filter_items(items.clone(), Some(&f)).expect("evaluates");
    assert_eq!(out, vec![json!({"N": 1}), json!({"N": 3})]);
    assert_eq!(
        super::filter_items(items.clone(), None).expect("no filter"),
        items
    );
    let bad = Filter::parse("M == 1").expect("parses");
    assert!(super::filter_items(items, Some(&bad)).is_err());
}
