//! Table tests against the outputs Go's text/template (and consul-template's functions)
//! give for the same templates.

use std::collections::BTreeMap;

use super::brain::{Data, Dependency, ServiceEntry};
use super::funcs::Context;
use super::gofmt::{format_float_g, sprintf};
use super::*;

fn data() -> Value {
    let j = serde_json::json!({
        "Name": "web",
        "Count": 3,
        "Empty": "",
        "List": ["a", "b", "c"],
        "Nums": [1, 2, 3],
        "Map": {"x": "1", "y": "2"},
        "Nested": {"Inner": {"Deep": "yes"}},
        "Null": null,
        "True": true,
    });
    let mut v = Value::from_json(&j);
    // JSON numbers decode to float64; give the integers Go's int kind for comparisons.
    if let Value::Map(m) = &mut v {
        let m = std::sync::Arc::make_mut(m);
        m.insert("Count".into(), Value::Int(3));
        m.insert(
            "Nums".into(),
            Value::list(vec![Value::Int(1), Value::Int(2), Value::Int(3)]),
        );
    }
    v
}

fn render_with(
    src: &str,
    dot: &Value,
    env: &BTreeMap<String, String>,
    brain: &Brain,
) -> Result<String, TemplateError> {
    let t = Template::parse("t", src, &Options::default())?;
    let ctx = Context::new(env, brain);
    t.execute(dot, &ctx)
}

fn render(src: &str) -> Result<String, TemplateError> {
    render_with(src, &data(), &BTreeMap::new(), &Brain::default())
}

fn ok(src: &str) -> String {
    render(src).unwrap_or_else(|e| panic!("{src:?}: {e}"))
}

#[test]
fn text_actions_and_trim_markers_match_go() {
    let cases = [
        ("hello", "hello"),
        ("{{ .Name }}", "web"),
        ("a  {{- .Name -}}  b", "awebb"),
        ("a {{- /* comment */ -}} b", "ab"),
        ("a{{/* c */}}b", "ab"),
        ("x\n  {{- \"y\" }}\n", "xy\n"),
        (
            "{{ 3 }} {{ 3.5 }} {{ -2 }} {{ 0x1F }} {{ 1e3 }} {{ 'a' }}",
            "3 3.5 -2 31 1000 97",
        ),
        ("{{ true }} {{ false }}", "true false"),
        ("{{ \"a\\tb\" }}|{{ `raw\\n` }}", "a\tb|raw\\n"),
        ("{{ .Missing }}", "<no value>"),
        ("{{ .Null }}", "<nil>"),
        ("{{ .List }}", "[a b c]"),
        ("{{ .Map }}", "map[x:1 y:2]"),
        ("{{ .Nested.Inner.Deep }}", "yes"),
        ("{{ .Missing.Deeper }}", "<no value>"),
        ("{{ (.Nested).Inner.Deep }}", "yes"),
        (
            "{{ 1000000.0 }} {{ 123456.0 }} {{ 0.00001 }}",
            "1e+06 123456 1e-05",
        ),
    ];
    for (src, want) in cases {
        assert_eq!(ok(src), want, "{src:?}");
    }
}

