//! The scheduling and task-content blocks: affinity, spread, periodic, parameterized,
//! dispatch_payload, lifecycle, template, artifact, volume, volume_mount and disconnect,
//! decoded as jobspec2 does. The api job structs keep these as JSON (other components read
//! them that way), so each is built as its typed api struct and stored as that struct's JSON.

use std::collections::BTreeMap;

use hcl_edit::structure::{Attribute, Block};
use hcl_edit::Span;
use serde::Serialize;
use serde_json::Value;

use crate::api::{
    Affinity, ChangeScript, CsiMountOptions, DisconnectStrategy, DispatchPayloadConfig,
    ParameterizedJobConfig, PeriodicConfig, Spread, SpreadTarget, TaskArtifact, TaskLifecycle,
    Template, VolumeMount, VolumeRequest, WaitConfig, SECOND,
};

use super::body::{block_def_span, Content, Decoder};
use super::eval::as_f64;
use super::schema::*;

/// The JSON of an api block struct. These structs have only string-keyed maps, so
/// serialising cannot fail; a failure would drop the block rather than panic.
pub fn to_json<T: Serialize>(v: &T) -> Option<Value> {
    serde_json::to_value(v).ok()
}

/// A list of blocks as a JSON array, or nothing when there are none (Nomad prints null).
pub(super) fn json_list<T: Serialize>(items: Vec<T>) -> Option<Value> {
    if items.is_empty() {
        return None;
    }
    to_json(&items)
}

/// hcl's diagnostic for an argument the schema requires. Like hclsyntax's MissingItemRange
/// it points at a zero-width range on the block's opening brace.
pub(super) fn required(dec: &mut Decoder, b: &Block, c: &Content, name: &str) -> bool {
    if c.attr(name).is_some() {
        return true;
    }
    let span = block_def_span(b).and_then(|def| {
        let rest = dec.ctx.map.src().get(def.end..)?;
        let brace = def.end + rest.find('{')?;
        Some(brace..brace)
    });
    dec.push(
        "Missing required argument",
        format!("The argument \"{name}\" is required, but no definition was found."),
        span,
    );
    false
}

/// An HCL number truncated to Go's int8, as jobspec2 converts `weight`: the fraction is
/// dropped (big.Float.Int64) and int8() keeps the low byte; validation judges the range.
fn weight(dec: &mut Decoder, attr: Option<&Attribute>) -> Option<i8> {
    let attr = attr?;
    let v = dec.eval(&attr.value)?;
    match as_f64(&v) {
        Some(n) if n.is_finite() => Some((n.trunc() as i64) as i8),
        _ => {
            dec.push(
                "Unsuitable value type",
                "Unsuitable value: a number is required".to_string(),
                attr.value.span(),
            );
            None
        }
    }
}

/// `affinity` blocks of a job, group or task.
pub fn affinities(dec: &mut Decoder, c: &Content) -> Option<Value> {
    let list: Vec<Affinity> = c
        .blocks("affinity")
        .into_iter()
        .map(|b| affinity(dec, b))
        .collect();
    json_list(list)
}

/// jobspec2's decodeAffinity: `attribute`/`operator`/`value`/`weight` plus the shorthand
/// operators, which set the operand and value themselves.
pub(super) fn affinity(dec: &mut Decoder, b: &Block) -> Affinity {
    let c = dec.content(&b.body, &AFFINITY_SCHEMA);
    let mut out = Affinity {
        l_target: dec.string(c.attr("attribute")).unwrap_or_default(),
        r_target: dec.string(c.attr("value")).unwrap_or_default(),
        operand: dec.string(c.attr("operator")).unwrap_or_default(),
        weight: weight(dec, c.attr("weight")),
    };
    // In jobspec2's order: a later shorthand wins over an earlier one.
    super::decode::apply_shorthands(
        dec,
        &c,
        &[
            "version",
            "semver",
            "regexp",
            "set_contains_any",
            "set_contains_all",
            "set_contains",
        ],
        &mut out.operand,
        &mut out.r_target,
    );
    if out.operand.is_empty() {
        out.operand = "=".to_string();
    }
    out
}

/// `spread` blocks of a job or group.
pub fn spreads(dec: &mut Decoder, c: &Content) -> Option<Value> {
    let list: Vec<Spread> = c
        .blocks("spread")
        .into_iter()
        .map(|b| spread(dec, b))
        .collect();
    json_list(list)
}

