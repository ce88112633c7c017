use std::time::{Duration, Instant};

use axum::http::StatusCode;

use super::*;

#[tokio::test]
async fn register_answers_nomads_register_response_with_index_header() {
    let server = start_server().await;
    let app = app(Some(server.clone()), None);
    let r = register(&app, "example").await;
    assert_eq!(r.header("content-type"), Some("application/json"));
    let v = r.json();
    let keys: Vec<&str> = v
        .as_object()
        .expect("object")
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(
        keys,
        [
            "EvalCreateIndex",
            "EvalID",
            "Index",
            "JobModifyIndex",
            "KnownLeader",
            "LastContact",
            "NextToken",
            "Warnings"
        ]
    );
    assert_eq!(v["EvalID"].as_str().map(str::len), Some(36));
    let index = v["Index"].as_u64().expect("index");
    assert!(index > 0);
    assert_eq!(r.header("x-nomad-index"), Some(index.to_string().as_str()));
    // Writes carry only the index header, as Nomad's do.
    assert_eq!(r.header("x-nomad-knownleader"), None);
    // Compact JSON, no trailing newline.
    assert!(!r.text().contains('\n'));
    server.shutdown().await;
}

#[tokio::test]
async fn get_list_and_prefix() {
    let server = start_server().await;
    let app = app(Some(server.clone()), None);
    register(&app, "example").await;
    register(&app, "other").await;

    let r = get(&app, "/v1/job/example").await;
    assert_eq!(r.status, StatusCode::OK);
    let job = r.json();
    assert_eq!(job["ID"], "example");
    assert_eq!(job["Namespace"], "default");
    assert_eq!(job["Region"], "global");
    assert_eq!(r.header("x-nomad-knownleader"), Some("true"));
    assert_eq!(r.header("x-nomad-lastcontact"), Some("0"));
    assert_eq!(
        r.header("x-nomad-index"),
        Some(job["ModifyIndex"].to_string().as_str())
    );

    let list = get(&app, "/v1/jobs").await;
    assert_eq!(list.status, StatusCode::OK);
    let l = list.json();
    let ids: Vec<&str> = l
        .as_array()
        .expect("array")
        .iter()
        .filter_map(|j| j["ID"].as_str())
        .collect();
    assert_eq!(ids, ["example", "other"]);
    assert_eq!(l[0]["JobSummary"]["JobID"], "example");
    assert!(l[0]["JobSummary"]["Summary"]["web"].is_object());

    let p = get(&app, "/v1/jobs?prefix=ex").await.json();
    assert_eq!(p.as_array().map(Vec::len), Some(1));
    assert_eq!(get(&app, "/v1/jobs?prefix=zz").await.text(), "[]");
    assert_eq!(get(&app, "/v1/jobs?namespace=prod").await.text(), "[]");
    let all = get(&app, "/v1/jobs?namespace=*").await.json();
    assert_eq!(all.as_array().map(Vec::len), Some(2));
    server.shutdown().await;
}

#[tokio::test]
async fn job_sub_resources() {
    let server = start_server().await;
    let app = app(Some(server.clone()), None);
    let reg = register(&app, "example").await.json();

    let s = get(&app, "/v1/job/example/summary").await;
    assert_eq!(s.status, StatusCode::OK);
    assert_eq!(s.json()["JobID"], "example");

    // With no nodes the scheduler also leaves a blocked eval; the register eval is among them.
    let evals = get(&app, "/v1/job/example/evaluations").await.json();
    let ids: Vec<_> = evals
        .as_array()
        .expect("evals")
        .iter()
        .map(|e| e["ID"].clone())
        .collect();
    assert!(ids.contains(&reg["EvalID"]), "{ids:?}");

    let allocs = get(&app, "/v1/job/example/allocations?all=true").await;
    assert_eq!(allocs.status, StatusCode::OK);
    assert_eq!(allocs.text(), "[]");

    let v = get(&app, "/v1/job/example/versions").await.json();
    assert_eq!(v["Diffs"], serde_json::Value::Null);
    assert_eq!(v["Versions"][0]["ID"], "example");
    assert_eq!(v["KnownLeader"], true);

    let nv = get(&app, "/v1/job/nope/versions").await;
    assert_eq!(nv.status, StatusCode::NOT_FOUND);
    assert_eq!(nv.text(), "job versions not found");
    let ns = get(&app, "/v1/job/nope/summary").await;
    assert_eq!(
        (ns.status, ns.text()),
        (StatusCode::NOT_FOUND, "job not found".into())
    );
    server.shutdown().await;
}

