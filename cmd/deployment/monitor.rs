//! `nomad deployment status -monitor`: follow a deployment with blocking queries until it is
//! terminal, as Nomad's `DeploymentStatusCommand.monitor`.
//!
//! On a TTY the current status block is redrawn in place under a spinner and the final frame
//! names the outcome (`✓ Deployment "x" successful`, `! Deployment "x" failed`); otherwise every
//! answer of the blocking query (a change, or the `-wait` timeout) prints a timestamped block.
//! A failed deployment of an auto-reverting job is followed by the rollback's deployment.
//!
//! ```text
//!  running/paused/pending --(poll)--> ... --> successful | cancelled | blocked   (done)
//!                                         \-> failed --auto_revert--> monitor rollback
//! ```

use std::io::IsTerminal as _;
use std::time::Duration;

use chrono::Local;
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use nomad::api::client::{Client, QueryOptions};
use nomad::api::Deployment;

use super::status::format_deployment;
use crate::meta;
use crate::output::{self, limit};

/// How long a failed deployment's rollback may take to appear, and how often to look.
const ROLLBACK_WAIT: Duration = Duration::from_secs(3);
const ROLLBACK_POLL: Duration = Duration::from_millis(250);

/// Statuses after which a deployment no longer changes on its own.
fn is_terminal(status: &str) -> bool {
    matches!(status, "successful" | "cancelled" | "blocked" | "failed")
}

fn has_auto_revert(d: &Deployment) -> bool {
    d.task_groups.values().any(|s| s.auto_revert)
}

fn now() -> String {
    output::format_time(Local::now())
}

/// How to follow the deployment.
pub struct Monitor<'a> {
    pub client: &'a Client,
    pub length: usize,
    pub verbose: bool,
    /// Upper bound of each blocking query (`-wait`).
    pub wait: Duration,
    /// Put before each plain block: "" for `deployment status`, Nomad's "    " output prefix
    /// when `job run` and the other eval monitors go on to the deployment.
    pub prefix: &'static str,
}

