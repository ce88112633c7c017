use super::*;
use crate::api::DriverInfo;
use crate::scheduler::testing::node;

fn c(l: &str, op: &str, r: &str) -> Constraint {
    Constraint {
        l_target: l.into(),
        operand: op.into(),
        r_target: r.into(),
    }
}

#[test]
fn constraint_operator_table() {
    let mut n = node("n1");
    n.meta.insert("rack".into(), "r1".into());
    n.meta.insert("tags".into(), "a, b,c".into());
    n.node_class = "large".into();
    n.node_pool = "prod".into();
    let cases = [
        ("${attr.kernel.name}", "=", "linux", true),
        ("${attr.kernel.name}", "==", "linux", true),
        ("${attr.kernel.name}", "is", "windows", false),
        ("${attr.missing}", "=", "", false),
        ("${attr.kernel.name}", "!=", "windows", true),
        ("${attr.kernel.name}", "not", "linux", false),
        ("${attr.missing}", "!=", "linux", true),
        ("${attr.cpu.numcores}", ">", "3", true),
        ("${attr.cpu.numcores}", ">=", "4", true),
        ("${attr.cpu.numcores}", "<", "10", true), // numeric, not lexical
        ("${attr.cpu.numcores}", "<=", "3", false),
        ("1.5", "<", "1.25", false), // float order
        ("abc", "<", "abd", true),   // lexical order
        ("${attr.missing}", "<", "5", false),
        ("${attr.nomad.version}", "version", ">= 1.9, < 2.0", true),
        ("${attr.nomad.version}", "version", "~> 1.8.0", false),
        ("${attr.nomad.version}", "semver", ">= 1.9.0", true),
        ("${attr.missing}", "version", ">= 1.0", false),
        ("${attr.kernel.name}", "regexp", "^lin", true),
        ("${attr.kernel.name}", "regexp", "^win", false),
        ("${attr.kernel.name}", "regexp", "(", false), // bad regexp never matches
        ("${meta.tags}", "set_contains", "a,c", true),
        ("${meta.tags}", "set_contains", "a,d", false),
        ("${meta.tags}", "set_contains_any", "d, b", true),
        ("${meta.tags}", "set_contains_any", "d,e", false),
        ("${meta.rack}", "is_set", "", true),
        ("${meta.nope}", "is_set", "", false),
        ("${meta.nope}", "is_not_set", "", true),
        ("${meta.rack}", "is_not_set", "", false),
        ("${node.unique.id}", "=", "n1", true),
        ("${node.unique.name}", "=", "name-n1", true),
        ("${node.datacenter}", "=", "dc1", true),
        ("${node.class}", "=", "large", true),
        ("${node.pool}", "=", "prod", true),
        ("${node.bogus}", "=", "x", false),
        ("", "distinct_hosts", "true", true),
        ("${attr.kernel.name}", "bogus-op", "linux", false),
    ];
    for (l, op, r, want) in cases {
        assert_eq!(meets_constraint(&c(l, op, r), &n), want, "{l} {op} {r}");
    }
}

#[test]
fn constraint_key_matches_nomad() {
    assert_eq!(
        constraint_key(&c("${attr.kernel.name}", "=", "linux")),
        "${attr.kernel.name} = linux"
    );
}

#[test]
fn datacenter_globs() {
    let cases = [
        ("*", "dc1", true),
        ("dc*", "dc1", true),
        ("dc*", "eu-1", false),
        ("*-1", "eu-1", true),
        ("e*u*1", "eu-west-1", true),
        ("dc1", "dc1", true),
        ("dc1", "dc10", false),
        ("dc1*", "dc", false),
    ];
    for (p, v, want) in cases {
        assert_eq!(glob_match(p, v), want, "{p} {v}");
    }
}

#[test]
fn node_pools() {
    let mut n = node("n1");
    assert!(node_in_pool(&n, "default"));
    assert!(node_in_pool(&n, NODE_POOL_ALL));
    assert!(!node_in_pool(&n, "prod"));
    n.node_pool = String::new();
    assert!(node_in_pool(&n, "default"));
}

#[test]
fn drivers_from_info_or_attribute() {
    let mut n = node("n1");
    assert!(has_driver(&n, "raw_exec"));
    assert!(!has_driver(&n, "docker"));
    n.drivers.insert(
        "docker".into(),
        DriverInfo {
            detected: true,
            healthy: false,
            ..Default::default()
        },
    );
    assert!(!has_driver(&n, "docker"));
    n.attributes.insert("driver.exec".into(), "1".into());
    assert!(has_driver(&n, "exec"));
    n.attributes.insert("driver.java".into(), "nope".into());
    assert!(!has_driver(&n, "java"));
}

#[test]
fn distinct_hosts_flag() {
    assert!(wants_distinct_hosts(Some(&vec![c(
        "",
        "distinct_hosts",
        ""
    )])));
    assert!(wants_distinct_hosts(Some(&vec![c(
        "",
        "distinct_hosts",
        "true"
    )])));
    assert!(!wants_distinct_hosts(Some(&vec![c(
        "",
        "distinct_hosts",
        "false"
    )])));
    assert!(wants_distinct_hosts(Some(&vec![c(
        "",
        "distinct_hosts",
        "junk"
    )])));
    assert!(!wants_distinct_hosts(None));
}

#[test]
fn affinity_scores() {
    let mut n = node("n1");
    n.meta.insert("rack".into(), "r1".into());
    let affs = parse_affinities(Some(&serde_json::json!([
        {"LTarget": "${meta.rack}", "Operand": "=", "RTarget": "r1", "Weight": 50},
        {"LTarget": "${attr.kernel.name}", "Operand": "=", "RTarget": "windows", "Weight": 25},
        {"LTarget": "${node.datacenter}", "Operand": "=", "RTarget": "dc1", "Weight": -25},
        {"LTarget": "x", "Operand": "=", "RTarget": "x", "Weight": 0}
    ])));
    assert_eq!(affs.len(), 3);
    // (50 - 25) / (50 + 25 + 25)
    assert!((affinity_score(&affs, &n) - 0.25).abs() < 1e-12);
    assert_eq!(affinity_score(&[], &n), 0.0);
}
