//! `nomad job ...`: interact with jobs.

pub mod allocs;
pub mod deployments;
pub mod dispatch;
pub mod eval;
pub mod history;
pub mod init;
pub mod inspect;
pub mod periodic;
pub mod plan;
mod plan_format;
pub mod promote;
pub mod restart;
pub mod revert;
pub mod run;
pub mod scale;
pub mod scaling_events;
pub mod status;
pub mod stop;
pub mod validate;

use std::path::{Path, PathBuf};

use anyhow::{anyhow, Context as _};
use clap::Subcommand;
use nomad::api::Job;

use crate::jobspec;

#[derive(Debug, Subcommand)]
pub enum JobCommand {
    /// Create an example job file
    Init(init::Args),
    /// Run a new job or update an existing job
    Run(run::Args),
    /// Display status information about a job
    Status(status::Args),
    /// Stop a running job
    Stop(stop::Args),
    /// Inspect a submitted job
    Inspect(inspect::Args),
    /// Check a job specification for syntax errors
    Validate(validate::Args),
    /// List allocations for a job
    Allocs(allocs::Args),
    /// Display all tracked versions of a job
    History(history::Args),
    /// Promote a job's canaries
    Promote(promote::Args),
    /// Revert to a prior version of the job
    Revert(revert::Args),
    /// Invoke a dry-run of the scheduler for a job
    Plan(plan::Args),
    /// Dispatch an instance of a parameterized job
    Dispatch(dispatch::Args),
    /// Interact with periodic jobs
    #[command(subcommand)]
    Periodic(periodic::PeriodicCommand),
    /// Change the count of a job's task group
    Scale(scale::Args),
    /// Force an evaluation of the job
    Eval(eval::Args),
    /// List deployments for a job
    Deployments(deployments::Args),
    /// Restart or reschedule allocations for a job
    Restart(restart::Args),
    /// Display the most recent scaling events for a job
    #[command(name = "scaling-events")]
    ScalingEvents(scaling_events::Args),
}

pub async fn run(cmd: &JobCommand) -> anyhow::Result<i32> {
    match cmd {
        JobCommand::Init(a) => init::run(a),
        JobCommand::Run(a) => run::run(a, &a.global).await,
        JobCommand::Status(a) => status::run(a, &a.global).await,
        JobCommand::Stop(a) => stop::run(a, &a.global).await,
        JobCommand::Inspect(a) => inspect::run(a, &a.global).await,
        JobCommand::Validate(a) => validate::run(a, &a.global).await,
        JobCommand::Allocs(a) => allocs::run(a, &a.global).await,
        JobCommand::History(a) => history::run(a, &a.global).await,
        JobCommand::Promote(a) => promote::run(a, &a.global).await,
        JobCommand::Revert(a) => revert::run(a, &a.global).await,
        JobCommand::Plan(a) => plan::run(a, &a.global).await,
        JobCommand::Dispatch(a) => dispatch::run(a, &a.global).await,
        JobCommand::Periodic(c) => periodic::run(c).await,
        JobCommand::Scale(a) => scale::run(a, &a.global).await,
        JobCommand::Eval(a) => eval::run(a, &a.global).await,
        JobCommand::Deployments(a) => deployments::run(a, &a.global).await,
        JobCommand::Restart(a) => restart::run(a, &a.global).await,
        JobCommand::ScalingEvents(a) => scaling_events::run(a, &a.global).await,
    }
}

/// How `job run`/`job validate` get a job from a file (Nomad's `JobGetter`).
#[derive(Debug, Clone, Default, clap::Args)]
pub struct JobFileArgs {
    /// Parses the job file as JSON. If the outer object has a Job field, such as from
    /// "nomad job inspect" or "nomad run -output", the value of the field is used as the job.
    #[arg(long)]
    pub json: bool,
    /// Variable for template, can be used multiple times (key=value).
    #[arg(long = "var", value_name = "KEY=VALUE")]
    pub vars: Vec<String>,
    /// Path to an HCL2 file containing user variables, can be used multiple times.
    #[arg(long = "var-file", value_name = "FILE")]
    pub var_files: Vec<PathBuf>,
    /// Accepted for compatibility (`-hcl2-strict=false` is common in scripts); the parser is
    /// always strict about unknown blocks and attributes.
    #[arg(long = "hcl2-strict", hide = true)]
    pub hcl2_strict: bool,
}

