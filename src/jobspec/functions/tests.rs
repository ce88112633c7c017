//! Table-driven checks of the function library against go-cty's stdlib results, evaluated
//! through the real expression evaluator so arity and position handling are covered too.

use serde_json::{json, Value};

use crate::jobspec::diag::SourceMap;
use crate::jobspec::eval::EvalContext;

fn eval_in(src: &str, filename: &str) -> Result<Value, String> {
    eval_with(src, filename, true)
}

fn eval_with(src: &str, filename: &str, allow_fs: bool) -> Result<Value, String> {
    let expr = hcl_edit::parser::parse_expr(src).map_err(|e| e.message().to_string())?;
    let map = SourceMap::new(filename, src);
    let mut ctx = EvalContext::new(&map);
    ctx.allow_fs = allow_fs;
    ctx.eval(&expr).map_err(|d| d.to_string())
}

fn eval(src: &str) -> Result<Value, String> {
    eval_in(src, "t.hcl")
}

fn check(cases: &[(&str, Value)]) {
    for (src, want) in cases {
        match eval(src) {
            Ok(got) => assert_eq!(&got, want, "{src}"),
            Err(e) => panic!("{src}: {e}"),
        }
    }
}

fn check_err(cases: &[(&str, &str)]) {
    for (src, want) in cases {
        match eval(src) {
            Ok(v) => panic!("{src}: expected error, got {v}"),
            Err(e) => assert_eq!(e, *want, "{src}"),
        }
    }
}

