//! What every API command shares (Nomad's `command/meta.go`): the global client flags, the
//! client they build, prefix lookups of jobs/allocs/nodes/evals, and the Web UI hints.

use anyhow::{anyhow, Context as _};
use clap::Args;
use nomad::api::client::{Client, ClientConfig, QueryOptions, DEFAULT_ADDRESS};
use nomad::api::{AllocListStub, Evaluation, Job, JobListStub, NodeListStub};

use crate::output::{self, format_list, limit, pretty_time_diff};

/// Flags accepted by every command that talks to an agent.
#[derive(Debug, Clone, Args, Default)]
pub struct GlobalArgs {
    /// The address of the Nomad server.
    #[arg(long, env = "NOMAD_ADDR", value_name = "ADDR",
          default_value = DEFAULT_ADDRESS, hide_env_values = true)]
    pub address: String,
    /// The region of the Nomad servers to forward commands to.
    #[arg(long, env = "NOMAD_REGION", hide_env_values = true)]
    pub region: Option<String>,
    /// The target namespace for queries and actions bound to a namespace.
    #[arg(long, env = "NOMAD_NAMESPACE", hide_env_values = true)]
    pub namespace: Option<String>,
    /// The SecretID of an ACL token to use to authenticate API requests with.
    #[arg(long, env = "NOMAD_TOKEN", hide_env_values = true)]
    pub token: Option<String>,
}

impl GlobalArgs {
    pub fn client(&self) -> anyhow::Result<Client> {
        let non_empty = |v: &Option<String>| v.clone().filter(|s| !s.is_empty());
        Client::new(ClientConfig {
            address: self.address.clone(),
            region: non_empty(&self.region),
            namespace: non_empty(&self.namespace),
            token: non_empty(&self.token),
        })
        .context("Error initializing client")
    }

    /// The namespace in effect for UI links and messages ("default" when none is set).
    pub fn namespace_or_default(&self) -> String {
        self.namespace
            .clone()
            .filter(|s| !s.is_empty())
            .unwrap_or_else(|| nomad::api::DEFAULT_NAMESPACE.to_string())
    }

    pub fn all_namespaces(&self) -> bool {
        self.namespace.as_deref() == Some("*")
    }
}

/// Nomad's `sanitizeUUIDPrefix`: UUID prefixes are matched on whole bytes, so an odd number of
/// hex digits loses its last one.
pub fn sanitize_uuid_prefix(prefix: &str) -> &str {
    let hyphens = prefix.matches('-').count();
    let remainder = (prefix.len() - hyphens) % 2;
    &prefix[..prefix.len() - remainder]
}

/// The status list table of `job status` (also used for ambiguous prefixes).
pub fn job_list_table(jobs: &[JobListStub], all_namespaces: bool) -> String {
    let mut rows = Vec::with_capacity(jobs.len() + 1);
    if all_namespaces {
        rows.push("ID|Namespace|Type|Priority|Status|Submit Date".to_string());
    } else {
        rows.push("ID|Type|Priority|Status|Submit Date".to_string());
    }
    for j in jobs {
        let mut ty = j.r#type.clone();
        if j.periodic {
            ty.push_str("/periodic");
        }
        if j.parameterized_job {
            ty.push_str("/parameterized");
        }
        let status = status_string(&j.status, j.stop);
        let submit = output::format_unix_nano(j.submit_time);
        if all_namespaces {
            rows.push(format!(
                "{}|{}|{}|{}|{}|{}",
                j.id, j.namespace, ty, j.priority, status, submit
            ));
        } else {
            rows.push(format!(
                "{}|{}|{}|{}|{}",
                j.id, ty, j.priority, status, submit
            ));
        }
    }
    format_list(&rows)
}

pub fn status_string(status: &str, stop: bool) -> String {
    if stop {
        format!("{status} (stopped)")
    } else {
        status.to_string()
    }
}

/// Resolve a job ID prefix to (job ID, namespace), with Nomad's messages for no match and for
/// an ambiguous prefix.
pub async fn job_id_by_prefix(
    client: &Client,
    g: &GlobalArgs,
    prefix: &str,
) -> anyhow::Result<(String, String)> {
    let (jobs, _) = client
        .jobs(Some(&QueryOptions::prefix(prefix)))
        .await
        .with_context(|| format!("Error querying job prefix {prefix:?}"))?;
    let Some(first) = jobs.first() else {
        return Err(anyhow!("No job(s) with prefix or ID {prefix:?} found"));
    };
    if jobs.len() > 1 {
        let exact = prefix == first.id;
        let multi_ns = g.all_namespaces() && jobs[1].id == first.id;
        if !exact || multi_ns {
            return Err(anyhow!(
                "Prefix {prefix:?} matched multiple jobs\n\n{}",
                job_list_table(&jobs, g.all_namespaces())
            ));
        }
    }
    let ns = if first.namespace.is_empty() {
        g.namespace_or_default()
    } else {
        first.namespace.clone()
    };
    Ok((first.id.clone(), ns))
}