fn spread(dec: &mut Decoder, b: &Block) -> Spread {
    let c = dec.content(&b.body, &SPREAD_SCHEMA);
    let targets: Vec<SpreadTarget> = c
        .blocks("target")
        .into_iter()
        .map(|t| {
            let tc = dec.content(&t.body, &SPREAD_TARGET_SCHEMA);
            let percent = tc.attr("percent").and_then(|a| {
                let n = dec.int(Some(a))?;
                match u8::try_from(n) {
                    Ok(p) => Some(p),
                    Err(_) => {
                        dec.push(
                            "Unsuitable value type",
                            "Unsuitable value: value must be a whole number, between 0 and 255 inclusive".to_string(),
                            a.value.span(),
                        );
                        None
                    }
                }
            });
            SpreadTarget {
                value: Decoder::label(t),
                percent: percent.unwrap_or(0),
            }
        })
        .collect();
    Spread {
        attribute: dec.string(c.attr("attribute")).unwrap_or_default(),
        weight: weight(dec, c.attr("weight")),
        spread_target: (!targets.is_empty()).then_some(targets),
    }
}

/// The job's `periodic` block; a cron spec makes the spec type "cron" (normalizeJob).
pub fn periodic(dec: &mut Decoder, b: &Block) -> Option<Value> {
    let c = dec.content(&b.body, &PERIODIC_SCHEMA);
    let mut p = PeriodicConfig {
        enabled: dec.bool(c.attr("enabled")),
        spec: dec.string(c.attr("cron")),
        specs: dec.string_list(c.attr("crons")),
        prohibit_overlap: dec.bool(c.attr("prohibit_overlap")),
        time_zone: dec.string(c.attr("time_zone")),
        spec_type: None,
    };
    if p.spec.is_some() || p.specs.is_some() {
        p.spec_type = Some("cron".to_string());
    }
    to_json(&p)
}

pub fn parameterized(dec: &mut Decoder, b: &Block) -> Option<Value> {
    let c = dec.content(&b.body, &PARAMETERIZED_SCHEMA);
    to_json(&ParameterizedJobConfig {
        payload: dec.string(c.attr("payload")).unwrap_or_default(),
        meta_required: dec.string_list(c.attr("meta_required")),
        meta_optional: dec.string_list(c.attr("meta_optional")),
    })
}

pub fn dispatch_payload(dec: &mut Decoder, b: &Block) -> Option<Value> {
    let c = dec.content(&b.body, &DISPATCH_PAYLOAD_SCHEMA);
    to_json(&DispatchPayloadConfig {
        file: dec.string(c.attr("file")).unwrap_or_default(),
    })
}

/// `lifecycle`: `hook` is required (its api tag has no "optional").
pub fn lifecycle(dec: &mut Decoder, b: &Block) -> Option<Value> {
    let c = dec.content(&b.body, &LIFECYCLE_SCHEMA);
    required(dec, b, &c, "hook");
    to_json(&TaskLifecycle {
        hook: dec.string(c.attr("hook")).unwrap_or_default(),
        sidecar: dec.bool(c.attr("sidecar")).unwrap_or(false),
    })
}

/// A task's `template` blocks, with the defaults jobspec2's normalizeTemplates fills in.
pub fn templates(dec: &mut Decoder, c: &Content) -> Option<Value> {
    let list: Vec<Template> = c
        .blocks("template")
        .into_iter()
        .map(|b| template(dec, b))
        .collect();
    json_list(list)
}

fn template(dec: &mut Decoder, b: &Block) -> Template {
    let c = dec.content(&b.body, &TEMPLATE_SCHEMA);
    let wait = dec.single(&c, "wait").map(|wb| {
        let wc = dec.content(&wb.body, &WAIT_SCHEMA);
        // Both are required by the api's hcl tags.
        required(dec, wb, &wc, "min");
        required(dec, wb, &wc, "max");
        WaitConfig {
            min: dec.duration(wc.attr("min")),
            max: dec.duration(wc.attr("max")),
        }
    });
    Template {
        source_path: dec.string(c.attr("source")),
        dest_path: dec.string(c.attr("destination")),
        embedded_tmpl: dec.string(c.attr("data")),
        change_mode: Some(
            dec.string(c.attr("change_mode"))
                .unwrap_or_else(|| "restart".to_string()),
        ),
        change_script: dec
            .single(&c, "change_script")
            .map(|sb| change_script(dec, sb)),
        change_signal: dec.string(c.attr("change_signal")),
        once: dec.bool(c.attr("once")),
        splay: Some(dec.duration(c.attr("splay")).unwrap_or(5 * SECOND)),
        perms: Some(
            dec.string(c.attr("perms"))
                .unwrap_or_else(|| "0644".to_string()),
        ),
        uid: dec.int(c.attr("uid")),
        gid: dec.int(c.attr("gid")),
        left_delim: dec.string(c.attr("left_delimiter")),
        right_delim: dec.string(c.attr("right_delimiter")),
        envvars: dec.bool(c.attr("env")),
        vault_grace: dec.duration(c.attr("vault_grace")),
        wait,
        err_missing_key: Some(dec.bool(c.attr("error_on_missing_key")).unwrap_or(false)),
    }
}

