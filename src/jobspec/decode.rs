//! The jobspec schema: `job` > `group` > `task` and the blocks inside them, decoded into
//! `api::Job` the way Nomad's jobspec2 does (`nomad job run -output`).

use std::path::Path;

use hcl_edit::structure::Block;

use crate::api::{Constraint, Job, NetworkResource, Task, TaskGroup, JOB_TYPE_SERVICE};

use super::blocks;
use super::body::{block_def_span, Content, Decoder};
use super::diag::{Diagnostic, SourceMap};
use super::dynamic;
use super::eval::EvalContext;
use super::job_blocks::{self, Inherited};
use super::paths;
use super::policies::*;
use super::presence::Presence;
use super::resources::network;
use super::schema::*;
use super::services::decode_services;
use super::variables;
use super::Variables;

/// Why a job text did not decode.
#[derive(Debug)]
pub enum DecodeError {
    /// Problems in the job file (or in the variable values), in source order.
    Diags(Vec<Diagnostic>),
    /// A `-var-file` that is not valid HCL/JSON: nothing else is looked at.
    VarFile(Diagnostic),
}

/// Parses and decodes one jobspec source text. `filename` names it in positions; the
/// filesystem functions work only with `fs_dir`, the directory relative paths start from.
pub fn decode(
    src: &str,
    filename: &str,
    vars: &Variables,
    fs_dir: Option<&Path>,
) -> Result<Job, DecodeError> {
    decode_recording(src, filename, vars, fs_dir, Presence::default()).map(|(job, _)| job)
}

/// `decode`, also returning what the file set when `presence` is recording.
pub fn decode_recording(
    src: &str,
    filename: &str,
    vars: &Variables,
    fs_dir: Option<&Path>,
    presence: Presence,
) -> Result<(Job, Presence), DecodeError> {
    let map = SourceMap::new(filename, src);
    let body = super::parallel::parse_body(src)
        .map_err(|e| DecodeError::Diags(vec![syntax_diag(&map, &e)]))?;
    let var_files = variables::parse_var_files(vars).map_err(DecodeError::VarFile)?;
    let mut ctx = EvalContext::new(&map);
    ctx.allow_fs = fs_dir.is_some();
    ctx.base_dir = fs_dir.map(Path::to_path_buf);
    let mut dec = Decoder::new(ctx);
    dec.presence = presence;
    let top = dec.content(&body, &TOP_SCHEMA);
    variables::load(&mut dec, &top, vars, &var_files);
    // Like jobspec2, stop before the job when variables are broken: the job would only
    // repeat their errors.
    if !dec.diags.is_empty() {
        return Err(DecodeError::Diags(sorted(
            paths::annotate(&body, &map, dec.diags),
            filename,
            vars,
        )));
    }
    let jobs = top.blocks("job");
    if let Some(extra) = jobs.get(1) {
        let at = block_def_span(jobs[0])
            .map(|s| map.range(&s).to_string())
            .unwrap_or_default();
        dec.push(
            "Duplicate job block",
            format!("Only one block of type \"job\" is allowed. Previous definition was at {at}."),
            block_def_span(extra),
        );
    }
    let job = match jobs.first() {
        Some(b) => {
            if dynamic::has_dynamic(b) {
                let expanded = dynamic::expand(&mut dec, b);
                dec.presence.alias(&b.body, &expanded.body);
                decode_job(&mut dec, &expanded)
            } else {
                decode_job(&mut dec, b)
            }
        }
        None => {
            dec.diags.push(Diagnostic {
                summary: "Missing job block".to_string(),
                detail: "A job block is required".to_string(),
                subject: None,
            });
            Job::default()
        }
    };
    if dec.diags.is_empty() {
        super::parallel::drop_in_background(body, src.len());
        Ok((job, dec.presence))
    } else {
        Err(DecodeError::Diags(sorted(
            paths::annotate(&body, &map, dec.diags),
            filename,
            vars,
        )))
    }
}

/// Diagnostics in source order: position-less ones (such as `-var` problems) first, then
/// each var file's, then the job file's, so a file's problems read top to bottom whatever
/// order the schema walk found them in.
fn sorted(mut diags: Vec<Diagnostic>, filename: &str, vars: &Variables) -> Vec<Diagnostic> {
    let rank = |file: &str| {
        if file == filename {
            vars.files.len() + 1
        } else {
            vars.files
                .iter()
                .position(|f| f.filename == file)
                .map_or(0, |i| i + 1)
        }
    };
    diags.sort_by_key(|d| {
        d.subject
            .as_ref()
            .map(|s| (rank(&s.filename), s.start.line, s.start.column))
            .unwrap_or((0, 0, 0))
    });
    diags
}

