# A prestart init task, a log-shipping sidecar and the main task.
job "lifecycle" {
  group "app" {
    task "init" {
      driver = "raw_exec"

      lifecycle {
        hook = "prestart"
      }

      config {
        command = "/bin/sh"
        args    = ["-c", "echo ready > ${NOMAD_ALLOC_DIR}/ready"]
      }
    }

    task "shipper" {
      driver = "raw_exec"

      lifecycle {
        hook    = "poststart"
        sidecar = true
      }

      config {
        command = "/bin/sh"
        args    = ["-c", "exec sleep 3600"]
      }
    }

    task "main" {
      driver = "raw_exec"

      config {
        command = "/bin/sh"
        args    = ["-c", "exec sleep 3600"]
      }
    }
  }
}
