//! Which job changes force a destructive update (Nomad's `tasksUpdated`): anything a running
//! task cannot pick up in place. Everything else (count, update/reschedule/restart policies,
//! services without Connect, most log settings, kill timeouts...) updates in place.

use std::collections::BTreeMap;

use serde_json::Value;

use crate::api::{Job, NetworkResource, Resources, RestartPolicy};

/// The first destructive difference between the group in `a` and in `b`, by Nomad's name for
/// it, or `None` if the group can be updated in place.
pub fn tasks_updated(a: &Job, b: &Job, group: &str) -> Option<&'static str> {
    let (Some(ga), Some(gb)) = (a.lookup_task_group(group), b.lookup_task_group(group)) else {
        return Some("task group");
    };
    if ga.tasks.len() != gb.tasks.len() {
        return Some("number of tasks");
    }
    if ga.ephemeral_disk.clone().unwrap_or_default()
        != gb.ephemeral_disk.clone().unwrap_or_default()
    {
        return Some("ephemeral disk");
    }
    if let Some(why) = networks_updated(ga.networks.as_deref(), gb.networks.as_deref()) {
        return Some(why);
    }
    if ga.consul != gb.consul {
        return Some("consul");
    }
    if connect_services(ga.services.as_ref()) != connect_services(gb.services.as_ref()) {
        return Some("connect service");
    }
    if ga.volumes != gb.volumes {
        return Some("volume request");
    }
    if render_templates(ga.restart_policy.as_ref()) != render_templates(gb.restart_policy.as_ref())
    {
        return Some("group restart render_templates");
    }
    for ta in &ga.tasks {
        let Some(tb) = gb.tasks.iter().find(|t| t.name == ta.name) else {
            return Some("task deleted");
        };
        let checks: [(&'static str, bool); 12] = [
            ("task driver", ta.driver != tb.driver),
            ("task user", ta.user != tb.user),
            ("task config", ta.config != tb.config),
            ("task env", ta.env != tb.env),
            ("task artifacts", ta.artifacts != tb.artifacts),
            ("task vault", ta.vault != tb.vault),
            ("task secrets", ta.secrets != tb.secrets),
            ("consul", ta.consul != tb.consul),
            ("task templates", ta.templates != tb.templates),
            (
                "task csi config",
                ta.csi_plugin_config != tb.csi_plugin_config,
            ),
            ("task volume mount", ta.volume_mounts != tb.volume_mounts),
            (
                "task identity",
                ta.identity != tb.identity || ta.identities != tb.identities,
            ),
        ];
        if let Some((why, _)) = checks.iter().find(|(_, changed)| *changed) {
            return Some(why);
        }
        if combined_meta(a, group, &ta.name) != combined_meta(b, group, &tb.name) {
            return Some("task meta");
        }
        let ra = ta.resources.clone().unwrap_or_default();
        let rb = tb.resources.clone().unwrap_or_default();
        if let Some(why) = networks_updated(ra.networks.as_deref(), rb.networks.as_deref()) {
            return Some(why);
        }
        if let Some(why) = resources_updated(&ra, &rb) {
            return Some(why);
        }
        let log_a = ta.log_config.as_ref().map(|l| l.disabled).unwrap_or(false);
        let log_b = tb.log_config.as_ref().map(|l| l.disabled).unwrap_or(false);
        if log_a != log_b {
            return Some("task log disabled");
        }
        if render_templates(ta.restart_policy.as_ref())
            != render_templates(tb.restart_policy.as_ref())
        {
            return Some("task restart render_templates");
        }
    }
    None
}

fn render_templates(p: Option<&RestartPolicy>) -> bool {
    p.map(|p| p.render_templates).unwrap_or(false)
}

/// Only services with a Connect block are destructive to change.
fn connect_services(services: Option<&Value>) -> Vec<&Value> {
    services
        .and_then(Value::as_array)
        .map(|s| {
            s.iter()
                .filter(|svc| svc.get("Connect").is_some_and(|c| !c.is_null()))
                .collect()
        })
        .unwrap_or_default()
}