pub(super) fn syntax_diag(map: &SourceMap, e: &hcl_edit::parser::Error) -> Diagnostic {
    let offset = e.location().offset();
    let rest = map.src().get(offset..).unwrap_or("");
    // hcl-edit rejects a repeated argument while parsing; report it the way hcl does.
    if e.message().contains("redefined attribute") {
        let key_len = rest
            .find(|c: char| !(c.is_alphanumeric() || c == '_' || c == '-'))
            .unwrap_or(rest.len());
        let key = &rest[..key_len];
        let before = map.src().get(..offset).unwrap_or("");
        let prev = find_attribute_key(before, key)
            .map(|p| format!(" at {}", map.range(&(p..p + key.len()))))
            .unwrap_or_default();
        return map.diag(
            "Attribute redefined",
            format!(
                "The argument \"{key}\" was already set{prev}. Each argument may be set only once."
            ),
            Some(offset..offset + key_len),
        );
    }
    if let Some(d) = super::syntax_hints::diagnose(map, offset, &e.message().to_lowercase()) {
        return d;
    }
    let end = rest
        .chars()
        .next()
        .map(|c| offset + c.len_utf8())
        .unwrap_or(offset);
    // hcl-edit says "invalid expression; expected ..."; shape it as hcl's "Summary; Detail.".
    let msg = e.message();
    let (summary, detail) = match msg.split_once("; ") {
        Some((s, d)) => (capitalize(s), format!("{}.", capitalize(d))),
        None => ("Invalid HCL syntax".to_string(), capitalize(msg)),
    };
    map.diag(summary, detail, Some(offset..end))
}

fn capitalize(s: &str) -> String {
    let mut chars = s.chars();
    match chars.next() {
        Some(c) => c.to_uppercase().chain(chars).collect(),
        None => String::new(),
    }
}

/// The offset of the last `key =` at the start of a line in `src`.
fn find_attribute_key(src: &str, key: &str) -> Option<usize> {
    let mut found = None;
    let mut line_start = 0;
    for line in src.split_inclusive('\n') {
        let trimmed = line.trim_start();
        let indent = line.len() - trimmed.len();
        if let Some(rest) = trimmed.strip_prefix(key) {
            if rest.trim_start().starts_with('=') && !rest.trim_start().starts_with("==") {
                found = Some(line_start + indent);
            }
        }
        line_start += line.len();
    }
    found
}

/// Job-level policy blocks, merged into every group (Nomad copies them down in canonicalize).
struct JobPolicies {
    job_type: String,
    update: Option<PartialUpdate>,
    reschedule: Option<PartialReschedule>,
    migrate: Option<PartialMigrate>,
    /// The job's `vault` and `secret` blocks, which its tasks inherit.
    inherited: Inherited,
}

