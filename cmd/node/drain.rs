//! `nomad node drain [options] <node>`: toggle a node's drain and follow it to completion.

use std::collections::BTreeMap;

use anyhow::anyhow;
use nomad::api::{DrainSpec, NodeUpdateDrainRequest, HOUR, SECOND};

use super::drain_monitor;
use super::lookup::one_node;
use crate::meta::GlobalArgs;
use crate::output::{self, format_time};

const HELP_HINT: &str = "For additional help try 'nomad node drain -help'";

#[derive(Debug, Clone, Default, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub global: GlobalArgs,
    /// Enable draining on the specified node.
    #[arg(long)]
    pub enable: bool,
    /// Disable draining on the specified node.
    #[arg(long)]
    pub disable: bool,
    /// Set the deadline by which all allocations must be moved off the node (default 1h).
    #[arg(long)]
    pub deadline: Option<String>,
    /// No deadline: allocations are moved only as their migrate blocks allow.
    #[arg(long = "no-deadline")]
    pub no_deadline: bool,
    /// Force remove allocations off the node immediately.
    #[arg(long)]
    pub force: bool,
    /// Return immediately instead of monitoring the drain.
    #[arg(long)]
    pub detach: bool,
    /// Enter monitor mode directly without modifying the drain status.
    #[arg(long)]
    pub monitor: bool,
    /// Do not drain system job allocations from the node.
    #[arg(long = "ignore-system")]
    pub ignore_system: bool,
    /// Do not update the node's scheduling eligibility when the drain is disabled.
    #[arg(long = "keep-ineligible")]
    pub keep_ineligible: bool,
    /// Drain the local node.
    #[arg(long = "self")]
    pub self_: bool,
    /// Automatic yes to prompts.
    #[arg(long)]
    pub yes: bool,
    /// Message for the drain update operation (stored in the node's LastDrain.Meta).
    #[arg(short = 'm')]
    pub message: Option<String>,
    /// Custom metadata for the drain operation, as key=value (repeatable).
    #[arg(long = "meta", value_name = "KEY=VALUE")]
    pub meta: Vec<String>,
    /// The node ID or prefix.
    pub node: Option<String>,
}

/// A usage error: the message, then the help hint, exit 1.
fn usage(msg: &str) -> anyhow::Result<i32> {
    output::err(msg);
    output::err(HELP_HINT);
    Ok(1)
}

/// The drain deadline in nanoseconds from the flags (Nomad: -force is -1s, -no-deadline 0).
fn deadline(args: &Args) -> Result<i64, String> {
    if args.force {
        return Ok(-SECOND);
    }
    if args.no_deadline {
        return Ok(0);
    }
    let Some(text) = &args.deadline else {
        return Ok(HOUR);
    };
    let d = nomad::api::duration::parse_go_duration(text)
        .map_err(|e| format!("Failed to parse deadline {text:?}: {e}"))?;
    if d <= 0 {
        return Err("A positive drain duration must be given".to_string());
    }
    Ok(d)
}

fn check_flags(args: &Args) -> Option<&'static str> {
    if args.monitor && (args.enable || args.disable) {
        return Some("The -monitor flag cannot be used with the '-enable' or '-disable' flags");
    }
    if !args.monitor && args.enable == args.disable {
        return Some(
            "Either the '-enable' or '-disable' flag must be set, unless using '-monitor'",
        );
    }
    if args.node.is_some() == args.self_ {
        return Some("Node ID must be specified if -self isn't being used");
    }
    let strategy_flags =
        args.deadline.is_some() || args.force || args.no_deadline || args.ignore_system;
    if args.disable && strategy_flags {
        return Some("-disable can't be combined with flags configuring drain strategy");
    }
    if args.deadline.is_some() && (args.force || args.no_deadline) {
        return Some("-deadline can't be combined with -force or -no-deadline");
    }
    if args.force && args.no_deadline {
        return Some("-force and -no-deadline are mutually exclusive");
    }
    None
}