#[test]
fn string_functions() {
    check(&[
        (r#"format("%03d", 7)"#, json!("007")),
        (r#"format("Hello, %s!", "Ander")"#, json!("Hello, Ander!")),
        (r#"format("%-5s|%5s", "a", "b")"#, json!("a    |    b")),
        (
            r#"format("%.2f %t %q %%", 3.14159, true, "x")"#,
            json!("3.14 true \"x\" %"),
        ),
        (
            r#"format("%x %X %o %b %+d", 255, 255, 8, 5, 3)"#,
            json!("ff FF 10 101 +3"),
        ),
        (
            r#"format("%v %#v", [1, "a"], "s")"#,
            json!("[1,\"a\"] \"s\""),
        ),
        (r#"format("%[2]s %[1]s", "a", "b")"#, json!("b a")),
        (r#"format("%e", 1234.5678)"#, json!("1.234568e+03")),
        (
            r#"formatlist("%s=%s", ["a", "b"], "x")"#,
            json!(["a=x", "b=x"]),
        ),
        (r#"join(", ", ["a", "b"], ["c"])"#, json!("a, b, c")),
        (r#"split(",", "a,b")"#, json!(["a", "b"])),
        (r#"split(",", "")"#, json!([""])),
        (r#"lower("HeLLo")"#, json!("hello")),
        (r#"upper("hello")"#, json!("HELLO")),
        (r#"title("hello world-foo")"#, json!("Hello World-Foo")),
        (
            r#"title("don't stop_me über")"#,
            json!("Don'T Stop_me Über"),
        ),
        (r#"trim("?!hello?!", "!?")"#, json!("hello")),
        (r#"trimprefix("helloworld", "hello")"#, json!("world")),
        (r#"trimsuffix("helloworld", "world")"#, json!("hello")),
        (r#"trimspace("  hi \n")"#, json!("hi")),
        (r#"replace("1 + 2 + 3", "+", "-")"#, json!("1 - 2 - 3")),
        // cty's replace is plain: slashes are not a regular expression.
        (r#"replace("a/b/c", "/b/", "-")"#, json!("a-c")),
        (r#"substr("hello world", 1, 4)"#, json!("ello")),
        (r#"substr("hello world", -5, -1)"#, json!("world")),
        (r#"substr("hi", 5, 1)"#, json!("")),
        (r#"strlen("héllo")"#, json!(5)),
        (r#"strrev("abc")"#, json!("cba")),
        (r#"chomp("hello\n\r\n")"#, json!("hello")),
        (r#"indent(2, "a\nb\n")"#, json!("a\n  b\n  ")),
        (r#"lower(5)"#, json!("5")),
    ]);
}

#[test]
fn collection_functions() {
    check(&[
        (r#"concat(["a"], ["b", "c"])"#, json!(["a", "b", "c"])),
        (r#"contains(["a", "b"], "b")"#, json!(true)),
        (r#"contains([1, 2], 3)"#, json!(false)),
        (r#"distinct(["a", "b", "a", "c"])"#, json!(["a", "b", "c"])),
        (r#"element(["a", "b", "c"], 4)"#, json!("b")),
        (
            r#"flatten([["a", "b"], [], ["c", ["d"]]])"#,
            json!(["a", "b", "c", "d"]),
        ),
        (r#"keys({b = 1, a = 2})"#, json!(["a", "b"])),
        (r#"values({b = 1, a = 2})"#, json!([2, 1])),
        (r#"length([1, 2])"#, json!(2)),
        (r#"length({a = 1})"#, json!(1)),
        (r#"length("abc")"#, json!(3)),
        (r#"lookup({a = "x"}, "a")"#, json!("x")),
        (r#"lookup({a = "x"}, "b", "d")"#, json!("d")),
        (
            r#"merge({a = 1, b = 2}, {b = 3}, null)"#,
            json!({"a": 1, "b": 3}),
        ),
        ("range(3)", json!([0, 1, 2])),
        ("range(1, 4)", json!([1, 2, 3])),
        ("range(4, 1)", json!([4, 3, 2])),
        ("range(0, 1, 0.25)", json!([0, 0.25, 0.5, 0.75])),
        (r#"reverse([1, 2, 3])"#, json!([3, 2, 1])),
        (r#"slice(["a", "b", "c", "d"], 1, 3)"#, json!(["b", "c"])),
        (r#"sort(["e", "d", "a"])"#, json!(["a", "d", "e"])),
        (r#"zipmap(["a", "b"], [1, 2])"#, json!({"a": 1, "b": 2})),
        (r#"coalesce("", null, "b")"#, json!("b")),
        (r#"coalescelist([], ["x"])"#, json!(["x"])),
        (r#"compact(["a", "", null, "b"])"#, json!(["a", "b"])),
        (r#"index(["a", "b"], "b")"#, json!(1)),
        (
            r#"chunklist(["a", "b", "c"], 2)"#,
            json!([["a", "b"], ["c"]]),
        ),
        (
            r#"setunion(["a", "b"], ["b", "c"])"#,
            json!(["a", "b", "c"]),
        ),
        (r#"setintersection(["a", "b"], ["b", "c"])"#, json!(["b"])),
        (r#"max([3, 9, 1]...)"#, json!(9)),
    ]);
}

#[test]
fn numeric_functions() {
    check(&[
        ("abs(-12.4)", json!(12.4)),
        ("ceil(4.1)", json!(5)),
        ("floor(-4.1)", json!(-5)),
        ("max(12, 54, 3)", json!(54)),
        ("min(12, 54, 3)", json!(3)),
        (r#"parseint("100", 10)"#, json!(100)),
        (r#"parseint("FF", 16)"#, json!(255)),
        (r#"parseint("-1010", 2)"#, json!(-10)),
        ("pow(3, 2)", json!(9)),
        ("signum(-13)", json!(-1)),
        ("signum(0)", json!(0)),
        ("log(16, 2)", json!(4)),
    ]);
}

#[test]
fn encoding_functions() {
    check(&[
        (r#"base64encode("Hello World")"#, json!("SGVsbG8gV29ybGQ=")),
        (r#"base64decode("SGVsbG8gV29ybGQ=")"#, json!("Hello World")),
        (
            r#"jsonencode({hello = "world", n = [1, true]})"#,
            json!(r#"{"hello":"world","n":[1,true]}"#),
        ),
        (
            r#"jsondecode("{\"a\": [1, null]}")"#,
            json!({"a": [1, null]}),
        ),
        (r#"urlencode("a b/c?d=é")"#, json!("a+b%2Fc%3Fd%3D%C3%A9")),
    ]);
}

#[test]
fn filesystem_functions_resolve_against_the_job_file() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("x.txt"), "hi there\n").expect("write");
    let job = dir.path().join("job.hcl");
    let job = job.to_str().expect("utf-8 path");
    assert_eq!(eval_in(r#"file("x.txt")"#, job), Ok(json!("hi there\n")));
    assert_eq!(
        eval_in(r#"filebase64("x.txt")"#, job),
        Ok(json!("aGkgdGhlcmUK"))
    );
    assert_eq!(eval_in(r#"fileexists("x.txt")"#, job), Ok(json!(true)));
    assert_eq!(eval_in(r#"fileexists("nope.txt")"#, job), Ok(json!(false)));
    let err = eval_in(r#"file("nope.txt")"#, job).expect_err("missing file");
    assert!(err.contains("Invalid function argument"), "{err}");
    std::fs::create_dir_all(dir.path().join("conf/sub")).expect("mkdir");
    for f in ["conf/a.tpl", "conf/b.txt", "conf/sub/c.tpl"] {
        std::fs::write(dir.path().join(f), "x").expect("write");
    }
    assert_eq!(
        eval_in(r#"fileset("conf", "*.tpl")"#, job),
        Ok(json!(["a.tpl"]))
    );
    assert_eq!(
        eval_in(r#"fileset("conf", "**/*.tpl")"#, job),
        Ok(json!(["a.tpl", "sub/c.tpl"]))
    );
    assert_eq!(
        eval_in(r#"fileset("conf", "{a,b}.*")"#, job),
        Ok(json!(["a.tpl", "b.txt"]))
    );
    check(&[
        (r#"basename("/a/b/c.txt")"#, json!("c.txt")),
        (r#"dirname("/a/b/c.txt")"#, json!("/a/b")),
        (r#"dirname("c.txt")"#, json!(".")),
        (r#"abspath("/a/./b/../c")"#, json!("/a/c")),
    ]);
}

#[test]
fn filesystem_functions_are_disabled_for_api_text() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::write(dir.path().join("secret"), "s3cret").expect("write");
    let job = dir.path().join("job.hcl");
    let job = job.to_str().expect("utf-8 path");
    for f in [
        r#"file("secret")"#,
        r#"filebase64("secret")"#,
        r#"fileexists("secret")"#,
        r#"fileset(".", "*")"#,
    ] {
        let err = eval_with(f, job, false).expect_err(f);
        assert!(err.contains("filesystem function disabled"), "{f}: {err}");
    }
    // The public text parser (used by /v1/jobs/parse) never reads files.
    let src = format!(
        "job \"x\" {{\n  meta {{\n    k = file(\"{}/secret\")\n  }}\n}}\n",
        dir.path().display()
    );
    let err = crate::jobspec::parse_str(&src, "input.hcl", &[]).expect_err("fs disabled");
    assert!(
        err.to_string().contains("filesystem function disabled"),
        "{err}"
    );
}

#[test]
fn try_can_and_uuid() {
    check(&[
        (r#"try(var.missing, "fallback")"#, json!("fallback")),
        (r#"can(var.missing)"#, json!(false)),
        (r#"can(upper("x"))"#, json!(true)),
    ]);
    let u = eval("uuidv4()").expect("uuid");
    let u = u.as_str().expect("string");
    assert_eq!(uuid::Uuid::parse_str(u).map(|x| x.get_version_num()), Ok(4));
}

#[test]
fn errors_are_positioned_like_hcl() {
    check_err(&[
        (
            r#"lower([1])"#,
            "t.hcl:1,7-10: Invalid function argument; Invalid value for \"str\" parameter: string required.",
        ),
        (
            r#"lower()"#,
            "t.hcl:1,1-8: Not enough function arguments; Function \"lower\" expects 1 argument(s). Missing value for \"str\".",
        ),
        (
            r#"lower("a", "b")"#,
            "t.hcl:1,12-15: Too many function arguments; Function \"lower\" expects only 1 argument(s).",
        ),
        (
            r#"lowr("a")"#,
            "t.hcl:1,1-10: Call to unknown function; There is no function named \"lowr\". Did you mean \"lower\"?",
        ),
        (
            r#"formatdat("x")"#,
            "t.hcl:1,1-15: Call to unknown function; There is no function named \"formatdat\". Did you mean \"formatdate\"?",
        ),
        (
            r#"ns::upper("x")"#,
            "t.hcl:1,1-15: Call to unknown function; There is no function named \"ns::upper\".",
        ),
        (
            r#"max("a"...)"#,
            "t.hcl:1,5-8: Invalid expanding argument value; The expanding argument (indicated by ...) must be of a tuple, list, or set type.",
        ),
        (
            r#"nosuchthing(1)"#,
            "t.hcl:1,1-15: Call to unknown function; There is no function named \"nosuchthing\".",
        ),
        (
            r#"index(["a"], "z")"#,
            "t.hcl:1,1-18: Error in function call; Call to function \"index\" failed: item not found.",
        ),
        (
            r#"format("%d", "x")"#,
            "t.hcl:1,1-18: Error in function call; Call to function \"format\" failed: unsupported value for \"%d\" at 1: number required.",
        ),
    ]);
}

#[test]
fn whole_job_uses_functions() {
    let src = r#"
variable "dcs" {
  default = "dc1,dc2"
}
locals {
  name = lower(format("%s-%02d", "WEB", 3))
}
job "example" {
  datacenters = split(",", var.dcs)
  meta {
    owner = upper(trimspace("  ops "))
    tags  = join(",", sort(distinct(["b", "a", "b"])))
  }
  group "g" {
    count = max(1, length(split(",", var.dcs)))
    task "t" {
      driver = "docker"
      config {
        image = "${local.name}:${replace("1.2.3", ".", "_")}"
      }
    }
  }
}
"#;
    let job = crate::jobspec::parse_str(src, "job.hcl", &[]).expect("job parses");
    assert_eq!(
        job.datacenters,
        Some(vec!["dc1".to_string(), "dc2".to_string()])
    );
    let meta = job.meta.expect("meta");
    assert_eq!(meta.get("owner").map(String::as_str), Some("OPS"));
    assert_eq!(meta.get("tags").map(String::as_str), Some("a,b"));
    let tg = &job.task_groups[0];
    assert_eq!(tg.count, 2);
    let cfg = serde_json::to_value(&tg.tasks[0].config).expect("config");
    assert_eq!(cfg["image"], json!("web-03:1_2_3"));
}

#[test]
fn datetime_functions() {
    check(&[
        (
            r#"formatdate("DD MMM YYYY hh:mm ZZZ", "2018-01-02T23:12:01Z")"#,
            json!("02 Jan 2018 23:12 UTC"),
        ),
        (
            r#"formatdate("EEEE, MMMM D, YYYY", "2018-01-02T23:12:01Z")"#,
            json!("Tuesday, January 2, 2018"),
        ),
        (
            r#"formatdate("EEE, DD MMM YYYY hh:mm:ss Z", "2018-01-02T23:12:01-08:00")"#,
            json!("Tue, 02 Jan 2018 23:12:01 -08:00"),
        ),
        (
            r#"formatdate("h:mm aa 'o''clock' YY", "2018-01-02T23:12:01Z")"#,
            json!("23:12 pm o'clock 18"),
        ),
        (
            r#"formatdate("H AA", "2018-01-02T00:05:00Z")"#,
            json!("12 AM"),
        ),
        (
            r#"timeadd("2017-11-22T00:00:00Z", "10m")"#,
            json!("2017-11-22T00:10:00Z"),
        ),
        (
            r#"timeadd("2017-11-22T00:00:00Z", "-1h30m")"#,
            json!("2017-11-21T22:30:00Z"),
        ),
    ]);
    check_err(&[(
        r#"timeadd("nope", "1h")"#,
        "t.hcl:1,9-15: Invalid function argument; Invalid value for \"timestamp\" parameter: not a valid RFC3339 timestamp: cannot use \"nope\" as year.",
    )]);
}

#[test]
fn crypto_uuid_and_conversions() {
    check(&[
        (r#"sha1("hello world")"#, json!("2aae6c35c94fcfb415dbe95f408b9ce91ee846ed")),
        (r#"sha256("hello world")"#, json!("b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9")),
        (r#"sha512("hello world")"#, json!("309ecc489c12d6eb4cc40f50c902f2b4d0ed77ee511a7c7a9bcd3ca86d4cd86f989dd35bc5ff499670da34255b45b0cfd830e81f605dcf7dc5542e93ae9cd76f")),
        (r#"uuidv5("dns", "www.terraform.io")"#, json!("a5008fae-b28c-5ba5-96cd-82b4c53552d6")),
        (r#"uuidv5("url", "https://www.terraform.io/")"#, json!("9db6f67c-dd95-5ea0-aa5b-e70e5c5f7cf5")),
        (r#"md5("hello world")"#, json!("5eb63bbbe01eeed093cb22bb8f5acdc3")),
        (r#"convert(5, string)"#, json!("5")),
        (r#"convert("42", number)"#, json!(42)),
        (r#"convert("true", bool)"#, json!(true)),
        (r#"convert(["c", "a", "c"], set(string))"#, json!(["a", "c"])),
        (r#"convert({a = 1}, map(string))"#, json!({"a": "1"})),
        (r#"convert([1, "x"], list(any))"#, json!(["1", "x"])),
        (r#"convert({a = 1, b = "x"}, object({a = number}))"#, json!({"a": 1})),
        (r#"convert(null, number)"#, json!(null)),
    ]);
    check_err(&[
        (
            r#"convert("x", number)"#,
            "t.hcl:1,9-12: Invalid function argument; Invalid value for \"value\" parameter: a number is required.",
        ),
        (
            r#"convert(1, strng)"#,
            "t.hcl:1,12-17: Invalid type specification; The keyword \"strng\" is not a valid type specification.",
        ),
        (
            r#"convert(1)"#,
            "t.hcl:1,1-11: Not enough function arguments; Function \"convert\" expects 2 argument(s). Missing value for \"type\".",
        ),
        // Nomad's jobspec has no tostring/regex: they are unknown functions there too.
        (
            r#"tostring(5)"#,
            "t.hcl:1,1-12: Call to unknown function; There is no function named \"tostring\".",
        ),
    ]);
}

#[test]
fn network_csv_and_setproduct() {
    check(&[
        (r#"cidrhost("10.12.112.0/20", 16)"#, json!("10.12.112.16")),
        (r#"cidrhost("10.12.112.0/20", 268)"#, json!("10.12.113.12")),
        (r#"cidrhost("10.12.112.0/20", -1)"#, json!("10.12.127.255")),
        (
            r#"cidrhost("fd00:fd12:3456:7890:00a2::/72", 34)"#,
            json!("fd00:fd12:3456:7890::22"),
        ),
        (r#"cidrnetmask("172.16.0.0/12")"#, json!("255.240.0.0")),
        (
            r#"cidrsubnet("172.16.0.0/12", 4, 2)"#,
            json!("172.18.0.0/16"),
        ),
        (
            r#"cidrsubnet("10.1.2.0/24", 4, 15)"#,
            json!("10.1.2.240/28"),
        ),
        (
            r#"cidrsubnet("fd00:fd12:3456:7890::/56", 16, 162)"#,
            json!("fd00:fd12:3456:7800:a200::/72"),
        ),
        (
            r#"cidrsubnets("10.1.0.0/16", 4, 4, 8, 4)"#,
            json!([
                "10.1.0.0/20",
                "10.1.16.0/20",
                "10.1.32.0/24",
                "10.1.48.0/20"
            ]),
        ),
        (
            "csvdecode(\"a,b\\n1,\\\"x,\\\"\\\"y\\\"\\\"\\\"\\n\")",
            json!([{"a": "1", "b": "x,\"y\""}]),
        ),
        (
            r#"setproduct(["a", "b"], [1, 2])"#,
            json!([["a", 1], ["a", 2], ["b", 1], ["b", 2]]),
        ),
    ]);
}

#[test]
fn function_errors_in_a_job_carry_the_job_file_position() {
    let src = "job \"x\" {\n  datacenters = [upper([1])]\n}\n";
    let err = crate::jobspec::parse_str(src, "job.hcl", &[])
        .expect_err("bad argument")
        .to_string();
    assert!(
        err.contains("job.hcl:2,24-27: Invalid function argument; Invalid value for \"str\" parameter: string required."),
        "{err}"
    );
}

#[test]
fn yaml_and_crypto_functions() {
    check(&[
        (
            r#"yamlencode({a = "b", l = [1, true]})"#,
            json!("\"a\": \"b\"\n\"l\":\n- 1\n- true\n"),
        ),
        (
            r#"yamldecode("a: [1, yes]\nb: ~\n")"#,
            json!({"a": [1, true], "b": null}),
        ),
        (r#"length(bcrypt("pw", 4))"#, json!(60)),
    ]);
    let err = eval(r#"yamldecode("a: b\n---\nc: d\n")"#).expect_err("two documents");
    assert!(err.contains("Call to function \"yamldecode\" failed: on line 2, column 1: unexpected extra content after value."), "{err}");
}

#[test]
fn regex_replace_expands_capture_groups() {
    check(&[
        (
            r#"regex_replace("hello world", "o(.)", "0$1")"#,
            json!("hell0 w0rld"),
        ),
        (
            r#"regex_replace("v1.2.3", "^v(?P<major>\\d+).*", "${major}")"#,
            json!("1"),
        ),
        (r#"regex_replace("aaa", "b", "c")"#, json!("aaa")),
    ]);
    let err = eval(r#"regex_replace("a", "(", "b")"#).expect_err("bad pattern");
    assert!(err.contains("error parsing regexp"), "{err}");
}
