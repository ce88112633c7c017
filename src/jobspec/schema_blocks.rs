//! Schemas of the integration blocks decoded in `job_blocks` (Nomad's api hcl tags).

use super::body::Schema;

const fn attrs(attrs: &'static [&'static str]) -> Schema {
    Schema {
        attrs,
        blocks: &[],
        pending: &[],
    }
}

pub const VAULT_SCHEMA: Schema = attrs(&[
    "policies",
    "role",
    "namespace",
    "cluster",
    "env",
    "disable_file",
    "change_mode",
    "change_signal",
    "allow_token_expiration",
]);

pub const CONSUL_SCHEMA: Schema = attrs(&["namespace", "cluster", "partition"]);

pub const IDENTITY_SCHEMA: Schema = attrs(&[
    "name",
    "aud",
    "change_mode",
    "change_signal",
    "env",
    "file",
    "filepath",
    "service_name",
    "ttl",
    "extra_claims",
]);

pub const CSI_PLUGIN_SCHEMA: Schema = attrs(&[
    "id",
    "type",
    "mount_dir",
    "stage_publish_base_dir",
    "health_timeout",
]);

pub const SCALING_SCHEMA: Schema = Schema {
    attrs: &["min", "max", "enabled", "type"],
    blocks: &[("policy", &[])],
    pending: &[],
};

pub const MULTIREGION_SCHEMA: Schema = Schema {
    attrs: &[],
    blocks: &[("strategy", &[]), ("region", &["name"])],
    pending: &[],
};

pub const MULTIREGION_STRATEGY_SCHEMA: Schema = attrs(&["max_parallel", "on_failure"]);

pub const MULTIREGION_REGION_SCHEMA: Schema = Schema {
    attrs: &["count", "datacenters", "node_pool", "meta"],
    blocks: &[("meta", &[])],
    pending: &[],
};

pub const UI_SCHEMA: Schema = Schema {
    attrs: &["description"],
    blocks: &[("link", &[])],
    pending: &[],
};

pub const UI_LINK_SCHEMA: Schema = attrs(&["label", "url"]);

pub const ACTION_SCHEMA: Schema = attrs(&["command", "args"]);

pub const SCHEDULE_SCHEMA: Schema = Schema {
    attrs: &[],
    blocks: &[("cron", &[])],
    pending: &[],
};

pub const SCHEDULE_CRON_SCHEMA: Schema = attrs(&["start", "end", "timezone"]);

pub const SECRET_SCHEMA: Schema = Schema {
    attrs: &["provider", "path", "env"],
    blocks: &[("config", &[]), ("env", &[])],
    pending: &[],
};
