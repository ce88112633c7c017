# A parameterized job: `nomad job dispatch -meta input=foo video-encode payload.json`.
job "video-encode" {
  type = "batch"

  parameterized {
    payload       = "optional"
    meta_required = ["input"]
    meta_optional = ["preset"]
  }

  group "encode" {
    task "ffmpeg" {
      driver = "raw_exec"

      dispatch_payload {
        file = "job.json"
      }

      config {
        command = "/bin/sh"
        args    = ["-c", "echo encoding ${NOMAD_META_input}"]
      }
    }
  }
}
