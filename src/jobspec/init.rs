//! The example job written by `nomad job init`. It uses the `raw_exec` driver so that it runs
//! on any Linux machine with a dev agent, with no container runtime installed.

const EXAMPLE_SHORT: &str = r#"job "example" {
  type = "service"

  group "web" {
    count = 1

    network {
      port "http" {}
    }

    task "server" {
      driver = "raw_exec"

      config {
        command = "/bin/sh"
        args    = ["-c", "echo hello; while true; do sleep 10; done"]
      }

      resources {
        cpu    = 100
        memory = 64
      }
    }
  }
}
"#;

const EXAMPLE_LONG: &str = r#"# This is an example job file. It declares one job with one group of one
# task, and runs on a `nomad agent -dev` without Docker: the task uses the
# raw_exec driver, which the dev agent enables.
#
# Run it with:
#
#     nomad job run example.nomad.hcl
#
# The job, group and task names below are labels you choose; they must be
# unique in their scope.
job "example" {
  # "service" jobs run forever and are restarted when they exit. Other types
  # are "batch" (runs to completion), "system" (one per node) and "sysbatch".
  type = "service"

  # Datacenters this job may be placed in. "*" (the default) means any.
  # datacenters = ["*"]

  # A group is the unit of placement: all its tasks run together on the
  # same node, in one allocation.
  group "web" {
    # How many allocations of this group to run.
    count = 1

    # Ask for one dynamic host port, labelled "http". The task can read the
    # chosen port number from the NOMAD_PORT_http environment variable.
    network {
      port "http" {}
    }

    # What to do when a task exits or fails. These are the defaults for a
    # service job: two restarts within 30 minutes, 15 seconds apart, then
    # the allocation fails and may be rescheduled.
    # restart {
    #   attempts = 2
    #   interval = "30m"
    #   delay    = "15s"
    #   mode     = "fail"
    # }

    # A task is one process run by a driver.
    task "server" {
      # raw_exec runs the command directly on the host, without isolation.
      driver = "raw_exec"

      # Driver-specific settings. This shell loop prints once to stdout
      # (see it with `nomad alloc logs <alloc-id>`) and then keeps running.
      config {
        command = "/bin/sh"
        args    = ["-c", "echo hello; while true; do sleep 10; done"]
      }

      # Resources the task reserves on its node: CPU in MHz, memory in MB.
      resources {
        cpu    = 100
        memory = 64
      }

      # How long Nomad waits after the kill signal before it force-kills the
      # task.
      # kill_timeout = "5s"
    }
  }
}
"#;

/// The example job text; `short` drops the explanatory comments.
pub fn init_job(short: bool) -> &'static str {
    if short {
        EXAMPLE_SHORT
    } else {
        EXAMPLE_LONG
    }
}
