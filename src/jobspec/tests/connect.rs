//! A service's `connect` block, stored in Nomad's `structs.ConsulConnect` shape.

use serde_json::{json, Value};

use super::*;

const JOB: &str = r#"job "a" {
  group "g" {
    network {
      mode = "bridge"
    }
    service {
      name = "api"
      port = "9001"
      connect {
        sidecar_service {
          tags = ["s"]
          disable_default_tcp_check = true
          proxy {
            local_service_port = 9001
            upstreams {
              destination_name = "db"
              local_bind_port  = 5432
              mesh_gateway {
                mode = "local"
              }
            }
            expose {
              path {
                path            = "/health"
                protocol        = "http"
                local_path_port = 9001
                listener_port   = "hc"
              }
            }
            transparent_proxy {
              exclude_outbound_ports = [53]
              no_dns                 = true
            }
            config {
              protocol = "http"
            }
          }
        }
        sidecar_task {
          driver       = "docker"
          kill_timeout = "10s"
          volume_mount {
            volume      = "certs"
            destination = "/certs"
          }
          identity {
            name = "consul"
            aud  = ["consul.io"]
          }
          resources {
            cpu    = 200
            memory = 128
          }
        }
      }
    }
    service {
      name = "native"
      connect {
        native = true
      }
    }
    task "t" {
      driver = "raw_exec"
    }
  }
}
"#;

#[test]
fn sidecar_service_proxy_and_task() {
    let job = to_json(&parse(JOB));
    let c = &job["TaskGroups"][0]["Services"][0]["Connect"];
    assert_eq!(c["Native"], false);
    let ss = &c["SidecarService"];
    assert_eq!(ss["Tags"], json!(["s"]));
    assert_eq!(ss["DisableDefaultTCPCheck"], true);
    let p = &ss["Proxy"];
    assert_eq!(p["LocalServicePort"], 9001);
    assert_eq!(p["Upstreams"][0]["DestinationName"], "db");
    assert_eq!(p["Upstreams"][0]["LocalBindPort"], 5432);
    assert_eq!(p["Upstreams"][0]["MeshGateway"], json!({"Mode": "local"}));
    assert_eq!(
        p["Expose"]["Paths"],
        json!([{"Path": "/health", "Protocol": "http", "LocalPathPort": 9001,
                "ListenerPort": "hc"}])
    );
    assert_eq!(p["TransparentProxy"]["ExcludeOutboundPorts"], json!([53]));
    assert_eq!(p["TransparentProxy"]["NoDNS"], true);
    assert_eq!(p["Config"], json!({"protocol": "http"}));
    let st = &c["SidecarTask"];
    assert_eq!(st["Driver"], "docker");
    assert_eq!(st["KillTimeout"], 10_000_000_000i64);
    assert_eq!(st["VolumeMounts"][0]["Volume"], "certs");
    assert_eq!(st["Identities"][0]["Name"], "consul");
    assert_eq!(st["Resources"]["CPU"], 200);
    assert_eq!(st["Resources"]["MemoryMB"], 128);
    assert_eq!(c["Gateway"], Value::Null);
}

#[test]
fn native_connect() {
    let job = to_json(&parse(JOB));
    let c = &job["TaskGroups"][0]["Services"][1]["Connect"];
    assert_eq!(
        c,
        &json!({"Native": true, "SidecarService": null, "SidecarTask": null, "Gateway": null})
    );
}

#[test]
fn gateway_ingress_terminating_and_proxy() {
    let mut job = parse(
        r#"job "a" {
  group "g" {
    service {
      name = "ig"
      connect {
        gateway {
          proxy {
            envoy_gateway_bind_addresses "web" {
              address = "0.0.0.0"
              port    = 8080
            }
          }
          ingress {
            tls {
              enabled = true
            }
            listener {
              port     = 8080
              protocol = "http"
              service {
                name  = "web"
                hosts = ["example.com"]
              }
            }
          }
        }
      }
    }
    service {
      name = "tg"
      connect {
        gateway {
          terminating {
            service {
              name    = "db"
              ca_file = "/ca.pem"
            }
          }
        }
      }
    }
    task "t" {
      driver = "raw_exec"
    }
  }
}"#,
    );
    let decoded = to_json(&job);
    let g = &decoded["TaskGroups"][0]["Services"][0]["Connect"]["Gateway"];
    assert_eq!(
        g["Proxy"]["EnvoyGatewayBindAddresses"],
        json!({"web": {"Address": "0.0.0.0", "Port": 8080}})
    );
    assert_eq!(g["Proxy"]["ConnectTimeout"], Value::Null);
    assert_eq!(g["Ingress"]["TLS"]["Enabled"], true);
    let l = &g["Ingress"]["Listeners"][0];
    assert_eq!(l["Port"], 8080);
    assert_eq!(l["Services"][0]["Hosts"], json!(["example.com"]));
    let t = &decoded["TaskGroups"][0]["Services"][1]["Connect"]["Gateway"];
    assert_eq!(t["Terminating"]["Services"][0]["CAFile"], "/ca.pem");
    assert_eq!(t["Proxy"], Value::Null);
    canonicalize(&mut job);
    let job = to_json(&job);
    let g = &job["TaskGroups"][0]["Services"][0]["Connect"]["Gateway"];
    assert_eq!(g["Proxy"]["ConnectTimeout"], 5_000_000_000i64);
}

