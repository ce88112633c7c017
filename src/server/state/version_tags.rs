//! Job version tags (`nomad job tag apply|unset`): a name on one stored version of a job.
//!
//! A tag name is unique among a job's versions; re-tagging the version that already carries
//! the name updates it (a new description). The tag lives on the version row and, when that
//! version is the job's current one, on the job row too, so `job inspect` and `job history`
//! agree. Tagged versions are kept by the GC (`core_gc`).

use std::sync::Arc;

use super::{key, StateSnapshot, Table};
use crate::api::JobVersionTag;

/// Which version a tag request names.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum TagTarget {
    /// The job's current version.
    Latest,
    Version(u64),
}

impl StateSnapshot {
    /// The job version carrying tag `name`, if any.
    pub fn job_version_by_tag(
        &self,
        ns: &str,
        job_id: &str,
        name: &str,
    ) -> Option<Arc<crate::api::Job>> {
        self.job_versions(ns, job_id)
            .into_iter()
            .find(|v| v.version_tag.as_ref().is_some_and(|t| t.name == name))
    }

    /// Put `tag` on a version of a job. Errors read as Nomad's state store's.
    pub(crate) fn tag_job_version(
        &mut self,
        index: u64,
        ns: &str,
        job_id: &str,
        target: TagTarget,
        tag: &JobVersionTag,
    ) -> Result<(), String> {
        let version = match target {
            TagTarget::Version(v) => v,
            TagTarget::Latest => match self.job_by_id(ns, job_id) {
                Some(j) => j.version,
                None => return Err(format!("job {job_id:?} not found")),
            },
        };
        let versions = self.job_versions(ns, job_id);
        if versions.iter().any(|v| {
            v.version != version && v.version_tag.as_ref().is_some_and(|t| t.name == tag.name)
        }) {
            return Err(format!(
                "tag {:?} already exists on a different version of job {job_id:?}",
                tag.name
            ));
        }
        let Some(found) = versions.into_iter().find(|v| v.version == version) else {
            return Err(format!("job {job_id:?} version {version} not found"));
        };
        self.set_version_tag(index, ns, job_id, &found, Some(tag.clone()));
        Ok(())
    }

    /// Remove tag `name` from whichever version of the job carries it.
    pub(crate) fn untag_job_version(
        &mut self,
        index: u64,
        ns: &str,
        job_id: &str,
        name: &str,
    ) -> Result<(), String> {
        let Some(found) = self.job_version_by_tag(ns, job_id, name) else {
            return Err(format!("tag {name:?} not found on job {job_id:?}"));
        };
        self.set_version_tag(index, ns, job_id, &found, None);
        Ok(())
    }

    fn set_version_tag(
        &mut self,
        index: u64,
        ns: &str,
        job_id: &str,
        version: &crate::api::Job,
        tag: Option<JobVersionTag>,
    ) {
        let mut v = version.clone();
        v.version_tag = tag.clone();
        v.modify_index = index;
        self.job_versions
            .insert((ns.to_string(), job_id.to_string(), v.version), Arc::new(v));
        let k = key(ns, job_id);
        if let Some(cur) = self.jobs.get(&k).cloned() {
            if cur.version == version.version {
                let mut c = (*cur).clone();
                c.version_tag = tag;
                c.modify_index = index;
                self.jobs.insert(k, Arc::new(c));
                self.touch(Table::Jobs, index);
            }
        }
        self.touch(Table::JobVersions, index);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::api::Job;

    fn store_with_versions(n: u64) -> StateSnapshot {
        let mut s = StateSnapshot::default();
        for v in 0..n {
            let job = Job {
                id: "web".into(),
                name: "web".into(),
                namespace: "default".into(),
                version: v,
                ..Default::default()
            };
            s.upsert_job(10 + v, job, 0);
        }
        s
    }

    fn tag(name: &str, description: &str) -> JobVersionTag {
        JobVersionTag {
            name: name.into(),
            description: description.into(),
            tagged_time: 7,
        }
    }

    #[test]
    fn tagging_the_latest_version_shows_on_the_job_and_its_version() {
        let mut s = store_with_versions(3);
        let latest = s.job_by_id("default", "web").expect("job").version;
        s.tag_job_version(20, "default", "web", TagTarget::Latest, &tag("gold", "d"))
            .expect("tag");
        let job = s.job_by_id("default", "web").expect("job");
        assert_eq!(job.version_tag, Some(tag("gold", "d")));
        assert_eq!(job.modify_index, 20);
        let v = s
            .job_version_by_tag("default", "web", "gold")
            .expect("tagged");
        assert_eq!(v.version, latest);
        assert_eq!(s.table_index(Table::JobVersions), 20);
    }

    #[test]
    fn an_older_version_is_tagged_without_touching_the_job_row() {
        let mut s = store_with_versions(3);
        let before = s.job_by_id("default", "web").expect("job");
        s.tag_job_version(20, "default", "web", TagTarget::Version(0), &tag("v0", ""))
            .expect("tag");
        assert_eq!(s.job_by_id("default", "web"), Some(before));
        let v = s
            .job_version_by_tag("default", "web", "v0")
            .expect("tagged");
        assert_eq!(v.version, 0);
    }

    #[test]
    fn a_name_is_unique_across_versions_but_its_own_version_can_be_retagged() {
        let mut s = store_with_versions(3);
        s.tag_job_version(20, "default", "web", TagTarget::Version(1), &tag("a", "x"))
            .expect("tag");
        let err = s
            .tag_job_version(21, "default", "web", TagTarget::Version(2), &tag("a", ""))
            .unwrap_err();
        assert_eq!(
            err,
            "tag \"a\" already exists on a different version of job \"web\""
        );
        s.tag_job_version(22, "default", "web", TagTarget::Version(1), &tag("a", "y"))
            .expect("retag");
        let v = s.job_version_by_tag("default", "web", "a").expect("tagged");
        assert_eq!(
            v.version_tag.as_ref().map(|t| t.description.as_str()),
            Some("y")
        );
    }

    #[test]
    fn missing_versions_jobs_and_tags_are_errors() {
        let mut s = store_with_versions(1);
        let err = s
            .tag_job_version(20, "default", "web", TagTarget::Version(9), &tag("a", ""))
            .unwrap_err();
        assert_eq!(err, "job \"web\" version 9 not found");
        let err = s
            .tag_job_version(20, "default", "nope", TagTarget::Latest, &tag("a", ""))
            .unwrap_err();
        assert_eq!(err, "job \"nope\" not found");
        let err = s.untag_job_version(20, "default", "web", "a").unwrap_err();
        assert_eq!(err, "tag \"a\" not found on job \"web\"");
    }

    #[test]
    fn unsetting_removes_the_tag_everywhere_and_survives_a_snapshot() {
        let mut s = store_with_versions(2);
        s.tag_job_version(20, "default", "web", TagTarget::Latest, &tag("a", ""))
            .expect("tag");
        let back = StateSnapshot::from_bytes(&s.to_bytes()).expect("restore");
        assert!(back.job_version_by_tag("default", "web", "a").is_some());
        s.untag_job_version(21, "default", "web", "a")
            .expect("untag");
        assert!(s.job_version_by_tag("default", "web", "a").is_none());
        let job = s.job_by_id("default", "web").expect("job");
        assert_eq!(job.version_tag, None);
    }
}
