//! The integration blocks: vault, consul, identity, csi_plugin, scaling, multiregion, ui,
//! action, schedule and secret, decoded as jobspec2 does into their typed api structs and
//! stored as those structs' JSON (the job structs keep these blocks as JSON).

use hcl_edit::structure::Block;
use hcl_edit::Span;
use serde_json::Value;

use crate::api::{
    Action, Consul, JobUiConfig, JobUiLink, Multiregion, MultiregionRegion, MultiregionStrategy,
    ScalingPolicy, Secret, Task, TaskCsiPluginConfig, TaskSchedule, TaskScheduleCron, Vault,
    WorkloadIdentity, SCALING_POLICY_TYPE_HORIZONTAL, SCALING_POLICY_TYPE_VERTICAL_CPU,
    SCALING_POLICY_TYPE_VERTICAL_MEM,
};

use super::blocks::{json_list, required, to_json};
use super::body::{block_def_span, Content, Decoder};
use super::schema_blocks::*;

/// A `vault` block with jobspec2's normalizeVault defaults (env, disable_file, change_mode).
pub fn vault(dec: &mut Decoder, b: &Block) -> Vault {
    let c = dec.content(&b.body, &VAULT_SCHEMA);
    Vault {
        policies: dec.string_list(c.attr("policies")),
        role: dec.string(c.attr("role")).unwrap_or_default(),
        namespace: dec.string(c.attr("namespace")),
        cluster: dec.string(c.attr("cluster")).unwrap_or_default(),
        env: Some(dec.bool(c.attr("env")).unwrap_or(true)),
        disable_file: Some(dec.bool(c.attr("disable_file")).unwrap_or(false)),
        change_mode: Some(
            dec.string(c.attr("change_mode"))
                .unwrap_or_else(|| "restart".to_string()),
        ),
        change_signal: dec.string(c.attr("change_signal")),
        allow_token_expiration: dec.bool(c.attr("allow_token_expiration")),
    }
}

pub fn consul(dec: &mut Decoder, b: &Block) -> Option<Value> {
    let c = dec.content(&b.body, &CONSUL_SCHEMA);
    to_json(&Consul {
        namespace: dec.string(c.attr("namespace")).unwrap_or_default(),
        cluster: dec.string(c.attr("cluster")).unwrap_or_default(),
        partition: dec.string(c.attr("partition")).unwrap_or_default(),
    })
}

pub(super) fn identity(dec: &mut Decoder, b: &Block) -> WorkloadIdentity {
    let c = dec.content(&b.body, &IDENTITY_SCHEMA);
    WorkloadIdentity {
        name: dec.string(c.attr("name")).unwrap_or_default(),
        audience: dec.string_list(c.attr("aud")),
        change_mode: dec.string(c.attr("change_mode")).unwrap_or_default(),
        change_signal: dec.string(c.attr("change_signal")).unwrap_or_default(),
        env: dec.bool(c.attr("env")).unwrap_or(false),
        file: dec.bool(c.attr("file")).unwrap_or(false),
        filepath: dec.string(c.attr("filepath")).unwrap_or_default(),
        service_name: dec.string(c.attr("service_name")).unwrap_or_default(),
        ttl: dec.duration(c.attr("ttl")).unwrap_or(0),
        extra_claims: dec.string_list(c.attr("extra_claims")),
    }
}

/// A task's `identity` blocks. As jobspec2's normalizeJob does for pre-1.7 agents, the first
/// one named "" or "default" becomes `Identity` and leaves the `Identities` list.
pub fn identities(dec: &mut Decoder, c: &Content, task: &mut Task) {
    let mut list: Vec<WorkloadIdentity> = c
        .blocks("identity")
        .into_iter()
        .map(|b| identity(dec, b))
        .collect();
    if let Some(i) = list
        .iter()
        .position(|w| w.name.is_empty() || w.name == "default")
    {
        let default = list.remove(i);
        task.identity = to_json(&default);
    }
    task.identities = json_list(list);
}

