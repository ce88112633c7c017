//! The template hook through a real task runner with the mock driver; service data comes
//! from an in-memory lookup that answers blocking queries like the server does.

use std::sync::Arc;
use std::time::Duration;

use serde_json::json;
use tokio::sync::{watch, Notify};

use super::*;
use crate::api::{ChangeScript, Task, TaskState, WaitConfig};
use crate::client::alloc_dir::AllocDir;
use crate::client::task_runner::{TaskRunner, TaskRunnerHandle, TaskRunnerParams};
use crate::drivers::{DriverConfig, DriverRegistry};

/// Registrations plus an index, bumped on every change.
struct FakeServices {
    tx: watch::Sender<(u64, Vec<ServiceRegistration>)>,
}

impl FakeServices {
    fn new(regs: Vec<ServiceRegistration>) -> Arc<Self> {
        Arc::new(FakeServices {
            tx: watch::channel((1, regs)).0,
        })
    }

    fn set(&self, regs: Vec<ServiceRegistration>) {
        self.tx.send_modify(|(i, r)| {
            *i += 1;
            *r = regs;
        });
    }
}

#[async_trait::async_trait]
impl ServiceLookup for FakeServices {
    async fn registrations(
        &self,
        namespace: &str,
        name: Option<&str>,
        min_index: u64,
        timeout: Duration,
    ) -> Result<(Vec<ServiceRegistration>, u64), String> {
        let mut rx = self.tx.subscribe();
        let deadline = tokio::time::Instant::now() + timeout;
        loop {
            let (index, regs) = rx.borrow_and_update().clone();
            if index > min_index || tokio::time::Instant::now() >= deadline {
                let regs = regs
                    .into_iter()
                    .filter(|r| r.namespace == namespace)
                    .filter(|r| name.is_none_or(|n| r.service_name == n))
                    .collect();
                return Ok((regs, index));
            }
            tokio::select! {
                _ = rx.changed() => {}
                _ = tokio::time::sleep_until(deadline) => {}
            }
        }
    }
}

fn reg(name: &str, addr: &str, port: i32) -> ServiceRegistration {
    ServiceRegistration {
        id: format!("{name}-{addr}-{port}"),
        service_name: name.into(),
        namespace: "default".into(),
        address: addr.into(),
        port,
        ..Default::default()
    }
}

fn template(data: &str, dest: &str) -> Template {
    Template {
        embedded_tmpl: Some(data.into()),
        dest_path: Some(dest.into()),
        change_mode: Some("restart".into()),
        splay: Some(0),
        perms: Some("0644".into()),
        ..Default::default()
    }
}

struct Run {
    handle: TaskRunnerHandle,
    changed: Arc<Notify>,
    task_dir: std::path::PathBuf,
    _tmp: tempfile::TempDir,
}

fn spawn(
    templates: Vec<Template>,
    config: serde_json::Value,
    services: Option<Arc<FakeServices>>,
) -> Run {
    spawn_with(templates, config, services, |_| {})
}

/// `prepare` sees the task dir (already built) before the runner starts.
fn spawn_with(
    templates: Vec<Template>,
    config: serde_json::Value,
    services: Option<Arc<FakeServices>>,
    prepare: impl FnOnce(&std::path::Path),
) -> Run {
    let tmp = tempfile::tempdir().expect("tempdir");
    let alloc_dir = AllocDir::new(tmp.path().join("alloc1"));
    alloc_dir.build().expect("alloc dir");
    let task_dir = alloc_dir.build_task("web").expect("task dir").dir;
    prepare(&task_dir);
    let task = Task {
        name: "web".into(),
        driver: "mock_driver".into(),
        config: Some(match config {
            serde_json::Value::Object(m) => m.into_iter().collect(),
            _ => Default::default(),
        }),
        env: Some(
            [("GREETING".to_string(), "hello".to_string())]
                .into_iter()
                .collect(),
        ),
        templates: Some(serde_json::to_value(&templates).expect("templates")),
        ..Default::default()
    };
    let alloc = super::super::runner_tests::one_task_alloc(&task, "j", "service");
    let changed = Arc::new(Notify::new());
    let handle = TaskRunner::spawn(TaskRunnerParams {
        services: services.map(|s| s as Arc<dyn ServiceLookup>),
        ..super::super::runner_tests::test_params(
            alloc,
            task,
            &alloc_dir,
            DriverRegistry::from_config(&DriverConfig::dev()).get("mock_driver"),
            changed.clone(),
        )
    });
    Run {
        handle,
        changed,
        task_dir: alloc_dir.root.join("web"),
        _tmp: tmp,
    }
}

impl Run {
    async fn until(&self, what: &str, cond: impl Fn(&TaskState) -> bool) -> TaskState {
        let limit = Duration::from_secs(60);
        super::super::runner_tests::task_state_until(&self.handle, &self.changed, limit, what, cond)
            .await
    }