fn decode_job(dec: &mut Decoder, b: &Block) -> Job {
    let c = dec.content(&b.body, &JOB_SCHEMA);
    let label = Decoder::label(b);
    let mut job = Job {
        id: dec.string(c.attr("id")).unwrap_or_else(|| label.clone()),
        name: dec.string(c.attr("name")).unwrap_or(label),
        region: dec.string(c.attr("region")).unwrap_or_default(),
        namespace: dec.string(c.attr("namespace")).unwrap_or_default(),
        r#type: dec.string(c.attr("type")).unwrap_or_default(),
        priority: dec.int32(c.attr("priority")).unwrap_or(0),
        all_at_once: dec.bool(c.attr("all_at_once")).unwrap_or(false),
        datacenters: dec.string_list(c.attr("datacenters")),
        node_pool: dec.string(c.attr("node_pool")).unwrap_or_default(),
        meta: dec.string_map(&c, "meta"),
        constraints: constraints(dec, &c),
        affinities: blocks::affinities(dec, &c),
        spreads: blocks::spreads(dec, &c),
        periodic: dec
            .single(&c, "periodic")
            .and_then(|b| blocks::periodic(dec, b)),
        parameterized_job: dec
            .single(&c, "parameterized")
            .and_then(|b| blocks::parameterized(dec, b)),
        multiregion: dec
            .single(&c, "multiregion")
            .and_then(|b| job_blocks::multiregion(dec, b)),
        ui: dec.single(&c, "ui").and_then(|b| job_blocks::ui(dec, b)),
        ..Job::default()
    };
    let inherited = Inherited {
        vault: dec.single(&c, "vault").map(|b| job_blocks::vault(dec, b)),
        secrets: job_blocks::secrets(dec, &c),
    };
    let policies = JobPolicies {
        job_type: if job.r#type.is_empty() {
            JOB_TYPE_SERVICE.to_string()
        } else {
            job.r#type.clone()
        },
        update: dec.single(&c, "update").map(|b| update(dec, b)),
        reschedule: dec.single(&c, "reschedule").map(|b| reschedule(dec, b)),
        migrate: dec.single(&c, "migrate").map(|b| migrate(dec, b)),
        inherited,
    };
    keep_job_policies(dec, &c, &policies);
    job.update = policies.update.as_ref().map(|p| {
        let mut u = default_update();
        p.apply(&mut u);
        u
    });
    // A task directly inside the job is a group of its own, listed first (jobspec2's
    // normalizeJob).
    for t in c.blocks("task") {
        let task = decode_task(dec, t, None, &policies.job_type, &policies.inherited);
        let mut tg = finish_group(
            TaskGroup {
                name: task.name.clone(),
                count: 1,
                ..TaskGroup::default()
            },
            &policies,
        );
        tg.tasks.push(task);
        job.task_groups.push(tg);
    }
    let groups = c.blocks("group");
    job.task_groups
        .extend(decode_groups(dec, &groups, &policies));
    job
}

/// The groups in order. A group's decode reads only the job-level context, so a large job's
/// second half is decoded on another thread with a fork of the decoder; its diagnostics
/// follow the first half's, as they would in one pass (they are sorted by position later).
fn decode_groups(dec: &mut Decoder, groups: &[&Block], jp: &JobPolicies) -> Vec<TaskGroup> {
    if groups.len() < super::parallel::MIN_PARALLEL_GROUPS || dec.presence.is_recording() {
        return groups.iter().map(|g| decode_group(dec, g, jp)).collect();
    }
    let (first, second) = groups.split_at(groups.len() / 2);
    let mut other = dec.fork();
    let (mut out, rest) = std::thread::scope(|scope| {
        let handle = scope.spawn(move || {
            let tgs: Vec<TaskGroup> = second
                .iter()
                .map(|g| decode_group(&mut other, g, jp))
                .collect();
            (tgs, other.diags)
        });
        let out: Vec<TaskGroup> = first.iter().map(|g| decode_group(dec, g, jp)).collect();
        (out, handle.join())
    });
    let (tgs, diags) = rest.unwrap_or_else(|panic| std::panic::resume_unwind(panic));
    out.extend(tgs);
    dec.diags.extend(diags);
    out
}

/// The job-level reschedule/migrate blocks as decoded: `api::Job` has them only merged
/// into its groups, but Nomad's api Job prints them on the job.
fn keep_job_policies(dec: &mut Decoder, c: &Content, jp: &JobPolicies) {
    if let (Some(b), Some(p)) = (c.blocks("reschedule").first(), &jp.reschedule) {
        let mut r = default_reschedule(&jp.job_type);
        p.apply(&mut r);
        dec.presence.keep_value(&b.body, blocks::to_json(&r));
    }
    if let (Some(b), Some(p)) = (c.blocks("migrate").first(), &jp.migrate) {
        let mut m = default_migrate();
        p.apply(&mut m);
        dec.presence.keep_value(&b.body, blocks::to_json(&m));
    }
}

/// Job-level reschedule/migrate blocks for a group that has none of its own.
fn finish_group(mut tg: TaskGroup, jp: &JobPolicies) -> TaskGroup {
    tg.reschedule_policy = jp.reschedule.as_ref().map(|p| {
        let mut r = default_reschedule(&jp.job_type);
        p.apply(&mut r);
        r
    });
    tg.migrate = jp.migrate.as_ref().map(|p| {
        let mut m = default_migrate();
        p.apply(&mut m);
        m
    });
    tg
}