pub fn csi_plugin(dec: &mut Decoder, b: &Block) -> Option<Value> {
    let c = dec.content(&b.body, &CSI_PLUGIN_SCHEMA);
    to_json(&TaskCsiPluginConfig {
        id: dec.string(c.attr("id")).unwrap_or_default(),
        r#type: dec.string(c.attr("type")).unwrap_or_default(),
        mount_dir: dec.string(c.attr("mount_dir")).unwrap_or_default(),
        stage_publish_base_dir: dec
            .string(c.attr("stage_publish_base_dir"))
            .unwrap_or_default(),
        health_timeout: dec.duration(c.attr("health_timeout")).unwrap_or(0),
    })
}

fn scaling_policy(dec: &mut Decoder, c: &Content) -> ScalingPolicy {
    let policy = dec
        .single(c, "policy")
        .and_then(|pb| dec.free_form_block(pb));
    ScalingPolicy {
        min: dec.int(c.attr("min")),
        max: dec.int(c.attr("max")),
        enabled: dec.bool(c.attr("enabled")),
        r#type: dec.string(c.attr("type")).unwrap_or_default(),
        policy,
        ..ScalingPolicy::default()
    }
}

/// A group's `scaling` block: `max` is required and the type, defaulting to "horizontal",
/// may only be that (jobspec2's validateGroupScalingPolicy).
pub fn group_scaling(dec: &mut Decoder, b: &Block) -> ScalingPolicy {
    let c = dec.content(&b.body, &SCALING_SCHEMA);
    let mut p = scaling_policy(dec, &c);
    if p.r#type.is_empty() {
        p.r#type = SCALING_POLICY_TYPE_HORIZONTAL.to_string();
    }
    required(dec, b, &c, "max");
    if p.r#type != SCALING_POLICY_TYPE_HORIZONTAL {
        if let Some(attr) = c.attr("type") {
            dec.push(
                "Invalid group scaling type",
                format!("task group scaling policy had invalid type: {:?}", p.r#type),
                attr.value.span(),
            );
        }
    }
    p
}

/// A task's `scaling "cpu"`/`scaling "mem"` blocks (jobspec2's decodeTaskScalingPolicies).
pub fn task_scaling(dec: &mut Decoder, c: &Content) -> Option<Value> {
    let mut seen: Vec<(String, &Block)> = Vec::new();
    let mut out = Vec::new();
    for b in c.blocks("scaling") {
        let label = Decoder::label(b).to_lowercase();
        let policy_type = match label.as_str() {
            "cpu" => SCALING_POLICY_TYPE_VERTICAL_CPU,
            "mem" => SCALING_POLICY_TYPE_VERTICAL_MEM,
            _ => {
                dec.push(
                    "Invalid scaling policy name",
                    "scaling policy name must be \"cpu\" or \"mem\"".to_string(),
                    b.labels.first().and_then(|l| l.span()),
                );
                continue;
            }
        };
        if let Some((_, prev)) = seen.iter().find(|(l, _)| *l == label) {
            let at = block_def_span(prev)
                .map(|s| dec.ctx.map.range(&s).to_string())
                .unwrap_or_default();
            dec.push(
                &format!("Duplicate scaling {label:?} block"),
                format!("Only one scaling {label} block is allowed. Another was defined at {at}."),
                block_def_span(b),
            );
            continue;
        }
        seen.push((label, b));
        let bc = dec.content(&b.body, &SCALING_SCHEMA);
        let mut p = scaling_policy(dec, &bc);
        if p.r#type.is_empty() {
            p.r#type = policy_type.to_string();
        } else if p.r#type != policy_type {
            // jobspec2's message names the two types in this order.
            dec.push(
                "Invalid scaling policy type",
                format!(
                    "Invalid policy type, expected {:?} but found {:?}",
                    p.r#type, policy_type
                ),
                block_def_span(b),
            );
            continue;
        }
        out.push(p);
    }
    json_list(out)
}

pub fn multiregion(dec: &mut Decoder, b: &Block) -> Option<Value> {
    let c = dec.content(&b.body, &MULTIREGION_SCHEMA);
    let strategy = dec.single(&c, "strategy").map(|sb| {
        let sc = dec.content(&sb.body, &MULTIREGION_STRATEGY_SCHEMA);
        MultiregionStrategy {
            max_parallel: dec.int(sc.attr("max_parallel")),
            on_failure: dec.string(sc.attr("on_failure")),
        }
    });
    let regions: Vec<MultiregionRegion> = c
        .blocks("region")
        .into_iter()
        .map(|rb| {
            let rc = dec.content(&rb.body, &MULTIREGION_REGION_SCHEMA);
            MultiregionRegion {
                name: Decoder::label(rb),
                count: dec.int(rc.attr("count")),
                datacenters: dec.string_list(rc.attr("datacenters")),
                node_pool: dec.string(rc.attr("node_pool")).unwrap_or_default(),
                meta: dec.string_map(&rc, "meta"),
            }
        })
        .collect();
    to_json(&Multiregion {
        strategy,
        regions: (!regions.is_empty()).then_some(regions),
    })
}

