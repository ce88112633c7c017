# A node agent on every client: a system job.
job "node-exporter" {
  type = "system"

  group "exporter" {
    network {
      port "metrics" {
        static = 9100
      }
    }

    task "exporter" {
      driver = "exec"

      config {
        command = "/usr/local/bin/node_exporter"
        args    = ["--web.listen-address=:${NOMAD_PORT_metrics}"]
      }

      resources {
        cpu    = 100
        memory = 64
      }
    }
  }
}
