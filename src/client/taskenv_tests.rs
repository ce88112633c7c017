use std::collections::BTreeMap;
use std::sync::Arc;

use super::*;
use crate::api::{
    AllocatedCpuResources, AllocatedMemoryResources, AllocatedPortMapping, AllocatedResources,
    AllocatedTaskResources, Job, TaskGroup,
};

fn fixture() -> (Allocation, Task, Node) {
    let task = Task {
        name: "server".into(),
        env: Some(BTreeMap::from([
            (
                "GREETING".into(),
                "hi ${NOMAD_TASK_NAME} on ${attr.kernel.name}".into(),
            ),
            ("PORT_COPY".into(), "${NOMAD_PORT_http}".into()),
            ("FROM_ENV".into(), "${env[\"NOMAD_DC\"]}".into()),
            ("UNKNOWN".into(), "${nope.x}".into()),
        ])),
        meta: Some(BTreeMap::from([(
            "owner".into(),
            "${node.unique.name}".into(),
        )])),
        ..Default::default()
    };
    let job = Job {
        id: "example".into(),
        name: "example".into(),
        parent_id: "".into(),
        meta: Some(BTreeMap::from([("team".into(), "core".into())])),
        task_groups: vec![TaskGroup {
            name: "web".into(),
            meta: Some(BTreeMap::from([("team".into(), "web-team".into())])),
            tasks: vec![task.clone()],
            ..Default::default()
        }],
        ..Default::default()
    };
    let alloc = Allocation {
        id: "0dfb874c-22c5-84f4-be02-3dc0b95cc830".into(),
        name: "example.web[0]".into(),
        namespace: "default".into(),
        task_group: "web".into(),
        job: Some(Arc::new(job)),
        allocated_resources: Some(AllocatedResources {
            tasks: BTreeMap::from([(
                "server".into(),
                AllocatedTaskResources {
                    cpu: AllocatedCpuResources {
                        cpu_shares: 100,
                        reserved_cores: Some(vec![0, 1, 3]),
                    },
                    memory: AllocatedMemoryResources {
                        memory_mb: 64,
                        memory_max_mb: 128,
                    },
                    ..Default::default()
                },
            )]),
            shared: crate::api::AllocatedSharedResources {
                ports: vec![AllocatedPortMapping {
                    host_ip: "127.0.0.1".into(),
                    label: "http".into(),
                    to: 0,
                    value: 23456,
                }],
                ..Default::default()
            },
            ..Default::default()
        }),
        ..Default::default()
    };
    let node = Node {
        id: "node-1".into(),
        name: "vm".into(),
        datacenter: "dc1".into(),
        node_pool: "default".into(),
        attributes: BTreeMap::from([("kernel.name".into(), "linux".into())]),
        ..Default::default()
    };
    (alloc, task, node)
}

#[test]
fn builds_nomads_variables() {
    let (alloc, task, node) = fixture();
    let dir = AllocDir::new("/data/alloc/0dfb874c-22c5-84f4-be02-3dc0b95cc830".into());
    let env = TaskEnv::build(EnvInputs {
        alloc: &alloc,
        task: &task,
        node: &node,
        region: "global",
        alloc_dir: &dir,
        host_env: Some(BTreeMap::from([
            ("HOME".into(), "/root".into()),
            ("VAULT_TOKEN".into(), "secret".into()),
        ])),
    })
    .env;
    let want = [
        (
            "NOMAD_ALLOC_DIR",
            "/data/alloc/0dfb874c-22c5-84f4-be02-3dc0b95cc830/alloc",
        ),
        (
            "NOMAD_TASK_DIR",
            "/data/alloc/0dfb874c-22c5-84f4-be02-3dc0b95cc830/server/local",
        ),
        (
            "NOMAD_SECRETS_DIR",
            "/data/alloc/0dfb874c-22c5-84f4-be02-3dc0b95cc830/server/secrets",
        ),
        ("NOMAD_ALLOC_ID", "0dfb874c-22c5-84f4-be02-3dc0b95cc830"),
        ("NOMAD_SHORT_ALLOC_ID", "0dfb874c"),
        ("NOMAD_ALLOC_NAME", "example.web[0]"),
        ("NOMAD_ALLOC_INDEX", "0"),
        ("NOMAD_JOB_ID", "example"),
        ("NOMAD_JOB_NAME", "example"),
        ("NOMAD_GROUP_NAME", "web"),
        ("NOMAD_TASK_NAME", "server"),
        ("NOMAD_NAMESPACE", "default"),
        ("NOMAD_REGION", "global"),
        ("NOMAD_DC", "dc1"),
        ("NOMAD_CPU_LIMIT", "100"),
        ("NOMAD_CPU_CORES", "0-1,3"),
        ("NOMAD_MEMORY_LIMIT", "64"),
        ("NOMAD_MEMORY_MAX_LIMIT", "128"),
        ("NOMAD_ADDR_http", "127.0.0.1:23456"),
        ("NOMAD_HOST_ADDR_http", "127.0.0.1:23456"),
        ("NOMAD_IP_http", "127.0.0.1"),
        ("NOMAD_HOST_IP_http", "127.0.0.1"),
        ("NOMAD_PORT_http", "23456"),
        ("NOMAD_ALLOC_PORT_http", "23456"),
        ("NOMAD_HOST_PORT_http", "23456"),
        ("NOMAD_META_team", "web-team"),
        ("NOMAD_META_TEAM", "web-team"),
        ("NOMAD_META_owner", "vm"),
        ("NOMAD_META_OWNER", "vm"),
        ("GREETING", "hi server on linux"),
        ("PORT_COPY", "23456"),
        ("FROM_ENV", "dc1"),
        ("UNKNOWN", "${nope.x}"),
        ("HOME", "/root"),
    ];
    for (k, v) in want {
        assert_eq!(env.get(k).map(String::as_str), Some(v), "{k}");
    }
    assert!(
        !env.contains_key("VAULT_TOKEN"),
        "denylisted host vars are dropped"
    );
    assert!(
        !env.contains_key("NOMAD_JOB_PARENT_ID"),
        "empty values are omitted"
    );
}

#[test]
fn interpolates_driver_config_values_and_cleans_keys() {
    let (alloc, mut task, node) = fixture();
    task.meta = Some(BTreeMap::from([("my-key".into(), "v".into())]));
    let dir = AllocDir::new("/d".into());
    let env = TaskEnv::build(EnvInputs {
        alloc: &alloc,
        task: &task,
        node: &node,
        region: "global",
        alloc_dir: &dir,
        host_env: None,
    });
    assert_eq!(
        env.env.get("NOMAD_META_my_key").map(String::as_str),
        Some("v")
    );
    assert_eq!(
        env.env.get("NOMAD_META_MY_KEY").map(String::as_str),
        Some("v")
    );
    let cfg = serde_json::json!({
        "command": "/bin/echo",
        "args": ["${NOMAD_ALLOC_ID}", "${node.unique.id}", "${meta.none}", 3]
    });
    assert_eq!(
        env.interpolate_value(&cfg),
        serde_json::json!({
            "command": "/bin/echo",
            "args": ["0dfb874c-22c5-84f4-be02-3dc0b95cc830", "node-1", "${meta.none}", 3]
        })
    );
    assert_eq!(clean_env_var("NOMAD_PORT_my-port"), "NOMAD_PORT_my_port");
    assert_eq!(format_core_set(&[3, 0, 1, 2, 7]), "0-3,7");
}