/// A template's `change_script`, with normalizeChangeScript's defaults; `command` and
/// `fail_on_error` are required by the api's hcl tags.
fn change_script(dec: &mut Decoder, b: &Block) -> ChangeScript {
    let c = dec.content(&b.body, &CHANGE_SCRIPT_SCHEMA);
    required(dec, b, &c, "command");
    required(dec, b, &c, "fail_on_error");
    ChangeScript {
        command: dec.string(c.attr("command")),
        args: Some(dec.string_list(c.attr("args")).unwrap_or_default()),
        timeout: Some(dec.duration(c.attr("timeout")).unwrap_or(5 * SECOND)),
        fail_on_error: Some(dec.bool(c.attr("fail_on_error")).unwrap_or(false)),
        run_on_first_render: Some(dec.bool(c.attr("run_on_first_render")).unwrap_or(false)),
    }
}

/// A task's `artifact` blocks; `options`/`headers` may be blocks or map arguments.
pub fn artifacts(dec: &mut Decoder, c: &Content) -> Option<Value> {
    let list: Vec<TaskArtifact> = c
        .blocks("artifact")
        .into_iter()
        .map(|b| {
            let ac = dec.content(&b.body, &ARTIFACT_SCHEMA);
            TaskArtifact {
                getter_source: dec.string(ac.attr("source")),
                relative_dest: dec.string(ac.attr("destination")),
                getter_mode: dec.string(ac.attr("mode")),
                getter_insecure: dec.bool(ac.attr("insecure")),
                chown: dec.bool(ac.attr("chown")).unwrap_or(false),
                getter_options: dec.string_map(&ac, "options"),
                getter_headers: dec.string_map(&ac, "headers"),
            }
        })
        .collect();
    json_list(list)
}

/// A group's `volume "name"` blocks, keyed by name as Nomad's `Volumes` map is.
pub fn volumes(dec: &mut Decoder, c: &Content) -> Option<Value> {
    let mut out: BTreeMap<String, VolumeRequest> = BTreeMap::new();
    for b in c.blocks("volume") {
        let vc = dec.content(&b.body, &VOLUME_SCHEMA);
        let mount_options = dec.single(&vc, "mount_options").map(|mb| {
            let mc = dec.content(&mb.body, &MOUNT_OPTIONS_SCHEMA);
            CsiMountOptions {
                fs_type: dec.string(mc.attr("fs_type")).unwrap_or_default(),
                mount_flags: dec.string_list(mc.attr("mount_flags")),
            }
        });
        let name = Decoder::label(b);
        let v = VolumeRequest {
            name: name.clone(),
            r#type: dec.string(vc.attr("type")).unwrap_or_default(),
            source: dec.string(vc.attr("source")).unwrap_or_default(),
            read_only: dec.bool(vc.attr("read_only")).unwrap_or(false),
            sticky: dec.bool(vc.attr("sticky")).unwrap_or(false),
            access_mode: dec.string(vc.attr("access_mode")).unwrap_or_default(),
            attachment_mode: dec.string(vc.attr("attachment_mode")).unwrap_or_default(),
            per_alloc: dec.bool(vc.attr("per_alloc")).unwrap_or(false),
            mount_options,
        };
        out.insert(name, v);
    }
    if out.is_empty() {
        return None;
    }
    to_json(&out)
}

/// A task's `volume_mount` blocks.
pub fn volume_mounts(dec: &mut Decoder, c: &Content) -> Option<Value> {
    let list: Vec<VolumeMount> = c
        .blocks("volume_mount")
        .into_iter()
        .map(|b| {
            let mc = dec.content(&b.body, &VOLUME_MOUNT_SCHEMA);
            VolumeMount {
                volume: dec.string(mc.attr("volume")),
                destination: dec.string(mc.attr("destination")),
                read_only: dec.bool(mc.attr("read_only")),
                propagation_mode: dec.string(mc.attr("propagation_mode")),
                selinux_label: dec.string(mc.attr("selinux_label")),
            }
        })
        .collect();
    json_list(list)
}

/// A group's `disconnect` block.
pub fn disconnect(dec: &mut Decoder, b: &Block) -> Option<Value> {
    let c = dec.content(&b.body, &DISCONNECT_SCHEMA);
    to_json(&DisconnectStrategy {
        lost_after: dec.duration(c.attr("lost_after")),
        stop_on_client_after: dec.duration(c.attr("stop_on_client_after")),
        replace: dec.bool(c.attr("replace")),
        reconcile: dec.string(c.attr("reconcile")),
    })
}
