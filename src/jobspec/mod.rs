//! HCL2 jobspec -> `api::Job`, plus Nomad's server-side defaults (`canonicalize`) and
//! validation (`validate`), and the `nomad job init` example.
//!
//! Parsing walks the hcl-edit syntax tree (which keeps byte spans) with a per-block schema,
//! so every problem carries a `file:line,col-col` position and all problems are reported at
//! once. The output matches `nomad job run -output`: defaults for blocks the user did not
//! write are left to `canonicalize`. Because the api types hold plain values, a block the user
//! did write gets its unset fields filled from Nomad's defaults while parsing (see
//! `policies`), since afterwards "unset" can no longer be told from "zero".
//!
//! Blocks decoded in this cut: job (type, priority, datacenters, region, namespace, node_pool,
//! all_at_once, meta, constraint, affinity, spread, periodic, parameterized, update,
//! reschedule, migrate, task), group (count, constraint, affinity, spread, restart, reschedule,
//! ephemeral_disk, meta, network, update, migrate, service, volume, disconnect, shutdown_delay
//! and the deprecated disconnect attributes), task (driver, config, env, meta, resources,
//! constraint, affinity, restart, kill_timeout, kill_signal, leader, user, logs,
//! shutdown_delay, service, lifecycle, dispatch_payload, template, artifact, volume_mount), the
//! integration blocks (`job_blocks`: vault, consul, identity, csi_plugin, scaling,
//! multiregion, ui, action, schedule, secret; job/group vault and secrets are inherited by
//! tasks as jobspec2 does), service `connect` (native, sidecar_service, sidecar_task, gateway), `identity` and `weights`, resources `device`, network `dns`/`cni`/
//! `reserved_ports`, resources `numa` and the deprecated task `network`/`iops`, and
//! `variable`/`variables`/`locals` (typed, validated; values from var files, the environment
//! and `-var`). Every block and attribute Nomad's api structs take is decoded; the schema's
//! `pending` list stays for names not decoded yet. Expressions may call Nomad's jobspec function library (`functions`); its filesystem
//! functions read files only for a job file named on the command line (`parse_file`).
//!
//! This module owns the jobspec language; it must not reach into server or client state.

/// `json!({"Key": expr, ...})` without its cost: `json!` passes every value through
/// `serde_json::to_value`, which deep-copies values that already are JSON (a service's list
/// of checks); this moves each value in with `Value::from`.
macro_rules! json_object {
    ({ $($key:literal : $value:expr),* $(,)? }) => {{
        let mut map = serde_json::Map::new();
        $( map.insert($key.to_string(), serde_json::Value::from($value)); )*
        serde_json::Value::Object(map)
    }};
}

mod blocks;
mod body;
mod canonicalize;
mod canonicalize_blocks;
mod decode;
pub mod diag;
mod dynamic;
pub use crate::api::duration;
mod eval;
mod format;
pub(crate) mod functions;
mod init;
mod job_blocks;
mod output;
mod output_fields;
mod output_write;
mod parallel;
mod paths;
mod policies;
mod presence;
mod resources;
mod schema;
mod schema_blocks;
mod services;
mod services_connect;
mod services_gateway;
mod syntax_hints;
mod types;
mod validate;
mod validate_blocks;
mod validate_policies;
mod validate_services;
mod var_validation;
mod variables;

#[cfg(test)]
mod output_tests;
#[cfg(test)]
mod tests;

use std::fmt;
use std::path::{Path, PathBuf};

use crate::api::Job;

pub use canonicalize::{canonicalize, DEFAULT_KILL_TIMEOUT};
pub use diag::{Diagnostic, Pos, SourceRange};
pub use format::format;
pub use init::init_job;
pub use output::{
    api_canonical, from_api_json, run_output, run_output_json, uncanonicalized, GoJson,
};
pub use presence::Presence;
pub use validate::{
    format_multierror, format_warnings, validate, ValidationError, JOB_MAX_PRIORITY,
    JOB_MIN_PRIORITY,
};

/// A `-var-file`, or the `Variables` text of `POST /v1/jobs/parse`: the name its
/// positions carry (a `.json` name is read as JSON) and its text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct VarFile {
    pub filename: String,
    pub content: String,
}

/// The variable values of one parse, from each source jobspec2 reads; later sources win:
/// `NOMAD_VAR_*` (`env`, prefix removed; ignored for undeclared variables), then each var
/// file in order, then each `-var`.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Variables {
    pub env: Vec<(String, String)>,
    pub files: Vec<VarFile>,
    pub args: Vec<(String, String)>,
}

impl Variables {
    /// Only `-var name=value` pairs.
    pub fn from_args(args: &[(String, String)]) -> Self {
        Variables {
            args: args.to_vec(),
            ..Variables::default()
        }
    }
}

/// Why a job file could not be turned into a job.
#[derive(Debug, thiserror::Error)]
pub enum JobspecError {
    #[error("Error reading job file from {path}: {source}")]
    Read {
        path: PathBuf,
        #[source]
        source: std::io::Error,
    },
    /// Syntax or decoding problems; every one found is listed, in source order.
    #[error("Error parsing job file from {filename}:\n{}", DiagList(.diagnostics))]
    Parse {
        filename: String,
        diagnostics: Vec<Diagnostic>,
    },
    /// A var file (or `/v1/jobs/parse` variables text, `what` = "content") with a syntax
    /// error: Nomad stops before looking at the job.
    #[error("Error parsing job file from {filename}:\nunable to parse var {what}: {diagnostic}")]
    VarFile {
        filename: String,
        what: &'static str,
        diagnostic: Box<Diagnostic>,
    },
}

