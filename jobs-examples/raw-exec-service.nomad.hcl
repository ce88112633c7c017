# A long-running service under raw_exec: prints a line every 10 seconds.
job "raw-exec-service" {
  type        = "service"
  datacenters = ["*"]

  group "app" {
    count = 1

    network {
      port "http" {}
    }

    task "loop" {
      driver = "raw_exec"

      config {
        command = "/bin/sh"
        args    = ["-c", "while true; do echo \"tick on port $NOMAD_PORT_http\"; sleep 10; done"]
      }

      env {
        GREETING = "hello from ${NOMAD_TASK_NAME}"
      }

      resources {
        cpu    = 100
        memory = 64
      }
    }
  }
}
