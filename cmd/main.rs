//! The `nomad` binary: parse arguments, call the library, print, choose the exit code.
//!
//! Exit codes follow Nomad: 0 success, 1 error (including bad flags), 2 placement failures
//! from `job run`; a closed stdout (`nomad status | head -1`) ends the command with 0.

mod agent;
mod agent_info;
mod alloc;
mod argv;
mod deployment;
mod eval;
mod fmt;
mod gotemplate;
mod job;
mod meta;
mod monitor;
mod node;
mod operator;
mod output;
mod server;
mod service;
mod status;
mod system;
mod version;

#[cfg(test)]
mod completions;

// `crate::agent` is the `nomad agent` command, hence the alias for the library's agent.
pub(crate) use nomad::{agent as agent_lib, jobspec};

use clap::{CommandFactory as _, Parser, Subcommand};

#[derive(Debug, Parser)]
#[command(
    name = "nomad",
    bin_name = "nomad",
    about = "Nomad-compatible workload orchestrator",
    disable_version_flag = true,
    subcommand_required = false,
    arg_required_else_help = true
)]
pub struct Cli {
    /// Print the version (as `nomad version`).
    #[arg(long, short = 'v')]
    pub version: bool,
    #[command(subcommand)]
    pub command: Option<Command>,
}

#[derive(Debug, Subcommand)]
pub enum Command {
    /// Runs a Nomad agent
    Agent(agent::Args),
    /// Display status information about the local agent
    #[command(name = "agent-info")]
    AgentInfo(agent_info::Args),
    /// Interact with allocations
    #[command(subcommand)]
    Alloc(alloc::AllocCommand),
    /// Interact with deployments
    #[command(subcommand)]
    Deployment(deployment::DeploymentCommand),
    /// Interact with evaluations
    #[command(subcommand)]
    Eval(eval::EvalCommand),
    /// Rewrites Nomad config and job files to canonical format
    Fmt(fmt::Args),
    /// Interact with jobs
    #[command(subcommand)]
    Job(job::JobCommand),
    /// Interact with nodes
    #[command(subcommand)]
    Node(node::NodeCommand),
    /// Interact with servers
    #[command(subcommand)]
    Server(server::ServerCommand),
    /// Interact with registered services
    #[command(subcommand)]
    Service(service::ServiceCommand),
    /// Provides cluster-level tools for Nomad operators
    #[command(subcommand)]
    Operator(operator::OperatorCommand),
    /// Display the status output for a resource
    Status(status::Args),
    /// Interact with the system API
    #[command(subcommand)]
    System(system::SystemCommand),
    /// Prints the Nomad version
    Version,
    /// Run a new job or update an existing job (alias of `job run`)
    Run(job::run::Args),
    /// Stop a running job (alias of `job stop`)
    Stop(job::stop::Args),
    /// Start a stopped job (alias of `job start`)
    Start(job::start::Args),
    #[command(hide = true)]
    Init(job::init::Args),
    #[command(hide = true)]
    Inspect(job::inspect::Args),
    #[command(hide = true)]
    Validate(job::validate::Args),
    #[command(hide = true)]
    Logs(alloc::logs::Args),
    /// Execute commands in task (alias of `alloc exec`)
    Exec(alloc::exec::Args),
    #[command(hide = true)]
    Fs(alloc::fs::Args),
}

async fn dispatch(cmd: &Command) -> anyhow::Result<i32> {
    match cmd {
        Command::Agent(_) | Command::Version => unreachable_sync(),
        Command::AgentInfo(a) => agent_info::run(a).await,
        Command::Alloc(c) => alloc::run(c).await,
        Command::Deployment(c) => deployment::run(c).await,
        Command::Eval(c) => eval::run(c).await,
        Command::Fmt(a) => fmt::run(a),
        Command::Job(c) => job::run(c).await,
        Command::Node(c) => node::run(c).await,
        Command::Server(c) => server::run(c).await,
        Command::Service(c) => service::run(c).await,
        Command::Operator(c) => operator::run(c).await,
        Command::Status(a) => status::run(a, &a.global).await,
        Command::System(c) => system::run(c).await,
        Command::Run(a) => job::run::run(a, &a.global).await,
        Command::Stop(a) => job::stop::run(a, &a.global).await,
        Command::Start(a) => job::start::run(a, &a.global).await,
        Command::Init(a) => job::init::run(a),
        Command::Inspect(a) => job::inspect::run(a, &a.global).await,
        Command::Validate(a) => job::validate::run(a, &a.global).await,
        Command::Logs(a) => alloc::logs::run(a, &a.global).await,
        Command::Exec(a) => alloc::exec::run(a, &a.global).await,
        Command::Fs(a) => alloc::fs::run(a, &a.global).await,
    }
}

