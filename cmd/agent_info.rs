//! `nomad agent-info [-json]`: the queried agent's runtime statistics, by section.

use serde_json::Value;

use crate::meta::GlobalArgs;
use crate::output;

#[derive(Debug, clap::Args)]
pub struct Args {
    #[command(flatten)]
    pub global: GlobalArgs,
    /// Output the agent's self information in its JSON format.
    #[arg(long)]
    pub json: bool,
    /// Format and display the output using a Go template.
    #[arg(short = 't', value_name = "TEMPLATE")]
    pub template: Option<String>,
    /// No arguments are accepted.
    #[arg(hide = true)]
    pub rest: Vec<String>,
}

pub async fn run(args: &Args) -> anyhow::Result<i32> {
    if !args.rest.is_empty() {
        output::err("This command takes no arguments");
        output::err("For additional help try 'nomad agent-info -help'");
        return Ok(1);
    }
    let client = args.global.client()?;
    let info = match client.agent_self().await {
        Ok(i) => i,
        Err(e) => {
            output::err(format!("Error querying agent info: {e}"));
            return Ok(1);
        }
    };
    if output::wants_formatted(args.json, args.template.as_deref()) {
        return Ok(output::print_formatted(
            args.json,
            args.template.as_deref(),
            &info,
        )?);
    }
    output::out(format_stats(&info["stats"]))?;
    Ok(0)
}

/// Each section of `stats`, then its keys indented, both sorted (Nomad's layout).
fn format_stats(stats: &Value) -> String {
    let mut lines = Vec::new();
    let Some(sections) = stats.as_object() else {
        return String::new();
    };
    let mut names: Vec<&String> = sections.keys().collect();
    names.sort();
    for name in names {
        lines.push(name.clone());
        if let Some(values) = sections[name].as_object() {
            let mut keys: Vec<&String> = values.keys().collect();
            keys.sort();
            for k in keys {
                let v = match &values[k] {
                    Value::String(s) => s.clone(),
                    other => other.to_string(),
                };
                lines.push(format!("  {k} = {v}"));
            }
        }
    }
    lines.join("\n")
}

#[cfg(test)]
mod tests {
    #[test]
    fn sections_and_keys_are_sorted_and_indented() {
        let stats = serde_json::json!({
            "runtime": {"version": "go1", "arch": "amd64"},
            "client": {"node_id": "n1"}
        });
        assert_eq!(
            super::format_stats(&stats),
            "client\n  node_id = n1\nruntime\n  arch = amd64\n  version = go1"
        );
    }
}
