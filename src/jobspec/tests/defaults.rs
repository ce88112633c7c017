//! canonicalize: Nomad's server-side defaults.

use std::path::Path;

use serde_json::json;

use super::*;
use crate::api::{HOUR, MINUTE, SECOND};

#[test]
fn canonicalize_matches_nomad_stored_job() {
    let mut job = parse(REFERENCE_EXAMPLE);
    canonicalize(&mut job);
    // Values from GET /v1/job/example on Nomad 2.0 (api-samples/GET_v1_job_ID.json).
    assert_eq!(job.namespace, "default");
    assert_eq!(job.region, "global");
    assert_eq!(job.priority, 50);
    assert_eq!(job.node_pool, "default");
    assert_eq!(
        to_json(&job.update),
        json!({"AutoPromote": false, "AutoRevert": false, "Canary": 0, "HealthCheck": "",
               "HealthyDeadline": 0, "MaxParallel": 1, "MinHealthyTime": 0,
               "ProgressDeadline": 0, "Stagger": 30000000000i64})
    );
    let tg = &job.task_groups[0];
    assert_eq!(
        to_json(&tg.ephemeral_disk),
        json!({"Migrate": false, "SizeMB": 300, "Sticky": false})
    );
    assert_eq!(
        to_json(&tg.migrate),
        json!({"HealthCheck": "checks", "HealthyDeadline": 300000000000i64, "MaxParallel": 1,
               "MinHealthyTime": 10000000000i64})
    );
    assert_eq!(
        to_json(&tg.reschedule_policy),
        json!({"Attempts": 0, "Delay": 30000000000i64, "DelayFunction": "exponential",
               "Interval": 0, "MaxDelay": 3600000000000i64, "Unlimited": true})
    );
    let restart = json!({"Attempts": 2, "Delay": 15000000000i64, "Interval": 1800000000000i64,
                         "Mode": "fail", "RenderTemplates": false});
    assert_eq!(to_json(&tg.restart_policy), restart);
    assert_eq!(
        to_json(&tg.update),
        json!({"AutoPromote": false, "AutoRevert": false, "Canary": 0, "HealthCheck": "checks",
               "HealthyDeadline": 300000000000i64, "MaxParallel": 1,
               "MinHealthyTime": 10000000000i64, "ProgressDeadline": 600000000000i64,
               "Stagger": 30000000000i64})
    );
    assert_eq!(
        to_json(&tg.networks),
        json!([{"DynamicPorts": [{"HostNetwork": "default", "Label": "http"}]}])
    );
    let task = &tg.tasks[0];
    assert_eq!(to_json(&task.restart_policy), restart);
    assert_eq!(task.kill_timeout, Some(5_000_000_000));
    assert_eq!(
        to_json(&task.log_config),
        json!({"Disabled": false, "MaxFileSizeMB": 10, "MaxFiles": 10})
    );
    let r = task.resources.as_ref().expect("resources");
    assert_eq!((r.cpu, r.memory_mb, r.cores, r.disk_mb), (100, 64, 0, 0));
}

#[test]
fn canonicalize_is_idempotent() {
    for path in examples() {
        let mut once = parse_file(&path, &[]).expect("example parses");
        canonicalize(&mut once);
        let mut twice = once.clone();
        canonicalize(&mut twice);
        assert_eq!(once, twice, "{}", path.display());
    }
}

#[test]
fn batch_defaults_differ_from_service() {
    let mut job = parse(
        r#"job "b" {
  type = "batch"
  group "g" {
    task "t" {
      driver = "raw_exec"
    }
  }
}"#,
    );
    canonicalize(&mut job);
    let tg = &job.task_groups[0];
    assert_eq!(
        tg.restart_policy.as_ref().map(|r| (r.attempts, r.interval)),
        Some((3, 24 * HOUR))
    );
    let rp = tg.reschedule_policy.as_ref().expect("batch reschedule");
    assert_eq!(
        (
            rp.attempts,
            rp.interval,
            rp.delay,
            rp.delay_function.as_str(),
            rp.unlimited
        ),
        (1, 24 * HOUR, 5 * SECOND, "constant", false)
    );
    assert!(tg.migrate.is_none());
    assert!(tg.update.is_none());
    assert_eq!(job.update, Some(crate::api::UpdateStrategy::default()));
    let r = tg.tasks[0].resources.as_ref().expect("default resources");
    assert_eq!((r.cpu, r.memory_mb), (100, 300));
}

