//! Nomad's api Canonicalize defaults for the blocks the job structs carry as JSON
//! (affinity, spread, periodic, template, artifact, volume_mount, disconnect, and the
//! integration blocks of `job_blocks`). Each value is
//! read back as its typed api struct, completed, and stored again; a value that is not the
//! expected shape (e.g. hand-written JSON) is left as it is for validation to judge.

use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::Value;

use crate::api::{
    Affinity, Consul, DisconnectStrategy, Job, JobUiConfig, Multiregion, PeriodicConfig,
    RequestedDevice, ScalingPolicy, Secret, Spread, TaskArtifact, TaskCsiPluginConfig, TaskGroup,
    Template, Vault, VolumeMount, WorkloadIdentity, SCALING_POLICY_TYPE_HORIZONTAL, SECOND,
};

use super::blocks::to_json;

/// Nomad's default affinity and spread weight.
pub const DEFAULT_WEIGHT: i8 = 50;

/// Applies `f` to the typed form of `slot`, if it holds one.
fn with_typed<T: DeserializeOwned + Serialize>(slot: &mut Option<Value>, f: impl FnOnce(&mut T)) {
    let Some(v) = slot.as_ref() else { return };
    let Ok(mut typed) = serde_json::from_value::<T>(v.clone()) else {
        return;
    };
    f(&mut typed);
    if let Some(v) = to_json(&typed) {
        *slot = Some(v);
    }
}

fn each<T: DeserializeOwned + Serialize>(slot: &mut Option<Value>, mut f: impl FnMut(&mut T)) {
    with_typed::<Vec<T>>(slot, |list| list.iter_mut().for_each(&mut f));
}

fn affinity(a: &mut Affinity) {
    a.weight.get_or_insert(DEFAULT_WEIGHT);
}

fn spread(s: &mut Spread) {
    s.weight.get_or_insert(DEFAULT_WEIGHT);
}

fn periodic(p: &mut PeriodicConfig) {
    p.enabled.get_or_insert(true);
    p.spec.get_or_insert_with(String::new);
    p.specs.get_or_insert_with(Vec::new);
    p.spec_type.get_or_insert_with(|| "cron".to_string());
    p.prohibit_overlap.get_or_insert(false);
    if p.time_zone.as_deref().is_none_or(str::is_empty) {
        p.time_zone = Some("UTC".to_string());
    }
}

fn template(t: &mut Template) {
    t.source_path.get_or_insert_with(String::new);
    t.dest_path.get_or_insert_with(String::new);
    t.embedded_tmpl.get_or_insert_with(String::new);
    let mode = t.change_mode.get_or_insert_with(|| "restart".to_string());
    t.change_signal = Some(match t.change_signal.take() {
        Some(sig) => sig.to_uppercase(),
        None if mode == "signal" => "SIGHUP".to_string(),
        None => String::new(),
    });
    if let Some(cs) = &mut t.change_script {
        cs.command.get_or_insert_with(String::new);
        cs.args.get_or_insert_with(Vec::new);
        cs.timeout.get_or_insert(5 * SECOND);
        cs.fail_on_error.get_or_insert(false);
        cs.run_on_first_render.get_or_insert(false);
    }
    t.once.get_or_insert(false);
    t.splay.get_or_insert(5 * SECOND);
    t.perms.get_or_insert_with(|| "0644".to_string());
    t.left_delim.get_or_insert_with(|| "{{".to_string());
    t.right_delim.get_or_insert_with(|| "}}".to_string());
    t.envvars.get_or_insert(false);
    t.err_missing_key.get_or_insert(false);
    t.vault_grace.get_or_insert(0);
}

fn artifact(a: &mut TaskArtifact) {
    let mode = a
        .getter_mode
        .get_or_insert_with(|| "any".to_string())
        .clone();
    a.getter_insecure.get_or_insert(false);
    let source = a.getter_source.get_or_insert_with(String::new).clone();
    if a.getter_options.as_ref().is_some_and(|m| m.is_empty()) {
        a.getter_options = None;
    }
    if a.getter_headers.as_ref().is_some_and(|m| m.is_empty()) {
        a.getter_headers = None;
    }
    if a.relative_dest.is_none() {
        // A single file lands under local/ by its own name; anything else unpacks into local/.
        a.relative_dest = Some(if mode == "file" {
            // filepath.Join cleans "local/." and "local//" down to "local".
            match path_base(&source) {
                "." | "/" => "local".to_string(),
                base => format!("local/{base}"),
            }
        } else {
            "local/".to_string()
        });
    }
}

/// Go's path.Base: the last element after trailing slashes are removed ("." for "",
/// "/" for all slashes).
fn path_base(p: &str) -> &str {
    if p.is_empty() {
        return ".";
    }
    let trimmed = p.trim_end_matches('/');
    if trimmed.is_empty() {
        return "/";
    }
    trimmed.rsplit('/').next().unwrap_or(trimmed)
}

fn volume_mount(m: &mut VolumeMount) {
    m.propagation_mode
        .get_or_insert_with(|| "private".to_string());
    m.read_only.get_or_insert(false);
    m.selinux_label.get_or_insert_with(String::new);
}

