
using namespace System.Management.Automation
using namespace System.Management.Automation.Language

Register-ArgumentCompleter -Native -CommandName 'nomad' -ScriptBlock {
    param($wordToComplete, $commandAst, $cursorPosition)

    $commandElements = $commandAst.CommandElements
    $command = @(
        'nomad'
        for ($i = 1; $i -lt $commandElements.Count; $i++) {
            $element = $commandElements[$i]
            if ($element -isnot [StringConstantExpressionAst] -or
                $element.StringConstantType -ne [StringConstantType]::BareWord -or
                $element.Value.StartsWith('-') -or
                $element.Value -eq $wordToComplete) {
                break
        }
        $element.Value
    }) -join ';'

    $completions = @(switch ($command) {
        'nomad' {
            [CompletionResult]::new('-v', '-v', [CompletionResultType]::ParameterName, 'Print the version (as `nomad version`)')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Print the version (as `nomad version`)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('agent', 'agent', [CompletionResultType]::ParameterValue, 'Runs a Nomad agent')
            [CompletionResult]::new('agent-info', 'agent-info', [CompletionResultType]::ParameterValue, 'Display status information about the local agent')
            [CompletionResult]::new('alloc', 'alloc', [CompletionResultType]::ParameterValue, 'Interact with allocations')
            [CompletionResult]::new('deployment', 'deployment', [CompletionResultType]::ParameterValue, 'Interact with deployments')
            [CompletionResult]::new('eval', 'eval', [CompletionResultType]::ParameterValue, 'Interact with evaluations')
            [CompletionResult]::new('fmt', 'fmt', [CompletionResultType]::ParameterValue, 'Rewrites Nomad config and job files to canonical format')
            [CompletionResult]::new('job', 'job', [CompletionResultType]::ParameterValue, 'Interact with jobs')
            [CompletionResult]::new('node', 'node', [CompletionResultType]::ParameterValue, 'Interact with nodes')
            [CompletionResult]::new('server', 'server', [CompletionResultType]::ParameterValue, 'Interact with servers')
            [CompletionResult]::new('service', 'service', [CompletionResultType]::ParameterValue, 'Interact with registered services')
            [CompletionResult]::new('operator', 'operator', [CompletionResultType]::ParameterValue, 'Provides cluster-level tools for Nomad operators')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Display the status output for a resource')
            [CompletionResult]::new('system', 'system', [CompletionResultType]::ParameterValue, 'Interact with the system API')
            [CompletionResult]::new('version', 'version', [CompletionResultType]::ParameterValue, 'Prints the Nomad version')
            [CompletionResult]::new('run', 'run', [CompletionResultType]::ParameterValue, 'Run a new job or update an existing job (alias of `job run`)')
            [CompletionResult]::new('stop', 'stop', [CompletionResultType]::ParameterValue, 'Stop a running job (alias of `job stop`)')
            [CompletionResult]::new('start', 'start', [CompletionResultType]::ParameterValue, 'Start a stopped job (alias of `job start`)')
            [CompletionResult]::new('init', 'init', [CompletionResultType]::ParameterValue, 'init')
            [CompletionResult]::new('inspect', 'inspect', [CompletionResultType]::ParameterValue, 'Flags accepted by every command that talks to an agent')
            [CompletionResult]::new('validate', 'validate', [CompletionResultType]::ParameterValue, 'How `job run`/`job validate` get a job from a file (Nomad''s `JobGetter`)')
            [CompletionResult]::new('logs', 'logs', [CompletionResultType]::ParameterValue, 'Flags accepted by every command that talks to an agent')
            [CompletionResult]::new('exec', 'exec', [CompletionResultType]::ParameterValue, 'Execute commands in task (alias of `alloc exec`)')
            [CompletionResult]::new('fs', 'fs', [CompletionResultType]::ParameterValue, 'Flags accepted by every command that talks to an agent')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'nomad;agent' {
            [CompletionResult]::new('--config', '--config', [CompletionResultType]::ParameterName, 'The path to a config file or directory of files to load; can be specified multiple times')
            [CompletionResult]::new('--bind', '--bind', [CompletionResultType]::ParameterName, 'The address the agent will bind to for all of its various network services')
            [CompletionResult]::new('--data-dir', '--data-dir', [CompletionResultType]::ParameterName, 'The path to the data directory')
            [CompletionResult]::new('--node', '--node', [CompletionResultType]::ParameterName, 'The name of the local agent')
            [CompletionResult]::new('--dc', '--dc', [CompletionResultType]::ParameterName, 'The name of the datacenter this Nomad agent is a member of')
            [CompletionResult]::new('--region', '--region', [CompletionResultType]::ParameterName, 'The region the Nomad agent is a member of')
            [CompletionResult]::new('--log-level', '--log-level', [CompletionResultType]::ParameterName, 'The logging level (TRACE, DEBUG, INFO, WARN, ERROR)')
            [CompletionResult]::new('--bootstrap-expect', '--bootstrap-expect', [CompletionResultType]::ParameterName, 'How many servers to wait for before bootstrapping')
            [CompletionResult]::new('--node-class', '--node-class', [CompletionResultType]::ParameterName, 'Mark this node as a member of a node class')
            [CompletionResult]::new('--node-pool', '--node-pool', [CompletionResultType]::ParameterName, 'The node pool this node is a member of')
            [CompletionResult]::new('--meta', '--meta', [CompletionResultType]::ParameterName, 'User specified metadata (key=value) to associate with the node; repeatable')
            [CompletionResult]::new('--servers', '--servers', [CompletionResultType]::ParameterName, 'A comma-separated list of known server addresses to connect to (client mode)')
            [CompletionResult]::new('--dev', '--dev', [CompletionResultType]::ParameterName, 'Start the agent in development mode: a server and client with in-memory defaults')
            [CompletionResult]::new('--server', '--server', [CompletionResultType]::ParameterName, 'Enable server mode for the agent')
            [CompletionResult]::new('--client', '--client', [CompletionResultType]::ParameterName, 'Enable client mode for the agent')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'nomad;agent-info' {
            [CompletionResult]::new('--address', '--address', [CompletionResultType]::ParameterName, 'The address of the Nomad server')
            [CompletionResult]::new('--region', '--region', [CompletionResultType]::ParameterName, 'The region of the Nomad servers to forward commands to')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The target namespace for queries and actions bound to a namespace')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'The SecretID of an ACL token to use to authenticate API requests with')
            [CompletionResult]::new('-t', '-t', [CompletionResultType]::ParameterName, 'Format and display the output using a Go template')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Output the agent''s self information in its JSON format')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'nomad;alloc' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Display allocation status information and metadata')
            [CompletionResult]::new('logs', 'logs', [CompletionResultType]::ParameterValue, 'Streams the logs of a task')
            [CompletionResult]::new('fs', 'fs', [CompletionResultType]::ParameterValue, 'Inspect the contents of an allocation directory')
            [CompletionResult]::new('exec', 'exec', [CompletionResultType]::ParameterValue, 'Execute commands in task')
            [CompletionResult]::new('checks', 'checks', [CompletionResultType]::ParameterValue, 'Outputs service health check status information')
            [CompletionResult]::new('stop', 'stop', [CompletionResultType]::ParameterValue, 'Stop and reschedule a running allocation')
            [CompletionResult]::new('restart', 'restart', [CompletionResultType]::ParameterValue, 'Restart a running allocation')
            [CompletionResult]::new('signal', 'signal', [CompletionResultType]::ParameterValue, 'Signal a running allocation')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'nomad;alloc;status' {
            [CompletionResult]::new('--address', '--address', [CompletionResultType]::ParameterName, 'The address of the Nomad server')
            [CompletionResult]::new('--region', '--region', [CompletionResultType]::ParameterName, 'The region of the Nomad servers to forward commands to')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The target namespace for queries and actions bound to a namespace')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'The SecretID of an ACL token to use to authenticate API requests with')
            [CompletionResult]::new('-t', '-t', [CompletionResultType]::ParameterName, 'Format and display the output using a Go template')
            [CompletionResult]::new('--short', '--short', [CompletionResultType]::ParameterName, 'Display short output. Shows only the most recent task event')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Show full information')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Output the allocation in its JSON format')
            [CompletionResult]::new('--stats', '--stats', [CompletionResultType]::ParameterName, 'Display detailed resource usage statistics')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'nomad;alloc;logs' {
            [CompletionResult]::new('--address', '--address', [CompletionResultType]::ParameterName, 'The address of the Nomad server')
            [CompletionResult]::new('--region', '--region', [CompletionResultType]::ParameterName, 'The region of the Nomad servers to forward commands to')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The target namespace for queries and actions bound to a namespace')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'The SecretID of an ACL token to use to authenticate API requests with')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Sets the tail location in best-efforted number of lines relative to the end')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Sets the tail location in number of bytes relative to the end')
            [CompletionResult]::new('--task', '--task', [CompletionResultType]::ParameterName, 'Sets the task to view the logs of')
            [CompletionResult]::new('--group', '--group', [CompletionResultType]::ParameterName, 'With -job, pick the allocation from this task group')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Causes the output to not stop, and instead continuously output new lines')
            [CompletionResult]::new('--stderr', '--stderr', [CompletionResultType]::ParameterName, 'Display stderr logs')
            [CompletionResult]::new('--stdout', '--stdout', [CompletionResultType]::ParameterName, 'Display stdout logs (the default)')
            [CompletionResult]::new('--tail', '--tail', [CompletionResultType]::ParameterName, 'Show the logs contents with offsets relative to the end of the logs')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Show full information')
            [CompletionResult]::new('--job', '--job', [CompletionResultType]::ParameterName, 'Use a random allocation from the specified job ID or prefix')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'nomad;alloc;fs' {
            [CompletionResult]::new('--address', '--address', [CompletionResultType]::ParameterName, 'The address of the Nomad server')
            [CompletionResult]::new('--region', '--region', [CompletionResultType]::ParameterName, 'The region of the Nomad servers to forward commands to')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The target namespace for queries and actions bound to a namespace')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'The SecretID of an ACL token to use to authenticate API requests with')
            [CompletionResult]::new('--group', '--group', [CompletionResultType]::ParameterName, 'With -job, only allocations of this task group')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Sets the tail location in best-efforted number of lines relative to the end')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Sets the tail location in number of bytes relative to the end')
            [CompletionResult]::new('-H', '-H ', [CompletionResultType]::ParameterName, 'Machine friendly output: sizes in bytes')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Show full information')
            [CompletionResult]::new('--job', '--job', [CompletionResultType]::ParameterName, 'Use a random allocation from the specified job ID or prefix')
            [CompletionResult]::new('--stat', '--stat', [CompletionResultType]::ParameterName, 'Show file stat information instead of displaying the file, or listing the directory')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Causes the output to not stop, and instead continuously output new lines')
            [CompletionResult]::new('--tail', '--tail', [CompletionResultType]::ParameterName, 'Show the files contents with offsets relative to the end of the file')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'nomad;alloc;exec' {
            [CompletionResult]::new('--address', '--address', [CompletionResultType]::ParameterName, 'The address of the Nomad server')
            [CompletionResult]::new('--region', '--region', [CompletionResultType]::ParameterName, 'The region of the Nomad servers to forward commands to')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The target namespace for queries and actions bound to a namespace')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'The SecretID of an ACL token to use to authenticate API requests with')
            [CompletionResult]::new('--group', '--group', [CompletionResultType]::ParameterName, 'With -job, only allocations of this task group')
            [CompletionResult]::new('-i', '-i', [CompletionResultType]::ParameterName, 'Pass stdin to the container (default true)')
            [CompletionResult]::new('-t', '-t', [CompletionResultType]::ParameterName, 'Allocate a pseudo-tty (default: whether stdin is a terminal)')
            [CompletionResult]::new('-e', '-e', [CompletionResultType]::ParameterName, 'Escape character for closing the session ("none" to disable)')
            [CompletionResult]::new('--task', '--task', [CompletionResultType]::ParameterName, 'The task to exec into (optional when the group has one task)')
            [CompletionResult]::new('--job', '--job', [CompletionResultType]::ParameterName, 'Use a random allocation from the specified job ID or prefix')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'verbose')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'nomad;alloc;checks' {
            [CompletionResult]::new('--address', '--address', [CompletionResultType]::ParameterName, 'The address of the Nomad server')
            [CompletionResult]::new('--region', '--region', [CompletionResultType]::ParameterName, 'The region of the Nomad servers to forward commands to')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The target namespace for queries and actions bound to a namespace')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'The SecretID of an ACL token to use to authenticate API requests with')
            [CompletionResult]::new('-t', '-t', [CompletionResultType]::ParameterName, 'Format and display the output using a Go template')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Show full information')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Output the latest health check status information in a JSON format')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'nomad;alloc;stop' {
            [CompletionResult]::new('--address', '--address', [CompletionResultType]::ParameterName, 'The address of the Nomad server')
            [CompletionResult]::new('--region', '--region', [CompletionResultType]::ParameterName, 'The region of the Nomad servers to forward commands to')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The target namespace for queries and actions bound to a namespace')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'The SecretID of an ACL token to use to authenticate API requests with')
            [CompletionResult]::new('--detach', '--detach', [CompletionResultType]::ParameterName, 'Return immediately instead of monitoring the eval')
            [CompletionResult]::new('--no-shutdown-delay', '--no-shutdown-delay', [CompletionResultType]::ParameterName, 'Ignore the group and tasks'' shutdown_delay')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'verbose')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'nomad;alloc;restart' {
            [CompletionResult]::new('--address', '--address', [CompletionResultType]::ParameterName, 'The address of the Nomad server')
            [CompletionResult]::new('--region', '--region', [CompletionResultType]::ParameterName, 'The region of the Nomad servers to forward commands to')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The target namespace for queries and actions bound to a namespace')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'The SecretID of an ACL token to use to authenticate API requests with')
            [CompletionResult]::new('--task', '--task', [CompletionResultType]::ParameterName, 'The task to restart')
            [CompletionResult]::new('--all-tasks', '--all-tasks', [CompletionResultType]::ParameterName, 'Restart every task of the allocation, including dead prestart and poststart tasks')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'verbose')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'nomad;alloc;signal' {
            [CompletionResult]::new('--address', '--address', [CompletionResultType]::ParameterName, 'The address of the Nomad server')
            [CompletionResult]::new('--region', '--region', [CompletionResultType]::ParameterName, 'The region of the Nomad servers to forward commands to')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The target namespace for queries and actions bound to a namespace')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'The SecretID of an ACL token to use to authenticate API requests with')
            [CompletionResult]::new('-s', '-s', [CompletionResultType]::ParameterName, 'The signal to send')
            [CompletionResult]::new('--task', '--task', [CompletionResultType]::ParameterName, 'The task to signal')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'verbose')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'nomad;alloc;help' {
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Display allocation status information and metadata')
            [CompletionResult]::new('logs', 'logs', [CompletionResultType]::ParameterValue, 'Streams the logs of a task')
            [CompletionResult]::new('fs', 'fs', [CompletionResultType]::ParameterValue, 'Inspect the contents of an allocation directory')
            [CompletionResult]::new('exec', 'exec', [CompletionResultType]::ParameterValue, 'Execute commands in task')
            [CompletionResult]::new('checks', 'checks', [CompletionResultType]::ParameterValue, 'Outputs service health check status information')
            [CompletionResult]::new('stop', 'stop', [CompletionResultType]::ParameterValue, 'Stop and reschedule a running allocation')
            [CompletionResult]::new('restart', 'restart', [CompletionResultType]::ParameterValue, 'Restart a running allocation')
            [CompletionResult]::new('signal', 'signal', [CompletionResultType]::ParameterValue, 'Signal a running allocation')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'nomad;alloc;help;status' {
            break
        }
        'nomad;alloc;help;logs' {
            break
        }
        'nomad;alloc;help;fs' {
            break
        }
        'nomad;alloc;help;exec' {
            break
        }
        'nomad;alloc;help;checks' {
            break
        }
        'nomad;alloc;help;stop' {
            break
        }
        'nomad;alloc;help;restart' {
            break
        }
        'nomad;alloc;help;signal' {
            break
        }
        'nomad;alloc;help;help' {
            break
        }
        'nomad;deployment' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List all deployments')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Display the status of a deployment')
            [CompletionResult]::new('promote', 'promote', [CompletionResultType]::ParameterValue, 'Promote canaries in a deployment')
            [CompletionResult]::new('fail', 'fail', [CompletionResultType]::ParameterValue, 'Manually fail a deployment')
            [CompletionResult]::new('pause', 'pause', [CompletionResultType]::ParameterValue, 'Pause a deployment')
            [CompletionResult]::new('resume', 'resume', [CompletionResultType]::ParameterValue, 'Resume a paused deployment')
            [CompletionResult]::new('unblock', 'unblock', [CompletionResultType]::ParameterValue, 'Unblock a blocked deployment')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'nomad;deployment;list' {
            [CompletionResult]::new('--address', '--address', [CompletionResultType]::ParameterName, 'The address of the Nomad server')
            [CompletionResult]::new('--region', '--region', [CompletionResultType]::ParameterName, 'The region of the Nomad servers to forward commands to')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The target namespace for queries and actions bound to a namespace')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'The SecretID of an ACL token to use to authenticate API requests with')
            [CompletionResult]::new('-t', '-t', [CompletionResultType]::ParameterName, 'Format and display the output using a Go template')
            [CompletionResult]::new('--filter', '--filter', [CompletionResultType]::ParameterName, 'Only show results matching this filter expression (go-bexpr, e.g. `Status == "ready"`)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Output the deployments in their JSON format')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Display full information')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'nomad;deployment;status' {
            [CompletionResult]::new('--address', '--address', [CompletionResultType]::ParameterName, 'The address of the Nomad server')
            [CompletionResult]::new('--region', '--region', [CompletionResultType]::ParameterName, 'The region of the Nomad servers to forward commands to')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The target namespace for queries and actions bound to a namespace')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'The SecretID of an ACL token to use to authenticate API requests with')
            [CompletionResult]::new('-t', '-t', [CompletionResultType]::ParameterName, 'Format and display the output using a Go template')
            [CompletionResult]::new('--wait', '--wait', [CompletionResultType]::ParameterName, 'How long to wait before polling an update, used in conjunction with monitor mode')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Output the deployment in its JSON format')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Display full information')
            [CompletionResult]::new('--monitor', '--monitor', [CompletionResultType]::ParameterName, 'Enter monitor mode to poll for updates to the deployment status')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'nomad;deployment;promote' {
            [CompletionResult]::new('--address', '--address', [CompletionResultType]::ParameterName, 'The address of the Nomad server')
            [CompletionResult]::new('--region', '--region', [CompletionResultType]::ParameterName, 'The region of the Nomad servers to forward commands to')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The target namespace for queries and actions bound to a namespace')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'The SecretID of an ACL token to use to authenticate API requests with')
            [CompletionResult]::new('--group', '--group', [CompletionResultType]::ParameterName, 'Task group to promote; may be given multiple times (default: all groups)')
            [CompletionResult]::new('--detach', '--detach', [CompletionResultType]::ParameterName, 'Return immediately instead of entering monitor mode')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Display full information')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'nomad;deployment;fail' {
            [CompletionResult]::new('--address', '--address', [CompletionResultType]::ParameterName, 'The address of the Nomad server')
            [CompletionResult]::new('--region', '--region', [CompletionResultType]::ParameterName, 'The region of the Nomad servers to forward commands to')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The target namespace for queries and actions bound to a namespace')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'The SecretID of an ACL token to use to authenticate API requests with')
            [CompletionResult]::new('--detach', '--detach', [CompletionResultType]::ParameterName, 'Return immediately instead of entering monitor mode')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Display full information')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'nomad;deployment;pause' {
            [CompletionResult]::new('--address', '--address', [CompletionResultType]::ParameterName, 'The address of the Nomad server')
            [CompletionResult]::new('--region', '--region', [CompletionResultType]::ParameterName, 'The region of the Nomad servers to forward commands to')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The target namespace for queries and actions bound to a namespace')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'The SecretID of an ACL token to use to authenticate API requests with')
            [CompletionResult]::new('--detach', '--detach', [CompletionResultType]::ParameterName, 'Return immediately instead of entering monitor mode')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Display full information')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'nomad;deployment;resume' {
            [CompletionResult]::new('--address', '--address', [CompletionResultType]::ParameterName, 'The address of the Nomad server')
            [CompletionResult]::new('--region', '--region', [CompletionResultType]::ParameterName, 'The region of the Nomad servers to forward commands to')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The target namespace for queries and actions bound to a namespace')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'The SecretID of an ACL token to use to authenticate API requests with')
            [CompletionResult]::new('--detach', '--detach', [CompletionResultType]::ParameterName, 'Return immediately instead of entering monitor mode')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Display full information')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'nomad;deployment;unblock' {
            [CompletionResult]::new('--address', '--address', [CompletionResultType]::ParameterName, 'The address of the Nomad server')
            [CompletionResult]::new('--region', '--region', [CompletionResultType]::ParameterName, 'The region of the Nomad servers to forward commands to')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The target namespace for queries and actions bound to a namespace')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'The SecretID of an ACL token to use to authenticate API requests with')
            [CompletionResult]::new('--detach', '--detach', [CompletionResultType]::ParameterName, 'Return immediately instead of entering monitor mode')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Display full information')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'nomad;deployment;help' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List all deployments')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Display the status of a deployment')
            [CompletionResult]::new('promote', 'promote', [CompletionResultType]::ParameterValue, 'Promote canaries in a deployment')
            [CompletionResult]::new('fail', 'fail', [CompletionResultType]::ParameterValue, 'Manually fail a deployment')
            [CompletionResult]::new('pause', 'pause', [CompletionResultType]::ParameterValue, 'Pause a deployment')
            [CompletionResult]::new('resume', 'resume', [CompletionResultType]::ParameterValue, 'Resume a paused deployment')
            [CompletionResult]::new('unblock', 'unblock', [CompletionResultType]::ParameterValue, 'Unblock a blocked deployment')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'nomad;deployment;help;list' {
            break
        }
        'nomad;deployment;help;status' {
            break
        }
        'nomad;deployment;help;promote' {
            break
        }
        'nomad;deployment;help;fail' {
            break
        }
        'nomad;deployment;help;pause' {
            break
        }
        'nomad;deployment;help;resume' {
            break
        }
        'nomad;deployment;help;unblock' {
            break
        }
        'nomad;deployment;help;help' {
            break
        }
        'nomad;eval' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('delete', 'delete', [CompletionResultType]::ParameterValue, 'Delete evaluations')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List the set of evaluations processed by Nomad')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Display evaluation status and placement failure reasons')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'nomad;eval;delete' {
            [CompletionResult]::new('--address', '--address', [CompletionResultType]::ParameterName, 'The address of the Nomad server')
            [CompletionResult]::new('--region', '--region', [CompletionResultType]::ParameterName, 'The region of the Nomad servers to forward commands to')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The target namespace for queries and actions bound to a namespace')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'The SecretID of an ACL token to use to authenticate API requests with')
            [CompletionResult]::new('--filter', '--filter', [CompletionResultType]::ParameterName, 'Delete the evaluations matching this filter expression (see `nomad eval list -filter`)')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Bypass the confirmation prompt')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'nomad;eval;list' {
            [CompletionResult]::new('--address', '--address', [CompletionResultType]::ParameterName, 'The address of the Nomad server')
            [CompletionResult]::new('--region', '--region', [CompletionResultType]::ParameterName, 'The region of the Nomad servers to forward commands to')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The target namespace for queries and actions bound to a namespace')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'The SecretID of an ACL token to use to authenticate API requests with')
            [CompletionResult]::new('-t', '-t', [CompletionResultType]::ParameterName, 'Format and display the output using a Go template')
            [CompletionResult]::new('--per-page', '--per-page', [CompletionResultType]::ParameterName, 'How many results to show per page')
            [CompletionResult]::new('--page-token', '--page-token', [CompletionResultType]::ParameterName, 'Where to start pagination')
            [CompletionResult]::new('--job', '--job', [CompletionResultType]::ParameterName, 'Only show evaluations for this job ID')
            [CompletionResult]::new('--status', '--status', [CompletionResultType]::ParameterName, 'Only show evaluations with this status')
            [CompletionResult]::new('--filter', '--filter', [CompletionResultType]::ParameterName, 'Only show evaluations matching this filter expression (e.g. `JobID == "web"`)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Show full information')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Output the evaluations in their JSON format')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'nomad;eval;status' {
            [CompletionResult]::new('--address', '--address', [CompletionResultType]::ParameterName, 'The address of the Nomad server')
            [CompletionResult]::new('--region', '--region', [CompletionResultType]::ParameterName, 'The region of the Nomad servers to forward commands to')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The target namespace for queries and actions bound to a namespace')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'The SecretID of an ACL token to use to authenticate API requests with')
            [CompletionResult]::new('-t', '-t', [CompletionResultType]::ParameterName, 'Format and display the output using a Go template')
            [CompletionResult]::new('--monitor', '--monitor', [CompletionResultType]::ParameterName, 'Monitor an outstanding evaluation')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Show full information')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Output the evaluation in its JSON format')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'nomad;eval;help' {
            [CompletionResult]::new('delete', 'delete', [CompletionResultType]::ParameterValue, 'Delete evaluations')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List the set of evaluations processed by Nomad')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Display evaluation status and placement failure reasons')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'nomad;eval;help;delete' {
            break
        }
        'nomad;eval;help;list' {
            break
        }
        'nomad;eval;help;status' {
            break
        }
        'nomad;eval;help;help' {
            break
        }
        'nomad;fmt' {
            [CompletionResult]::new('--list', '--list', [CompletionResultType]::ParameterName, 'List the files whose formatting changes')
            [CompletionResult]::new('--write', '--write', [CompletionResultType]::ParameterName, 'Overwrite the files with their formatted text (ignored for stdin)')
            [CompletionResult]::new('--check', '--check', [CompletionResultType]::ParameterName, 'Report files that are not formatted and exit 1, without writing them')
            [CompletionResult]::new('--recursive', '--recursive', [CompletionResultType]::ParameterName, 'Process subdirectories too')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'nomad;job' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('init', 'init', [CompletionResultType]::ParameterValue, 'Create an example job file')
            [CompletionResult]::new('run', 'run', [CompletionResultType]::ParameterValue, 'Run a new job or update an existing job')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Display status information about a job')
            [CompletionResult]::new('stop', 'stop', [CompletionResultType]::ParameterValue, 'Stop a running job')
            [CompletionResult]::new('start', 'start', [CompletionResultType]::ParameterValue, 'Start a stopped job')
            [CompletionResult]::new('tag', 'tag', [CompletionResultType]::ParameterValue, 'Manage job version tags')
            [CompletionResult]::new('inspect', 'inspect', [CompletionResultType]::ParameterValue, 'Inspect a submitted job')
            [CompletionResult]::new('validate', 'validate', [CompletionResultType]::ParameterValue, 'Check a job specification for syntax errors')
            [CompletionResult]::new('allocs', 'allocs', [CompletionResultType]::ParameterValue, 'List allocations for a job')
            [CompletionResult]::new('history', 'history', [CompletionResultType]::ParameterValue, 'Display all tracked versions of a job')
            [CompletionResult]::new('promote', 'promote', [CompletionResultType]::ParameterValue, 'Promote a job''s canaries')
            [CompletionResult]::new('revert', 'revert', [CompletionResultType]::ParameterValue, 'Revert to a prior version of the job')
            [CompletionResult]::new('plan', 'plan', [CompletionResultType]::ParameterValue, 'Invoke a dry-run of the scheduler for a job')
            [CompletionResult]::new('dispatch', 'dispatch', [CompletionResultType]::ParameterValue, 'Dispatch an instance of a parameterized job')
            [CompletionResult]::new('periodic', 'periodic', [CompletionResultType]::ParameterValue, 'Interact with periodic jobs')
            [CompletionResult]::new('scale', 'scale', [CompletionResultType]::ParameterValue, 'Change the count of a job''s task group')
            [CompletionResult]::new('eval', 'eval', [CompletionResultType]::ParameterValue, 'Force an evaluation of the job')
            [CompletionResult]::new('deployments', 'deployments', [CompletionResultType]::ParameterValue, 'List deployments for a job')
            [CompletionResult]::new('restart', 'restart', [CompletionResultType]::ParameterValue, 'Restart or reschedule allocations for a job')
            [CompletionResult]::new('scaling-events', 'scaling-events', [CompletionResultType]::ParameterValue, 'Display the most recent scaling events for a job')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'nomad;job;init' {
            [CompletionResult]::new('--short', '--short', [CompletionResultType]::ParameterName, 'If the short flag is set, a minimal jobspec without comments is emitted')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'nomad;job;run' {
            [CompletionResult]::new('--address', '--address', [CompletionResultType]::ParameterName, 'The address of the Nomad server')
            [CompletionResult]::new('--region', '--region', [CompletionResultType]::ParameterName, 'The region of the Nomad servers to forward commands to')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The target namespace for queries and actions bound to a namespace')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'The SecretID of an ACL token to use to authenticate API requests with')
            [CompletionResult]::new('--check-index', '--check-index', [CompletionResultType]::ParameterName, 'If set, the job is only registered or updated if the passed job modify index matches the server side version. A value of zero registers the job only if it does not exist')
            [CompletionResult]::new('--eval-priority', '--eval-priority', [CompletionResultType]::ParameterName, 'Override the priority of the evaluation this registration creates')
            [CompletionResult]::new('--var', '--var', [CompletionResultType]::ParameterName, 'Variable for template, can be used multiple times (key=value)')
            [CompletionResult]::new('--var-file', '--var-file', [CompletionResultType]::ParameterName, 'Path to an HCL2 file containing user variables, can be used multiple times')
            [CompletionResult]::new('--detach', '--detach', [CompletionResultType]::ParameterName, 'Return immediately instead of entering monitor mode')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Display full information')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output the JSON that would be submitted to the HTTP API without submitting the job')
            [CompletionResult]::new('--preserve-counts', '--preserve-counts', [CompletionResultType]::ParameterName, 'Keep the current counts of task groups the running job already has')
            [CompletionResult]::new('--policy-override', '--policy-override', [CompletionResultType]::ParameterName, 'Override soft-mandatory Sentinel policies (accepted; there are none here)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Parses the job file as JSON. If the outer object has a Job field, such as from "nomad job inspect" or "nomad run -output", the value of the field is used as the job')
            [CompletionResult]::new('--hcl2-strict', '--hcl2-strict', [CompletionResultType]::ParameterName, 'Accepted for compatibility (`-hcl2-strict=false` is common in scripts); the parser is always strict about unknown blocks and attributes')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'nomad;job;status' {
            [CompletionResult]::new('--address', '--address', [CompletionResultType]::ParameterName, 'The address of the Nomad server')
            [CompletionResult]::new('--region', '--region', [CompletionResultType]::ParameterName, 'The region of the Nomad servers to forward commands to')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The target namespace for queries and actions bound to a namespace')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'The SecretID of an ACL token to use to authenticate API requests with')
            [CompletionResult]::new('-t', '-t', [CompletionResultType]::ParameterName, 'Format and display the output using a Go template')
            [CompletionResult]::new('--short', '--short', [CompletionResultType]::ParameterName, 'Display short output. Used only when a single job is being queried')
            [CompletionResult]::new('--evals', '--evals', [CompletionResultType]::ParameterName, 'Display the evaluations associated with the job')
            [CompletionResult]::new('--all-allocs', '--all-allocs', [CompletionResultType]::ParameterName, 'Display all allocations matching the job ID, including those from an older instance of the job')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Display full information')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Output the job status in JSON format')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'nomad;job;stop' {
            [CompletionResult]::new('--address', '--address', [CompletionResultType]::ParameterName, 'The address of the Nomad server')
            [CompletionResult]::new('--region', '--region', [CompletionResultType]::ParameterName, 'The region of the Nomad servers to forward commands to')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The target namespace for queries and actions bound to a namespace')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'The SecretID of an ACL token to use to authenticate API requests with')
            [CompletionResult]::new('--eval-priority', '--eval-priority', [CompletionResultType]::ParameterName, 'Override the priority of the evaluation that stops the job')
            [CompletionResult]::new('--detach', '--detach', [CompletionResultType]::ParameterName, 'Return immediately instead of entering monitor mode')
            [CompletionResult]::new('--purge', '--purge', [CompletionResultType]::ParameterName, 'Purge is used to stop the job and purge it from the system')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Automatic yes to prompts')
            [CompletionResult]::new('--global', '--global', [CompletionResultType]::ParameterName, 'Stop a multi-region job in all its regions')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Display full information')
            [CompletionResult]::new('--no-shutdown-delay', '--no-shutdown-delay', [CompletionResultType]::ParameterName, 'Stop the allocations without waiting out their shutdown_delay')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'nomad;job;start' {
            [CompletionResult]::new('--address', '--address', [CompletionResultType]::ParameterName, 'The address of the Nomad server')
            [CompletionResult]::new('--region', '--region', [CompletionResultType]::ParameterName, 'The region of the Nomad servers to forward commands to')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The target namespace for queries and actions bound to a namespace')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'The SecretID of an ACL token to use to authenticate API requests with')
            [CompletionResult]::new('--detach', '--detach', [CompletionResultType]::ParameterName, 'Return immediately instead of entering monitor mode. After the job start command is submitted, a new evaluation ID is printed to the screen, which can be used to examine the evaluation using the eval-status command')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Display full information')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'nomad;job;tag' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('apply', 'apply', [CompletionResultType]::ParameterValue, 'Save a job version to prevent it from being garbage-collected and allow it to be diffed and reverted by name')
            [CompletionResult]::new('unset', 'unset', [CompletionResultType]::ParameterValue, 'Remove a tag from a job version')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'nomad;job;tag;apply' {
            [CompletionResult]::new('--address', '--address', [CompletionResultType]::ParameterName, 'The address of the Nomad server')
            [CompletionResult]::new('--region', '--region', [CompletionResultType]::ParameterName, 'The region of the Nomad servers to forward commands to')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The target namespace for queries and actions bound to a namespace')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'The SecretID of an ACL token to use to authenticate API requests with')
            [CompletionResult]::new('--name', '--name', [CompletionResultType]::ParameterName, 'Specifies the name of the version to tag. This is a required field')
            [CompletionResult]::new('--description', '--description', [CompletionResultType]::ParameterName, 'Specifies a description for the version. This is an optional field')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Specifies the version of the job to tag. If not provided, the latest version of the job will be tagged')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'nomad;job;tag;unset' {
            [CompletionResult]::new('--address', '--address', [CompletionResultType]::ParameterName, 'The address of the Nomad server')
            [CompletionResult]::new('--region', '--region', [CompletionResultType]::ParameterName, 'The region of the Nomad servers to forward commands to')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The target namespace for queries and actions bound to a namespace')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'The SecretID of an ACL token to use to authenticate API requests with')
            [CompletionResult]::new('--name', '--name', [CompletionResultType]::ParameterName, 'The name of the tag to remove from the job version')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'nomad;job;tag;help' {
            [CompletionResult]::new('apply', 'apply', [CompletionResultType]::ParameterValue, 'Save a job version to prevent it from being garbage-collected and allow it to be diffed and reverted by name')
            [CompletionResult]::new('unset', 'unset', [CompletionResultType]::ParameterValue, 'Remove a tag from a job version')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'nomad;job;tag;help;apply' {
            break
        }
        'nomad;job;tag;help;unset' {
            break
        }
        'nomad;job;tag;help;help' {
            break
        }
        'nomad;job;inspect' {
            [CompletionResult]::new('--address', '--address', [CompletionResultType]::ParameterName, 'The address of the Nomad server')
            [CompletionResult]::new('--region', '--region', [CompletionResultType]::ParameterName, 'The region of the Nomad servers to forward commands to')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The target namespace for queries and actions bound to a namespace')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'The SecretID of an ACL token to use to authenticate API requests with')
            [CompletionResult]::new('-t', '-t', [CompletionResultType]::ParameterName, 'Format and display the output using a Go template')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Display the job at this version instead of the latest')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Output the job in its JSON format (the bare job, without the {"Job": ...} wrapper)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'nomad;job;validate' {
            [CompletionResult]::new('--address', '--address', [CompletionResultType]::ParameterName, 'The address of the Nomad server')
            [CompletionResult]::new('--region', '--region', [CompletionResultType]::ParameterName, 'The region of the Nomad servers to forward commands to')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The target namespace for queries and actions bound to a namespace')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'The SecretID of an ACL token to use to authenticate API requests with')
            [CompletionResult]::new('--var', '--var', [CompletionResultType]::ParameterName, 'Variable for template, can be used multiple times (key=value)')
            [CompletionResult]::new('--var-file', '--var-file', [CompletionResultType]::ParameterName, 'Path to an HCL2 file containing user variables, can be used multiple times')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Parses the job file as JSON. If the outer object has a Job field, such as from "nomad job inspect" or "nomad run -output", the value of the field is used as the job')
            [CompletionResult]::new('--hcl2-strict', '--hcl2-strict', [CompletionResultType]::ParameterName, 'Accepted for compatibility (`-hcl2-strict=false` is common in scripts); the parser is always strict about unknown blocks and attributes')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'nomad;job;allocs' {
            [CompletionResult]::new('--address', '--address', [CompletionResultType]::ParameterName, 'The address of the Nomad server')
            [CompletionResult]::new('--region', '--region', [CompletionResultType]::ParameterName, 'The region of the Nomad servers to forward commands to')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The target namespace for queries and actions bound to a namespace')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'The SecretID of an ACL token to use to authenticate API requests with')
            [CompletionResult]::new('-t', '-t', [CompletionResultType]::ParameterName, 'Format and display the output using a Go template')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Display all allocations matching the job ID, even those from an older instance of the job')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Display full information')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Output the allocations in a JSON format')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'nomad;job;history' {
            [CompletionResult]::new('--address', '--address', [CompletionResultType]::ParameterName, 'The address of the Nomad server')
            [CompletionResult]::new('--region', '--region', [CompletionResultType]::ParameterName, 'The region of the Nomad servers to forward commands to')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The target namespace for queries and actions bound to a namespace')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'The SecretID of an ACL token to use to authenticate API requests with')
            [CompletionResult]::new('--diff-tag', '--diff-tag', [CompletionResultType]::ParameterName, 'Diff each version against the version carrying this tag name (with -p). Mutually exclusive with -diff-version')
            [CompletionResult]::new('--diff-version', '--diff-version', [CompletionResultType]::ParameterName, 'Diff each version against this version number (with -p). Mutually exclusive with -diff-tag')
            [CompletionResult]::new('-t', '-t', [CompletionResultType]::ParameterName, 'Format and display the output using a Go template')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Display only the history for the given version')
            [CompletionResult]::new('-p', '-p', [CompletionResultType]::ParameterName, 'Display the difference between each version of the job and the previous one, or the version named by -diff-tag or -diff-version')
            [CompletionResult]::new('--full', '--full', [CompletionResultType]::ParameterName, 'Display the full job definition for each version')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Output the job versions in their JSON format')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'nomad;job;promote' {
            [CompletionResult]::new('--address', '--address', [CompletionResultType]::ParameterName, 'The address of the Nomad server')
            [CompletionResult]::new('--region', '--region', [CompletionResultType]::ParameterName, 'The region of the Nomad servers to forward commands to')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The target namespace for queries and actions bound to a namespace')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'The SecretID of an ACL token to use to authenticate API requests with')
            [CompletionResult]::new('--group', '--group', [CompletionResultType]::ParameterName, 'Task group to promote; may be given multiple times (default: all groups)')
            [CompletionResult]::new('--detach', '--detach', [CompletionResultType]::ParameterName, 'Return immediately instead of entering monitor mode')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Display full information')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'nomad;job;revert' {
            [CompletionResult]::new('--address', '--address', [CompletionResultType]::ParameterName, 'The address of the Nomad server')
            [CompletionResult]::new('--region', '--region', [CompletionResultType]::ParameterName, 'The region of the Nomad servers to forward commands to')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The target namespace for queries and actions bound to a namespace')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'The SecretID of an ACL token to use to authenticate API requests with')
            [CompletionResult]::new('--detach', '--detach', [CompletionResultType]::ParameterName, 'Return immediately instead of entering monitor mode')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Display full information')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'nomad;job;plan' {
            [CompletionResult]::new('--address', '--address', [CompletionResultType]::ParameterName, 'The address of the Nomad server')
            [CompletionResult]::new('--region', '--region', [CompletionResultType]::ParameterName, 'The region of the Nomad servers to forward commands to')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The target namespace for queries and actions bound to a namespace')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'The SecretID of an ACL token to use to authenticate API requests with')
            [CompletionResult]::new('--diff', '--diff', [CompletionResultType]::ParameterName, 'Determines whether the diff between the remote job and planned job is shown. Defaults to true')
            [CompletionResult]::new('--vault-namespace', '--vault-namespace', [CompletionResultType]::ParameterName, 'If set, the passed Vault namespace is stored in the job before sending to the server')
            [CompletionResult]::new('--var', '--var', [CompletionResultType]::ParameterName, 'Variable for template, can be used multiple times (key=value)')
            [CompletionResult]::new('--var-file', '--var-file', [CompletionResultType]::ParameterName, 'Path to an HCL2 file containing user variables, can be used multiple times')
            [CompletionResult]::new('--policy-override', '--policy-override', [CompletionResultType]::ParameterName, 'If set, any soft mandatory Sentinel policies will be overridden')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Increase diff verbosity')
            [CompletionResult]::new('--json-output', '--json-output', [CompletionResultType]::ParameterName, 'Output the plan response as JSON instead of the human text')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Parses the job file as JSON. If the outer object has a Job field, such as from "nomad job inspect" or "nomad run -output", the value of the field is used as the job')
            [CompletionResult]::new('--hcl2-strict', '--hcl2-strict', [CompletionResultType]::ParameterName, 'Accepted for compatibility (`-hcl2-strict=false` is common in scripts); the parser is always strict about unknown blocks and attributes')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'nomad;job;dispatch' {
            [CompletionResult]::new('--address', '--address', [CompletionResultType]::ParameterName, 'The address of the Nomad server')
            [CompletionResult]::new('--region', '--region', [CompletionResultType]::ParameterName, 'The region of the Nomad servers to forward commands to')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The target namespace for queries and actions bound to a namespace')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'The SecretID of an ACL token to use to authenticate API requests with')
            [CompletionResult]::new('--meta', '--meta', [CompletionResultType]::ParameterName, 'Meta key/value pair (key=value) for the dispatched job; may be given multiple times')
            [CompletionResult]::new('--idempotency-token', '--idempotency-token', [CompletionResultType]::ParameterName, 'A token that makes a retried dispatch return the job the first attempt created')
            [CompletionResult]::new('--id-prefix-template', '--id-prefix-template', [CompletionResultType]::ParameterName, 'A prefix for the dispatched job''s ID, after "/dispatch-"')
            [CompletionResult]::new('--priority', '--priority', [CompletionResultType]::ParameterName, 'The priority of the dispatched job; the parameterized job''s by default')
            [CompletionResult]::new('--detach', '--detach', [CompletionResultType]::ParameterName, 'Return immediately instead of entering monitor mode')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Display full information')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'nomad;job;periodic' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('force', 'force', [CompletionResultType]::ParameterValue, 'Force the launch of a periodic job')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'nomad;job;periodic;force' {
            [CompletionResult]::new('--address', '--address', [CompletionResultType]::ParameterName, 'The address of the Nomad server')
            [CompletionResult]::new('--region', '--region', [CompletionResultType]::ParameterName, 'The region of the Nomad servers to forward commands to')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The target namespace for queries and actions bound to a namespace')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'The SecretID of an ACL token to use to authenticate API requests with')
            [CompletionResult]::new('--detach', '--detach', [CompletionResultType]::ParameterName, 'Return immediately instead of entering monitor mode')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Display full information')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'nomad;job;periodic;help' {
            [CompletionResult]::new('force', 'force', [CompletionResultType]::ParameterValue, 'Force the launch of a periodic job')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'nomad;job;periodic;help;force' {
            break
        }
        'nomad;job;periodic;help;help' {
            break
        }
        'nomad;job;scale' {
            [CompletionResult]::new('--address', '--address', [CompletionResultType]::ParameterName, 'The address of the Nomad server')
            [CompletionResult]::new('--region', '--region', [CompletionResultType]::ParameterName, 'The region of the Nomad servers to forward commands to')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The target namespace for queries and actions bound to a namespace')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'The SecretID of an ACL token to use to authenticate API requests with')
            [CompletionResult]::new('--check-index', '--check-index', [CompletionResultType]::ParameterName, 'Scale only if the job''s modify index matches (0: no check)')
            [CompletionResult]::new('--detach', '--detach', [CompletionResultType]::ParameterName, 'Return immediately instead of entering monitor mode')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Display full information')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'nomad;job;eval' {
            [CompletionResult]::new('--address', '--address', [CompletionResultType]::ParameterName, 'The address of the Nomad server')
            [CompletionResult]::new('--region', '--region', [CompletionResultType]::ParameterName, 'The region of the Nomad servers to forward commands to')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The target namespace for queries and actions bound to a namespace')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'The SecretID of an ACL token to use to authenticate API requests with')
            [CompletionResult]::new('--force-reschedule', '--force-reschedule', [CompletionResultType]::ParameterName, 'Force failed allocations to be rescheduled, even past their reschedule policy')
            [CompletionResult]::new('--detach', '--detach', [CompletionResultType]::ParameterName, 'Return immediately instead of entering monitor mode')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Display full information')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'nomad;job;deployments' {
            [CompletionResult]::new('--address', '--address', [CompletionResultType]::ParameterName, 'The address of the Nomad server')
            [CompletionResult]::new('--region', '--region', [CompletionResultType]::ParameterName, 'The region of the Nomad servers to forward commands to')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The target namespace for queries and actions bound to a namespace')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'The SecretID of an ACL token to use to authenticate API requests with')
            [CompletionResult]::new('-t', '-t', [CompletionResultType]::ParameterName, 'Format and display the output using a Go template')
            [CompletionResult]::new('--latest', '--latest', [CompletionResultType]::ParameterName, 'Only show the latest deployment')
            [CompletionResult]::new('--all', '--all', [CompletionResultType]::ParameterName, 'Also show deployments of earlier jobs registered with the same ID')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Output the deployments in their JSON format')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Display full information')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'nomad;job;restart' {
            [CompletionResult]::new('--address', '--address', [CompletionResultType]::ParameterName, 'The address of the Nomad server')
            [CompletionResult]::new('--region', '--region', [CompletionResultType]::ParameterName, 'The region of the Nomad servers to forward commands to')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The target namespace for queries and actions bound to a namespace')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'The SecretID of an ACL token to use to authenticate API requests with')
            [CompletionResult]::new('--batch-size', '--batch-size', [CompletionResultType]::ParameterName, 'How many allocations to restart at once: a number or a percentage')
            [CompletionResult]::new('--batch-wait', '--batch-wait', [CompletionResultType]::ParameterName, 'How long to wait between batches, or "ask" to ask each time')
            [CompletionResult]::new('--group', '--group', [CompletionResultType]::ParameterName, 'Only allocations of this task group (repeatable)')
            [CompletionResult]::new('--task', '--task', [CompletionResultType]::ParameterName, 'Only this task (repeatable)')
            [CompletionResult]::new('--on-error', '--on-error', [CompletionResultType]::ParameterName, 'What to do when a batch fails: "ask" or "fail"')
            [CompletionResult]::new('--all-tasks', '--all-tasks', [CompletionResultType]::ParameterName, 'Restart every task of each allocation, not only the running ones')
            [CompletionResult]::new('--no-shutdown-delay', '--no-shutdown-delay', [CompletionResultType]::ParameterName, 'Stop allocations without waiting out their shutdown_delay (with -reschedule)')
            [CompletionResult]::new('--reschedule', '--reschedule', [CompletionResultType]::ParameterName, 'Stop each allocation and wait for a replacement instead of restarting in place')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Answer yes to every question')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Display full information')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'nomad;job;scaling-events' {
            [CompletionResult]::new('--address', '--address', [CompletionResultType]::ParameterName, 'The address of the Nomad server')
            [CompletionResult]::new('--region', '--region', [CompletionResultType]::ParameterName, 'The region of the Nomad servers to forward commands to')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The target namespace for queries and actions bound to a namespace')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'The SecretID of an ACL token to use to authenticate API requests with')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Also show each event''s error flag, message and eval ID')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'nomad;job;help' {
            [CompletionResult]::new('init', 'init', [CompletionResultType]::ParameterValue, 'Create an example job file')
            [CompletionResult]::new('run', 'run', [CompletionResultType]::ParameterValue, 'Run a new job or update an existing job')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Display status information about a job')
            [CompletionResult]::new('stop', 'stop', [CompletionResultType]::ParameterValue, 'Stop a running job')
            [CompletionResult]::new('start', 'start', [CompletionResultType]::ParameterValue, 'Start a stopped job')
            [CompletionResult]::new('tag', 'tag', [CompletionResultType]::ParameterValue, 'Manage job version tags')
            [CompletionResult]::new('inspect', 'inspect', [CompletionResultType]::ParameterValue, 'Inspect a submitted job')
            [CompletionResult]::new('validate', 'validate', [CompletionResultType]::ParameterValue, 'Check a job specification for syntax errors')
            [CompletionResult]::new('allocs', 'allocs', [CompletionResultType]::ParameterValue, 'List allocations for a job')
            [CompletionResult]::new('history', 'history', [CompletionResultType]::ParameterValue, 'Display all tracked versions of a job')
            [CompletionResult]::new('promote', 'promote', [CompletionResultType]::ParameterValue, 'Promote a job''s canaries')
            [CompletionResult]::new('revert', 'revert', [CompletionResultType]::ParameterValue, 'Revert to a prior version of the job')
            [CompletionResult]::new('plan', 'plan', [CompletionResultType]::ParameterValue, 'Invoke a dry-run of the scheduler for a job')
            [CompletionResult]::new('dispatch', 'dispatch', [CompletionResultType]::ParameterValue, 'Dispatch an instance of a parameterized job')
            [CompletionResult]::new('periodic', 'periodic', [CompletionResultType]::ParameterValue, 'Interact with periodic jobs')
            [CompletionResult]::new('scale', 'scale', [CompletionResultType]::ParameterValue, 'Change the count of a job''s task group')
            [CompletionResult]::new('eval', 'eval', [CompletionResultType]::ParameterValue, 'Force an evaluation of the job')
            [CompletionResult]::new('deployments', 'deployments', [CompletionResultType]::ParameterValue, 'List deployments for a job')
            [CompletionResult]::new('restart', 'restart', [CompletionResultType]::ParameterValue, 'Restart or reschedule allocations for a job')
            [CompletionResult]::new('scaling-events', 'scaling-events', [CompletionResultType]::ParameterValue, 'Display the most recent scaling events for a job')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'nomad;job;help;init' {
            break
        }
        'nomad;job;help;run' {
            break
        }
        'nomad;job;help;status' {
            break
        }
        'nomad;job;help;stop' {
            break
        }
        'nomad;job;help;start' {
            break
        }
        'nomad;job;help;tag' {
            [CompletionResult]::new('apply', 'apply', [CompletionResultType]::ParameterValue, 'Save a job version to prevent it from being garbage-collected and allow it to be diffed and reverted by name')
            [CompletionResult]::new('unset', 'unset', [CompletionResultType]::ParameterValue, 'Remove a tag from a job version')
            break
        }
        'nomad;job;help;tag;apply' {
            break
        }
        'nomad;job;help;tag;unset' {
            break
        }
        'nomad;job;help;inspect' {
            break
        }
        'nomad;job;help;validate' {
            break
        }
        'nomad;job;help;allocs' {
            break
        }
        'nomad;job;help;history' {
            break
        }
        'nomad;job;help;promote' {
            break
        }
        'nomad;job;help;revert' {
            break
        }
        'nomad;job;help;plan' {
            break
        }
        'nomad;job;help;dispatch' {
            break
        }
        'nomad;job;help;periodic' {
            [CompletionResult]::new('force', 'force', [CompletionResultType]::ParameterValue, 'Force the launch of a periodic job')
            break
        }
        'nomad;job;help;periodic;force' {
            break
        }
        'nomad;job;help;scale' {
            break
        }
        'nomad;job;help;eval' {
            break
        }
        'nomad;job;help;deployments' {
            break
        }
        'nomad;job;help;restart' {
            break
        }
        'nomad;job;help;scaling-events' {
            break
        }
        'nomad;job;help;help' {
            break
        }
        'nomad;node' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Display status information about nodes')
            [CompletionResult]::new('drain', 'drain', [CompletionResultType]::ParameterValue, 'Toggle drain mode on a given node')
            [CompletionResult]::new('eligibility', 'eligibility', [CompletionResultType]::ParameterValue, 'Toggle scheduling eligibility for a given node')
            [CompletionResult]::new('meta', 'meta', [CompletionResultType]::ParameterValue, 'Interact with node metadata')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'nomad;node;status' {
            [CompletionResult]::new('--address', '--address', [CompletionResultType]::ParameterName, 'The address of the Nomad server')
            [CompletionResult]::new('--region', '--region', [CompletionResultType]::ParameterName, 'The region of the Nomad servers to forward commands to')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The target namespace for queries and actions bound to a namespace')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'The SecretID of an ACL token to use to authenticate API requests with')
            [CompletionResult]::new('-t', '-t', [CompletionResultType]::ParameterName, 'Format and display the output using a Go template')
            [CompletionResult]::new('--per-page', '--per-page', [CompletionResultType]::ParameterName, 'How many nodes to show per page')
            [CompletionResult]::new('--page-token', '--page-token', [CompletionResultType]::ParameterName, 'Where to start pagination')
            [CompletionResult]::new('--filter', '--filter', [CompletionResultType]::ParameterName, 'Only show results matching this filter expression (go-bexpr, e.g. `Status == "ready"`)')
            [CompletionResult]::new('--self', '--self', [CompletionResultType]::ParameterName, 'Query the status of the local node')
            [CompletionResult]::new('--short', '--short', [CompletionResultType]::ParameterName, 'Display short output. Used only when a single node is being queried')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Display full information')
            [CompletionResult]::new('--allocs', '--allocs', [CompletionResultType]::ParameterName, 'Display a count of running allocations for each node')
            [CompletionResult]::new('--quiet', '--quiet', [CompletionResultType]::ParameterName, 'Only print the node IDs')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Output the node in its JSON format')
            [CompletionResult]::new('--os', '--os', [CompletionResultType]::ParameterName, 'Display each node''s operating system name')
            [CompletionResult]::new('--stats', '--stats', [CompletionResultType]::ParameterName, 'Display detailed resource usage statistics of the node')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'nomad;node;drain' {
            [CompletionResult]::new('--address', '--address', [CompletionResultType]::ParameterName, 'The address of the Nomad server')
            [CompletionResult]::new('--region', '--region', [CompletionResultType]::ParameterName, 'The region of the Nomad servers to forward commands to')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The target namespace for queries and actions bound to a namespace')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'The SecretID of an ACL token to use to authenticate API requests with')
            [CompletionResult]::new('--deadline', '--deadline', [CompletionResultType]::ParameterName, 'Set the deadline by which all allocations must be moved off the node (default 1h)')
            [CompletionResult]::new('-m', '-m', [CompletionResultType]::ParameterName, 'Message for the drain update operation (stored in the node''s LastDrain.Meta)')
            [CompletionResult]::new('--meta', '--meta', [CompletionResultType]::ParameterName, 'Custom metadata for the drain operation, as key=value (repeatable)')
            [CompletionResult]::new('--enable', '--enable', [CompletionResultType]::ParameterName, 'Enable draining on the specified node')
            [CompletionResult]::new('--disable', '--disable', [CompletionResultType]::ParameterName, 'Disable draining on the specified node')
            [CompletionResult]::new('--no-deadline', '--no-deadline', [CompletionResultType]::ParameterName, 'No deadline: allocations are moved only as their migrate blocks allow')
            [CompletionResult]::new('--force', '--force', [CompletionResultType]::ParameterName, 'Force remove allocations off the node immediately')
            [CompletionResult]::new('--detach', '--detach', [CompletionResultType]::ParameterName, 'Return immediately instead of monitoring the drain')
            [CompletionResult]::new('--monitor', '--monitor', [CompletionResultType]::ParameterName, 'Enter monitor mode directly without modifying the drain status')
            [CompletionResult]::new('--ignore-system', '--ignore-system', [CompletionResultType]::ParameterName, 'Do not drain system job allocations from the node')
            [CompletionResult]::new('--keep-ineligible', '--keep-ineligible', [CompletionResultType]::ParameterName, 'Do not update the node''s scheduling eligibility when the drain is disabled')
            [CompletionResult]::new('--self', '--self', [CompletionResultType]::ParameterName, 'Drain the local node')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Automatic yes to prompts')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'nomad;node;eligibility' {
            [CompletionResult]::new('--address', '--address', [CompletionResultType]::ParameterName, 'The address of the Nomad server')
            [CompletionResult]::new('--region', '--region', [CompletionResultType]::ParameterName, 'The region of the Nomad servers to forward commands to')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The target namespace for queries and actions bound to a namespace')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'The SecretID of an ACL token to use to authenticate API requests with')
            [CompletionResult]::new('--enable', '--enable', [CompletionResultType]::ParameterName, 'Enable scheduling eligibility')
            [CompletionResult]::new('--disable', '--disable', [CompletionResultType]::ParameterName, 'Disable scheduling eligibility')
            [CompletionResult]::new('--self', '--self', [CompletionResultType]::ParameterName, 'Set the eligibility of the local node')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'nomad;node;meta' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('apply', 'apply', [CompletionResultType]::ParameterValue, 'Modify node metadata')
            [CompletionResult]::new('read', 'read', [CompletionResultType]::ParameterValue, 'Read node metadata')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'nomad;node;meta;apply' {
            [CompletionResult]::new('--address', '--address', [CompletionResultType]::ParameterName, 'The address of the Nomad server')
            [CompletionResult]::new('--region', '--region', [CompletionResultType]::ParameterName, 'The region of the Nomad servers to forward commands to')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The target namespace for queries and actions bound to a namespace')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'The SecretID of an ACL token to use to authenticate API requests with')
            [CompletionResult]::new('--node-id', '--node-id', [CompletionResultType]::ParameterName, 'Updates metadata on the specified node (default: the agent''s own)')
            [CompletionResult]::new('--unset', '--unset', [CompletionResultType]::ParameterName, 'Comma separated keys to unset')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'nomad;node;meta;read' {
            [CompletionResult]::new('--address', '--address', [CompletionResultType]::ParameterName, 'The address of the Nomad server')
            [CompletionResult]::new('--region', '--region', [CompletionResultType]::ParameterName, 'The region of the Nomad servers to forward commands to')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The target namespace for queries and actions bound to a namespace')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'The SecretID of an ACL token to use to authenticate API requests with')
            [CompletionResult]::new('--node-id', '--node-id', [CompletionResultType]::ParameterName, 'Reads metadata from the specified node (default: the agent''s own)')
            [CompletionResult]::new('-t', '-t', [CompletionResultType]::ParameterName, 'Format and display the output using a Go template')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Output the metadata in its JSON format')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'nomad;node;meta;help' {
            [CompletionResult]::new('apply', 'apply', [CompletionResultType]::ParameterValue, 'Modify node metadata')
            [CompletionResult]::new('read', 'read', [CompletionResultType]::ParameterValue, 'Read node metadata')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'nomad;node;meta;help;apply' {
            break
        }
        'nomad;node;meta;help;read' {
            break
        }
        'nomad;node;meta;help;help' {
            break
        }
        'nomad;node;help' {
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Display status information about nodes')
            [CompletionResult]::new('drain', 'drain', [CompletionResultType]::ParameterValue, 'Toggle drain mode on a given node')
            [CompletionResult]::new('eligibility', 'eligibility', [CompletionResultType]::ParameterValue, 'Toggle scheduling eligibility for a given node')
            [CompletionResult]::new('meta', 'meta', [CompletionResultType]::ParameterValue, 'Interact with node metadata')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'nomad;node;help;status' {
            break
        }
        'nomad;node;help;drain' {
            break
        }
        'nomad;node;help;eligibility' {
            break
        }
        'nomad;node;help;meta' {
            [CompletionResult]::new('apply', 'apply', [CompletionResultType]::ParameterValue, 'Modify node metadata')
            [CompletionResult]::new('read', 'read', [CompletionResultType]::ParameterValue, 'Read node metadata')
            break
        }
        'nomad;node;help;meta;apply' {
            break
        }
        'nomad;node;help;meta;read' {
            break
        }
        'nomad;node;help;help' {
            break
        }
        'nomad;server' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('members', 'members', [CompletionResultType]::ParameterValue, 'Display a list of known servers and their status')
            [CompletionResult]::new('join', 'join', [CompletionResultType]::ParameterValue, 'Join server nodes together')
            [CompletionResult]::new('force-leave', 'force-leave', [CompletionResultType]::ParameterValue, 'Force a server into the ''left'' state')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'nomad;server;members' {
            [CompletionResult]::new('--address', '--address', [CompletionResultType]::ParameterName, 'The address of the Nomad server')
            [CompletionResult]::new('--region', '--region', [CompletionResultType]::ParameterName, 'The region of the Nomad servers to forward commands to')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The target namespace for queries and actions bound to a namespace')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'The SecretID of an ACL token to use to authenticate API requests with')
            [CompletionResult]::new('-t', '-t', [CompletionResultType]::ParameterName, 'Format and display the output using a Go template')
            [CompletionResult]::new('--detailed', '--detailed', [CompletionResultType]::ParameterName, 'Show detailed information about each member (same as -verbose)')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Show detailed information about each member')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Output the latest information about each member in a JSON format')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'nomad;server;join' {
            [CompletionResult]::new('--address', '--address', [CompletionResultType]::ParameterName, 'The address of the Nomad server')
            [CompletionResult]::new('--region', '--region', [CompletionResultType]::ParameterName, 'The region of the Nomad servers to forward commands to')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The target namespace for queries and actions bound to a namespace')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'The SecretID of an ACL token to use to authenticate API requests with')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'nomad;server;force-leave' {
            [CompletionResult]::new('--address', '--address', [CompletionResultType]::ParameterName, 'The address of the Nomad server')
            [CompletionResult]::new('--region', '--region', [CompletionResultType]::ParameterName, 'The region of the Nomad servers to forward commands to')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The target namespace for queries and actions bound to a namespace')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'The SecretID of an ACL token to use to authenticate API requests with')
            [CompletionResult]::new('--prune', '--prune', [CompletionResultType]::ParameterName, 'Removes failed or left server from the member list immediately. If member is actually still alive, it will eventually rejoin the cluster again')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'nomad;server;help' {
            [CompletionResult]::new('members', 'members', [CompletionResultType]::ParameterValue, 'Display a list of known servers and their status')
            [CompletionResult]::new('join', 'join', [CompletionResultType]::ParameterValue, 'Join server nodes together')
            [CompletionResult]::new('force-leave', 'force-leave', [CompletionResultType]::ParameterValue, 'Force a server into the ''left'' state')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'nomad;server;help;members' {
            break
        }
        'nomad;server;help;join' {
            break
        }
        'nomad;server;help;force-leave' {
            break
        }
        'nomad;server;help;help' {
            break
        }
        'nomad;service' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'Display all registered Nomad services')
            [CompletionResult]::new('info', 'info', [CompletionResultType]::ParameterValue, 'Display an individual Nomad service registration')
            [CompletionResult]::new('delete', 'delete', [CompletionResultType]::ParameterValue, 'Deregister a registered Nomad service')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'nomad;service;list' {
            [CompletionResult]::new('--address', '--address', [CompletionResultType]::ParameterName, 'The address of the Nomad server')
            [CompletionResult]::new('--region', '--region', [CompletionResultType]::ParameterName, 'The region of the Nomad servers to forward commands to')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The target namespace for queries and actions bound to a namespace')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'The SecretID of an ACL token to use to authenticate API requests with')
            [CompletionResult]::new('-t', '-t', [CompletionResultType]::ParameterName, 'Format and display the output using a Go template')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Output the service registrations in their JSON format')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'nomad;service;info' {
            [CompletionResult]::new('--address', '--address', [CompletionResultType]::ParameterName, 'The address of the Nomad server')
            [CompletionResult]::new('--region', '--region', [CompletionResultType]::ParameterName, 'The region of the Nomad servers to forward commands to')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The target namespace for queries and actions bound to a namespace')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'The SecretID of an ACL token to use to authenticate API requests with')
            [CompletionResult]::new('-t', '-t', [CompletionResultType]::ParameterName, 'Format and display the output using a Go template')
            [CompletionResult]::new('--filter', '--filter', [CompletionResultType]::ParameterName, 'Only show results matching this filter expression (go-bexpr, e.g. `Status == "ready"`)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Output the service registrations in their JSON format')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Display full information of each registration')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'nomad;service;delete' {
            [CompletionResult]::new('--address', '--address', [CompletionResultType]::ParameterName, 'The address of the Nomad server')
            [CompletionResult]::new('--region', '--region', [CompletionResultType]::ParameterName, 'The region of the Nomad servers to forward commands to')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The target namespace for queries and actions bound to a namespace')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'The SecretID of an ACL token to use to authenticate API requests with')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'nomad;service;help' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'Display all registered Nomad services')
            [CompletionResult]::new('info', 'info', [CompletionResultType]::ParameterValue, 'Display an individual Nomad service registration')
            [CompletionResult]::new('delete', 'delete', [CompletionResultType]::ParameterValue, 'Deregister a registered Nomad service')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'nomad;service;help;list' {
            break
        }
        'nomad;service;help;info' {
            break
        }
        'nomad;service;help;delete' {
            break
        }
        'nomad;service;help;help' {
            break
        }
        'nomad;operator' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('api', 'api', [CompletionResultType]::ParameterValue, 'Query Nomad''s HTTP API like curl')
            [CompletionResult]::new('scheduler', 'scheduler', [CompletionResultType]::ParameterValue, 'Provides access to the scheduler configuration')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'nomad;operator;api' {
            [CompletionResult]::new('--address', '--address', [CompletionResultType]::ParameterName, 'The address of the Nomad server')
            [CompletionResult]::new('--region', '--region', [CompletionResultType]::ParameterName, 'The region of the Nomad servers to forward commands to')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The target namespace for queries and actions bound to a namespace')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'The SecretID of an ACL token to use to authenticate API requests with')
            [CompletionResult]::new('-X', '-X ', [CompletionResultType]::ParameterName, 'The HTTP method (default GET, or POST when a body comes on stdin)')
            [CompletionResult]::new('-H', '-H ', [CompletionResultType]::ParameterName, 'A request header, `Key: Value` (repeatable)')
            [CompletionResult]::new('--filter', '--filter', [CompletionResultType]::ParameterName, 'A filter expression, added as `?filter=`')
            [CompletionResult]::new('--dryrun', '--dryrun', [CompletionResultType]::ParameterName, 'Print the equivalent curl command instead of sending the request')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Print the request and response headers on stderr')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'nomad;operator;scheduler' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('get-config', 'get-config', [CompletionResultType]::ParameterValue, 'Display the current scheduler configuration')
            [CompletionResult]::new('set-config', 'set-config', [CompletionResultType]::ParameterValue, 'Modify the current scheduler configuration')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'nomad;operator;scheduler;get-config' {
            [CompletionResult]::new('--address', '--address', [CompletionResultType]::ParameterName, 'The address of the Nomad server')
            [CompletionResult]::new('--region', '--region', [CompletionResultType]::ParameterName, 'The region of the Nomad servers to forward commands to')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The target namespace for queries and actions bound to a namespace')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'The SecretID of an ACL token to use to authenticate API requests with')
            [CompletionResult]::new('-t', '-t', [CompletionResultType]::ParameterName, 'Format and display the output using a Go template')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Output the scheduler config in its JSON format')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'nomad;operator;scheduler;set-config' {
            [CompletionResult]::new('--address', '--address', [CompletionResultType]::ParameterName, 'The address of the Nomad server')
            [CompletionResult]::new('--region', '--region', [CompletionResultType]::ParameterName, 'The region of the Nomad servers to forward commands to')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The target namespace for queries and actions bound to a namespace')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'The SecretID of an ACL token to use to authenticate API requests with')
            [CompletionResult]::new('--check-index', '--check-index', [CompletionResultType]::ParameterName, 'Only update if the passed modify index matches the current server side version')
            [CompletionResult]::new('--scheduler-algorithm', '--scheduler-algorithm', [CompletionResultType]::ParameterName, 'Whether the scheduler binpacks or spreads allocations ("binpack" or "spread")')
            [CompletionResult]::new('--memory-oversubscription', '--memory-oversubscription', [CompletionResultType]::ParameterName, 'Let tasks exceed their reserved memory up to memory_max')
            [CompletionResult]::new('--reject-job-registration', '--reject-job-registration', [CompletionResultType]::ParameterName, 'Reject job registration, dispatch and scale')
            [CompletionResult]::new('--pause-eval-broker', '--pause-eval-broker', [CompletionResultType]::ParameterName, 'Pause the eval broker so workers receive no new work')
            [CompletionResult]::new('--preempt-batch-scheduler', '--preempt-batch-scheduler', [CompletionResultType]::ParameterName, 'Preemption for batch jobs')
            [CompletionResult]::new('--preempt-service-scheduler', '--preempt-service-scheduler', [CompletionResultType]::ParameterName, 'Preemption for service jobs')
            [CompletionResult]::new('--preempt-sysbatch-scheduler', '--preempt-sysbatch-scheduler', [CompletionResultType]::ParameterName, 'Preemption for system batch jobs')
            [CompletionResult]::new('--preempt-system-scheduler', '--preempt-system-scheduler', [CompletionResultType]::ParameterName, 'Preemption for system jobs')
            [CompletionResult]::new('--node-limit-for-feasibility-checks', '--node-limit-for-feasibility-checks', [CompletionResultType]::ParameterName, 'Feasible nodes considered for jobs with spread or affinity (default 100)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'nomad;operator;scheduler;help' {
            [CompletionResult]::new('get-config', 'get-config', [CompletionResultType]::ParameterValue, 'Display the current scheduler configuration')
            [CompletionResult]::new('set-config', 'set-config', [CompletionResultType]::ParameterValue, 'Modify the current scheduler configuration')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'nomad;operator;scheduler;help;get-config' {
            break
        }
        'nomad;operator;scheduler;help;set-config' {
            break
        }
        'nomad;operator;scheduler;help;help' {
            break
        }
        'nomad;operator;help' {
            [CompletionResult]::new('api', 'api', [CompletionResultType]::ParameterValue, 'Query Nomad''s HTTP API like curl')
            [CompletionResult]::new('scheduler', 'scheduler', [CompletionResultType]::ParameterValue, 'Provides access to the scheduler configuration')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'nomad;operator;help;api' {
            break
        }
        'nomad;operator;help;scheduler' {
            [CompletionResult]::new('get-config', 'get-config', [CompletionResultType]::ParameterValue, 'Display the current scheduler configuration')
            [CompletionResult]::new('set-config', 'set-config', [CompletionResultType]::ParameterValue, 'Modify the current scheduler configuration')
            break
        }
        'nomad;operator;help;scheduler;get-config' {
            break
        }
        'nomad;operator;help;scheduler;set-config' {
            break
        }
        'nomad;operator;help;help' {
            break
        }
        'nomad;status' {
            [CompletionResult]::new('--address', '--address', [CompletionResultType]::ParameterName, 'The address of the Nomad server')
            [CompletionResult]::new('--region', '--region', [CompletionResultType]::ParameterName, 'The region of the Nomad servers to forward commands to')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The target namespace for queries and actions bound to a namespace')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'The SecretID of an ACL token to use to authenticate API requests with')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Display full information')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'nomad;system' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('gc', 'gc', [CompletionResultType]::ParameterValue, 'Run the system garbage collection process')
            [CompletionResult]::new('reconcile', 'reconcile', [CompletionResultType]::ParameterValue, 'Perform system reconciliation tasks')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'nomad;system;gc' {
            [CompletionResult]::new('--address', '--address', [CompletionResultType]::ParameterName, 'The address of the Nomad server')
            [CompletionResult]::new('--region', '--region', [CompletionResultType]::ParameterName, 'The region of the Nomad servers to forward commands to')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The target namespace for queries and actions bound to a namespace')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'The SecretID of an ACL token to use to authenticate API requests with')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'nomad;system;reconcile' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('summaries', 'summaries', [CompletionResultType]::ParameterValue, 'Reconciles the summaries of all registered jobs')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'nomad;system;reconcile;summaries' {
            [CompletionResult]::new('--address', '--address', [CompletionResultType]::ParameterName, 'The address of the Nomad server')
            [CompletionResult]::new('--region', '--region', [CompletionResultType]::ParameterName, 'The region of the Nomad servers to forward commands to')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The target namespace for queries and actions bound to a namespace')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'The SecretID of an ACL token to use to authenticate API requests with')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'nomad;system;reconcile;help' {
            [CompletionResult]::new('summaries', 'summaries', [CompletionResultType]::ParameterValue, 'Reconciles the summaries of all registered jobs')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'nomad;system;reconcile;help;summaries' {
            break
        }
        'nomad;system;reconcile;help;help' {
            break
        }
        'nomad;system;help' {
            [CompletionResult]::new('gc', 'gc', [CompletionResultType]::ParameterValue, 'Run the system garbage collection process')
            [CompletionResult]::new('reconcile', 'reconcile', [CompletionResultType]::ParameterValue, 'Perform system reconciliation tasks')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'nomad;system;help;gc' {
            break
        }
        'nomad;system;help;reconcile' {
            [CompletionResult]::new('summaries', 'summaries', [CompletionResultType]::ParameterValue, 'Reconciles the summaries of all registered jobs')
            break
        }
        'nomad;system;help;reconcile;summaries' {
            break
        }
        'nomad;system;help;help' {
            break
        }
        'nomad;version' {
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'nomad;run' {
            [CompletionResult]::new('--address', '--address', [CompletionResultType]::ParameterName, 'The address of the Nomad server')
            [CompletionResult]::new('--region', '--region', [CompletionResultType]::ParameterName, 'The region of the Nomad servers to forward commands to')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The target namespace for queries and actions bound to a namespace')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'The SecretID of an ACL token to use to authenticate API requests with')
            [CompletionResult]::new('--check-index', '--check-index', [CompletionResultType]::ParameterName, 'If set, the job is only registered or updated if the passed job modify index matches the server side version. A value of zero registers the job only if it does not exist')
            [CompletionResult]::new('--eval-priority', '--eval-priority', [CompletionResultType]::ParameterName, 'Override the priority of the evaluation this registration creates')
            [CompletionResult]::new('--var', '--var', [CompletionResultType]::ParameterName, 'Variable for template, can be used multiple times (key=value)')
            [CompletionResult]::new('--var-file', '--var-file', [CompletionResultType]::ParameterName, 'Path to an HCL2 file containing user variables, can be used multiple times')
            [CompletionResult]::new('--detach', '--detach', [CompletionResultType]::ParameterName, 'Return immediately instead of entering monitor mode')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Display full information')
            [CompletionResult]::new('--output', '--output', [CompletionResultType]::ParameterName, 'Output the JSON that would be submitted to the HTTP API without submitting the job')
            [CompletionResult]::new('--preserve-counts', '--preserve-counts', [CompletionResultType]::ParameterName, 'Keep the current counts of task groups the running job already has')
            [CompletionResult]::new('--policy-override', '--policy-override', [CompletionResultType]::ParameterName, 'Override soft-mandatory Sentinel policies (accepted; there are none here)')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Parses the job file as JSON. If the outer object has a Job field, such as from "nomad job inspect" or "nomad run -output", the value of the field is used as the job')
            [CompletionResult]::new('--hcl2-strict', '--hcl2-strict', [CompletionResultType]::ParameterName, 'Accepted for compatibility (`-hcl2-strict=false` is common in scripts); the parser is always strict about unknown blocks and attributes')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'nomad;stop' {
            [CompletionResult]::new('--address', '--address', [CompletionResultType]::ParameterName, 'The address of the Nomad server')
            [CompletionResult]::new('--region', '--region', [CompletionResultType]::ParameterName, 'The region of the Nomad servers to forward commands to')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The target namespace for queries and actions bound to a namespace')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'The SecretID of an ACL token to use to authenticate API requests with')
            [CompletionResult]::new('--eval-priority', '--eval-priority', [CompletionResultType]::ParameterName, 'Override the priority of the evaluation that stops the job')
            [CompletionResult]::new('--detach', '--detach', [CompletionResultType]::ParameterName, 'Return immediately instead of entering monitor mode')
            [CompletionResult]::new('--purge', '--purge', [CompletionResultType]::ParameterName, 'Purge is used to stop the job and purge it from the system')
            [CompletionResult]::new('--yes', '--yes', [CompletionResultType]::ParameterName, 'Automatic yes to prompts')
            [CompletionResult]::new('--global', '--global', [CompletionResultType]::ParameterName, 'Stop a multi-region job in all its regions')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Display full information')
            [CompletionResult]::new('--no-shutdown-delay', '--no-shutdown-delay', [CompletionResultType]::ParameterName, 'Stop the allocations without waiting out their shutdown_delay')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'nomad;start' {
            [CompletionResult]::new('--address', '--address', [CompletionResultType]::ParameterName, 'The address of the Nomad server')
            [CompletionResult]::new('--region', '--region', [CompletionResultType]::ParameterName, 'The region of the Nomad servers to forward commands to')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The target namespace for queries and actions bound to a namespace')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'The SecretID of an ACL token to use to authenticate API requests with')
            [CompletionResult]::new('--detach', '--detach', [CompletionResultType]::ParameterName, 'Return immediately instead of entering monitor mode. After the job start command is submitted, a new evaluation ID is printed to the screen, which can be used to examine the evaluation using the eval-status command')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Display full information')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'nomad;init' {
            [CompletionResult]::new('--short', '--short', [CompletionResultType]::ParameterName, 'If the short flag is set, a minimal jobspec without comments is emitted')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'nomad;inspect' {
            [CompletionResult]::new('--address', '--address', [CompletionResultType]::ParameterName, 'The address of the Nomad server')
            [CompletionResult]::new('--region', '--region', [CompletionResultType]::ParameterName, 'The region of the Nomad servers to forward commands to')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The target namespace for queries and actions bound to a namespace')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'The SecretID of an ACL token to use to authenticate API requests with')
            [CompletionResult]::new('-t', '-t', [CompletionResultType]::ParameterName, 'Format and display the output using a Go template')
            [CompletionResult]::new('--version', '--version', [CompletionResultType]::ParameterName, 'Display the job at this version instead of the latest')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Output the job in its JSON format (the bare job, without the {"Job": ...} wrapper)')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'nomad;validate' {
            [CompletionResult]::new('--address', '--address', [CompletionResultType]::ParameterName, 'The address of the Nomad server')
            [CompletionResult]::new('--region', '--region', [CompletionResultType]::ParameterName, 'The region of the Nomad servers to forward commands to')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The target namespace for queries and actions bound to a namespace')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'The SecretID of an ACL token to use to authenticate API requests with')
            [CompletionResult]::new('--var', '--var', [CompletionResultType]::ParameterName, 'Variable for template, can be used multiple times (key=value)')
            [CompletionResult]::new('--var-file', '--var-file', [CompletionResultType]::ParameterName, 'Path to an HCL2 file containing user variables, can be used multiple times')
            [CompletionResult]::new('--json', '--json', [CompletionResultType]::ParameterName, 'Parses the job file as JSON. If the outer object has a Job field, such as from "nomad job inspect" or "nomad run -output", the value of the field is used as the job')
            [CompletionResult]::new('--hcl2-strict', '--hcl2-strict', [CompletionResultType]::ParameterName, 'Accepted for compatibility (`-hcl2-strict=false` is common in scripts); the parser is always strict about unknown blocks and attributes')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'nomad;logs' {
            [CompletionResult]::new('--address', '--address', [CompletionResultType]::ParameterName, 'The address of the Nomad server')
            [CompletionResult]::new('--region', '--region', [CompletionResultType]::ParameterName, 'The region of the Nomad servers to forward commands to')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The target namespace for queries and actions bound to a namespace')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'The SecretID of an ACL token to use to authenticate API requests with')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Sets the tail location in best-efforted number of lines relative to the end')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Sets the tail location in number of bytes relative to the end')
            [CompletionResult]::new('--task', '--task', [CompletionResultType]::ParameterName, 'Sets the task to view the logs of')
            [CompletionResult]::new('--group', '--group', [CompletionResultType]::ParameterName, 'With -job, pick the allocation from this task group')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Causes the output to not stop, and instead continuously output new lines')
            [CompletionResult]::new('--stderr', '--stderr', [CompletionResultType]::ParameterName, 'Display stderr logs')
            [CompletionResult]::new('--stdout', '--stdout', [CompletionResultType]::ParameterName, 'Display stdout logs (the default)')
            [CompletionResult]::new('--tail', '--tail', [CompletionResultType]::ParameterName, 'Show the logs contents with offsets relative to the end of the logs')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Show full information')
            [CompletionResult]::new('--job', '--job', [CompletionResultType]::ParameterName, 'Use a random allocation from the specified job ID or prefix')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'nomad;exec' {
            [CompletionResult]::new('--address', '--address', [CompletionResultType]::ParameterName, 'The address of the Nomad server')
            [CompletionResult]::new('--region', '--region', [CompletionResultType]::ParameterName, 'The region of the Nomad servers to forward commands to')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The target namespace for queries and actions bound to a namespace')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'The SecretID of an ACL token to use to authenticate API requests with')
            [CompletionResult]::new('--group', '--group', [CompletionResultType]::ParameterName, 'With -job, only allocations of this task group')
            [CompletionResult]::new('-i', '-i', [CompletionResultType]::ParameterName, 'Pass stdin to the container (default true)')
            [CompletionResult]::new('-t', '-t', [CompletionResultType]::ParameterName, 'Allocate a pseudo-tty (default: whether stdin is a terminal)')
            [CompletionResult]::new('-e', '-e', [CompletionResultType]::ParameterName, 'Escape character for closing the session ("none" to disable)')
            [CompletionResult]::new('--task', '--task', [CompletionResultType]::ParameterName, 'The task to exec into (optional when the group has one task)')
            [CompletionResult]::new('--job', '--job', [CompletionResultType]::ParameterName, 'Use a random allocation from the specified job ID or prefix')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'verbose')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'nomad;fs' {
            [CompletionResult]::new('--address', '--address', [CompletionResultType]::ParameterName, 'The address of the Nomad server')
            [CompletionResult]::new('--region', '--region', [CompletionResultType]::ParameterName, 'The region of the Nomad servers to forward commands to')
            [CompletionResult]::new('--namespace', '--namespace', [CompletionResultType]::ParameterName, 'The target namespace for queries and actions bound to a namespace')
            [CompletionResult]::new('--token', '--token', [CompletionResultType]::ParameterName, 'The SecretID of an ACL token to use to authenticate API requests with')
            [CompletionResult]::new('--group', '--group', [CompletionResultType]::ParameterName, 'With -job, only allocations of this task group')
            [CompletionResult]::new('-n', '-n', [CompletionResultType]::ParameterName, 'Sets the tail location in best-efforted number of lines relative to the end')
            [CompletionResult]::new('-c', '-c', [CompletionResultType]::ParameterName, 'Sets the tail location in number of bytes relative to the end')
            [CompletionResult]::new('-H', '-H ', [CompletionResultType]::ParameterName, 'Machine friendly output: sizes in bytes')
            [CompletionResult]::new('--verbose', '--verbose', [CompletionResultType]::ParameterName, 'Show full information')
            [CompletionResult]::new('--job', '--job', [CompletionResultType]::ParameterName, 'Use a random allocation from the specified job ID or prefix')
            [CompletionResult]::new('--stat', '--stat', [CompletionResultType]::ParameterName, 'Show file stat information instead of displaying the file, or listing the directory')
            [CompletionResult]::new('-f', '-f', [CompletionResultType]::ParameterName, 'Causes the output to not stop, and instead continuously output new lines')
            [CompletionResult]::new('--tail', '--tail', [CompletionResultType]::ParameterName, 'Show the files contents with offsets relative to the end of the file')
            [CompletionResult]::new('-h', '-h', [CompletionResultType]::ParameterName, 'Print help')
            [CompletionResult]::new('--help', '--help', [CompletionResultType]::ParameterName, 'Print help')
            break
        }
        'nomad;help' {
            [CompletionResult]::new('agent', 'agent', [CompletionResultType]::ParameterValue, 'Runs a Nomad agent')
            [CompletionResult]::new('agent-info', 'agent-info', [CompletionResultType]::ParameterValue, 'Display status information about the local agent')
            [CompletionResult]::new('alloc', 'alloc', [CompletionResultType]::ParameterValue, 'Interact with allocations')
            [CompletionResult]::new('deployment', 'deployment', [CompletionResultType]::ParameterValue, 'Interact with deployments')
            [CompletionResult]::new('eval', 'eval', [CompletionResultType]::ParameterValue, 'Interact with evaluations')
            [CompletionResult]::new('fmt', 'fmt', [CompletionResultType]::ParameterValue, 'Rewrites Nomad config and job files to canonical format')
            [CompletionResult]::new('job', 'job', [CompletionResultType]::ParameterValue, 'Interact with jobs')
            [CompletionResult]::new('node', 'node', [CompletionResultType]::ParameterValue, 'Interact with nodes')
            [CompletionResult]::new('server', 'server', [CompletionResultType]::ParameterValue, 'Interact with servers')
            [CompletionResult]::new('service', 'service', [CompletionResultType]::ParameterValue, 'Interact with registered services')
            [CompletionResult]::new('operator', 'operator', [CompletionResultType]::ParameterValue, 'Provides cluster-level tools for Nomad operators')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Display the status output for a resource')
            [CompletionResult]::new('system', 'system', [CompletionResultType]::ParameterValue, 'Interact with the system API')
            [CompletionResult]::new('version', 'version', [CompletionResultType]::ParameterValue, 'Prints the Nomad version')
            [CompletionResult]::new('run', 'run', [CompletionResultType]::ParameterValue, 'Run a new job or update an existing job (alias of `job run`)')
            [CompletionResult]::new('stop', 'stop', [CompletionResultType]::ParameterValue, 'Stop a running job (alias of `job stop`)')
            [CompletionResult]::new('start', 'start', [CompletionResultType]::ParameterValue, 'Start a stopped job (alias of `job start`)')
            [CompletionResult]::new('init', 'init', [CompletionResultType]::ParameterValue, 'init')
            [CompletionResult]::new('inspect', 'inspect', [CompletionResultType]::ParameterValue, 'Flags accepted by every command that talks to an agent')
            [CompletionResult]::new('validate', 'validate', [CompletionResultType]::ParameterValue, 'How `job run`/`job validate` get a job from a file (Nomad''s `JobGetter`)')
            [CompletionResult]::new('logs', 'logs', [CompletionResultType]::ParameterValue, 'Flags accepted by every command that talks to an agent')
            [CompletionResult]::new('exec', 'exec', [CompletionResultType]::ParameterValue, 'Execute commands in task (alias of `alloc exec`)')
            [CompletionResult]::new('fs', 'fs', [CompletionResultType]::ParameterValue, 'Flags accepted by every command that talks to an agent')
            [CompletionResult]::new('help', 'help', [CompletionResultType]::ParameterValue, 'Print this message or the help of the given subcommand(s)')
            break
        }
        'nomad;help;agent' {
            break
        }
        'nomad;help;agent-info' {
            break
        }
        'nomad;help;alloc' {
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Display allocation status information and metadata')
            [CompletionResult]::new('logs', 'logs', [CompletionResultType]::ParameterValue, 'Streams the logs of a task')
            [CompletionResult]::new('fs', 'fs', [CompletionResultType]::ParameterValue, 'Inspect the contents of an allocation directory')
            [CompletionResult]::new('exec', 'exec', [CompletionResultType]::ParameterValue, 'Execute commands in task')
            [CompletionResult]::new('checks', 'checks', [CompletionResultType]::ParameterValue, 'Outputs service health check status information')
            [CompletionResult]::new('stop', 'stop', [CompletionResultType]::ParameterValue, 'Stop and reschedule a running allocation')
            [CompletionResult]::new('restart', 'restart', [CompletionResultType]::ParameterValue, 'Restart a running allocation')
            [CompletionResult]::new('signal', 'signal', [CompletionResultType]::ParameterValue, 'Signal a running allocation')
            break
        }
        'nomad;help;alloc;status' {
            break
        }
        'nomad;help;alloc;logs' {
            break
        }
        'nomad;help;alloc;fs' {
            break
        }
        'nomad;help;alloc;exec' {
            break
        }
        'nomad;help;alloc;checks' {
            break
        }
        'nomad;help;alloc;stop' {
            break
        }
        'nomad;help;alloc;restart' {
            break
        }
        'nomad;help;alloc;signal' {
            break
        }
        'nomad;help;deployment' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List all deployments')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Display the status of a deployment')
            [CompletionResult]::new('promote', 'promote', [CompletionResultType]::ParameterValue, 'Promote canaries in a deployment')
            [CompletionResult]::new('fail', 'fail', [CompletionResultType]::ParameterValue, 'Manually fail a deployment')
            [CompletionResult]::new('pause', 'pause', [CompletionResultType]::ParameterValue, 'Pause a deployment')
            [CompletionResult]::new('resume', 'resume', [CompletionResultType]::ParameterValue, 'Resume a paused deployment')
            [CompletionResult]::new('unblock', 'unblock', [CompletionResultType]::ParameterValue, 'Unblock a blocked deployment')
            break
        }
        'nomad;help;deployment;list' {
            break
        }
        'nomad;help;deployment;status' {
            break
        }
        'nomad;help;deployment;promote' {
            break
        }
        'nomad;help;deployment;fail' {
            break
        }
        'nomad;help;deployment;pause' {
            break
        }
        'nomad;help;deployment;resume' {
            break
        }
        'nomad;help;deployment;unblock' {
            break
        }
        'nomad;help;eval' {
            [CompletionResult]::new('delete', 'delete', [CompletionResultType]::ParameterValue, 'Delete evaluations')
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'List the set of evaluations processed by Nomad')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Display evaluation status and placement failure reasons')
            break
        }
        'nomad;help;eval;delete' {
            break
        }
        'nomad;help;eval;list' {
            break
        }
        'nomad;help;eval;status' {
            break
        }
        'nomad;help;fmt' {
            break
        }
        'nomad;help;job' {
            [CompletionResult]::new('init', 'init', [CompletionResultType]::ParameterValue, 'Create an example job file')
            [CompletionResult]::new('run', 'run', [CompletionResultType]::ParameterValue, 'Run a new job or update an existing job')
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Display status information about a job')
            [CompletionResult]::new('stop', 'stop', [CompletionResultType]::ParameterValue, 'Stop a running job')
            [CompletionResult]::new('start', 'start', [CompletionResultType]::ParameterValue, 'Start a stopped job')
            [CompletionResult]::new('tag', 'tag', [CompletionResultType]::ParameterValue, 'Manage job version tags')
            [CompletionResult]::new('inspect', 'inspect', [CompletionResultType]::ParameterValue, 'Inspect a submitted job')
            [CompletionResult]::new('validate', 'validate', [CompletionResultType]::ParameterValue, 'Check a job specification for syntax errors')
            [CompletionResult]::new('allocs', 'allocs', [CompletionResultType]::ParameterValue, 'List allocations for a job')
            [CompletionResult]::new('history', 'history', [CompletionResultType]::ParameterValue, 'Display all tracked versions of a job')
            [CompletionResult]::new('promote', 'promote', [CompletionResultType]::ParameterValue, 'Promote a job''s canaries')
            [CompletionResult]::new('revert', 'revert', [CompletionResultType]::ParameterValue, 'Revert to a prior version of the job')
            [CompletionResult]::new('plan', 'plan', [CompletionResultType]::ParameterValue, 'Invoke a dry-run of the scheduler for a job')
            [CompletionResult]::new('dispatch', 'dispatch', [CompletionResultType]::ParameterValue, 'Dispatch an instance of a parameterized job')
            [CompletionResult]::new('periodic', 'periodic', [CompletionResultType]::ParameterValue, 'Interact with periodic jobs')
            [CompletionResult]::new('scale', 'scale', [CompletionResultType]::ParameterValue, 'Change the count of a job''s task group')
            [CompletionResult]::new('eval', 'eval', [CompletionResultType]::ParameterValue, 'Force an evaluation of the job')
            [CompletionResult]::new('deployments', 'deployments', [CompletionResultType]::ParameterValue, 'List deployments for a job')
            [CompletionResult]::new('restart', 'restart', [CompletionResultType]::ParameterValue, 'Restart or reschedule allocations for a job')
            [CompletionResult]::new('scaling-events', 'scaling-events', [CompletionResultType]::ParameterValue, 'Display the most recent scaling events for a job')
            break
        }
        'nomad;help;job;init' {
            break
        }
        'nomad;help;job;run' {
            break
        }
        'nomad;help;job;status' {
            break
        }
        'nomad;help;job;stop' {
            break
        }
        'nomad;help;job;start' {
            break
        }
        'nomad;help;job;tag' {
            [CompletionResult]::new('apply', 'apply', [CompletionResultType]::ParameterValue, 'Save a job version to prevent it from being garbage-collected and allow it to be diffed and reverted by name')
            [CompletionResult]::new('unset', 'unset', [CompletionResultType]::ParameterValue, 'Remove a tag from a job version')
            break
        }
        'nomad;help;job;tag;apply' {
            break
        }
        'nomad;help;job;tag;unset' {
            break
        }
        'nomad;help;job;inspect' {
            break
        }
        'nomad;help;job;validate' {
            break
        }
        'nomad;help;job;allocs' {
            break
        }
        'nomad;help;job;history' {
            break
        }
        'nomad;help;job;promote' {
            break
        }
        'nomad;help;job;revert' {
            break
        }
        'nomad;help;job;plan' {
            break
        }
        'nomad;help;job;dispatch' {
            break
        }
        'nomad;help;job;periodic' {
            [CompletionResult]::new('force', 'force', [CompletionResultType]::ParameterValue, 'Force the launch of a periodic job')
            break
        }
        'nomad;help;job;periodic;force' {
            break
        }
        'nomad;help;job;scale' {
            break
        }
        'nomad;help;job;eval' {
            break
        }
        'nomad;help;job;deployments' {
            break
        }
        'nomad;help;job;restart' {
            break
        }
        'nomad;help;job;scaling-events' {
            break
        }
        'nomad;help;node' {
            [CompletionResult]::new('status', 'status', [CompletionResultType]::ParameterValue, 'Display status information about nodes')
            [CompletionResult]::new('drain', 'drain', [CompletionResultType]::ParameterValue, 'Toggle drain mode on a given node')
            [CompletionResult]::new('eligibility', 'eligibility', [CompletionResultType]::ParameterValue, 'Toggle scheduling eligibility for a given node')
            [CompletionResult]::new('meta', 'meta', [CompletionResultType]::ParameterValue, 'Interact with node metadata')
            break
        }
        'nomad;help;node;status' {
            break
        }
        'nomad;help;node;drain' {
            break
        }
        'nomad;help;node;eligibility' {
            break
        }
        'nomad;help;node;meta' {
            [CompletionResult]::new('apply', 'apply', [CompletionResultType]::ParameterValue, 'Modify node metadata')
            [CompletionResult]::new('read', 'read', [CompletionResultType]::ParameterValue, 'Read node metadata')
            break
        }
        'nomad;help;node;meta;apply' {
            break
        }
        'nomad;help;node;meta;read' {
            break
        }
        'nomad;help;server' {
            [CompletionResult]::new('members', 'members', [CompletionResultType]::ParameterValue, 'Display a list of known servers and their status')
            [CompletionResult]::new('join', 'join', [CompletionResultType]::ParameterValue, 'Join server nodes together')
            [CompletionResult]::new('force-leave', 'force-leave', [CompletionResultType]::ParameterValue, 'Force a server into the ''left'' state')
            break
        }
        'nomad;help;server;members' {
            break
        }
        'nomad;help;server;join' {
            break
        }
        'nomad;help;server;force-leave' {
            break
        }
        'nomad;help;service' {
            [CompletionResult]::new('list', 'list', [CompletionResultType]::ParameterValue, 'Display all registered Nomad services')
            [CompletionResult]::new('info', 'info', [CompletionResultType]::ParameterValue, 'Display an individual Nomad service registration')
            [CompletionResult]::new('delete', 'delete', [CompletionResultType]::ParameterValue, 'Deregister a registered Nomad service')
            break
        }
        'nomad;help;service;list' {
            break
        }
        'nomad;help;service;info' {
            break
        }
        'nomad;help;service;delete' {
            break
        }
        'nomad;help;operator' {
            [CompletionResult]::new('api', 'api', [CompletionResultType]::ParameterValue, 'Query Nomad''s HTTP API like curl')
            [CompletionResult]::new('scheduler', 'scheduler', [CompletionResultType]::ParameterValue, 'Provides access to the scheduler configuration')
            break
        }
        'nomad;help;operator;api' {
            break
        }
        'nomad;help;operator;scheduler' {
            [CompletionResult]::new('get-config', 'get-config', [CompletionResultType]::ParameterValue, 'Display the current scheduler configuration')
            [CompletionResult]::new('set-config', 'set-config', [CompletionResultType]::ParameterValue, 'Modify the current scheduler configuration')
            break
        }
        'nomad;help;operator;scheduler;get-config' {
            break
        }
        'nomad;help;operator;scheduler;set-config' {
            break
        }
        'nomad;help;status' {
            break
        }
        'nomad;help;system' {
            [CompletionResult]::new('gc', 'gc', [CompletionResultType]::ParameterValue, 'Run the system garbage collection process')
            [CompletionResult]::new('reconcile', 'reconcile', [CompletionResultType]::ParameterValue, 'Perform system reconciliation tasks')
            break
        }
        'nomad;help;system;gc' {
            break
        }
        'nomad;help;system;reconcile' {
            [CompletionResult]::new('summaries', 'summaries', [CompletionResultType]::ParameterValue, 'Reconciles the summaries of all registered jobs')
            break
        }
        'nomad;help;system;reconcile;summaries' {
            break
        }
        'nomad;help;version' {
            break
        }
        'nomad;help;run' {
            break
        }
        'nomad;help;stop' {
            break
        }
        'nomad;help;start' {
            break
        }
        'nomad;help;init' {
            break
        }
        'nomad;help;inspect' {
            break
        }
        'nomad;help;validate' {
            break
        }
        'nomad;help;logs' {
            break
        }
        'nomad;help;exec' {
            break
        }
        'nomad;help;fs' {
            break
        }
        'nomad;help;help' {
            break
        }
    })

    $completions.Where{ $_.CompletionText -like "$wordToComplete*" } |
        Sort-Object -Property ListItemText
}
