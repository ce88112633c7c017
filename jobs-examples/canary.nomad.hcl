# Blue/green style rollout: one canary, promoted automatically once healthy.
job "canary-api" {
  update {
    max_parallel     = 1
    canary           = 1
    auto_promote     = true
    auto_revert      = true
    min_healthy_time = "5s"
    healthy_deadline = "1m"
  }

  group "api" {
    count = 2

    task "api" {
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
