//! Artifact destinations as Nomad resolves them (`getDestination` through `ClientPath`):
//! interpolated with the task environment, relative to the task dir, refused only when
//! they leave both the task dir and the shared alloc dir.

use std::collections::BTreeMap;

use super::tests::task_dir;
use super::*;
use crate::client::taskenv::interpolate;

/// A local file to fetch, and the artifact for it with `dest` interpolated as the task
/// runner does (the client's view of the task dirs, plus the job name).
fn artifact_to(
    task: &super::tests::TestDirs,
    src: &Path,
    dest: &str,
) -> (TaskArtifact, BTreeMap<String, String>) {
    let env: BTreeMap<String, String> = [
        (
            "NOMAD_ALLOC_DIR",
            task.dirs.shared_alloc_dir.display().to_string(),
        ),
        (
            "NOMAD_TASK_DIR",
            task.path().join("local").display().to_string(),
        ),
        ("NOMAD_JOB_NAME", "web-job".to_string()),
    ]
    .into_iter()
    .map(|(k, v)| (k.to_string(), v))
    .collect();
    let raw = TaskArtifact {
        getter_source: Some(src.display().to_string()),
        relative_dest: Some(dest.to_string()),
        ..Default::default()
    };
    let a = interpolated(&raw, |s| interpolate(s, &BTreeMap::new(), &env));
    (a, env)
}

#[tokio::test]
async fn destinations_are_interpolated_and_may_use_the_shared_alloc_dir() {
    let src = tempfile::tempdir().unwrap();
    let file = src.path().join("conf.txt");
    std::fs::write(&file, "x=1\n").unwrap();
    let task = task_dir();
    let alloc = task.dirs.shared_alloc_dir.clone();
    let root = task.path().parent().expect("alloc root").to_path_buf();
    let abs_alloc = format!("{}/abs", alloc.display());
    for (dest, lands) in [
        ("${NOMAD_ALLOC_DIR}/data", alloc.join("data/conf.txt")),
        ("../alloc/rel", alloc.join("rel/conf.txt")),
        (abs_alloc.as_str(), alloc.join("abs/conf.txt")),
        ("${NOMAD_TASK_DIR}/x", task.path().join("local/x/conf.txt")),
        (
            "local/${NOMAD_JOB_NAME}",
            task.path().join("local/web-job/conf.txt"),
        ),
        ("secrets", task.path().join("secrets/conf.txt")),
        // An absolute path outside the sandbox means the same path inside the task dir,
        // also one that climbed out of the alloc dir, as in Nomad.
        ("/opt/app", task.path().join("opt/app/conf.txt")),
        (
            "${NOMAD_ALLOC_DIR}/../other",
            task.path()
                .join(root.strip_prefix("/").expect("absolute"))
                .join("other/conf.txt"),
        ),
    ] {
        let (a, _) = artifact_to(&task, &file, dest);
        get(&task.dirs, &a)
            .await
            .unwrap_or_else(|e| panic!("{dest}: {e}"));
        assert_eq!(
            std::fs::read_to_string(&lands).unwrap_or_else(|e| panic!("{dest}: {e}")),
            "x=1\n",
            "{dest}"
        );
    }
}

#[tokio::test]
async fn destinations_leaving_task_and_alloc_dirs_are_refused_before_fetching() {
    let task = task_dir();
    let root = task.path().parent().expect("alloc root").to_path_buf();
    for dest in [
        "..",
        "../other",
        "../../x",
        "local/../../x",
        "/../x",
        "..data",
    ] {
        // The source does not exist: the destination check comes first.
        let (a, _) = artifact_to(&task, Path::new("/nonexistent/source"), dest);
        let err = get(&task.dirs, &a).await.unwrap_err();
        assert!(
            matches!(err, ArtifactError::DestinationEscapes),
            "{dest}: {err}"
        );
        assert_eq!(
            err.to_string(),
            "artifact destination path escapes alloc directory"
        );
    }
    assert!(!root.join("other").exists());
}

#[test]
fn interpolation_covers_the_destination_and_leaves_unknown_references() {
    let task = task_dir();
    let (a, env) = artifact_to(&task, Path::new("/src"), "${NOMAD_ALLOC_DIR}/${nope}");
    assert_eq!(
        a.relative_dest.as_deref(),
        Some(format!("{}/${{nope}}", env["NOMAD_ALLOC_DIR"]).as_str())
    );
    let none = interpolated(&TaskArtifact::default(), |s| s.to_uppercase());
    assert_eq!(none.relative_dest, None);
}
