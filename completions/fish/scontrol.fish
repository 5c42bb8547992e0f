# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_scontrol_global_optspecs
    string join \n a/all M/cluster= d/details federation F/future h/help hide local o/oneliner Q/quiet sibling u/uid= v/verbose V/version
end

function __fish_scontrol_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_scontrol_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_scontrol_using_subcommand
    set -l cmd (__fish_scontrol_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c scontrol -n "__fish_scontrol_needs_command" -s M -l cluster -l clusters -d 'Equivalent to "cluster" command. Implies --local. NOTE: SlurmDBD must be up.' -r
complete -c scontrol -n "__fish_scontrol_needs_command" -s u -l uid -d 'Update job as user "uid" instead of the invoking user.' -r -f -a "(__fish_complete_users)"
complete -c scontrol -n "__fish_scontrol_needs_command" -s a -l all -d 'Equivalent to "all" command'
complete -c scontrol -n "__fish_scontrol_needs_command" -s d -l details -d 'Equivalent to "details" command'
complete -c scontrol -n "__fish_scontrol_needs_command" -l federation -d 'Report federated job information if a member of a one'
complete -c scontrol -n "__fish_scontrol_needs_command" -s F -l future -d 'Report information about nodes in "FUTURE" state.'
complete -c scontrol -n "__fish_scontrol_needs_command" -s h -l help -l usage -d 'Equivalent to "help" command'
complete -c scontrol -n "__fish_scontrol_needs_command" -l hide -d 'Equivalent to "hide" command'
complete -c scontrol -n "__fish_scontrol_needs_command" -l local -d 'Report information only about jobs on the local cluster. Overrides --federation.'
complete -c scontrol -n "__fish_scontrol_needs_command" -s o -l oneliner -d 'Equivalent to "oneliner" command'
complete -c scontrol -n "__fish_scontrol_needs_command" -s Q -l quiet -d 'Equivalent to "quiet" command'
complete -c scontrol -n "__fish_scontrol_needs_command" -l sibling -d 'Report information about all sibling jobs on a federated cluster. Implies --federation option.'
complete -c scontrol -n "__fish_scontrol_needs_command" -s v -l verbose -d 'Equivalent to "verbose" command'
complete -c scontrol -n "__fish_scontrol_needs_command" -s V -l version -d 'Equivalent to "version" command'
complete -c scontrol -n "__fish_scontrol_needs_command" -f -a "abort" -d 'shutdown slurm controller immediately generating a core file. [bai-slurm: rejected with an error (not supported yet)]'
complete -c scontrol -n "__fish_scontrol_needs_command" -f -a "all" -d 'display information about all partitions, including hidden partitions.'
complete -c scontrol -n "__fish_scontrol_needs_command" -f -a "cancel_reboot" -d 'Cancel pending reboot on nodes. [bai-slurm: rejected with an error (not supported yet)]'
complete -c scontrol -n "__fish_scontrol_needs_command" -f -a "cluster" -d 'cluster to issue commands to. Default is current cluster. cluster with no name will reset to default. NOTE: SlurmDBD must be up. [bai-slurm: rejected with an error (not supported yet)]'
complete -c scontrol -n "__fish_scontrol_needs_command" -f -a "completing" -d 'display jobs in completing state along with their completing or down nodes [bai-slurm: rejected with an error (not supported yet)]'
complete -c scontrol -n "__fish_scontrol_needs_command" -f -a "create" -d 'create a new partition or reservation [bai-slurm: rejected with an error (not supported yet)]'
complete -c scontrol -n "__fish_scontrol_needs_command" -f -a "details" -d 'evokes additional details from the "show" command'
complete -c scontrol -n "__fish_scontrol_needs_command" -f -a "delete" -d 'delete the specified partition or reservation [bai-slurm: rejected with an error (not supported yet)]'
complete -c scontrol -n "__fish_scontrol_needs_command" -f -a "errnumstr" -d 'Given a Slurm error number, return a descriptive string. [bai-slurm: rejected with an error (not supported yet)]'
complete -c scontrol -n "__fish_scontrol_needs_command" -f -a "exit" -d 'terminate scontrol'
complete -c scontrol -n "__fish_scontrol_needs_command" -f -a "help" -d 'print this description of use.'
complete -c scontrol -n "__fish_scontrol_needs_command" -f -a "hold" -d 'prevent specified job from starting. <job_list> is either a space separate list of job IDs or job names'
complete -c scontrol -n "__fish_scontrol_needs_command" -f -a "holdu" -d 'place user hold on specified job (see hold)'
complete -c scontrol -n "__fish_scontrol_needs_command" -f -a "hide" -d 'do not display information about hidden partitions'
complete -c scontrol -n "__fish_scontrol_needs_command" -f -a "listpids" -d 'List pids associated with the given jobid, or all jobs if no id is given (This will only display the processes on the node which the scontrol is ran on, and only for those processes spawned by Slurm and their descendants) [bai-slurm: rejected with an error (not supported yet)]'
complete -c scontrol -n "__fish_scontrol_needs_command" -f -a "notify" -d 'send message to specified job'
complete -c scontrol -n "__fish_scontrol_needs_command" -f -a "oneliner" -d 'report output one record per line.'
complete -c scontrol -n "__fish_scontrol_needs_command" -f -a "pidinfo" -d 'return slurm job information for given pid. [bai-slurm: rejected with an error (not supported yet)]'
complete -c scontrol -n "__fish_scontrol_needs_command" -f -a "ping" -d 'print status of slurmctld daemons. [bai-slurm: rejected with an error (not supported yet)]'
complete -c scontrol -n "__fish_scontrol_needs_command" -f -a "quiet" -d 'print no messages other than error messages.'
complete -c scontrol -n "__fish_scontrol_needs_command" -f -a "quit" -d 'terminate this command.'
complete -c scontrol -n "__fish_scontrol_needs_command" -f -a "reconfigure" -d 're-read configuration files. [bai-slurm: rejected with an error (not supported yet)]'
complete -c scontrol -n "__fish_scontrol_needs_command" -f -a "release" -d 'permit specified job to start (see hold)'
complete -c scontrol -n "__fish_scontrol_needs_command" -f -a "requeue" -d 're-queue a batch job'
complete -c scontrol -n "__fish_scontrol_needs_command" -f -a "requeuehold" -d 're-queue and hold a batch'
complete -c scontrol -n "__fish_scontrol_needs_command" -f -a "resume" -d 'resume previously suspended job (see suspend) [bai-slurm: rejected with an error (not supported yet)]'
complete -c scontrol -n "__fish_scontrol_needs_command" -f -a "show" -d 'display state of identified entity, default is all records.'
complete -c scontrol -n "__fish_scontrol_needs_command" -f -a "suspend" -d 'susend specified job (see resume) [bai-slurm: rejected with an error (not supported yet)]'
complete -c scontrol -n "__fish_scontrol_needs_command" -f -a "top" -d 'Put specified job first in queue for user [bai-slurm: rejected with an error (not supported yet)]'
complete -c scontrol -n "__fish_scontrol_needs_command" -f -a "takeover" -d 'ask slurm backup controller to take over [bai-slurm: rejected with an error (not supported yet)]'
complete -c scontrol -n "__fish_scontrol_needs_command" -f -a "uhold" -d 'place user hold on specified job (see hold)'
complete -c scontrol -n "__fish_scontrol_needs_command" -f -a "update" -d 'update job, node, partition, reservation, or step'
complete -c scontrol -n "__fish_scontrol_needs_command" -f -a "verbose" -d 'enable detailed logging.'
complete -c scontrol -n "__fish_scontrol_needs_command" -f -a "version" -d 'display tool version number.'
complete -c scontrol -n "__fish_scontrol_needs_command" -f -a "wait_job" -d 'wait until the nodes allocated to the job are booted and usable'
# bai-slurm: job ids and partition names come from `bai-slurm __complete`.
complete -c scontrol -n '__fish_seen_subcommand_from hold holdu notify release requeue requeuehold resume suspend top uhold wait_job' -f -a '(bai-slurm __complete jobs 2>/dev/null)'
complete -c scontrol -n '__fish_seen_subcommand_from show; and __fish_seen_subcommand_from job' -f -a '(bai-slurm __complete jobs 2>/dev/null)'
complete -c scontrol -n '__fish_seen_subcommand_from show; and __fish_seen_subcommand_from partition' -f -a '(bai-slurm __complete partitions 2>/dev/null)'