fn decode_group(dec: &mut Decoder, b: &Block, jp: &JobPolicies) -> TaskGroup {
    let c = dec.content(&b.body, &GROUP_SCHEMA);
    let restart = dec.single(&c, "restart").map(|b| restart(dec, b));
    let restart_policy = restart.as_ref().map(|p| {
        let mut r = default_restart(&jp.job_type);
        p.apply(&mut r);
        r
    });
    let group_resched = dec.single(&c, "reschedule").map(|b| reschedule(dec, b));
    let reschedule_policy = if jp.reschedule.is_some() || group_resched.is_some() {
        let mut r = default_reschedule(&jp.job_type);
        for p in [&jp.reschedule, &group_resched].into_iter().flatten() {
            p.apply(&mut r);
        }
        Some(r)
    } else {
        None
    };
    let group_migrate = dec.single(&c, "migrate").map(|b| migrate(dec, b));
    let migrate = if jp.migrate.is_some() || group_migrate.is_some() {
        let mut m = default_migrate();
        for p in [&jp.migrate, &group_migrate].into_iter().flatten() {
            p.apply(&mut m);
        }
        Some(m)
    } else {
        None
    };
    let update = dec.single(&c, "update").map(|b| {
        let group_update = update(dec, b);
        let mut u = default_update();
        if let Some(p) = &jp.update {
            p.apply(&mut u);
        }
        group_update.apply(&mut u);
        u
    });
    let ephemeral_disk = dec
        .single(&c, "ephemeral_disk")
        .map(|b| disk(dec, b).finish());
    let networks: Vec<NetworkResource> = c
        .blocks("network")
        .into_iter()
        .map(|n| network(dec, n))
        .collect();
    let group_vault = dec.single(&c, "vault").map(|b| job_blocks::vault(dec, b));
    let group_secrets = job_blocks::secrets(dec, &c);
    let inherited = Inherited::nest(&jp.inherited, group_vault, group_secrets);
    let tasks = c
        .blocks("task")
        .into_iter()
        .map(|t| decode_task(dec, t, restart_policy.as_ref(), &jp.job_type, &inherited))
        .collect();
    let scaling = dec
        .single(&c, "scaling")
        .map(|b| job_blocks::group_scaling(dec, b));
    // api TaskGroup.Canonicalize: a missing count is the scaling minimum, else 1. `0` is a
    // real value here, so the default is applied while "missing" is still visible.
    let count = dec
        .int32(c.attr("count"))
        .or_else(|| {
            scaling
                .as_ref()
                .and_then(|s| s.min)
                .and_then(|m| i32::try_from(m).ok())
        })
        .unwrap_or(1);
    TaskGroup {
        name: Decoder::label(b),
        count,
        scaling: scaling.as_ref().and_then(blocks::to_json),
        consul: dec
            .single(&c, "consul")
            .and_then(|b| job_blocks::consul(dec, b)),
        constraints: constraints(dec, &c),
        meta: dec.string_map(&c, "meta"),
        shutdown_delay: dec.duration(c.attr("shutdown_delay")),
        max_run_duration: dec.duration(c.attr("max_run_duration")),
        stop_after_client_disconnect: dec.duration(c.attr("stop_after_client_disconnect")),
        max_client_disconnect: dec.duration(c.attr("max_client_disconnect")),
        prevent_reschedule_on_lost: dec
            .bool(c.attr("prevent_reschedule_on_lost"))
            .unwrap_or(false),
        restart_policy,
        reschedule_policy,
        migrate,
        update,
        ephemeral_disk,
        networks: (!networks.is_empty()).then_some(networks),
        services: decode_services(dec, c.blocks("service")),
        affinities: blocks::affinities(dec, &c),
        spreads: blocks::spreads(dec, &c),
        volumes: blocks::volumes(dec, &c),
        disconnect: dec
            .single(&c, "disconnect")
            .and_then(|b| blocks::disconnect(dec, b)),
        tasks,
    }
}