/// `JobByPrefix`: the resolved job itself.
pub async fn job_by_prefix(client: &Client, g: &GlobalArgs, prefix: &str) -> anyhow::Result<Job> {
    let (id, ns) = job_id_by_prefix(client, g, prefix).await?;
    let (mut job, _) = client
        .job(&id, Some(&QueryOptions::namespace(&ns)))
        .await
        .with_context(|| format!("Error querying job {id:?}"))?;
    job.namespace = ns;
    Ok(job)
}

/// One allocation by ID prefix. `Err` carries Nomad's message; an ambiguous prefix returns the
/// candidate table so each command can print it its own way.
pub enum AllocLookup {
    One(Box<AllocListStub>),
    Many(Vec<AllocListStub>),
}

pub async fn alloc_by_prefix(client: &Client, id: &str) -> anyhow::Result<AllocLookup> {
    if id.len() == 1 {
        return Err(anyhow!("Identifier must contain at least two characters."));
    }
    let id = sanitize_uuid_prefix(id);
    let (mut allocs, _) = client
        .allocations(Some(&QueryOptions::prefix(id)))
        .await
        .context("Error querying allocation")?;
    match allocs.len() {
        0 => Err(anyhow!("No allocation(s) with prefix or id {id:?} found")),
        1 => Ok(AllocLookup::One(Box::new(allocs.remove(0)))),
        _ => Ok(AllocLookup::Many(allocs)),
    }
}

pub async fn evals_by_prefix(client: &Client, id: &str) -> anyhow::Result<Vec<Evaluation>> {
    if id.len() == 1 {
        return Err(anyhow!("Identifier must contain at least two characters."));
    }
    let id = sanitize_uuid_prefix(id);
    let (evals, _) = client
        .evaluations(Some(&QueryOptions::prefix(id)))
        .await
        .context("Error querying evaluation")?;
    if evals.is_empty() {
        return Err(anyhow!("No evaluation(s) with prefix or id {id:?} found"));
    }
    Ok(evals)
}

pub async fn nodes_by_prefix(client: &Client, id: &str) -> anyhow::Result<Vec<NodeListStub>> {
    if id.len() == 1 {
        return Err(anyhow!("Identifier must contain at least two characters."));
    }
    let id = sanitize_uuid_prefix(id);
    let (nodes, _) = client
        .nodes(Some(&QueryOptions::prefix(id)))
        .await
        .context("Error querying node info")?;
    if nodes.is_empty() {
        return Err(anyhow!("No node(s) with prefix {id:?} found"));
    }
    Ok(nodes)
}

/// The alloc table (`formatAllocListStubs`); `deadlines` adds a "Max Run Deadline" column
/// when any entry is non-empty.
pub fn alloc_stub_table(
    stubs: &[AllocListStub],
    verbose: bool,
    length: usize,
    deadlines: &[String],
) -> String {
    if stubs.is_empty() {
        return "No allocations placed".to_string();
    }
    let show_deadline = deadlines.iter().any(|d| !d.is_empty());
    let mut rows = Vec::with_capacity(stubs.len() + 1);
    let mut header = if verbose {
        "ID|Eval ID|Node ID|Node Name|Task Group|Version|Desired|Status|Created|Modified"
    } else {
        "ID|Node ID|Task Group|Version|Desired|Status|Created|Modified"
    }
    .to_string();
    if show_deadline {
        header.push_str("|Max Run Deadline");
    }
    rows.push(header);
    let now = output::now_nanos();
    for (i, a) in stubs.iter().enumerate() {
        let mut row = if verbose {
            format!(
                "{}|{}|{}|{}|{}|{}|{}|{}|{}|{}",
                limit(&a.id, length),
                limit(&a.eval_id, length),
                limit(&a.node_id, length),
                a.node_name,
                a.task_group,
                a.job_version,
                a.desired_status,
                a.client_status,
                output::format_unix_nano(a.create_time),
                output::format_unix_nano(a.modify_time)
            )
        } else {
            format!(
                "{}|{}|{}|{}|{}|{}|{}|{}",
                limit(&a.id, length),
                limit(&a.node_id, length),
                a.task_group,
                a.job_version,
                a.desired_status,
                a.client_status,
                pretty_time_diff(a.create_time, now),
                pretty_time_diff(a.modify_time, now)
            )
        };
        if show_deadline {
            row.push('|');
            row.push_str(deadlines.get(i).map(String::as_str).unwrap_or(""));
        }
        rows.push(row);
    }
    format_list(&rows)
}

