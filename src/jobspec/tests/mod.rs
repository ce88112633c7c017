//! Tests of the jobspec module against the examples in jobs-examples/ and facts recorded from
//! a real Nomad (shared/reference samples, restated here as literals).

use std::path::Path;

use serde_json::Value;

use super::*;

pub(super) fn parse(src: &str) -> Job {
    match parse_str(src, "test.hcl", &[]) {
        Ok(j) => j,
        Err(e) => panic!("parse failed: {e}"),
    }
}

pub(super) fn parse_err(src: &str) -> String {
    match parse_str(src, "test.hcl", &[]) {
        Ok(_) => panic!("parse unexpectedly succeeded"),
        Err(e) => e.to_string(),
    }
}

pub(super) fn to_json<T: serde::Serialize>(v: &T) -> Value {
    serde_json::to_value(v).expect("api types serialise")
}

pub(super) fn examples() -> Vec<std::path::PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("jobs-examples");
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .expect("jobs-examples exists")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.to_string_lossy().ends_with(".nomad.hcl"))
        .collect();
    files.sort();
    files
}

/// The reference `example` job without its `service` block.
pub(super) const REFERENCE_EXAMPLE: &str = r#"job "example" {
  datacenters = ["*"]
  type        = "service"

  group "web" {
    count = 1

    network {
      port "http" {}
    }

    task "server" {
      driver = "raw_exec"

      config {
        command = "/bin/sh"
        args    = ["-c", "echo hello; exec sleep 1000"]
      }

      resources {
        cpu    = 100
        memory = 64
      }
    }
  }
}
"#;

pub(super) fn valid_base() -> Job {
    let mut job = parse(REFERENCE_EXAMPLE);
    canonicalize(&mut job);
    job
}

/// The reference `example` job exactly as recorded (with its nomad-provider service).
/// The reference job with `group` and `task` text added to the group and task bodies,
/// canonicalized, and its validation errors as one string ("" when valid).
pub(super) fn errors(group: &str, task: &str) -> String {
    let src = REFERENCE_EXAMPLE
        .replace("    count = 1\n", &format!("    count = 1\n{group}\n"))
        .replace(
            "      driver = \"raw_exec\"\n",
            &format!("      driver = \"raw_exec\"\n{task}\n"),
        );
    let mut job = parse(&src);
    canonicalize(&mut job);
    match validate(&job) {
        Ok(_) => String::new(),
        Err(e) => e.to_string(),
    }
}

pub(super) const REFERENCE_EXAMPLE_WITH_SERVICE: &str = r#"job "example" {
  datacenters = ["*"]
  type        = "service"

  group "web" {
    count = 1

    network {
      port "http" {}
    }

    service {
      provider = "nomad"
      name     = "web"
      port     = "http"
    }

    task "server" {
      driver = "raw_exec"

      config {
        command = "/bin/sh"
        args    = ["-c", "echo hello; exec sleep 1000"]
      }

      resources {
        cpu    = 100
        memory = 64
      }
    }
  }
}
"#;

mod block_defaults;
mod blocks;
mod blocks2;
mod connect;
mod corpus;
mod defaults;
mod dynamic;
mod format;
mod large;
mod parse;
mod task_kind;
mod validation;
mod validation_blocks;
mod validation_services;
mod variables;
