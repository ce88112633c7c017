//! Nomad-native service discovery through the real agent: a running alloc's services are
//! registered (`nomad service list|info`, `/v1/service/<name>`), removed when the job stops,
//! and `nomad service delete` removes one by ID.

use std::time::Duration;

use serde_json::Value;

use crate::harness::*;

const JOB: &str = r#"job "shop" {
  datacenters = ["dc*"]
  group "web" {
    network {
      port "http" {}
    }
    service {
      name     = "${NOMAD_JOB_NAME}-web"
      port     = "http"
      provider = "nomad"
      tags     = ["v1", "edge"]
    }
    task "server" {
      driver = "mock_driver"
      config {
        run_for = "10m"
      }
      service {
        name     = "shop-task"
        provider = "nomad"
      }
      resources {
        cpu    = 20
        memory = 20
      }
    }
  }
}
"#;

fn registrations(agent: &Agent, name: &str) -> Vec<Value> {
    agent
        .get(&format!("/v1/service/{name}"))
        .as_array()
        .cloned()
        .unwrap_or_default()
}

#[test]
fn running_allocs_register_their_services_until_the_job_stops() {
    let agent = Agent::dev();
    agent.run_detached("shop.nomad.hcl", JOB);
    let regs = wait_until(Duration::from_secs(60), "group service registered", || {
        let r = registrations(&agent, "shop-web");
        (!r.is_empty()).then_some(r)
    });
    let alloc = agent.get("/v1/job/shop/allocations")[0].clone();
    let alloc_id = alloc["ID"].as_str().expect("alloc id");
    let r = &regs[0];
    assert_eq!(
        r["ID"],
        format!("_nomad-task-{alloc_id}-group-web-shop-web-http")
    );
    assert_eq!(r["JobID"], "shop");
    assert_eq!(r["Namespace"], "default");
    assert_eq!(r["Datacenter"], "dc1");
    assert_eq!(r["Tags"], serde_json::json!(["v1", "edge"]));
    let port = r["Port"].as_i64().expect("port");
    assert!(port >= 20000, "a dynamic port: {port}");
    assert!(!r["Address"].as_str().unwrap_or("").is_empty(), "{r}");
    assert_eq!(registrations(&agent, "shop-task").len(), 1);

    let list = agent.nomad(&["service", "list"]);
    assert_exit(&list, 0);
    assert_eq!(
        stdout(&list).trim_end(),
        "Service Name  Tags\nshop-task     []\nshop-web      [edge,v1]"
    );
    let info = agent.nomad(&["service", "info", "shop-w"]);
    assert_exit(&info, 0);
    let text = stdout(&info);
    assert!(text.starts_with("Job ID  Address"), "{text}");
    assert!(text.contains(&format!(":{port}  [v1,edge]")), "{text}");
    assert!(text.contains(&alloc_id[..8]), "{text}");

    // ?choose picks a stable subset; a malformed one is a 400 with Nomad's text.
    let chosen = agent.get("/v1/service/shop-web?choose=1|some-alloc");
    assert_eq!(chosen.as_array().map(Vec::len), Some(1));
    let (code, body) =
        http_get(&format!("{}/v1/service/shop-web?choose=one", agent.addr())).expect("get");
    assert_eq!(code, 400);
    assert!(
        body.contains("Parameter for choose must be in form '<number>|<key>'"),
        "{body}"
    );

    // An operator can remove one registration by ID.
    let task_reg = registrations(&agent, "shop-task");
    let id = task_reg[0]["ID"].as_str().expect("id");
    let del = agent.nomad(&["service", "delete", "shop-task", id]);
    assert_exit(&del, 0);
    assert_eq!(
        stdout(&del).trim(),
        "Successfully deleted service registration"
    );
    assert!(registrations(&agent, "shop-task").is_empty());
    let missing = agent.nomad(&["service", "delete", "shop-task", id]);
    assert_exit(&missing, 1);

    // Stopping the job withdraws the rest.
    assert_exit(&agent.nomad(&["job", "stop", "-detach", "shop"]), 0);
    wait_until(Duration::from_secs(60), "services removed", || {
        registrations(&agent, "shop-web").is_empty().then_some(())
    });
    let none = agent.nomad(&["service", "list"]);
    assert_exit(&none, 0);
    assert_eq!(stdout(&none).trim(), "No service registrations found");
}
