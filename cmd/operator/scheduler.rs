//! `nomad operator scheduler get-config|set-config`: read and change the scheduler
//! configuration, with Nomad's flags, output and check-and-set behaviour.

use nomad::api::client::{Client, QueryOptions};
use nomad::api::{
    SchedulerConfiguration, SchedulerConfigurationResponse, SchedulerSetConfigurationResponse,
};
use reqwest::Method;

use crate::meta::GlobalArgs;
use crate::output;

const PATH: &str = "/v1/operator/scheduler/configuration";

#[derive(Debug, clap::Subcommand)]
pub enum SchedulerCommand {
    /// Display the current scheduler configuration
    GetConfig(GetArgs),
    /// Modify the current scheduler configuration
    SetConfig(SetArgs),
}

#[derive(Debug, Clone, Default, clap::Args)]
pub struct GetArgs {
    #[command(flatten)]
    pub global: GlobalArgs,
    /// Output the scheduler config in its JSON format.
    #[arg(long)]
    pub json: bool,
    /// Format and display the output using a Go template.
    #[arg(short = 't', value_name = "TEMPLATE")]
    pub template: Option<String>,
}

#[derive(Debug, Clone, Default, clap::Args)]
/// Bool flags take Go's forms: `-flag`, `-flag=true`, `-flag=false`.
pub struct SetArgs {
    #[command(flatten)]
    pub global: GlobalArgs,
    /// Only update if the passed modify index matches the current server side version.
    #[arg(long)]
    pub check_index: Option<String>,
    /// Whether the scheduler binpacks or spreads allocations ("binpack" or "spread").
    #[arg(long)]
    pub scheduler_algorithm: Option<String>,
    /// Let tasks exceed their reserved memory up to memory_max.
    #[arg(long, num_args = 0..=1, require_equals = true, default_missing_value = "true", value_parser = parse_bool)]
    pub memory_oversubscription: Option<bool>,
    /// Reject job registration, dispatch and scale.
    #[arg(long, num_args = 0..=1, require_equals = true, default_missing_value = "true", value_parser = parse_bool)]
    pub reject_job_registration: Option<bool>,
    /// Pause the eval broker so workers receive no new work.
    #[arg(long, num_args = 0..=1, require_equals = true, default_missing_value = "true", value_parser = parse_bool)]
    pub pause_eval_broker: Option<bool>,
    /// Preemption for batch jobs.
    #[arg(long, num_args = 0..=1, require_equals = true, default_missing_value = "true", value_parser = parse_bool)]
    pub preempt_batch_scheduler: Option<bool>,
    /// Preemption for service jobs.
    #[arg(long, num_args = 0..=1, require_equals = true, default_missing_value = "true", value_parser = parse_bool)]
    pub preempt_service_scheduler: Option<bool>,
    /// Preemption for system batch jobs.
    #[arg(long, num_args = 0..=1, require_equals = true, default_missing_value = "true", value_parser = parse_bool)]
    pub preempt_sysbatch_scheduler: Option<bool>,
    /// Preemption for system jobs.
    #[arg(long, num_args = 0..=1, require_equals = true, default_missing_value = "true", value_parser = parse_bool)]
    pub preempt_system_scheduler: Option<bool>,
    /// Feasible nodes considered for jobs with spread or affinity (default 100).
    #[arg(long)]
    pub node_limit_for_feasibility_checks: Option<u64>,
    /// No arguments are accepted; any given is reported.
    #[arg(hide = true)]
    pub rest: Vec<String>,
}

/// Go's `strconv.ParseBool`, as Nomad's flag helper parses bool values.
fn parse_bool(v: &str) -> Result<bool, String> {
    match v {
        "1" | "t" | "T" | "true" | "TRUE" | "True" => Ok(true),
        "0" | "f" | "F" | "false" | "FALSE" | "False" => Ok(false),
        _ => Err(format!("strconv.ParseBool: parsing {v:?}: invalid syntax")),
    }
}

pub async fn run(cmd: &SchedulerCommand) -> anyhow::Result<i32> {
    match cmd {
        SchedulerCommand::GetConfig(a) => get(a).await,
        SchedulerCommand::SetConfig(a) => set(a).await,
    }
}

async fn fetch(client: &Client) -> anyhow::Result<SchedulerConfigurationResponse> {
    Ok(client.query(PATH, None).await?.0)
}

async fn get(a: &GetArgs) -> anyhow::Result<i32> {
    let client = a.global.client()?;
    let resp = match fetch(&client).await {
        Ok(r) => r,
        Err(e) => {
            output::err(format!("Error querying scheduler configuration: {e}"));
            return Ok(1);
        }
    };
    if output::wants_formatted(a.json, a.template.as_deref()) {
        return Ok(output::print_formatted(
            a.json,
            a.template.as_deref(),
            &resp,
        )?);
    }
    output::out(output::format_kv(&rows(&resp.scheduler_config)))?;
    Ok(0)
}

