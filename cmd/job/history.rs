//! `nomad job history [options] <job>`: the job's versions, newest first, and with `-p` what
//! changed in each (the server computes the diffs; this prints them as Nomad does).

use nomad::api::client::QueryOptions;
use nomad::api::{DiffType, Job, JobDiff, VersionsOptions};

use super::diff_format::format_job_diff;
use crate::meta::{self, GlobalArgs};
use crate::output::{self, format_kv_untrimmed};

#[derive(Debug, Clone, Default, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub global: GlobalArgs,
    /// Display the difference between each version of the job and the previous one, or the
    /// version named by -diff-tag or -diff-version.
    #[arg(short = 'p')]
    pub diff: bool,
    /// Diff each version against the version carrying this tag name (with -p). Mutually
    /// exclusive with -diff-version.
    #[arg(long, value_name = "TAG")]
    pub diff_tag: Option<String>,
    /// Diff each version against this version number (with -p). Mutually exclusive with
    /// -diff-tag.
    #[arg(long, value_name = "VERSION")]
    pub diff_version: Option<String>,
    /// Display the full job definition for each version.
    #[arg(long)]
    pub full: bool,
    /// Output the job versions in their JSON format.
    #[arg(long)]
    pub json: bool,
    /// Format and display the output using a Go template.
    #[arg(short = 't', value_name = "TEMPLATE")]
    pub template: Option<String>,
    /// Display only the history for the given version.
    #[arg(long)]
    pub version: Option<String>,
    /// The job ID or prefix.
    pub job: String,
}

pub async fn run(a: &Args, g: &GlobalArgs) -> anyhow::Result<i32> {
    let formatted = output::wants_formatted(a.json, a.template.as_deref());
    if formatted && (a.diff || a.full) {
        output::err("-json and -t are exclusive with -p and -full");
        return Ok(1);
    }
    let opts = match versions_options(a) {
        Ok(opts) => opts,
        Err(e) => {
            output::err(e);
            return Ok(1);
        }
    };
    let client = g.client()?;
    let (job_id, ns) = match meta::job_id_by_prefix(&client, g, a.job.trim()).await {
        Ok(v) => v,
        Err(e) => {
            output::err(e.to_string());
            return Ok(1);
        }
    };
    let q = QueryOptions::namespace(&ns);
    let history = match client
        .job_versions_with_diffs(&job_id, &opts, Some(&q))
        .await
    {
        Ok((h, _)) => h,
        Err(e) => {
            output::err(format!("Error retrieving job versions: {e}"));
            return Ok(1);
        }
    };
    let (versions, diffs) = (&history.versions, &history.diffs);

    let Some(wanted) = a.version.as_deref().filter(|v| !v.is_empty()) else {
        if formatted {
            return Ok(output::print_formatted(
                a.json,
                a.template.as_deref(),
                versions,
            )?);
        }
        let blocks: Vec<String> = versions
            .iter()
            .enumerate()
            .map(|(i, job)| format_version(job, diffs.get(i), a.full))
            .collect::<anyhow::Result<_>>()?;
        output::out(blocks.join("\n\n"))?;
        return Ok(0);
    };
    let n = match super::parse_go_uint(wanted) {
        Ok(n) => n,
        Err(e) => {
            output::err(format!("Error parsing version value {wanted:?}: {e}"));
            return Ok(1);
        }
    };
    // `diffs[i]` belongs to `versions[i]`.
    let found = versions.iter().position(|j| j.version == n);
    if formatted {
        // Nomad formats the version it found, `null` when there is none.
        let job = found.map(|i| &versions[i]);
        return Ok(output::print_formatted(
            a.json,
            a.template.as_deref(),
            &job,
        )?);
    }
    let Some(i) = found else {
        output::err("Error printing job history for non-existing job or job version");
        return Ok(1);
    };
    output::out(format_version(&versions[i], diffs.get(i), a.full)?)?;
    Ok(0)
}

/// The diffs to ask for, after Nomad's checks of `-p`, `-diff-tag` and `-diff-version`.
fn versions_options(a: &Args) -> Result<VersionsOptions, String> {
    let diff_tag = a.diff_tag.clone().filter(|t| !t.is_empty());
    let diff_version = a.diff_version.as_deref().filter(|v| !v.is_empty());
    if (diff_tag.is_some() || diff_version.is_some()) && !a.diff {
        return Err("-diff-tag and -diff-version can only be used with -p".to_string());
    }
    if diff_tag.is_some() && diff_version.is_some() {
        return Err("-diff-tag and -diff-version are mutually exclusive".to_string());
    }
    let diff_version = diff_version
        .map(super::parse_go_uint)
        .transpose()
        .map_err(|e| format!("Error parsing -diff-version: {e}"))?;
    Ok(VersionsOptions {
        diffs: a.diff,
        diff_tag,
        diff_version,
    })
}

