# Restart, reschedule, update and migrate policies, and log rotation. Unset fields of each
# block take Nomad's defaults; the task's restart block overrides the group's per field.
job "restarts" {
  type = "service"

  update {
    max_parallel = 2
    stagger      = "20s"
  }

  group "flaky" {
    count = 2

    restart {
      attempts = 5
      interval = "10m"
      delay    = "20s"
      mode     = "delay"
    }

    reschedule {
      delay          = "1m"
      delay_function = "constant"
      unlimited      = true
    }

    migrate {
      max_parallel = 1
      health_check = "task_states"
    }

    ephemeral_disk {
      size = 200
    }

    task "fails-sometimes" {
      driver       = "raw_exec"
      kill_timeout = "10s"
      kill_signal  = "SIGTERM"

      restart {
        attempts = 1
      }

      logs {
        max_files     = 3
        max_file_size = 5
      }

      config {
        command = "/bin/sh"
        args    = ["-c", "echo starting; sleep 30; exit 1"]
      }

      resources {
        cpu    = 100
        memory = 64
      }
    }
  }
}
