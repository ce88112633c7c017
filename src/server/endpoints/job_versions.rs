//! The diffs of Job.GetJobVersions (`GET /v1/job/:id/versions?diffs=true`, what
//! `nomad job history -p` prints): what changed from one stored version of a job to the next,
//! or from one chosen version (`diff_version`, `diff_tag`) to each.
//!
//! Pure over the versions the state store lists; the HTTP layer reads them in its blocking
//! query and asks for the diffs of the answer it sends. The diff is the contextual one
//! `job plan` shows (`scheduler::diff`), as Nomad uses the same for both.

use std::sync::Arc;

use crate::api::{Job, JobDiff};
use crate::scheduler::diff::{job_diff, DiffError};

/// What each version is diffed against.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum DiffBase {
    /// The version before it; the oldest version has none.
    #[default]
    Previous,
    /// One version, by number.
    Version(u64),
    /// The version carrying this tag name.
    Tag(String),
}

/// Why the diffs could not be made; the texts are Nomad's (answered with a 500).
#[derive(Debug, thiserror::Error)]
pub enum VersionDiffError {
    #[error("tag {0:?} not found")]
    TagNotFound(String),
    #[error("version {0} not found")]
    VersionNotFound(u64),
    #[error("failed to create job diff: {0}")]
    Diff(#[from] DiffError),
}

/// The diffs for `versions` (newest first, as the state store lists them): `diffs[i]` is what
/// changed from the base to `versions[i]`. Against `Previous` there is one diff per
/// consecutive pair, so the oldest version has none; against a chosen version every version
/// has one (the chosen one's own diff has type `None`).
pub fn version_diffs(
    versions: &[Arc<Job>],
    base: &DiffBase,
) -> Result<Vec<JobDiff>, VersionDiffError> {
    let chosen = match base {
        DiffBase::Previous => None,
        DiffBase::Version(n) => Some(
            versions
                .iter()
                .find(|j| j.version == *n)
                .ok_or(VersionDiffError::VersionNotFound(*n))?,
        ),
        DiffBase::Tag(name) => Some(
            versions
                .iter()
                .find(|j| j.version_tag.as_ref().is_some_and(|t| &t.name == name))
                .ok_or_else(|| VersionDiffError::TagNotFound(name.clone()))?,
        ),
    };
    let mut diffs = Vec::with_capacity(versions.len());
    for (i, new) in versions.iter().enumerate() {
        let old = match chosen {
            Some(old) => old,
            None => match versions.get(i + 1) {
                Some(old) => old,
                None => break,
            },
        };
        diffs.push(job_diff(Some(old), Some(new), true)?);
    }
    Ok(diffs)
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::api::{DiffType, JobVersionTag, Task, TaskGroup};

    /// Version `version` of job "web": one group of `count`, its task with `env`.
    fn version(version: u64, count: i32, env: &[(&str, &str)]) -> Arc<Job> {
        let task = Task {
            name: "server".into(),
            driver: "raw_exec".into(),
            env: (!env.is_empty()).then(|| {
                env.iter()
                    .map(|(k, v)| (k.to_string(), v.to_string()))
                    .collect::<BTreeMap<_, _>>()
            }),
            ..Default::default()
        };
        Arc::new(Job {
            id: "web".into(),
            name: "web".into(),
            version,
            // Server-maintained fields differ between versions without being a change.
            submit_time: 1_000 + version as i64,
            job_modify_index: 10 + version,
            task_groups: vec![TaskGroup {
                name: "web".into(),
                count,
                tasks: vec![task],
                ..Default::default()
            }],
            ..Default::default()
        })
    }

    #[test]
    fn previous_pairs_each_version_with_the_one_before() {
        let versions = [
            version(2, 3, &[("A", "1")]),
            version(1, 2, &[("A", "1")]),
            version(0, 2, &[]),
        ];
        let diffs = version_diffs(&versions, &DiffBase::Previous).expect("diffs");
        assert_eq!(diffs.len(), 2);
        // Newest pair first: 1 -> 2 changed the count only.
        let tg = &diffs[0].task_groups[0];
        assert_eq!(diffs[0].r#type, DiffType::Edited);
        let count = tg.fields.iter().find(|f| f.name == "Count").expect("Count");
        assert_eq!(
            (count.r#type, count.old.as_str(), count.new.as_str()),
            (DiffType::Edited, "2", "3")
        );
        assert!(tg.tasks.iter().all(|t| t.r#type == DiffType::None));
        // 0 -> 1 added the env var.
        let task = &diffs[1].task_groups[0].tasks[0];
        let env = task
            .fields
            .iter()
            .find(|f| f.name == "Env[A]")
            .expect("Env");
        assert_eq!(
            (env.r#type, env.old.as_str(), env.new.as_str()),
            (DiffType::Added, "", "1")
        );
    }

    #[test]
    fn one_version_has_no_diffs() {
        let diffs = version_diffs(&[version(0, 1, &[])], &DiffBase::Previous).expect("diffs");
        assert!(diffs.is_empty());
    }

    #[test]
    fn a_chosen_version_is_diffed_against_every_version() {
        let mut tagged = (*version(0, 1, &[])).clone();
        tagged.version_tag = Some(JobVersionTag {
            name: "golden".into(),
            ..Default::default()
        });
        let versions = [version(1, 2, &[]), Arc::new(tagged)];
        for base in [DiffBase::Version(0), DiffBase::Tag("golden".into())] {
            let diffs = version_diffs(&versions, &base).expect("diffs");
            let types: Vec<DiffType> = diffs.iter().map(|d| d.r#type).collect();
            assert_eq!(types, [DiffType::Edited, DiffType::None], "{base:?}");
        }
        let err = version_diffs(&versions, &DiffBase::Version(7)).expect_err("missing");
        assert_eq!(err.to_string(), "version 7 not found");
        let err = version_diffs(&versions, &DiffBase::Tag("x".into())).expect_err("missing");
        assert_eq!(err.to_string(), "tag \"x\" not found");
    }
}