/// Max run deadlines of batch allocs (`jobTaskGroupMaxRunDeadline`), one entry per stub.
pub fn max_run_deadlines(job: Option<&Job>, stubs: &[AllocListStub], verbose: bool) -> Vec<String> {
    let now = output::now_nanos();
    stubs
        .iter()
        .map(
            |a| match max_run_deadline(job, &a.task_group, a.create_time) {
                Some(deadline) if verbose => output::format_unix_nano(deadline),
                Some(deadline) => pretty_time_diff(deadline, now),
                None => String::new(),
            },
        )
        .collect()
}

pub fn max_run_deadline(job: Option<&Job>, group: &str, create_time: i64) -> Option<i64> {
    let job = job?;
    if !job.is_batch() || create_time == 0 {
        return None;
    }
    let d = job.lookup_task_group(group)?.max_run_duration?;
    (d > 0).then_some(create_time + d)
}

/// "==> View ... in the Web UI: <url>" hints, shown only when the agent says it serves a UI
/// with CLI hints on (Nomad's `showUIPath`), and not when `NOMAD_CLI_SHOW_HINTS` is false.
pub async fn ui_hint(client: &Client, path: &str, description: &str) -> Option<String> {
    let env = std::env::var("NOMAD_CLI_SHOW_HINTS").ok();
    let env_flag = env.as_deref().and_then(parse_bool);
    if env_flag == Some(false) {
        return None;
    }
    let me = client.agent_self().await.ok()?;
    let ui = me.get("config")?.get("UI")?;
    if ui.get("Enabled").and_then(|v| v.as_bool()) != Some(true) {
        return None;
    }
    let agent_hints = ui.get("ShowCLIHints").and_then(|v| v.as_bool());
    if agent_hints == Some(false) && env_flag != Some(true) {
        return None;
    }
    let base = client.address().trim_end_matches('/');
    Some(format!(
        "\n\n==> {description} in the Web UI: {base}/ui{path}"
    ))
}

fn parse_bool(s: &str) -> Option<bool> {
    match s {
        "1" | "t" | "T" | "TRUE" | "true" | "True" => Some(true),
        "0" | "f" | "F" | "FALSE" | "false" | "False" => Some(false),
        _ => None,
    }
}

/// Print a hint (stderr, like Nomad's `Ui.Warn`) if the agent wants hints.
pub async fn print_ui_hint(client: &Client, path: &str, description: &str) -> bool {
    match ui_hint(client, path, description).await {
        Some(h) => {
            output::err(h);
            true
        }
        None => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn uuid_prefixes_are_cut_to_whole_bytes() {
        assert_eq!(sanitize_uuid_prefix("0dfb874"), "0dfb87");
        assert_eq!(sanitize_uuid_prefix("0dfb874c-2"), "0dfb874c-");
        assert_eq!(sanitize_uuid_prefix("0dfb874c-22"), "0dfb874c-22");
        assert_eq!(sanitize_uuid_prefix(""), "");
    }

    #[test]
    fn job_list_table_matches_nomad_status_sample() {
        let stub = |id: &str, ty: &str, status: &str, t: i64| JobListStub {
            id: id.into(),
            r#type: ty.into(),
            priority: 50,
            status: status.into(),
            submit_time: t,
            ..Default::default()
        };
        let jobs = vec![
            stub("example", "service", "running", 0),
            stub("once", "batch", "dead", 0),
        ];
        let got = job_list_table(&jobs, false);
        assert_eq!(
            got,
            "ID       Type     Priority  Status   Submit Date\n\
             example  service  50        running  <none>\n\
             once     batch    50        dead     <none>"
        );
    }

    #[test]
    fn max_run_deadline_only_for_batch_groups_with_a_limit() {
        let mut job = Job {
            r#type: "batch".into(),
            task_groups: vec![nomad::api::TaskGroup {
                name: "g".into(),
                max_run_duration: Some(10),
                ..Default::default()
            }],
            ..Default::default()
        };
        assert_eq!(max_run_deadline(Some(&job), "g", 5), Some(15));
        assert_eq!(max_run_deadline(Some(&job), "g", 0), None);
        assert_eq!(max_run_deadline(Some(&job), "other", 5), None);
        job.r#type = "service".into();
        assert_eq!(max_run_deadline(Some(&job), "g", 5), None);
    }
}
