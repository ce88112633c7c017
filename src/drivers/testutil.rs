//! Test helpers shared by the driver and client tests.

use std::future::Future;
use std::path::Path;
use std::time::Duration;

use super::TaskConfig;

/// Polls `cond` until it holds or `timeout` passes; returns whether it held.
pub async fn wait_until<F, Fut>(timeout: Duration, mut cond: F) -> bool
where
    F: FnMut() -> Fut,
    Fut: Future<Output = bool>,
{
    let deadline = tokio::time::Instant::now() + timeout;
    loop {
        if cond().await {
            return true;
        }
        if tokio::time::Instant::now() >= deadline {
            return false;
        }
        tokio::time::sleep(Duration::from_millis(10)).await;
    }
}

/// A task config whose alloc dir layout exists under `root`.
pub fn task_config(root: &Path, name: &str, config: serde_json::Value) -> TaskConfig {
    let task_dir = root.join(name);
    for d in ["alloc/logs", "alloc/data", "alloc/tmp"] {
        std::fs::create_dir_all(root.join(d)).unwrap();
    }
    for d in ["local", "secrets", "tmp"] {
        std::fs::create_dir_all(task_dir.join(d)).unwrap();
    }
    let config = match config {
        serde_json::Value::Object(m) => m.into_iter().collect(),
        _ => Default::default(),
    };
    TaskConfig {
        id: format!("alloc1/{name}/{}", crate::api::generate_id()),
        name: name.to_string(),
        alloc_id: "alloc1".to_string(),
        config,
        env: [("PATH".to_string(), "/usr/bin:/bin".to_string())].into(),
        task_dir,
        alloc_dir: root.to_path_buf(),
        ..Default::default()
    }
}

pub fn read_log(root: &Path, name: &str) -> String {
    std::fs::read_to_string(root.join("alloc/logs").join(name)).unwrap_or_default()
}
