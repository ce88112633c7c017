# An edge service that keeps running while its client is disconnected for up to an hour.
job "edge-cache" {
  group "cache" {
    disconnect {
      lost_after = "1h"
      replace    = false
      reconcile  = "keep_original"
    }

    task "cache" {
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