/// `agent` and `version` are handled before a runtime exists; reaching here is a logic error
/// reported as a normal failure rather than a panic.
fn unreachable_sync() -> anyhow::Result<i32> {
    Err(anyhow::anyhow!(
        "internal error: command dispatched to the wrong runtime"
    ))
}

fn run_cli(cli: &Cli) -> anyhow::Result<i32> {
    let command = match &cli.command {
        None if cli.version => return version::run(),
        None => {
            output::err(Cli::command().render_help().to_string());
            return Ok(1);
        }
        Some(c) => c,
    };
    match command {
        Command::Version => version::run(),
        Command::Agent(a) => agent::run(a),
        other => {
            let rt = tokio::runtime::Builder::new_current_thread()
                .enable_all()
                .build()?;
            rt.block_on(dispatch(other))
        }
    }
}

fn is_broken_pipe(e: &anyhow::Error) -> bool {
    e.chain().any(|c| {
        c.downcast_ref::<std::io::Error>()
            .is_some_and(|io| io.kind() == std::io::ErrorKind::BrokenPipe)
    })
}

fn main() {
    // The per-task supervisor: dispatched before any CLI parsing to stay small.
    if std::env::args_os()
        .nth(1)
        .is_some_and(|a| a == nomad::executor::SUBCOMMAND)
    {
        std::process::exit(nomad::executor::main());
    }
    let args = argv::normalize(std::env::args_os());
    let args = argv::boolean_values(args, &argv::switch_names(&Cli::command()));
    let cli = match Cli::try_parse_from(args) {
        Ok(cli) => cli,
        Err(e) => {
            use clap::error::ErrorKind;
            let code = match e.kind() {
                ErrorKind::DisplayHelp | ErrorKind::DisplayVersion => 0,
                // `nomad` and `nomad job` alone print usage and fail, as Nomad does.
                _ => 1,
            };
            let _ = e.print();
            std::process::exit(code);
        }
    };
    let code = match run_cli(&cli) {
        Ok(code) => code,
        Err(e) if is_broken_pipe(&e) => 0,
        Err(e) => {
            output::err(format!("{e:#}"));
            1
        }
    };
    std::process::exit(code);
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(args: &[&str]) -> Result<Cli, clap::Error> {
        let mut v = vec!["nomad"];
        v.extend_from_slice(args);
        let args = argv::normalize(v.into_iter().map(std::ffi::OsString::from));
        Cli::try_parse_from(argv::boolean_values(
            args,
            &argv::switch_names(&Cli::command()),
        ))
    }

    #[test]
    fn go_style_flags_reach_the_commands() {
        let cli = parse(&[
            "job",
            "run",
            "-detach",
            "-address=http://10.1.1.1:4646",
            "-var",
            "a=b",
            "-check-index",
            "7",
            "x.hcl",
        ])
        .unwrap();
        let Some(Command::Job(job::JobCommand::Run(a))) = cli.command else {
            panic!("wrong command")
        };
        assert!(a.detach);
        assert_eq!(a.global.address, "http://10.1.1.1:4646");
        assert_eq!(a.file.vars, ["a=b"]);
        assert_eq!(a.check_index.as_deref(), Some("7"));
        assert_eq!(a.path, std::path::PathBuf::from("x.hcl"));

        let cli = parse(&[
            "alloc", "logs", "-f", "-n", "5", "-stderr", "0dfb", "server",
        ])
        .unwrap();
        let Some(Command::Alloc(alloc::AllocCommand::Logs(a))) = cli.command else {
            panic!("wrong command")
        };
        assert!(a.follow && a.stderr);
        assert_eq!(a.lines, Some(5));
        assert_eq!(a.task.as_deref(), Some("server"));

        let cli = parse(&["node", "status", "-self", "-verbose", "--namespace", "x"]).unwrap();
        let Some(Command::Node(node::NodeCommand::Status(a))) = cli.command else {
            panic!("wrong command")
        };
        assert!(a.self_ && a.verbose);
        assert_eq!(a.global.namespace.as_deref(), Some("x"));
    }

    #[test]
    fn go_style_boolean_values() {
        let cli = parse(&[
            "job",
            "run",
            "-detach=false",
            "-verbose=true",
            "-hcl2-strict=false",
            "x",
        ])
        .unwrap();
        let Some(Command::Job(job::JobCommand::Run(a))) = cli.command else {
            panic!("wrong command")
        };
        assert!(!a.detach && a.verbose);
    }

    #[test]
    fn aliases_and_version_flag() {
        assert!(matches!(
            parse(&["run", "x.hcl"]).unwrap().command,
            Some(Command::Run(_))
        ));
        assert!(matches!(
            parse(&["stop", "-purge", "x"]).unwrap().command,
            Some(Command::Stop(_))
        ));
        let cli = parse(&["-version"]).unwrap();
        assert!(cli.version && cli.command.is_none());
        assert!(parse(&["job", "status", "-bogus"]).is_err());
    }
}
