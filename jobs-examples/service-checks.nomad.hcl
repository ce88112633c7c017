# A web service with an HTTP and a TCP health check, registered in Nomad's service catalog.
job "service-checks" {
  type = "service"

  group "web" {
    count = 1

    network {
      port "http" {}
    }

    service {
      provider = "nomad"
      name     = "web-checks"
      port     = "http"
      tags     = ["web"]

      check {
        name     = "http-alive"
        type     = "http"
        path     = "/"
        interval = "10s"
        timeout  = "2s"
      }

      check {
        name     = "tcp-open"
        type     = "tcp"
        interval = "15s"
        timeout  = "2s"
      }
    }

    task "server" {
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
