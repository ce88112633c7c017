//! Nomad's template hook: renders a task's `template` blocks before it starts, then watches
//! their inputs (Nomad-native services, files) and re-renders, applying each template's
//! `change_mode` (restart, signal, script, noop) to the running task.
//!
//! ```text
//!  prestart ─ TemplateSet::first_render ─ files written, env templates read ─ task starts
//!                 │ (waits until every lookup has data; "Missing: ..." events meanwhile)
//!                 └─> Watcher (one tokio task per task runner, cancelled with it)
//!                       service lookups: blocking queries; files: polled
//!                       change ─ wait{min,max} ─ render ─ splay ─ restart | signal | script
//! ```
//! The watcher reaches the task only through `Lifecycle`: the runner's own command channel
//! (events, restart, kill), and the driver plus live handle for signals and scripts.
//! Sandbox rules are Nomad's: sources and destinations must stay inside the task or alloc
//! dir; an absolute destination outside them is placed under the task dir.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::sync::Arc;
use std::time::Duration;

use serde_json::Value as Json;

use crate::api::{now_nanos, ServiceRegistration, TaskEvent, Template};
use crate::client::template::brain::{list_services, select_services, Data};
use crate::client::template::funcs::{Context, DEFAULT_DENYLIST};
use crate::client::template::{self as engine, Brain, Dependency, Value};
use crate::server::rpc::ServerRpc;

/// Nomad's `TaskHookMessage` and `TaskHookFailed` event types.
pub const TASK_HOOK_MESSAGE: &str = "Task hook message";
pub const TASK_HOOK_FAILED: &str = "Task hook failed";
/// The event type consul-template's missing-dependency events carry.
pub const TEMPLATE_EVENT: &str = "Template";

/// How long the first render waits before reporting what it is missing (Nomad's
/// `DefaultMaxTemplateEventRate`).
const MISSING_EVENT_DELAY: Duration = Duration::from_secs(3);
/// How often files (`file` lookups, `source` templates) are checked for changes.
const FILE_POLL: Duration = Duration::from_secs(1);
/// Blocking-query wait for service lookups.
const SERVICE_WAIT: Duration = Duration::from_secs(300);
/// Nomad's client `template.wait` default: re-render once inputs were quiet for 5s, and
/// at the latest 4m after the first change.
const DEFAULT_WAIT: (Duration, Duration) = (Duration::from_secs(5), Duration::from_secs(240));
/// Pause after a failed service lookup before trying again.
const RETRY: Duration = Duration::from_secs(2);

/// The server reads templates need: service registrations of a namespace, by name or all,
/// as a blocking query (answers once the data changed past `min_index`, or at `timeout`).
#[async_trait::async_trait]
pub trait ServiceLookup: Send + Sync {
    async fn registrations(
        &self,
        namespace: &str,
        name: Option<&str>,
        min_index: u64,
        timeout: Duration,
    ) -> Result<(Vec<ServiceRegistration>, u64), String>;
}

/// `ServiceLookup` over the client's server connection.
pub struct RpcServiceLookup(pub Arc<dyn ServerRpc>);

#[async_trait::async_trait]
impl ServiceLookup for RpcServiceLookup {
    async fn registrations(
        &self,
        namespace: &str,
        name: Option<&str>,
        min_index: u64,
        timeout: Duration,
    ) -> Result<(Vec<ServiceRegistration>, u64), String> {
        self.0
            .service_registrations(namespace, name, min_index, timeout)
            .await
            .map_err(|e| e.to_string())
    }
}

/// The task's templates as the job gives them (`Task.Templates`).
pub fn task_templates(templates: &Option<Json>) -> Vec<Template> {
    templates
        .as_ref()
        .and_then(|v| serde_json::from_value(v.clone()).ok())
        .unwrap_or_default()
}

pub use super::client_path::Dirs;

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TemplateSetupError {
    #[error("template source path escapes alloc directory")]
    SourceEscapes,
    #[error("template destination path escapes alloc directory")]
    DestEscapes,
    #[error("Failed to parse {0:?} as octal: {1}")]
    Perms(String, String),
    #[error("Failed to parse signal {0:?}")]
    Signal(String),
    #[error("must specify either source or data")]
    NoContent,
}

/// One template, resolved against the task's directories.
struct Spec {
    t: Template,
    source: Option<PathBuf>,
    dest: PathBuf,
    perms: u32,
    parsed: Option<engine::Template>,
    /// The source text `parsed` came from (re-parsed when a source file changes).
    text: String,
    /// What was last rendered to `dest`.
    last: Option<String>,
    used: BTreeSet<Dependency>,
}

impl Spec {
    /// consul-template's name for the template in errors.
    fn display_source(&self) -> String {
        match &self.source {
            Some(p) if self.t.embedded_tmpl.as_deref().unwrap_or("").is_empty() => {
                p.display().to_string()
            }
            _ => "(dynamic)".to_string(),
        }
    }

