# A nightly cleanup batch job; never two runs at once.
job "nightly-cleanup" {
  type = "batch"

  periodic {
    crons            = ["0 3 * * *"]
    prohibit_overlap = true
    time_zone        = "UTC"
  }

  group "cleanup" {
    task "prune" {
      driver = "raw_exec"

      config {
        command = "/bin/sh"
        args    = ["-c", "find ${NOMAD_ALLOC_DIR} -name '*.tmp' -delete"]
      }
    }
  }
}
