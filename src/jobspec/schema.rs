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
        ("affinity", &[]),
        ("spread", &[]),
        ("periodic", &[]),
        ("parameterized", &[]),
        ("multiregion", &[]),
        ("ui", &[]),
        ("vault", &[]),
        ("secret", &["name"]),
    ],
    pending: &[],
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
        ("affinity", &[]),
        ("spread", &[]),
        ("volume", &["name"]),
        ("disconnect", &[]),
        ("scaling", &[]),
        ("consul", &[]),
        ("vault", &[]),
        ("secret", &["name"]),
    ],
    pending: &[],
};

pub const TASK_SCHEMA: Schema = Schema {
    attrs: &[
        "driver",
        "kind",
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
        ("lifecycle", &[]),
        ("affinity", &[]),
        ("artifact", &[]),
        ("template", &[]),
        ("dispatch_payload", &[]),
        ("volume_mount", &[]),
        ("vault", &[]),
        ("consul", &[]),
        ("csi_plugin", &[]),
        ("scaling", &["name"]),
        ("secret", &["name"]),
        ("identity", &[]),
        ("action", &["name"]),
        ("schedule", &[]),
    ],
    pending: &[],
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
    // `enabled` is the api's pre-1.5.4 spelling: kept in the api Job, ignored by the server.
    attrs: &["max_files", "max_file_size", "disabled", "enabled"],
    blocks: &[],
    pending: &[],
};

pub const RESOURCES_SCHEMA: Schema = Schema {
    // `iops` and `network` are deprecated (Nomad 0.9 and 0.12): accepted, warned about.
    attrs: &[
        "cpu",
        "cores",
        "memory",
        "memory_max",
        "disk",
        "secrets",
        "iops",
    ],
    blocks: &[("device", &["name"]), ("numa", &[]), ("network", &[])],
    pending: &[],
};

pub const NUMA_SCHEMA: Schema = Schema {
    attrs: &["affinity", "devices"],
    blocks: &[],
    pending: &[],
};

pub const NETWORK_SCHEMA: Schema = Schema {
    attrs: &["mode", "mbits", "device", "cidr", "ip", "hostname"],
    blocks: &[
        ("port", &["name"]),
        ("reserved_ports", &["name"]),
        ("dns", &[]),
        ("cni", &[]),
    ],
    pending: &[],
};

pub const PORT_SCHEMA: Schema = Schema {
    attrs: &["static", "to", "host_network", "ignore_collision"],
    blocks: &[],
    pending: &[],
};

pub const AFFINITY_SCHEMA: Schema = Schema {
    attrs: &[
        "attribute",
        "value",
        "operator",
        "weight",
        "version",
        "semver",
        "regexp",
        "set_contains",
        "set_contains_all",
        "set_contains_any",
    ],
    blocks: &[],
    pending: &[],
};

pub const SPREAD_SCHEMA: Schema = Schema {
    attrs: &["attribute", "weight"],
    blocks: &[("target", &["value"])],
    pending: &[],
};

pub const SPREAD_TARGET_SCHEMA: Schema = Schema {
    attrs: &["percent"],
    blocks: &[],
    pending: &[],
};

pub const PERIODIC_SCHEMA: Schema = Schema {
    attrs: &["cron", "crons", "prohibit_overlap", "time_zone", "enabled"],
    blocks: &[],
    pending: &[],
};

pub const PARAMETERIZED_SCHEMA: Schema = Schema {
    attrs: &["payload", "meta_required", "meta_optional"],
    blocks: &[],
    pending: &[],
};

pub const DISPATCH_PAYLOAD_SCHEMA: Schema = Schema {
    attrs: &["file"],
    blocks: &[],
    pending: &[],
};

pub const LIFECYCLE_SCHEMA: Schema = Schema {
    attrs: &["hook", "sidecar"],
    blocks: &[],
    pending: &[],
};

pub const TEMPLATE_SCHEMA: Schema = Schema {
    attrs: &[
        "source",
        "destination",
        "data",
        "change_mode",
        "change_signal",
        "once",
        "splay",
        "perms",
        "uid",
        "gid",
        "left_delimiter",
        "right_delimiter",
        "env",
        "vault_grace",
        "error_on_missing_key",
    ],
    blocks: &[("wait", &[]), ("change_script", &[])],
    pending: &[],
};

pub const CHANGE_SCRIPT_SCHEMA: Schema = Schema {
    attrs: &[
        "command",
        "args",
        "timeout",
        "fail_on_error",
        "run_on_first_render",
    ],
    blocks: &[],
    pending: &[],
};

pub const WAIT_SCHEMA: Schema = Schema {
    attrs: &["min", "max"],
    blocks: &[],
    pending: &[],
};

pub const ARTIFACT_SCHEMA: Schema = Schema {
    attrs: &[
        "source",
        "destination",
        "mode",
        "insecure",
        "chown",
        "options",
        "headers",
    ],
    blocks: &[("options", &[]), ("headers", &[])],
    pending: &[],
};

pub const VOLUME_SCHEMA: Schema = Schema {
    attrs: &[
        "type",
        "source",
        "read_only",
        "sticky",
        "access_mode",
        "attachment_mode",
        "per_alloc",
    ],
    blocks: &[("mount_options", &[])],
    pending: &[],
};

pub const MOUNT_OPTIONS_SCHEMA: Schema = Schema {
    attrs: &["fs_type", "mount_flags"],
    blocks: &[],
    pending: &[],
};

pub const VOLUME_MOUNT_SCHEMA: Schema = Schema {
    attrs: &[
        "volume",
        "destination",
        "read_only",
        "propagation_mode",
        "selinux_label",
    ],
    blocks: &[],
    pending: &[],
};

pub const DISCONNECT_SCHEMA: Schema = Schema {
    attrs: &["lost_after", "stop_on_client_after", "replace", "reconcile"],
    blocks: &[],
    pending: &[],
};

pub const DEVICE_SCHEMA: Schema = Schema {
    attrs: &["count"],
    blocks: &[("constraint", &[]), ("affinity", &[])],
    pending: &[],
};

pub const DNS_SCHEMA: Schema = Schema {
    attrs: &["servers", "searches", "options"],
    blocks: &[],
    pending: &[],
};

pub const CNI_SCHEMA: Schema = Schema {
    attrs: &["args"],
    blocks: &[],
    pending: &[],
};
