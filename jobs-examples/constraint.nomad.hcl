# Placement constraints at job, group and task level, including Nomad's shorthand forms.
job "constrained" {
  datacenters = ["dc1", "dc2"]
  priority    = 70
  node_pool   = "default"

  meta {
    owner = "platform"
  }

  constraint {
    attribute = "${attr.kernel.name}"
    value     = "linux"
  }

  group "spread-out" {
    count = 2

    constraint {
      distinct_hosts = true
    }

    constraint {
      attribute = "${attr.nomad.version}"
      version   = ">= 1.0.0"
    }

    task "sleeper" {
      driver = "raw_exec"

      constraint {
        attribute = "${meta.rack}"
        operator  = "regexp"
        value     = "^r[0-9]+$"
      }

      config {
        command = "/bin/sleep"
        args    = ["3600"]
      }

      resources {
        cpu    = 100
        memory = 32
      }
    }
  }
}