impl JobspecError {
    /// The problems without the "Error parsing job file from ..." line: what Nomad's
    /// `/v1/jobs/parse` puts after "Failed to parse job: ".
    pub fn problems(&self) -> String {
        match self {
            JobspecError::Read { .. } => self.to_string(),
            JobspecError::Parse { diagnostics, .. } => DiagList(diagnostics).to_string(),
            JobspecError::VarFile {
                what, diagnostic, ..
            } => format!("unable to parse var {what}: {diagnostic}"),
        }
    }

    fn from_decode(filename: &str, what: &'static str, e: decode::DecodeError) -> Self {
        match e {
            decode::DecodeError::Diags(diagnostics) => JobspecError::Parse {
                filename: filename.to_string(),
                diagnostics,
            },
            decode::DecodeError::VarFile(diagnostic) => JobspecError::VarFile {
                filename: filename.to_string(),
                what,
                diagnostic: Box::new(diagnostic),
            },
        }
    }
}

struct DiagList<'a>(&'a [Diagnostic]);

impl fmt::Display for DiagList<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for (i, d) in self.0.iter().enumerate() {
            if i > 0 {
                f.write_str("\n")?;
            }
            write!(f, "{d}")?;
        }
        Ok(())
    }
}

fn read(path: &Path) -> Result<String, JobspecError> {
    std::fs::read_to_string(path).map_err(|source| JobspecError::Read {
        path: path.to_path_buf(),
        source,
    })
}

/// Reads and parses a job file; `vars` are the `-var name=value` pairs. The filesystem
/// functions (`file()`, `fileset()`, ...) may read files relative to the job file.
pub fn parse_file(path: &Path, vars: &[(String, String)]) -> Result<Job, JobspecError> {
    parse_file_with(path, &Variables::from_args(vars))
}

/// `parse_file` with variable values from every source (`-var-file`s, the environment).
pub fn parse_file_with(path: &Path, vars: &Variables) -> Result<Job, JobspecError> {
    let src = read(path)?;
    let (shown, dir) = file_names(path);
    decode::decode(&src, &shown, vars, Some(&dir))
        .map_err(|e| JobspecError::from_decode(&path.display().to_string(), "file", e))
}

/// Like Nomad's job commands, positions name the job file by its base name (the error's
/// first line names the path as given); relative paths in `file()` and the other
/// filesystem functions start from the job file's directory.
fn file_names(path: &Path) -> (String, PathBuf) {
    let shown = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string());
    let dir = path.parent().map(Path::to_path_buf).unwrap_or_default();
    (shown, dir)
}

/// `parse_file_with`, also returning what the file set, for printing the job as Nomad's
/// api structs hold it before canonicalization (`run_output`, `uncanonicalized`).
pub fn parse_file_recording(
    path: &Path,
    vars: &Variables,
) -> Result<(Job, Presence), JobspecError> {
    let src = read(path)?;
    let (shown, dir) = file_names(path);
    decode::decode_recording(&src, &shown, vars, Some(&dir), Presence::recording())
        .map_err(|e| JobspecError::from_decode(&path.display().to_string(), "file", e))
}

/// A job read from standard input (`nomad job run -`): positions name it `stdin` and the
/// error's first line `-`, as Nomad's do; relative paths in the filesystem functions start
/// from the working directory.
pub fn parse_stdin_recording(src: &str, vars: &Variables) -> Result<(Job, Presence), JobspecError> {
    decode::decode_recording(
        src,
        "stdin",
        vars,
        Some(Path::new(".")),
        Presence::recording(),
    )
    .map_err(|e| JobspecError::from_decode("-", "file", e))
}

/// `parse_str`, also returning what the text set (see `parse_file_recording`).
pub fn parse_str_recording(
    src: &str,
    filename: &str,
    vars: &[(String, String)],
) -> Result<(Job, Presence), JobspecError> {
    parse_str_recording_with(src, filename, &Variables::from_args(vars))
}

/// `parse_str_recording` with variable values from every source; a var file here is the
/// `Variables` text of `/v1/jobs/parse` ("var content" in errors).
pub fn parse_str_recording_with(
    src: &str,
    filename: &str,
    vars: &Variables,
) -> Result<(Job, Presence), JobspecError> {
    decode::decode_recording(src, filename, vars, None, Presence::recording())
        .map_err(|e| JobspecError::from_decode(filename, "content", e))
}

/// Parses jobspec source text; `filename` is used in error positions. The filesystem
/// functions are disabled: this is the path for text that came over the network.
pub fn parse_str(
    src: &str,
    filename: &str,
    vars: &[(String, String)],
) -> Result<Job, JobspecError> {
    parse_str_with_env(src, filename, vars, &[])
}

/// Like `parse_str`, also taking variable values from the environment (`env` holds
/// `NOMAD_VAR_<name>` values with the prefix removed; see `nomad_var_env`). As in Nomad,
/// environment values lose to `-var` values and are ignored for undeclared variables.
pub fn parse_str_with_env(
    src: &str,
    filename: &str,
    vars: &[(String, String)],
    env: &[(String, String)],
) -> Result<Job, JobspecError> {
    let vars = Variables {
        env: env.to_vec(),
        args: vars.to_vec(),
        files: Vec::new(),
    };
    decode::decode(src, filename, &vars, None)
        .map_err(|e| JobspecError::from_decode(filename, "content", e))
}

/// The `NOMAD_VAR_<name>=<value>` pairs of an environment (e.g. `std::env::vars()`), with the
/// prefix removed, for `parse_str_with_env`.
pub fn nomad_var_env(environ: impl IntoIterator<Item = (String, String)>) -> Vec<(String, String)> {
    environ
        .into_iter()
        .filter_map(|(k, v)| {
            k.strip_prefix("NOMAD_VAR_")
                .filter(|name| !name.is_empty())
                .map(|name| (name.to_string(), v))
        })
        .collect()
}