    fn change_mode(&self) -> &str {
        self.t.change_mode.as_deref().unwrap_or("restart")
    }
}

/// A task's templates plus the data their lookups returned.
pub struct TemplateSet {
    specs: Vec<Spec>,
    brain: Brain,
    env: BTreeMap<String, String>,
    dirs: Dirs,
    namespace: String,
    lookup: Option<Arc<dyn ServiceLookup>>,
    /// Blocking-query index per service lookup.
    indexes: BTreeMap<Dependency, u64>,
    denylist: Vec<String>,
}

/// Outcome of one render of every template.
struct Pass {
    missing: BTreeSet<Dependency>,
    /// Indices of templates whose output changed on disk.
    changed: Vec<usize>,
}

impl TemplateSet {
    /// Resolves paths, perms and signals of `templates`; `env` is the task's environment
    /// (what `env` sees, and what `source`/`destination` are interpolated with).
    pub fn new(
        templates: Vec<Template>,
        env: BTreeMap<String, String>,
        attrs: &BTreeMap<String, String>,
        dirs: Dirs,
        namespace: &str,
        lookup: Option<Arc<dyn ServiceLookup>>,
    ) -> Result<TemplateSet, TemplateSetupError> {
        // Paths interpolate with the client's view of the task directories.
        let mut path_env = env.clone();
        path_env.insert(
            "NOMAD_TASK_DIR".into(),
            dirs.task_dir.join("local").display().to_string(),
        );
        path_env.insert(
            "NOMAD_SECRETS_DIR".into(),
            dirs.task_dir.join("secrets").display().to_string(),
        );
        path_env.insert(
            "NOMAD_ALLOC_DIR".into(),
            dirs.shared_alloc_dir.display().to_string(),
        );
        let mut specs = Vec::new();
        for t in templates {
            let src_raw = t.source_path.clone().unwrap_or_default();
            let source = if src_raw.is_empty() {
                None
            } else {
                let (p, escapes) = dirs.client_path(
                    &crate::client::taskenv::interpolate(&src_raw, attrs, &path_env),
                    false,
                );
                if escapes {
                    return Err(TemplateSetupError::SourceEscapes);
                }
                Some(p)
            };
            if source.is_none() && t.embedded_tmpl.as_deref().unwrap_or("").is_empty() {
                return Err(TemplateSetupError::NoContent);
            }
            let dest_raw = t.dest_path.clone().unwrap_or_default();
            let (dest, escapes) = dirs.client_path(
                &crate::client::taskenv::interpolate(&dest_raw, attrs, &path_env),
                true,
            );
            if escapes {
                return Err(TemplateSetupError::DestEscapes);
            }
            let perms_raw = t.perms.clone().unwrap_or_else(|| "0644".into());
            let perms = if perms_raw.is_empty() {
                0o644
            } else {
                u32::from_str_radix(&perms_raw, 8)
                    .ok()
                    .filter(|p| *p <= 0o7777)
                    .ok_or_else(|| {
                        TemplateSetupError::Perms(perms_raw.clone(), "invalid syntax".into())
                    })?
            };
            if t.change_mode.as_deref() == Some("signal") {
                let sig = t.change_signal.clone().unwrap_or_default();
                if crate::drivers::parse_signal(&sig).is_err() {
                    return Err(TemplateSetupError::Signal(sig));
                }
            }
            specs.push(Spec {
                t,
                source,
                dest,
                perms,
                parsed: None,
                text: String::new(),
                last: None,
                used: BTreeSet::new(),
            });
        }
        Ok(TemplateSet {
            specs,
            brain: Brain::default(),
            env,
            dirs,
            namespace: namespace.to_string(),
            lookup,
            indexes: BTreeMap::new(),
            denylist: DEFAULT_DENYLIST.iter().map(|s| s.to_string()).collect(),
        })
    }

    pub fn is_empty(&self) -> bool {
        self.specs.is_empty()
    }

    /// Reads (or re-reads) each template's text and parses it when it changed.
    fn load(&mut self) -> Result<(), String> {
        for s in &mut self.specs {
            let text = match (&s.source, s.t.embedded_tmpl.as_deref()) {
                (_, Some(data)) if !data.is_empty() => data.to_string(),
                (Some(p), _) => std::fs::read_to_string(p)
                    .map_err(|e| format!("failed to read template {:?}: {e}", p.display()))?,
                _ => String::new(),
            };
            if s.parsed.is_some() && text == s.text {
                continue;
            }
            let opts = engine::Options {
                left_delim: s.t.left_delim.clone().unwrap_or_default(),
                right_delim: s.t.right_delim.clone().unwrap_or_default(),
                err_missing_key: s.t.err_missing_key.unwrap_or(false),
            };
            let display = s.display_source();
            let parsed = engine::Template::parse("", &text, &opts)
                .map_err(|e| format!("{display}: parse: {e}"))?;
            s.parsed = Some(parsed);
            s.text = text;
        }
        Ok(())
    }