/// Nomad's `get-config` key/value rows.
pub fn rows(c: &SchedulerConfiguration) -> Vec<String> {
    let p = &c.preemption_config;
    vec![
        format!("Scheduler Algorithm|{}", c.scheduler_algorithm),
        format!(
            "Memory Oversubscription|{}",
            c.memory_oversubscription_enabled
        ),
        format!("Reject Job Registration|{}", c.reject_job_registration),
        format!("Pause Eval Broker|{}", c.pause_eval_broker),
        format!("Preemption System Scheduler|{}", p.system_scheduler_enabled),
        format!(
            "Preemption Service Scheduler|{}",
            p.service_scheduler_enabled
        ),
        format!("Preemption Batch Scheduler|{}", p.batch_scheduler_enabled),
        format!(
            "Preemption SysBatch Scheduler|{}",
            p.sys_batch_scheduler_enabled
        ),
        format!(
            "Node Limit For Feasibility Checks|{}",
            c.node_limit_for_feasibility_checks
        ),
        format!("Modify Index|{}", c.modify_index),
    ]
}

/// The operator's flags merged onto the current configuration.
fn merge(a: &SetArgs, c: &mut SchedulerConfiguration) {
    if let Some(alg) = a.scheduler_algorithm.as_deref().filter(|s| !s.is_empty()) {
        c.scheduler_algorithm = alg.to_string();
    }
    let p = &mut c.preemption_config;
    let pairs = [
        (
            a.memory_oversubscription,
            &mut c.memory_oversubscription_enabled,
        ),
        (a.reject_job_registration, &mut c.reject_job_registration),
        (a.pause_eval_broker, &mut c.pause_eval_broker),
        (a.preempt_batch_scheduler, &mut p.batch_scheduler_enabled),
        (
            a.preempt_service_scheduler,
            &mut p.service_scheduler_enabled,
        ),
        (
            a.preempt_sysbatch_scheduler,
            &mut p.sys_batch_scheduler_enabled,
        ),
        (a.preempt_system_scheduler, &mut p.system_scheduler_enabled),
    ];
    for (flag, field) in pairs {
        if let Some(v) = flag {
            *field = v;
        }
    }
    if let Some(n) = a.node_limit_for_feasibility_checks {
        c.node_limit_for_feasibility_checks = n;
    }
}

async fn set(a: &SetArgs) -> anyhow::Result<i32> {
    let client = a.global.client()?;
    if !a.rest.is_empty() {
        output::err("This command takes no arguments");
        output::err("For additional help try 'nomad operator scheduler set-config -help'");
        return Ok(1);
    }
    let raw = a.check_index.as_deref().unwrap_or("");
    let check_index = if raw.is_empty() {
        0
    } else {
        match raw.parse::<u64>() {
            Ok(n) => n,
            Err(_) => {
                output::err(format!(
                    "Error parsing check-index value {raw:?}: strconv.ParseUint: parsing {raw:?}: invalid syntax"
                ));
                return Ok(1);
            }
        }
    };
    let resp = match fetch(&client).await {
        Ok(r) => r,
        Err(e) => {
            output::err(format!("Error querying for scheduler configuration: {e}"));
            return Ok(1);
        }
    };
    let mut config = resp.scheduler_config;
    if check_index > 0 && config.modify_index != check_index {
        output::err(format!(
            "Error performing check index set: check-index {check_index} does not match does not match current state value {}",
            config.modify_index
        ));
        return Ok(1);
    }
    if check_index > 0 {
        config.modify_index = check_index;
    }
    merge(a, &mut config);
    let q = QueryOptions {
        params: vec![("cas".to_string(), config.modify_index.to_string())],
        ..Default::default()
    };
    let result: Result<(SchedulerSetConfigurationResponse, _), _> = client
        .write(Method::PUT, PATH, Some(&config), Some(&q))
        .await;
    match result {
        Ok((r, _)) if r.updated => {
            output::out("Scheduler configuration updated!")?;
            Ok(0)
        }
        Ok(_) => {
            output::out(
                "Scheduler configuration could not be atomically updated, please try again",
            )?;
            Ok(1)
        }
        Err(e) => {
            output::err(format!("Error setting scheduler configuration: {e}"));
            Ok(1)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_only_touches_given_flags() {
        let mut c = SchedulerConfiguration::default();
        let a = SetArgs {
            scheduler_algorithm: Some("spread".into()),
            preempt_service_scheduler: Some(true),
            preempt_system_scheduler: Some(false),
            ..Default::default()
        };
        merge(&a, &mut c);
        assert_eq!(c.scheduler_algorithm, "spread");
        assert!(c.preemption_config.service_scheduler_enabled);
        assert!(!c.preemption_config.system_scheduler_enabled);
        assert!(!c.memory_oversubscription_enabled);
        assert_eq!(parse_bool("T"), Ok(true));
        assert!(parse_bool("yes").is_err());
    }

    #[test]
    fn rows_match_nomad_labels() {
        let text = output::format_kv(&rows(&SchedulerConfiguration::default()));
        assert!(
            text.starts_with("Scheduler Algorithm               = binpack\n"),
            "{text}"
        );
        assert!(text.contains("Preemption SysBatch Scheduler     = false"));
        assert!(text.ends_with("Modify Index                      = 0"));
    }
}