#[test]
fn ingress_header_modifiers_limits_and_sds_are_decoded() {
    let job = parse(
        r#"job "a" {
  group "g" {
    service {
      name = "ig"
      connect {
        gateway {
          ingress {
            tls {
              enabled = true
              sds {
                cluster_name  = "sds"
                cert_resource = "cert"
              }
            }
            listener {
              port     = 8080
              protocol = "http"
              service {
                name            = "web"
                max_connections = 10
                request_headers {
                  add {
                    X-Trace = "1"
                  }
                  remove = ["X-Debug"]
                }
                response_headers {
                  set {
                    Cache = "no"
                  }
                }
              }
            }
          }
        }
      }
    }
  }
}
"#,
    );
    let job = to_json(&job);
    let ingress = &job["TaskGroups"][0]["Services"][0]["Connect"]["Gateway"]["Ingress"];
    assert_eq!(
        ingress["TLS"]["SDS"],
        serde_json::json!({"ClusterName": "sds", "CertResource": "cert"})
    );
    let svc = &ingress["Listeners"][0]["Services"][0];
    assert_eq!(svc["MaxConnections"], 10);
    assert_eq!(svc["MaxPendingRequests"], Value::Null);
    assert_eq!(
        svc["RequestHeaders"],
        serde_json::json!({"Add": {"X-Trace": "1"}, "Remove": ["X-Debug"], "Set": null})
    );
    assert_eq!(
        svc["ResponseHeaders"],
        serde_json::json!({"Add": null, "Remove": null, "Set": {"Cache": "no"}})
    );
    let err = parse_err("job \"a\" {\n  group \"g\" {\n    service {\n      connect {\n        gateway {\n          ingress {\n            listener {\n              service {\n                max_connections = -1\n              }\n            }\n          }\n        }\n      }\n    }\n  }\n}\n");
    assert!(err.contains("between 0 and 4294967295 inclusive"), "{err}");
}

#[test]
fn canonicalize_fills_sidecar_task_defaults() {
    let mut job = parse(
        "job \"a\" {\n  group \"g\" {\n    service {\n      name = \"s\"\n      connect {\n        sidecar_task {\n          driver = \"docker\"\n        }\n      }\n    }\n    task \"t\" {\n      driver = \"raw_exec\"\n    }\n  }\n}\n",
    );
    canonicalize(&mut job);
    let job = to_json(&job);
    let st = &job["TaskGroups"][0]["Services"][0]["Connect"]["SidecarTask"];
    assert_eq!(st["KillTimeout"], 5_000_000_000i64);
    assert_eq!(st["ShutdownDelay"], 0);
    assert_eq!(st["Resources"]["CPU"], 100);
    assert_eq!(st["Resources"]["MemoryMB"], 300);
    assert_eq!(st["LogConfig"]["MaxFiles"], 10);
}

#[test]
fn service_identity_and_weights() {
    let job = to_json(&parse(
        "job \"a\" {\n  group \"g\" {\n    service {\n      name = \"s\"\n      identity {\n        aud = [\"consul.io\"]\n        ttl = \"1h\"\n      }\n      weights {\n        passing = 3\n      }\n    }\n    task \"t\" {\n      driver = \"raw_exec\"\n    }\n  }\n}\n",
    ));
    let s = &job["TaskGroups"][0]["Services"][0];
    assert_eq!(s["Identity"]["Audience"], json!(["consul.io"]));
    assert_eq!(s["Identity"]["TTL"], 3_600_000_000_000i64);
    assert_eq!(s["Weights"], json!({"Passing": 3, "Warning": 1}));
}
