//! Jobspec benchmark: a generated 200-group / 1,000-task job through parse, `canonicalize`
//! and `validate`. Prints `key: value` lines with `parse_ms` (median of parse+canonicalize)
//! last. `QUICK=1` takes fewer samples.

use std::fmt::Write as _;
use std::time::{Duration, Instant};

const GROUPS: usize = 200;
const TASKS_PER_GROUP: usize = 5;

/// One group in the shape real service jobs have: network, restart, a service with checks,
/// constraints, and tasks with env, resources, templates and their own service.
fn group(out: &mut String, g: usize) {
    let _ = write!(
        out,
        r#"
  group "g{g}" {{
    count = {count}

    constraint {{
      attribute = "${{attr.kernel.name}}"
      value     = "linux"
    }}

    restart {{
      attempts = 3
      interval = "5m"
      delay    = "15s"
      mode     = "fail"
    }}

    network {{
      port "http" {{
        to = 8080
      }}
    }}

    service {{
      name     = "svc-{g}"
      port     = "http"
      provider = "nomad"
      tags     = ["web", "g{g}"]

      check {{
        type     = "http"
        path     = "/health"
        interval = "10s"
        timeout  = "2s"
      }}
    }}
"#,
        count = 1 + g % 3
    );
    for t in 0..TASKS_PER_GROUP {
        let _ = write!(
            out,
            r#"
    task "t{t}" {{
      driver = "docker"

      config {{
        image = "registry.example.com/app-{g}:${{var.version}}"
        ports = ["http"]
        args  = ["--listen", ":8080", "--id", "{g}-{t}"]
      }}

      env {{
        APP_ID    = "{g}-{t}"
        LOG_LEVEL = "info"
        REGION    = upper("eu-{t}")
      }}

      constraint {{
        attribute = "${{meta.rack}}"
        operator  = "!="
        value     = "r{t}"
      }}

      template {{
        data        = "listen={{{{ env \"NOMAD_PORT_http\" }}}}\n"
        destination = "local/app.conf"
        change_mode = "restart"
      }}

      resources {{
        cpu    = {cpu}
        memory = {mem}
      }}

      service {{
        name = "t-{g}-{t}"
        port = "http"
        provider = "nomad"

        check {{
          type     = "tcp"
          interval = "15s"
          timeout  = "3s"
        }}
      }}
    }}
"#,
            cpu = 100 + 10 * t,
            mem = 128 + 64 * t
        );
    }
    out.push_str("  }\n");
}

fn job_text() -> String {
    let mut out = String::from(
        "variable \"version\" {\n  type    = string\n  default = \"1.0\"\n}\n\njob \"bench\" {\n  datacenters = [\"dc1\", \"dc2\"]\n  type        = \"service\"\n",
    );
    for g in 0..GROUPS {
        group(&mut out, g);
    }
    out.push_str("}\n");
    out
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn median(mut xs: Vec<f64>) -> f64 {
    xs.sort_by(f64::total_cmp);
    xs[xs.len() / 2]
}

fn main() {
    let quick = std::env::var("QUICK").is_ok_and(|v| !v.is_empty() && v != "0");
    let runs = if quick { 5 } else { 21 };
    let src = job_text();

    let (mut parse, mut canon, mut valid, mut total) = (vec![], vec![], vec![], vec![]);
    let mut counts = (0, 0);
    for _ in 0..runs {
        let t0 = Instant::now();
        let mut job = match nomad::jobspec::parse_str(&src, "bench.nomad.hcl", &[]) {
            Ok(job) => job,
            Err(e) => {
                eprintln!("generated job does not parse: {e}");
                std::process::exit(1);
            }
        };
        let t1 = Instant::now();
        nomad::jobspec::canonicalize(&mut job);
        let t2 = Instant::now();
        if let Err(e) = nomad::jobspec::validate(&job) {
            eprintln!("generated job is invalid: {e}");
            std::process::exit(1);
        }
        let t3 = Instant::now();
        counts = (
            job.task_groups.len(),
            job.task_groups.iter().map(|g| g.tasks.len()).sum::<usize>(),
        );
        parse.push(ms(t1 - t0));
        canon.push(ms(t2 - t1));
        valid.push(ms(t3 - t2));
        total.push(ms(t2 - t0));
    }

    println!("groups: {}", counts.0);
    println!("tasks: {}", counts.1);
    println!("bytes: {}", src.len());
    println!("runs: {runs}");
    println!("parse_only_ms: {:.2}", median(parse));
    println!("canonicalize_ms: {:.2}", median(canon));
    println!("validate_ms: {:.2}", median(valid));
    println!("parse_ms: {:.2}", median(total));
}
