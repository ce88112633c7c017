# An nginx container under the docker driver, serving a rendered page.
job "docker-nginx" {
  group "web" {
    network {
      port "http" {
        to = 80
      }
    }

    task "nginx" {
      driver = "docker"

      config {
        image = "nginx:1.27-alpine"
        ports = ["http"]
      }

      template {
        data        = "<h1>served by {{ env \"NOMAD_ALLOC_ID\" }}</h1>"
        destination = "local/index.html"
      }

      resources {
        cpu    = 200
        memory = 128
      }
    }
  }
}