#[test]
fn control_structures_match_go() {
    let cases = [
        ("{{ if .True }}yes{{ end }}", "yes"),
        ("{{ if .Empty }}yes{{ else }}no{{ end }}", "no"),
        (
            "{{ if .Empty }}1{{ else if .Missing }}2{{ else if .Name }}3{{ else }}4{{ end }}",
            "3",
        ),
        ("{{ range .List }}[{{ . }}]{{ end }}", "[a][b][c]"),
        (
            "{{ range $i, $v := .List }}{{ $i }}={{ $v }} {{ end }}",
            "0=a 1=b 2=c ",
        ),
        (
            "{{ range $k, $v := .Map }}{{ $k }}:{{ $v }};{{ end }}",
            "x:1;y:2;",
        ),
        ("{{ range .Missing }}x{{ else }}empty{{ end }}", "empty"),
        (
            "{{ range $v := .Nums }}{{ if eq $v 2 }}{{ continue }}{{ end }}{{ $v }}{{ end }}",
            "13",
        ),
        (
            "{{ range .Nums }}{{ if eq . 2 }}{{ break }}{{ end }}{{ . }}{{ end }}",
            "1",
        ),
        ("{{ range 3 }}{{ . }}{{ end }}", "012"),
        ("{{ with .Nested.Inner }}{{ .Deep }}{{ end }}", "yes"),
        ("{{ with .Empty }}x{{ else }}none{{ end }}", "none"),
        (
            "{{ with .Empty }}x{{ else with .Name }}{{ . }}{{ end }}",
            "web",
        ),
        ("{{ $x := 1 }}{{ $x }}{{ $x = 2 }}{{ $x }}", "12"),
        (
            "{{ $x := \"a\" }}{{ if true }}{{ $x = \"b\" }}{{ end }}{{ $x }}",
            "b",
        ),
        ("{{ range .List }}{{ $.Name }}{{ end }}", "webwebweb"),
        (
            "{{ define \"T\" }}<{{ . }}>{{ end }}{{ template \"T\" .Name }}",
            "<web>",
        ),
        ("{{ block \"B\" .Count }}n={{ . }}{{ end }}", "n=3"),
        (
            "{{ define \"T\" }}x{{ end }}{{ executeTemplate \"T\" }}",
            "x",
        ),
    ];
    for (src, want) in cases {
        assert_eq!(ok(src), want, "{src:?}");
    }
}

#[test]
fn builtins_match_go() {
    let cases = [
        (
            "{{ and 1 0 2 }} {{ and 1 2 }} {{ or 0 \"\" }} {{ or 0 5 }}",
            "0 2  5",
        ),
        ("{{ not .True }} {{ not .Empty }}", "false true"),
        (
            "{{ eq .Name \"web\" }} {{ eq 1 2 3 1 }} {{ ne 1 2 }}",
            "true true true",
        ),
        (
            "{{ lt 1 2 }} {{ le 2 2 }} {{ gt \"b\" \"a\" }} {{ ge 1 2 }}",
            "true true true false",
        ),
        ("{{ len .List }} {{ len .Name }} {{ len .Map }}", "3 3 2"),
        (
            "{{ index .List 1 }} {{ index .Map \"y\" }} {{ index .Map \"zz\" }}",
            "b 2 <no value>",
        ),
        ("{{ slice .Name 1 }} {{ slice .List 1 2 }}", "eb [b]"),
        ("{{ print 1 2 \"a\" \"b\" 3 }}", "1 2ab3"),
        ("{{ println 1 \"a\" }}", "1 a\n"),
        (
            "{{ printf \"%s-%d-%v-%q-%5.2f-%x-%t-%%\" \"a\" 7 .List \"q\" 3.14159 255 true }}",
            "a-7-[a b c]-\"q\"- 3.14-ff-true-%",
        ),
        (
            "{{ html \"<a href='x'>&</a>\" }}",
            "&lt;a href=&#39;x&#39;&gt;&amp;&lt;/a&gt;",
        ),
        ("{{ js \"it's <b>\" }}", "it\\'s \\u003Cb\\u003E"),
        ("{{ urlquery \"a b&c=d/é\" }}", "a+b%26c%3Dd%2F%C3%A9"),
        ("{{ .Name | printf \"%s!\" }}", "web!"),
        ("{{ \"x\" | printf \"%s%s\" \"y\" }}", "yx"),
    ];
    for (src, want) in cases {
        assert_eq!(ok(src), want, "{src:?}");
    }
}

