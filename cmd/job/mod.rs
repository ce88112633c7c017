//! `nomad job ...`: interact with jobs.

pub mod allocs;
pub mod deployments;
mod diff_format;
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
pub mod start;
pub mod status;
pub mod stop;
pub mod tag;
pub mod validate;

use std::path::{Path, PathBuf};

use anyhow::anyhow;
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
    /// Start a stopped job
    Start(start::Args),
    /// Manage job version tags
    #[command(subcommand)]
    Tag(tag::TagCommand),
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
        JobCommand::Start(a) => start::run(a, &a.global).await,
        JobCommand::Tag(c) => tag::run(c).await,
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
            self.check_json_flags()?;
            return parse_json_job(path);
        }
        // The jobspec's own error already reads "Error parsing job file from F:\n...".
        let vars = self.variables(path)?;
        jobspec::parse_file_with(path, &vars).map_err(anyhow::Error::from)
    }

    /// Like `load`, also returning what `nomad job run -output` needs to print the job as
    /// Nomad's api structs hold it: what an HCL file set, or a `-json` file's own JSON.
    pub fn load_recording(&self, path: &Path) -> anyhow::Result<(Job, Recorded)> {
        if path == Path::new("-") {
            return self.with_stdin_file(|tmp| self.load_recording(tmp));
        }
        if let Err(e) = std::fs::metadata(path) {
            return Err(anyhow!(
                "Error getting jobfile from {:?}: {e}",
                path.display().to_string()
            ));
        }
        if self.json {
            self.check_json_flags()?;
            let raw = read_json_job(path)?;
            let job = serde_json::from_value(raw.clone())
                .map_err(|e| anyhow!("Failed to parse JSON job: {e}"))?;
            return Ok((job, Recorded::Json(raw)));
        }
        let vars = self.variables(path)?;
        let (job, presence) = jobspec::parse_file_recording(path, &vars)?;
        Ok((job, Recorded::Hcl(presence)))
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

    /// Nomad's JobGetter.Validate: variables only apply to HCL job files.
    fn check_json_flags(&self) -> anyhow::Result<()> {
        if !self.vars.is_empty() || !self.var_files.is_empty() {
            return Err(anyhow!("cannot use variables with JSON files."));
        }
        Ok(())
    }

    /// The variable values for the parse: `NOMAD_VAR_*` from the environment, each
    /// `-var-file` (read here, parsed by the jobspec so that its errors carry the file's
    /// positions), and each `-var`, lowest precedence first.
    pub fn variables(&self, job_path: &Path) -> anyhow::Result<jobspec::Variables> {
        let mut env = jobspec::nomad_var_env(std::env::vars());
        env.sort();
        let mut files = Vec::with_capacity(self.var_files.len());
        for path in &self.var_files {
            let content = std::fs::read_to_string(path).map_err(|e| {
                anyhow!(
                    "Error parsing job file from {}:\nunable to parse var file: <nil>: Failed to read file; failed to read {:?}: {e}",
                    job_path.display(),
                    path.display().to_string()
                )
            })?;
            files.push(jobspec::VarFile {
                filename: path.display().to_string(),
                content,
            });
        }
        let mut args = Vec::with_capacity(self.vars.len());
        for kv in &self.vars {
            let (k, v) = kv
                .split_once('=')
                .ok_or_else(|| anyhow!("-var {kv:?} is not of the form key=value"))?;
            args.push((k.trim().to_string(), v.to_string()));
        }
        Ok(jobspec::Variables { env, files, args })
    }
}

/// What `load_recording` keeps besides the job.
pub enum Recorded {
    /// What the HCL file set.
    Hcl(jobspec::Presence),
    /// The `-json` file's job object.
    Json(serde_json::Value),
}

/// A `-json` job file: the api Job, bare or under a `Job` key (`nomad job inspect`,
/// `nomad job run -output`). Errors read as Nomad's "Failed to parse JSON job: ...".
fn parse_json_job(path: &Path) -> anyhow::Result<Job> {
    let v = read_json_job(path)?;
    serde_json::from_value(v).map_err(|e| anyhow!("Failed to parse JSON job: {e}"))
}

fn read_json_job(path: &Path) -> anyhow::Result<serde_json::Value> {
    let text = std::fs::read_to_string(path)
        .map_err(|e| anyhow!("Error opening file {:?}: {e}", path.display().to_string()))?;
    let v: serde_json::Value =
        serde_json::from_str(&text).map_err(|e| anyhow!("Failed to parse JSON job: {e}"))?;
    Ok(match v.get("Job") {
        Some(job) if !job.is_null() => job.clone(),
        _ => v,
    })
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

/// Go's `strconv.ParseUint(v, 10, 64)` as the job commands read version numbers; the error
/// is Go's text (`strconv.ParseUint: parsing "a": invalid syntax`).
pub fn parse_go_uint(v: &str) -> Result<u64, String> {
    v.parse::<u64>().map_err(|e| {
        let reason = match e.kind() {
            std::num::IntErrorKind::PosOverflow => "value out of range",
            _ => "invalid syntax",
        };
        format!("strconv.ParseUint: parsing {v:?}: {reason}")
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn var_files_are_handed_to_the_jobspec_in_order() {
        let dir = tempfile::tempdir().unwrap();
        let hcl = dir.path().join("a.hcl");
        std::fs::write(&hcl, "image = \"redis\"\n").unwrap();
        let json = dir.path().join("b.json");
        std::fs::write(&json, r#"{"count": 5}"#).unwrap();
        let args = JobFileArgs {
            vars: vec!["image=nginx:1=2".into()],
            var_files: vec![hcl.clone(), json.clone()],
            ..Default::default()
        };
        let vars = args.variables(Path::new("job.hcl")).unwrap();
        assert_eq!(
            vars.files,
            [
                jobspec::VarFile {
                    filename: hcl.display().to_string(),
                    content: "image = \"redis\"\n".to_string()
                },
                jobspec::VarFile {
                    filename: json.display().to_string(),
                    content: r#"{"count": 5}"#.to_string()
                },
            ]
        );
        assert_eq!(vars.args, [("image".to_string(), "nginx:1=2".to_string())]);
        let missing = JobFileArgs {
            var_files: vec![dir.path().join("nope.hcl")],
            ..Default::default()
        };
        let err = missing
            .variables(Path::new("job.hcl"))
            .unwrap_err()
            .to_string();
        assert!(
            err.starts_with("Error parsing job file from job.hcl:\nunable to parse var file: <nil>: Failed to read file; failed to read "),
            "{err}"
        );
    }

    #[test]
    fn variables_with_json_files_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let p = dir.path().join("j.json");
        std::fs::write(&p, r#"{"ID": "a"}"#).unwrap();
        let args = JobFileArgs {
            json: true,
            vars: vec!["a=b".into()],
            ..Default::default()
        };
        assert_eq!(
            args.load(&p).unwrap_err().to_string(),
            "cannot use variables with JSON files."
        );
    }

    #[test]
    fn bad_var_flag_and_missing_file_are_errors() {
        let args = JobFileArgs {
            vars: vec!["novalue".into()],
            ..Default::default()
        };
        assert!(args.variables(Path::new("j.hcl")).is_err());
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
        assert!(err.starts_with("Failed to parse JSON job: "), "{err}");
    }
}