    fn read(&self, rel: &str) -> String {
        std::fs::read_to_string(self.task_dir.join(rel)).unwrap_or_default()
    }
}

fn has_event(s: &TaskState, kind: &str, display: &str) -> bool {
    s.events
        .iter()
        .any(|e| e.r#type == kind && e.display_message.contains(display))
}

fn started_count(s: &TaskState) -> usize {
    s.events.iter().filter(|e| e.r#type == "Started").count()
}

#[tokio::test(start_paused = true)]
async fn renders_env_and_services_before_start_and_restarts_on_service_change() {
    let svc = FakeServices::new(vec![reg("api", "10.0.0.1", 8080)]);
    let mut t = template(
        "greeting={{ env \"GREETING\" }}\n{{ range nomadService \"api\" }}{{ .Address }}:{{ .Port }}\n{{ end }}",
        "local/out.txt",
    );
    t.perms = Some("0600".into());
    let run = spawn(vec![t], json!({ "run_for": "1h" }), Some(svc.clone()));
    let s = run.until("running", |s| s.state == "running").await;
    assert_eq!(started_count(&s), 1);
    assert_eq!(run.read("local/out.txt"), "greeting=hello\n10.0.0.1:8080\n");
    use std::os::unix::fs::PermissionsExt;
    let mode = std::fs::metadata(run.task_dir.join("local/out.txt"))
        .expect("stat")
        .permissions()
        .mode();
    assert_eq!(mode & 0o777, 0o600);

    svc.set(vec![
        reg("api", "10.0.0.1", 8080),
        reg("api", "10.0.0.2", 9090),
    ]);
    let s = run
        .until("restarted", |s| {
            started_count(s) == 2 && s.state == "running"
        })
        .await;
    assert!(
        has_event(
            &s,
            "Restart Signaled",
            "Template with change_mode restart re-rendered"
        ),
        "{:#?}",
        s.events
    );
    assert_eq!(
        run.read("local/out.txt"),
        "greeting=hello\n10.0.0.1:8080\n10.0.0.2:9090\n"
    );
    // A change of another service's data does not re-render.
    svc.set(vec![
        reg("api", "10.0.0.1", 8080),
        reg("api", "10.0.0.2", 9090),
        reg("db", "10.0.0.3", 5432),
    ]);
    tokio::time::sleep(Duration::from_secs(10)).await;
    assert_eq!(started_count(&run.handle.state()), 2);
    run.handle.kill();
    let s = run.handle.join().await;
    assert_eq!(s.state, "dead");
    assert!(!s.failed);
}

#[tokio::test(start_paused = true)]
async fn signal_mode_signals_and_noop_does_nothing() {
    let svc = FakeServices::new(vec![reg("api", "10.0.0.1", 1)]);
    let mut sig = template(
        "{{ range nomadService \"api\" }}{{ .Port }}{{ end }}",
        "local/sig.txt",
    );
    sig.change_mode = Some("signal".into());
    sig.change_signal = Some("SIGHUP".into());
    let mut noop = template(
        "{{ range nomadService \"api\" }}{{ .Address }}{{ end }}",
        "local/noop.txt",
    );
    noop.change_mode = Some("noop".into());
    let run = spawn(
        vec![sig, noop],
        json!({ "run_for": "1h" }),
        Some(svc.clone()),
    );
    run.until("running", |s| s.state == "running").await;
    svc.set(vec![reg("api", "10.0.0.9", 2)]);
    let s = run
        .until("signalled", |s| {
            has_event(s, "Signaling", "Template re-rendered")
        })
        .await;
    let e = s
        .events
        .iter()
        .find(|e| e.r#type == "Signaling")
        .expect("event");
    assert_eq!(e.task_signal, "SIGHUP");
    assert_eq!(started_count(&s), 1, "signal mode must not restart");
    assert_eq!(run.read("local/sig.txt"), "2");
    assert_eq!(run.read("local/noop.txt"), "10.0.0.9");
    run.handle.kill();
    run.handle.join().await;
}

#[tokio::test(start_paused = true)]
async fn script_mode_runs_the_change_script_through_exec() {
    let svc = FakeServices::new(vec![reg("api", "10.0.0.1", 1)]);
    let mut t = template(
        "{{ range nomadService \"api\" }}{{ .Port }}{{ end }}",
        "local/s.txt",
    );
    t.change_mode = Some("script".into());
    t.change_script = Some(ChangeScript {
        command: Some("/bin/reload".into()),
        args: Some(vec!["-now".into()]),
        timeout: Some(5_000_000_000),
        fail_on_error: Some(true),
        run_on_first_render: Some(false),
    });
    let run = spawn(
        vec![t],
        json!({ "run_for": "1h", "exec_command": { "run_for": "1ms", "exit_code": 0 } }),
        Some(svc.clone()),
    );
    run.until("running", |s| s.state == "running").await;
    svc.set(vec![reg("api", "10.0.0.1", 2)]);
    let s = run
        .until("script ran", |s| {
            has_event(
                s,
                "Task hook message",
                "Template successfully ran script /bin/reload with arguments: [-now]. Exit code: 0",
            )
        })
        .await;
    assert_eq!(started_count(&s), 1);
    run.handle.kill();
    run.handle.join().await;
}

#[tokio::test(start_paused = true)]
async fn a_failing_change_script_with_fail_on_error_kills_the_task() {
    let svc = FakeServices::new(vec![reg("api", "10.0.0.1", 1)]);
    let mut t = template(
        "{{ range nomadService \"api\" }}{{ .Port }}{{ end }}",
        "local/s.txt",
    );
    t.change_mode = Some("script".into());
    t.change_script = Some(ChangeScript {
        command: Some("check".into()),
        args: Some(vec![]),
        timeout: Some(5_000_000_000),
        fail_on_error: Some(true),
        run_on_first_render: Some(false),
    });
    let run = spawn(
        vec![t],
        json!({ "run_for": "1h", "exec_command": { "run_for": "1ms", "exit_code": 3 } }),
        Some(svc.clone()),
    );
    run.until("running", |s| s.state == "running").await;
    svc.set(vec![reg("api", "10.0.0.1", 2)]);
    let s = run.until("dead", |s| s.state == "dead").await;
    assert!(
        has_event(
            &s,
            "Task hook failed",
            "Template ran script check with arguments [] on change but it exited with code: 3"
        ),
        "{:#?}",
        s.events
    );
    assert!(has_event(
        &s,
        "Killing",
        "Template script failed, task is being killed"
    ));
    assert!(s.failed);
}

#[tokio::test(start_paused = true)]
async fn a_template_error_kills_the_task_before_it_starts() {
    for (data, needle) in [
        ("{{ key \"config/x\" }}", "Template failed: (dynamic): execute: template: :1:3: executing \"\" at <key \"config/x\">: error calling key: key: Consul is not available"),
        ("{{ with nomadVar \"nomad/jobs/j\" }}{{ .x }}{{ end }}", "nomadVar: Nomad variables are not supported"),
        ("{{ nope }}", "Template failed: (dynamic): parse: template: :1: function \"nope\" not defined"),
    ] {
        let run = spawn(vec![template(data, "local/x")], json!({ "run_for": "1h" }), None);
        let s = run.until("dead", |s| s.state == "dead").await;
        assert!(has_event(&s, "Killing", needle), "{data}: {:#?}", s.events);
        assert_eq!(s.events.last().map(|e| e.r#type.as_str()), Some("Killed"));
        assert_eq!(started_count(&s), 0);
        assert!(s.failed);
    }
}

#[tokio::test(start_paused = true)]
async fn destinations_and_sources_stay_in_the_sandbox() {
    let run = spawn(
        vec![template("x", "../../../etc/evil")],
        json!({ "run_for": "1h" }),
        None,
    );
    let s = run.until("dead", |s| s.state == "dead").await;
    assert!(
        has_event(
            &s,
            "Task hook failed",
            "template: template destination path escapes alloc directory"
        ),
        "{:#?}",
        s.events
    );
    assert!(s.failed);

    let mut src = template("", "local/x");
    src.embedded_tmpl = Some(String::new());
    src.source_path = Some("/etc/hostname".into());
    let run = spawn(vec![src], json!({ "run_for": "1h" }), None);
    let s = run.until("dead", |s| s.state == "dead").await;
    assert!(has_event(
        &s,
        "Task hook failed",
        "template source path escapes alloc directory"
    ));

    // An absolute destination outside the sandbox lands under the task dir, as in Nomad.
    let run = spawn(
        vec![template("abs", "/etc/app.conf")],
        json!({ "run_for": "1h" }),
        None,
    );
    run.until("running", |s| s.state == "running").await;
    assert_eq!(run.read("etc/app.conf"), "abs");
    run.handle.kill();
    run.handle.join().await;
}

#[tokio::test(start_paused = true)]
async fn source_templates_and_file_lookups_rerender_when_files_change() {
    let run = {
        let mut src = template("", "local/from_src.txt");
        src.embedded_tmpl = Some(String::new());
        src.source_path = Some("local/in.tpl".into());
        src.change_mode = Some("noop".into());
        let mut f = template("[{{ file \"local/data.txt\" }}]", "local/from_file.txt");
        f.change_mode = Some("noop".into());
        spawn_with(vec![src, f], json!({ "run_for": "1h" }), None, |dir| {
            std::fs::write(dir.join("local/in.tpl"), "v={{ env \"GREETING\" }}").expect("write");
        })
    };
    // The file lookup has no data yet: the first render waits and says so.
    let s = run
        .until("missing event", |s| {
            has_event(s, "Template", "Missing: file(")
        })
        .await;
    assert_eq!(s.state, "pending");
    std::fs::write(run.task_dir.join("local/data.txt"), "one").expect("write");
    run.until("running", |s| s.state == "running").await;
    assert_eq!(run.read("local/from_src.txt"), "v=hello");
    assert_eq!(run.read("local/from_file.txt"), "[one]");
    std::fs::write(run.task_dir.join("local/data.txt"), "two").expect("write");
    std::fs::write(
        run.task_dir.join("local/in.tpl"),
        "w={{ env \"GREETING\" }}",
    )
    .expect("write");
    tokio::time::timeout(Duration::from_secs(30), async {
        while run.read("local/from_file.txt") != "[two]"
            || run.read("local/from_src.txt") != "w=hello"
        {
            tokio::time::sleep(Duration::from_millis(200)).await;
        }
    })
    .await
    .expect("re-rendered");
    assert_eq!(started_count(&run.handle.state()), 1);
    run.handle.kill();
    run.handle.join().await;
}

#[tokio::test(start_paused = true)]
async fn a_kill_while_waiting_for_data_ends_the_task() {
    let run = spawn(
        vec![template("{{ file \"local/never\" }}", "local/x")],
        json!({ "run_for": "1h" }),
        None,
    );
    run.until("task dir", |s| s.events.len() >= 2).await;
    tokio::time::sleep(Duration::from_secs(2)).await;
    run.handle.kill();
    let s = run.handle.join().await;
    assert_eq!(s.state, "dead");
    let kinds: Vec<&str> = s.events.iter().map(|e| e.r#type.as_str()).collect();
    assert_eq!(kinds.last(), Some(&"Killed"), "{kinds:?}");
    assert!(kinds.contains(&"Killing"));
    assert!(!s.failed);
}

#[tokio::test(start_paused = true)]
async fn once_templates_render_a_single_time_and_wait_delays_rerenders() {
    let svc = FakeServices::new(vec![reg("api", "10.0.0.1", 1)]);
    let mut once = template(
        "{{ range nomadService \"api\" }}{{ .Port }}{{ end }}",
        "local/once.txt",
    );
    once.once = Some(true);
    let mut waited = template(
        "{{ range nomadService \"api\" }}{{ .Port }}{{ end }}",
        "local/wait.txt",
    );
    waited.change_mode = Some("noop".into());
    waited.wait = Some(WaitConfig {
        min: Some(20_000_000_000),
        max: Some(40_000_000_000),
    });
    let run = spawn(
        vec![once, waited],
        json!({ "run_for": "1h" }),
        Some(svc.clone()),
    );
    run.until("running", |s| s.state == "running").await;
    svc.set(vec![reg("api", "10.0.0.1", 2)]);
    tokio::time::sleep(Duration::from_secs(10)).await;
    assert_eq!(run.read("local/wait.txt"), "1", "wait.min not honoured");
    tokio::time::sleep(Duration::from_secs(15)).await;
    assert_eq!(run.read("local/wait.txt"), "2");
    assert_eq!(run.read("local/once.txt"), "1");
    assert_eq!(started_count(&run.handle.state()), 1);
    run.handle.kill();
    run.handle.join().await;
}

#[test]
fn env_files_parse_like_envparse() {
    let vars = parse_env_file("# c\nA=1\nexport B = two\nC=\"x\\ny\"\nD='$lit'\nE=v # note\n\n")
        .expect("parses");
    assert_eq!(vars["A"], "1");
    assert_eq!(vars["B"], "two");
    assert_eq!(vars["C"], "x\ny");
    assert_eq!(vars["D"], "$lit");
    assert_eq!(vars["E"], "v");
    assert!(parse_env_file("novalue").is_err());
}

#[tokio::test]
async fn env_templates_feed_the_task_environment() {
    let tmp = tempfile::tempdir().expect("tempdir");
    let dirs = Dirs {
        task_dir: tmp.path().join("web"),
        shared_alloc_dir: tmp.path().join("alloc"),
    };
    let mut t = template(
        "PORT={{ env \"NOMAD_PORT_http\" }}\nMODE=prod\n",
        "secrets/app.env",
    );
    t.envvars = Some(true);
    let env = [("NOMAD_PORT_http".to_string(), "8080".to_string())]
        .into_iter()
        .collect();
    let mut set =
        TemplateSet::new(vec![t], env, &Default::default(), dirs, "default", None).expect("set");
    set.first_render(&|_| {}).await.expect("renders");
    let vars = set.template_env().expect("env");
    assert_eq!(vars.get("PORT").map(String::as_str), Some("8080"));
    assert_eq!(vars.get("MODE").map(String::as_str), Some("prod"));
}