fn decode_task(
    dec: &mut Decoder,
    b: &Block,
    group_restart: Option<&crate::api::RestartPolicy>,
    job_type: &str,
    inherited: &Inherited,
) -> Task {
    let c = dec.content(&b.body, &TASK_SCHEMA);
    let restart_policy = dec.single(&c, "restart").map(|rb| {
        let p = restart(dec, rb);
        let mut r = group_restart
            .cloned()
            .unwrap_or_else(|| default_restart(job_type));
        p.apply(&mut r);
        r
    });
    let config = dec
        .single(&c, "config")
        .and_then(|cb| dec.free_form_block(cb));
    let resources = dec.single(&c, "resources").map(|rb| resources(dec, rb));
    let log_config = dec.single(&c, "logs").map(|lb| logs(dec, lb).finish());
    let own_vault = dec.single(&c, "vault").map(|vb| job_blocks::vault(dec, vb));
    let own_secrets = job_blocks::secrets(dec, &c);
    let mut task = Task {
        name: Decoder::label(b),
        driver: dec.string(c.attr("driver")).unwrap_or_default(),
        kind: dec.string(c.attr("kind")).unwrap_or_default(),
        user: dec.string(c.attr("user")).unwrap_or_default(),
        config,
        env: dec.string_map(&c, "env"),
        meta: dec.string_map(&c, "meta"),
        constraints: constraints(dec, &c),
        resources,
        restart_policy,
        kill_timeout: dec.duration(c.attr("kill_timeout")),
        kill_signal: dec.string(c.attr("kill_signal")).unwrap_or_default(),
        leader: dec.bool(c.attr("leader")).unwrap_or(false),
        log_config,
        shutdown_delay: dec.duration(c.attr("shutdown_delay")).unwrap_or(0),
        services: decode_services(dec, c.blocks("service")),
        affinities: blocks::affinities(dec, &c),
        lifecycle: dec
            .single(&c, "lifecycle")
            .and_then(|b| blocks::lifecycle(dec, b)),
        dispatch_payload: dec
            .single(&c, "dispatch_payload")
            .and_then(|b| blocks::dispatch_payload(dec, b)),
        templates: blocks::templates(dec, &c),
        artifacts: blocks::artifacts(dec, &c),
        volume_mounts: blocks::volume_mounts(dec, &c),
        consul: dec
            .single(&c, "consul")
            .and_then(|cb| job_blocks::consul(dec, cb)),
        csi_plugin_config: dec
            .single(&c, "csi_plugin")
            .and_then(|cb| job_blocks::csi_plugin(dec, cb)),
        scaling_policies: job_blocks::task_scaling(dec, &c),
        actions: job_blocks::actions(dec, &c),
        schedule: dec
            .single(&c, "schedule")
            .and_then(|sb| job_blocks::schedule(dec, sb)),
        ..Task::default()
    };
    job_blocks::identities(dec, &c, &mut task);
    inherited.apply(&mut task, own_vault, own_secrets);
    task
}

pub(super) fn constraints(dec: &mut Decoder, c: &Content) -> Option<Vec<Constraint>> {
    let list: Vec<Constraint> = c
        .blocks("constraint")
        .into_iter()
        .map(|b| constraint(dec, b))
        .collect();
    (!list.is_empty()).then_some(list)
}

/// jobspec2's decodeConstraint: `attribute`/`operator`/`value`, plus the shorthand arguments
/// that set the operand (and target) themselves.
/// The shorthand attributes of `constraint` and `affinity` (`version = ">= 1.0"` means
/// operator "version"): each one given sets the operator and value, a later one in `ops`
/// winning over an earlier one, in the order jobspec2 applies them for that block.
pub(super) fn apply_shorthands(
    dec: &mut Decoder,
    c: &Content,
    ops: &[&str],
    operand: &mut String,
    r_target: &mut String,
) {
    for op in ops {
        if let Some(v) = dec.string(c.attr(op)).filter(|v| !v.is_empty()) {
            *operand = op.to_string();
            *r_target = v;
        }
    }
}

fn constraint(dec: &mut Decoder, b: &Block) -> Constraint {
    let c = dec.content(&b.body, &CONSTRAINT_SCHEMA);
    let mut out = Constraint {
        l_target: dec.string(c.attr("attribute")).unwrap_or_default(),
        r_target: dec.string(c.attr("value")).unwrap_or_default(),
        operand: dec.string(c.attr("operator")).unwrap_or_default(),
    };
    apply_shorthands(
        dec,
        &c,
        &[
            "version",
            "semver",
            "regexp",
            "set_contains",
            "set_contains_all",
            "set_contains_any",
        ],
        &mut out.operand,
        &mut out.r_target,
    );
    if let Some(d) = dec.bool(c.attr("distinct_hosts")) {
        out.operand = "distinct_hosts".to_string();
        out.r_target = d.to_string();
    }
    if let Some(p) = dec
        .string(c.attr("distinct_property"))
        .filter(|v| !v.is_empty())
    {
        out.operand = "distinct_property".to_string();
        out.l_target = p;
    }
    if out.operand.is_empty() {
        out.operand = "=".to_string();
    }
    out
}

