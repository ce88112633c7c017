# The mock driver: pretends to run for 30 seconds and exits 0. Useful for scheduler tests.
job "mock" {
  type = "batch"

  group "mock" {
    count = 3

    task "pretend" {
      driver = "mock_driver"

      config {
        run_for       = "30s"
        exit_code     = 0
        stdout_string = "mock output"
      }

      resources {
        cpu    = 50
        memory = 32
      }
    }
  }
}
