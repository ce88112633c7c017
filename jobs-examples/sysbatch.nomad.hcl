# Run a one-off maintenance command once on every client: a sysbatch job.
job "apt-update" {
  type = "sysbatch"

  group "update" {
    task "apt" {
      driver = "raw_exec"
      user   = "root"

      config {
        command = "/usr/bin/apt-get"
        args    = ["update"]
      }
    }
  }
}
