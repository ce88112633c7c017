# A raw_exec service whose config file is rendered by the `template` block: the task's
# environment plus the instances of the Nomad-native "web-svc" service (see
# service-discovery.nomad.hcl). When those instances change the file is re-rendered and
# the task restarted; the env template's variables reach the task's environment.
job "template-demo" {
  group "app" {
    task "app" {
      driver = "raw_exec"

      config {
        command = "/bin/sh"
        args    = ["-c", "echo \"upstreams for $APP_NAME:\"; cat local/upstreams.conf; exec sleep 3600"]
      }

      template {
        data        = <<EOT
# rendered for {{ env "NOMAD_ALLOC_ID" }}
{{ range nomadService "web-svc" }}server {{ .Address }}:{{ .Port }};
{{ else }}# no web-svc instances yet
{{ end }}
EOT
        destination = "local/upstreams.conf"
        change_mode = "restart"
      }

      template {
        data        = "APP_NAME={{ env \"NOMAD_JOB_NAME\" | toUpper }}\n"
        destination = "secrets/app.env"
        env         = true
      }

      resources {
        cpu    = 50
        memory = 32
      }
    }
  }
}
