//! Nomad-native service registration (`service { provider = "nomad" }`): which registrations
//! an alloc has, and a worker that sends them to the servers in order (register when the
//! alloc runs, remove when it stops), retrying through server hiccups.

use std::sync::Arc;
use std::time::Duration;

use serde_json::Value;
use tokio::sync::mpsc;
use tokio_util::sync::CancellationToken;

use super::alloc_dir::AllocDir;
use super::taskenv::{EnvInputs, TaskEnv};
use crate::api::{alloc_service_id, Allocation, Node, ServiceRegistration, Task};
use crate::server::rpc::{RpcError, ServerRpc};

const RETRY: Duration = Duration::from_secs(1);
const MAX_ATTEMPTS: u32 = 30;

fn str_of<'a>(v: &'a Value, key: &str) -> &'a str {
    v.get(key).and_then(Value::as_str).unwrap_or("")
}

pub(crate) fn nomad_services(services: &Option<Value>) -> impl Iterator<Item = &Value> {
    services
        .as_ref()
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter(|s| str_of(s, "Provider") == "nomad")
}

/// Host address and port of `label` in the alloc's networks; the node's address when the
/// service names no port (or a literal port number).
pub(crate) fn resolve(alloc: &Allocation, node: &Node, label: &str) -> (String, i32) {
    let shared = &alloc.allocated_resources.as_ref().map(|r| &r.shared);
    if let Some(p) = shared
        .iter()
        .flat_map(|s| s.ports.iter())
        .find(|p| p.label == label)
    {
        return (p.host_ip.clone(), p.value);
    }
    let task_nets = alloc
        .allocated_resources
        .iter()
        .flat_map(|r| r.tasks.values())
        .flat_map(|t| t.networks.iter().flatten())
        .chain(shared.iter().flat_map(|s| s.networks.iter()));
    for n in task_nets {
        if let Some(p) = n
            .reserved_ports
            .iter()
            .chain(&n.dynamic_ports)
            .find(|p| p.label == label)
        {
            return (n.ip.clone(), p.value);
        }
    }
    let node_ip = node
        .node_resources
        .networks
        .iter()
        .map(|n| n.ip.clone())
        .find(|ip| !ip.is_empty())
        .unwrap_or_default();
    (node_ip, label.parse().unwrap_or(0))
}

fn registration(
    alloc: &Allocation,
    node: &Node,
    env: &TaskEnv,
    owner: &str,
    svc: &Value,
) -> ServiceRegistration {
    let name = env.interpolate(str_of(svc, "Name"));
    let label = str_of(svc, "PortLabel");
    let (mut address, port) = resolve(alloc, node, label);
    let explicit = env.interpolate(str_of(svc, "Address"));
    if !explicit.is_empty() {
        address = explicit;
    }
    let tags = svc
        .get("Tags")
        .and_then(Value::as_array)
        .into_iter()
        .flatten()
        .filter_map(Value::as_str)
        .map(|t| env.interpolate(t))
        .collect();
    ServiceRegistration {
        id: alloc_service_id(&alloc.id, owner, &name, label),
        service_name: name,
        namespace: alloc.namespace.clone(),
        node_id: node.id.clone(),
        datacenter: node.datacenter.clone(),
        job_id: alloc.job_id.clone(),
        alloc_id: alloc.id.clone(),
        tags,
        address,
        port,
        ..Default::default()
    }
}

/// Every Nomad-provider service of the alloc's group and tasks, interpolated with the task
/// environment (group services with the first task's).
pub fn registrations(
    alloc: &Allocation,
    node: &Node,
    region: &str,
    alloc_dir: &AllocDir,
) -> Vec<ServiceRegistration> {
    let mut out = Vec::new();
    visit_nomad_services(alloc, node, region, alloc_dir, |env, owner, svc| {
        out.push(registration(alloc, node, env, owner, svc));
    });
    out
}

/// Calls `f` with each Nomad-provider service of the alloc's group (owner `group-<name>`,
/// the first task's environment) and of its tasks (owner the task, its own environment).
pub(crate) fn visit_nomad_services(
    alloc: &Allocation,
    node: &Node,
    region: &str,
    alloc_dir: &AllocDir,
    mut f: impl FnMut(&TaskEnv, &str, &Value),
) {
    let Some(group) = alloc.task_group_def() else {
        return;
    };
    let env_for = |task: &Task| {
        TaskEnv::build(EnvInputs {
            alloc,
            task,
            node,
            region,
            alloc_dir,
            host_env: None,
        })
    };
    if let Some(first) = group.tasks.first() {
        let env = env_for(first);
        let owner = format!("group-{}", group.name);
        for svc in nomad_services(&group.services) {
            f(&env, &owner, svc);
        }
    }
    for task in &group.tasks {
        let env = env_for(task);
        for svc in nomad_services(&task.services) {
            f(&env, &task.name, svc);
        }
    }
}

#[derive(Debug)]
enum Op {
    Register(Vec<ServiceRegistration>),
    Deregister(String),
}

/// Sends registrations to the servers from one worker, so a removal never overtakes the
/// registration it undoes.
#[derive(Debug, Clone)]
pub struct ServiceRegistrar {
    tx: mpsc::UnboundedSender<Op>,
}

impl ServiceRegistrar {
    pub fn spawn(
        rpc: Arc<dyn ServerRpc>,
        node_id: String,
        shutdown: CancellationToken,
    ) -> ServiceRegistrar {
        let (tx, rx) = mpsc::unbounded_channel();
        tokio::spawn(worker(rpc, node_id, rx, shutdown));
        ServiceRegistrar { tx }
    }

    pub fn register(&self, regs: Vec<ServiceRegistration>) {
        if !regs.is_empty() {
            let _ = self.tx.send(Op::Register(regs));
        }
    }

    pub fn deregister(&self, alloc_id: &str) {
        let _ = self.tx.send(Op::Deregister(alloc_id.to_string()));
    }
}

async fn worker(
    rpc: Arc<dyn ServerRpc>,
    node_id: String,
    mut rx: mpsc::UnboundedReceiver<Op>,
    shutdown: CancellationToken,
) {
    loop {
        let op = tokio::select! {
            _ = shutdown.cancelled() => return,
            op = rx.recv() => match op {
                Some(op) => op,
                None => return,
            },
        };
        for attempt in 1..=MAX_ATTEMPTS {
            let res = match &op {
                Op::Register(regs) => rpc.service_register(&node_id, regs.clone()).await,
                Op::Deregister(id) => rpc.service_deregister_allocs(vec![id.clone()]).await,
            };
            match res {
                Ok(_) => break,
                Err(RpcError::Shutdown) => return,
                // The alloc may be gone already (GC'd): nothing left to register.
                Err(RpcError::Invalid(e)) => {
                    tracing::warn!(error = %e, "service registration refused");
                    break;
                }
                Err(e) => {
                    tracing::warn!(error = %e, attempt, "service registration failed; retrying");
                    tokio::select! {
                        _ = shutdown.cancelled() => return,
                        _ = tokio::time::sleep(RETRY) => {}
                    }
                }
            }
        }
    }
}
