//! The schemas of the jobspec blocks this cut decodes: which arguments and nested blocks
//! each accepts, and which Nomad names are recognised but not decoded yet.

use super::body::Schema;

pub const TOP_SCHEMA: Schema = Schema {
    attrs: &[],
    blocks: &[
        ("variable", &["name"]),
        ("variables", &[]),
        ("locals", &[]),
        ("job", &["name"]),
    ],
    pending: &[],
};

pub const JOB_SCHEMA: Schema = Schema {
    attrs: &[
        "region",
        "namespace",
        "id",
        "name",
        "type",
        "priority",
        "all_at_once",
        "datacenters",
        "node_pool",
        "meta",
    ],
    blocks: &[
        ("group", &["name"]),
        ("task", &["name"]),
        ("constraint", &[]),
        ("update", &[]),
        ("reschedule", &[]),
        ("migrate", &[]),
        ("meta", &[]),
    ],
    pending: &[
        "affinity",
        "spread",
        "multiregion",
        "periodic",
        "parameterized",
        "ui",
        "vault",
        "secret",
        "consul_token",
        "vault_token",
    ],
};

pub const GROUP_SCHEMA: Schema = Schema {
    attrs: &[
        "count",
        "shutdown_delay",
        "max_run_duration",
        "stop_after_client_disconnect",
        "max_client_disconnect",
        "prevent_reschedule_on_lost",
        "meta",
    ],
    blocks: &[
        ("service", &[]),
        ("task", &["name"]),
        ("constraint", &[]),
        ("restart", &[]),
        ("reschedule", &[]),
        ("ephemeral_disk", &[]),
        ("update", &[]),
        ("migrate", &[]),
        ("network", &[]),
        ("meta", &[]),
    ],
    pending: &[
        "affinity",
        "spread",
        "volume",
        "disconnect",
        "scaling",
        "consul",
        "vault",
        "secret",
    ],
};

pub const TASK_SCHEMA: Schema = Schema {
    attrs: &[
        "driver",
        "user",
        "kill_timeout",
        "kill_signal",
        "leader",
        "shutdown_delay",
        "env",
        "meta",
    ],
    blocks: &[
        ("service", &[]),
        ("config", &[]),
        ("env", &[]),
        ("meta", &[]),
        ("resources", &[]),
        ("constraint", &[]),
        ("restart", &[]),
        ("logs", &[]),
    ],
    pending: &[
        "lifecycle",
        "affinity",
        "artifact",
        "vault",
        "consul",
        "template",
        "dispatch_payload",
        "volume_mount",
        "csi_plugin",
        "scaling",
        "secret",
        "identity",
        "action",
        "schedule",
        "kind",
    ],
};

pub const CONSTRAINT_SCHEMA: Schema = Schema {
    attrs: &[
        "attribute",
        "value",
        "operator",
        "distinct_property",
        "distinct_hosts",
        "regexp",
        "version",
        "semver",
        "set_contains",
        "set_contains_all",
        "set_contains_any",
        "is_set",
        "is_not_set",
    ],
    blocks: &[],
    pending: &[],
};

pub const RESTART_SCHEMA: Schema = Schema {
    attrs: &["attempts", "delay", "interval", "mode", "render_templates"],
    blocks: &[],
    pending: &[],
};

pub const RESCHEDULE_SCHEMA: Schema = Schema {
    attrs: &[
        "attempts",
        "interval",
        "delay",
        "delay_function",
        "max_delay",
        "unlimited",
    ],
    blocks: &[],
    pending: &[],
};

pub const UPDATE_SCHEMA: Schema = Schema {
    attrs: &[
        "stagger",
        "max_parallel",
        "health_check",
        "min_healthy_time",
        "healthy_deadline",
        "progress_deadline",
        "canary",
        "auto_revert",
        "auto_promote",
    ],
    blocks: &[],
    pending: &[],
};

pub const MIGRATE_SCHEMA: Schema = Schema {
    attrs: &[
        "max_parallel",
        "health_check",
        "min_healthy_time",
        "healthy_deadline",
    ],
    blocks: &[],
    pending: &[],
};

pub const DISK_SCHEMA: Schema = Schema {
    attrs: &["sticky", "migrate", "size"],
    blocks: &[],
    pending: &[],
};

pub const LOGS_SCHEMA: Schema = Schema {
    attrs: &["max_files", "max_file_size", "disabled"],
    blocks: &[],
    pending: &["enabled"],
};

pub const RESOURCES_SCHEMA: Schema = Schema {
    attrs: &["cpu", "cores", "memory", "memory_max", "disk", "secrets"],
    blocks: &[],
    pending: &["iops", "device", "numa", "network"],
};

pub const NETWORK_SCHEMA: Schema = Schema {
    attrs: &["mode", "mbits"],
    blocks: &[("port", &["name"])],
    pending: &[
        "device",
        "cidr",
        "ip",
        "hostname",
        "dns",
        "reserved_ports",
        "cni",
    ],
};

pub const PORT_SCHEMA: Schema = Schema {
    attrs: &["static", "to", "host_network"],
    blocks: &[],
    pending: &["ignore_collision"],
};