impl JobFileArgs {
    /// Parse the job file; errors carry Nomad's wording without the "Error getting job
    /// struct: " lead, which the callers add.
    pub fn load(&self, path: &Path) -> anyhow::Result<Job> {
        if path == Path::new("-") {
            return self.load_stdin();
        }
        if let Err(e) = std::fs::metadata(path) {
            return Err(anyhow!(
                "Error getting jobfile from {:?}: {e}",
                path.display().to_string()
            ));
        }
        if self.json {
            return parse_json_job(path)
                .map_err(|e| anyhow!("Error parsing job file from {}:\n{e:#}", path.display()));
        }
        // The jobspec's own error already reads "Error parsing job file from F:\n...".
        let vars = self.variables()?;
        jobspec::parse_file(path, &vars).map_err(anyhow::Error::from)
    }

    /// Like `load`, also returning what an HCL file set (`None` for `-json` jobs, which are
    /// already in the api's shape), for `nomad job run -output`.
    pub fn load_recording(&self, path: &Path) -> anyhow::Result<(Job, Option<jobspec::Presence>)> {
        if path == Path::new("-") {
            return self.with_stdin_file(|tmp| self.load_recording(tmp));
        }
        if self.json {
            return self.load(path).map(|job| (job, None));
        }
        if let Err(e) = std::fs::metadata(path) {
            return Err(anyhow!(
                "Error getting jobfile from {:?}: {e}",
                path.display().to_string()
            ));
        }
        let vars = self.variables()?;
        let (job, presence) = jobspec::parse_file_recording(path, &vars)?;
        Ok((job, Some(presence)))
    }

    /// `-` reads the job from stdin. The parser takes a path, so the text goes through a
    /// private temporary file that is removed afterwards.
    fn load_stdin(&self) -> anyhow::Result<Job> {
        self.with_stdin_file(|tmp| self.load(tmp))
    }

    fn with_stdin_file<T>(
        &self,
        load: impl FnOnce(&Path) -> anyhow::Result<T>,
    ) -> anyhow::Result<T> {
        use std::io::Read as _;
        let mut text = String::new();
        std::io::stdin()
            .read_to_string(&mut text)
            .map_err(|e| anyhow!("Error reading stdin: {e}"))?;
        let ext = if self.json { "json" } else { "nomad.hcl" };
        let tmp = std::env::temp_dir().join(format!("nomad-stdin-{}.{ext}", std::process::id()));
        std::fs::write(&tmp, text).map_err(|e| anyhow!("Error reading stdin: {e}"))?;
        let job = load(&tmp);
        let _ = std::fs::remove_file(&tmp);
        job
    }

    /// Variables in Nomad's precedence: `NOMAD_VAR_*` env, then `-var-file`s in order, then
    /// `-var`s; a later value for a name replaces an earlier one.
    pub fn variables(&self) -> anyhow::Result<Vec<(String, String)>> {
        let mut vars: Vec<(String, String)> = std::env::vars()
            .filter_map(|(k, v)| k.strip_prefix("NOMAD_VAR_").map(|n| (n.to_string(), v)))
            .collect();
        vars.sort();
        for file in &self.var_files {
            vars.extend(parse_var_file(file)?);
        }
        for kv in &self.vars {
            let (k, v) = kv
                .split_once('=')
                .ok_or_else(|| anyhow!("-var {kv:?} is not of the form key=value"))?;
            vars.push((k.trim().to_string(), v.to_string()));
        }
        let mut deduped: Vec<(String, String)> = Vec::with_capacity(vars.len());
        for (k, v) in vars {
            deduped.retain(|(name, _)| *name != k);
            deduped.push((k, v));
        }
        Ok(deduped)
    }
}