pub fn ui(dec: &mut Decoder, b: &Block) -> Option<Value> {
    let c = dec.content(&b.body, &UI_SCHEMA);
    let links: Vec<JobUiLink> = c
        .blocks("link")
        .into_iter()
        .map(|lb| {
            let lc = dec.content(&lb.body, &UI_LINK_SCHEMA);
            JobUiLink {
                label: dec.string(lc.attr("label")).unwrap_or_default(),
                url: dec.string(lc.attr("url")).unwrap_or_default(),
            }
        })
        .collect();
    to_json(&JobUiConfig {
        description: dec.string(c.attr("description")).unwrap_or_default(),
        links: (!links.is_empty()).then_some(links),
    })
}

/// A task's `action "name"` blocks; `command` is required (its hcl tag has no "optional").
pub fn actions(dec: &mut Decoder, c: &Content) -> Option<Value> {
    let list: Vec<Action> = c
        .blocks("action")
        .into_iter()
        .map(|b| {
            let ac = dec.content(&b.body, &ACTION_SCHEMA);
            required(dec, b, &ac, "command");
            Action {
                name: Decoder::label(b),
                command: dec.string(ac.attr("command")).unwrap_or_default(),
                args: dec.string_list(ac.attr("args")),
            }
        })
        .collect();
    json_list(list)
}

pub fn schedule(dec: &mut Decoder, b: &Block) -> Option<Value> {
    let c = dec.content(&b.body, &SCHEDULE_SCHEMA);
    let cron = dec.single(&c, "cron").map(|cb| {
        let cc = dec.content(&cb.body, &SCHEDULE_CRON_SCHEMA);
        TaskScheduleCron {
            start: dec.string(cc.attr("start")).unwrap_or_default(),
            end: dec.string(cc.attr("end")).unwrap_or_default(),
            timezone: dec.string(cc.attr("timezone")).unwrap_or_default(),
        }
    });
    to_json(&TaskSchedule { cron })
}

/// `secret "name"` blocks of a job, group or task.
pub fn secrets(dec: &mut Decoder, c: &Content) -> Vec<Secret> {
    c.blocks("secret")
        .into_iter()
        .map(|b| {
            let sc = dec.content(&b.body, &SECRET_SCHEMA);
            Secret {
                name: Decoder::label(b),
                provider: dec.string(sc.attr("provider")).unwrap_or_default(),
                path: dec.string(sc.attr("path")).unwrap_or_default(),
                config: dec
                    .single(&sc, "config")
                    .and_then(|cb| dec.free_form_block(cb)),
                env: dec.string_map(&sc, "env"),
            }
        })
        .collect()
}

/// Vault and secrets given above a task: a task without its own `vault` takes the nearest
/// one, and outer secrets follow the task's own (jobspec2's decodeGroup and normalizeJob).
pub struct Inherited {
    pub vault: Option<Vault>,
    pub secrets: Vec<Secret>,
}

impl Inherited {
    /// This level's blocks layered over `outer`'s: an inner vault wins, secrets accumulate
    /// innermost first.
    pub fn nest(outer: &Inherited, vault: Option<Vault>, mut secrets: Vec<Secret>) -> Inherited {
        secrets.extend(outer.secrets.iter().cloned());
        Inherited {
            vault: vault.or_else(|| outer.vault.clone()),
            secrets,
        }
    }

    /// Fills a decoded task's vault and secrets from the levels above it.
    pub fn apply(&self, task: &mut Task, own_vault: Option<Vault>, mut own: Vec<Secret>) {
        let vault = own_vault.or_else(|| self.vault.clone());
        task.vault = vault.as_ref().and_then(to_json);
        own.extend(self.secrets.iter().cloned());
        task.secrets = json_list(own);
    }
}