    /// Renders every template (only those in `only`, when given) with the data at hand;
    /// writes changed outputs once nothing is missing.
    fn render(&mut self, only: Option<&BTreeSet<usize>>) -> Result<Pass, String> {
        self.load()?;
        let mut outputs = Vec::new();
        let mut missing = BTreeSet::new();
        for (i, s) in self.specs.iter_mut().enumerate() {
            if only.is_some_and(|o| !o.contains(&i)) {
                continue;
            }
            let Some(parsed) = &s.parsed else { continue };
            let mut ctx = Context::new(&self.env, &self.brain);
            ctx.sandbox = Some(&self.dirs.task_dir);
            ctx.denylist = &self.denylist;
            let out = parsed
                .execute(&Value::Missing, &ctx)
                .map_err(|e| format!("{}: execute: {e}", s.display_source()))?;
            s.used = ctx.used.into_inner();
            let m = ctx.missing.into_inner();
            if m.is_empty() {
                outputs.push((i, out));
            }
            missing.extend(m);
        }
        let mut changed = Vec::new();
        if missing.is_empty() {
            for (i, out) in outputs {
                let s = &mut self.specs[i];
                let on_disk = std::fs::read_to_string(&s.dest).ok();
                if s.last.as_deref() == Some(out.as_str()) && on_disk.as_deref() == Some(&out) {
                    continue;
                }
                if on_disk.as_deref() != Some(out.as_str()) {
                    write_file(&s.dest, &out, s.perms, s.t.uid, s.t.gid)
                        .map_err(|e| format!("failed writing file: {}: {e}", s.dest.display()))?;
                    changed.push(i);
                }
                s.last = Some(out);
            }
        }
        Ok(Pass { missing, changed })
    }

    /// Fetches data for `deps` without blocking on changes. Files that do not exist stay
    /// missing; lookup errors are returned for the caller to report and retry.
    async fn fetch(&mut self, deps: &BTreeSet<Dependency>) -> Result<(), String> {
        for d in deps {
            match d {
                Dependency::File(p) => match std::fs::read_to_string(p) {
                    Ok(c) => self.brain.remember(d.clone(), Data::File(Some(c))),
                    Err(_) => self.brain.forget(d),
                },
                _ => {
                    let (data, index) = self.query(d, 0, Duration::ZERO).await?;
                    self.brain.remember(d.clone(), data);
                    self.indexes.insert(d.clone(), index);
                }
            }
        }
        Ok(())
    }

    async fn query(
        &self,
        d: &Dependency,
        min_index: u64,
        wait: Duration,
    ) -> Result<(Data, u64), String> {
        query(self.lookup.clone(), &self.namespace, d, min_index, wait).await
    }

    /// The environment variables of `env = true` templates, read from their files
    /// (Nomad's `loadTemplateEnv`).
    pub fn template_env(&self) -> Result<BTreeMap<String, String>, String> {
        let mut all = BTreeMap::new();
        for s in self.specs.iter().filter(|s| s.t.envvars == Some(true)) {
            let text = std::fs::read_to_string(&s.dest)
                .map_err(|e| format!("error opening env template: {e}"))?;
            let vars = parse_env_file(&text)
                .map_err(|e| format!("error parsing env template {:?}: {e}", s.dest.display()))?;
            all.extend(vars);
        }
        Ok(all)
    }

    /// Renders until every lookup has data, reporting what is missing through `emit`
    /// (at most once per distinct set, after a short delay as Nomad does).
    pub async fn first_render(
        &mut self,
        emit: &(dyn Fn(TaskEvent) + Send + Sync),
    ) -> Result<(), String> {
        let started = tokio::time::Instant::now();
        let mut reported: Option<BTreeSet<Dependency>> = None;
        loop {
            let pass = self.render(None)?;
            if pass.missing.is_empty() {
                return Ok(());
            }
            if let Err(e) = self.fetch(&pass.missing).await {
                tracing::warn!(error = %e, "template lookup failed; retrying");
            }
            let still: BTreeSet<Dependency> = pass
                .missing
                .iter()
                .filter(|d| self.brain.recall(d).is_none())
                .cloned()
                .collect();
            if still.is_empty() {
                continue;
            }
            if started.elapsed() >= MISSING_EVENT_DELAY && reported.as_ref() != Some(&still) {
                emit(missing_event(&still));
                reported = Some(still);
            }
            tokio::time::sleep(FILE_POLL).await;
        }
    }
}