fn restart(dec: &mut Decoder, b: &Block) -> PartialRestart {
    let c = dec.content(&b.body, &RESTART_SCHEMA);
    PartialRestart {
        attempts: dec.int32(c.attr("attempts")),
        delay: dec.duration(c.attr("delay")),
        interval: dec.duration(c.attr("interval")),
        mode: dec.string(c.attr("mode")),
        render_templates: dec.bool(c.attr("render_templates")),
    }
}

fn reschedule(dec: &mut Decoder, b: &Block) -> PartialReschedule {
    let c = dec.content(&b.body, &RESCHEDULE_SCHEMA);
    PartialReschedule {
        attempts: dec.int32(c.attr("attempts")),
        interval: dec.duration(c.attr("interval")),
        delay: dec.duration(c.attr("delay")),
        delay_function: dec.string(c.attr("delay_function")),
        max_delay: dec.duration(c.attr("max_delay")),
        unlimited: dec.bool(c.attr("unlimited")),
    }
}

fn update(dec: &mut Decoder, b: &Block) -> PartialUpdate {
    let c = dec.content(&b.body, &UPDATE_SCHEMA);
    PartialUpdate {
        stagger: dec.duration(c.attr("stagger")),
        max_parallel: dec.int32(c.attr("max_parallel")),
        health_check: dec.string(c.attr("health_check")),
        min_healthy_time: dec.duration(c.attr("min_healthy_time")),
        healthy_deadline: dec.duration(c.attr("healthy_deadline")),
        progress_deadline: dec.duration(c.attr("progress_deadline")),
        canary: dec.int32(c.attr("canary")),
        auto_revert: dec.bool(c.attr("auto_revert")),
        auto_promote: dec.bool(c.attr("auto_promote")),
    }
}

fn migrate(dec: &mut Decoder, b: &Block) -> PartialMigrate {
    let c = dec.content(&b.body, &MIGRATE_SCHEMA);
    PartialMigrate {
        max_parallel: dec.int32(c.attr("max_parallel")),
        health_check: dec.string(c.attr("health_check")),
        min_healthy_time: dec.duration(c.attr("min_healthy_time")),
        healthy_deadline: dec.duration(c.attr("healthy_deadline")),
    }
}

fn disk(dec: &mut Decoder, b: &Block) -> PartialDisk {
    let c = dec.content(&b.body, &DISK_SCHEMA);
    PartialDisk {
        sticky: dec.bool(c.attr("sticky")),
        migrate: dec.bool(c.attr("migrate")),
        size_mb: dec.int(c.attr("size")),
    }
}

pub(super) fn logs(dec: &mut Decoder, b: &Block) -> PartialLogs {
    let c = dec.content(&b.body, &LOGS_SCHEMA);
    PartialLogs {
        max_files: dec.int32(c.attr("max_files")),
        max_file_size_mb: dec.int32(c.attr("max_file_size")),
        disabled: dec.bool(c.attr("disabled")),
        enabled: dec.bool(c.attr("enabled")),
    }
}

/// A task's `resources`, with its `device` blocks.
pub(super) fn resources(dec: &mut Decoder, b: &Block) -> crate::api::Resources {
    let c = dec.content(&b.body, &RESOURCES_SCHEMA);
    let devices = super::resources::devices(dec, &c);
    let mut r = PartialResources {
        cpu: dec.int(c.attr("cpu")),
        cores: dec.int(c.attr("cores")),
        memory_mb: dec.int(c.attr("memory")),
        memory_max_mb: dec.int(c.attr("memory_max")),
        disk_mb: dec.int(c.attr("disk")),
        secrets_mb: dec.int(c.attr("secrets")),
    }
    .finish();
    r.devices = devices;
    r.iops = dec.int(c.attr("iops")).unwrap_or(0);
    r.numa = dec
        .single(&c, "numa")
        .map(|nb| super::resources::numa(dec, nb));
    let networks: Vec<NetworkResource> = c
        .blocks("network")
        .into_iter()
        .map(|nb| network(dec, nb))
        .collect();
    r.networks = (!networks.is_empty()).then_some(networks);
    r
}
