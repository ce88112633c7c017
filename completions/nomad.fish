# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_nomad_global_optspecs
    string join \n v/version h/help
end

function __fish_nomad_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_nomad_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_nomad_using_subcommand
    set -l cmd (__fish_nomad_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c nomad -n "__fish_nomad_needs_command" -s v -l version -d 'Print the version (as `nomad version`)'
complete -c nomad -n "__fish_nomad_needs_command" -s h -l help -d 'Print help'
complete -c nomad -n "__fish_nomad_needs_command" -f -a "agent" -d 'Runs a Nomad agent'
complete -c nomad -n "__fish_nomad_needs_command" -f -a "agent-info" -d 'Display status information about the local agent'
complete -c nomad -n "__fish_nomad_needs_command" -f -a "alloc" -d 'Interact with allocations'
complete -c nomad -n "__fish_nomad_needs_command" -f -a "deployment" -d 'Interact with deployments'
complete -c nomad -n "__fish_nomad_needs_command" -f -a "eval" -d 'Interact with evaluations'
complete -c nomad -n "__fish_nomad_needs_command" -f -a "fmt" -d 'Rewrites Nomad config and job files to canonical format'
complete -c nomad -n "__fish_nomad_needs_command" -f -a "job" -d 'Interact with jobs'
complete -c nomad -n "__fish_nomad_needs_command" -f -a "node" -d 'Interact with nodes'
complete -c nomad -n "__fish_nomad_needs_command" -f -a "server" -d 'Interact with servers'
complete -c nomad -n "__fish_nomad_needs_command" -f -a "service" -d 'Interact with registered services'
complete -c nomad -n "__fish_nomad_needs_command" -f -a "operator" -d 'Provides cluster-level tools for Nomad operators'
complete -c nomad -n "__fish_nomad_needs_command" -f -a "status" -d 'Display the status output for a resource'
complete -c nomad -n "__fish_nomad_needs_command" -f -a "system" -d 'Interact with the system API'
complete -c nomad -n "__fish_nomad_needs_command" -f -a "version" -d 'Prints the Nomad version'
complete -c nomad -n "__fish_nomad_needs_command" -f -a "run" -d 'Run a new job or update an existing job (alias of `job run`)'
complete -c nomad -n "__fish_nomad_needs_command" -f -a "stop" -d 'Stop a running job (alias of `job stop`)'
complete -c nomad -n "__fish_nomad_needs_command" -f -a "start" -d 'Start a stopped job (alias of `job start`)'
complete -c nomad -n "__fish_nomad_needs_command" -f -a "init"
complete -c nomad -n "__fish_nomad_needs_command" -f -a "inspect" -d 'Flags accepted by every command that talks to an agent'
complete -c nomad -n "__fish_nomad_needs_command" -f -a "validate" -d 'How `job run`/`job validate` get a job from a file (Nomad\'s `JobGetter`)'
complete -c nomad -n "__fish_nomad_needs_command" -f -a "logs" -d 'Flags accepted by every command that talks to an agent'
complete -c nomad -n "__fish_nomad_needs_command" -f -a "exec" -d 'Execute commands in task (alias of `alloc exec`)'
complete -c nomad -n "__fish_nomad_needs_command" -f -a "fs" -d 'Flags accepted by every command that talks to an agent'
complete -c nomad -n "__fish_nomad_needs_command" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c nomad -n "__fish_nomad_using_subcommand agent" -l config -d 'The path to a config file or directory of files to load; can be specified multiple times' -r -F
complete -c nomad -n "__fish_nomad_using_subcommand agent" -l bind -d 'The address the agent will bind to for all of its various network services' -r
complete -c nomad -n "__fish_nomad_using_subcommand agent" -l data-dir -d 'The path to the data directory' -r -F
complete -c nomad -n "__fish_nomad_using_subcommand agent" -l node -d 'The name of the local agent' -r
complete -c nomad -n "__fish_nomad_using_subcommand agent" -l dc -d 'The name of the datacenter this Nomad agent is a member of' -r
complete -c nomad -n "__fish_nomad_using_subcommand agent" -l region -d 'The region the Nomad agent is a member of' -r
complete -c nomad -n "__fish_nomad_using_subcommand agent" -l log-level -d 'The logging level (TRACE, DEBUG, INFO, WARN, ERROR)' -r
complete -c nomad -n "__fish_nomad_using_subcommand agent" -l bootstrap-expect -d 'How many servers to wait for before bootstrapping' -r
complete -c nomad -n "__fish_nomad_using_subcommand agent" -l node-class -d 'Mark this node as a member of a node class' -r
complete -c nomad -n "__fish_nomad_using_subcommand agent" -l node-pool -d 'The node pool this node is a member of' -r
complete -c nomad -n "__fish_nomad_using_subcommand agent" -l meta -d 'User specified metadata (key=value) to associate with the node; repeatable' -r
complete -c nomad -n "__fish_nomad_using_subcommand agent" -l servers -d 'A comma-separated list of known server addresses to connect to (client mode)' -r
complete -c nomad -n "__fish_nomad_using_subcommand agent" -l dev -d 'Start the agent in development mode: a server and client with in-memory defaults'
complete -c nomad -n "__fish_nomad_using_subcommand agent" -l server -d 'Enable server mode for the agent'
complete -c nomad -n "__fish_nomad_using_subcommand agent" -l client -d 'Enable client mode for the agent'
complete -c nomad -n "__fish_nomad_using_subcommand agent" -s h -l help -d 'Print help'
complete -c nomad -n "__fish_nomad_using_subcommand agent-info" -l address -d 'The address of the Nomad server' -r
complete -c nomad -n "__fish_nomad_using_subcommand agent-info" -l region -d 'The region of the Nomad servers to forward commands to' -r
complete -c nomad -n "__fish_nomad_using_subcommand agent-info" -l namespace -d 'The target namespace for queries and actions bound to a namespace' -r
complete -c nomad -n "__fish_nomad_using_subcommand agent-info" -l token -d 'The SecretID of an ACL token to use to authenticate API requests with' -r
complete -c nomad -n "__fish_nomad_using_subcommand agent-info" -s t -d 'Format and display the output using a Go template' -r
complete -c nomad -n "__fish_nomad_using_subcommand agent-info" -l json -d 'Output the agent\'s self information in its JSON format'
complete -c nomad -n "__fish_nomad_using_subcommand agent-info" -s h -l help -d 'Print help'
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and not __fish_seen_subcommand_from status logs fs exec checks stop restart signal help" -s h -l help -d 'Print help'
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and not __fish_seen_subcommand_from status logs fs exec checks stop restart signal help" -f -a "status" -d 'Display allocation status information and metadata'
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and not __fish_seen_subcommand_from status logs fs exec checks stop restart signal help" -f -a "logs" -d 'Streams the logs of a task'
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and not __fish_seen_subcommand_from status logs fs exec checks stop restart signal help" -f -a "fs" -d 'Inspect the contents of an allocation directory'
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and not __fish_seen_subcommand_from status logs fs exec checks stop restart signal help" -f -a "exec" -d 'Execute commands in task'
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and not __fish_seen_subcommand_from status logs fs exec checks stop restart signal help" -f -a "checks" -d 'Outputs service health check status information'
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and not __fish_seen_subcommand_from status logs fs exec checks stop restart signal help" -f -a "stop" -d 'Stop and reschedule a running allocation'
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and not __fish_seen_subcommand_from status logs fs exec checks stop restart signal help" -f -a "restart" -d 'Restart a running allocation'
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and not __fish_seen_subcommand_from status logs fs exec checks stop restart signal help" -f -a "signal" -d 'Signal a running allocation'
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and not __fish_seen_subcommand_from status logs fs exec checks stop restart signal help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from status" -l address -d 'The address of the Nomad server' -r
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from status" -l region -d 'The region of the Nomad servers to forward commands to' -r
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from status" -l namespace -d 'The target namespace for queries and actions bound to a namespace' -r
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from status" -l token -d 'The SecretID of an ACL token to use to authenticate API requests with' -r
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from status" -s t -d 'Format and display the output using a Go template' -r
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from status" -l short -d 'Display short output. Shows only the most recent task event'
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from status" -l verbose -d 'Show full information'
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from status" -l json -d 'Output the allocation in its JSON format'
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from status" -l stats -d 'Display detailed resource usage statistics'
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from status" -s h -l help -d 'Print help'
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from logs" -l address -d 'The address of the Nomad server' -r
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from logs" -l region -d 'The region of the Nomad servers to forward commands to' -r
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from logs" -l namespace -d 'The target namespace for queries and actions bound to a namespace' -r
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from logs" -l token -d 'The SecretID of an ACL token to use to authenticate API requests with' -r
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from logs" -s n -d 'Sets the tail location in best-efforted number of lines relative to the end' -r
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from logs" -s c -d 'Sets the tail location in number of bytes relative to the end' -r
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from logs" -l task -d 'Sets the task to view the logs of' -r
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from logs" -l group -d 'With -job, pick the allocation from this task group' -r
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from logs" -s f -d 'Causes the output to not stop, and instead continuously output new lines'
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from logs" -l stderr -d 'Display stderr logs'
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from logs" -l stdout -d 'Display stdout logs (the default)'
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from logs" -l tail -d 'Show the logs contents with offsets relative to the end of the logs'
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from logs" -l verbose -d 'Show full information'
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from logs" -l job -d 'Use a random allocation from the specified job ID or prefix'
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from logs" -s h -l help -d 'Print help'
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from fs" -l address -d 'The address of the Nomad server' -r
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from fs" -l region -d 'The region of the Nomad servers to forward commands to' -r
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from fs" -l namespace -d 'The target namespace for queries and actions bound to a namespace' -r
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from fs" -l token -d 'The SecretID of an ACL token to use to authenticate API requests with' -r
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from fs" -l group -d 'With -job, only allocations of this task group' -r
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from fs" -s n -d 'Sets the tail location in best-efforted number of lines relative to the end' -r
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from fs" -s c -d 'Sets the tail location in number of bytes relative to the end' -r
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from fs" -s H -d 'Machine friendly output: sizes in bytes'
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from fs" -l verbose -d 'Show full information'
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from fs" -l job -d 'Use a random allocation from the specified job ID or prefix'
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from fs" -l stat -d 'Show file stat information instead of displaying the file, or listing the directory'
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from fs" -s f -d 'Causes the output to not stop, and instead continuously output new lines'
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from fs" -l tail -d 'Show the files contents with offsets relative to the end of the file'
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from fs" -s h -l help -d 'Print help'
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from exec" -l address -d 'The address of the Nomad server' -r
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from exec" -l region -d 'The region of the Nomad servers to forward commands to' -r
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from exec" -l namespace -d 'The target namespace for queries and actions bound to a namespace' -r
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from exec" -l token -d 'The SecretID of an ACL token to use to authenticate API requests with' -r
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from exec" -l group -d 'With -job, only allocations of this task group' -r
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from exec" -s i -d 'Pass stdin to the container (default true)' -r -f -a "true\t''
false\t''"
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from exec" -s t -d 'Allocate a pseudo-tty (default: whether stdin is a terminal)' -r -f -a "true\t''
false\t''"
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from exec" -s e -d 'Escape character for closing the session ("none" to disable)' -r
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from exec" -l task -d 'The task to exec into (optional when the group has one task)' -r
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from exec" -l job -d 'Use a random allocation from the specified job ID or prefix'
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from exec" -l verbose
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from exec" -s h -l help -d 'Print help'
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from checks" -l address -d 'The address of the Nomad server' -r
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from checks" -l region -d 'The region of the Nomad servers to forward commands to' -r
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from checks" -l namespace -d 'The target namespace for queries and actions bound to a namespace' -r
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from checks" -l token -d 'The SecretID of an ACL token to use to authenticate API requests with' -r
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from checks" -s t -d 'Format and display the output using a Go template' -r
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from checks" -l verbose -d 'Show full information'
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from checks" -l json -d 'Output the latest health check status information in a JSON format'
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from checks" -s h -l help -d 'Print help'
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from stop" -l address -d 'The address of the Nomad server' -r
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from stop" -l region -d 'The region of the Nomad servers to forward commands to' -r
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from stop" -l namespace -d 'The target namespace for queries and actions bound to a namespace' -r
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from stop" -l token -d 'The SecretID of an ACL token to use to authenticate API requests with' -r
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from stop" -l detach -d 'Return immediately instead of monitoring the eval'
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from stop" -l no-shutdown-delay -d 'Ignore the group and tasks\' shutdown_delay'
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from stop" -l verbose
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from stop" -s h -l help -d 'Print help'
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from restart" -l address -d 'The address of the Nomad server' -r
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from restart" -l region -d 'The region of the Nomad servers to forward commands to' -r
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from restart" -l namespace -d 'The target namespace for queries and actions bound to a namespace' -r
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from restart" -l token -d 'The SecretID of an ACL token to use to authenticate API requests with' -r
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from restart" -l task -d 'The task to restart' -r
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from restart" -l all-tasks -d 'Restart every task of the allocation, including dead prestart and poststart tasks'
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from restart" -l verbose
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from restart" -s h -l help -d 'Print help'
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from signal" -l address -d 'The address of the Nomad server' -r
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from signal" -l region -d 'The region of the Nomad servers to forward commands to' -r
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from signal" -l namespace -d 'The target namespace for queries and actions bound to a namespace' -r
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from signal" -l token -d 'The SecretID of an ACL token to use to authenticate API requests with' -r
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from signal" -s s -d 'The signal to send' -r
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from signal" -l task -d 'The task to signal' -r
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from signal" -l verbose
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from signal" -s h -l help -d 'Print help'
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from help" -f -a "status" -d 'Display allocation status information and metadata'
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from help" -f -a "logs" -d 'Streams the logs of a task'
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from help" -f -a "fs" -d 'Inspect the contents of an allocation directory'
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from help" -f -a "exec" -d 'Execute commands in task'
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from help" -f -a "checks" -d 'Outputs service health check status information'
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from help" -f -a "stop" -d 'Stop and reschedule a running allocation'
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from help" -f -a "restart" -d 'Restart a running allocation'
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from help" -f -a "signal" -d 'Signal a running allocation'
complete -c nomad -n "__fish_nomad_using_subcommand alloc; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c nomad -n "__fish_nomad_using_subcommand deployment; and not __fish_seen_subcommand_from list status promote fail pause resume unblock help" -s h -l help -d 'Print help'
complete -c nomad -n "__fish_nomad_using_subcommand deployment; and not __fish_seen_subcommand_from list status promote fail pause resume unblock help" -f -a "list" -d 'List all deployments'
complete -c nomad -n "__fish_nomad_using_subcommand deployment; and not __fish_seen_subcommand_from list status promote fail pause resume unblock help" -f -a "status" -d 'Display the status of a deployment'
complete -c nomad -n "__fish_nomad_using_subcommand deployment; and not __fish_seen_subcommand_from list status promote fail pause resume unblock help" -f -a "promote" -d 'Promote canaries in a deployment'
complete -c nomad -n "__fish_nomad_using_subcommand deployment; and not __fish_seen_subcommand_from list status promote fail pause resume unblock help" -f -a "fail" -d 'Manually fail a deployment'
complete -c nomad -n "__fish_nomad_using_subcommand deployment; and not __fish_seen_subcommand_from list status promote fail pause resume unblock help" -f -a "pause" -d 'Pause a deployment'
complete -c nomad -n "__fish_nomad_using_subcommand deployment; and not __fish_seen_subcommand_from list status promote fail pause resume unblock help" -f -a "resume" -d 'Resume a paused deployment'
complete -c nomad -n "__fish_nomad_using_subcommand deployment; and not __fish_seen_subcommand_from list status promote fail pause resume unblock help" -f -a "unblock" -d 'Unblock a blocked deployment'
complete -c nomad -n "__fish_nomad_using_subcommand deployment; and not __fish_seen_subcommand_from list status promote fail pause resume unblock help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c nomad -n "__fish_nomad_using_subcommand deployment; and __fish_seen_subcommand_from list" -l address -d 'The address of the Nomad server' -r
complete -c nomad -n "__fish_nomad_using_subcommand deployment; and __fish_seen_subcommand_from list" -l region -d 'The region of the Nomad servers to forward commands to' -r
complete -c nomad -n "__fish_nomad_using_subcommand deployment; and __fish_seen_subcommand_from list" -l namespace -d 'The target namespace for queries and actions bound to a namespace' -r
complete -c nomad -n "__fish_nomad_using_subcommand deployment; and __fish_seen_subcommand_from list" -l token -d 'The SecretID of an ACL token to use to authenticate API requests with' -r
complete -c nomad -n "__fish_nomad_using_subcommand deployment; and __fish_seen_subcommand_from list" -s t -d 'Format and display the output using a Go template' -r
complete -c nomad -n "__fish_nomad_using_subcommand deployment; and __fish_seen_subcommand_from list" -l filter -d 'Only show results matching this filter expression (go-bexpr, e.g. `Status == "ready"`)' -r
complete -c nomad -n "__fish_nomad_using_subcommand deployment; and __fish_seen_subcommand_from list" -l json -d 'Output the deployments in their JSON format'
complete -c nomad -n "__fish_nomad_using_subcommand deployment; and __fish_seen_subcommand_from list" -l verbose -d 'Display full information'
complete -c nomad -n "__fish_nomad_using_subcommand deployment; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c nomad -n "__fish_nomad_using_subcommand deployment; and __fish_seen_subcommand_from status" -l address -d 'The address of the Nomad server' -r
complete -c nomad -n "__fish_nomad_using_subcommand deployment; and __fish_seen_subcommand_from status" -l region -d 'The region of the Nomad servers to forward commands to' -r
complete -c nomad -n "__fish_nomad_using_subcommand deployment; and __fish_seen_subcommand_from status" -l namespace -d 'The target namespace for queries and actions bound to a namespace' -r
complete -c nomad -n "__fish_nomad_using_subcommand deployment; and __fish_seen_subcommand_from status" -l token -d 'The SecretID of an ACL token to use to authenticate API requests with' -r
complete -c nomad -n "__fish_nomad_using_subcommand deployment; and __fish_seen_subcommand_from status" -s t -d 'Format and display the output using a Go template' -r
complete -c nomad -n "__fish_nomad_using_subcommand deployment; and __fish_seen_subcommand_from status" -l wait -d 'How long to wait before polling an update, used in conjunction with monitor mode' -r
complete -c nomad -n "__fish_nomad_using_subcommand deployment; and __fish_seen_subcommand_from status" -l json -d 'Output the deployment in its JSON format'
complete -c nomad -n "__fish_nomad_using_subcommand deployment; and __fish_seen_subcommand_from status" -l verbose -d 'Display full information'
complete -c nomad -n "__fish_nomad_using_subcommand deployment; and __fish_seen_subcommand_from status" -l monitor -d 'Enter monitor mode to poll for updates to the deployment status'
complete -c nomad -n "__fish_nomad_using_subcommand deployment; and __fish_seen_subcommand_from status" -s h -l help -d 'Print help'
complete -c nomad -n "__fish_nomad_using_subcommand deployment; and __fish_seen_subcommand_from promote" -l address -d 'The address of the Nomad server' -r
complete -c nomad -n "__fish_nomad_using_subcommand deployment; and __fish_seen_subcommand_from promote" -l region -d 'The region of the Nomad servers to forward commands to' -r
complete -c nomad -n "__fish_nomad_using_subcommand deployment; and __fish_seen_subcommand_from promote" -l namespace -d 'The target namespace for queries and actions bound to a namespace' -r
complete -c nomad -n "__fish_nomad_using_subcommand deployment; and __fish_seen_subcommand_from promote" -l token -d 'The SecretID of an ACL token to use to authenticate API requests with' -r
complete -c nomad -n "__fish_nomad_using_subcommand deployment; and __fish_seen_subcommand_from promote" -l group -d 'Task group to promote; may be given multiple times (default: all groups)' -r
complete -c nomad -n "__fish_nomad_using_subcommand deployment; and __fish_seen_subcommand_from promote" -l detach -d 'Return immediately instead of entering monitor mode'
complete -c nomad -n "__fish_nomad_using_subcommand deployment; and __fish_seen_subcommand_from promote" -l verbose -d 'Display full information'
complete -c nomad -n "__fish_nomad_using_subcommand deployment; and __fish_seen_subcommand_from promote" -s h -l help -d 'Print help'
complete -c nomad -n "__fish_nomad_using_subcommand deployment; and __fish_seen_subcommand_from fail" -l address -d 'The address of the Nomad server' -r
complete -c nomad -n "__fish_nomad_using_subcommand deployment; and __fish_seen_subcommand_from fail" -l region -d 'The region of the Nomad servers to forward commands to' -r
complete -c nomad -n "__fish_nomad_using_subcommand deployment; and __fish_seen_subcommand_from fail" -l namespace -d 'The target namespace for queries and actions bound to a namespace' -r
complete -c nomad -n "__fish_nomad_using_subcommand deployment; and __fish_seen_subcommand_from fail" -l token -d 'The SecretID of an ACL token to use to authenticate API requests with' -r
complete -c nomad -n "__fish_nomad_using_subcommand deployment; and __fish_seen_subcommand_from fail" -l detach -d 'Return immediately instead of entering monitor mode'
complete -c nomad -n "__fish_nomad_using_subcommand deployment; and __fish_seen_subcommand_from fail" -l verbose -d 'Display full information'
complete -c nomad -n "__fish_nomad_using_subcommand deployment; and __fish_seen_subcommand_from fail" -s h -l help -d 'Print help'
complete -c nomad -n "__fish_nomad_using_subcommand deployment; and __fish_seen_subcommand_from pause" -l address -d 'The address of the Nomad server' -r
complete -c nomad -n "__fish_nomad_using_subcommand deployment; and __fish_seen_subcommand_from pause" -l region -d 'The region of the Nomad servers to forward commands to' -r
complete -c nomad -n "__fish_nomad_using_subcommand deployment; and __fish_seen_subcommand_from pause" -l namespace -d 'The target namespace for queries and actions bound to a namespace' -r
complete -c nomad -n "__fish_nomad_using_subcommand deployment; and __fish_seen_subcommand_from pause" -l token -d 'The SecretID of an ACL token to use to authenticate API requests with' -r
complete -c nomad -n "__fish_nomad_using_subcommand deployment; and __fish_seen_subcommand_from pause" -l detach -d 'Return immediately instead of entering monitor mode'
complete -c nomad -n "__fish_nomad_using_subcommand deployment; and __fish_seen_subcommand_from pause" -l verbose -d 'Display full information'
complete -c nomad -n "__fish_nomad_using_subcommand deployment; and __fish_seen_subcommand_from pause" -s h -l help -d 'Print help'
complete -c nomad -n "__fish_nomad_using_subcommand deployment; and __fish_seen_subcommand_from resume" -l address -d 'The address of the Nomad server' -r
complete -c nomad -n "__fish_nomad_using_subcommand deployment; and __fish_seen_subcommand_from resume" -l region -d 'The region of the Nomad servers to forward commands to' -r
complete -c nomad -n "__fish_nomad_using_subcommand deployment; and __fish_seen_subcommand_from resume" -l namespace -d 'The target namespace for queries and actions bound to a namespace' -r
complete -c nomad -n "__fish_nomad_using_subcommand deployment; and __fish_seen_subcommand_from resume" -l token -d 'The SecretID of an ACL token to use to authenticate API requests with' -r
complete -c nomad -n "__fish_nomad_using_subcommand deployment; and __fish_seen_subcommand_from resume" -l detach -d 'Return immediately instead of entering monitor mode'
complete -c nomad -n "__fish_nomad_using_subcommand deployment; and __fish_seen_subcommand_from resume" -l verbose -d 'Display full information'
complete -c nomad -n "__fish_nomad_using_subcommand deployment; and __fish_seen_subcommand_from resume" -s h -l help -d 'Print help'
complete -c nomad -n "__fish_nomad_using_subcommand deployment; and __fish_seen_subcommand_from unblock" -l address -d 'The address of the Nomad server' -r
complete -c nomad -n "__fish_nomad_using_subcommand deployment; and __fish_seen_subcommand_from unblock" -l region -d 'The region of the Nomad servers to forward commands to' -r
complete -c nomad -n "__fish_nomad_using_subcommand deployment; and __fish_seen_subcommand_from unblock" -l namespace -d 'The target namespace for queries and actions bound to a namespace' -r
complete -c nomad -n "__fish_nomad_using_subcommand deployment; and __fish_seen_subcommand_from unblock" -l token -d 'The SecretID of an ACL token to use to authenticate API requests with' -r
complete -c nomad -n "__fish_nomad_using_subcommand deployment; and __fish_seen_subcommand_from unblock" -l detach -d 'Return immediately instead of entering monitor mode'
complete -c nomad -n "__fish_nomad_using_subcommand deployment; and __fish_seen_subcommand_from unblock" -l verbose -d 'Display full information'
complete -c nomad -n "__fish_nomad_using_subcommand deployment; and __fish_seen_subcommand_from unblock" -s h -l help -d 'Print help'
complete -c nomad -n "__fish_nomad_using_subcommand deployment; and __fish_seen_subcommand_from help" -f -a "list" -d 'List all deployments'
complete -c nomad -n "__fish_nomad_using_subcommand deployment; and __fish_seen_subcommand_from help" -f -a "status" -d 'Display the status of a deployment'
complete -c nomad -n "__fish_nomad_using_subcommand deployment; and __fish_seen_subcommand_from help" -f -a "promote" -d 'Promote canaries in a deployment'
complete -c nomad -n "__fish_nomad_using_subcommand deployment; and __fish_seen_subcommand_from help" -f -a "fail" -d 'Manually fail a deployment'
complete -c nomad -n "__fish_nomad_using_subcommand deployment; and __fish_seen_subcommand_from help" -f -a "pause" -d 'Pause a deployment'
complete -c nomad -n "__fish_nomad_using_subcommand deployment; and __fish_seen_subcommand_from help" -f -a "resume" -d 'Resume a paused deployment'
complete -c nomad -n "__fish_nomad_using_subcommand deployment; and __fish_seen_subcommand_from help" -f -a "unblock" -d 'Unblock a blocked deployment'
complete -c nomad -n "__fish_nomad_using_subcommand deployment; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c nomad -n "__fish_nomad_using_subcommand eval; and not __fish_seen_subcommand_from delete list status help" -s h -l help -d 'Print help'
complete -c nomad -n "__fish_nomad_using_subcommand eval; and not __fish_seen_subcommand_from delete list status help" -f -a "delete" -d 'Delete evaluations'
complete -c nomad -n "__fish_nomad_using_subcommand eval; and not __fish_seen_subcommand_from delete list status help" -f -a "list" -d 'List the set of evaluations processed by Nomad'
complete -c nomad -n "__fish_nomad_using_subcommand eval; and not __fish_seen_subcommand_from delete list status help" -f -a "status" -d 'Display evaluation status and placement failure reasons'
complete -c nomad -n "__fish_nomad_using_subcommand eval; and not __fish_seen_subcommand_from delete list status help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c nomad -n "__fish_nomad_using_subcommand eval; and __fish_seen_subcommand_from delete" -l address -d 'The address of the Nomad server' -r
complete -c nomad -n "__fish_nomad_using_subcommand eval; and __fish_seen_subcommand_from delete" -l region -d 'The region of the Nomad servers to forward commands to' -r
complete -c nomad -n "__fish_nomad_using_subcommand eval; and __fish_seen_subcommand_from delete" -l namespace -d 'The target namespace for queries and actions bound to a namespace' -r
complete -c nomad -n "__fish_nomad_using_subcommand eval; and __fish_seen_subcommand_from delete" -l token -d 'The SecretID of an ACL token to use to authenticate API requests with' -r
complete -c nomad -n "__fish_nomad_using_subcommand eval; and __fish_seen_subcommand_from delete" -l filter -d 'Delete the evaluations matching this filter expression (see `nomad eval list -filter`)' -r
complete -c nomad -n "__fish_nomad_using_subcommand eval; and __fish_seen_subcommand_from delete" -l yes -d 'Bypass the confirmation prompt'
complete -c nomad -n "__fish_nomad_using_subcommand eval; and __fish_seen_subcommand_from delete" -s h -l help -d 'Print help'
complete -c nomad -n "__fish_nomad_using_subcommand eval; and __fish_seen_subcommand_from list" -l address -d 'The address of the Nomad server' -r
complete -c nomad -n "__fish_nomad_using_subcommand eval; and __fish_seen_subcommand_from list" -l region -d 'The region of the Nomad servers to forward commands to' -r
complete -c nomad -n "__fish_nomad_using_subcommand eval; and __fish_seen_subcommand_from list" -l namespace -d 'The target namespace for queries and actions bound to a namespace' -r
complete -c nomad -n "__fish_nomad_using_subcommand eval; and __fish_seen_subcommand_from list" -l token -d 'The SecretID of an ACL token to use to authenticate API requests with' -r
complete -c nomad -n "__fish_nomad_using_subcommand eval; and __fish_seen_subcommand_from list" -s t -d 'Format and display the output using a Go template' -r
complete -c nomad -n "__fish_nomad_using_subcommand eval; and __fish_seen_subcommand_from list" -l per-page -d 'How many results to show per page' -r
complete -c nomad -n "__fish_nomad_using_subcommand eval; and __fish_seen_subcommand_from list" -l page-token -d 'Where to start pagination' -r
complete -c nomad -n "__fish_nomad_using_subcommand eval; and __fish_seen_subcommand_from list" -l job -d 'Only show evaluations for this job ID' -r
complete -c nomad -n "__fish_nomad_using_subcommand eval; and __fish_seen_subcommand_from list" -l status -d 'Only show evaluations with this status' -r
complete -c nomad -n "__fish_nomad_using_subcommand eval; and __fish_seen_subcommand_from list" -l filter -d 'Only show evaluations matching this filter expression (e.g. `JobID == "web"`)' -r
complete -c nomad -n "__fish_nomad_using_subcommand eval; and __fish_seen_subcommand_from list" -l verbose -d 'Show full information'
complete -c nomad -n "__fish_nomad_using_subcommand eval; and __fish_seen_subcommand_from list" -l json -d 'Output the evaluations in their JSON format'
complete -c nomad -n "__fish_nomad_using_subcommand eval; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c nomad -n "__fish_nomad_using_subcommand eval; and __fish_seen_subcommand_from status" -l address -d 'The address of the Nomad server' -r
complete -c nomad -n "__fish_nomad_using_subcommand eval; and __fish_seen_subcommand_from status" -l region -d 'The region of the Nomad servers to forward commands to' -r
complete -c nomad -n "__fish_nomad_using_subcommand eval; and __fish_seen_subcommand_from status" -l namespace -d 'The target namespace for queries and actions bound to a namespace' -r
complete -c nomad -n "__fish_nomad_using_subcommand eval; and __fish_seen_subcommand_from status" -l token -d 'The SecretID of an ACL token to use to authenticate API requests with' -r
complete -c nomad -n "__fish_nomad_using_subcommand eval; and __fish_seen_subcommand_from status" -s t -d 'Format and display the output using a Go template' -r
complete -c nomad -n "__fish_nomad_using_subcommand eval; and __fish_seen_subcommand_from status" -l monitor -d 'Monitor an outstanding evaluation'
complete -c nomad -n "__fish_nomad_using_subcommand eval; and __fish_seen_subcommand_from status" -l verbose -d 'Show full information'
complete -c nomad -n "__fish_nomad_using_subcommand eval; and __fish_seen_subcommand_from status" -l json -d 'Output the evaluation in its JSON format'
complete -c nomad -n "__fish_nomad_using_subcommand eval; and __fish_seen_subcommand_from status" -s h -l help -d 'Print help'
complete -c nomad -n "__fish_nomad_using_subcommand eval; and __fish_seen_subcommand_from help" -f -a "delete" -d 'Delete evaluations'
complete -c nomad -n "__fish_nomad_using_subcommand eval; and __fish_seen_subcommand_from help" -f -a "list" -d 'List the set of evaluations processed by Nomad'
complete -c nomad -n "__fish_nomad_using_subcommand eval; and __fish_seen_subcommand_from help" -f -a "status" -d 'Display evaluation status and placement failure reasons'
complete -c nomad -n "__fish_nomad_using_subcommand eval; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c nomad -n "__fish_nomad_using_subcommand fmt" -l list -d 'List the files whose formatting changes' -r -f -a "true\t''
false\t''"
complete -c nomad -n "__fish_nomad_using_subcommand fmt" -l write -d 'Overwrite the files with their formatted text (ignored for stdin)' -r -f -a "true\t''
false\t''"
complete -c nomad -n "__fish_nomad_using_subcommand fmt" -l check -d 'Report files that are not formatted and exit 1, without writing them'
complete -c nomad -n "__fish_nomad_using_subcommand fmt" -l recursive -d 'Process subdirectories too'
complete -c nomad -n "__fish_nomad_using_subcommand fmt" -s h -l help -d 'Print help'
complete -c nomad -n "__fish_nomad_using_subcommand job; and not __fish_seen_subcommand_from init run status stop start tag inspect validate allocs history promote revert plan dispatch periodic scale eval deployments restart scaling-events help" -s h -l help -d 'Print help'
complete -c nomad -n "__fish_nomad_using_subcommand job; and not __fish_seen_subcommand_from init run status stop start tag inspect validate allocs history promote revert plan dispatch periodic scale eval deployments restart scaling-events help" -f -a "init" -d 'Create an example job file'
complete -c nomad -n "__fish_nomad_using_subcommand job; and not __fish_seen_subcommand_from init run status stop start tag inspect validate allocs history promote revert plan dispatch periodic scale eval deployments restart scaling-events help" -f -a "run" -d 'Run a new job or update an existing job'
complete -c nomad -n "__fish_nomad_using_subcommand job; and not __fish_seen_subcommand_from init run status stop start tag inspect validate allocs history promote revert plan dispatch periodic scale eval deployments restart scaling-events help" -f -a "status" -d 'Display status information about a job'
complete -c nomad -n "__fish_nomad_using_subcommand job; and not __fish_seen_subcommand_from init run status stop start tag inspect validate allocs history promote revert plan dispatch periodic scale eval deployments restart scaling-events help" -f -a "stop" -d 'Stop a running job'
complete -c nomad -n "__fish_nomad_using_subcommand job; and not __fish_seen_subcommand_from init run status stop start tag inspect validate allocs history promote revert plan dispatch periodic scale eval deployments restart scaling-events help" -f -a "start" -d 'Start a stopped job'
complete -c nomad -n "__fish_nomad_using_subcommand job; and not __fish_seen_subcommand_from init run status stop start tag inspect validate allocs history promote revert plan dispatch periodic scale eval deployments restart scaling-events help" -f -a "tag" -d 'Manage job version tags'
complete -c nomad -n "__fish_nomad_using_subcommand job; and not __fish_seen_subcommand_from init run status stop start tag inspect validate allocs history promote revert plan dispatch periodic scale eval deployments restart scaling-events help" -f -a "inspect" -d 'Inspect a submitted job'
complete -c nomad -n "__fish_nomad_using_subcommand job; and not __fish_seen_subcommand_from init run status stop start tag inspect validate allocs history promote revert plan dispatch periodic scale eval deployments restart scaling-events help" -f -a "validate" -d 'Check a job specification for syntax errors'
complete -c nomad -n "__fish_nomad_using_subcommand job; and not __fish_seen_subcommand_from init run status stop start tag inspect validate allocs history promote revert plan dispatch periodic scale eval deployments restart scaling-events help" -f -a "allocs" -d 'List allocations for a job'
complete -c nomad -n "__fish_nomad_using_subcommand job; and not __fish_seen_subcommand_from init run status stop start tag inspect validate allocs history promote revert plan dispatch periodic scale eval deployments restart scaling-events help" -f -a "history" -d 'Display all tracked versions of a job'
complete -c nomad -n "__fish_nomad_using_subcommand job; and not __fish_seen_subcommand_from init run status stop start tag inspect validate allocs history promote revert plan dispatch periodic scale eval deployments restart scaling-events help" -f -a "promote" -d 'Promote a job\'s canaries'
complete -c nomad -n "__fish_nomad_using_subcommand job; and not __fish_seen_subcommand_from init run status stop start tag inspect validate allocs history promote revert plan dispatch periodic scale eval deployments restart scaling-events help" -f -a "revert" -d 'Revert to a prior version of the job'
complete -c nomad -n "__fish_nomad_using_subcommand job; and not __fish_seen_subcommand_from init run status stop start tag inspect validate allocs history promote revert plan dispatch periodic scale eval deployments restart scaling-events help" -f -a "plan" -d 'Invoke a dry-run of the scheduler for a job'
complete -c nomad -n "__fish_nomad_using_subcommand job; and not __fish_seen_subcommand_from init run status stop start tag inspect validate allocs history promote revert plan dispatch periodic scale eval deployments restart scaling-events help" -f -a "dispatch" -d 'Dispatch an instance of a parameterized job'
complete -c nomad -n "__fish_nomad_using_subcommand job; and not __fish_seen_subcommand_from init run status stop start tag inspect validate allocs history promote revert plan dispatch periodic scale eval deployments restart scaling-events help" -f -a "periodic" -d 'Interact with periodic jobs'
complete -c nomad -n "__fish_nomad_using_subcommand job; and not __fish_seen_subcommand_from init run status stop start tag inspect validate allocs history promote revert plan dispatch periodic scale eval deployments restart scaling-events help" -f -a "scale" -d 'Change the count of a job\'s task group'
complete -c nomad -n "__fish_nomad_using_subcommand job; and not __fish_seen_subcommand_from init run status stop start tag inspect validate allocs history promote revert plan dispatch periodic scale eval deployments restart scaling-events help" -f -a "eval" -d 'Force an evaluation of the job'
complete -c nomad -n "__fish_nomad_using_subcommand job; and not __fish_seen_subcommand_from init run status stop start tag inspect validate allocs history promote revert plan dispatch periodic scale eval deployments restart scaling-events help" -f -a "deployments" -d 'List deployments for a job'
complete -c nomad -n "__fish_nomad_using_subcommand job; and not __fish_seen_subcommand_from init run status stop start tag inspect validate allocs history promote revert plan dispatch periodic scale eval deployments restart scaling-events help" -f -a "restart" -d 'Restart or reschedule allocations for a job'
complete -c nomad -n "__fish_nomad_using_subcommand job; and not __fish_seen_subcommand_from init run status stop start tag inspect validate allocs history promote revert plan dispatch periodic scale eval deployments restart scaling-events help" -f -a "scaling-events" -d 'Display the most recent scaling events for a job'
complete -c nomad -n "__fish_nomad_using_subcommand job; and not __fish_seen_subcommand_from init run status stop start tag inspect validate allocs history promote revert plan dispatch periodic scale eval deployments restart scaling-events help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from init" -l short -d 'If the short flag is set, a minimal jobspec without comments is emitted'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from init" -s h -l help -d 'Print help'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from run" -l address -d 'The address of the Nomad server' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from run" -l region -d 'The region of the Nomad servers to forward commands to' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from run" -l namespace -d 'The target namespace for queries and actions bound to a namespace' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from run" -l token -d 'The SecretID of an ACL token to use to authenticate API requests with' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from run" -l check-index -d 'If set, the job is only registered or updated if the passed job modify index matches the server side version. A value of zero registers the job only if it does not exist' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from run" -l eval-priority -d 'Override the priority of the evaluation this registration creates' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from run" -l var -d 'Variable for template, can be used multiple times (key=value)' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from run" -l var-file -d 'Path to an HCL2 file containing user variables, can be used multiple times' -r -F
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from run" -l detach -d 'Return immediately instead of entering monitor mode'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from run" -l verbose -d 'Display full information'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from run" -l output -d 'Output the JSON that would be submitted to the HTTP API without submitting the job'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from run" -l preserve-counts -d 'Keep the current counts of task groups the running job already has'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from run" -l policy-override -d 'Override soft-mandatory Sentinel policies (accepted; there are none here)'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from run" -l json -d 'Parses the job file as JSON. If the outer object has a Job field, such as from "nomad job inspect" or "nomad run -output", the value of the field is used as the job'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from run" -l hcl2-strict -d 'Accepted for compatibility (`-hcl2-strict=false` is common in scripts); the parser is always strict about unknown blocks and attributes'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from run" -s h -l help -d 'Print help'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from status" -l address -d 'The address of the Nomad server' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from status" -l region -d 'The region of the Nomad servers to forward commands to' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from status" -l namespace -d 'The target namespace for queries and actions bound to a namespace' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from status" -l token -d 'The SecretID of an ACL token to use to authenticate API requests with' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from status" -s t -d 'Format and display the output using a Go template' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from status" -l short -d 'Display short output. Used only when a single job is being queried'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from status" -l evals -d 'Display the evaluations associated with the job'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from status" -l all-allocs -d 'Display all allocations matching the job ID, including those from an older instance of the job'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from status" -l verbose -d 'Display full information'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from status" -l json -d 'Output the job status in JSON format'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from status" -s h -l help -d 'Print help'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from stop" -l address -d 'The address of the Nomad server' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from stop" -l region -d 'The region of the Nomad servers to forward commands to' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from stop" -l namespace -d 'The target namespace for queries and actions bound to a namespace' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from stop" -l token -d 'The SecretID of an ACL token to use to authenticate API requests with' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from stop" -l eval-priority -d 'Override the priority of the evaluation that stops the job' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from stop" -l detach -d 'Return immediately instead of entering monitor mode'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from stop" -l purge -d 'Purge is used to stop the job and purge it from the system'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from stop" -l yes -d 'Automatic yes to prompts'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from stop" -l global -d 'Stop a multi-region job in all its regions'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from stop" -l verbose -d 'Display full information'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from stop" -l no-shutdown-delay -d 'Stop the allocations without waiting out their shutdown_delay'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from stop" -s h -l help -d 'Print help'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from start" -l address -d 'The address of the Nomad server' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from start" -l region -d 'The region of the Nomad servers to forward commands to' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from start" -l namespace -d 'The target namespace for queries and actions bound to a namespace' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from start" -l token -d 'The SecretID of an ACL token to use to authenticate API requests with' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from start" -l detach -d 'Return immediately instead of entering monitor mode. After the job start command is submitted, a new evaluation ID is printed to the screen, which can be used to examine the evaluation using the eval-status command'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from start" -l verbose -d 'Display full information'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from start" -s h -l help -d 'Print help'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from tag" -s h -l help -d 'Print help'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from tag" -f -a "apply" -d 'Save a job version to prevent it from being garbage-collected and allow it to be diffed and reverted by name'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from tag" -f -a "unset" -d 'Remove a tag from a job version'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from tag" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from inspect" -l address -d 'The address of the Nomad server' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from inspect" -l region -d 'The region of the Nomad servers to forward commands to' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from inspect" -l namespace -d 'The target namespace for queries and actions bound to a namespace' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from inspect" -l token -d 'The SecretID of an ACL token to use to authenticate API requests with' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from inspect" -s t -d 'Format and display the output using a Go template' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from inspect" -l version -d 'Display the job at this version instead of the latest' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from inspect" -l json -d 'Output the job in its JSON format (the bare job, without the {"Job": ...} wrapper)'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from inspect" -s h -l help -d 'Print help'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from validate" -l address -d 'The address of the Nomad server' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from validate" -l region -d 'The region of the Nomad servers to forward commands to' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from validate" -l namespace -d 'The target namespace for queries and actions bound to a namespace' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from validate" -l token -d 'The SecretID of an ACL token to use to authenticate API requests with' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from validate" -l var -d 'Variable for template, can be used multiple times (key=value)' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from validate" -l var-file -d 'Path to an HCL2 file containing user variables, can be used multiple times' -r -F
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from validate" -l json -d 'Parses the job file as JSON. If the outer object has a Job field, such as from "nomad job inspect" or "nomad run -output", the value of the field is used as the job'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from validate" -l hcl2-strict -d 'Accepted for compatibility (`-hcl2-strict=false` is common in scripts); the parser is always strict about unknown blocks and attributes'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from validate" -s h -l help -d 'Print help'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from allocs" -l address -d 'The address of the Nomad server' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from allocs" -l region -d 'The region of the Nomad servers to forward commands to' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from allocs" -l namespace -d 'The target namespace for queries and actions bound to a namespace' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from allocs" -l token -d 'The SecretID of an ACL token to use to authenticate API requests with' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from allocs" -s t -d 'Format and display the output using a Go template' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from allocs" -l all -d 'Display all allocations matching the job ID, even those from an older instance of the job'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from allocs" -l verbose -d 'Display full information'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from allocs" -l json -d 'Output the allocations in a JSON format'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from allocs" -s h -l help -d 'Print help'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from history" -l address -d 'The address of the Nomad server' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from history" -l region -d 'The region of the Nomad servers to forward commands to' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from history" -l namespace -d 'The target namespace for queries and actions bound to a namespace' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from history" -l token -d 'The SecretID of an ACL token to use to authenticate API requests with' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from history" -l diff-tag -d 'Diff each version against the version carrying this tag name (with -p). Mutually exclusive with -diff-version' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from history" -l diff-version -d 'Diff each version against this version number (with -p). Mutually exclusive with -diff-tag' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from history" -s t -d 'Format and display the output using a Go template' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from history" -l version -d 'Display only the history for the given version' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from history" -s p -d 'Display the difference between each version of the job and the previous one, or the version named by -diff-tag or -diff-version'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from history" -l full -d 'Display the full job definition for each version'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from history" -l json -d 'Output the job versions in their JSON format'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from history" -s h -l help -d 'Print help'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from promote" -l address -d 'The address of the Nomad server' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from promote" -l region -d 'The region of the Nomad servers to forward commands to' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from promote" -l namespace -d 'The target namespace for queries and actions bound to a namespace' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from promote" -l token -d 'The SecretID of an ACL token to use to authenticate API requests with' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from promote" -l group -d 'Task group to promote; may be given multiple times (default: all groups)' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from promote" -l detach -d 'Return immediately instead of entering monitor mode'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from promote" -l verbose -d 'Display full information'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from promote" -s h -l help -d 'Print help'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from revert" -l address -d 'The address of the Nomad server' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from revert" -l region -d 'The region of the Nomad servers to forward commands to' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from revert" -l namespace -d 'The target namespace for queries and actions bound to a namespace' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from revert" -l token -d 'The SecretID of an ACL token to use to authenticate API requests with' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from revert" -l detach -d 'Return immediately instead of entering monitor mode'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from revert" -l verbose -d 'Display full information'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from revert" -s h -l help -d 'Print help'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from plan" -l address -d 'The address of the Nomad server' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from plan" -l region -d 'The region of the Nomad servers to forward commands to' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from plan" -l namespace -d 'The target namespace for queries and actions bound to a namespace' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from plan" -l token -d 'The SecretID of an ACL token to use to authenticate API requests with' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from plan" -l diff -d 'Determines whether the diff between the remote job and planned job is shown. Defaults to true' -r -f -a "true\t''
false\t''"
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from plan" -l vault-namespace -d 'If set, the passed Vault namespace is stored in the job before sending to the server' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from plan" -l var -d 'Variable for template, can be used multiple times (key=value)' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from plan" -l var-file -d 'Path to an HCL2 file containing user variables, can be used multiple times' -r -F
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from plan" -l policy-override -d 'If set, any soft mandatory Sentinel policies will be overridden'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from plan" -l verbose -d 'Increase diff verbosity'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from plan" -l json-output -d 'Output the plan response as JSON instead of the human text'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from plan" -l json -d 'Parses the job file as JSON. If the outer object has a Job field, such as from "nomad job inspect" or "nomad run -output", the value of the field is used as the job'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from plan" -l hcl2-strict -d 'Accepted for compatibility (`-hcl2-strict=false` is common in scripts); the parser is always strict about unknown blocks and attributes'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from plan" -s h -l help -d 'Print help'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from dispatch" -l address -d 'The address of the Nomad server' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from dispatch" -l region -d 'The region of the Nomad servers to forward commands to' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from dispatch" -l namespace -d 'The target namespace for queries and actions bound to a namespace' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from dispatch" -l token -d 'The SecretID of an ACL token to use to authenticate API requests with' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from dispatch" -l meta -d 'Meta key/value pair (key=value) for the dispatched job; may be given multiple times' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from dispatch" -l idempotency-token -d 'A token that makes a retried dispatch return the job the first attempt created' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from dispatch" -l id-prefix-template -d 'A prefix for the dispatched job\'s ID, after "/dispatch-"' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from dispatch" -l priority -d 'The priority of the dispatched job; the parameterized job\'s by default' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from dispatch" -l detach -d 'Return immediately instead of entering monitor mode'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from dispatch" -l verbose -d 'Display full information'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from dispatch" -s h -l help -d 'Print help'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from periodic" -s h -l help -d 'Print help'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from periodic" -f -a "force" -d 'Force the launch of a periodic job'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from periodic" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from scale" -l address -d 'The address of the Nomad server' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from scale" -l region -d 'The region of the Nomad servers to forward commands to' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from scale" -l namespace -d 'The target namespace for queries and actions bound to a namespace' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from scale" -l token -d 'The SecretID of an ACL token to use to authenticate API requests with' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from scale" -l check-index -d 'Scale only if the job\'s modify index matches (0: no check)' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from scale" -l detach -d 'Return immediately instead of entering monitor mode'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from scale" -l verbose -d 'Display full information'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from scale" -s h -l help -d 'Print help'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from eval" -l address -d 'The address of the Nomad server' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from eval" -l region -d 'The region of the Nomad servers to forward commands to' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from eval" -l namespace -d 'The target namespace for queries and actions bound to a namespace' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from eval" -l token -d 'The SecretID of an ACL token to use to authenticate API requests with' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from eval" -l force-reschedule -d 'Force failed allocations to be rescheduled, even past their reschedule policy'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from eval" -l detach -d 'Return immediately instead of entering monitor mode'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from eval" -l verbose -d 'Display full information'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from eval" -s h -l help -d 'Print help'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from deployments" -l address -d 'The address of the Nomad server' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from deployments" -l region -d 'The region of the Nomad servers to forward commands to' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from deployments" -l namespace -d 'The target namespace for queries and actions bound to a namespace' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from deployments" -l token -d 'The SecretID of an ACL token to use to authenticate API requests with' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from deployments" -s t -d 'Format and display the output using a Go template' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from deployments" -l latest -d 'Only show the latest deployment'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from deployments" -l all -d 'Also show deployments of earlier jobs registered with the same ID'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from deployments" -l json -d 'Output the deployments in their JSON format'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from deployments" -l verbose -d 'Display full information'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from deployments" -s h -l help -d 'Print help'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from restart" -l address -d 'The address of the Nomad server' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from restart" -l region -d 'The region of the Nomad servers to forward commands to' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from restart" -l namespace -d 'The target namespace for queries and actions bound to a namespace' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from restart" -l token -d 'The SecretID of an ACL token to use to authenticate API requests with' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from restart" -l batch-size -d 'How many allocations to restart at once: a number or a percentage' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from restart" -l batch-wait -d 'How long to wait between batches, or "ask" to ask each time' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from restart" -l group -d 'Only allocations of this task group (repeatable)' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from restart" -l task -d 'Only this task (repeatable)' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from restart" -l on-error -d 'What to do when a batch fails: "ask" or "fail"' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from restart" -l all-tasks -d 'Restart every task of each allocation, not only the running ones'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from restart" -l no-shutdown-delay -d 'Stop allocations without waiting out their shutdown_delay (with -reschedule)'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from restart" -l reschedule -d 'Stop each allocation and wait for a replacement instead of restarting in place'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from restart" -l yes -d 'Answer yes to every question'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from restart" -l verbose -d 'Display full information'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from restart" -s h -l help -d 'Print help'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from scaling-events" -l address -d 'The address of the Nomad server' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from scaling-events" -l region -d 'The region of the Nomad servers to forward commands to' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from scaling-events" -l namespace -d 'The target namespace for queries and actions bound to a namespace' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from scaling-events" -l token -d 'The SecretID of an ACL token to use to authenticate API requests with' -r
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from scaling-events" -l verbose -d 'Also show each event\'s error flag, message and eval ID'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from scaling-events" -s h -l help -d 'Print help'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from help" -f -a "init" -d 'Create an example job file'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from help" -f -a "run" -d 'Run a new job or update an existing job'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from help" -f -a "status" -d 'Display status information about a job'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from help" -f -a "stop" -d 'Stop a running job'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from help" -f -a "start" -d 'Start a stopped job'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from help" -f -a "tag" -d 'Manage job version tags'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from help" -f -a "inspect" -d 'Inspect a submitted job'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from help" -f -a "validate" -d 'Check a job specification for syntax errors'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from help" -f -a "allocs" -d 'List allocations for a job'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from help" -f -a "history" -d 'Display all tracked versions of a job'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from help" -f -a "promote" -d 'Promote a job\'s canaries'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from help" -f -a "revert" -d 'Revert to a prior version of the job'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from help" -f -a "plan" -d 'Invoke a dry-run of the scheduler for a job'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from help" -f -a "dispatch" -d 'Dispatch an instance of a parameterized job'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from help" -f -a "periodic" -d 'Interact with periodic jobs'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from help" -f -a "scale" -d 'Change the count of a job\'s task group'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from help" -f -a "eval" -d 'Force an evaluation of the job'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from help" -f -a "deployments" -d 'List deployments for a job'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from help" -f -a "restart" -d 'Restart or reschedule allocations for a job'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from help" -f -a "scaling-events" -d 'Display the most recent scaling events for a job'
complete -c nomad -n "__fish_nomad_using_subcommand job; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c nomad -n "__fish_nomad_using_subcommand node; and not __fish_seen_subcommand_from status drain eligibility meta help" -s h -l help -d 'Print help'
complete -c nomad -n "__fish_nomad_using_subcommand node; and not __fish_seen_subcommand_from status drain eligibility meta help" -f -a "status" -d 'Display status information about nodes'
complete -c nomad -n "__fish_nomad_using_subcommand node; and not __fish_seen_subcommand_from status drain eligibility meta help" -f -a "drain" -d 'Toggle drain mode on a given node'
complete -c nomad -n "__fish_nomad_using_subcommand node; and not __fish_seen_subcommand_from status drain eligibility meta help" -f -a "eligibility" -d 'Toggle scheduling eligibility for a given node'
complete -c nomad -n "__fish_nomad_using_subcommand node; and not __fish_seen_subcommand_from status drain eligibility meta help" -f -a "meta" -d 'Interact with node metadata'
complete -c nomad -n "__fish_nomad_using_subcommand node; and not __fish_seen_subcommand_from status drain eligibility meta help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c nomad -n "__fish_nomad_using_subcommand node; and __fish_seen_subcommand_from status" -l address -d 'The address of the Nomad server' -r
complete -c nomad -n "__fish_nomad_using_subcommand node; and __fish_seen_subcommand_from status" -l region -d 'The region of the Nomad servers to forward commands to' -r
complete -c nomad -n "__fish_nomad_using_subcommand node; and __fish_seen_subcommand_from status" -l namespace -d 'The target namespace for queries and actions bound to a namespace' -r
complete -c nomad -n "__fish_nomad_using_subcommand node; and __fish_seen_subcommand_from status" -l token -d 'The SecretID of an ACL token to use to authenticate API requests with' -r
complete -c nomad -n "__fish_nomad_using_subcommand node; and __fish_seen_subcommand_from status" -s t -d 'Format and display the output using a Go template' -r
complete -c nomad -n "__fish_nomad_using_subcommand node; and __fish_seen_subcommand_from status" -l per-page -d 'How many nodes to show per page' -r
complete -c nomad -n "__fish_nomad_using_subcommand node; and __fish_seen_subcommand_from status" -l page-token -d 'Where to start pagination' -r
complete -c nomad -n "__fish_nomad_using_subcommand node; and __fish_seen_subcommand_from status" -l filter -d 'Only show results matching this filter expression (go-bexpr, e.g. `Status == "ready"`)' -r
complete -c nomad -n "__fish_nomad_using_subcommand node; and __fish_seen_subcommand_from status" -l self -d 'Query the status of the local node'
complete -c nomad -n "__fish_nomad_using_subcommand node; and __fish_seen_subcommand_from status" -l short -d 'Display short output. Used only when a single node is being queried'
complete -c nomad -n "__fish_nomad_using_subcommand node; and __fish_seen_subcommand_from status" -l verbose -d 'Display full information'
complete -c nomad -n "__fish_nomad_using_subcommand node; and __fish_seen_subcommand_from status" -l allocs -d 'Display a count of running allocations for each node'
complete -c nomad -n "__fish_nomad_using_subcommand node; and __fish_seen_subcommand_from status" -l quiet -d 'Only print the node IDs'
complete -c nomad -n "__fish_nomad_using_subcommand node; and __fish_seen_subcommand_from status" -l json -d 'Output the node in its JSON format'
complete -c nomad -n "__fish_nomad_using_subcommand node; and __fish_seen_subcommand_from status" -l os -d 'Display each node\'s operating system name'
complete -c nomad -n "__fish_nomad_using_subcommand node; and __fish_seen_subcommand_from status" -l stats -d 'Display detailed resource usage statistics of the node'
complete -c nomad -n "__fish_nomad_using_subcommand node; and __fish_seen_subcommand_from status" -s h -l help -d 'Print help'
complete -c nomad -n "__fish_nomad_using_subcommand node; and __fish_seen_subcommand_from drain" -l address -d 'The address of the Nomad server' -r
complete -c nomad -n "__fish_nomad_using_subcommand node; and __fish_seen_subcommand_from drain" -l region -d 'The region of the Nomad servers to forward commands to' -r
complete -c nomad -n "__fish_nomad_using_subcommand node; and __fish_seen_subcommand_from drain" -l namespace -d 'The target namespace for queries and actions bound to a namespace' -r
complete -c nomad -n "__fish_nomad_using_subcommand node; and __fish_seen_subcommand_from drain" -l token -d 'The SecretID of an ACL token to use to authenticate API requests with' -r
complete -c nomad -n "__fish_nomad_using_subcommand node; and __fish_seen_subcommand_from drain" -l deadline -d 'Set the deadline by which all allocations must be moved off the node (default 1h)' -r
complete -c nomad -n "__fish_nomad_using_subcommand node; and __fish_seen_subcommand_from drain" -s m -d 'Message for the drain update operation (stored in the node\'s LastDrain.Meta)' -r
complete -c nomad -n "__fish_nomad_using_subcommand node; and __fish_seen_subcommand_from drain" -l meta -d 'Custom metadata for the drain operation, as key=value (repeatable)' -r
complete -c nomad -n "__fish_nomad_using_subcommand node; and __fish_seen_subcommand_from drain" -l enable -d 'Enable draining on the specified node'
complete -c nomad -n "__fish_nomad_using_subcommand node; and __fish_seen_subcommand_from drain" -l disable -d 'Disable draining on the specified node'
complete -c nomad -n "__fish_nomad_using_subcommand node; and __fish_seen_subcommand_from drain" -l no-deadline -d 'No deadline: allocations are moved only as their migrate blocks allow'
complete -c nomad -n "__fish_nomad_using_subcommand node; and __fish_seen_subcommand_from drain" -l force -d 'Force remove allocations off the node immediately'
complete -c nomad -n "__fish_nomad_using_subcommand node; and __fish_seen_subcommand_from drain" -l detach -d 'Return immediately instead of monitoring the drain'
complete -c nomad -n "__fish_nomad_using_subcommand node; and __fish_seen_subcommand_from drain" -l monitor -d 'Enter monitor mode directly without modifying the drain status'
complete -c nomad -n "__fish_nomad_using_subcommand node; and __fish_seen_subcommand_from drain" -l ignore-system -d 'Do not drain system job allocations from the node'
complete -c nomad -n "__fish_nomad_using_subcommand node; and __fish_seen_subcommand_from drain" -l keep-ineligible -d 'Do not update the node\'s scheduling eligibility when the drain is disabled'
complete -c nomad -n "__fish_nomad_using_subcommand node; and __fish_seen_subcommand_from drain" -l self -d 'Drain the local node'
complete -c nomad -n "__fish_nomad_using_subcommand node; and __fish_seen_subcommand_from drain" -l yes -d 'Automatic yes to prompts'
complete -c nomad -n "__fish_nomad_using_subcommand node; and __fish_seen_subcommand_from drain" -s h -l help -d 'Print help'
complete -c nomad -n "__fish_nomad_using_subcommand node; and __fish_seen_subcommand_from eligibility" -l address -d 'The address of the Nomad server' -r
complete -c nomad -n "__fish_nomad_using_subcommand node; and __fish_seen_subcommand_from eligibility" -l region -d 'The region of the Nomad servers to forward commands to' -r
complete -c nomad -n "__fish_nomad_using_subcommand node; and __fish_seen_subcommand_from eligibility" -l namespace -d 'The target namespace for queries and actions bound to a namespace' -r
complete -c nomad -n "__fish_nomad_using_subcommand node; and __fish_seen_subcommand_from eligibility" -l token -d 'The SecretID of an ACL token to use to authenticate API requests with' -r
complete -c nomad -n "__fish_nomad_using_subcommand node; and __fish_seen_subcommand_from eligibility" -l enable -d 'Enable scheduling eligibility'
complete -c nomad -n "__fish_nomad_using_subcommand node; and __fish_seen_subcommand_from eligibility" -l disable -d 'Disable scheduling eligibility'
complete -c nomad -n "__fish_nomad_using_subcommand node; and __fish_seen_subcommand_from eligibility" -l self -d 'Set the eligibility of the local node'
complete -c nomad -n "__fish_nomad_using_subcommand node; and __fish_seen_subcommand_from eligibility" -s h -l help -d 'Print help'
complete -c nomad -n "__fish_nomad_using_subcommand node; and __fish_seen_subcommand_from meta" -s h -l help -d 'Print help'
complete -c nomad -n "__fish_nomad_using_subcommand node; and __fish_seen_subcommand_from meta" -f -a "apply" -d 'Modify node metadata'
complete -c nomad -n "__fish_nomad_using_subcommand node; and __fish_seen_subcommand_from meta" -f -a "read" -d 'Read node metadata'
complete -c nomad -n "__fish_nomad_using_subcommand node; and __fish_seen_subcommand_from meta" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c nomad -n "__fish_nomad_using_subcommand node; and __fish_seen_subcommand_from help" -f -a "status" -d 'Display status information about nodes'
complete -c nomad -n "__fish_nomad_using_subcommand node; and __fish_seen_subcommand_from help" -f -a "drain" -d 'Toggle drain mode on a given node'
complete -c nomad -n "__fish_nomad_using_subcommand node; and __fish_seen_subcommand_from help" -f -a "eligibility" -d 'Toggle scheduling eligibility for a given node'
complete -c nomad -n "__fish_nomad_using_subcommand node; and __fish_seen_subcommand_from help" -f -a "meta" -d 'Interact with node metadata'
complete -c nomad -n "__fish_nomad_using_subcommand node; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c nomad -n "__fish_nomad_using_subcommand server; and not __fish_seen_subcommand_from members join force-leave help" -s h -l help -d 'Print help'
complete -c nomad -n "__fish_nomad_using_subcommand server; and not __fish_seen_subcommand_from members join force-leave help" -f -a "members" -d 'Display a list of known servers and their status'
complete -c nomad -n "__fish_nomad_using_subcommand server; and not __fish_seen_subcommand_from members join force-leave help" -f -a "join" -d 'Join server nodes together'
complete -c nomad -n "__fish_nomad_using_subcommand server; and not __fish_seen_subcommand_from members join force-leave help" -f -a "force-leave" -d 'Force a server into the \'left\' state'
complete -c nomad -n "__fish_nomad_using_subcommand server; and not __fish_seen_subcommand_from members join force-leave help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c nomad -n "__fish_nomad_using_subcommand server; and __fish_seen_subcommand_from members" -l address -d 'The address of the Nomad server' -r
complete -c nomad -n "__fish_nomad_using_subcommand server; and __fish_seen_subcommand_from members" -l region -d 'The region of the Nomad servers to forward commands to' -r
complete -c nomad -n "__fish_nomad_using_subcommand server; and __fish_seen_subcommand_from members" -l namespace -d 'The target namespace for queries and actions bound to a namespace' -r
complete -c nomad -n "__fish_nomad_using_subcommand server; and __fish_seen_subcommand_from members" -l token -d 'The SecretID of an ACL token to use to authenticate API requests with' -r
complete -c nomad -n "__fish_nomad_using_subcommand server; and __fish_seen_subcommand_from members" -s t -d 'Format and display the output using a Go template' -r
complete -c nomad -n "__fish_nomad_using_subcommand server; and __fish_seen_subcommand_from members" -l detailed -d 'Show detailed information about each member (same as -verbose)'
complete -c nomad -n "__fish_nomad_using_subcommand server; and __fish_seen_subcommand_from members" -l verbose -d 'Show detailed information about each member'
complete -c nomad -n "__fish_nomad_using_subcommand server; and __fish_seen_subcommand_from members" -l json -d 'Output the latest information about each member in a JSON format'
complete -c nomad -n "__fish_nomad_using_subcommand server; and __fish_seen_subcommand_from members" -s h -l help -d 'Print help'
complete -c nomad -n "__fish_nomad_using_subcommand server; and __fish_seen_subcommand_from join" -l address -d 'The address of the Nomad server' -r
complete -c nomad -n "__fish_nomad_using_subcommand server; and __fish_seen_subcommand_from join" -l region -d 'The region of the Nomad servers to forward commands to' -r
complete -c nomad -n "__fish_nomad_using_subcommand server; and __fish_seen_subcommand_from join" -l namespace -d 'The target namespace for queries and actions bound to a namespace' -r
complete -c nomad -n "__fish_nomad_using_subcommand server; and __fish_seen_subcommand_from join" -l token -d 'The SecretID of an ACL token to use to authenticate API requests with' -r
complete -c nomad -n "__fish_nomad_using_subcommand server; and __fish_seen_subcommand_from join" -s h -l help -d 'Print help'
complete -c nomad -n "__fish_nomad_using_subcommand server; and __fish_seen_subcommand_from force-leave" -l address -d 'The address of the Nomad server' -r
complete -c nomad -n "__fish_nomad_using_subcommand server; and __fish_seen_subcommand_from force-leave" -l region -d 'The region of the Nomad servers to forward commands to' -r
complete -c nomad -n "__fish_nomad_using_subcommand server; and __fish_seen_subcommand_from force-leave" -l namespace -d 'The target namespace for queries and actions bound to a namespace' -r
complete -c nomad -n "__fish_nomad_using_subcommand server; and __fish_seen_subcommand_from force-leave" -l token -d 'The SecretID of an ACL token to use to authenticate API requests with' -r
complete -c nomad -n "__fish_nomad_using_subcommand server; and __fish_seen_subcommand_from force-leave" -l prune -d 'Removes failed or left server from the member list immediately. If member is actually still alive, it will eventually rejoin the cluster again'
complete -c nomad -n "__fish_nomad_using_subcommand server; and __fish_seen_subcommand_from force-leave" -s h -l help -d 'Print help'
complete -c nomad -n "__fish_nomad_using_subcommand server; and __fish_seen_subcommand_from help" -f -a "members" -d 'Display a list of known servers and their status'
complete -c nomad -n "__fish_nomad_using_subcommand server; and __fish_seen_subcommand_from help" -f -a "join" -d 'Join server nodes together'
complete -c nomad -n "__fish_nomad_using_subcommand server; and __fish_seen_subcommand_from help" -f -a "force-leave" -d 'Force a server into the \'left\' state'
complete -c nomad -n "__fish_nomad_using_subcommand server; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c nomad -n "__fish_nomad_using_subcommand service; and not __fish_seen_subcommand_from list info delete help" -s h -l help -d 'Print help'
complete -c nomad -n "__fish_nomad_using_subcommand service; and not __fish_seen_subcommand_from list info delete help" -f -a "list" -d 'Display all registered Nomad services'
complete -c nomad -n "__fish_nomad_using_subcommand service; and not __fish_seen_subcommand_from list info delete help" -f -a "info" -d 'Display an individual Nomad service registration'
complete -c nomad -n "__fish_nomad_using_subcommand service; and not __fish_seen_subcommand_from list info delete help" -f -a "delete" -d 'Deregister a registered Nomad service'
complete -c nomad -n "__fish_nomad_using_subcommand service; and not __fish_seen_subcommand_from list info delete help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c nomad -n "__fish_nomad_using_subcommand service; and __fish_seen_subcommand_from list" -l address -d 'The address of the Nomad server' -r
complete -c nomad -n "__fish_nomad_using_subcommand service; and __fish_seen_subcommand_from list" -l region -d 'The region of the Nomad servers to forward commands to' -r
complete -c nomad -n "__fish_nomad_using_subcommand service; and __fish_seen_subcommand_from list" -l namespace -d 'The target namespace for queries and actions bound to a namespace' -r
complete -c nomad -n "__fish_nomad_using_subcommand service; and __fish_seen_subcommand_from list" -l token -d 'The SecretID of an ACL token to use to authenticate API requests with' -r
complete -c nomad -n "__fish_nomad_using_subcommand service; and __fish_seen_subcommand_from list" -s t -d 'Format and display the output using a Go template' -r
complete -c nomad -n "__fish_nomad_using_subcommand service; and __fish_seen_subcommand_from list" -l json -d 'Output the service registrations in their JSON format'
complete -c nomad -n "__fish_nomad_using_subcommand service; and __fish_seen_subcommand_from list" -s h -l help -d 'Print help'
complete -c nomad -n "__fish_nomad_using_subcommand service; and __fish_seen_subcommand_from info" -l address -d 'The address of the Nomad server' -r
complete -c nomad -n "__fish_nomad_using_subcommand service; and __fish_seen_subcommand_from info" -l region -d 'The region of the Nomad servers to forward commands to' -r
complete -c nomad -n "__fish_nomad_using_subcommand service; and __fish_seen_subcommand_from info" -l namespace -d 'The target namespace for queries and actions bound to a namespace' -r
complete -c nomad -n "__fish_nomad_using_subcommand service; and __fish_seen_subcommand_from info" -l token -d 'The SecretID of an ACL token to use to authenticate API requests with' -r
complete -c nomad -n "__fish_nomad_using_subcommand service; and __fish_seen_subcommand_from info" -s t -d 'Format and display the output using a Go template' -r
complete -c nomad -n "__fish_nomad_using_subcommand service; and __fish_seen_subcommand_from info" -l filter -d 'Only show results matching this filter expression (go-bexpr, e.g. `Status == "ready"`)' -r
complete -c nomad -n "__fish_nomad_using_subcommand service; and __fish_seen_subcommand_from info" -l json -d 'Output the service registrations in their JSON format'
complete -c nomad -n "__fish_nomad_using_subcommand service; and __fish_seen_subcommand_from info" -l verbose -d 'Display full information of each registration'
complete -c nomad -n "__fish_nomad_using_subcommand service; and __fish_seen_subcommand_from info" -s h -l help -d 'Print help'
complete -c nomad -n "__fish_nomad_using_subcommand service; and __fish_seen_subcommand_from delete" -l address -d 'The address of the Nomad server' -r
complete -c nomad -n "__fish_nomad_using_subcommand service; and __fish_seen_subcommand_from delete" -l region -d 'The region of the Nomad servers to forward commands to' -r
complete -c nomad -n "__fish_nomad_using_subcommand service; and __fish_seen_subcommand_from delete" -l namespace -d 'The target namespace for queries and actions bound to a namespace' -r
complete -c nomad -n "__fish_nomad_using_subcommand service; and __fish_seen_subcommand_from delete" -l token -d 'The SecretID of an ACL token to use to authenticate API requests with' -r
complete -c nomad -n "__fish_nomad_using_subcommand service; and __fish_seen_subcommand_from delete" -s h -l help -d 'Print help'
complete -c nomad -n "__fish_nomad_using_subcommand service; and __fish_seen_subcommand_from help" -f -a "list" -d 'Display all registered Nomad services'
complete -c nomad -n "__fish_nomad_using_subcommand service; and __fish_seen_subcommand_from help" -f -a "info" -d 'Display an individual Nomad service registration'
complete -c nomad -n "__fish_nomad_using_subcommand service; and __fish_seen_subcommand_from help" -f -a "delete" -d 'Deregister a registered Nomad service'
complete -c nomad -n "__fish_nomad_using_subcommand service; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c nomad -n "__fish_nomad_using_subcommand operator; and not __fish_seen_subcommand_from api scheduler help" -s h -l help -d 'Print help'
complete -c nomad -n "__fish_nomad_using_subcommand operator; and not __fish_seen_subcommand_from api scheduler help" -f -a "api" -d 'Query Nomad\'s HTTP API like curl'
complete -c nomad -n "__fish_nomad_using_subcommand operator; and not __fish_seen_subcommand_from api scheduler help" -f -a "scheduler" -d 'Provides access to the scheduler configuration'
complete -c nomad -n "__fish_nomad_using_subcommand operator; and not __fish_seen_subcommand_from api scheduler help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c nomad -n "__fish_nomad_using_subcommand operator; and __fish_seen_subcommand_from api" -l address -d 'The address of the Nomad server' -r
complete -c nomad -n "__fish_nomad_using_subcommand operator; and __fish_seen_subcommand_from api" -l region -d 'The region of the Nomad servers to forward commands to' -r
complete -c nomad -n "__fish_nomad_using_subcommand operator; and __fish_seen_subcommand_from api" -l namespace -d 'The target namespace for queries and actions bound to a namespace' -r
complete -c nomad -n "__fish_nomad_using_subcommand operator; and __fish_seen_subcommand_from api" -l token -d 'The SecretID of an ACL token to use to authenticate API requests with' -r
complete -c nomad -n "__fish_nomad_using_subcommand operator; and __fish_seen_subcommand_from api" -s X -d 'The HTTP method (default GET, or POST when a body comes on stdin)' -r
complete -c nomad -n "__fish_nomad_using_subcommand operator; and __fish_seen_subcommand_from api" -s H -d 'A request header, `Key: Value` (repeatable)' -r
complete -c nomad -n "__fish_nomad_using_subcommand operator; and __fish_seen_subcommand_from api" -l filter -d 'A filter expression, added as `?filter=`' -r
complete -c nomad -n "__fish_nomad_using_subcommand operator; and __fish_seen_subcommand_from api" -l dryrun -d 'Print the equivalent curl command instead of sending the request'
complete -c nomad -n "__fish_nomad_using_subcommand operator; and __fish_seen_subcommand_from api" -l verbose -d 'Print the request and response headers on stderr'
complete -c nomad -n "__fish_nomad_using_subcommand operator; and __fish_seen_subcommand_from api" -s h -l help -d 'Print help'
complete -c nomad -n "__fish_nomad_using_subcommand operator; and __fish_seen_subcommand_from scheduler" -s h -l help -d 'Print help'
complete -c nomad -n "__fish_nomad_using_subcommand operator; and __fish_seen_subcommand_from scheduler" -f -a "get-config" -d 'Display the current scheduler configuration'
complete -c nomad -n "__fish_nomad_using_subcommand operator; and __fish_seen_subcommand_from scheduler" -f -a "set-config" -d 'Modify the current scheduler configuration'
complete -c nomad -n "__fish_nomad_using_subcommand operator; and __fish_seen_subcommand_from scheduler" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c nomad -n "__fish_nomad_using_subcommand operator; and __fish_seen_subcommand_from help" -f -a "api" -d 'Query Nomad\'s HTTP API like curl'
complete -c nomad -n "__fish_nomad_using_subcommand operator; and __fish_seen_subcommand_from help" -f -a "scheduler" -d 'Provides access to the scheduler configuration'
complete -c nomad -n "__fish_nomad_using_subcommand operator; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c nomad -n "__fish_nomad_using_subcommand status" -l address -d 'The address of the Nomad server' -r
complete -c nomad -n "__fish_nomad_using_subcommand status" -l region -d 'The region of the Nomad servers to forward commands to' -r
complete -c nomad -n "__fish_nomad_using_subcommand status" -l namespace -d 'The target namespace for queries and actions bound to a namespace' -r
complete -c nomad -n "__fish_nomad_using_subcommand status" -l token -d 'The SecretID of an ACL token to use to authenticate API requests with' -r
complete -c nomad -n "__fish_nomad_using_subcommand status" -l verbose -d 'Display full information'
complete -c nomad -n "__fish_nomad_using_subcommand status" -s h -l help -d 'Print help'
complete -c nomad -n "__fish_nomad_using_subcommand system; and not __fish_seen_subcommand_from gc reconcile help" -s h -l help -d 'Print help'
complete -c nomad -n "__fish_nomad_using_subcommand system; and not __fish_seen_subcommand_from gc reconcile help" -f -a "gc" -d 'Run the system garbage collection process'
complete -c nomad -n "__fish_nomad_using_subcommand system; and not __fish_seen_subcommand_from gc reconcile help" -f -a "reconcile" -d 'Perform system reconciliation tasks'
complete -c nomad -n "__fish_nomad_using_subcommand system; and not __fish_seen_subcommand_from gc reconcile help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c nomad -n "__fish_nomad_using_subcommand system; and __fish_seen_subcommand_from gc" -l address -d 'The address of the Nomad server' -r
complete -c nomad -n "__fish_nomad_using_subcommand system; and __fish_seen_subcommand_from gc" -l region -d 'The region of the Nomad servers to forward commands to' -r
complete -c nomad -n "__fish_nomad_using_subcommand system; and __fish_seen_subcommand_from gc" -l namespace -d 'The target namespace for queries and actions bound to a namespace' -r
complete -c nomad -n "__fish_nomad_using_subcommand system; and __fish_seen_subcommand_from gc" -l token -d 'The SecretID of an ACL token to use to authenticate API requests with' -r
complete -c nomad -n "__fish_nomad_using_subcommand system; and __fish_seen_subcommand_from gc" -s h -l help -d 'Print help'
complete -c nomad -n "__fish_nomad_using_subcommand system; and __fish_seen_subcommand_from reconcile" -s h -l help -d 'Print help'
complete -c nomad -n "__fish_nomad_using_subcommand system; and __fish_seen_subcommand_from reconcile" -f -a "summaries" -d 'Reconciles the summaries of all registered jobs'
complete -c nomad -n "__fish_nomad_using_subcommand system; and __fish_seen_subcommand_from reconcile" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c nomad -n "__fish_nomad_using_subcommand system; and __fish_seen_subcommand_from help" -f -a "gc" -d 'Run the system garbage collection process'
complete -c nomad -n "__fish_nomad_using_subcommand system; and __fish_seen_subcommand_from help" -f -a "reconcile" -d 'Perform system reconciliation tasks'
complete -c nomad -n "__fish_nomad_using_subcommand system; and __fish_seen_subcommand_from help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c nomad -n "__fish_nomad_using_subcommand version" -s h -l help -d 'Print help'
complete -c nomad -n "__fish_nomad_using_subcommand run" -l address -d 'The address of the Nomad server' -r
complete -c nomad -n "__fish_nomad_using_subcommand run" -l region -d 'The region of the Nomad servers to forward commands to' -r
complete -c nomad -n "__fish_nomad_using_subcommand run" -l namespace -d 'The target namespace for queries and actions bound to a namespace' -r
complete -c nomad -n "__fish_nomad_using_subcommand run" -l token -d 'The SecretID of an ACL token to use to authenticate API requests with' -r
complete -c nomad -n "__fish_nomad_using_subcommand run" -l check-index -d 'If set, the job is only registered or updated if the passed job modify index matches the server side version. A value of zero registers the job only if it does not exist' -r
complete -c nomad -n "__fish_nomad_using_subcommand run" -l eval-priority -d 'Override the priority of the evaluation this registration creates' -r
complete -c nomad -n "__fish_nomad_using_subcommand run" -l var -d 'Variable for template, can be used multiple times (key=value)' -r
complete -c nomad -n "__fish_nomad_using_subcommand run" -l var-file -d 'Path to an HCL2 file containing user variables, can be used multiple times' -r -F
complete -c nomad -n "__fish_nomad_using_subcommand run" -l detach -d 'Return immediately instead of entering monitor mode'
complete -c nomad -n "__fish_nomad_using_subcommand run" -l verbose -d 'Display full information'
complete -c nomad -n "__fish_nomad_using_subcommand run" -l output -d 'Output the JSON that would be submitted to the HTTP API without submitting the job'
complete -c nomad -n "__fish_nomad_using_subcommand run" -l preserve-counts -d 'Keep the current counts of task groups the running job already has'
complete -c nomad -n "__fish_nomad_using_subcommand run" -l policy-override -d 'Override soft-mandatory Sentinel policies (accepted; there are none here)'
complete -c nomad -n "__fish_nomad_using_subcommand run" -l json -d 'Parses the job file as JSON. If the outer object has a Job field, such as from "nomad job inspect" or "nomad run -output", the value of the field is used as the job'
complete -c nomad -n "__fish_nomad_using_subcommand run" -l hcl2-strict -d 'Accepted for compatibility (`-hcl2-strict=false` is common in scripts); the parser is always strict about unknown blocks and attributes'
complete -c nomad -n "__fish_nomad_using_subcommand run" -s h -l help -d 'Print help'
complete -c nomad -n "__fish_nomad_using_subcommand stop" -l address -d 'The address of the Nomad server' -r
complete -c nomad -n "__fish_nomad_using_subcommand stop" -l region -d 'The region of the Nomad servers to forward commands to' -r
complete -c nomad -n "__fish_nomad_using_subcommand stop" -l namespace -d 'The target namespace for queries and actions bound to a namespace' -r
complete -c nomad -n "__fish_nomad_using_subcommand stop" -l token -d 'The SecretID of an ACL token to use to authenticate API requests with' -r
complete -c nomad -n "__fish_nomad_using_subcommand stop" -l eval-priority -d 'Override the priority of the evaluation that stops the job' -r
complete -c nomad -n "__fish_nomad_using_subcommand stop" -l detach -d 'Return immediately instead of entering monitor mode'
complete -c nomad -n "__fish_nomad_using_subcommand stop" -l purge -d 'Purge is used to stop the job and purge it from the system'
complete -c nomad -n "__fish_nomad_using_subcommand stop" -l yes -d 'Automatic yes to prompts'
complete -c nomad -n "__fish_nomad_using_subcommand stop" -l global -d 'Stop a multi-region job in all its regions'
complete -c nomad -n "__fish_nomad_using_subcommand stop" -l verbose -d 'Display full information'
complete -c nomad -n "__fish_nomad_using_subcommand stop" -l no-shutdown-delay -d 'Stop the allocations without waiting out their shutdown_delay'
complete -c nomad -n "__fish_nomad_using_subcommand stop" -s h -l help -d 'Print help'
complete -c nomad -n "__fish_nomad_using_subcommand start" -l address -d 'The address of the Nomad server' -r
complete -c nomad -n "__fish_nomad_using_subcommand start" -l region -d 'The region of the Nomad servers to forward commands to' -r
complete -c nomad -n "__fish_nomad_using_subcommand start" -l namespace -d 'The target namespace for queries and actions bound to a namespace' -r
complete -c nomad -n "__fish_nomad_using_subcommand start" -l token -d 'The SecretID of an ACL token to use to authenticate API requests with' -r
complete -c nomad -n "__fish_nomad_using_subcommand start" -l detach -d 'Return immediately instead of entering monitor mode. After the job start command is submitted, a new evaluation ID is printed to the screen, which can be used to examine the evaluation using the eval-status command'
complete -c nomad -n "__fish_nomad_using_subcommand start" -l verbose -d 'Display full information'
complete -c nomad -n "__fish_nomad_using_subcommand start" -s h -l help -d 'Print help'
complete -c nomad -n "__fish_nomad_using_subcommand init" -l short -d 'If the short flag is set, a minimal jobspec without comments is emitted'
complete -c nomad -n "__fish_nomad_using_subcommand init" -s h -l help -d 'Print help'
complete -c nomad -n "__fish_nomad_using_subcommand inspect" -l address -d 'The address of the Nomad server' -r
complete -c nomad -n "__fish_nomad_using_subcommand inspect" -l region -d 'The region of the Nomad servers to forward commands to' -r
complete -c nomad -n "__fish_nomad_using_subcommand inspect" -l namespace -d 'The target namespace for queries and actions bound to a namespace' -r
complete -c nomad -n "__fish_nomad_using_subcommand inspect" -l token -d 'The SecretID of an ACL token to use to authenticate API requests with' -r
complete -c nomad -n "__fish_nomad_using_subcommand inspect" -s t -d 'Format and display the output using a Go template' -r
complete -c nomad -n "__fish_nomad_using_subcommand inspect" -l version -d 'Display the job at this version instead of the latest' -r
complete -c nomad -n "__fish_nomad_using_subcommand inspect" -l json -d 'Output the job in its JSON format (the bare job, without the {"Job": ...} wrapper)'
complete -c nomad -n "__fish_nomad_using_subcommand inspect" -s h -l help -d 'Print help'
complete -c nomad -n "__fish_nomad_using_subcommand validate" -l address -d 'The address of the Nomad server' -r
complete -c nomad -n "__fish_nomad_using_subcommand validate" -l region -d 'The region of the Nomad servers to forward commands to' -r
complete -c nomad -n "__fish_nomad_using_subcommand validate" -l namespace -d 'The target namespace for queries and actions bound to a namespace' -r
complete -c nomad -n "__fish_nomad_using_subcommand validate" -l token -d 'The SecretID of an ACL token to use to authenticate API requests with' -r
complete -c nomad -n "__fish_nomad_using_subcommand validate" -l var -d 'Variable for template, can be used multiple times (key=value)' -r
complete -c nomad -n "__fish_nomad_using_subcommand validate" -l var-file -d 'Path to an HCL2 file containing user variables, can be used multiple times' -r -F
complete -c nomad -n "__fish_nomad_using_subcommand validate" -l json -d 'Parses the job file as JSON. If the outer object has a Job field, such as from "nomad job inspect" or "nomad run -output", the value of the field is used as the job'
complete -c nomad -n "__fish_nomad_using_subcommand validate" -l hcl2-strict -d 'Accepted for compatibility (`-hcl2-strict=false` is common in scripts); the parser is always strict about unknown blocks and attributes'
complete -c nomad -n "__fish_nomad_using_subcommand validate" -s h -l help -d 'Print help'
complete -c nomad -n "__fish_nomad_using_subcommand logs" -l address -d 'The address of the Nomad server' -r
complete -c nomad -n "__fish_nomad_using_subcommand logs" -l region -d 'The region of the Nomad servers to forward commands to' -r
complete -c nomad -n "__fish_nomad_using_subcommand logs" -l namespace -d 'The target namespace for queries and actions bound to a namespace' -r
complete -c nomad -n "__fish_nomad_using_subcommand logs" -l token -d 'The SecretID of an ACL token to use to authenticate API requests with' -r
complete -c nomad -n "__fish_nomad_using_subcommand logs" -s n -d 'Sets the tail location in best-efforted number of lines relative to the end' -r
complete -c nomad -n "__fish_nomad_using_subcommand logs" -s c -d 'Sets the tail location in number of bytes relative to the end' -r
complete -c nomad -n "__fish_nomad_using_subcommand logs" -l task -d 'Sets the task to view the logs of' -r
complete -c nomad -n "__fish_nomad_using_subcommand logs" -l group -d 'With -job, pick the allocation from this task group' -r
complete -c nomad -n "__fish_nomad_using_subcommand logs" -s f -d 'Causes the output to not stop, and instead continuously output new lines'
complete -c nomad -n "__fish_nomad_using_subcommand logs" -l stderr -d 'Display stderr logs'
complete -c nomad -n "__fish_nomad_using_subcommand logs" -l stdout -d 'Display stdout logs (the default)'
complete -c nomad -n "__fish_nomad_using_subcommand logs" -l tail -d 'Show the logs contents with offsets relative to the end of the logs'
complete -c nomad -n "__fish_nomad_using_subcommand logs" -l verbose -d 'Show full information'
complete -c nomad -n "__fish_nomad_using_subcommand logs" -l job -d 'Use a random allocation from the specified job ID or prefix'
complete -c nomad -n "__fish_nomad_using_subcommand logs" -s h -l help -d 'Print help'
complete -c nomad -n "__fish_nomad_using_subcommand exec" -l address -d 'The address of the Nomad server' -r
complete -c nomad -n "__fish_nomad_using_subcommand exec" -l region -d 'The region of the Nomad servers to forward commands to' -r
complete -c nomad -n "__fish_nomad_using_subcommand exec" -l namespace -d 'The target namespace for queries and actions bound to a namespace' -r
complete -c nomad -n "__fish_nomad_using_subcommand exec" -l token -d 'The SecretID of an ACL token to use to authenticate API requests with' -r
complete -c nomad -n "__fish_nomad_using_subcommand exec" -l group -d 'With -job, only allocations of this task group' -r
complete -c nomad -n "__fish_nomad_using_subcommand exec" -s i -d 'Pass stdin to the container (default true)' -r -f -a "true\t''
false\t''"
complete -c nomad -n "__fish_nomad_using_subcommand exec" -s t -d 'Allocate a pseudo-tty (default: whether stdin is a terminal)' -r -f -a "true\t''
false\t''"
complete -c nomad -n "__fish_nomad_using_subcommand exec" -s e -d 'Escape character for closing the session ("none" to disable)' -r
complete -c nomad -n "__fish_nomad_using_subcommand exec" -l task -d 'The task to exec into (optional when the group has one task)' -r
complete -c nomad -n "__fish_nomad_using_subcommand exec" -l job -d 'Use a random allocation from the specified job ID or prefix'
complete -c nomad -n "__fish_nomad_using_subcommand exec" -l verbose
complete -c nomad -n "__fish_nomad_using_subcommand exec" -s h -l help -d 'Print help'
complete -c nomad -n "__fish_nomad_using_subcommand fs" -l address -d 'The address of the Nomad server' -r
complete -c nomad -n "__fish_nomad_using_subcommand fs" -l region -d 'The region of the Nomad servers to forward commands to' -r
complete -c nomad -n "__fish_nomad_using_subcommand fs" -l namespace -d 'The target namespace for queries and actions bound to a namespace' -r
complete -c nomad -n "__fish_nomad_using_subcommand fs" -l token -d 'The SecretID of an ACL token to use to authenticate API requests with' -r
complete -c nomad -n "__fish_nomad_using_subcommand fs" -l group -d 'With -job, only allocations of this task group' -r
complete -c nomad -n "__fish_nomad_using_subcommand fs" -s n -d 'Sets the tail location in best-efforted number of lines relative to the end' -r
complete -c nomad -n "__fish_nomad_using_subcommand fs" -s c -d 'Sets the tail location in number of bytes relative to the end' -r
complete -c nomad -n "__fish_nomad_using_subcommand fs" -s H -d 'Machine friendly output: sizes in bytes'
complete -c nomad -n "__fish_nomad_using_subcommand fs" -l verbose -d 'Show full information'
complete -c nomad -n "__fish_nomad_using_subcommand fs" -l job -d 'Use a random allocation from the specified job ID or prefix'
complete -c nomad -n "__fish_nomad_using_subcommand fs" -l stat -d 'Show file stat information instead of displaying the file, or listing the directory'
complete -c nomad -n "__fish_nomad_using_subcommand fs" -s f -d 'Causes the output to not stop, and instead continuously output new lines'
complete -c nomad -n "__fish_nomad_using_subcommand fs" -l tail -d 'Show the files contents with offsets relative to the end of the file'
complete -c nomad -n "__fish_nomad_using_subcommand fs" -s h -l help -d 'Print help'
complete -c nomad -n "__fish_nomad_using_subcommand help; and not __fish_seen_subcommand_from agent agent-info alloc deployment eval fmt job node server service operator status system version run stop start init inspect validate logs exec fs help" -f -a "agent" -d 'Runs a Nomad agent'
complete -c nomad -n "__fish_nomad_using_subcommand help; and not __fish_seen_subcommand_from agent agent-info alloc deployment eval fmt job node server service operator status system version run stop start init inspect validate logs exec fs help" -f -a "agent-info" -d 'Display status information about the local agent'
complete -c nomad -n "__fish_nomad_using_subcommand help; and not __fish_seen_subcommand_from agent agent-info alloc deployment eval fmt job node server service operator status system version run stop start init inspect validate logs exec fs help" -f -a "alloc" -d 'Interact with allocations'
complete -c nomad -n "__fish_nomad_using_subcommand help; and not __fish_seen_subcommand_from agent agent-info alloc deployment eval fmt job node server service operator status system version run stop start init inspect validate logs exec fs help" -f -a "deployment" -d 'Interact with deployments'
complete -c nomad -n "__fish_nomad_using_subcommand help; and not __fish_seen_subcommand_from agent agent-info alloc deployment eval fmt job node server service operator status system version run stop start init inspect validate logs exec fs help" -f -a "eval" -d 'Interact with evaluations'
complete -c nomad -n "__fish_nomad_using_subcommand help; and not __fish_seen_subcommand_from agent agent-info alloc deployment eval fmt job node server service operator status system version run stop start init inspect validate logs exec fs help" -f -a "fmt" -d 'Rewrites Nomad config and job files to canonical format'
complete -c nomad -n "__fish_nomad_using_subcommand help; and not __fish_seen_subcommand_from agent agent-info alloc deployment eval fmt job node server service operator status system version run stop start init inspect validate logs exec fs help" -f -a "job" -d 'Interact with jobs'
complete -c nomad -n "__fish_nomad_using_subcommand help; and not __fish_seen_subcommand_from agent agent-info alloc deployment eval fmt job node server service operator status system version run stop start init inspect validate logs exec fs help" -f -a "node" -d 'Interact with nodes'
complete -c nomad -n "__fish_nomad_using_subcommand help; and not __fish_seen_subcommand_from agent agent-info alloc deployment eval fmt job node server service operator status system version run stop start init inspect validate logs exec fs help" -f -a "server" -d 'Interact with servers'
complete -c nomad -n "__fish_nomad_using_subcommand help; and not __fish_seen_subcommand_from agent agent-info alloc deployment eval fmt job node server service operator status system version run stop start init inspect validate logs exec fs help" -f -a "service" -d 'Interact with registered services'
complete -c nomad -n "__fish_nomad_using_subcommand help; and not __fish_seen_subcommand_from agent agent-info alloc deployment eval fmt job node server service operator status system version run stop start init inspect validate logs exec fs help" -f -a "operator" -d 'Provides cluster-level tools for Nomad operators'
complete -c nomad -n "__fish_nomad_using_subcommand help; and not __fish_seen_subcommand_from agent agent-info alloc deployment eval fmt job node server service operator status system version run stop start init inspect validate logs exec fs help" -f -a "status" -d 'Display the status output for a resource'
complete -c nomad -n "__fish_nomad_using_subcommand help; and not __fish_seen_subcommand_from agent agent-info alloc deployment eval fmt job node server service operator status system version run stop start init inspect validate logs exec fs help" -f -a "system" -d 'Interact with the system API'
complete -c nomad -n "__fish_nomad_using_subcommand help; and not __fish_seen_subcommand_from agent agent-info alloc deployment eval fmt job node server service operator status system version run stop start init inspect validate logs exec fs help" -f -a "version" -d 'Prints the Nomad version'
complete -c nomad -n "__fish_nomad_using_subcommand help; and not __fish_seen_subcommand_from agent agent-info alloc deployment eval fmt job node server service operator status system version run stop start init inspect validate logs exec fs help" -f -a "run" -d 'Run a new job or update an existing job (alias of `job run`)'
complete -c nomad -n "__fish_nomad_using_subcommand help; and not __fish_seen_subcommand_from agent agent-info alloc deployment eval fmt job node server service operator status system version run stop start init inspect validate logs exec fs help" -f -a "stop" -d 'Stop a running job (alias of `job stop`)'
complete -c nomad -n "__fish_nomad_using_subcommand help; and not __fish_seen_subcommand_from agent agent-info alloc deployment eval fmt job node server service operator status system version run stop start init inspect validate logs exec fs help" -f -a "start" -d 'Start a stopped job (alias of `job start`)'
complete -c nomad -n "__fish_nomad_using_subcommand help; and not __fish_seen_subcommand_from agent agent-info alloc deployment eval fmt job node server service operator status system version run stop start init inspect validate logs exec fs help" -f -a "init"
complete -c nomad -n "__fish_nomad_using_subcommand help; and not __fish_seen_subcommand_from agent agent-info alloc deployment eval fmt job node server service operator status system version run stop start init inspect validate logs exec fs help" -f -a "inspect" -d 'Flags accepted by every command that talks to an agent'
complete -c nomad -n "__fish_nomad_using_subcommand help; and not __fish_seen_subcommand_from agent agent-info alloc deployment eval fmt job node server service operator status system version run stop start init inspect validate logs exec fs help" -f -a "validate" -d 'How `job run`/`job validate` get a job from a file (Nomad\'s `JobGetter`)'
complete -c nomad -n "__fish_nomad_using_subcommand help; and not __fish_seen_subcommand_from agent agent-info alloc deployment eval fmt job node server service operator status system version run stop start init inspect validate logs exec fs help" -f -a "logs" -d 'Flags accepted by every command that talks to an agent'
complete -c nomad -n "__fish_nomad_using_subcommand help; and not __fish_seen_subcommand_from agent agent-info alloc deployment eval fmt job node server service operator status system version run stop start init inspect validate logs exec fs help" -f -a "exec" -d 'Execute commands in task (alias of `alloc exec`)'
complete -c nomad -n "__fish_nomad_using_subcommand help; and not __fish_seen_subcommand_from agent agent-info alloc deployment eval fmt job node server service operator status system version run stop start init inspect validate logs exec fs help" -f -a "fs" -d 'Flags accepted by every command that talks to an agent'
complete -c nomad -n "__fish_nomad_using_subcommand help; and not __fish_seen_subcommand_from agent agent-info alloc deployment eval fmt job node server service operator status system version run stop start init inspect validate logs exec fs help" -f -a "help" -d 'Print this message or the help of the given subcommand(s)'
complete -c nomad -n "__fish_nomad_using_subcommand help; and __fish_seen_subcommand_from alloc" -f -a "status" -d 'Display allocation status information and metadata'
complete -c nomad -n "__fish_nomad_using_subcommand help; and __fish_seen_subcommand_from alloc" -f -a "logs" -d 'Streams the logs of a task'
complete -c nomad -n "__fish_nomad_using_subcommand help; and __fish_seen_subcommand_from alloc" -f -a "fs" -d 'Inspect the contents of an allocation directory'
complete -c nomad -n "__fish_nomad_using_subcommand help; and __fish_seen_subcommand_from alloc" -f -a "exec" -d 'Execute commands in task'
complete -c nomad -n "__fish_nomad_using_subcommand help; and __fish_seen_subcommand_from alloc" -f -a "checks" -d 'Outputs service health check status information'
complete -c nomad -n "__fish_nomad_using_subcommand help; and __fish_seen_subcommand_from alloc" -f -a "stop" -d 'Stop and reschedule a running allocation'
complete -c nomad -n "__fish_nomad_using_subcommand help; and __fish_seen_subcommand_from alloc" -f -a "restart" -d 'Restart a running allocation'
complete -c nomad -n "__fish_nomad_using_subcommand help; and __fish_seen_subcommand_from alloc" -f -a "signal" -d 'Signal a running allocation'
complete -c nomad -n "__fish_nomad_using_subcommand help; and __fish_seen_subcommand_from deployment" -f -a "list" -d 'List all deployments'
complete -c nomad -n "__fish_nomad_using_subcommand help; and __fish_seen_subcommand_from deployment" -f -a "status" -d 'Display the status of a deployment'
complete -c nomad -n "__fish_nomad_using_subcommand help; and __fish_seen_subcommand_from deployment" -f -a "promote" -d 'Promote canaries in a deployment'
complete -c nomad -n "__fish_nomad_using_subcommand help; and __fish_seen_subcommand_from deployment" -f -a "fail" -d 'Manually fail a deployment'
complete -c nomad -n "__fish_nomad_using_subcommand help; and __fish_seen_subcommand_from deployment" -f -a "pause" -d 'Pause a deployment'
complete -c nomad -n "__fish_nomad_using_subcommand help; and __fish_seen_subcommand_from deployment" -f -a "resume" -d 'Resume a paused deployment'
complete -c nomad -n "__fish_nomad_using_subcommand help; and __fish_seen_subcommand_from deployment" -f -a "unblock" -d 'Unblock a blocked deployment'
complete -c nomad -n "__fish_nomad_using_subcommand help; and __fish_seen_subcommand_from eval" -f -a "delete" -d 'Delete evaluations'
complete -c nomad -n "__fish_nomad_using_subcommand help; and __fish_seen_subcommand_from eval" -f -a "list" -d 'List the set of evaluations processed by Nomad'
complete -c nomad -n "__fish_nomad_using_subcommand help; and __fish_seen_subcommand_from eval" -f -a "status" -d 'Display evaluation status and placement failure reasons'
complete -c nomad -n "__fish_nomad_using_subcommand help; and __fish_seen_subcommand_from job" -f -a "init" -d 'Create an example job file'
complete -c nomad -n "__fish_nomad_using_subcommand help; and __fish_seen_subcommand_from job" -f -a "run" -d 'Run a new job or update an existing job'
complete -c nomad -n "__fish_nomad_using_subcommand help; and __fish_seen_subcommand_from job" -f -a "status" -d 'Display status information about a job'
complete -c nomad -n "__fish_nomad_using_subcommand help; and __fish_seen_subcommand_from job" -f -a "stop" -d 'Stop a running job'
complete -c nomad -n "__fish_nomad_using_subcommand help; and __fish_seen_subcommand_from job" -f -a "start" -d 'Start a stopped job'
complete -c nomad -n "__fish_nomad_using_subcommand help; and __fish_seen_subcommand_from job" -f -a "tag" -d 'Manage job version tags'
complete -c nomad -n "__fish_nomad_using_subcommand help; and __fish_seen_subcommand_from job" -f -a "inspect" -d 'Inspect a submitted job'
complete -c nomad -n "__fish_nomad_using_subcommand help; and __fish_seen_subcommand_from job" -f -a "validate" -d 'Check a job specification for syntax errors'
complete -c nomad -n "__fish_nomad_using_subcommand help; and __fish_seen_subcommand_from job" -f -a "allocs" -d 'List allocations for a job'
complete -c nomad -n "__fish_nomad_using_subcommand help; and __fish_seen_subcommand_from job" -f -a "history" -d 'Display all tracked versions of a job'
complete -c nomad -n "__fish_nomad_using_subcommand help; and __fish_seen_subcommand_from job" -f -a "promote" -d 'Promote a job\'s canaries'
complete -c nomad -n "__fish_nomad_using_subcommand help; and __fish_seen_subcommand_from job" -f -a "revert" -d 'Revert to a prior version of the job'
complete -c nomad -n "__fish_nomad_using_subcommand help; and __fish_seen_subcommand_from job" -f -a "plan" -d 'Invoke a dry-run of the scheduler for a job'
complete -c nomad -n "__fish_nomad_using_subcommand help; and __fish_seen_subcommand_from job" -f -a "dispatch" -d 'Dispatch an instance of a parameterized job'
complete -c nomad -n "__fish_nomad_using_subcommand help; and __fish_seen_subcommand_from job" -f -a "periodic" -d 'Interact with periodic jobs'
complete -c nomad -n "__fish_nomad_using_subcommand help; and __fish_seen_subcommand_from job" -f -a "scale" -d 'Change the count of a job\'s task group'
complete -c nomad -n "__fish_nomad_using_subcommand help; and __fish_seen_subcommand_from job" -f -a "eval" -d 'Force an evaluation of the job'
complete -c nomad -n "__fish_nomad_using_subcommand help; and __fish_seen_subcommand_from job" -f -a "deployments" -d 'List deployments for a job'
complete -c nomad -n "__fish_nomad_using_subcommand help; and __fish_seen_subcommand_from job" -f -a "restart" -d 'Restart or reschedule allocations for a job'
complete -c nomad -n "__fish_nomad_using_subcommand help; and __fish_seen_subcommand_from job" -f -a "scaling-events" -d 'Display the most recent scaling events for a job'
complete -c nomad -n "__fish_nomad_using_subcommand help; and __fish_seen_subcommand_from node" -f -a "status" -d 'Display status information about nodes'
complete -c nomad -n "__fish_nomad_using_subcommand help; and __fish_seen_subcommand_from node" -f -a "drain" -d 'Toggle drain mode on a given node'
complete -c nomad -n "__fish_nomad_using_subcommand help; and __fish_seen_subcommand_from node" -f -a "eligibility" -d 'Toggle scheduling eligibility for a given node'
complete -c nomad -n "__fish_nomad_using_subcommand help; and __fish_seen_subcommand_from node" -f -a "meta" -d 'Interact with node metadata'
complete -c nomad -n "__fish_nomad_using_subcommand help; and __fish_seen_subcommand_from server" -f -a "members" -d 'Display a list of known servers and their status'
complete -c nomad -n "__fish_nomad_using_subcommand help; and __fish_seen_subcommand_from server" -f -a "join" -d 'Join server nodes together'
complete -c nomad -n "__fish_nomad_using_subcommand help; and __fish_seen_subcommand_from server" -f -a "force-leave" -d 'Force a server into the \'left\' state'
complete -c nomad -n "__fish_nomad_using_subcommand help; and __fish_seen_subcommand_from service" -f -a "list" -d 'Display all registered Nomad services'
complete -c nomad -n "__fish_nomad_using_subcommand help; and __fish_seen_subcommand_from service" -f -a "info" -d 'Display an individual Nomad service registration'
complete -c nomad -n "__fish_nomad_using_subcommand help; and __fish_seen_subcommand_from service" -f -a "delete" -d 'Deregister a registered Nomad service'
complete -c nomad -n "__fish_nomad_using_subcommand help; and __fish_seen_subcommand_from operator" -f -a "api" -d 'Query Nomad\'s HTTP API like curl'
complete -c nomad -n "__fish_nomad_using_subcommand help; and __fish_seen_subcommand_from operator" -f -a "scheduler" -d 'Provides access to the scheduler configuration'
complete -c nomad -n "__fish_nomad_using_subcommand help; and __fish_seen_subcommand_from system" -f -a "gc" -d 'Run the system garbage collection process'
complete -c nomad -n "__fish_nomad_using_subcommand help; and __fish_seen_subcommand_from system" -f -a "reconcile" -d 'Perform system reconciliation tasks'
