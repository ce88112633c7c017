# A batch job: echoes a line and exits 0.
job "batch" {
  type = "batch"

  group "once" {
    task "echo" {
      driver = "raw_exec"

      config {
        command = "/bin/echo"
        args    = ["done"]
      }

      resources {
        cpu    = 100
        memory = 64
      }
    }
  }
}