/// The field named `name` in a diff's `Fields`, as (Type, Old, New).
fn diff_field(fields: &serde_json::Value, name: &str) -> (String, String, String) {
    let f = fields
        .as_array()
        .and_then(|fs| fs.iter().find(|f| f["Name"] == name))
        .unwrap_or_else(|| panic!("no field {name} in {fields}"));
    let s = |k: &str| f[k].as_str().unwrap_or_default().to_string();
    (s("Type"), s("Old"), s("New"))
}

#[tokio::test]
async fn versions_with_diffs_answer_what_changed_from_the_version_before() {
    let server = start_server().await;
    let app = app(Some(server.clone()), None);
    register(&app, "example").await;
    // Version 1: count 1 -> 2 and a new env var.
    let mut body: serde_json::Value = serde_json::from_str(&job_body("example")).expect("job");
    body["Job"]["TaskGroups"][0]["Count"] = 2.into();
    body["Job"]["TaskGroups"][0]["Tasks"][0]["Env"] = serde_json::json!({"GREETING": "hello"});
    let r = call(&app, "PUT", "/v1/jobs", &body.to_string()).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text());

    for plain in ["", "?diffs=false"] {
        let v = get(&app, &format!("/v1/job/example/versions{plain}"))
            .await
            .json();
        assert_eq!(v["Diffs"], serde_json::Value::Null, "{plain}");
    }
    let v = get(&app, "/v1/job/example/versions?diffs=true")
        .await
        .json();
    let versions: Vec<&serde_json::Value> =
        v["Versions"].as_array().expect("versions").iter().collect();
    assert_eq!(
        versions
            .iter()
            .map(|j| j["Version"].as_u64())
            .collect::<Vec<_>>(),
        [Some(1), Some(0)]
    );
    // One diff per consecutive pair: version 0 -> 1.
    let diffs = v["Diffs"].as_array().expect("diffs");
    assert_eq!(diffs.len(), 1);
    let d = &diffs[0];
    let keys: Vec<&str> = d
        .as_object()
        .expect("diff")
        .keys()
        .map(String::as_str)
        .collect();
    assert_eq!(keys, ["Fields", "ID", "Objects", "TaskGroups", "Type"]);
    assert_eq!(
        (&d["ID"], &d["Type"]),
        (&"example".into(), &"Edited".into())
    );
    // Server-maintained fields (Version, SubmitTime, indexes) are not changes.
    assert_eq!(d["Fields"], serde_json::Value::Null);
    let tg = &d["TaskGroups"][0];
    assert_eq!(
        (&tg["Name"], &tg["Type"]),
        (&"web".into(), &"Edited".into())
    );
    assert_eq!(
        diff_field(&tg["Fields"], "Count"),
        ("Edited".into(), "1".into(), "2".into())
    );
    // History diffs carry no plan annotations or update counts.
    assert_eq!(tg["Fields"][0]["Annotations"], serde_json::Value::Null);
    assert_eq!(tg["Updates"], serde_json::Value::Null);
    let task = &tg["Tasks"][0];
    assert_eq!(
        (&task["Name"], &task["Type"]),
        (&"server".into(), &"Edited".into())
    );
    assert_eq!(
        diff_field(&task["Fields"], "Env[GREETING]"),
        ("Added".into(), "".into(), "hello".into())
    );

    // Against a chosen version every version has a diff, the chosen one's of type None.
    let v = get(&app, "/v1/job/example/versions?diffs=true&diff_version=1")
        .await
        .json();
    let types: Vec<&serde_json::Value> = v["Diffs"]
        .as_array()
        .expect("diffs")
        .iter()
        .map(|d| &d["Type"])
        .collect();
    assert_eq!(
        types,
        [&serde_json::json!("None"), &serde_json::json!("Edited")]
    );

    for (query, text) in [
        ("diffs=true&diff_version=9", "version 9 not found"),
        ("diffs=true&diff_tag=nope", "tag \"nope\" not found"),
        (
            "diffs=maybe",
            "Failed to parse value of \"diffs\" (maybe) as a bool: strconv.ParseBool: parsing \"maybe\": invalid syntax",
        ),
        (
            "diffs=true&diff_version=x",
            "Failed to parse value of \"diff_version\" (x) as a uint64: strconv.ParseUint: parsing \"x\": invalid syntax",
        ),
    ] {
        let r = get(&app, &format!("/v1/job/example/versions?{query}")).await;
        assert_eq!((r.status, r.text()), (StatusCode::INTERNAL_SERVER_ERROR, text.to_string()), "{query}");
    }
    server.shutdown().await;
}

