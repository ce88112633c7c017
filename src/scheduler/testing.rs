//! Test-only state over plain vectors, and builders for the nodes, jobs and allocs the
//! scheduler tests use.

use std::sync::Arc;

use crate::api::{
    AllocatedCpuResources, AllocatedMemoryResources, AllocatedResources, AllocatedTaskResources,
    Allocation, DriverInfo, Evaluation, Job, Node, NodeCpuResources, NodeDiskResources,
    NodeMemoryResources, NodeResources, Resources, Task, TaskGroup, ALLOC_CLIENT_RUNNING,
    ALLOC_DESIRED_RUN, EVAL_STATUS_PENDING, NODE_ELIGIBLE, NODE_STATUS_READY, TRIGGER_JOB_REGISTER,
};

use super::StateView;

#[derive(Default)]
pub struct TestState {
    pub index: u64,
    pub jobs: Vec<Arc<Job>>,
    pub nodes: Vec<Arc<Node>>,
    pub allocs: Vec<Arc<Allocation>>,
    pub config: crate::api::SchedulerConfiguration,
}

impl StateView for TestState {
    fn index(&self) -> u64 {
        self.index
    }
    fn job(&self, namespace: &str, id: &str) -> Option<Arc<Job>> {
        self.jobs
            .iter()
            .find(|j| j.namespace == namespace && j.id == id)
            .cloned()
    }
    fn node(&self, id: &str) -> Option<Arc<Node>> {
        self.nodes.iter().find(|n| n.id == id).cloned()
    }
    fn nodes(&self) -> Vec<Arc<Node>> {
        let mut v = self.nodes.clone();
        v.sort_by(|a, b| a.id.cmp(&b.id));
        v
    }
    fn allocs_by_job(&self, namespace: &str, job_id: &str) -> Vec<Arc<Allocation>> {
        self.allocs
            .iter()
            .filter(|a| a.namespace == namespace && a.job_id == job_id)
            .cloned()
            .collect()
    }
    fn allocs_by_node(&self, node_id: &str) -> Vec<Arc<Allocation>> {
        self.allocs
            .iter()
            .filter(|a| a.node_id == node_id)
            .cloned()
            .collect()
    }
    fn alloc(&self, id: &str) -> Option<Arc<Allocation>> {
        self.allocs.iter().find(|a| a.id == id).cloned()
    }
    fn scheduler_config(&self) -> crate::api::SchedulerConfiguration {
        self.config.clone()
    }
}

/// A ready linux node with raw_exec, 4000 MHz, 8192 MB, 100 GB disk in dc1.
pub fn node(id: &str) -> Node {
    Node {
        id: id.to_string(),
        name: format!("name-{id}"),
        datacenter: "dc1".into(),
        node_pool: "default".into(),
        node_class: String::new(),
        computed_class: "v1:class-a".into(),
        status: NODE_STATUS_READY.into(),
        scheduling_eligibility: NODE_ELIGIBLE.into(),
        attributes: [
            ("kernel.name".to_string(), "linux".to_string()),
            ("cpu.numcores".to_string(), "4".to_string()),
            ("nomad.version".to_string(), "1.9.3".to_string()),
        ]
        .into(),
        drivers: [(
            "raw_exec".to_string(),
            DriverInfo {
                detected: true,
                healthy: true,
                ..Default::default()
            },
        )]
        .into(),
        node_resources: NodeResources {
            cpu: NodeCpuResources {
                cpu_shares: 4000,
                ..Default::default()
            },
            memory: NodeMemoryResources { memory_mb: 8192 },
            disk: NodeDiskResources { disk_mb: 100_000 },
            ..Default::default()
        },
        ..Default::default()
    }
}

/// A service job `web` with group `g` of `count` tasks asking 500 MHz / 256 MB.
pub fn job(count: i32) -> Job {
    Job {
        id: "web".into(),
        name: "web".into(),
        namespace: "default".into(),
        r#type: "service".into(),
        priority: 50,
        datacenters: Some(vec!["dc1".into()]),
        job_modify_index: 10,
        task_groups: vec![TaskGroup {
            name: "g".into(),
            count,
            tasks: vec![Task {
                name: "t".into(),
                driver: "raw_exec".into(),
                resources: Some(Resources {
                    cpu: 500,
                    memory_mb: 256,
                    ..Default::default()
                }),
                ..Default::default()
            }],
            ..Default::default()
        }],
        ..Default::default()
    }
}

pub fn eval_for(job: &Job) -> Evaluation {
    Evaluation {
        id: "00000000-0000-0000-0000-00000000e001".into(),
        namespace: job.namespace.clone(),
        job_id: job.id.clone(),
        r#type: job.r#type.clone(),
        priority: job.priority,
        triggered_by: TRIGGER_JOB_REGISTER.into(),
        status: EVAL_STATUS_PENDING.into(),
        job_modify_index: job.job_modify_index,
        ..Default::default()
    }
}

/// A running alloc of `job` at `index` on `node_id`, holding the group's resources.
pub fn alloc(job: &Arc<Job>, index: u32, node_id: &str) -> Allocation {
    let tg = &job.task_groups[0];
    let tasks = tg
        .tasks
        .iter()
        .map(|t| {
            let r = t.resources.clone().unwrap_or_default();
            (
                t.name.clone(),
                AllocatedTaskResources {
                    cpu: AllocatedCpuResources {
                        cpu_shares: r.cpu,
                        reserved_cores: None,
                    },
                    memory: AllocatedMemoryResources {
                        memory_mb: r.memory_mb,
                        memory_max_mb: r.memory_max_mb,
                    },
                    ..Default::default()
                },
            )
        })
        .collect();
    Allocation {
        id: format!("alloc-{index}-{node_id}"),
        namespace: job.namespace.clone(),
        name: format!("{}.{}[{index}]", job.id, tg.name),
        job_id: job.id.clone(),
        job: Some(job.clone()),
        task_group: tg.name.clone(),
        node_id: node_id.to_string(),
        desired_status: ALLOC_DESIRED_RUN.into(),
        client_status: ALLOC_CLIENT_RUNNING.into(),
        allocated_resources: Some(AllocatedResources {
            tasks,
            ..Default::default()
        }),
        ..Default::default()
    }
}