/// Job, group and task meta merged, later levels winning (Nomad's `CombinedTaskMeta`).
fn combined_meta(job: &Job, group: &str, task: &str) -> BTreeMap<String, String> {
    let mut out = job.meta.clone().unwrap_or_default();
    if let Some(tg) = job.lookup_task_group(group) {
        out.extend(tg.meta.clone().unwrap_or_default());
        if let Some(t) = tg.tasks.iter().find(|t| t.name == task) {
            out.extend(t.meta.clone().unwrap_or_default());
        }
    }
    out
}

fn networks_updated(
    a: Option<&[NetworkResource]>,
    b: Option<&[NetworkResource]>,
) -> Option<&'static str> {
    let (a, b) = (a.unwrap_or_default(), b.unwrap_or_default());
    if a.len() != b.len() {
        return Some("network lengths");
    }
    for (na, nb) in a.iter().zip(b) {
        if na.mode != nb.mode {
            return Some("network mode");
        }
        if na.mbits != nb.mbits {
            return Some("network mbits");
        }
        if na.dns != nb.dns {
            return Some("network dns");
        }
        if port_map(na) != port_map(nb) {
            return Some("network port map");
        }
    }
    None
}

/// label -> (static value, to, host network); dynamic ports have value 0.
fn port_map(n: &NetworkResource) -> BTreeMap<&str, (i32, i32, &str)> {
    let mut m = BTreeMap::new();
    for p in &n.reserved_ports {
        m.insert(p.label.as_str(), (p.value, p.to, p.host_network.as_str()));
    }
    for p in &n.dynamic_ports {
        m.insert(p.label.as_str(), (0, p.to, p.host_network.as_str()));
    }
    m
}

fn resources_updated(a: &Resources, b: &Resources) -> Option<&'static str> {
    if a.cpu != b.cpu {
        Some("task cpu")
    } else if a.cores != b.cores {
        Some("task cores")
    } else if a.memory_mb != b.memory_mb {
        Some("task memory")
    } else if a.memory_max_mb != b.memory_max_mb {
        Some("task memory max")
    } else if a.devices != b.devices {
        Some("task devices")
    } else if a.numa != b.numa {
        Some("numa")
    } else if a.secrets_mb != b.secrets_mb {
        Some("task secrets")
    } else {
        None
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::{Task, TaskGroup};

    fn job() -> Job {
        Job {
            id: "web".into(),
            task_groups: vec![TaskGroup {
                name: "g".into(),
                count: 1,
                tasks: vec![Task {
                    name: "t".into(),
                    driver: "raw_exec".into(),
                    resources: Some(Resources {
                        cpu: 100,
                        memory_mb: 64,
                        ..Default::default()
                    }),
                    ..Default::default()
                }],
                ..Default::default()
            }],
            ..Default::default()
        }
    }

    #[test]
    fn destructive_and_in_place_changes() {
        let base = job();
        let mut cases: Vec<(&str, Job, Option<&str>)> = Vec::new();

        let mut j = base.clone();
        j.task_groups[0].count = 5;
        cases.push(("count", j, None));

        let mut j = base.clone();
        j.task_groups[0].tasks[0].kill_timeout = Some(10);
        cases.push(("kill timeout", j, None));

        let mut j = base.clone();
        j.meta = Some([("a".to_string(), "b".to_string())].into());
        cases.push(("job meta", j, Some("task meta")));

        let mut j = base.clone();
        j.task_groups[0].tasks[0].driver = "exec".into();
        cases.push(("driver", j, Some("task driver")));

        let mut j = base.clone();
        if let Some(r) = j.task_groups[0].tasks[0].resources.as_mut() {
            r.memory_mb = 128;
        }
        cases.push(("memory", j, Some("task memory")));

        let mut j = base.clone();
        j.task_groups[0].tasks[0].env = Some([("X".to_string(), "1".to_string())].into());
        cases.push(("env", j, Some("task env")));

        for (what, changed, want) in cases {
            assert_eq!(tasks_updated(&changed, &base, "g"), want, "{what}");
        }
    }
}