/// api and structs Canonicalize; the stored `LostAfter` is a plain duration (0 when unset)
/// and an empty reconcile counts as unset.
fn disconnect(d: &mut DisconnectStrategy) {
    d.lost_after.get_or_insert(0);
    d.replace.get_or_insert(true);
    if d.reconcile.as_deref().is_none_or(str::is_empty) {
        d.reconcile = Some("best_score".to_string());
    }
}

fn vault(v: &mut Vault) {
    v.env.get_or_insert(true);
    v.disable_file.get_or_insert(false);
    v.namespace.get_or_insert_with(String::new);
    if v.cluster.is_empty() {
        v.cluster = "default".to_string();
    }
    v.change_mode.get_or_insert_with(|| "restart".to_string());
    v.change_signal.get_or_insert_with(|| "SIGHUP".to_string());
    v.allow_token_expiration.get_or_insert(false);
}

/// The namespace is left alone: unset means "inherit", set-but-empty means Consul's default.
fn consul(c: &mut Consul) {
    if c.cluster.is_empty() {
        c.cluster = "default".to_string();
    }
}

fn csi_plugin(p: &mut TaskCsiPluginConfig) {
    if p.mount_dir.is_empty() {
        p.mount_dir = "/csi".to_string();
    }
    if p.stage_publish_base_dir.is_empty() {
        p.stage_publish_base_dir = "/local/csi".to_string();
    }
    if p.health_timeout == 0 {
        p.health_timeout = 30 * SECOND;
    }
}

/// api ScalingPolicy.Canonicalize: enabled, the group's count as the minimum, horizontal.
fn scaling(p: &mut ScalingPolicy, count: i64) {
    p.enabled.get_or_insert(true);
    p.min.get_or_insert(count);
    if p.r#type.is_empty() {
        p.r#type = SCALING_POLICY_TYPE_HORIZONTAL.to_string();
    }
}

fn multiregion(m: &mut Multiregion) {
    let s = m.strategy.get_or_insert_with(Default::default);
    s.max_parallel.get_or_insert(0);
    s.on_failure.get_or_insert_with(String::new);
    for r in m.regions.get_or_insert_with(Vec::new) {
        r.count.get_or_insert(1);
        r.datacenters.get_or_insert_with(Vec::new);
        r.meta.get_or_insert_with(Default::default);
    }
}

fn ui(u: &mut JobUiConfig) {
    if u.links.as_ref().is_some_and(Vec::is_empty) {
        u.links = None;
    }
}

fn secret(s: &mut Secret) {
    if s.config.as_ref().is_some_and(|m| m.is_empty()) {
        s.config = None;
    }
    if s.env.as_ref().is_some_and(|m| m.is_empty()) {
        s.env = None;
    }
}

/// Nomad's audience for the default identity, which is only valid for Nomad itself.
pub const IDENTITY_DEFAULT_AUD: &str = "nomadproject.io";

/// structs WorkloadIdentity.Canonicalize, run by the server on register.
fn identity(w: &mut WorkloadIdentity) {
    if w.name.is_empty() {
        w.name = "default".to_string();
    }
    if w.name == "default" {
        w.audience = Some(vec![IDENTITY_DEFAULT_AUD.to_string()]);
    }
    w.change_signal = w.change_signal.to_uppercase();
}

/// api RequestedDevice.Canonicalize: one device unless told otherwise.
fn device(d: &mut RequestedDevice) {
    d.count.get_or_insert(1);
    d.affinities.iter_mut().flatten().for_each(affinity);
}

/// The api Canonicalize defaults of the job's own typed blocks (groups: `canonicalize_group_blocks`).
pub fn canonicalize_job_blocks(job: &mut Job) {
    each(&mut job.affinities, affinity);
    each(&mut job.spreads, spread);
    with_typed(&mut job.periodic, periodic);
    with_typed(&mut job.multiregion, multiregion);
    with_typed(&mut job.ui, ui);
}

/// The typed blocks of one group and its tasks.
pub fn canonicalize_group_blocks(tg: &mut TaskGroup) {
    let count = i64::from(tg.count);
    with_typed(&mut tg.scaling, |p| scaling(p, count));
    with_typed(&mut tg.consul, consul);
    each(&mut tg.affinities, affinity);
    each(&mut tg.spreads, spread);
    with_typed(&mut tg.disconnect, disconnect);
    for t in &mut tg.tasks {
        each(&mut t.affinities, affinity);
        each(&mut t.templates, template);
        each(&mut t.artifacts, artifact);
        each(&mut t.volume_mounts, volume_mount);
        if let Some(r) = &mut t.resources {
            each(&mut r.devices, device);
        }
        with_typed(&mut t.vault, vault);
        with_typed(&mut t.consul, consul);
        with_typed(&mut t.csi_plugin_config, csi_plugin);
        each(&mut t.secrets, secret);
        with_typed(&mut t.identity, identity);
        each(&mut t.identities, identity);
    }
}