#[tokio::test]
async fn not_found_is_plain_text_with_query_headers() {
    let server = start_server().await;
    let app = app(Some(server.clone()), None);
    let r = get(&app, "/v1/job/nope").await;
    assert_eq!(r.status, StatusCode::NOT_FOUND);
    assert_eq!(r.text(), "job not found");
    assert_eq!(r.header("content-type"), Some("text/plain; charset=utf-8"));
    assert!(r.header("x-nomad-index").is_some());
    assert_eq!(r.header("x-nomad-knownleader"), Some("true"));

    let unknown = get(&app, "/v1/nope").await;
    assert_eq!(unknown.status, StatusCode::NOT_FOUND);
    assert!(unknown.body.is_empty());

    let method = call(&app, "PATCH", "/v1/jobs", "").await;
    assert_eq!(method.status, StatusCode::METHOD_NOT_ALLOWED);
    assert_eq!(method.text(), "Invalid method");
    let method = call(&app, "DELETE", "/v1/job/x/evaluations", "").await;
    assert_eq!(method.status, StatusCode::METHOD_NOT_ALLOWED);
    server.shutdown().await;
}

#[tokio::test]
async fn bad_bodies_are_400_with_the_reason() {
    let server = start_server().await;
    let app = app(Some(server.clone()), None);
    let cases = [
        (
            "/v1/jobs",
            "{\"Job\": {",
            "EOF while parsing an object at line 1 column 9",
        ),
        ("/v1/jobs", "", "Request body is empty"),
        ("/v1/jobs", "{}", "Job must be specified"),
        (
            "/v1/jobs",
            "{\"Job\": {\"Name\": \"x\"}}",
            "Job ID hasn't been provided",
        ),
        (
            "/v1/job/other",
            &job_body("example"),
            "Job ID does not match name",
        ),
        (
            "/v1/jobs",
            "{\"Job\": {\"ID\": \"x\", \"Priority\": \"high\"}}",
            "invalid type: string \"high\", expected i32",
        ),
        // Validation failures: 400 (Nomad itself answers 500).
        (
            "/v1/jobs",
            "{\"Job\": {\"ID\": \"x\"}}",
            "1 error occurred:\n\t* Missing job task groups\n\n",
        ),
        (
            "/v1/jobs",
            "\u{0}\u{ff}garbage",
            "expected value at line 1 column 1",
        ),
    ];
    for (uri, body, want) in cases {
        let r = call(&app, "PUT", uri, body).await;
        assert_eq!(r.status, StatusCode::BAD_REQUEST, "{body}: {}", r.text());
        assert_eq!(r.text(), want, "{body}");
        assert_eq!(r.header("content-type"), Some("text/plain; charset=utf-8"));
    }
    // Nothing was written.
    assert_eq!(get(&app, "/v1/jobs").await.text(), "[]");
    server.shutdown().await;
}

#[tokio::test]
async fn path_register_and_stop_then_purge() {
    let server = start_server().await;
    let app = app(Some(server.clone()), None);
    let r = call(&app, "POST", "/v1/job/example", &job_body("example")).await;
    assert_eq!(r.status, StatusCode::OK, "{}", r.text());

    let d = call(&app, "DELETE", "/v1/job/example", "").await;
    assert_eq!(d.status, StatusCode::OK, "{}", d.text());
    let dv = d.json();
    assert_eq!(dv["EvalID"].as_str().map(str::len), Some(36));
    assert!(dv.get("VolumeEvalID").is_some());
    assert_eq!(
        d.header("x-nomad-index"),
        Some(dv["Index"].to_string().as_str())
    );
    assert_eq!(get(&app, "/v1/job/example").await.json()["Stop"], true);

    let bad = call(&app, "DELETE", "/v1/job/example?purge=yes", "").await;
    assert_eq!(bad.status, StatusCode::INTERNAL_SERVER_ERROR);
    assert!(bad
        .text()
        .starts_with("Failed to parse value of \"purge\" (yes)"));

    let p = call(&app, "DELETE", "/v1/job/example?purge=true", "").await;
    assert_eq!(p.status, StatusCode::OK);
    assert_eq!(
        get(&app, "/v1/job/example").await.status,
        StatusCode::NOT_FOUND
    );
    let gone = call(&app, "DELETE", "/v1/job/example", "").await;
    assert_eq!(
        (gone.status, gone.text()),
        (StatusCode::NOT_FOUND, "job not found".into())
    );
    server.shutdown().await;
}

#[tokio::test]
async fn pretty_output_uses_four_spaces_and_a_final_newline() {
    let server = start_server().await;
    let app = app(Some(server.clone()), None);
    register(&app, "example").await;
    let r = get(&app, "/v1/job/example?pretty").await.text();
    assert!(r.starts_with("{\n    \""), "{r}");
    assert!(r.ends_with("}\n"));
    let t = get(&app, "/v1/jobs?pretty=true").await.text();
    assert!(t.starts_with("[\n    {\n        \""), "{t}");
    // `pretty=0` turns it off.
    let c = get(&app, "/v1/job/example?pretty=0").await.text();
    assert!(!c.contains('\n'));
    server.shutdown().await;
}

