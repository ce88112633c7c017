//! `nomad service list|info|delete`: Nomad-native service registrations.

use std::collections::BTreeMap;

use anyhow::{anyhow, Context as _};
use clap::Subcommand;
use nomad::api::client::{Client, QueryOptions};
use nomad::api::{ServiceRegistration, ServiceRegistrationListStub};

use crate::meta::GlobalArgs;
use crate::output::{self, format_kv, format_list, limit, SHORT_ID};

#[derive(Debug, Subcommand)]
pub enum ServiceCommand {
    /// Display all registered Nomad services
    List(ListArgs),
    /// Display an individual Nomad service registration
    Info(InfoArgs),
    /// Deregister a registered Nomad service
    Delete(DeleteArgs),
}

#[derive(Debug, Clone, Default, clap::Args)]
pub struct ListArgs {
    #[command(flatten)]
    pub global: GlobalArgs,
    /// Output the service registrations in their JSON format.
    #[arg(long)]
    pub json: bool,
    /// Format and display the output using a Go template.
    #[arg(short = 't', value_name = "TEMPLATE")]
    pub template: Option<String>,
}

#[derive(Debug, Clone, Default, clap::Args)]
pub struct InfoArgs {
    #[command(flatten)]
    pub global: GlobalArgs,
    /// Output the service registrations in their JSON format.
    #[arg(long)]
    pub json: bool,
    /// Format and display the output using a Go template.
    #[arg(short = 't', value_name = "TEMPLATE")]
    pub template: Option<String>,
    /// Display full information of each registration.
    #[arg(long)]
    pub verbose: bool,
    /// Only show results matching this filter expression (go-bexpr, e.g. `Status == "ready"`).
    #[arg(long, value_name = "EXPR")]
    pub filter: Option<String>,
    /// The service name (or a unique prefix of it).
    pub name: Vec<String>,
}

#[derive(Debug, Clone, Default, clap::Args)]
pub struct DeleteArgs {
    #[command(flatten)]
    pub global: GlobalArgs,
    /// The service name and the registration ID.
    pub args: Vec<String>,
}

pub async fn run(cmd: &ServiceCommand) -> anyhow::Result<i32> {
    match cmd {
        ServiceCommand::List(a) => list(a).await,
        ServiceCommand::Info(a) => info(a).await,
        ServiceCommand::Delete(a) => delete(a).await,
    }
}

async fn list(a: &ListArgs) -> anyhow::Result<i32> {
    let client = a.global.client()?;
    let (list, _) = client
        .services(None)
        .await
        .context("Error listing service registrations")?;
    if list.is_empty() {
        output::out("No service registrations found")?;
        return Ok(0);
    }
    if output::wants_formatted(a.json, a.template.as_deref()) {
        return Ok(output::print_formatted(
            a.json,
            a.template.as_deref(),
            &list,
        )?);
    }
    output::out(list_table(&list, a.global.all_namespaces()))?;
    Ok(0)
}

/// Nomad's `formatServiceListOutput`.
fn list_table(list: &[ServiceRegistrationListStub], all_namespaces: bool) -> String {
    let mut head = "Service Name".to_string();
    if all_namespaces {
        head += "|Namespace";
    }
    head += "|Tags";
    let mut rows = vec![head];
    let mut sorted: Vec<&ServiceRegistrationListStub> = list.iter().collect();
    sorted.sort_by(|a, b| a.namespace.cmp(&b.namespace));
    for ns in sorted {
        let mut services: Vec<_> = ns.services.iter().collect();
        services.sort_by(|a, b| a.service_name.cmp(&b.service_name));
        for s in services {
            let mut tags = s.tags.clone();
            tags.sort();
            let mut row = s.service_name.clone();
            if all_namespaces {
                row += &format!("|{}", ns.namespace);
            }
            row += &format!("|[{}]", tags.join(","));
            rows.push(row);
        }
    }
    format_list(&rows)
}

/// The service a name or prefix means (Nomad's `getServiceByPrefix`): an exact name wins;
/// otherwise exactly one service must start with it.
async fn resolve(client: &Client, prefix: &str) -> anyhow::Result<String> {
    let (list, _) = client
        .services(Some(&QueryOptions::prefix(prefix)))
        .await
        .context("Error listing service registrations")?;
    let names: Vec<&str> = list
        .iter()
        .flat_map(|ns| ns.services.iter())
        .map(|s| s.service_name.as_str())
        .filter(|n| n.starts_with(prefix))
        .collect();
    if names.contains(&prefix) || names.is_empty() {
        return Ok(prefix.to_string());
    }
    if names.len() == 1 {
        return Ok(names[0].to_string());
    }
    let matched: Vec<ServiceRegistrationListStub> = list
        .into_iter()
        .map(|mut ns| {
            ns.services.retain(|s| s.service_name.starts_with(prefix));
            ns
        })
        .collect();
    Err(anyhow!(
        "Prefix matched multiple services\n\n{}",
        list_table(&matched, false)
    ))
}