#[test]
fn partial_blocks_take_defaults_per_field() {
    let mut job = parse_file(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("jobs-examples/restart-policy.nomad.hcl"),
        &[],
    )
    .expect("parses");
    let tg = &job.task_groups[0];
    let rp = tg.restart_policy.clone().expect("group restart");
    assert_eq!(
        (rp.attempts, rp.interval, rp.delay, rp.mode.as_str()),
        (5, 10 * MINUTE, 20 * SECOND, "delay")
    );
    // The task's block overrides only `attempts`; the rest comes from the group's.
    let trp = tg.tasks[0].restart_policy.clone().expect("task restart");
    assert_eq!(
        (trp.attempts, trp.interval, trp.delay, trp.mode.as_str()),
        (1, 10 * MINUTE, 20 * SECOND, "delay")
    );
    let rs = tg.reschedule_policy.clone().expect("reschedule");
    assert_eq!(
        (
            rs.delay,
            rs.delay_function.as_str(),
            rs.max_delay,
            rs.unlimited
        ),
        (MINUTE, "constant", HOUR, true)
    );
    assert_eq!(tg.ephemeral_disk.as_ref().map(|d| d.size_mb), Some(200));
    assert_eq!(tg.tasks[0].kill_timeout, Some(10 * SECOND));
    let logs = tg.tasks[0].log_config.clone().expect("logs");
    assert_eq!((logs.max_files, logs.max_file_size_mb), (3, 5));
    canonicalize(&mut job);
    let tg = &job.task_groups[0];
    // The group inherits the job's update block merged over the defaults.
    let u = tg.update.clone().expect("inherited update");
    assert_eq!(
        (u.max_parallel, u.stagger, u.health_check.as_str()),
        (2, 20 * SECOND, "checks")
    );
    let ju = job.update.clone().expect("job update");
    assert_eq!(
        (ju.max_parallel, ju.stagger, ju.healthy_deadline),
        (2, 20 * SECOND, 0)
    );
    assert_eq!(
        tg.migrate.as_ref().map(|m| m.health_check.as_str()),
        Some("task_states")
    );
}

#[test]
fn services_canonicalize_like_nomad() {
    let mut job = parse(REFERENCE_EXAMPLE_WITH_SERVICE);
    canonicalize(&mut job);
    let tg = &job.task_groups[0];
    // GET /v1/job/example: the implied constraint and the stored service.
    assert_eq!(
        to_json(&tg.constraints),
        json!([{"LTarget": "${attr.nomad.service_discovery}", "Operand": "=", "RTarget": "true"}])
    );
    assert_eq!(
        tg.services,
        Some(json!([{
            "Address": "", "AddressMode": "auto", "CanaryMeta": null, "CanaryTags": null,
            "CheckRestart": null, "Checks": null, "Cluster": "default", "Connect": null,
            "EnableTagOverride": false, "Identity": null, "Kind": "", "Meta": null,
            "Name": "web", "Namespace": "default", "OnUpdate": "require_healthy",
            "PortLabel": "http", "Provider": "nomad", "TaggedAddresses": null, "Tags": null,
            "TaskName": "", "Weights": null
        }]))
    );
    // `nomad job validate example.hcl` (cli-samples/nomad_job_validate_ok.txt).
    let warnings = validate(&job).expect("valid");
    assert_eq!(
        format_warnings(&warnings),
        "1 warning:\n\n* group \"web\" defines services, but neither the group nor any of its tasks have shutdown_delay set"
    );
    let mut again = job.clone();
    canonicalize(&mut again);
    assert_eq!(again, job);
}

#[test]
fn task_services_and_checks_get_defaults() {
    let mut job = parse(
        r#"job "svc" {
  group "g" {
    network {
      port "http" {}
    }
    task "t" {
      driver         = "raw_exec"
      shutdown_delay = "5s"
      service {
        port = "http"
        tags = ["a"]
        check {
          type     = "http"
          path     = "/health"
          interval = "10s"
          timeout  = "2s"
        }
      }
    }
  }
}"#,
    );
    canonicalize(&mut job);
    let t = &job.task_groups[0].tasks[0];
    let s = &t.services.as_ref().expect("services")[0];
    assert_eq!(s["Name"], "svc-g-t");
    assert_eq!(s["Provider"], "consul");
    assert_eq!(s["TaskName"], "t");
    let c = &s["Checks"][0];
    assert_eq!(c["Name"], "service: \"svc-g-t\" check");
    assert_eq!(c["Interval"], 10_000_000_000i64);
    assert_eq!(c["OnUpdate"], "require_healthy");
    assert_eq!(
        to_json(&t.constraints),
        json!([{"LTarget": "${attr.consul.version}", "Operand": "semver", "RTarget": ">= 1.8.0"}])
    );
    assert_eq!(validate(&job), Ok(vec![]));
}