async fn query(
    lookup: Option<Arc<dyn ServiceLookup>>,
    namespace: &str,
    d: &Dependency,
    min_index: u64,
    wait: Duration,
) -> Result<(Data, u64), String> {
    let Some(lookup) = lookup else {
        return Err(format!("{d}: no server connection to look up services"));
    };
    match d {
        Dependency::NomadService { name, .. } => {
            let (regs, index) = lookup
                .registrations(namespace, Some(name), min_index, wait)
                .await
                .map_err(|e| format!("{d}: {e}"))?;
            Ok((Data::Services(select_services(d, regs)?), index))
        }
        Dependency::NomadServices { .. } => {
            let (regs, index) = lookup
                .registrations(namespace, None, min_index, wait)
                .await
                .map_err(|e| format!("{d}: {e}"))?;
            Ok((Data::ServiceList(list_services(&regs)), index))
        }
        Dependency::File(_) => Err(format!("{d}: not a server lookup")),
    }
}

/// "Missing: a, b, c, and N more" (Nomad lists three).
fn missing_event(missing: &BTreeSet<Dependency>) -> TaskEvent {
    let mut names: Vec<String> = missing.iter().map(|d| d.to_string()).collect();
    names.sort();
    if names.len() > 3 {
        let more = names.len() - 3;
        names.truncate(3);
        names.push(format!("and {more} more"));
    }
    let mut e = TaskEvent::new(TEMPLATE_EVENT, now_nanos());
    e.display_message = format!("Missing: {}", names.join(", "));
    e
}

/// Writes `content` atomically (temp file + rename) with `perms` and optional ownership.
fn write_file(
    dest: &Path,
    content: &str,
    perms: u32,
    uid: Option<i64>,
    gid: Option<i64>,
) -> std::io::Result<()> {
    use std::os::unix::fs::PermissionsExt;
    let parent = dest.parent().unwrap_or(Path::new("/"));
    std::fs::create_dir_all(parent)?;
    let name = dest
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let tmp = parent.join(format!(".{name}.{}.tmp", std::process::id()));
    std::fs::write(&tmp, content)?;
    std::fs::set_permissions(&tmp, std::fs::Permissions::from_mode(perms))?;
    let uid = uid
        .filter(|u| *u >= 0)
        .map(|u| nix::unistd::Uid::from_raw(u as u32));
    let gid = gid
        .filter(|g| *g >= 0)
        .map(|g| nix::unistd::Gid::from_raw(g as u32));
    if uid.is_some() || gid.is_some() {
        if let Err(e) = nix::unistd::chown(&tmp, uid, gid) {
            let _ = std::fs::remove_file(&tmp);
            return Err(std::io::Error::other(format!("chown: {e}")));
        }
    }
    std::fs::rename(&tmp, dest)
}

/// A `KEY=VALUE` file as go-envparse reads it: blank lines and `#` comments skipped,
/// optional `export `, single or double quotes (double ones with escapes).
pub fn parse_env_file(text: &str) -> Result<BTreeMap<String, String>, String> {
    let mut out = BTreeMap::new();
    for (n, raw) in text.lines().enumerate() {
        let line = raw.trim();
        if line.is_empty() || line.starts_with('#') {
            continue;
        }
        let line = line
            .strip_prefix("export ")
            .map(str::trim_start)
            .unwrap_or(line);
        let Some((k, v)) = line.split_once('=') else {
            return Err(format!("line {}: missing =", n + 1));
        };
        let key = k.trim();
        if key.is_empty()
            || !key
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '.')
        {
            return Err(format!("line {}: invalid key {key:?}", n + 1));
        }
        let v = v.trim();
        let value = if let Some(inner) = v.strip_prefix('"') {
            let Some(inner) = inner.strip_suffix('"') else {
                return Err(format!("line {}: unterminated quoted value", n + 1));
            };
            let mut s = String::new();
            let mut chars = inner.chars();
            while let Some(c) = chars.next() {
                if c == '\\' {
                    match chars.next() {
                        Some('n') => s.push('\n'),
                        Some('t') => s.push('\t'),
                        Some('r') => s.push('\r'),
                        Some(o) => s.push(o),
                        None => s.push('\\'),
                    }
                } else {
                    s.push(c);
                }
            }
            s
        } else if let Some(inner) = v.strip_prefix('\'') {
            inner
                .strip_suffix('\'')
                .ok_or_else(|| format!("line {}: unterminated quoted value", n + 1))?
                .to_string()
        } else {
            // An unquoted value ends at a ` #` comment.
            v.split(" #").next().unwrap_or("").trim_end().to_string()
        };
        out.insert(key.to_string(), value);
    }
    Ok(out)
}

#[path = "templates_watch.rs"]
mod watch;
pub use watch::{killing_event, Lifecycle, Watcher};

#[cfg(test)]
#[path = "templates_tests.rs"]
mod tests;