#[test]
fn printf_follows_go_fmt() {
    let s = Value::str;
    let cases: Vec<(&str, Vec<Value>, &str)> = vec![
        (
            "%d|%5d|%-5d|%05d|%+d",
            vec![Value::Int(42); 5],
            "42|   42|42   |00042|+42",
        ),
        (
            "%x|%X|%#x|%o|%b",
            vec![
                Value::Int(255),
                Value::Int(255),
                Value::Int(255),
                Value::Int(8),
                Value::Int(5),
            ],
            "ff|FF|0xff|10|101",
        ),
        (
            "%f|%.2f|%8.3f|%e|%g",
            vec![Value::Float(3.5); 5],
            "3.500000|3.50|   3.500|3.500000e+00|3.5",
        ),
        (
            "%v|%v|%v",
            vec![Value::Float(1e21), Value::Float(0.1), Value::Float(100.0)],
            "1e+21|0.1|100",
        ),
        (
            "%s|%10s|%-4s|%.2s",
            vec![s("go"), s("go"), s("go"), s("gopher")],
            "go|        go|go  |go",
        ),
        (
            "%q|%q",
            vec![s("a\"b\n"), Value::Int('x' as i64)],
            "\"a\\\"b\\n\"|'x'",
        ),
        ("%t|%v", vec![Value::Bool(false), Value::Nil], "false|<nil>"),
        ("%x", vec![s("hi")], "6869"),
        ("%d", vec![s("x")], "%!d(string=x)"),
        ("%d %d", vec![Value::Int(1)], "1 %!d(MISSING)"),
        ("%d", vec![Value::Int(1), Value::Int(2)], "1%!(EXTRA int=2)"),
        (
            "%c|%U",
            vec![Value::Int(65), Value::Int(0x1F600)],
            "A|U+1F600",
        ),
        (
            "%T %T %T",
            vec![s("a"), Value::Int(1), Value::Float(1.0)],
            "string int float64",
        ),
    ];
    for (f, args, want) in cases {
        assert_eq!(sprintf(f, &args), want, "{f:?}");
    }
    assert_eq!(format_float_g(1234567.0, None, false), "1.234567e+06");
    assert_eq!(format_float_g(-0.5, None, false), "-0.5");
}

