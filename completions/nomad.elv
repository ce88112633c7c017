
use builtin;
use str;

set edit:completion:arg-completer[nomad] = {|@words|
    fn spaces {|n|
        builtin:repeat $n ' ' | str:join ''
    }
    fn cand {|text desc|
        edit:complex-candidate $text &display=$text' '(spaces (- 14 (wcswidth $text)))$desc
    }
    var command = 'nomad'
    for word $words[1..-1] {
        if (str:has-prefix $word '-') {
            break
        }
        set command = $command';'$word
    }
    var completions = [
        &'nomad'= {
            cand -v 'Print the version (as `nomad version`)'
            cand --version 'Print the version (as `nomad version`)'
            cand -h 'Print help'
            cand --help 'Print help'
            cand agent 'Runs a Nomad agent'
            cand agent-info 'Display status information about the local agent'
            cand alloc 'Interact with allocations'
            cand deployment 'Interact with deployments'
            cand eval 'Interact with evaluations'
            cand fmt 'Rewrites Nomad config and job files to canonical format'
            cand job 'Interact with jobs'
            cand node 'Interact with nodes'
            cand server 'Interact with servers'
            cand service 'Interact with registered services'
            cand operator 'Provides cluster-level tools for Nomad operators'
            cand status 'Display the status output for a resource'
            cand system 'Interact with the system API'
            cand version 'Prints the Nomad version'
            cand run 'Run a new job or update an existing job (alias of `job run`)'
            cand stop 'Stop a running job (alias of `job stop`)'
            cand start 'Start a stopped job (alias of `job start`)'
            cand init 'init'
            cand inspect 'Flags accepted by every command that talks to an agent'
            cand validate 'How `job run`/`job validate` get a job from a file (Nomad''s `JobGetter`)'
            cand logs 'Flags accepted by every command that talks to an agent'
            cand exec 'Execute commands in task (alias of `alloc exec`)'
            cand fs 'Flags accepted by every command that talks to an agent'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'nomad;agent'= {
            cand --config 'The path to a config file or directory of files to load; can be specified multiple times'
            cand --bind 'The address the agent will bind to for all of its various network services'
            cand --data-dir 'The path to the data directory'
            cand --node 'The name of the local agent'
            cand --dc 'The name of the datacenter this Nomad agent is a member of'
            cand --region 'The region the Nomad agent is a member of'
            cand --log-level 'The logging level (TRACE, DEBUG, INFO, WARN, ERROR)'
            cand --bootstrap-expect 'How many servers to wait for before bootstrapping'
            cand --node-class 'Mark this node as a member of a node class'
            cand --node-pool 'The node pool this node is a member of'
            cand --meta 'User specified metadata (key=value) to associate with the node; repeatable'
            cand --servers 'A comma-separated list of known server addresses to connect to (client mode)'
            cand --dev 'Start the agent in development mode: a server and client with in-memory defaults'
            cand --server 'Enable server mode for the agent'
            cand --client 'Enable client mode for the agent'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'nomad;agent-info'= {
            cand --address 'The address of the Nomad server'
            cand --region 'The region of the Nomad servers to forward commands to'
            cand --namespace 'The target namespace for queries and actions bound to a namespace'
            cand --token 'The SecretID of an ACL token to use to authenticate API requests with'
            cand -t 'Format and display the output using a Go template'
            cand --json 'Output the agent''s self information in its JSON format'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'nomad;alloc'= {
            cand -h 'Print help'
            cand --help 'Print help'
            cand status 'Display allocation status information and metadata'
            cand logs 'Streams the logs of a task'
            cand fs 'Inspect the contents of an allocation directory'
            cand exec 'Execute commands in task'
            cand checks 'Outputs service health check status information'
            cand stop 'Stop and reschedule a running allocation'
            cand restart 'Restart a running allocation'
            cand signal 'Signal a running allocation'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'nomad;alloc;status'= {
            cand --address 'The address of the Nomad server'
            cand --region 'The region of the Nomad servers to forward commands to'
            cand --namespace 'The target namespace for queries and actions bound to a namespace'
            cand --token 'The SecretID of an ACL token to use to authenticate API requests with'
            cand -t 'Format and display the output using a Go template'
            cand --short 'Display short output. Shows only the most recent task event'
            cand --verbose 'Show full information'
            cand --json 'Output the allocation in its JSON format'
            cand --stats 'Display detailed resource usage statistics'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'nomad;alloc;logs'= {
            cand --address 'The address of the Nomad server'
            cand --region 'The region of the Nomad servers to forward commands to'
            cand --namespace 'The target namespace for queries and actions bound to a namespace'
            cand --token 'The SecretID of an ACL token to use to authenticate API requests with'
            cand -n 'Sets the tail location in best-efforted number of lines relative to the end'
            cand -c 'Sets the tail location in number of bytes relative to the end'
            cand --task 'Sets the task to view the logs of'
            cand --group 'With -job, pick the allocation from this task group'
            cand -f 'Causes the output to not stop, and instead continuously output new lines'
            cand --stderr 'Display stderr logs'
            cand --stdout 'Display stdout logs (the default)'
            cand --tail 'Show the logs contents with offsets relative to the end of the logs'
            cand --verbose 'Show full information'
            cand --job 'Use a random allocation from the specified job ID or prefix'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'nomad;alloc;fs'= {
            cand --address 'The address of the Nomad server'
            cand --region 'The region of the Nomad servers to forward commands to'
            cand --namespace 'The target namespace for queries and actions bound to a namespace'
            cand --token 'The SecretID of an ACL token to use to authenticate API requests with'
            cand --group 'With -job, only allocations of this task group'
            cand -n 'Sets the tail location in best-efforted number of lines relative to the end'
            cand -c 'Sets the tail location in number of bytes relative to the end'
            cand -H 'Machine friendly output: sizes in bytes'
            cand --verbose 'Show full information'
            cand --job 'Use a random allocation from the specified job ID or prefix'
            cand --stat 'Show file stat information instead of displaying the file, or listing the directory'
            cand -f 'Causes the output to not stop, and instead continuously output new lines'
            cand --tail 'Show the files contents with offsets relative to the end of the file'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'nomad;alloc;exec'= {
            cand --address 'The address of the Nomad server'
            cand --region 'The region of the Nomad servers to forward commands to'
            cand --namespace 'The target namespace for queries and actions bound to a namespace'
            cand --token 'The SecretID of an ACL token to use to authenticate API requests with'
            cand --group 'With -job, only allocations of this task group'
            cand -i 'Pass stdin to the container (default true)'
            cand -t 'Allocate a pseudo-tty (default: whether stdin is a terminal)'
            cand -e 'Escape character for closing the session ("none" to disable)'
            cand --task 'The task to exec into (optional when the group has one task)'
            cand --job 'Use a random allocation from the specified job ID or prefix'
            cand --verbose 'verbose'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'nomad;alloc;checks'= {
            cand --address 'The address of the Nomad server'
            cand --region 'The region of the Nomad servers to forward commands to'
            cand --namespace 'The target namespace for queries and actions bound to a namespace'
            cand --token 'The SecretID of an ACL token to use to authenticate API requests with'
            cand -t 'Format and display the output using a Go template'
            cand --verbose 'Show full information'
            cand --json 'Output the latest health check status information in a JSON format'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'nomad;alloc;stop'= {
            cand --address 'The address of the Nomad server'
            cand --region 'The region of the Nomad servers to forward commands to'
            cand --namespace 'The target namespace for queries and actions bound to a namespace'
            cand --token 'The SecretID of an ACL token to use to authenticate API requests with'
            cand --detach 'Return immediately instead of monitoring the eval'
            cand --no-shutdown-delay 'Ignore the group and tasks'' shutdown_delay'
            cand --verbose 'verbose'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'nomad;alloc;restart'= {
            cand --address 'The address of the Nomad server'
            cand --region 'The region of the Nomad servers to forward commands to'
            cand --namespace 'The target namespace for queries and actions bound to a namespace'
            cand --token 'The SecretID of an ACL token to use to authenticate API requests with'
            cand --task 'The task to restart'
            cand --all-tasks 'Restart every task of the allocation, including dead prestart and poststart tasks'
            cand --verbose 'verbose'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'nomad;alloc;signal'= {
            cand --address 'The address of the Nomad server'
            cand --region 'The region of the Nomad servers to forward commands to'
            cand --namespace 'The target namespace for queries and actions bound to a namespace'
            cand --token 'The SecretID of an ACL token to use to authenticate API requests with'
            cand -s 'The signal to send'
            cand --task 'The task to signal'
            cand --verbose 'verbose'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'nomad;alloc;help'= {
            cand status 'Display allocation status information and metadata'
            cand logs 'Streams the logs of a task'
            cand fs 'Inspect the contents of an allocation directory'
            cand exec 'Execute commands in task'
            cand checks 'Outputs service health check status information'
            cand stop 'Stop and reschedule a running allocation'
            cand restart 'Restart a running allocation'
            cand signal 'Signal a running allocation'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'nomad;alloc;help;status'= {
        }
        &'nomad;alloc;help;logs'= {
        }
        &'nomad;alloc;help;fs'= {
        }
        &'nomad;alloc;help;exec'= {
        }
        &'nomad;alloc;help;checks'= {
        }
        &'nomad;alloc;help;stop'= {
        }
        &'nomad;alloc;help;restart'= {
        }
        &'nomad;alloc;help;signal'= {
        }
        &'nomad;alloc;help;help'= {
        }
        &'nomad;deployment'= {
            cand -h 'Print help'
            cand --help 'Print help'
            cand list 'List all deployments'
            cand status 'Display the status of a deployment'
            cand promote 'Promote canaries in a deployment'
            cand fail 'Manually fail a deployment'
            cand pause 'Pause a deployment'
            cand resume 'Resume a paused deployment'
            cand unblock 'Unblock a blocked deployment'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'nomad;deployment;list'= {
            cand --address 'The address of the Nomad server'
            cand --region 'The region of the Nomad servers to forward commands to'
            cand --namespace 'The target namespace for queries and actions bound to a namespace'
            cand --token 'The SecretID of an ACL token to use to authenticate API requests with'
            cand -t 'Format and display the output using a Go template'
            cand --filter 'Only show results matching this filter expression (go-bexpr, e.g. `Status == "ready"`)'
            cand --json 'Output the deployments in their JSON format'
            cand --verbose 'Display full information'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'nomad;deployment;status'= {
            cand --address 'The address of the Nomad server'
            cand --region 'The region of the Nomad servers to forward commands to'
            cand --namespace 'The target namespace for queries and actions bound to a namespace'
            cand --token 'The SecretID of an ACL token to use to authenticate API requests with'
            cand -t 'Format and display the output using a Go template'
            cand --wait 'How long to wait before polling an update, used in conjunction with monitor mode'
            cand --json 'Output the deployment in its JSON format'
            cand --verbose 'Display full information'
            cand --monitor 'Enter monitor mode to poll for updates to the deployment status'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'nomad;deployment;promote'= {
            cand --address 'The address of the Nomad server'
            cand --region 'The region of the Nomad servers to forward commands to'
            cand --namespace 'The target namespace for queries and actions bound to a namespace'
            cand --token 'The SecretID of an ACL token to use to authenticate API requests with'
            cand --group 'Task group to promote; may be given multiple times (default: all groups)'
            cand --detach 'Return immediately instead of entering monitor mode'
            cand --verbose 'Display full information'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'nomad;deployment;fail'= {
            cand --address 'The address of the Nomad server'
            cand --region 'The region of the Nomad servers to forward commands to'
            cand --namespace 'The target namespace for queries and actions bound to a namespace'
            cand --token 'The SecretID of an ACL token to use to authenticate API requests with'
            cand --detach 'Return immediately instead of entering monitor mode'
            cand --verbose 'Display full information'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'nomad;deployment;pause'= {
            cand --address 'The address of the Nomad server'
            cand --region 'The region of the Nomad servers to forward commands to'
            cand --namespace 'The target namespace for queries and actions bound to a namespace'
            cand --token 'The SecretID of an ACL token to use to authenticate API requests with'
            cand --detach 'Return immediately instead of entering monitor mode'
            cand --verbose 'Display full information'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'nomad;deployment;resume'= {
            cand --address 'The address of the Nomad server'
            cand --region 'The region of the Nomad servers to forward commands to'
            cand --namespace 'The target namespace for queries and actions bound to a namespace'
            cand --token 'The SecretID of an ACL token to use to authenticate API requests with'
            cand --detach 'Return immediately instead of entering monitor mode'
            cand --verbose 'Display full information'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'nomad;deployment;unblock'= {
            cand --address 'The address of the Nomad server'
            cand --region 'The region of the Nomad servers to forward commands to'
            cand --namespace 'The target namespace for queries and actions bound to a namespace'
            cand --token 'The SecretID of an ACL token to use to authenticate API requests with'
            cand --detach 'Return immediately instead of entering monitor mode'
            cand --verbose 'Display full information'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'nomad;deployment;help'= {
            cand list 'List all deployments'
            cand status 'Display the status of a deployment'
            cand promote 'Promote canaries in a deployment'
            cand fail 'Manually fail a deployment'
            cand pause 'Pause a deployment'
            cand resume 'Resume a paused deployment'
            cand unblock 'Unblock a blocked deployment'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'nomad;deployment;help;list'= {
        }
        &'nomad;deployment;help;status'= {
        }
        &'nomad;deployment;help;promote'= {
        }
        &'nomad;deployment;help;fail'= {
        }
        &'nomad;deployment;help;pause'= {
        }
        &'nomad;deployment;help;resume'= {
        }
        &'nomad;deployment;help;unblock'= {
        }
        &'nomad;deployment;help;help'= {
        }
        &'nomad;eval'= {
            cand -h 'Print help'
            cand --help 'Print help'
            cand delete 'Delete evaluations'
            cand list 'List the set of evaluations processed by Nomad'
            cand status 'Display evaluation status and placement failure reasons'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'nomad;eval;delete'= {
            cand --address 'The address of the Nomad server'
            cand --region 'The region of the Nomad servers to forward commands to'
            cand --namespace 'The target namespace for queries and actions bound to a namespace'
            cand --token 'The SecretID of an ACL token to use to authenticate API requests with'
            cand --filter 'Delete the evaluations matching this filter expression (see `nomad eval list -filter`)'
            cand --yes 'Bypass the confirmation prompt'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'nomad;eval;list'= {
            cand --address 'The address of the Nomad server'
            cand --region 'The region of the Nomad servers to forward commands to'
            cand --namespace 'The target namespace for queries and actions bound to a namespace'
            cand --token 'The SecretID of an ACL token to use to authenticate API requests with'
            cand -t 'Format and display the output using a Go template'
            cand --per-page 'How many results to show per page'
            cand --page-token 'Where to start pagination'
            cand --job 'Only show evaluations for this job ID'
            cand --status 'Only show evaluations with this status'
            cand --filter 'Only show evaluations matching this filter expression (e.g. `JobID == "web"`)'
            cand --verbose 'Show full information'
            cand --json 'Output the evaluations in their JSON format'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'nomad;eval;status'= {
            cand --address 'The address of the Nomad server'
            cand --region 'The region of the Nomad servers to forward commands to'
            cand --namespace 'The target namespace for queries and actions bound to a namespace'
            cand --token 'The SecretID of an ACL token to use to authenticate API requests with'
            cand -t 'Format and display the output using a Go template'
            cand --monitor 'Monitor an outstanding evaluation'
            cand --verbose 'Show full information'
            cand --json 'Output the evaluation in its JSON format'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'nomad;eval;help'= {
            cand delete 'Delete evaluations'
            cand list 'List the set of evaluations processed by Nomad'
            cand status 'Display evaluation status and placement failure reasons'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'nomad;eval;help;delete'= {
        }
        &'nomad;eval;help;list'= {
        }
        &'nomad;eval;help;status'= {
        }
        &'nomad;eval;help;help'= {
        }
        &'nomad;fmt'= {
            cand --list 'List the files whose formatting changes'
            cand --write 'Overwrite the files with their formatted text (ignored for stdin)'
            cand --check 'Report files that are not formatted and exit 1, without writing them'
            cand --recursive 'Process subdirectories too'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'nomad;job'= {
            cand -h 'Print help'
            cand --help 'Print help'
            cand init 'Create an example job file'
            cand run 'Run a new job or update an existing job'
            cand status 'Display status information about a job'
            cand stop 'Stop a running job'
            cand start 'Start a stopped job'
            cand tag 'Manage job version tags'
            cand inspect 'Inspect a submitted job'
            cand validate 'Check a job specification for syntax errors'
            cand allocs 'List allocations for a job'
            cand history 'Display all tracked versions of a job'
            cand promote 'Promote a job''s canaries'
            cand revert 'Revert to a prior version of the job'
            cand plan 'Invoke a dry-run of the scheduler for a job'
            cand dispatch 'Dispatch an instance of a parameterized job'
            cand periodic 'Interact with periodic jobs'
            cand scale 'Change the count of a job''s task group'
            cand eval 'Force an evaluation of the job'
            cand deployments 'List deployments for a job'
            cand restart 'Restart or reschedule allocations for a job'
            cand scaling-events 'Display the most recent scaling events for a job'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'nomad;job;init'= {
            cand --short 'If the short flag is set, a minimal jobspec without comments is emitted'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'nomad;job;run'= {
            cand --address 'The address of the Nomad server'
            cand --region 'The region of the Nomad servers to forward commands to'
            cand --namespace 'The target namespace for queries and actions bound to a namespace'
            cand --token 'The SecretID of an ACL token to use to authenticate API requests with'
            cand --check-index 'If set, the job is only registered or updated if the passed job modify index matches the server side version. A value of zero registers the job only if it does not exist'
            cand --eval-priority 'Override the priority of the evaluation this registration creates'
            cand --var 'Variable for template, can be used multiple times (key=value)'
            cand --var-file 'Path to an HCL2 file containing user variables, can be used multiple times'
            cand --detach 'Return immediately instead of entering monitor mode'
            cand --verbose 'Display full information'
            cand --output 'Output the JSON that would be submitted to the HTTP API without submitting the job'
            cand --preserve-counts 'Keep the current counts of task groups the running job already has'
            cand --policy-override 'Override soft-mandatory Sentinel policies (accepted; there are none here)'
            cand --json 'Parses the job file as JSON. If the outer object has a Job field, such as from "nomad job inspect" or "nomad run -output", the value of the field is used as the job'
            cand --hcl2-strict 'Accepted for compatibility (`-hcl2-strict=false` is common in scripts); the parser is always strict about unknown blocks and attributes'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'nomad;job;status'= {
            cand --address 'The address of the Nomad server'
            cand --region 'The region of the Nomad servers to forward commands to'
            cand --namespace 'The target namespace for queries and actions bound to a namespace'
            cand --token 'The SecretID of an ACL token to use to authenticate API requests with'
            cand -t 'Format and display the output using a Go template'
            cand --short 'Display short output. Used only when a single job is being queried'
            cand --evals 'Display the evaluations associated with the job'
            cand --all-allocs 'Display all allocations matching the job ID, including those from an older instance of the job'
            cand --verbose 'Display full information'
            cand --json 'Output the job status in JSON format'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'nomad;job;stop'= {
            cand --address 'The address of the Nomad server'
            cand --region 'The region of the Nomad servers to forward commands to'
            cand --namespace 'The target namespace for queries and actions bound to a namespace'
            cand --token 'The SecretID of an ACL token to use to authenticate API requests with'
            cand --eval-priority 'Override the priority of the evaluation that stops the job'
            cand --detach 'Return immediately instead of entering monitor mode'
            cand --purge 'Purge is used to stop the job and purge it from the system'
            cand --yes 'Automatic yes to prompts'
            cand --global 'Stop a multi-region job in all its regions'
            cand --verbose 'Display full information'
            cand --no-shutdown-delay 'Stop the allocations without waiting out their shutdown_delay'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'nomad;job;start'= {
            cand --address 'The address of the Nomad server'
            cand --region 'The region of the Nomad servers to forward commands to'
            cand --namespace 'The target namespace for queries and actions bound to a namespace'
            cand --token 'The SecretID of an ACL token to use to authenticate API requests with'
            cand --detach 'Return immediately instead of entering monitor mode. After the job start command is submitted, a new evaluation ID is printed to the screen, which can be used to examine the evaluation using the eval-status command'
            cand --verbose 'Display full information'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'nomad;job;tag'= {
            cand -h 'Print help'
            cand --help 'Print help'
            cand apply 'Save a job version to prevent it from being garbage-collected and allow it to be diffed and reverted by name'
            cand unset 'Remove a tag from a job version'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'nomad;job;tag;apply'= {
            cand --address 'The address of the Nomad server'
            cand --region 'The region of the Nomad servers to forward commands to'
            cand --namespace 'The target namespace for queries and actions bound to a namespace'
            cand --token 'The SecretID of an ACL token to use to authenticate API requests with'
            cand --name 'Specifies the name of the version to tag. This is a required field'
            cand --description 'Specifies a description for the version. This is an optional field'
            cand --version 'Specifies the version of the job to tag. If not provided, the latest version of the job will be tagged'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'nomad;job;tag;unset'= {
            cand --address 'The address of the Nomad server'
            cand --region 'The region of the Nomad servers to forward commands to'
            cand --namespace 'The target namespace for queries and actions bound to a namespace'
            cand --token 'The SecretID of an ACL token to use to authenticate API requests with'
            cand --name 'The name of the tag to remove from the job version'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'nomad;job;tag;help'= {
            cand apply 'Save a job version to prevent it from being garbage-collected and allow it to be diffed and reverted by name'
            cand unset 'Remove a tag from a job version'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'nomad;job;tag;help;apply'= {
        }
        &'nomad;job;tag;help;unset'= {
        }
        &'nomad;job;tag;help;help'= {
        }
        &'nomad;job;inspect'= {
            cand --address 'The address of the Nomad server'
            cand --region 'The region of the Nomad servers to forward commands to'
            cand --namespace 'The target namespace for queries and actions bound to a namespace'
            cand --token 'The SecretID of an ACL token to use to authenticate API requests with'
            cand -t 'Format and display the output using a Go template'
            cand --version 'Display the job at this version instead of the latest'
            cand --json 'Output the job in its JSON format (the bare job, without the {"Job": ...} wrapper)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'nomad;job;validate'= {
            cand --address 'The address of the Nomad server'
            cand --region 'The region of the Nomad servers to forward commands to'
            cand --namespace 'The target namespace for queries and actions bound to a namespace'
            cand --token 'The SecretID of an ACL token to use to authenticate API requests with'
            cand --var 'Variable for template, can be used multiple times (key=value)'
            cand --var-file 'Path to an HCL2 file containing user variables, can be used multiple times'
            cand --json 'Parses the job file as JSON. If the outer object has a Job field, such as from "nomad job inspect" or "nomad run -output", the value of the field is used as the job'
            cand --hcl2-strict 'Accepted for compatibility (`-hcl2-strict=false` is common in scripts); the parser is always strict about unknown blocks and attributes'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'nomad;job;allocs'= {
            cand --address 'The address of the Nomad server'
            cand --region 'The region of the Nomad servers to forward commands to'
            cand --namespace 'The target namespace for queries and actions bound to a namespace'
            cand --token 'The SecretID of an ACL token to use to authenticate API requests with'
            cand -t 'Format and display the output using a Go template'
            cand --all 'Display all allocations matching the job ID, even those from an older instance of the job'
            cand --verbose 'Display full information'
            cand --json 'Output the allocations in a JSON format'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'nomad;job;history'= {
            cand --address 'The address of the Nomad server'
            cand --region 'The region of the Nomad servers to forward commands to'
            cand --namespace 'The target namespace for queries and actions bound to a namespace'
            cand --token 'The SecretID of an ACL token to use to authenticate API requests with'
            cand --diff-tag 'Diff each version against the version carrying this tag name (with -p). Mutually exclusive with -diff-version'
            cand --diff-version 'Diff each version against this version number (with -p). Mutually exclusive with -diff-tag'
            cand -t 'Format and display the output using a Go template'
            cand --version 'Display only the history for the given version'
            cand -p 'Display the difference between each version of the job and the previous one, or the version named by -diff-tag or -diff-version'
            cand --full 'Display the full job definition for each version'
            cand --json 'Output the job versions in their JSON format'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'nomad;job;promote'= {
            cand --address 'The address of the Nomad server'
            cand --region 'The region of the Nomad servers to forward commands to'
            cand --namespace 'The target namespace for queries and actions bound to a namespace'
            cand --token 'The SecretID of an ACL token to use to authenticate API requests with'
            cand --group 'Task group to promote; may be given multiple times (default: all groups)'
            cand --detach 'Return immediately instead of entering monitor mode'
            cand --verbose 'Display full information'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'nomad;job;revert'= {
            cand --address 'The address of the Nomad server'
            cand --region 'The region of the Nomad servers to forward commands to'
            cand --namespace 'The target namespace for queries and actions bound to a namespace'
            cand --token 'The SecretID of an ACL token to use to authenticate API requests with'
            cand --detach 'Return immediately instead of entering monitor mode'
            cand --verbose 'Display full information'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'nomad;job;plan'= {
            cand --address 'The address of the Nomad server'
            cand --region 'The region of the Nomad servers to forward commands to'
            cand --namespace 'The target namespace for queries and actions bound to a namespace'
            cand --token 'The SecretID of an ACL token to use to authenticate API requests with'
            cand --diff 'Determines whether the diff between the remote job and planned job is shown. Defaults to true'
            cand --vault-namespace 'If set, the passed Vault namespace is stored in the job before sending to the server'
            cand --var 'Variable for template, can be used multiple times (key=value)'
            cand --var-file 'Path to an HCL2 file containing user variables, can be used multiple times'
            cand --policy-override 'If set, any soft mandatory Sentinel policies will be overridden'
            cand --verbose 'Increase diff verbosity'
            cand --json-output 'Output the plan response as JSON instead of the human text'
            cand --json 'Parses the job file as JSON. If the outer object has a Job field, such as from "nomad job inspect" or "nomad run -output", the value of the field is used as the job'
            cand --hcl2-strict 'Accepted for compatibility (`-hcl2-strict=false` is common in scripts); the parser is always strict about unknown blocks and attributes'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'nomad;job;dispatch'= {
            cand --address 'The address of the Nomad server'
            cand --region 'The region of the Nomad servers to forward commands to'
            cand --namespace 'The target namespace for queries and actions bound to a namespace'
            cand --token 'The SecretID of an ACL token to use to authenticate API requests with'
            cand --meta 'Meta key/value pair (key=value) for the dispatched job; may be given multiple times'
            cand --idempotency-token 'A token that makes a retried dispatch return the job the first attempt created'
            cand --id-prefix-template 'A prefix for the dispatched job''s ID, after "/dispatch-"'
            cand --priority 'The priority of the dispatched job; the parameterized job''s by default'
            cand --detach 'Return immediately instead of entering monitor mode'
            cand --verbose 'Display full information'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'nomad;job;periodic'= {
            cand -h 'Print help'
            cand --help 'Print help'
            cand force 'Force the launch of a periodic job'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'nomad;job;periodic;force'= {
            cand --address 'The address of the Nomad server'
            cand --region 'The region of the Nomad servers to forward commands to'
            cand --namespace 'The target namespace for queries and actions bound to a namespace'
            cand --token 'The SecretID of an ACL token to use to authenticate API requests with'
            cand --detach 'Return immediately instead of entering monitor mode'
            cand --verbose 'Display full information'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'nomad;job;periodic;help'= {
            cand force 'Force the launch of a periodic job'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'nomad;job;periodic;help;force'= {
        }
        &'nomad;job;periodic;help;help'= {
        }
        &'nomad;job;scale'= {
            cand --address 'The address of the Nomad server'
            cand --region 'The region of the Nomad servers to forward commands to'
            cand --namespace 'The target namespace for queries and actions bound to a namespace'
            cand --token 'The SecretID of an ACL token to use to authenticate API requests with'
            cand --check-index 'Scale only if the job''s modify index matches (0: no check)'
            cand --detach 'Return immediately instead of entering monitor mode'
            cand --verbose 'Display full information'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'nomad;job;eval'= {
            cand --address 'The address of the Nomad server'
            cand --region 'The region of the Nomad servers to forward commands to'
            cand --namespace 'The target namespace for queries and actions bound to a namespace'
            cand --token 'The SecretID of an ACL token to use to authenticate API requests with'
            cand --force-reschedule 'Force failed allocations to be rescheduled, even past their reschedule policy'
            cand --detach 'Return immediately instead of entering monitor mode'
            cand --verbose 'Display full information'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'nomad;job;deployments'= {
            cand --address 'The address of the Nomad server'
            cand --region 'The region of the Nomad servers to forward commands to'
            cand --namespace 'The target namespace for queries and actions bound to a namespace'
            cand --token 'The SecretID of an ACL token to use to authenticate API requests with'
            cand -t 'Format and display the output using a Go template'
            cand --latest 'Only show the latest deployment'
            cand --all 'Also show deployments of earlier jobs registered with the same ID'
            cand --json 'Output the deployments in their JSON format'
            cand --verbose 'Display full information'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'nomad;job;restart'= {
            cand --address 'The address of the Nomad server'
            cand --region 'The region of the Nomad servers to forward commands to'
            cand --namespace 'The target namespace for queries and actions bound to a namespace'
            cand --token 'The SecretID of an ACL token to use to authenticate API requests with'
            cand --batch-size 'How many allocations to restart at once: a number or a percentage'
            cand --batch-wait 'How long to wait between batches, or "ask" to ask each time'
            cand --group 'Only allocations of this task group (repeatable)'
            cand --task 'Only this task (repeatable)'
            cand --on-error 'What to do when a batch fails: "ask" or "fail"'
            cand --all-tasks 'Restart every task of each allocation, not only the running ones'
            cand --no-shutdown-delay 'Stop allocations without waiting out their shutdown_delay (with -reschedule)'
            cand --reschedule 'Stop each allocation and wait for a replacement instead of restarting in place'
            cand --yes 'Answer yes to every question'
            cand --verbose 'Display full information'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'nomad;job;scaling-events'= {
            cand --address 'The address of the Nomad server'
            cand --region 'The region of the Nomad servers to forward commands to'
            cand --namespace 'The target namespace for queries and actions bound to a namespace'
            cand --token 'The SecretID of an ACL token to use to authenticate API requests with'
            cand --verbose 'Also show each event''s error flag, message and eval ID'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'nomad;job;help'= {
            cand init 'Create an example job file'
            cand run 'Run a new job or update an existing job'
            cand status 'Display status information about a job'
            cand stop 'Stop a running job'
            cand start 'Start a stopped job'
            cand tag 'Manage job version tags'
            cand inspect 'Inspect a submitted job'
            cand validate 'Check a job specification for syntax errors'
            cand allocs 'List allocations for a job'
            cand history 'Display all tracked versions of a job'
            cand promote 'Promote a job''s canaries'
            cand revert 'Revert to a prior version of the job'
            cand plan 'Invoke a dry-run of the scheduler for a job'
            cand dispatch 'Dispatch an instance of a parameterized job'
            cand periodic 'Interact with periodic jobs'
            cand scale 'Change the count of a job''s task group'
            cand eval 'Force an evaluation of the job'
            cand deployments 'List deployments for a job'
            cand restart 'Restart or reschedule allocations for a job'
            cand scaling-events 'Display the most recent scaling events for a job'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'nomad;job;help;init'= {
        }
        &'nomad;job;help;run'= {
        }
        &'nomad;job;help;status'= {
        }
        &'nomad;job;help;stop'= {
        }
        &'nomad;job;help;start'= {
        }
        &'nomad;job;help;tag'= {
            cand apply 'Save a job version to prevent it from being garbage-collected and allow it to be diffed and reverted by name'
            cand unset 'Remove a tag from a job version'
        }
        &'nomad;job;help;tag;apply'= {
        }
        &'nomad;job;help;tag;unset'= {
        }
        &'nomad;job;help;inspect'= {
        }
        &'nomad;job;help;validate'= {
        }
        &'nomad;job;help;allocs'= {
        }
        &'nomad;job;help;history'= {
        }
        &'nomad;job;help;promote'= {
        }
        &'nomad;job;help;revert'= {
        }
        &'nomad;job;help;plan'= {
        }
        &'nomad;job;help;dispatch'= {
        }
        &'nomad;job;help;periodic'= {
            cand force 'Force the launch of a periodic job'
        }
        &'nomad;job;help;periodic;force'= {
        }
        &'nomad;job;help;scale'= {
        }
        &'nomad;job;help;eval'= {
        }
        &'nomad;job;help;deployments'= {
        }
        &'nomad;job;help;restart'= {
        }
        &'nomad;job;help;scaling-events'= {
        }
        &'nomad;job;help;help'= {
        }
        &'nomad;node'= {
            cand -h 'Print help'
            cand --help 'Print help'
            cand status 'Display status information about nodes'
            cand drain 'Toggle drain mode on a given node'
            cand eligibility 'Toggle scheduling eligibility for a given node'
            cand meta 'Interact with node metadata'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'nomad;node;status'= {
            cand --address 'The address of the Nomad server'
            cand --region 'The region of the Nomad servers to forward commands to'
            cand --namespace 'The target namespace for queries and actions bound to a namespace'
            cand --token 'The SecretID of an ACL token to use to authenticate API requests with'
            cand -t 'Format and display the output using a Go template'
            cand --per-page 'How many nodes to show per page'
            cand --page-token 'Where to start pagination'
            cand --filter 'Only show results matching this filter expression (go-bexpr, e.g. `Status == "ready"`)'
            cand --self 'Query the status of the local node'
            cand --short 'Display short output. Used only when a single node is being queried'
            cand --verbose 'Display full information'
            cand --allocs 'Display a count of running allocations for each node'
            cand --quiet 'Only print the node IDs'
            cand --json 'Output the node in its JSON format'
            cand --os 'Display each node''s operating system name'
            cand --stats 'Display detailed resource usage statistics of the node'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'nomad;node;drain'= {
            cand --address 'The address of the Nomad server'
            cand --region 'The region of the Nomad servers to forward commands to'
            cand --namespace 'The target namespace for queries and actions bound to a namespace'
            cand --token 'The SecretID of an ACL token to use to authenticate API requests with'
            cand --deadline 'Set the deadline by which all allocations must be moved off the node (default 1h)'
            cand -m 'Message for the drain update operation (stored in the node''s LastDrain.Meta)'
            cand --meta 'Custom metadata for the drain operation, as key=value (repeatable)'
            cand --enable 'Enable draining on the specified node'
            cand --disable 'Disable draining on the specified node'
            cand --no-deadline 'No deadline: allocations are moved only as their migrate blocks allow'
            cand --force 'Force remove allocations off the node immediately'
            cand --detach 'Return immediately instead of monitoring the drain'
            cand --monitor 'Enter monitor mode directly without modifying the drain status'
            cand --ignore-system 'Do not drain system job allocations from the node'
            cand --keep-ineligible 'Do not update the node''s scheduling eligibility when the drain is disabled'
            cand --self 'Drain the local node'
            cand --yes 'Automatic yes to prompts'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'nomad;node;eligibility'= {
            cand --address 'The address of the Nomad server'
            cand --region 'The region of the Nomad servers to forward commands to'
            cand --namespace 'The target namespace for queries and actions bound to a namespace'
            cand --token 'The SecretID of an ACL token to use to authenticate API requests with'
            cand --enable 'Enable scheduling eligibility'
            cand --disable 'Disable scheduling eligibility'
            cand --self 'Set the eligibility of the local node'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'nomad;node;meta'= {
            cand -h 'Print help'
            cand --help 'Print help'
            cand apply 'Modify node metadata'
            cand read 'Read node metadata'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'nomad;node;meta;apply'= {
            cand --address 'The address of the Nomad server'
            cand --region 'The region of the Nomad servers to forward commands to'
            cand --namespace 'The target namespace for queries and actions bound to a namespace'
            cand --token 'The SecretID of an ACL token to use to authenticate API requests with'
            cand --node-id 'Updates metadata on the specified node (default: the agent''s own)'
            cand --unset 'Comma separated keys to unset'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'nomad;node;meta;read'= {
            cand --address 'The address of the Nomad server'
            cand --region 'The region of the Nomad servers to forward commands to'
            cand --namespace 'The target namespace for queries and actions bound to a namespace'
            cand --token 'The SecretID of an ACL token to use to authenticate API requests with'
            cand --node-id 'Reads metadata from the specified node (default: the agent''s own)'
            cand -t 'Format and display the output using a Go template'
            cand --json 'Output the metadata in its JSON format'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'nomad;node;meta;help'= {
            cand apply 'Modify node metadata'
            cand read 'Read node metadata'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'nomad;node;meta;help;apply'= {
        }
        &'nomad;node;meta;help;read'= {
        }
        &'nomad;node;meta;help;help'= {
        }
        &'nomad;node;help'= {
            cand status 'Display status information about nodes'
            cand drain 'Toggle drain mode on a given node'
            cand eligibility 'Toggle scheduling eligibility for a given node'
            cand meta 'Interact with node metadata'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'nomad;node;help;status'= {
        }
        &'nomad;node;help;drain'= {
        }
        &'nomad;node;help;eligibility'= {
        }
        &'nomad;node;help;meta'= {
            cand apply 'Modify node metadata'
            cand read 'Read node metadata'
        }
        &'nomad;node;help;meta;apply'= {
        }
        &'nomad;node;help;meta;read'= {
        }
        &'nomad;node;help;help'= {
        }
        &'nomad;server'= {
            cand -h 'Print help'
            cand --help 'Print help'
            cand members 'Display a list of known servers and their status'
            cand join 'Join server nodes together'
            cand force-leave 'Force a server into the ''left'' state'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'nomad;server;members'= {
            cand --address 'The address of the Nomad server'
            cand --region 'The region of the Nomad servers to forward commands to'
            cand --namespace 'The target namespace for queries and actions bound to a namespace'
            cand --token 'The SecretID of an ACL token to use to authenticate API requests with'
            cand -t 'Format and display the output using a Go template'
            cand --detailed 'Show detailed information about each member (same as -verbose)'
            cand --verbose 'Show detailed information about each member'
            cand --json 'Output the latest information about each member in a JSON format'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'nomad;server;join'= {
            cand --address 'The address of the Nomad server'
            cand --region 'The region of the Nomad servers to forward commands to'
            cand --namespace 'The target namespace for queries and actions bound to a namespace'
            cand --token 'The SecretID of an ACL token to use to authenticate API requests with'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'nomad;server;force-leave'= {
            cand --address 'The address of the Nomad server'
            cand --region 'The region of the Nomad servers to forward commands to'
            cand --namespace 'The target namespace for queries and actions bound to a namespace'
            cand --token 'The SecretID of an ACL token to use to authenticate API requests with'
            cand --prune 'Removes failed or left server from the member list immediately. If member is actually still alive, it will eventually rejoin the cluster again'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'nomad;server;help'= {
            cand members 'Display a list of known servers and their status'
            cand join 'Join server nodes together'
            cand force-leave 'Force a server into the ''left'' state'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'nomad;server;help;members'= {
        }
        &'nomad;server;help;join'= {
        }
        &'nomad;server;help;force-leave'= {
        }
        &'nomad;server;help;help'= {
        }
        &'nomad;service'= {
            cand -h 'Print help'
            cand --help 'Print help'
            cand list 'Display all registered Nomad services'
            cand info 'Display an individual Nomad service registration'
            cand delete 'Deregister a registered Nomad service'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'nomad;service;list'= {
            cand --address 'The address of the Nomad server'
            cand --region 'The region of the Nomad servers to forward commands to'
            cand --namespace 'The target namespace for queries and actions bound to a namespace'
            cand --token 'The SecretID of an ACL token to use to authenticate API requests with'
            cand -t 'Format and display the output using a Go template'
            cand --json 'Output the service registrations in their JSON format'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'nomad;service;info'= {
            cand --address 'The address of the Nomad server'
            cand --region 'The region of the Nomad servers to forward commands to'
            cand --namespace 'The target namespace for queries and actions bound to a namespace'
            cand --token 'The SecretID of an ACL token to use to authenticate API requests with'
            cand -t 'Format and display the output using a Go template'
            cand --filter 'Only show results matching this filter expression (go-bexpr, e.g. `Status == "ready"`)'
            cand --json 'Output the service registrations in their JSON format'
            cand --verbose 'Display full information of each registration'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'nomad;service;delete'= {
            cand --address 'The address of the Nomad server'
            cand --region 'The region of the Nomad servers to forward commands to'
            cand --namespace 'The target namespace for queries and actions bound to a namespace'
            cand --token 'The SecretID of an ACL token to use to authenticate API requests with'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'nomad;service;help'= {
            cand list 'Display all registered Nomad services'
            cand info 'Display an individual Nomad service registration'
            cand delete 'Deregister a registered Nomad service'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'nomad;service;help;list'= {
        }
        &'nomad;service;help;info'= {
        }
        &'nomad;service;help;delete'= {
        }
        &'nomad;service;help;help'= {
        }
        &'nomad;operator'= {
            cand -h 'Print help'
            cand --help 'Print help'
            cand api 'Query Nomad''s HTTP API like curl'
            cand scheduler 'Provides access to the scheduler configuration'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'nomad;operator;api'= {
            cand --address 'The address of the Nomad server'
            cand --region 'The region of the Nomad servers to forward commands to'
            cand --namespace 'The target namespace for queries and actions bound to a namespace'
            cand --token 'The SecretID of an ACL token to use to authenticate API requests with'
            cand -X 'The HTTP method (default GET, or POST when a body comes on stdin)'
            cand -H 'A request header, `Key: Value` (repeatable)'
            cand --filter 'A filter expression, added as `?filter=`'
            cand --dryrun 'Print the equivalent curl command instead of sending the request'
            cand --verbose 'Print the request and response headers on stderr'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'nomad;operator;scheduler'= {
            cand -h 'Print help'
            cand --help 'Print help'
            cand get-config 'Display the current scheduler configuration'
            cand set-config 'Modify the current scheduler configuration'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'nomad;operator;scheduler;get-config'= {
            cand --address 'The address of the Nomad server'
            cand --region 'The region of the Nomad servers to forward commands to'
            cand --namespace 'The target namespace for queries and actions bound to a namespace'
            cand --token 'The SecretID of an ACL token to use to authenticate API requests with'
            cand -t 'Format and display the output using a Go template'
            cand --json 'Output the scheduler config in its JSON format'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'nomad;operator;scheduler;set-config'= {
            cand --address 'The address of the Nomad server'
            cand --region 'The region of the Nomad servers to forward commands to'
            cand --namespace 'The target namespace for queries and actions bound to a namespace'
            cand --token 'The SecretID of an ACL token to use to authenticate API requests with'
            cand --check-index 'Only update if the passed modify index matches the current server side version'
            cand --scheduler-algorithm 'Whether the scheduler binpacks or spreads allocations ("binpack" or "spread")'
            cand --memory-oversubscription 'Let tasks exceed their reserved memory up to memory_max'
            cand --reject-job-registration 'Reject job registration, dispatch and scale'
            cand --pause-eval-broker 'Pause the eval broker so workers receive no new work'
            cand --preempt-batch-scheduler 'Preemption for batch jobs'
            cand --preempt-service-scheduler 'Preemption for service jobs'
            cand --preempt-sysbatch-scheduler 'Preemption for system batch jobs'
            cand --preempt-system-scheduler 'Preemption for system jobs'
            cand --node-limit-for-feasibility-checks 'Feasible nodes considered for jobs with spread or affinity (default 100)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'nomad;operator;scheduler;help'= {
            cand get-config 'Display the current scheduler configuration'
            cand set-config 'Modify the current scheduler configuration'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'nomad;operator;scheduler;help;get-config'= {
        }
        &'nomad;operator;scheduler;help;set-config'= {
        }
        &'nomad;operator;scheduler;help;help'= {
        }
        &'nomad;operator;help'= {
            cand api 'Query Nomad''s HTTP API like curl'
            cand scheduler 'Provides access to the scheduler configuration'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'nomad;operator;help;api'= {
        }
        &'nomad;operator;help;scheduler'= {
            cand get-config 'Display the current scheduler configuration'
            cand set-config 'Modify the current scheduler configuration'
        }
        &'nomad;operator;help;scheduler;get-config'= {
        }
        &'nomad;operator;help;scheduler;set-config'= {
        }
        &'nomad;operator;help;help'= {
        }
        &'nomad;status'= {
            cand --address 'The address of the Nomad server'
            cand --region 'The region of the Nomad servers to forward commands to'
            cand --namespace 'The target namespace for queries and actions bound to a namespace'
            cand --token 'The SecretID of an ACL token to use to authenticate API requests with'
            cand --verbose 'Display full information'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'nomad;system'= {
            cand -h 'Print help'
            cand --help 'Print help'
            cand gc 'Run the system garbage collection process'
            cand reconcile 'Perform system reconciliation tasks'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'nomad;system;gc'= {
            cand --address 'The address of the Nomad server'
            cand --region 'The region of the Nomad servers to forward commands to'
            cand --namespace 'The target namespace for queries and actions bound to a namespace'
            cand --token 'The SecretID of an ACL token to use to authenticate API requests with'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'nomad;system;reconcile'= {
            cand -h 'Print help'
            cand --help 'Print help'
            cand summaries 'Reconciles the summaries of all registered jobs'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'nomad;system;reconcile;summaries'= {
            cand --address 'The address of the Nomad server'
            cand --region 'The region of the Nomad servers to forward commands to'
            cand --namespace 'The target namespace for queries and actions bound to a namespace'
            cand --token 'The SecretID of an ACL token to use to authenticate API requests with'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'nomad;system;reconcile;help'= {
            cand summaries 'Reconciles the summaries of all registered jobs'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'nomad;system;reconcile;help;summaries'= {
        }
        &'nomad;system;reconcile;help;help'= {
        }
        &'nomad;system;help'= {
            cand gc 'Run the system garbage collection process'
            cand reconcile 'Perform system reconciliation tasks'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'nomad;system;help;gc'= {
        }
        &'nomad;system;help;reconcile'= {
            cand summaries 'Reconciles the summaries of all registered jobs'
        }
        &'nomad;system;help;reconcile;summaries'= {
        }
        &'nomad;system;help;help'= {
        }
        &'nomad;version'= {
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'nomad;run'= {
            cand --address 'The address of the Nomad server'
            cand --region 'The region of the Nomad servers to forward commands to'
            cand --namespace 'The target namespace for queries and actions bound to a namespace'
            cand --token 'The SecretID of an ACL token to use to authenticate API requests with'
            cand --check-index 'If set, the job is only registered or updated if the passed job modify index matches the server side version. A value of zero registers the job only if it does not exist'
            cand --eval-priority 'Override the priority of the evaluation this registration creates'
            cand --var 'Variable for template, can be used multiple times (key=value)'
            cand --var-file 'Path to an HCL2 file containing user variables, can be used multiple times'
            cand --detach 'Return immediately instead of entering monitor mode'
            cand --verbose 'Display full information'
            cand --output 'Output the JSON that would be submitted to the HTTP API without submitting the job'
            cand --preserve-counts 'Keep the current counts of task groups the running job already has'
            cand --policy-override 'Override soft-mandatory Sentinel policies (accepted; there are none here)'
            cand --json 'Parses the job file as JSON. If the outer object has a Job field, such as from "nomad job inspect" or "nomad run -output", the value of the field is used as the job'
            cand --hcl2-strict 'Accepted for compatibility (`-hcl2-strict=false` is common in scripts); the parser is always strict about unknown blocks and attributes'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'nomad;stop'= {
            cand --address 'The address of the Nomad server'
            cand --region 'The region of the Nomad servers to forward commands to'
            cand --namespace 'The target namespace for queries and actions bound to a namespace'
            cand --token 'The SecretID of an ACL token to use to authenticate API requests with'
            cand --eval-priority 'Override the priority of the evaluation that stops the job'
            cand --detach 'Return immediately instead of entering monitor mode'
            cand --purge 'Purge is used to stop the job and purge it from the system'
            cand --yes 'Automatic yes to prompts'
            cand --global 'Stop a multi-region job in all its regions'
            cand --verbose 'Display full information'
            cand --no-shutdown-delay 'Stop the allocations without waiting out their shutdown_delay'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'nomad;start'= {
            cand --address 'The address of the Nomad server'
            cand --region 'The region of the Nomad servers to forward commands to'
            cand --namespace 'The target namespace for queries and actions bound to a namespace'
            cand --token 'The SecretID of an ACL token to use to authenticate API requests with'
            cand --detach 'Return immediately instead of entering monitor mode. After the job start command is submitted, a new evaluation ID is printed to the screen, which can be used to examine the evaluation using the eval-status command'
            cand --verbose 'Display full information'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'nomad;init'= {
            cand --short 'If the short flag is set, a minimal jobspec without comments is emitted'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'nomad;inspect'= {
            cand --address 'The address of the Nomad server'
            cand --region 'The region of the Nomad servers to forward commands to'
            cand --namespace 'The target namespace for queries and actions bound to a namespace'
            cand --token 'The SecretID of an ACL token to use to authenticate API requests with'
            cand -t 'Format and display the output using a Go template'
            cand --version 'Display the job at this version instead of the latest'
            cand --json 'Output the job in its JSON format (the bare job, without the {"Job": ...} wrapper)'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'nomad;validate'= {
            cand --address 'The address of the Nomad server'
            cand --region 'The region of the Nomad servers to forward commands to'
            cand --namespace 'The target namespace for queries and actions bound to a namespace'
            cand --token 'The SecretID of an ACL token to use to authenticate API requests with'
            cand --var 'Variable for template, can be used multiple times (key=value)'
            cand --var-file 'Path to an HCL2 file containing user variables, can be used multiple times'
            cand --json 'Parses the job file as JSON. If the outer object has a Job field, such as from "nomad job inspect" or "nomad run -output", the value of the field is used as the job'
            cand --hcl2-strict 'Accepted for compatibility (`-hcl2-strict=false` is common in scripts); the parser is always strict about unknown blocks and attributes'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'nomad;logs'= {
            cand --address 'The address of the Nomad server'
            cand --region 'The region of the Nomad servers to forward commands to'
            cand --namespace 'The target namespace for queries and actions bound to a namespace'
            cand --token 'The SecretID of an ACL token to use to authenticate API requests with'
            cand -n 'Sets the tail location in best-efforted number of lines relative to the end'
            cand -c 'Sets the tail location in number of bytes relative to the end'
            cand --task 'Sets the task to view the logs of'
            cand --group 'With -job, pick the allocation from this task group'
            cand -f 'Causes the output to not stop, and instead continuously output new lines'
            cand --stderr 'Display stderr logs'
            cand --stdout 'Display stdout logs (the default)'
            cand --tail 'Show the logs contents with offsets relative to the end of the logs'
            cand --verbose 'Show full information'
            cand --job 'Use a random allocation from the specified job ID or prefix'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'nomad;exec'= {
            cand --address 'The address of the Nomad server'
            cand --region 'The region of the Nomad servers to forward commands to'
            cand --namespace 'The target namespace for queries and actions bound to a namespace'
            cand --token 'The SecretID of an ACL token to use to authenticate API requests with'
            cand --group 'With -job, only allocations of this task group'
            cand -i 'Pass stdin to the container (default true)'
            cand -t 'Allocate a pseudo-tty (default: whether stdin is a terminal)'
            cand -e 'Escape character for closing the session ("none" to disable)'
            cand --task 'The task to exec into (optional when the group has one task)'
            cand --job 'Use a random allocation from the specified job ID or prefix'
            cand --verbose 'verbose'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'nomad;fs'= {
            cand --address 'The address of the Nomad server'
            cand --region 'The region of the Nomad servers to forward commands to'
            cand --namespace 'The target namespace for queries and actions bound to a namespace'
            cand --token 'The SecretID of an ACL token to use to authenticate API requests with'
            cand --group 'With -job, only allocations of this task group'
            cand -n 'Sets the tail location in best-efforted number of lines relative to the end'
            cand -c 'Sets the tail location in number of bytes relative to the end'
            cand -H 'Machine friendly output: sizes in bytes'
            cand --verbose 'Show full information'
            cand --job 'Use a random allocation from the specified job ID or prefix'
            cand --stat 'Show file stat information instead of displaying the file, or listing the directory'
            cand -f 'Causes the output to not stop, and instead continuously output new lines'
            cand --tail 'Show the files contents with offsets relative to the end of the file'
            cand -h 'Print help'
            cand --help 'Print help'
        }
        &'nomad;help'= {
            cand agent 'Runs a Nomad agent'
            cand agent-info 'Display status information about the local agent'
            cand alloc 'Interact with allocations'
            cand deployment 'Interact with deployments'
            cand eval 'Interact with evaluations'
            cand fmt 'Rewrites Nomad config and job files to canonical format'
            cand job 'Interact with jobs'
            cand node 'Interact with nodes'
            cand server 'Interact with servers'
            cand service 'Interact with registered services'
            cand operator 'Provides cluster-level tools for Nomad operators'
            cand status 'Display the status output for a resource'
            cand system 'Interact with the system API'
            cand version 'Prints the Nomad version'
            cand run 'Run a new job or update an existing job (alias of `job run`)'
            cand stop 'Stop a running job (alias of `job stop`)'
            cand start 'Start a stopped job (alias of `job start`)'
            cand init 'init'
            cand inspect 'Flags accepted by every command that talks to an agent'
            cand validate 'How `job run`/`job validate` get a job from a file (Nomad''s `JobGetter`)'
            cand logs 'Flags accepted by every command that talks to an agent'
            cand exec 'Execute commands in task (alias of `alloc exec`)'
            cand fs 'Flags accepted by every command that talks to an agent'
            cand help 'Print this message or the help of the given subcommand(s)'
        }
        &'nomad;help;agent'= {
        }
        &'nomad;help;agent-info'= {
        }
        &'nomad;help;alloc'= {
            cand status 'Display allocation status information and metadata'
            cand logs 'Streams the logs of a task'
            cand fs 'Inspect the contents of an allocation directory'
            cand exec 'Execute commands in task'
            cand checks 'Outputs service health check status information'
            cand stop 'Stop and reschedule a running allocation'
            cand restart 'Restart a running allocation'
            cand signal 'Signal a running allocation'
        }
        &'nomad;help;alloc;status'= {
        }
        &'nomad;help;alloc;logs'= {
        }
        &'nomad;help;alloc;fs'= {
        }
        &'nomad;help;alloc;exec'= {
        }
        &'nomad;help;alloc;checks'= {
        }
        &'nomad;help;alloc;stop'= {
        }
        &'nomad;help;alloc;restart'= {
        }
        &'nomad;help;alloc;signal'= {
        }
        &'nomad;help;deployment'= {
            cand list 'List all deployments'
            cand status 'Display the status of a deployment'
            cand promote 'Promote canaries in a deployment'
            cand fail 'Manually fail a deployment'
            cand pause 'Pause a deployment'
            cand resume 'Resume a paused deployment'
            cand unblock 'Unblock a blocked deployment'
        }
        &'nomad;help;deployment;list'= {
        }
        &'nomad;help;deployment;status'= {
        }
        &'nomad;help;deployment;promote'= {
        }
        &'nomad;help;deployment;fail'= {
        }
        &'nomad;help;deployment;pause'= {
        }
        &'nomad;help;deployment;resume'= {
        }
        &'nomad;help;deployment;unblock'= {
        }
        &'nomad;help;eval'= {
            cand delete 'Delete evaluations'
            cand list 'List the set of evaluations processed by Nomad'
            cand status 'Display evaluation status and placement failure reasons'
        }
        &'nomad;help;eval;delete'= {
        }
        &'nomad;help;eval;list'= {
        }
        &'nomad;help;eval;status'= {
        }
        &'nomad;help;fmt'= {
        }
        &'nomad;help;job'= {
            cand init 'Create an example job file'
            cand run 'Run a new job or update an existing job'
            cand status 'Display status information about a job'
            cand stop 'Stop a running job'
            cand start 'Start a stopped job'
            cand tag 'Manage job version tags'
            cand inspect 'Inspect a submitted job'
            cand validate 'Check a job specification for syntax errors'
            cand allocs 'List allocations for a job'
            cand history 'Display all tracked versions of a job'
            cand promote 'Promote a job''s canaries'
            cand revert 'Revert to a prior version of the job'
            cand plan 'Invoke a dry-run of the scheduler for a job'
            cand dispatch 'Dispatch an instance of a parameterized job'
            cand periodic 'Interact with periodic jobs'
            cand scale 'Change the count of a job''s task group'
            cand eval 'Force an evaluation of the job'
            cand deployments 'List deployments for a job'
            cand restart 'Restart or reschedule allocations for a job'
            cand scaling-events 'Display the most recent scaling events for a job'
        }
        &'nomad;help;job;init'= {
        }
        &'nomad;help;job;run'= {
        }
        &'nomad;help;job;status'= {
        }
        &'nomad;help;job;stop'= {
        }
        &'nomad;help;job;start'= {
        }
        &'nomad;help;job;tag'= {
            cand apply 'Save a job version to prevent it from being garbage-collected and allow it to be diffed and reverted by name'
            cand unset 'Remove a tag from a job version'
        }
        &'nomad;help;job;tag;apply'= {
        }
        &'nomad;help;job;tag;unset'= {
        }
        &'nomad;help;job;inspect'= {
        }
        &'nomad;help;job;validate'= {
        }
        &'nomad;help;job;allocs'= {
        }
        &'nomad;help;job;history'= {
        }
        &'nomad;help;job;promote'= {
        }
        &'nomad;help;job;revert'= {
        }
        &'nomad;help;job;plan'= {
        }
        &'nomad;help;job;dispatch'= {
        }
        &'nomad;help;job;periodic'= {
            cand force 'Force the launch of a periodic job'
        }
        &'nomad;help;job;periodic;force'= {
        }
        &'nomad;help;job;scale'= {
        }
        &'nomad;help;job;eval'= {
        }
        &'nomad;help;job;deployments'= {
        }
        &'nomad;help;job;restart'= {
        }
        &'nomad;help;job;scaling-events'= {
        }
        &'nomad;help;node'= {
            cand status 'Display status information about nodes'
            cand drain 'Toggle drain mode on a given node'
            cand eligibility 'Toggle scheduling eligibility for a given node'
            cand meta 'Interact with node metadata'
        }
        &'nomad;help;node;status'= {
        }
        &'nomad;help;node;drain'= {
        }
        &'nomad;help;node;eligibility'= {
        }
        &'nomad;help;node;meta'= {
            cand apply 'Modify node metadata'
            cand read 'Read node metadata'
        }
        &'nomad;help;node;meta;apply'= {
        }
        &'nomad;help;node;meta;read'= {
        }
        &'nomad;help;server'= {
            cand members 'Display a list of known servers and their status'
            cand join 'Join server nodes together'
            cand force-leave 'Force a server into the ''left'' state'
        }
        &'nomad;help;server;members'= {
        }
        &'nomad;help;server;join'= {
        }
        &'nomad;help;server;force-leave'= {
        }
        &'nomad;help;service'= {
            cand list 'Display all registered Nomad services'
            cand info 'Display an individual Nomad service registration'
            cand delete 'Deregister a registered Nomad service'
        }
        &'nomad;help;service;list'= {
        }
        &'nomad;help;service;info'= {
        }
        &'nomad;help;service;delete'= {
        }
        &'nomad;help;operator'= {
            cand api 'Query Nomad''s HTTP API like curl'
            cand scheduler 'Provides access to the scheduler configuration'
        }
        &'nomad;help;operator;api'= {
        }
        &'nomad;help;operator;scheduler'= {
            cand get-config 'Display the current scheduler configuration'
            cand set-config 'Modify the current scheduler configuration'
        }
        &'nomad;help;operator;scheduler;get-config'= {
        }
        &'nomad;help;operator;scheduler;set-config'= {
        }
        &'nomad;help;status'= {
        }
        &'nomad;help;system'= {
            cand gc 'Run the system garbage collection process'
            cand reconcile 'Perform system reconciliation tasks'
        }
        &'nomad;help;system;gc'= {
        }
        &'nomad;help;system;reconcile'= {
            cand summaries 'Reconciles the summaries of all registered jobs'
        }
        &'nomad;help;system;reconcile;summaries'= {
        }
        &'nomad;help;version'= {
        }
        &'nomad;help;run'= {
        }
        &'nomad;help;stop'= {
        }
        &'nomad;help;start'= {
        }
        &'nomad;help;init'= {
        }
        &'nomad;help;inspect'= {
        }
        &'nomad;help;validate'= {
        }
        &'nomad;help;logs'= {
        }
        &'nomad;help;exec'= {
        }
        &'nomad;help;fs'= {
        }
        &'nomad;help;help'= {
        }
    ]
    $completions[$command]
}
