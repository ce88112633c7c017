//! Image GC against the real daemon, with a short `gc.image_delay`. Each test runs a private
//! copy of the shared test image: image GC removes an image by ID, every tag of it at once
//! (as Nomad does), so a copy made with a bare `docker tag` would share the ID of
//! nomad-rs-busybox:latest and take it along. The copy is committed with its own label,
//! which gives it an ID of its own on top of the shared image's layers.

use std::time::{Duration, Instant};

use serde_json::json;

use super::api::{q, DockerApi};
use super::live_tests::{cfg, driver, IMAGE};
use super::DockerDriver;
use crate::drivers::testutil::wait_until;
use crate::drivers::{Driver, TaskHandle};

const DELAY: Duration = Duration::from_secs(2);

/// A copy of the shared test image under its own name and ID; removed (by that name only)
/// when dropped.
struct PrivateImage(String);

impl PrivateImage {
    async fn new(api: &DockerApi, test: &str) -> PrivateImage {
        let repo = format!("nomad-rs-gc-{test}-{}", &crate::api::generate_id()[..8]);
        let c = api
            .post("/containers/create", Some(&json!({"Image": IMAGE})))
            .await
            .expect("create");
        let cid = c["Id"].as_str().expect("container id").to_string();
        let committed = api
            .post(
                &format!(
                    "/commit?container={cid}&repo={repo}&tag=1&changes={}",
                    q(&format!("LABEL nomad-rs-gc-test={repo}"))
                ),
                None,
            )
            .await;
        let _ = api
            .call(
                hyper::Method::DELETE,
                &format!("/containers/{cid}?force=1"),
                None,
                super::api::API_TIMEOUT,
            )
            .await;
        committed.expect("commit");
        PrivateImage(format!("{repo}:1"))
    }
}

impl Drop for PrivateImage {
    fn drop(&mut self) {
        let _ = std::process::Command::new("docker")
            .args(["image", "rm", "-f", &self.0])
            .output();
    }
}

async fn image_id(api: &DockerApi, image: &str) -> Option<String> {
    let v = api.get(&format!("/images/{}/json", q(image))).await.ok()?;
    v["Id"].as_str().map(str::to_string)
}

/// A driver with image GC after `DELAY`, or `None` (skip) without a daemon.
async fn gc_driver() -> Option<DockerDriver> {
    driver().await?;
    let config = [("gc".to_string(), json!([{"image_delay": "2s"}]))].into();
    Some(DockerDriver::new(Some(&config)))
}

async fn run_sleeper(d: &DockerDriver, root: &std::path::Path, image: &str) -> TaskHandle {
    let c = cfg(
        root,
        "gc",
        json!({"image": image, "command": "sleep", "args": ["300"]}),
    );
    d.start(c).await.expect("starts")
}

#[tokio::test]
async fn unused_image_is_removed_after_the_delay_and_not_before() {
    let Some(d) = gc_driver().await else { return };
    let image = PrivateImage::new(&d.api, "delay").await;
    let shared_id = image_id(&d.api, IMAGE).await.expect("shared image");
    let tmp = tempfile::tempdir().unwrap();
    let h = run_sleeper(&d, tmp.path(), &image.0).await;
    assert_eq!(
        h.driver_state["image_id"].as_str(),
        image_id(&d.api, &image.0).await.as_deref()
    );
    // The image is released somewhere inside `destroy`, so the delay runs from no earlier
    // than this instant: half the delay after it, the image must still be there (checked
    // only when destroy itself returned in time, which a loaded machine may not).
    let before_destroy = Instant::now();
    d.destroy(&h, true).await.unwrap();
    let released = Instant::now();
    let check_at = before_destroy + DELAY / 2;
    if Instant::now() < check_at {
        tokio::time::sleep_until(check_at.into()).await;
        assert!(
            image_id(&d.api, &image.0).await.is_some(),
            "removed before image_delay"
        );
    }
    let gone = wait_until(Duration::from_secs(15), || async {
        image_id(&d.api, &image.0).await.is_none()
    })
    .await;
    let took = released.elapsed();
    assert!(gone, "image still present {took:?} after its last task");
    println!(
        "image removed {} ms after its last task was destroyed",
        took.as_millis()
    );
    assert_eq!(
        image_id(&d.api, IMAGE).await.as_deref(),
        Some(shared_id.as_str()),
        "the shared image it was made from stays"
    );
}

#[tokio::test]
async fn image_stays_while_a_task_uses_it_or_starts_using_it_within_the_delay() {
    let Some(d) = gc_driver().await else { return };
    let image = PrivateImage::new(&d.api, "refs").await;
    let tmp = tempfile::tempdir().unwrap();
    let a = run_sleeper(&d, tmp.path(), &image.0).await;
    let b = run_sleeper(&d, tmp.path(), &image.0).await;

    // a goes; b still holds a reference.
    d.destroy(&a, true).await.unwrap();
    tokio::time::sleep(DELAY + Duration::from_secs(1)).await;
    assert!(
        image_id(&d.api, &image.0).await.is_some(),
        "removed under b"
    );

    // b goes, and c starts on the image before the delay is over: the removal is cancelled.
    d.destroy(&b, true).await.unwrap();
    tokio::time::sleep(DELAY / 4).await;
    let c = run_sleeper(&d, tmp.path(), &image.0).await;
    tokio::time::sleep(DELAY + Duration::from_secs(1)).await;
    assert!(
        image_id(&d.api, &image.0).await.is_some(),
        "removed although c started using it"
    );
    assert_eq!(
        d.inspect(&c).await.unwrap().state,
        crate::drivers::TaskRunState::Running
    );

    // Once c is gone too, nothing holds it.
    d.destroy(&c, true).await.unwrap();
    let gone = wait_until(Duration::from_secs(15), || async {
        image_id(&d.api, &image.0).await.is_none()
    })
    .await;
    assert!(gone, "image kept after its last task");
}

#[tokio::test]
async fn image_a_running_container_uses_is_never_removed() {
    let Some(d) = gc_driver().await else { return };
    let image = PrivateImage::new(&d.api, "running").await;
    let tmp = tempfile::tempdir().unwrap();
    // A container of the image the driver did not start (another agent's, an operator's).
    let other = d
        .api
        .post(
            "/containers/create",
            Some(&json!({"Image": image.0, "Cmd": ["sleep", "300"]})),
        )
        .await
        .expect("create");
    let other = other["Id"].as_str().unwrap().to_string();
    let _guard = ContainerGuard(other.clone());
    d.api
        .post(&format!("/containers/{other}/start"), None)
        .await
        .expect("start");

    let h = run_sleeper(&d, tmp.path(), &image.0).await;
    d.destroy(&h, true).await.unwrap();
    tokio::time::sleep(DELAY + Duration::from_secs(2)).await;
    assert!(
        image_id(&d.api, &image.0).await.is_some(),
        "removed while a container runs it"
    );
    let state = d
        .api
        .get(&format!("/containers/{other}/json"))
        .await
        .unwrap();
    assert_eq!(state["State"]["Running"], true);
}

struct ContainerGuard(String);

impl Drop for ContainerGuard {
    fn drop(&mut self) {
        let _ = std::process::Command::new("docker")
            .args(["rm", "-f", &self.0])
            .output();
    }
}
