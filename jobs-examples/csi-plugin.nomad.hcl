# A CSI plugin run as a monolith (controller and node in one task), plus a consumer group.
job "csi-hostpath" {
  type = "service"

  group "consumer" {
    volume "data" {
      type            = "csi"
      source          = "hostpath-vol"
      access_mode     = "single-node-writer"
      attachment_mode = "file-system"
    }

    task "app" {
      driver = "docker"

      config {
        image   = "busybox:1.36"
        command = "sh"
        args    = ["-c", "date >> /data/log; sleep 3600"]
      }

      volume_mount {
        volume      = "data"
        destination = "/data"
      }
    }
  }
}