pub async fn run(args: &Args, g: &GlobalArgs) -> anyhow::Result<i32> {
    if let Some(msg) = check_flags(args) {
        return usage(msg);
    }
    let deadline = match deadline(args) {
        Ok(d) => d,
        Err(msg) => {
            output::err(msg);
            return Ok(1);
        }
    };
    let client = g.client()?;
    let stub = one_node(
        &client,
        args.node.as_deref(),
        args.self_,
        "Error toggling drain mode",
    )
    .await?;
    let (node, meta) = client
        .node(&stub.id, None)
        .await
        .map_err(|e| anyhow!("Error toggling drain mode: {e}"))?;
    if args.monitor {
        if node.drain_strategy.is_none() {
            output::err("No drain strategy set");
            return Ok(0);
        }
        output::out(format!(
            "{}: Monitoring node {:?}: Ctrl-C to detach monitoring",
            now(),
            node.id
        ))?;
        drain_monitor::monitor(&client, &node.id, meta.last_index, args.ignore_system).await?;
        return Ok(0);
    }
    let typed = args.node.as_deref().unwrap_or(&node.id);
    if typed != node.id && !args.yes {
        if let Some(code) = confirm(args.disable, &node.id)? {
            return Ok(code);
        }
    }
    let request = NodeUpdateDrainRequest {
        node_id: node.id.clone(),
        drain_spec: args.enable.then_some(DrainSpec {
            deadline,
            ignore_system_jobs: args.ignore_system,
        }),
        mark_eligible: !args.keep_ineligible,
        meta: Some(drain_meta(
            args,
            node.last_drain.as_ref().and_then(|l| l.meta.clone()),
        )),
    };
    let (resp, _) = client
        .node_update_drain(&node.id, &request)
        .await
        .map_err(|e| anyhow!("Error updating drain specification: {e}"))?;
    if !args.enable {
        output::out(format!("Node {:?} drain strategy unset", node.id))?;
        return Ok(0);
    }
    if args.detach {
        output::out(format!("Node {:?} drain strategy set", node.id))?;
        return Ok(0);
    }
    let t = now();
    output::out(format!(
        "{t}: Ctrl-C to stop monitoring: will not cancel the node drain"
    ))?;
    output::out(format!("{t}: Node {:?} drain strategy set", node.id))?;
    drain_monitor::monitor(&client, &node.id, resp.index, args.ignore_system).await?;
    Ok(0)
}

/// `LastDrain.Meta` for the request: a disable keeps the last drain's meta; `-m` is the
/// `message` (or `cancel_message`), then `-meta k=v` pairs.
fn drain_meta(args: &Args, last: Option<BTreeMap<String, String>>) -> BTreeMap<String, String> {
    let mut meta = if args.disable {
        last.unwrap_or_default()
    } else {
        BTreeMap::new()
    };
    if let Some(m) = args.message.as_deref().filter(|m| !m.is_empty()) {
        let key = if args.enable {
            "message"
        } else {
            "cancel_message"
        };
        meta.insert(key.to_string(), m.to_string());
    }
    for kv in args.meta.iter().filter(|kv| !kv.is_empty()) {
        let (k, v) = kv.split_once('=').unwrap_or((kv, ""));
        meta.insert(k.to_string(), v.to_string());
    }
    meta
}

pub(super) fn now() -> String {
    format_time(chrono::Local::now())
}

/// Ask before acting on a prefix match; `Some(exit code)` unless the answer is an exact "y".
fn confirm(disable: bool, node_id: &str) -> anyhow::Result<Option<i32>> {
    let verb = if disable { "disable" } else { "enable" };
    output::confirm(
        &format!("Are you sure you want to {verb} drain mode for node {node_id:?}? [y/N]"),
        "Canceling drain toggle",
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(f: impl FnOnce(&mut Args)) -> Args {
        let mut a = Args {
            enable: true,
            node: Some("abcd".to_string()),
            ..Default::default()
        };
        f(&mut a);
        a
    }

    #[test]
    fn flag_combinations_are_checked_like_nomad() {
        assert_eq!(check_flags(&args(|_| {})), None);
        assert!(check_flags(&args(|a| a.disable = true)).is_some());
        assert!(check_flags(&args(|a| a.monitor = true)).is_some());
        assert!(check_flags(&args(|a| a.node = None)).is_some());
        let both = args(|a| {
            a.force = true;
            a.no_deadline = true;
        });
        assert_eq!(
            check_flags(&both),
            Some("-force and -no-deadline are mutually exclusive")
        );
        let disable = args(|a| {
            a.enable = false;
            a.disable = true;
            a.ignore_system = true;
        });
        assert!(check_flags(&disable).is_some());
    }

    #[test]
    fn deadlines() {
        assert_eq!(deadline(&args(|_| {})), Ok(HOUR));
        assert_eq!(deadline(&args(|a| a.force = true)), Ok(-SECOND));
        assert_eq!(deadline(&args(|a| a.no_deadline = true)), Ok(0));
        let d = args(|a| a.deadline = Some("5m".to_string()));
        assert_eq!(deadline(&d), Ok(300 * SECOND));
        let neg = args(|a| a.deadline = Some("-5m".to_string()));
        assert_eq!(
            deadline(&neg),
            Err("A positive drain duration must be given".to_string())
        );
    }

    #[test]
    fn meta_from_flags() {
        let a = args(|a| {
            a.message = Some("maint".to_string());
            a.meta = vec!["ticket=42".to_string(), "flag".to_string()];
        });
        let m = drain_meta(&a, None);
        assert_eq!(m["message"], "maint");
        assert_eq!(m["ticket"], "42");
        assert_eq!(m["flag"], "");
        let d = args(|a| {
            a.enable = false;
            a.disable = true;
            a.message = Some("done".to_string());
        });
        let kept = drain_meta(
            &d,
            Some([("message".to_string(), "maint".to_string())].into()),
        );
        assert_eq!(kept["message"], "maint");
        assert_eq!(kept["cancel_message"], "done");
    }
}