impl Monitor<'_> {
    /// Follow `id` from raft index `index`; returns its final state (`None` after an error,
    /// already printed). A failed deployment's auto-revert is followed too, but the outcome
    /// stays the failure, as Nomad's.
    pub async fn run(&self, id: &str, index: u64) -> anyhow::Result<Option<Deployment>> {
        let Some(d) = self.follow(id, index).await? else {
            return Ok(None);
        };
        let mut last = d.clone();
        while last.status == "failed" && has_auto_revert(&last) {
            match self.rollback_of(&last).await {
                Ok(Some(r)) => {
                    output::out("")?;
                    match self.follow(&r.id, index).await? {
                        Some(next) => last = next,
                        None => break,
                    }
                }
                Ok(None) => {
                    output::out("")?;
                    break;
                }
                Err(e) => {
                    output::out("")?;
                    output::err(format!(
                        "{}: Error fetching deployment of previous job version: {e:#}",
                        now()
                    ));
                    break;
                }
            }
        }
        Ok(Some(d))
    }

    async fn follow(&self, id: &str, index: u64) -> anyhow::Result<Option<Deployment>> {
        if std::io::stdout().is_terminal() {
            self.follow_tty(id, index).await
        } else {
            self.follow_plain(id, index).await
        }
    }

    /// The deployment of the rollback a failed auto-reverting deployment started. Nomad looks
    /// once after a second; this looks a few times over [`ROLLBACK_WAIT`] so a slow scheduler
    /// does not end the monitor early. `None` when no rollback appears (no stable version).
    async fn rollback_of(&self, failed: &Deployment) -> anyhow::Result<Option<Deployment>> {
        let q = QueryOptions::namespace(&failed.namespace);
        let started = std::time::Instant::now();
        loop {
            tokio::time::sleep(ROLLBACK_POLL).await;
            let (latest, _) = self
                .client
                .job_latest_deployment(&failed.job_id, Some(&q))
                .await?;
            if let Some(r) = latest.filter(|r| r.id != failed.id) {
                return Ok(Some(r));
            }
            if started.elapsed() >= ROLLBACK_WAIT {
                return Ok(None);
            }
        }
    }

    /// One status block: the time, the deployment, and with `-verbose` its allocations.
    async fn block(&self, d: &Deployment) -> String {
        let mut info = format!("{}\n{}", now(), format_deployment(d, self.length));
        if self.verbose {
            info.push_str("\n\nAllocations\n");
            match self.client.deployment_allocations(&d.id, None).await {
                Ok((allocs, _)) => {
                    info.push_str(&meta::alloc_stub_table(&allocs, true, self.length, &[]))
                }
                Err(e) => info.push_str(&format!("Error fetching allocations: {e}")),
            }
        }
        info
    }

    async fn fetch(&self, id: &str, index: u64) -> anyhow::Result<(Deployment, u64)> {
        let q = QueryOptions {
            index,
            wait: Some(self.wait),
            ..Default::default()
        };
        let (d, meta) = self.client.deployment(id, Some(&q)).await?;
        Ok((d, meta.last_index))
    }

    /// Plain lines: every answer prints a block. `None` after an error (already printed).
    async fn follow_plain(&self, id: &str, mut index: u64) -> anyhow::Result<Option<Deployment>> {
        loop {
            let (d, last) = match self.fetch(id, index).await {
                Ok(v) => v,
                Err(e) => {
                    output::err(format!("{}: Error fetching deployment: {e:#}", now()));
                    return Ok(None);
                }
            };
            output::out(format!("{}\n{}", self.prefix, self.block(&d).await))?;
            if is_terminal(&d.status) {
                return Ok(Some(d));
            }
            index = last;
        }
    }

    /// Redrawn in place under a spinner; the final frame stays.
    async fn follow_tty(&self, id: &str, mut index: u64) -> anyhow::Result<Option<Deployment>> {
        let short = limit(id, self.length).to_string();
        let pb = ProgressBar::with_draw_target(None, ProgressDrawTarget::stdout());
        if let Ok(style) = ProgressStyle::with_template("  {spinner} {prefix}\n{msg}") {
            pb.set_style(style);
        }
        pb.set_prefix(format!("Deployment {short:?} in progress..."));
        pb.enable_steady_tick(Duration::from_millis(100));
        loop {
            let (d, last) = match self.fetch(id, index).await {
                Ok(v) => v,
                Err(e) => {
                    pb.finish_and_clear();
                    output::err(format!("    {}: Error fetching deployment: {e:#}", now()));
                    return Ok(None);
                }
            };
            let block = indent(&format!("\n{}", self.block(&d).await), 4);
            if !is_terminal(&d.status) {
                pb.set_message(block);
                index = last;
                continue;
            }
            pb.finish_and_clear();
            let mark = match d.status.as_str() {
                "successful" => "✓",
                _ => "!",
            };
            output::out(format!(
                "  {mark} Deployment {short:?} {}\n{block}\n",
                d.status
            ))?;
            return Ok(Some(d));
        }
    }
}

fn indent(text: &str, n: usize) -> String {
    let pad = " ".repeat(n);
    text.lines()
        .map(|l| {
            if l.is_empty() {
                String::new()
            } else {
                format!("{pad}{l}")
            }
        })
        .collect::<Vec<_>>()
        .join("\n")
}

#[cfg(test)]
mod tests {
    use super::*;
    use nomad::api::DeploymentState;

    #[test]
    fn terminal_statuses_and_auto_revert() {
        for s in ["successful", "cancelled", "blocked", "failed"] {
            assert!(is_terminal(s), "{s}");
        }
        for s in ["running", "paused", "pending", "initializing", "unblocking"] {
            assert!(!is_terminal(s), "{s}");
        }
        let mut d = Deployment::default();
        assert!(!has_auto_revert(&d));
        d.task_groups.insert(
            "web".into(),
            DeploymentState {
                auto_revert: true,
                ..Default::default()
            },
        );
        assert!(has_auto_revert(&d));
    }

    #[test]
    fn blocks_are_indented_except_blank_lines() {
        assert_eq!(indent("\na\n\nb", 4), "\n    a\n\n    b");
    }
}