#[test]
fn consul_template_functions() {
    let cases = [
        ("{{ \"Hello\" | toLower }} {{ toUpper \"x\" }} {{ toTitle \"hello big world\" }}", "hello X Hello Big World"),
        ("[{{ trimSpace \"  x \" }}] {{ trimPrefix \"ab\" \"abc\" }} {{ trimSuffix \"c\" \"abc\" }} {{ trim \"x\" \"xxaxx\" }}", "[x] c ab a"),
        ("{{ split \",\" \"a,b,c\" }} {{ \"a,b\" | split \",\" | join \"-\" }}", "[a b c] a-b"),
        ("{{ replaceAll \"a\" \"o\" \"banana\" }} {{ regexReplaceAll \"a(n)\" \"<$1>\" \"banana\" }}", "bonono b<n><n>a"),
        ("{{ regexMatch \"^w.b$\" .Name }} {{ .List | contains \"b\" }} {{ in .List \"z\" }} {{ in \"foobar\" \"oba\" }}", "true true false true"),
        ("{{ containsAll (split \",\" \"a,b\") .List }} {{ containsAny (split \",\" \"x,b\") .List }} {{ containsNone (split \",\" \"x\") .List }} {{ containsNotAll (split \",\" \"a,x\") .List }}", "true true true true"),
        ("{{ with parseJSON `{\"a\":{\"b\":[1,2]},\"s\":\"x\"}` }}{{ .a.b }} {{ .s }} {{ index .a.b 0 }}{{ end }}", "[1 2] x 1"),
        ("{{ .Map | toJSON }} {{ toJSON \"<&>\" }}", "{\"x\":\"1\",\"y\":\"2\"} \"\\u003c\\u0026\\u003e\""),
        ("{{ .List | toJSONPretty }}", "[\n  \"a\",\n  \"b\",\n  \"c\"\n]"),
        ("{{ parseBool \"true\" }} {{ parseInt \"-12\" | add 2 }} {{ parseFloat \"1.5\" }} {{ parseUint \"7\" }}", "true -10 1.5 7"),
        ("{{ base64Encode \"hi?\" }} {{ base64Decode \"aGk/\" }} {{ base64URLEncode \"hi?\" }} {{ base64URLDecode \"aGk_\" }}", "aGk/ hi? aGk_ hi?"),
        ("{{ sha256Hex \"abc\" }}", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"),
        ("{{ md5sum \"abc\" }}", "900150983cd24fb0d6963f7d28e17f72"),
        ("{{ add 1 2 }} {{ subtract 1 5 }} {{ multiply 2 3 }} {{ divide 2 9 }} {{ modulo 2 9 }} {{ 10 | subtract 3 }} {{ add 0.5 1 }}", "3 4 6 4 1 7 1.5"),
        ("{{ minimum 1 5 }} {{ maximum 1 5 }}", "1 5"),
        ("{{ range loop 3 }}{{ . }}{{ end }} {{ range loop 5 8 }}{{ . }}{{ end }}", "012 567"),
        ("{{ indent 2 \"a\\nb\" }}", "  a\n  b"),
        ("{{ $m := parseJSON `{\"a\":\"1\"}` }}{{ mergeMap $m (parseJSON `{\"a\":\"2\",\"b\":\"3\"}`) }} {{ mergeMapWithOverride $m (parseJSON `{\"a\":\"2\"}`) }}", "map[a:1 b:3] map[a:2]"),
        ("{{ explodeMap (parseJSON `{\"a/b\":\"1\",\"a/c\":\"2\",\"d\":\"3\"}`) }}", "map[a:map[b:1 c:2] d:3]"),
        ("{{ (splitToMap \",\" \"=\" \"a=1,b=2\").b }}", "2"),
    ];
    for (src, want) in cases {
        assert_eq!(ok(src), want, "{src:?}");
    }
    // timestamp: RFC 3339 in UTC by default; Go layouts otherwise.
    let ts = ok("{{ timestamp }}");
    assert!(ts.ends_with('Z') && ts.len() == 20, "{ts}");
    let y = ok("{{ timestamp \"2006\" }}");
    assert_eq!(y.len(), 4);
    assert!(ok("{{ timestamp \"unix\" }}").parse::<i64>().is_ok());
}

#[test]
fn go_time_layouts() {
    use chrono::TimeZone;
    let t = chrono::Utc
        .with_ymd_and_hms(2024, 3, 5, 14, 7, 9)
        .single()
        .map(|t| t + chrono::Duration::milliseconds(120));
    let t = t.expect("valid time");
    let f = super::funcs::go_time_format;
    assert_eq!(f(&t, "2006-01-02T15:04:05Z07:00"), "2024-03-05T14:07:09Z");
    assert_eq!(f(&t, "Jan _2 3:04PM"), "Mar  5 2:07PM");
    assert_eq!(
        f(&t, "Monday, 02-Jan-06 15:04:05 MST"),
        "Tuesday, 05-Mar-24 14:07:09 UTC"
    );
    assert_eq!(f(&t, "15:04:05.000 .999"), "14:07:09.120 .12");
}

#[test]
fn env_reads_only_the_task_environment() {
    let mut env = BTreeMap::new();
    env.insert("NOMAD_TASK_NAME".to_string(), "web".to_string());
    let out = render_with(
        "{{ env \"NOMAD_TASK_NAME\" }}|{{ env \"PATH\" }}|{{ envOrDefault \"NOPE\" \"d\" }}",
        &Value::Missing,
        &env,
        &Brain::default(),
    );
    assert_eq!(out.as_deref(), Ok("web||d"));
    let e = render_with(
        "{{ mustEnv \"NOPE\" }}",
        &Value::Missing,
        &env,
        &Brain::default(),
    );
    assert!(
        matches!(e, Err(TemplateError::Exec(m)) if m.contains("required environment variable NOPE is empty"))
    );
}

#[test]
fn nomad_service_records_a_missing_dependency_then_renders_from_the_brain() {
    let src = "{{ range nomadService \"api\" }}{{ .Address }}:{{ .Port }} {{ end }}";
    let t = Template::parse("t", src, &Options::default()).expect("parses");
    let env = BTreeMap::new();
    let brain = Brain::default();
    let ctx = Context::new(&env, &brain);
    assert_eq!(t.execute(&Value::Missing, &ctx).as_deref(), Ok(""));
    let dep = Dependency::NomadService {
        name: "api".into(),
        tag: String::new(),
        region: String::new(),
        choose: String::new(),
    };
    assert!(ctx.missing.borrow().contains(&dep));
    let mut brain = Brain::default();
    brain.remember(
        dep.clone(),
        Data::Services(vec![ServiceEntry {
            name: "api".into(),
            address: "10.0.0.1".into(),
            port: 8080,
            tags: vec!["v1".into()],
            ..Default::default()
        }]),
    );
    let ctx = Context::new(&env, &brain);
    assert_eq!(
        t.execute(&Value::Missing, &ctx).as_deref(),
        Ok("10.0.0.1:8080 ")
    );
    assert!(ctx.missing.borrow().is_empty());
    assert!(ctx.used.borrow().contains(&dep));

    let by_tag = Template::parse(
        "t",
        "{{ range $tag, $s := nomadService \"api\" | byTag }}{{ $tag }}={{ len $s }}{{ end }}",
        &Options::default(),
    )
    .expect("parses");
    assert_eq!(by_tag.execute(&Value::Missing, &ctx).as_deref(), Ok("v1=1"));

    // Tag and region query forms; bad forms are errors.
    assert_eq!(
        super::funcs::parse_service_query("v1.api@east"),
        Ok(("api".into(), "v1".into(), "east".into()))
    );
    assert!(super::funcs::parse_service_query("bad name").is_err());
}

#[test]
fn consul_vault_and_variables_fail_naming_the_function() {
    for (src, needle) in [
        (
            "{{ key \"a/b\" }}",
            "error calling key: key: Consul is not available",
        ),
        (
            "{{ range service \"web\" }}{{ end }}",
            "error calling service: service: Consul",
        ),
        (
            "{{ with secret \"kv/x\" }}{{ end }}",
            "error calling secret: secret: Vault",
        ),
        (
            "{{ with nomadVar \"nomad/jobs/x\" }}{{ end }}",
            "nomadVar: Nomad variables are not supported",
        ),
        (
            "{{ range nomadVarList }}{{ end }}",
            "nomadVarList: Nomad variables are not supported",
        ),
    ] {
        match render(src) {
            Err(TemplateError::Exec(m)) => assert!(m.contains(needle), "{src}: {m}"),
            other => panic!("{src}: {other:?}"),
        }
    }
}

#[test]
fn errors_have_go_wording() {
    let cases = [
        ("{{ nope }}", "template: t:1: function \"nope\" not defined"),
        ("{{ if .Name }}", "template: t:1: unexpected EOF"),
        ("{{ end }}", "unexpected {{end}}"),
        ("{{ $x }}", "undefined variable \"$x\""),
        ("{{ index .List 5 }}", "template: t:1:3: executing \"t\" at <index .List 5>: error calling index: index out of range: 5"),
        ("{{ toUpper 1 }}", "wrong type for value; expected string; got int"),
        ("{{ template \"X\" }}", "template \"X\" not defined"),
        ("{{ .Null.Foo }}", "nil pointer evaluating interface {}.Foo"),
        ("{{ .Name 1 }}", "can't give argument to non-function .Name"),
        ("{{ range .Name }}{{ end }}", "range can't iterate over web"),
        ("{{ divide 0 1 }}", "integer divide by zero"),
        ("{{ break }}", "{{break}} outside {{range}}"),
    ];
    for (src, want) in cases {
        let e = render(src).expect_err(src);
        let m = e.to_string();
        assert!(m.contains(want), "{src}: got {m:?}, want {want:?}");
    }
}

#[test]
fn missing_key_option_and_custom_delimiters() {
    let opts = Options {
        left_delim: "[[".into(),
        right_delim: "]]".into(),
        err_missing_key: true,
    };
    let t = Template::parse("t", "{{ not an action }} [[ .Name ]]", &opts).expect("parses");
    let env = BTreeMap::new();
    let brain = Brain::default();
    let ctx = Context::new(&env, &brain);
    assert_eq!(
        t.execute(&data(), &ctx).as_deref(),
        Ok("{{ not an action }} web")
    );
    let t = Template::parse("t", "[[ .Nope ]]", &opts).expect("parses");
    let e = t.execute(&data(), &ctx).expect_err("missing key");
    assert!(
        e.to_string().contains("map has no entry for key \"Nope\""),
        "{e}"
    );
}

#[test]
fn file_is_confined_to_the_sandbox_and_tracked() {
    let dir = tempfile::tempdir().expect("tempdir");
    std::fs::create_dir_all(dir.path().join("local")).expect("mkdir");
    std::fs::write(dir.path().join("local/in.txt"), "inside").expect("write");
    let env = BTreeMap::new();
    let mut brain = Brain::default();
    let resolved = super::funcs::sandboxed(Some(dir.path()), "local/in.txt").expect("inside");
    brain.remember(
        Dependency::File(resolved),
        Data::File(Some("inside".into())),
    );
    let mut ctx = Context::new(&env, &brain);
    ctx.sandbox = Some(dir.path());
    let t =
        Template::parse("t", "{{ file \"local/in.txt\" }}", &Options::default()).expect("parses");
    assert_eq!(t.execute(&Value::Missing, &ctx).as_deref(), Ok("inside"));
    let t = Template::parse("t", "{{ file \"../../etc/passwd\" }}", &Options::default())
        .expect("parses");
    let e = t.execute(&Value::Missing, &ctx).expect_err("escapes");
    assert!(e.to_string().contains("is outside of sandbox"), "{e}");
}

#[test]
fn yaml_toml_and_sockaddr_functions_render_through_the_engine() {
    for (src, want) in [
        ("{{ .Map | toYAML }}", "x: \"1\"\n\"y\": \"2\""),
        ("{{ .Nested | toYAML }}", "Inner:\n  Deep: \"yes\""),
        ("{{ .List | toYAML }}", "- a\n- b\n- c"),
        (
            "{{ with parseYAML \"a:\\n  b: [1, 2]\\nc: on\" }}{{ .a.b }} {{ .c }} {{ index .a.b 1 | add 1 }}{{ end }}",
            "[1 2] true 3",
        ),
        ("{{ parseYAML \"\" | len }}", "0"),
        (
            "{{ \"name: web\\nports: [80, 443]\" | parseYAML | toYAML }}",
            "name: web\nports:\n- 80\n- 443",
        ),
        (
            "{{ \"{\\\"db\\\": {\\\"port\\\": 5432}, \\\"name\\\": \\\"x\\\"}\" | parseJSON | toTOML }}",
            "name = \"x\"\n\n[db]\n  port = 5432.0",
        ),
        (
            "{{ sockaddr \"GetAllInterfaces | include \\\"name\\\" \\\"^lo$\\\" | include \\\"type\\\" \\\"IPv4\\\" | attr \\\"address\\\"\" }}",
            "127.0.0.1",
        ),
    ] {
        assert_eq!(ok(src), want, "{src}");
    }
    for (src, needle) in [
        (
            "{{ parseYAML \"a: [1\" }}",
            "error calling parseYAML: yaml: line ",
        ),
        (
            "{{ parseYAML 1 }}",
            "wrong type for value; expected string; got int",
        ),
        ("{{ toTOML .List }}", "[\"a\", \"b\", \"c\"]"),
        (
            "{{ sockaddr \"NoSuch\" }}",
            "error calling sockaddr: unable to execute sockaddr input",
        ),
    ] {
        match render(src) {
            Ok(out) => assert!(out.contains(needle), "{src}: {out}"),
            Err(e) => assert!(e.to_string().contains(needle), "{src}: {e}"),
        }
    }
}