/// Nomad's `formatJobVersion`: the version's facts, what changed in it (when the diff shows a
/// change), and with `-full` the whole job. Laid out untrimmed, as Nomad does, so the diff
/// starts on the line below `Diff = `.
fn format_version(job: &Job, diff: Option<&JobDiff>, full: bool) -> anyhow::Result<String> {
    let mut rows = vec![
        format!("Version|{}", job.version),
        format!("Stable|{}", job.stable),
        format!("Submit Date|{}", output::format_unix_nano(job.submit_time)),
    ];
    if let Some(tag) = &job.version_tag {
        rows.push(format!("Tag Name|{}", tag.name));
        if !tag.description.is_empty() {
            rows.push(format!("Tag Description|{}", tag.description));
        }
    }
    if let Some(diff) = diff.filter(|d| d.r#type != DiffType::None) {
        rows.push(format!("Diff|\n{}", format_job_diff(diff, false).trim()));
    }
    if full {
        rows.push(format!("Full|JSON Job:\n{}", output::json_pretty(job)?));
    }
    Ok(format_kv_untrimmed(&rows))
}

#[cfg(test)]
mod tests {
    use nomad::api::{FieldDiff, TaskDiff, TaskGroupDiff};

    use super::*;

    fn field(name: &str, r#type: DiffType, old: &str, new: &str) -> FieldDiff {
        FieldDiff {
            name: name.into(),
            r#type,
            old: old.into(),
            new: new.into(),
            ..Default::default()
        }
    }

    /// A version block with a diff lays out as Nomad's `formatJobVersion` does: the diff
    /// starts below `Diff = ` (which keeps its trailing space) at the left margin.
    #[test]
    fn a_version_with_a_diff_prints_it_below_the_diff_key() {
        let job = Job {
            id: "web".into(),
            version: 1,
            ..Default::default()
        };
        let diff = JobDiff {
            id: "web".into(),
            r#type: DiffType::Edited,
            task_groups: vec![TaskGroupDiff {
                name: "web".into(),
                r#type: DiffType::Edited,
                fields: vec![field("Count", DiffType::Edited, "1", "2")],
                tasks: vec![TaskDiff {
                    name: "server".into(),
                    r#type: DiffType::Edited,
                    fields: vec![field("Env[GREETING]", DiffType::Added, "", "hello")],
                    ..Default::default()
                }],
                ..Default::default()
            }],
            ..Default::default()
        };
        let text = format_version(&job, Some(&diff), false).expect("format");
        assert_eq!(
            text,
            "Version     = 1\n\
             Stable      = false\n\
             Submit Date = \n\
             Diff        = \n\
             +/- Job: \"web\"\n\
             +/- Task Group: \"web\"\n  \
             +/- Count: \"1\" => \"2\"\n  \
             +/- Task: \"server\"\n    \
             + Env[GREETING]: \"hello\""
        );
        // A diff of type None (the version diffed against itself) is not shown.
        let none = JobDiff {
            r#type: DiffType::None,
            ..diff
        };
        let text = format_version(&job, Some(&none), false).expect("format");
        assert!(!text.contains("Diff"), "{text}");
    }

    #[test]
    fn diff_flags_are_checked_like_nomads() {
        let args = |diff: bool, tag: Option<&str>, version: Option<&str>| Args {
            diff,
            diff_tag: tag.map(String::from),
            diff_version: version.map(String::from),
            job: "web".into(),
            ..Default::default()
        };
        let err = |a: Args| versions_options(&a).expect_err("refused");
        assert_eq!(
            err(args(false, Some("t"), None)),
            "-diff-tag and -diff-version can only be used with -p"
        );
        assert_eq!(
            err(args(true, Some("t"), Some("1"))),
            "-diff-tag and -diff-version are mutually exclusive"
        );
        assert_eq!(
            err(args(true, None, Some("x"))),
            "Error parsing -diff-version: strconv.ParseUint: parsing \"x\": invalid syntax"
        );
        assert_eq!(
            versions_options(&args(true, None, Some("3"))),
            Ok(VersionsOptions {
                diffs: true,
                diff_tag: None,
                diff_version: Some(3),
            })
        );
    }
}