#[tokio::test]
async fn blocking_query_returns_after_a_change() {
    let server = start_server().await;
    let app = app(Some(server.clone()), None);
    register(&app, "example").await;
    let first = get(&app, "/v1/jobs").await;
    let index: u64 = first
        .header("x-nomad-index")
        .and_then(|i| i.parse().ok())
        .expect("index header");

    let started = Instant::now();
    let uri = format!("/v1/jobs?index={index}&wait=20s");
    let (blocked, _) = tokio::join!(get(&app, &uri), async {
        tokio::time::sleep(Duration::from_millis(200)).await;
        register(&app, "second").await
    });
    let waited = started.elapsed();
    assert!(waited >= Duration::from_millis(200), "{waited:?}");
    assert!(waited < Duration::from_secs(10), "{waited:?}");
    let new_index: u64 = blocked
        .header("x-nomad-index")
        .and_then(|i| i.parse().ok())
        .expect("index header");
    assert!(new_index > index);
    assert_eq!(blocked.json().as_array().map(Vec::len), Some(2));

    // A stale index answers at once.
    let started = Instant::now();
    let stale = get(&app, "/v1/jobs?index=1&wait=20s").await;
    assert_eq!(stale.status, StatusCode::OK);
    assert!(started.elapsed() < Duration::from_secs(5));
    server.shutdown().await;
}

#[tokio::test]
async fn blocking_query_times_out_with_the_full_body() {
    let server = start_server().await;
    let app = app(Some(server.clone()), None);
    register(&app, "example").await;
    let r = get(&app, "/v1/job/example").await;
    let index = r.header("x-nomad-index").expect("index").to_string();

    let started = Instant::now();
    let b = get(&app, &format!("/v1/job/example?index={index}&wait=300ms")).await;
    let waited = started.elapsed();
    assert!(waited >= Duration::from_millis(300), "{waited:?}");
    assert!(waited < Duration::from_secs(3), "{waited:?}");
    assert_eq!(b.status, StatusCode::OK);
    assert_eq!(b.header("x-nomad-index"), Some(index.as_str()));
    assert_eq!(b.json()["ID"], "example");

    let bad = get(&app, "/v1/jobs?wait=soon&index=1").await;
    assert_eq!(
        (bad.status, bad.text()),
        (StatusCode::BAD_REQUEST, "Invalid wait time".into())
    );
    let bad = get(&app, "/v1/jobs?index=-3").await;
    assert_eq!(
        (bad.status, bad.text()),
        (StatusCode::BAD_REQUEST, "Invalid index".into())
    );
    server.shutdown().await;
}

#[tokio::test]
async fn parse_checks_its_body() {
    let app = app(None, None);
    let empty = call(&app, "POST", "/v1/jobs/parse", "{\"JobHCL\": \"\"}").await;
    assert_eq!(
        (empty.status, empty.text()),
        (StatusCode::BAD_REQUEST, "Job spec is empty".into())
    );
    let bad_vars = call(
        &app,
        "POST",
        "/v1/jobs/parse",
        "{\"JobHCL\": \"job \\\"x\\\" {}\", \"Variables\": \"= nope\"}",
    )
    .await;
    assert_eq!(bad_vars.status, StatusCode::BAD_REQUEST);
    assert!(
        bad_vars.text().starts_with("Failed to parse job: "),
        "{}",
        bad_vars.text()
    );
    let m = get(&app, "/v1/jobs/parse").await;
    assert_eq!(m.status, StatusCode::METHOD_NOT_ALLOWED);
}

#[tokio::test]
async fn client_only_agent_has_no_server_to_ask() {
    let app = app(None, None);
    let r = get(&app, "/v1/jobs").await;
    assert_eq!(
        (r.status, r.text()),
        (StatusCode::INTERNAL_SERVER_ERROR, "no servers".into())
    );
}

#[tokio::test]
async fn region_parameter_is_checked() {
    let server = start_server().await;
    let app = app(Some(server.clone()), None);
    assert_eq!(
        get(&app, "/v1/jobs?region=global").await.status,
        StatusCode::OK
    );
    let r = get(&app, "/v1/jobs?region=eu-west").await;
    assert_eq!(
        (r.status, r.text()),
        (
            StatusCode::INTERNAL_SERVER_ERROR,
            "No path to region".into()
        )
    );
    server.shutdown().await;
}
