# Input variables with defaults, overridable with `-var`; run-time interpolations such as
# ${NOMAD_ALLOC_ID} stay literal for the client to fill in.
variable "message" {
  type    = string
  default = "hello"
}

variable "count" {
  type    = number
  default = 1
}

locals {
  greeting = "${var.message}, world"
}

job "vars" {
  type = "batch"

  group "greet" {
    count = var.count

    task "say" {
      driver = "raw_exec"

      config {
        command = "/bin/sh"
        args    = ["-c", "echo '${local.greeting}' from ${NOMAD_ALLOC_ID}"]
      }

      resources {
        cpu    = 100
        memory = 32
      }
    }
  }
}
