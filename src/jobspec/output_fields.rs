//! Nomad's api structs as `output` prints them: each table lists one struct's fields in Go
//! declaration order (encoding/json prints them so), with where the value comes from and
//! what a field the file left unset prints. Facts from Nomad's api/jobs.go, api/tasks.go,
//! api/resources.go, api/services.go, api/constraint.go and api/affinity.go; `canon` says
//! what the api's `Canonicalize` (`POST /v1/jobs/parse` with `Canonicalize`) sets.
//!
//! Structs without a table here (connect, identity, scaling, consul, multiregion, ui,
//! actions, secrets, devices, CNI, NUMA) print as decoded, their keys sorted.

/// A Go field's zero value: `Nil` for pointers, slices and maps.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Zero {
    Nil,
    Str,
    Num,
    Bool,
}

/// Where a field's value comes from.
#[derive(Debug, Clone, Copy)]
pub enum Src {
    /// Set by the attribute or map block named: our value when the file set it, else the
    /// zero.
    Attr(&'static str, Zero),
    /// Set by jobspec2 whatever the file says (labels, normalised fields), or decoded the way
    /// the api struct holds it: our value, the zero when we have none.
    Ours(Zero),
    /// Never set from a job file (server-side fields).
    Unset(Zero),
    /// A pointer to the struct decoded from the single block named.
    Block(&'static str, &'static [Field]),
    /// A slice of structs decoded from the blocks named, in order.
    Blocks(&'static str, &'static [Field]),
    /// A slice of structs computed from blocks (ports split by jobspec2): null when empty.
    List(&'static [Field]),
    /// A pointer to a struct decoded as the api holds it (every field `Ours`).
    Object(&'static [Field]),
    /// `json:",omitempty"`: left out when nil.
    OmitNull,
}

/// What the api's `Canonicalize` does to a field.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Canon {
    /// Leaves it alone.
    No,
    /// Fills it: the canonicalized job's value.
    Ours,
    /// Sets it to this zero when unset (where the server's default differs).
    Set(Zero),
}

#[derive(Debug, Clone, Copy)]
pub struct Field {
    /// The Go field (its JSON key).
    pub go: &'static str,
    /// The key of the same value in `api::Job`'s JSON.
    pub ours: &'static str,
    pub src: Src,
    pub canon: Canon,
}

const fn f(go: &'static str, src: Src) -> Field {
    Field {
        go,
        ours: go,
        src,
        canon: Canon::No,
    }
}

impl Field {
    const fn c(self) -> Field {
        Field {
            canon: Canon::Ours,
            ..self
        }
    }

    const fn cz(self, z: Zero) -> Field {
        Field {
            canon: Canon::Set(z),
            ..self
        }
    }
}

use Src::*;
use Zero::*;

const fn ptr(go: &'static str, hcl: &'static str) -> Field {
    f(go, Attr(hcl, Nil))
}

const fn val(go: &'static str, hcl: &'static str, z: Zero) -> Field {
    f(go, Attr(hcl, z))
}

const fn ours(go: &'static str) -> Field {
    f(go, Ours(Nil))
}

const fn ours_z(go: &'static str, z: Zero) -> Field {
    f(go, Ours(z))
}

pub const JOB: &[Field] = &[
    ptr("Region", "region").c(),
    ptr("Namespace", "namespace").c(),
    ours("ID"),
    ours("Name"),
    ptr("Type", "type").c(),
    ptr("Priority", "priority").c(),
    ptr("AllAtOnce", "all_at_once").c(),
    ptr("Datacenters", "datacenters"),
    // The server's default pool is "default"; the api's Canonicalize sets "".
    ptr("NodePool", "node_pool").cz(Str),
    f("Constraints", Blocks("constraint", CONSTRAINT)),
    f("Affinities", List(AFFINITY)),
    // Filled in by `output::render`, which knows the groups made of lone tasks.
    ours("TaskGroups"),
    f("Update", Block("update", UPDATE)).c(),
    ours("Multiregion"),
    f("Spreads", List(SPREAD)),
    f("Periodic", Object(PERIODIC)),
    f("ParameterizedJob", Object(PARAMETERIZED)),
    f("Reschedule", Block("reschedule", RESCHEDULE)),
    f("Migrate", Block("migrate", MIGRATE)),
    ptr("Meta", "meta"),
    ours("UI"),
    f("Stop", Unset(Nil)).cz(Bool),
    f("ParentID", Unset(Nil)).cz(Str),
    f("Dispatched", Unset(Bool)),
    f("DispatchIdempotencyToken", Unset(Nil)),
    f("Payload", Unset(Nil)),
    f("ConsulNamespace", Unset(Nil)).cz(Str),
    f("VaultNamespace", Unset(Nil)).cz(Str),
    f("NomadTokenID", Unset(Nil)).cz(Str),
    f("Status", Unset(Nil)).cz(Str),
    f("StatusDescription", Unset(Nil)).cz(Str),
    f("Stable", Unset(Nil)).cz(Bool),
    f("Version", Unset(Nil)).cz(Num),
    f("SubmitTime", Unset(Nil)),
    f("CreateIndex", Unset(Nil)).cz(Num),
    f("ModifyIndex", Unset(Nil)).cz(Num),
    f("JobModifyIndex", Unset(Nil)).cz(Num),
    f("VersionTag", Unset(Nil)),
];

pub const TASK_GROUP: &[Field] = &[
    ours("Name"),
    ptr("Count", "count").c(),
    f("Constraints", Blocks("constraint", CONSTRAINT)),
    f("Affinities", List(AFFINITY)),
    f("Tasks", Blocks("task", TASK)).c(),
    f("Spreads", List(SPREAD)),
    ours("Volumes"),
    f("RestartPolicy", Block("restart", RESTART)).c(),
    f("Disconnect", Object(DISCONNECT)),
    f("ReschedulePolicy", Block("reschedule", RESCHEDULE)).c(),
    f("EphemeralDisk", Block("ephemeral_disk", EPHEMERAL_DISK)).c(),
    f("Update", Block("update", UPDATE)).c(),
    f("Migrate", Block("migrate", MIGRATE)).c(),
    f("Networks", Blocks("network", NETWORK)),
    ptr("Meta", "meta"),
    f("Services", Blocks("service", SERVICE)).c(),
    ptr("ShutdownDelay", "shutdown_delay"),
    ptr("MaxRunDuration", "max_run_duration"),
    ptr("StopAfterClientDisconnect", "stop_after_client_disconnect"),
    ptr("MaxClientDisconnect", "max_client_disconnect"),
    ours("Scaling"),
    ours("Consul"),
    ptr("PreventRescheduleOnLost", "prevent_reschedule_on_lost"),
];

pub const TASK: &[Field] = &[
    ours_z("Name", Str),
    val("Driver", "driver", Str),
    val("User", "user", Str),
    f("Lifecycle", Object(LIFECYCLE)),
    ptr("Config", "config"),
    f("Constraints", Blocks("constraint", CONSTRAINT)),
    f("Affinities", List(AFFINITY)),
    ptr("Env", "env"),
    f("Services", Blocks("service", SERVICE)).c(),
    f("Resources", Block("resources", RESOURCES)).c(),
    f("RestartPolicy", Block("restart", RESTART)).c(),
    ptr("Meta", "meta"),
    ptr("KillTimeout", "kill_timeout").c(),
    f("LogConfig", Block("logs", LOG_CONFIG)).c(),
    f("Artifacts", List(ARTIFACT)),
    // jobspec2 gives a task without a vault block the job's, normalised.
    f("Vault", Object(VAULT)),
    ours("Consul"),
    f("Templates", List(TEMPLATE)),
    f("DispatchPayload", Object(DISPATCH_PAYLOAD)),
    f("VolumeMounts", List(VOLUME_MOUNT)),
    Field {
        go: "CSIPluginConfig",
        ours: "CSIPluginConfig",
        src: OmitNull,
        canon: Canon::No,
    },
    val("Leader", "leader", Bool),
    val("ShutdownDelay", "shutdown_delay", Num),
    val("KillSignal", "kill_signal", Str),
    ours_z("Kind", Str),
    ours("ScalingPolicies"),
    ours("Secrets"),
    ours("Identity"),
    ours("Identities"),
    ours("Actions"),
    ours("Schedule"),
];

pub const CONSTRAINT: &[Field] = &[
    ours_z("LTarget", Str),
    ours_z("RTarget", Str),
    ours_z("Operand", Str),
];

pub const AFFINITY: &[Field] = &[
    ours_z("LTarget", Str),
    ours_z("RTarget", Str),
    ours_z("Operand", Str),
    ours("Weight"),
];

pub const SPREAD: &[Field] = &[
    ours_z("Attribute", Str),
    ours("Weight"),
    f("SpreadTarget", List(SPREAD_TARGET)),
];

const SPREAD_TARGET: &[Field] = &[ours_z("Value", Str), ours_z("Percent", Num)];

pub const UPDATE: &[Field] = &[
    ptr("Stagger", "stagger").c(),
    ptr("MaxParallel", "max_parallel").c(),
    ptr("HealthCheck", "health_check").c(),
    ptr("MinHealthyTime", "min_healthy_time").c(),
    ptr("HealthyDeadline", "healthy_deadline").c(),
    ptr("ProgressDeadline", "progress_deadline").c(),
    ptr("Canary", "canary").c(),
    ptr("AutoRevert", "auto_revert").c(),
    ptr("AutoPromote", "auto_promote").c(),
];

const RESTART: &[Field] = &[
    ptr("Interval", "interval").c(),
    ptr("Attempts", "attempts").c(),
    ptr("Delay", "delay").c(),
    ptr("Mode", "mode").c(),
    ptr("RenderTemplates", "render_templates").c(),
];

const RESCHEDULE: &[Field] = &[
    ptr("Attempts", "attempts").c(),
    ptr("Interval", "interval").c(),
    ptr("Delay", "delay").c(),
    ptr("DelayFunction", "delay_function").c(),
    ptr("MaxDelay", "max_delay").c(),
    ptr("Unlimited", "unlimited").c(),
];

const MIGRATE: &[Field] = &[
    ptr("MaxParallel", "max_parallel").c(),
    ptr("HealthCheck", "health_check").c(),
    ptr("MinHealthyTime", "min_healthy_time").c(),
    ptr("HealthyDeadline", "healthy_deadline").c(),
];

const EPHEMERAL_DISK: &[Field] = &[
    ptr("Sticky", "sticky").c(),
    ptr("Migrate", "migrate").c(),
    Field {
        ours: "SizeMB",
        ..ptr("SizeMB", "size").c()
    },
];

const LOG_CONFIG: &[Field] = &[
    ptr("MaxFiles", "max_files").c(),
    ptr("MaxFileSizeMB", "max_file_size").c(),
    ptr("Enabled", "enabled"),
    ptr("Disabled", "disabled").c(),
];

const DISCONNECT: &[Field] = &[
    ours("LostAfter"),
    ours("StopOnClientAfter"),
    ours("Replace"),
    ours("Reconcile"),
];

const RESOURCES: &[Field] = &[
    ptr("CPU", "cpu").c(),
    ptr("Cores", "cores").c(),
    ptr("MemoryMB", "memory").c(),
    ptr("MemoryMaxMB", "memory_max"),
    ptr("DiskMB", "disk"),
    f("Networks", Blocks("network", NETWORK)),
    ours("Devices"),
    ours("NUMA"),
    ptr("SecretsMB", "secrets"),
    ptr("IOPS", "iops"),
];

const NETWORK: &[Field] = &[
    val("Mode", "mode", Str),
    val("Device", "device", Str),
    val("CIDR", "cidr", Str),
    val("IP", "ip", Str),
    f("DNS", Object(DNS)),
    f("ReservedPorts", List(PORT)),
    f("DynamicPorts", List(PORT)),
    val("Hostname", "hostname", Str),
    ptr("MBits", "mbits"),
    ours("CNI"),
];

const DNS: &[Field] = &[ours("Servers"), ours("Searches"), ours("Options")];

const PORT: &[Field] = &[
    ours_z("Label", Str),
    ours_z("Value", Num),
    ours_z("To", Num),
    ours_z("HostNetwork", Str),
    ours_z("IgnoreCollision", Bool),
];

const SERVICE: &[Field] = &[
    ours_z("Name", Str).c(),
    ours("Tags"),
    ours("CanaryTags"),
    ours_z("EnableTagOverride", Bool),
    ours_z("PortLabel", Str),
    ours_z("AddressMode", Str).c(),
    ours_z("Address", Str),
    f("Checks", Blocks("check", CHECK)).c(),
    f("CheckRestart", Block("check_restart", CHECK_RESTART)),
    ours("Connect"),
    ours("Meta"),
    ours("CanaryMeta"),
    ours("TaggedAddresses"),
    ours_z("TaskName", Str),
    ours_z("OnUpdate", Str).c(),
    ours("Identity"),
    ours("Weights"),
    ours_z("Provider", Str).c(),
    ours_z("Cluster", Str).c(),
    ours_z("Kind", Str),
];

const CHECK: &[Field] = &[
    ours_z("Name", Str),
    ours_z("Type", Str),
    ours_z("Command", Str),
    ours("Args"),
    ours_z("Path", Str),
    ours_z("Protocol", Str),
    ours_z("PortLabel", Str),
    ours_z("Expose", Bool),
    ours_z("AddressMode", Str),
    ours_z("Advertise", Str),
    ours_z("Interval", Num),
    ours_z("Timeout", Num),
    ours_z("InitialStatus", Str),
    ours_z("Notes", Str),
    ours_z("TLSServerName", Str),
    ours_z("TLSSkipVerify", Bool),
    ours("Header"),
    ours_z("Method", Str),
    f("CheckRestart", Block("check_restart", CHECK_RESTART)).c(),
    ours_z("GRPCService", Str),
    ours_z("GRPCUseTLS", Bool),
    ours_z("TaskName", Str),
    ours_z("SuccessBeforePassing", Num),
    ours_z("FailuresBeforeCritical", Num),
    ours_z("FailuresBeforeWarning", Num),
    ours_z("Body", Str),
    ours_z("OnUpdate", Str).c(),
];

const CHECK_RESTART: &[Field] = &[
    ours_z("Limit", Num),
    ptr("Grace", "grace"),
    ours_z("IgnoreWarnings", Bool),
];

const PERIODIC: &[Field] = &[
    ours("Enabled"),
    ours("Spec"),
    ours("Specs"),
    ours("SpecType"),
    ours("ProhibitOverlap"),
    ours("TimeZone"),
];

const PARAMETERIZED: &[Field] = &[
    ours_z("Payload", Str),
    ours("MetaRequired"),
    ours("MetaOptional"),
];

const LIFECYCLE: &[Field] = &[ours_z("Hook", Str), ours_z("Sidecar", Bool)];

const DISPATCH_PAYLOAD: &[Field] = &[ours_z("File", Str)];

const ARTIFACT: &[Field] = &[
    ours("GetterSource"),
    ours("GetterOptions"),
    ours("GetterHeaders"),
    ours("GetterMode"),
    ours("GetterInsecure"),
    ours("RelativeDest"),
    ours_z("Chown", Bool),
];

const TEMPLATE: &[Field] = &[
    ours("SourcePath"),
    ours("DestPath"),
    ours("EmbeddedTmpl"),
    ours("ChangeMode"),
    f("ChangeScript", Object(CHANGE_SCRIPT)),
    ours("ChangeSignal"),
    ours("Once"),
    ours("Splay"),
    ours("Perms"),
    ours("Uid"),
    ours("Gid"),
    ours("LeftDelim"),
    ours("RightDelim"),
    ours("Envvars"),
    ours("VaultGrace"),
    f("Wait", Object(WAIT)),
    ours("ErrMissingKey"),
];

const CHANGE_SCRIPT: &[Field] = &[
    ours("Command"),
    ours("Args"),
    ours("Timeout"),
    ours("FailOnError"),
    ours("RunOnFirstRender"),
];

const WAIT: &[Field] = &[ours("Min"), ours("Max")];

const VOLUME_MOUNT: &[Field] = &[
    ours("Volume"),
    ours("Destination"),
    ours("ReadOnly"),
    ours("PropagationMode"),
    ours("SELinuxLabel"),
];

const VAULT: &[Field] = &[
    ours("Policies"),
    ours_z("Role", Str),
    ours("Namespace"),
    ours_z("Cluster", Str),
    ours("Env"),
    ours("DisableFile"),
    ours("ChangeMode"),
    ours("ChangeSignal"),
    ours("AllowTokenExpiration"),
];