fn parse_json_job(path: &Path) -> anyhow::Result<Job> {
    let text = std::fs::read_to_string(path)?;
    let v: serde_json::Value = serde_json::from_str(&text)?;
    let v = match v.get("Job") {
        Some(job) => job.clone(),
        None => v,
    };
    Ok(serde_json::from_value(v)?)
}

/// A `-var-file` (HCL `name = value` lines, or a JSON object for `.json`): string values as
/// typed, other values as their HCL/JSON literal, which is how `-var` values are read too.
fn parse_var_file(path: &Path) -> anyhow::Result<Vec<(String, String)>> {
    let text = std::fs::read_to_string(path)
        .with_context(|| format!("Error reading var file {}", path.display()))?;
    let values: std::collections::BTreeMap<String, serde_json::Value> =
        if path.extension().is_some_and(|e| e == "json") {
            serde_json::from_str(&text)
                .with_context(|| format!("Error parsing var file {}", path.display()))?
        } else {
            let parsed: std::collections::BTreeMap<String, hcl::Value> = hcl::from_str(&text)
                .with_context(|| format!("Error parsing var file {}", path.display()))?;
            parsed
                .into_iter()
                .map(|(k, v)| Ok((k, serde_json::to_value(v)?)))
                .collect::<anyhow::Result<_>>()?
        };
    Ok(values
        .into_iter()
        .map(|(k, v)| match v {
            serde_json::Value::String(s) => (k, s),
            other => (k, other.to_string()),
        })
        .collect())
}

pub fn is_periodic(job: &Job) -> bool {
    job.periodic.is_some()
}

pub fn is_parameterized(job: &Job) -> bool {
    job.is_parameterized()
}

pub fn is_multiregion(job: &Job) -> bool {
    job.multiregion
        .as_ref()
        .and_then(|m| m.get("Regions"))
        .and_then(|r| r.as_array())
        .is_some_and(|r| !r.is_empty())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn var_files_and_flags_merge_with_later_winning() {
        let dir = tempfile::tempdir().unwrap();
        let hcl = dir.path().join("a.hcl");
        std::fs::write(
            &hcl,
            "image = \"redis\"\ncount = 3\ntags = [\"a\", \"b\"]\n",
        )
        .unwrap();
        let json = dir.path().join("b.json");
        std::fs::write(&json, r#"{"count": 5}"#).unwrap();
        let args = JobFileArgs {
            vars: vec!["image=nginx:1=2".into()],
            var_files: vec![hcl, json],
            ..Default::default()
        };
        let vars: Vec<_> = args
            .variables()
            .unwrap()
            .into_iter()
            .filter(|(k, _)| ["image", "count", "tags"].contains(&k.as_str()))
            .collect();
        assert_eq!(
            vars,
            [
                ("tags".to_string(), "[\"a\",\"b\"]".to_string()),
                ("count".to_string(), "5".to_string()),
                ("image".to_string(), "nginx:1=2".to_string()),
            ]
        );
    }

    #[test]
    fn bad_var_flag_and_missing_file_are_errors() {
        let args = JobFileArgs {
            vars: vec!["novalue".into()],
            ..Default::default()
        };
        assert!(args.variables().is_err());
        let err = JobFileArgs::default()
            .load(Path::new("/nonexistent/x.hcl"))
            .unwrap_err();
        assert!(err
            .to_string()
            .starts_with("Error getting jobfile from \"/nonexistent/x.hcl\": "));
    }

    #[test]
    fn json_jobs_with_and_without_wrapper() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("j.json");
        std::fs::write(&p, r#"{"Job": {"ID": "a", "Name": "a"}}"#).unwrap();
        let args = JobFileArgs {
            json: true,
            ..Default::default()
        };
        assert_eq!(args.load(&p).unwrap().id, "a");
        std::fs::write(&p, r#"{"ID": "b"}"#).unwrap();
        assert_eq!(args.load(&p).unwrap().id, "b");
        std::fs::write(&p, "{").unwrap();
        let err = args.load(&p).unwrap_err().to_string();
        assert!(err.starts_with(&format!("Error parsing job file from {}:\n", p.display())));
    }
}
