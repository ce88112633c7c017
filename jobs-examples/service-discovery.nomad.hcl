# A raw_exec service registered in Nomad's own service catalog, with an HTTP check.
# The server adds the implied `${attr.nomad.service_discovery} = true` constraint.
job "web-svc" {
  group "web" {
    count = 2

    network {
      port "http" {}
    }

    service {
      provider = "nomad"
      name     = "web-svc"
      port     = "http"
      tags     = ["v1"]

      check {
        type     = "tcp"
        interval = "10s"
        timeout  = "2s"
      }
    }

    task "httpd" {
      driver         = "raw_exec"
      shutdown_delay = "2s"

      config {
        command = "/bin/sh"
        args    = ["-c", "while true; do echo -e 'HTTP/1.1 200 OK\\r\\n\\r\\nok' | nc -l -p $NOMAD_PORT_http; done"]
      }

      resources {
        cpu    = 100
        memory = 32
      }
    }
  }
}