async fn info(a: &InfoArgs) -> anyhow::Result<i32> {
    if a.name.len() != 1 {
        return Err(anyhow!(
            "This command takes one argument: <service_name>\nFor additional help try 'nomad service info -help'"
        ));
    }
    let client = a.global.client()?;
    let name = resolve(&client, &a.name[0]).await?;
    let q = output::filter_query(a.filter.as_deref());
    let (regs, _) = client
        .service(&name, Some(&q))
        .await
        .context("Error listing service registrations")?;
    if regs.is_empty() {
        output::out("No service registrations found")?;
        return Ok(0);
    }
    if output::wants_formatted(a.json, a.template.as_deref()) {
        return Ok(output::print_formatted(
            a.json,
            a.template.as_deref(),
            &regs,
        )?);
    }
    let mut by_job: BTreeMap<&str, Vec<&ServiceRegistration>> = BTreeMap::new();
    for r in &regs {
        by_job.entry(r.job_id.as_str()).or_default().push(r);
    }
    if a.verbose {
        for r in by_job.values().flatten() {
            output::out(format_kv(&[
                format!("ID|{}", r.id),
                format!("Service Name|{}", r.service_name),
                format!("Namespace|{}", r.namespace),
                format!("Job ID|{}", r.job_id),
                format!("Alloc ID|{}", r.alloc_id),
                format!("Node ID|{}", r.node_id),
                format!("Datacenter|{}", r.datacenter),
                format!("Address|{}:{}", r.address, r.port),
                format!("Tags|[{}]\n", r.tags.join(",")),
            ]))?;
            output::out("")?;
        }
        return Ok(0);
    }
    let mut rows = vec!["Job ID|Address|Tags|Node ID|Alloc ID".to_string()];
    for r in by_job.values().flatten() {
        rows.push(format!(
            "{}|{}|[{}]|{}|{}",
            r.job_id,
            address(&r.address, r.port),
            r.tags.join(","),
            limit(&r.node_id, SHORT_ID),
            limit(&r.alloc_id, SHORT_ID),
        ));
    }
    output::out(format_list(&rows))?;
    Ok(0)
}

/// Go's `net.JoinHostPort`, and the bare address without a port.
fn address(addr: &str, port: i32) -> String {
    match (port, addr.contains(':')) {
        (0, _) => addr.to_string(),
        (_, true) => format!("[{addr}]:{port}"),
        (_, false) => format!("{addr}:{port}"),
    }
}

async fn delete(a: &DeleteArgs) -> anyhow::Result<i32> {
    if a.args.len() != 2 {
        return Err(anyhow!(
            "This command takes two arguments: <service_name> and <service_id>\nFor additional help try 'nomad service delete -help'"
        ));
    }
    let client = a.global.client()?;
    client
        .delete_service(&a.args[0], &a.args[1])
        .await
        .context("Error deleting service registration")?;
    output::out("Successfully deleted service registration")?;
    Ok(0)
}

#[cfg(test)]
mod tests {
    use super::*;
    use nomad::api::ServiceRegistrationStub;

    #[test]
    fn list_table_sorts_namespaces_services_and_tags() {
        let list = vec![
            ServiceRegistrationListStub {
                namespace: "prod".into(),
                services: vec![ServiceRegistrationStub {
                    service_name: "db".into(),
                    tags: vec!["b".into(), "a".into()],
                }],
            },
            ServiceRegistrationListStub {
                namespace: "default".into(),
                services: vec![
                    ServiceRegistrationStub {
                        service_name: "web".into(),
                        tags: vec![],
                    },
                    ServiceRegistrationStub {
                        service_name: "api".into(),
                        tags: vec!["v1".into()],
                    },
                ],
            },
        ];
        assert_eq!(
            list_table(&list, false),
            "Service Name  Tags\napi           [v1]\nweb           []\ndb            [a,b]"
        );
        assert_eq!(
            list_table(&list, true),
            "Service Name  Namespace  Tags\napi           default    [v1]\nweb           default    []\ndb            prod       [a,b]"
        );
    }

    #[test]
    fn addresses_join_like_go() {
        assert_eq!(address("10.0.0.1", 80), "10.0.0.1:80");
        assert_eq!(address("::1", 80), "[::1]:80");
        assert_eq!(address("10.0.0.1", 0), "10.0.0.1");
    }
}
