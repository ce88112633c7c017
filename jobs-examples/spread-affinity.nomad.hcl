# Spread across datacenters, prefer SSD nodes.
job "spread-affinity" {
  datacenters = ["*"]

  spread {
    attribute = "${node.datacenter}"
    weight    = 100
  }

  group "app" {
    count = 2

    affinity {
      attribute = "${meta.storage}"
      value     = "ssd"
      weight    = 60
    }

    task "app" {
      driver = "raw_exec"

      config {
        command = "/bin/sh"
        args    = ["-c", "exec sleep 3600"]
      }

      resources {
        cpu    = 50
        memory = 32
      }
    }
  }
}
