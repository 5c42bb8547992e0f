# Print an optspec for argparse to handle cmd's options that are independent of any subcommand.
function __fish_bai_slurm_global_optspecs
    string join \n list h/help V/version
end

function __fish_bai_slurm_needs_command
    # Figure out if the current invocation already has a command.
    set -l cmd (commandline -opc)
    set -e cmd[1]
    argparse -s (__fish_bai_slurm_global_optspecs) -- $cmd 2>/dev/null
    or return
    if set -q argv[1]
        # Also print the command, so this can be used to figure out what it is.
        echo $argv[1]
        return 1
    end
    return 0
end

function __fish_bai_slurm_using_subcommand
    set -l cmd (__fish_bai_slurm_needs_command)
    test -z "$cmd"
    and return 1
    contains -- $cmd[1] $argv
end

complete -c bai-slurm -n "__fish_bai_slurm_needs_command" -l list -d 'list the commands'
complete -c bai-slurm -n "__fish_bai_slurm_needs_command" -s h -l help -d 'Print help (see more with \'--help\')'
complete -c bai-slurm -n "__fish_bai_slurm_needs_command" -s V -l version -d 'Print version'
complete -c bai-slurm -n "__fish_bai_slurm_needs_command" -f -a "install-links" -d 'Make the Slurm command names links to this program in DIR (files that are not links are never replaced), and install the man pages and the bash, zsh and fish completions where man and each shell find them for DIR on PATH (DIR/../share/man, the shells\' user or system directories)'
complete -c bai-slurm -n "__fish_bai_slurm_needs_command" -f -a "doctor" -d 'Show the backend and configuration in force, and check that they work'
complete -c bai-slurm -n "__fish_bai_slurm_needs_command" -f -a "login" -d 'Check your Backend.AI keypair against the configured endpoint and store it: in the OS keyring (Secret Service) where there is one, else in ~/.config/bai-slurm/credentials (mode 0600); --no-verify stores it unchecked. The secret key is read from stdin (one line; the access key first unless --access-key is given), or asked for without echo on a terminal; never from the command line'
complete -c bai-slurm -n "__fish_bai_slurm_needs_command" -f -a "logout" -d 'Remove the keypair login stored for the configured endpoint (keyring and file)'
complete -c bai-slurm -n "__fish_bai_slurm_needs_command" -f -a "translate" -d 'Print, as JSON, the job sbatch would submit: the job spec read from the options, #SBATCH directives and SBATCH_* variables exactly as sbatch reads them, checked as a submission is, and on the Backend.AI backend the session requests sbatch would send (with the job id it would get). Nothing is submitted. Values of variables named like credentials (SECRET, PASSWORD, TOKEN) are shown as (hidden)'
complete -c bai-slurm -n "__fish_bai_slurm_needs_command" -f -a "sbatch" -d 'Submit a batch script to Slurm; the same as running sbatch (see sbatch(1))'
complete -c bai-slurm -n "__fish_bai_slurm_needs_command" -f -a "squeue" -d 'View information about jobs in the scheduling queue; the same as running squeue (see squeue(1))'
complete -c bai-slurm -n "__fish_bai_slurm_needs_command" -f -a "scancel" -d 'Signal or cancel jobs, job arrays or job steps; the same as running scancel (see scancel(1))'
complete -c bai-slurm -n "__fish_bai_slurm_needs_command" -f -a "srun" -d 'Run parallel jobs; the same as running srun (see srun(1))'
complete -c bai-slurm -n "__fish_bai_slurm_needs_command" -f -a "salloc" -d 'Obtain a Slurm job allocation; the same as running salloc (see salloc(1))'
complete -c bai-slurm -n "__fish_bai_slurm_needs_command" -f -a "sinfo" -d 'View information about nodes and partitions; the same as running sinfo (see sinfo(1))'
complete -c bai-slurm -n "__fish_bai_slurm_needs_command" -f -a "sacct" -d 'Display accounting data for jobs and job steps; the same as running sacct (see sacct(1))'
complete -c bai-slurm -n "__fish_bai_slurm_needs_command" -f -a "scontrol" -d 'View or modify Slurm configuration and state; the same as running scontrol (see scontrol(1))'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand install-links" -l links-only -d 'only the links, no man pages or completions'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand install-links" -s h -l help -d 'Print help'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand doctor" -s h -l help -d 'Print help'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand login" -l access-key -d 'the access key (else asked for, or the first line of stdin)' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand login" -l no-verify -d 'store the keypair without checking it against the manager'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand login" -s h -l help -d 'Print help'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand logout" -s h -l help -d 'Print help'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand translate" -s h -l help -d 'Print help'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -s A -l account -d 'charge job to specified account' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l acctg-freq -d 'accounting and profiling sampling intervals. Supported datatypes: task=<interval> energy=<interval> network=<interval> filesystem=<interval> [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -s a -l array -d 'job array index values' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l batch -d 'node features the batch step needs [bai-slurm: rejected with an error (node features are not supported)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -s b -l begin -d 'defer job until HH:MM MM/DD/YY' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l bb -d 'burst buffer specifications [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l bbf -d 'burst buffer specification file [bai-slurm: ignored with a warning (has no effect here)]' -r -F
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l cluster-constraint -d 'specify a list of cluster constraints [bai-slurm: ignored with a warning (has no meaning with one cluster)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -s D -l chdir -d 'set working directory for batch script' -r -f -a "(__fish_complete_directories)"
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l cluster -d 'the same as --clusters' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -s M -l clusters -d 'Comma separated list of clusters to issue commands to. Default is current cluster. Name of \'all\' will submit to run on all clusters. NOTE: SlurmDBD must up.' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l comment -d 'arbitrary comment' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l container -d 'Path to OCI container bundle [bai-slurm: rejected with an error (OCI bundles are not supported, use --container-image)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l context -d 'SELinux context of the job [bai-slurm: rejected with an error (SELinux contexts are not supported)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -s C -l constraint -d 'specify a list of constraints' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -s S -l core-spec -d 'count of reserved cores [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l cores-per-socket -d 'number of cores per socket to allocate [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l cpu-freq -d 'requested cpu frequency (and governor) [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l cpus-per-gpu -d 'number of CPUs required per allocated GPU' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -s c -l cpus-per-task -d 'number of cpus required per task' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l deadline -d 'remove the job if no ending possible before this deadline (start > (deadline - time[-min]))' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l delay-boot -d 'delay boot for desired node features [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -s d -l dependency -d 'defer job until condition on jobid is satisfied' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -s m -l distribution -d 'distribution method for processes to nodes (type = block|cyclic|arbitrary) [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -s e -l error -d 'file for batch script\'s standard error' -r -F
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -s x -l exclude -d 'exclude a specific list of hosts' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l exclusive -d 'allocate nodes in exclusive mode when cpu consumable resource is enabled' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l export -d 'specify environment variables to export' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l export-file -d 'specify environment variables file or file descriptor to export' -r -F
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -s B -l extra-node-info -d '--extra-node-info=S[:C[:T]] combine request of sockets per node, cores per socket and threads per core. Specify an asterisk (*) as a placeholder, a minimum value, or a min-max range. [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l get-user-env -d 'load environment from local cluster [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l gid -d 'group ID to run job as (user root only) [bai-slurm: rejected with an error (jobs always run as the submitting user)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l gpu-bind -d 'task to gpu binding options [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l gpu-freq -d 'frequency and voltage of GPUs [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -s G -l gpus -d 'count of GPUs required for the job' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l gpus-per-node -d 'number of GPUs required per allocated node' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l gpus-per-socket -d 'number of GPUs required per allocated socket [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l gpus-per-task -d 'number of GPUs required per spawned task' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l gres -d 'required generic resources' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l gres-flags -d 'flags related to GRES management [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l hint -d 'bind tasks according to application hints (compute_bound, memory_bound, multithread, nomultithread) [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -s i -l input -d 'file for batch script\'s standard input' -r -F
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -s J -l job-name -d 'name of job' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l kill-on-invalid-dep -d 'yes|no: cancel the job if its dependency can never be met' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -s L -l licenses -d 'required license, comma separated' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l mail-type -d 'notify on state change: BEGIN, END, FAIL or ALL [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l mail-user -d 'who to send email notification for job state changes [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l mcs-label -d 'mcs label if mcs plugin mcs/group is used [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l mem -d 'minimum amount of real memory' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l mem-bind -d 'bind memory to locality domains [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l mem-per-cpu -d 'maximum amount of real memory per allocated cpu required by the job.' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l mem-per-gpu -d 'real memory required per allocated GPU' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l mincpus -d 'minimum number of logical processors (threads) per node' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l network -d 'network resources the job needs [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l nice -d 'decrease scheduling priority by value' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -s k -l no-kill -d 'do not kill job on node failure [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -s F -l nodefile -d 'request a specific list of hosts [bai-slurm: rejected with an error (node lists come from the platform)]' -r -F
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -s w -l nodelist -d 'request a specific list of hosts' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -s N -l nodes -d 'number of nodes on which to run (N = min[-max])' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -s n -l ntasks -d 'number of tasks to run' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l ntasks-per-core -d 'number of tasks to invoke on each core [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l ntasks-per-gpu -d 'number of tasks to invoke for each GPU [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l ntasks-per-node -d 'number of tasks to invoke on each node' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l ntasks-per-socket -d 'number of tasks to invoke on each socket [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l ntasks-per-tres -d 'number of tasks to invoke for each GPU (or other trackable resource) [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l open-mode -d 'append|truncate: how to open the output and error files' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -s o -l output -d 'file for batch script\'s standard output' -r -F
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -s p -l partition -d 'partition requested' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l power -d 'power management options [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l prefer -d 'node features to prefer, but not require [bai-slurm: ignored with a warning (has no meaning without node features)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l priority -d 'set the priority of the job to value' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l profile -d 'enable acct_gather_profile for detailed data value is all or none or any combination of energy, lustre, network or task [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l propagate -d 'propagate all [or specific list of] rlimits' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -s q -l qos -d 'quality of service' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l reservation -d 'allocate resources from named reservation' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l signal -d 'send signal when time limit within time seconds' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l sockets-per-node -d 'number of sockets per node to allocate [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l switches -d 'Optimum switches and max time to wait for optimum [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l tasks-per-node -d 'the same as --ntasks-per-node' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l thread-spec -d 'count of reserved threads [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l threads-per-core -d 'number of threads per core to allocate [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -s t -l time -d 'time limit' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l time-min -d 'minimum time limit (if distinct)' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l tmp -d 'minimum amount of temporary disk [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l uid -d 'user ID to run job as (user root only) [bai-slurm: rejected with an error (jobs always run as the submitting user)]' -r -f -a "(__fish_complete_users)"
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l wait-all-nodes -d '0|1: start the job only when all its nodes are ready [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l wckey -d 'wckey to run job under [bai-slurm: ignored with a warning (has nowhere to be accounted)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l wrap -d 'string] wrap command string in a sh script and submit' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l container-image -d '[pyxis] the image to run the job in (enroot URI or name)' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l container-mounts -d '[pyxis] bind mounts: SRC:DST[:FLAGS][,SRC:DST...]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l container-workdir -d '[pyxis] working directory inside the container' -r -f -a "(__fish_complete_directories)"
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l container-name -d '[pyxis] name the container, to reuse it across steps' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l container-save -d '[pyxis] save the container state to a squashfs file [bai-slurm: ignored with a warning (images are not saved back)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l container-env -d '[pyxis] variables to pass into the container as they are [bai-slurm: honoured, the default (every exported variable already overrides the image\'s)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l contiguous -d 'demand a contiguous range of nodes [bai-slurm: ignored with a warning (has no effect here)]'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -s h -l help -d 'show this help message'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -s H -l hold -d 'submit job in held state'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l ignore-pbs -d 'Ignore #PBS and #BSUB options in the batch script'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l no-requeue -d 'if set, do not permit the job to be requeued'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -s O -l overcommit -d 'overcommit resources [bai-slurm: ignored with a warning (has no effect here)]'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -s s -l oversubscribe -d 'over subscribe resources with other jobs [bai-slurm: ignored with a warning (has no effect here)]'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l parsable -d 'outputs only the jobid and cluster name (if present), separated by semicolon, only on successful submission.'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -s Q -l quiet -d 'quiet mode (suppress informational messages)'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l reboot -d 'reboot compute nodes before starting job [bai-slurm: ignored with a warning (has no effect here)]'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l requeue -d 'if set, permit the job to be requeued'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l spread-job -d 'spread job across as many nodes as possible [bai-slurm: ignored with a warning (has no effect here)]'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l test-only -d 'validate the request and estimate when the job would start, without submitting it'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l use-min-nodes -d 'if a range of node counts is given, prefer the smaller count [bai-slurm: ignored with a warning (has no effect here)]'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -s v -l verbose -d 'verbose mode (multiple -v\'s increase verbosity)'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -s V -l version -d 'output version information and exit'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l usage -d 'display brief usage message'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -s W -l wait -d 'wait for completion of submitted job'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l container-mount-home -d '[pyxis] bind mount the user\'s home directory [bai-slurm: ignored with a warning (mounts nothing by itself: the home directory is mounted only when it is on configured storage)]'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l no-container-mount-home -d '[pyxis] do not bind mount the user\'s home directory [bai-slurm: ignored with a warning (mounts nothing away: the storage holding the working directory is mounted in any case)]'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l container-remap-root -d '[pyxis] run as root inside the container [bai-slurm: ignored with a warning (jobs run as the submitting user)]'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l no-container-remap-root -d '[pyxis] do not run as root inside the container [bai-slurm: honoured, the default (jobs run as the submitting user)]'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l container-entrypoint -d '[pyxis] run the image\'s entrypoint [bai-slurm: ignored with a warning (the image entrypoint is not run)]'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l no-container-entrypoint -d '[pyxis] do not run the image\'s entrypoint [bai-slurm: honoured, the default (the image entrypoint is not run)]'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l container-writable -d '[pyxis] make the container file system writable [bai-slurm: honoured, the default (container file systems are writable)]'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sbatch" -l container-readonly -d '[pyxis] make the container file system read-only [bai-slurm: ignored with a warning (container file systems are writable)]'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand squeue" -s A -l accounts -d 'comma separated list of accounts to view, default is all accounts' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand squeue" -s O -l Format -d 'format specification' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand squeue" -s o -l format -d 'format specification' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand squeue" -s i -l iterate -d 'specify an interation period' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand squeue" -s j -l jobs -d 'comma separated list of jobs IDs to view, default is all' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand squeue" -s L -l licenses -d 'comma separated list of license names to view' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand squeue" -s M -l clusters -l cluster -d 'cluster to issue commands to. Default is current cluster. cluster with no name will reset to default. Implies --local.' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand squeue" -s n -l name -d 'comma separated list of job names to view' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand squeue" -s w -l nodelist -l node -l nodes -d 'list of nodes to view, default is all nodes' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand squeue" -s p -l partitions -d 'comma separated list of partitions to view, default is all partitions' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand squeue" -s q -l qos -d 'comma separated list of qos\'s to view, default is all qos\'s' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand squeue" -s R -l reservation -d 'reservation to view, default is all' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand squeue" -s S -l sort -d 'comma separated list of fields to sort on' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand squeue" -s s -l steps -d 'comma separated list of job steps to view, default is all' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand squeue" -s t -l states -d 'comma separated list of states to view, default is pending and running, \'--states=all\' reports all states' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand squeue" -s u -l user -l users -d 'comma separated list of users to view' -r -f -a "(__fish_complete_users)"
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand squeue" -s U -d 'the same as -A (an old spelling)' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand squeue" -s a -l all -d 'display jobs in hidden partitions'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand squeue" -s r -l array -d 'display one job array element per line'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand squeue" -l array-unique -d 'display one unique pending job array element per line'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand squeue" -l federation -d 'Report federated information if a member of one'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand squeue" -l help -d 'show this help message'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand squeue" -l hide -d 'do not display jobs in hidden partitions'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand squeue" -l local -d 'Report information only about jobs on the local cluster. Overrides --federation.'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand squeue" -s l -l long -d 'long report'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand squeue" -l me -d 'only the jobs of the user who runs the command'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand squeue" -l noconvert -d 'don\'t convert units from their original type (e.g. 2048M won\'t be converted to 2G).'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand squeue" -s h -l noheader -d 'no headers on output'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand squeue" -s P -l priority -d 'list pending jobs once per partition, in priority order'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand squeue" -l sibling -l sib -d 'Report information about all sibling jobs on a federated cluster. Implies --federation.'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand squeue" -l start -d 'print expected start times of pending jobs'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand squeue" -l usage -d 'display a brief summary of squeue options'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand squeue" -s v -l verbose -d 'verbosity level'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand squeue" -s V -l version -d 'output version information and exit'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand squeue" -l json -d 'Produce JSON output'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand squeue" -l yaml -d 'Produce YAML output'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand scancel" -s A -l account -d 'act only on jobs charging this account' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand scancel" -s M -l clusters -l cluster -d 'clusters to issue commands to. NOTE: SlurmDBD must be up.' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand scancel" -s n -l name -l jobname -d 'act only on jobs with this name' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand scancel" -s w -l nodelist -d 'act only on jobs on these nodes' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand scancel" -s p -l partition -d 'act only on jobs in this partition' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand scancel" -s q -l qos -d 'act only on jobs with this quality of service' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand scancel" -s R -l reservation -d 'act only on jobs with this reservation' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand scancel" -l sibling -d 'remove an active sibling job from a federated job' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand scancel" -s s -l signal -d 'signal to send to job, default is SIGKILL' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand scancel" -s t -l state -d 'act only on jobs in this state. Valid job states are PENDING, RUNNING and SUSPENDED' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand scancel" -s u -l user -d 'act only on jobs of this user' -r -f -a "(__fish_complete_users)"
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand scancel" -l wckey -d 'act only on jobs with this workload charactization key' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand scancel" -s b -l batch -d 'signal batch shell for specified job'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand scancel" -l ctld -d 'send the request to the controller rather than to the nodes'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand scancel" -s f -l full -d 'signal batch shell and all steps for specified job'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand scancel" -l help -d 'show this help message'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand scancel" -s H -l hurry -d 'avoid burst buffer stage out'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand scancel" -s i -l interactive -d 'require response from user for each job'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand scancel" -l me -d 'only the jobs of the user who runs the command'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand scancel" -s Q -l quiet -d 'disable warnings'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand scancel" -l usage -d 'display brief usage message'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand scancel" -s v -l verbose -d 'verbosity level'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand scancel" -s V -l version -d 'output version information and exit'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l accel-bind -d 'bind tasks to accelerators (g, m, n, v) [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -s A -l account -d 'charge job to specified account' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l acctg-freq -d 'accounting and profiling sampling intervals. Supported datatypes: task=<interval> energy=<interval> network=<interval> filesystem=<interval> [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l bcast -d 'Copy executable file to compute nodes [bai-slurm: ignored with a warning (has no effect here: programs are read where they are)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l bcast-exclude -d 'Shared object directory paths to exclude [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -s b -l begin -d 'defer job until HH:MM MM/DD/YY' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l bb -d 'burst buffer specifications [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l bbf -d 'burst buffer specification file [bai-slurm: ignored with a warning (has no effect here)]' -r -F
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l cluster-constraint -d 'specify a list of cluster-constraints [bai-slurm: ignored with a warning (has no meaning with one cluster)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -s D -l chdir -d 'change remote current working directory' -r -f -a "(__fish_complete_directories)"
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l cluster -d 'the same as --clusters' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -s M -l clusters -d 'Comma separated list of clusters to issue commands to. Default is current cluster. Name of \'all\' will submit to run on all clusters. NOTE: SlurmDBD must up.' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l comment -d 'arbitrary comment' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l compress -d 'data compression library used with --bcast [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l container -d 'Path to OCI container bundle [bai-slurm: rejected with an error (OCI bundles are not supported, use --container-image)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l context -d 'SELinux context of the job [bai-slurm: rejected with an error (SELinux contexts are not supported)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -s C -l constraint -d 'specify a list of constraints' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -s S -l core-spec -d 'count of reserved cores [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l cores-per-socket -d 'number of cores per socket to allocate [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l cpu-bind -d 'bind tasks to CPUs [bai-slurm: ignored with a warning (does nothing here: tasks are not bound to CPUs)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l cpu_bind -d 'the same as --cpu-bind [bai-slurm: ignored with a warning (does nothing here: tasks are not bound to CPUs)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l cpu-freq -d 'requested cpu frequency (and governor) [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l cpus-per-gpu -d 'number of CPUs required per allocated GPU' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -s c -l cpus-per-task -d 'number of cpus required per task' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l deadline -d 'remove the job if no ending possible before this deadline (start > (deadline - time[-min]))' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l delay-boot -d 'delay boot for desired node features [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -s d -l dependency -d 'defer job until condition on jobid is satisfied' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -s m -l distribution -d 'distribution method for processes to nodes (type = block|cyclic|arbitrary)' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l epilog -d 'run "program" after launching job step' -r -f -a "(__fish_complete_command)"
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -s e -l error -d 'location of stderr redirection' -r -F
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -s x -l exclude -d 'exclude a specific list of hosts' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l exclusive -d 'for job allocation, this allocates nodes in in exclusive mode for job steps, this is equivalent to --exact' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l export -d 'environment variables passed to launcher with optional values or NONE (pass no variables)' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -s B -l extra-node-info -d '--extra-node-info=S[:C[:T]] combine request of sockets per node, cores per socket and threads per core. Specify an asterisk (*) as a placeholder, a minimum value, or a min-max range. [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l gid -d 'group ID to run job as (user root only) [bai-slurm: rejected with an error (jobs always run as the submitting user)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l gpu-bind -d 'task to gpu binding options [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l gpu-freq -d 'frequency and voltage of GPUs [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -s G -l gpus -d 'count of GPUs required for the job' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l gpus-per-node -d 'number of GPUs required per allocated node' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l gpus-per-socket -d 'number of GPUs required per allocated socket [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l gpus-per-task -d 'number of GPUs required per spawned task' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l gres -d 'required generic resources' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l gres-flags -d 'flags related to GRES management [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l het-group -d 'hetjob component allocation(s) in which to launch application [bai-slurm: rejected with an error (heterogeneous jobs are not supported)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l hint -d 'bind tasks according to application hints (compute_bound, memory_bound, multithread, nomultithread) [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -s I -l immediate -d 'exit if resources not available in "secs"' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -s i -l input -d 'location of stdin redirection' -r -F
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l jobid -d 'run under already allocated job' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -s J -l job-name -d 'name of job' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -s K -l kill-on-bad-exit -d 'kill the job if any task terminates with a non-zero exit code' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -s L -l licenses -d 'required license, comma separated' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l mail-type -d 'notify on state change: BEGIN, END, FAIL or ALL [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l mail-user -d 'who to send email notification for job state changes [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -s T -l threads -d 'set srun launch fanout [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l mcs-label -d 'mcs label if mcs plugin mcs/group is used [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l mem -d 'minimum amount of real memory' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l mem-bind -d 'bind memory to locality domains [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l mem-per-cpu -d 'maximum amount of real memory per allocated cpu required by the job.' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l mem-per-gpu -d 'real memory required per allocated GPU' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l mincpus -d 'minimum number of logical processors (threads) per node' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l mpi -d 'type of MPI being used [bai-slurm: ignored with a warning (has no effect here: every step offers PMI-1 (MPICH\'s simple PMI), see docs/COMPAT.md)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l msg-timeout -d 'seconds to wait for messages from the job step [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l network -d 'network resources the job needs [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l nice -d 'decrease scheduling priority by value' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -s k -l no-kill -d 'do not kill job on node failure [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -s F -l nodefile -d 'request a specific list of hosts [bai-slurm: rejected with an error (node lists come from the platform)]' -r -F
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -s w -l nodelist -d 'request a specific list of hosts' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -s N -l nodes -d 'number of nodes on which to run (N = min[-max])' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -s n -l ntasks -d 'number of tasks to run' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l ntasks-per-core -d 'number of tasks to invoke on each core [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l ntasks-per-gpu -d 'number of tasks to invoke for each GPU [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l ntasks-per-node -d 'number of tasks to invoke on each node' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l ntasks-per-socket -d 'number of tasks to invoke on each socket [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l ntasks-per-tres -d 'number of tasks to invoke for each GPU (or other trackable resource) [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l open-mode -d 'append|truncate: how to open the output and error files' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -s o -l output -d 'location of stdout redirection' -r -F
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l overlap -d 'Allow other steps to overlap this step [bai-slurm: ignored with a warning (has no effect here: steps share the job\'s CPUs)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l pack-group -d 'the same as --het-group [bai-slurm: rejected with an error (heterogeneous jobs are not supported)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -s p -l partition -d 'partition requested' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l power -d 'power management options [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l prefer -d 'node features to prefer, but not require [bai-slurm: ignored with a warning (has no meaning without node features)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l priority -d 'set the priority of the job to value' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l profile -d 'enable acct_gather_profile for detailed data value is all or none or any combination of energy, lustre, network or task [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l prolog -d 'run "program" before launching job step' -r -f -a "(__fish_complete_command)"
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l propagate -d 'propagate all [or specific list of] rlimits' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -s q -l qos -d 'quality of service' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -s r -l relative -d 'run job step relative to node n of allocation [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l reservation -d 'allocate resources from named reservation' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l resv-ports -d 'reserve communication ports [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l send-libs -d 'autodetect and broadcast shared objects [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l signal -d 'send signal when time limit within time seconds' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l slurmd-debug -d 'slurmd debug level [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l sockets-per-node -d 'number of sockets per node to allocate [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l switches -d 'Optimum switches and max time to wait for optimum [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l task-epilog -d 'run "program" after launching task' -r -f -a "(__fish_complete_command)"
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l task-prolog -d 'run "program" before launching task' -r -f -a "(__fish_complete_command)"
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l tasks-per-node -d 'the same as --ntasks-per-node' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l thread-spec -d 'count of reserved threads [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l threads-per-core -d 'number of threads per core to allocate [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -s t -l time -d 'time limit' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l time-min -d 'minimum time limit (if distinct)' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l tmp -d 'minimum amount of temporary disk [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l uid -d 'user ID to run job as (user root only) [bai-slurm: rejected with an error (jobs always run as the submitting user)]' -r -f -a "(__fish_complete_users)"
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -s W -l wait -d 'seconds to wait after first task exits before killing job' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l wckey -d 'wckey to run job under [bai-slurm: ignored with a warning (has nowhere to be accounted)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l container-image -d '[pyxis] the image to run the job in (enroot URI or name)' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l container-mounts -d '[pyxis] bind mounts: SRC:DST[:FLAGS][,SRC:DST...]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l container-workdir -d '[pyxis] working directory inside the container' -r -f -a "(__fish_complete_directories)"
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l container-name -d '[pyxis] name the container, to reuse it across steps' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l container-save -d '[pyxis] save the container state to a squashfs file [bai-slurm: ignored with a warning (images are not saved back)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l container-env -d '[pyxis] variables to pass into the container as they are [bai-slurm: honoured, the default (every exported variable already overrides the image\'s)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l contiguous -d 'demand a contiguous range of nodes [bai-slurm: ignored with a warning (has no effect here)]'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l debugger-test -d 'debugger test mode [bai-slurm: rejected with an error (it needs a Slurm controller)]'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -s X -l disable-status -d 'Disable Ctrl-C status feature'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l exact -d 'use only the resources requested for the step (by default, all non-gres resources on each node in the allocation will be used in the step) [bai-slurm: ignored with a warning (has no effect here: steps share the job\'s CPUs)]'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -s h -l help -d 'show this help message'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -s H -l hold -d 'submit job in held state'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l interactive -d 'run the step in interactive mode [bai-slurm: rejected with an error (it needs a Slurm controller)]'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -s l -l label -d 'prepend task number to lines of stdout/err'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l multi-prog -d 'if set the program name specified is the configuration specification for multiple programs'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -s Z -l no-allocate -d 'don\'t allocate nodes (must supply -w) [bai-slurm: rejected with an error (it needs a Slurm controller)]'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -s O -l overcommit -d 'overcommit resources [bai-slurm: ignored with a warning (has no effect here)]'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -s s -l oversubscribe -d 'over-subscribe resources with other jobs [bai-slurm: ignored with a warning (has no effect here)]'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -s E -l preserve-env -d 'env vars for node and task counts override command-line flags [bai-slurm: ignored with a warning (is not implemented: step variables are always set)]'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l pty -d 'run task zero in pseudo terminal'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -s Q -l quiet -d 'quiet mode (suppress informational messages)'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l quit-on-interrupt -d 'quit on single Ctrl-C'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l reboot -d 'reboot block before starting job [bai-slurm: ignored with a warning (has no effect here)]'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l spread-job -d 'spread job across as many nodes as possible [bai-slurm: ignored with a warning (has no effect here)]'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l test-only -d 'validate the request and estimate when the job would start, without submitting it'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -s u -l unbuffered -d 'do not line-buffer stdout/err'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l use-min-nodes -d 'if a range of node counts is given, prefer the smaller count [bai-slurm: ignored with a warning (has no effect here)]'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -s v -l verbose -d 'verbose mode (multiple -v\'s increase verbosity)'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -s V -l version -d 'output version information and exit'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l usage -d 'display brief usage message'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l whole -d 'use whole nodes for the step, even when the step needs less [bai-slurm: ignored with a warning (has no effect here: steps share the job\'s CPUs)]'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l container-mount-home -d '[pyxis] bind mount the user\'s home directory [bai-slurm: ignored with a warning (mounts nothing by itself: the home directory is mounted only when it is on configured storage)]'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l no-container-mount-home -d '[pyxis] do not bind mount the user\'s home directory [bai-slurm: ignored with a warning (mounts nothing away: the storage holding the working directory is mounted in any case)]'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l container-remap-root -d '[pyxis] run as root inside the container [bai-slurm: ignored with a warning (jobs run as the submitting user)]'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l no-container-remap-root -d '[pyxis] do not run as root inside the container [bai-slurm: honoured, the default (jobs run as the submitting user)]'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l container-entrypoint -d '[pyxis] run the image\'s entrypoint [bai-slurm: ignored with a warning (the image entrypoint is not run)]'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l no-container-entrypoint -d '[pyxis] do not run the image\'s entrypoint [bai-slurm: honoured, the default (the image entrypoint is not run)]'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l container-writable -d '[pyxis] make the container file system writable [bai-slurm: honoured, the default (container file systems are writable)]'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand srun" -l container-readonly -d '[pyxis] make the container file system read-only [bai-slurm: ignored with a warning (container file systems are writable)]'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -s A -l account -d 'charge job to specified account' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -l acctg-freq -d 'accounting and profiling sampling intervals. Supported datatypes: task=<interval> energy=<interval> network=<interval> filesystem=<interval> [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -s b -l begin -d 'defer job until HH:MM MM/DD/YY' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -l bb -d 'burst buffer specifications [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -l bbf -d 'burst buffer specification file [bai-slurm: ignored with a warning (has no effect here)]' -r -F
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -l cluster-constraint -d 'specify a list of cluster constraints [bai-slurm: ignored with a warning (has no meaning with one cluster)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -s D -l chdir -d 'change working directory' -r -f -a "(__fish_complete_directories)"
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -l cluster -d 'the same as --clusters' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -s M -l clusters -d 'Comma separated list of clusters to issue commands to. Default is current cluster. Name of \'all\' will submit to run on all clusters. NOTE: SlurmDBD must up.' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -l comment -d 'arbitrary comment' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -l container -d 'Path to OCI container bundle [bai-slurm: rejected with an error (OCI bundles are not supported, use --container-image)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -l context -d 'SELinux context of the job [bai-slurm: rejected with an error (SELinux contexts are not supported)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -s C -l constraint -d 'specify a list of constraints' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -s S -l core-spec -d 'count of reserved cores [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -l cores-per-socket -d 'number of cores per socket to allocate [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -l cpu-freq -d 'requested cpu frequency (and governor) [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -l cpus-per-gpu -d 'number of CPUs required per allocated GPU' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -s c -l cpus-per-task -d 'number of cpus required per task' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -l deadline -d 'remove the job if no ending possible before this deadline (start > (deadline - time[-min]))' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -l delay-boot -d 'delay boot for desired node features [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -s d -l dependency -d 'defer job until condition on jobid is satisfied' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -s m -l distribution -d 'distribution method for processes to nodes (type = block|cyclic|arbitrary) [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -s x -l exclude -d 'exclude a specific list of hosts' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -l exclusive -d 'allocate nodes in exclusive mode when cpu consumable resource is enabled' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -s B -l extra-node-info -d '--extra-node-info=S[:C[:T]] combine request of sockets per node, cores per socket and threads per core. Specify an asterisk (*) as a placeholder, a minimum value, or a min-max range. [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -l get-user-env -d 'used by Moab. See srun man page. [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -l gid -d 'group ID to run job as (user root only) [bai-slurm: rejected with an error (jobs always run as the submitting user)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -l gpu-bind -d 'task to gpu binding options [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -l gpu-freq -d 'frequency and voltage of GPUs [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -s G -l gpus -d 'count of GPUs required for the job' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -l gpus-per-node -d 'number of GPUs required per allocated node' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -l gpus-per-socket -d 'number of GPUs required per allocated socket [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -l gpus-per-task -d 'number of GPUs required per spawned task' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -l gres -d 'required generic resources' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -l gres-flags -d 'flags related to GRES management [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -l hint -d 'bind tasks according to application hints (compute_bound, memory_bound, multithread, nomultithread) [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -s I -l immediate -d 'exit if resources not available in "secs"' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -s J -l job-name -d 'name of job' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -s K -l kill-command -d 'signal to send terminating job [bai-slurm: rejected with an error (it is not implemented yet)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -s L -l licenses -d 'required license, comma separated' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -l mail-type -d 'notify on state change: BEGIN, END, FAIL or ALL [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -l mail-user -d 'who to send email notification for job state changes [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -l mcs-label -d 'mcs label if mcs plugin mcs/group is used [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -l mem -d 'minimum amount of real memory' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -l mem-bind -d 'bind memory to locality domains [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -l mem-per-cpu -d 'maximum amount of real memory per allocated cpu required by the job.' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -l mem-per-gpu -d 'real memory required per allocated GPU' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -l mincpus -d 'minimum number of logical processors (threads) per node' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -l network -d 'network resources the job needs [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -l nice -d 'decrease scheduling priority by value' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -s k -l no-kill -d 'do not kill job on node failure [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -s F -l nodefile -d 'request a specific list of hosts [bai-slurm: rejected with an error (node lists come from the platform)]' -r -F
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -s w -l nodelist -d 'request a specific list of hosts' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -s N -l nodes -d 'number of nodes on which to run (N = min[-max])' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -s n -l ntasks -d 'number of processors required' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -l ntasks-per-core -d 'number of tasks to invoke on each core [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -l ntasks-per-gpu -d 'number of tasks to invoke for each GPU [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -l ntasks-per-node -d 'number of tasks to invoke on each node' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -l ntasks-per-socket -d 'number of tasks to invoke on each socket [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -l ntasks-per-tres -d 'number of tasks to invoke for each GPU (or other trackable resource) [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -s p -l partition -d 'partition requested' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -l power -d 'power management options [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -l prefer -d 'node features to prefer, but not require [bai-slurm: ignored with a warning (has no meaning without node features)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -l priority -d 'set the priority of the job to value' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -l profile -d 'enable acct_gather_profile for detailed data value is all or none or any combination of energy, lustre, network or task [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -s q -l qos -d 'quality of service' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -l reservation -d 'allocate resources from named reservation' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -l signal -d 'send signal when time limit within time seconds' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -l sockets-per-node -d 'number of sockets per node to allocate [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -l switches -d 'Optimum switches and max time to wait for optimum [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -l tasks-per-node -d 'the same as --ntasks-per-node' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -l thread-spec -d 'count of reserved threads [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -l threads-per-core -d 'number of threads per core to allocate [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -s t -l time -d 'time limit' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -l time-min -d 'minimum time limit (if distinct)' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -l tmp -d 'minimum amount of temporary disk [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -l uid -d 'user ID to run job as (user root only) [bai-slurm: rejected with an error (jobs always run as the submitting user)]' -r -f -a "(__fish_complete_users)"
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -l wait-all-nodes -d '0|1: start the job only when all its nodes are ready [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -l wckey -d 'wckey to run job under [bai-slurm: ignored with a warning (has nowhere to be accounted)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -l container-image -d '[pyxis] the image to run the job in (enroot URI or name)' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -l container-mounts -d '[pyxis] bind mounts: SRC:DST[:FLAGS][,SRC:DST...]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -l container-workdir -d '[pyxis] working directory inside the container' -r -f -a "(__fish_complete_directories)"
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -l container-name -d '[pyxis] name the container, to reuse it across steps' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -l container-save -d '[pyxis] save the container state to a squashfs file [bai-slurm: ignored with a warning (images are not saved back)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -l container-env -d '[pyxis] variables to pass into the container as they are [bai-slurm: honoured, the default (every exported variable already overrides the image\'s)]' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -l bell -d 'ring the terminal bell when the job is allocated [bai-slurm: ignored with a warning (has no effect here)]'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -l contiguous -d 'demand a contiguous range of nodes [bai-slurm: ignored with a warning (has no effect here)]'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -s h -l help -d 'show this help message'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -s H -l hold -d 'submit job in held state'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -l no-bell -d 'do NOT ring the terminal bell [bai-slurm: ignored with a warning (has no effect here)]'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -l no-shell -d 'exit after the allocation is granted, without running a command [bai-slurm: rejected with an error (it is not implemented yet)]'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -s O -l overcommit -d 'overcommit resources [bai-slurm: ignored with a warning (has no effect here)]'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -s s -l oversubscribe -d 'oversubscribe resources with other jobs [bai-slurm: ignored with a warning (has no effect here)]'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -s Q -l quiet -d 'quiet mode (suppress informational messages)'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -l reboot -d 'reboot compute nodes before starting job [bai-slurm: ignored with a warning (has no effect here)]'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -l spread-job -d 'spread job across as many nodes as possible [bai-slurm: ignored with a warning (has no effect here)]'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -l use-min-nodes -d 'if a range of node counts is given, prefer the smaller count [bai-slurm: ignored with a warning (has no effect here)]'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -s v -l verbose -d 'verbose mode (multiple -v\'s increase verbosity)'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -s V -l version -d 'output version information and exit'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -l usage -d 'display brief usage message'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -l container-mount-home -d '[pyxis] bind mount the user\'s home directory [bai-slurm: ignored with a warning (mounts nothing by itself: the home directory is mounted only when it is on configured storage)]'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -l no-container-mount-home -d '[pyxis] do not bind mount the user\'s home directory [bai-slurm: ignored with a warning (mounts nothing away: the storage holding the working directory is mounted in any case)]'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -l container-remap-root -d '[pyxis] run as root inside the container [bai-slurm: ignored with a warning (jobs run as the submitting user)]'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -l no-container-remap-root -d '[pyxis] do not run as root inside the container [bai-slurm: honoured, the default (jobs run as the submitting user)]'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -l container-entrypoint -d '[pyxis] run the image\'s entrypoint [bai-slurm: ignored with a warning (the image entrypoint is not run)]'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -l no-container-entrypoint -d '[pyxis] do not run the image\'s entrypoint [bai-slurm: honoured, the default (the image entrypoint is not run)]'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -l container-writable -d '[pyxis] make the container file system writable [bai-slurm: honoured, the default (container file systems are writable)]'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand salloc" -l container-readonly -d '[pyxis] make the container file system read-only [bai-slurm: ignored with a warning (container file systems are writable)]'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sinfo" -s i -l iterate -d 'specify an iteration period' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sinfo" -s M -l clusters -l cluster -d 'clusters to issue commands to. Implies --local. NOTE: SlurmDBD must be up.' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sinfo" -s n -l nodes -d 'report on specific node(s)' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sinfo" -s o -l format -d 'format specification' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sinfo" -s O -l Format -d 'long format specification' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sinfo" -s p -l partition -d 'report on specific partition' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sinfo" -s S -l sort -d 'comma separated list of fields to sort on' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sinfo" -s t -l states -d 'specify the what states of nodes to view' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sinfo" -s a -l all -d 'show all partitions (including hidden and those not accessible)'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sinfo" -s d -l dead -d 'show only non-responding nodes'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sinfo" -s e -l exact -d 'group nodes only on exact match of configuration'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sinfo" -l federation -d 'Report federated information if a member of one'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sinfo" -l help -d 'show this help message'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sinfo" -l hide -d 'do not show hidden or non-accessible partitions'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sinfo" -l local -d 'show only local cluster in a federation. Overrides --federation.'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sinfo" -s l -l long -d 'long output - displays more information'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sinfo" -l noconvert -d 'don\'t convert units from their original type (e.g. 2048M won\'t be converted to 2G).'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sinfo" -s h -l noheader -d 'no headers on output'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sinfo" -s N -l Node -d 'Node-centric format'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sinfo" -s r -l responding -d 'report only responding nodes'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sinfo" -s R -l list-reasons -d 'list reason nodes are down or drained'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sinfo" -s s -l summarize -d 'report state summary only'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sinfo" -s T -l reservation -d 'show only reservation information'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sinfo" -l usage -d 'display brief usage message'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sinfo" -s v -l verbose -d 'verbosity level'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sinfo" -s V -l version -d 'output version information and exit'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sinfo" -l json -d 'Produce JSON output'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sinfo" -l yaml -d 'Produce YAML output'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sacct" -s A -l accounts -d 'Use this comma separated list of accounts to select jobs to display. By default, all accounts are selected.' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sacct" -s C -l constraints -d 'only jobs that requested these node features (comma separated)' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sacct" -l delimiter -d 'ASCII characters used to separate the fields when specifying the -p or -P options. The default delimiter is a \'|\'. This options is ignored if -p or -P options are not specified.' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sacct" -s E -l endtime -d 'Select jobs eligible before this time. If states are given with the -s option return jobs in this state before this period.' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sacct" -s f -l file -d 'Read data from the specified file, rather than Slurm\'s current accounting log file. (Only appliciable when running the jobcomp/filetxt plugin.)' -r -F
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sacct" -s F -l flags -d 'only jobs with these scheduling flags (SchedSubmit, SchedMain, SchedBackfill, StartReceived)' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sacct" -s g -l gid -l group -d 'Use this comma separated list of gids or group names to select jobs to display. By default, all groups are selected.' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sacct" -l name -d 'Display jobs that have any of these name(s).' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sacct" -s i -l nnodes -d 'Return jobs which ran on this many nodes (N = min[-max])' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sacct" -s I -l ncpus -d 'Return jobs which ran on this many cpus (N = min[-max])' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sacct" -s j -l jobs -d 'Format is <job(.step)>. Display information about this job or comma-separated list of jobs. The default is all jobs. Adding .step will display the specific job step of that job. (A step id of \'batch\' will display the information about the batch step.)' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sacct" -s k -l timelimit-min -d 'Only send data about jobs with this timelimit. If used with timelimit_max this will be the minimum timelimit of the range. Default is no restriction.' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sacct" -s K -l timelimit-max -d 'Ignored by itself, but if timelimit_min is set this will be the maximum timelimit of the range. Default is no restriction.' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sacct" -s M -l clusters -l cluster -d 'Only send data about these clusters. Use "all" for all clusters.' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sacct" -s N -l nodelist -d 'Display jobs that ran on any of these nodes, can be one or more using a ranged string.' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sacct" -l units -d 'Display values in specified unit type. Takes precedence over --noconvert option.' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sacct" -s o -l format -l fields -d 'Comma separated list of fields. (use "--helpformat" for a list of available fields).' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sacct" -s q -l qos -d 'Only send data about jobs using these qos. Default is all.' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sacct" -s r -l partition -d 'Comma separated list of partitions to select jobs and job steps from. The default is all partitions.' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sacct" -l reason -d 'only jobs that were pending for one of these reasons (comma separated)' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sacct" -s s -l state -d 'Select jobs based on their current state or the state they were in during the time period given: running (r), completed (cd), failed (f), timeout (to), resizing (rs), deadline (dl) and node_fail (nf).' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sacct" -s S -l starttime -d 'Select jobs eligible after this time. Default is 00:00:00 of the current day, unless \'-s\' is set then the default is \'now\'.' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sacct" -s u -l uid -l user -d 'Use this comma separated list of uids or user names to select jobs to display. By default, the running user\'s uid is used.' -r -f -a "(__fish_complete_users)"
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sacct" -s W -l wckeys -d 'Only send data about these wckeys. Default is all.' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sacct" -l whole-hetjob -d 'If set to \'yes\' (or no argument), then information about all the heterogeneous components will be retrieved. If set to \'no\' only the specific filtered components will be retrieved. The default behavior without this option is that all components are retrieved only if filtering the leader component with --jobs.' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sacct" -s x -l associations -d 'Only send data about these association id. Default is all.' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sacct" -s a -l allusers -d 'Display jobs for all users. By default, only the current user\'s jobs are displayed. If ran by user root this is the default.'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sacct" -s X -l allocations -d 'Only show statistics relevant to the job allocation itself, not taking steps into consideration.'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sacct" -s b -l brief -d 'Equivalent to \'--format=jobstep,state,error\'.'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sacct" -s B -l batch-script -d 'Print batch script of job. NOTE: AccountingStoreFlags=job_script is required for this NOTE: Requesting specific job(s) with \'-j\' is required for this.'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sacct" -s c -l completion -d 'Use job completion instead of accounting data.'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sacct" -s D -l duplicates -d 'If Slurm job ids are reset, some job numbers may appear more than once referring to different jobs. Without this option only the most recent jobs will be displayed.'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sacct" -l federation -d 'Report jobs from federation if a member of a one.'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sacct" -s e -l helpformat -l help-fields -d 'Print a list of fields that can be specified with the \'--format\' option'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sacct" -l env-vars -d 'Print the environment to launch the batch script of job. NOTE: AccountingStoreFlags=job_env is required for this NOTE: Requesting specific job(s) with \'-j\' is required for this.'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sacct" -s h -l help -d 'Print this description of use.'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sacct" -l local -d 'Report information only about jobs on the local cluster. Overrides --federation.'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sacct" -s l -l long -d 'Equivalent to specifying \'--format=jobid,jobidraw,jobname,partition,maxvmsize, maxvmsizenode,maxvmsizetask,avevmsize,maxrss, maxrssnode,maxrsstask,averss,maxpages, maxpagesnode,maxpagestask,avepages,mincpu, mincpunode,mincputask,avecpu,ntasks,alloccpus, elapsed,state,exitcode,avecpufreq,reqcpufreqmin, reqcpufreqmax,reqcpufreqgov,reqmem, consumedenergy,maxdiskread,maxdiskreadnode, maxdiskreadtask,avediskread,maxdiskwrite, maxdiskwritenode,maxdiskwritetask,avediskwrite, reqtres,alloctres, tresusageinave,tresusageinmax,tresusageinmaxn, tresusageinmaxt,tresusageinmin,tresusageinminn, tresusageinmint,tresusageintot,tresusageoutmax, tresusageoutmaxn,tresusageoutmaxt, tresusageoutave,tresusageouttot'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sacct" -s L -l allclusters -d 'Display jobs ran on all clusters. By default, only jobs ran on the cluster from where sacct is called are displayed.'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sacct" -l noconvert -d 'Don\'t convert units from their original type (e.g. 2048M won\'t be converted to 2G).'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sacct" -s n -l noheader -d 'No header will be added to the beginning of output. The default is to print a header.'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sacct" -s p -l parsable -d 'output will be \'|\' delimited with a \'|\' at the end'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sacct" -s P -l parsable2 -d 'output will be \'|\' delimited without a \'|\' at the end'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sacct" -s T -l truncate -d 'Truncate time. So if a job started before --starttime the start time would be truncated to --starttime. The same for end time and --endtime.'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sacct" -l use-local-uid -d 'look user ids up locally by user name instead of using those stored in accounting'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sacct" -s U -l usage -d 'Display brief usage message.'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sacct" -s v -l verbose -d 'Primarily for debugging purposes, report the state of various variables during processing.'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sacct" -s V -l version -d 'Print version.'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sacct" -l json -d 'Produce JSON output'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sacct" -l yaml -d 'Produce YAML output'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand sacct" -s t -d 'the same as -X (an old spelling)'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand scontrol; and not __fish_seen_subcommand_from abort all cancel_reboot cluster completing create details delete errnumstr exit help hold holdu hide listpids notify oneliner pidinfo ping quiet quit reconfigure release requeue requeuehold resume show suspend top takeover uhold update verbose version wait_job" -s M -l cluster -l clusters -d 'Equivalent to "cluster" command. Implies --local. NOTE: SlurmDBD must be up.' -r
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand scontrol; and not __fish_seen_subcommand_from abort all cancel_reboot cluster completing create details delete errnumstr exit help hold holdu hide listpids notify oneliner pidinfo ping quiet quit reconfigure release requeue requeuehold resume show suspend top takeover uhold update verbose version wait_job" -s u -l uid -d 'Update job as user "uid" instead of the invoking user.' -r -f -a "(__fish_complete_users)"
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand scontrol; and not __fish_seen_subcommand_from abort all cancel_reboot cluster completing create details delete errnumstr exit help hold holdu hide listpids notify oneliner pidinfo ping quiet quit reconfigure release requeue requeuehold resume show suspend top takeover uhold update verbose version wait_job" -s a -l all -d 'Equivalent to "all" command'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand scontrol; and not __fish_seen_subcommand_from abort all cancel_reboot cluster completing create details delete errnumstr exit help hold holdu hide listpids notify oneliner pidinfo ping quiet quit reconfigure release requeue requeuehold resume show suspend top takeover uhold update verbose version wait_job" -s d -l details -d 'Equivalent to "details" command'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand scontrol; and not __fish_seen_subcommand_from abort all cancel_reboot cluster completing create details delete errnumstr exit help hold holdu hide listpids notify oneliner pidinfo ping quiet quit reconfigure release requeue requeuehold resume show suspend top takeover uhold update verbose version wait_job" -l federation -d 'Report federated job information if a member of a one'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand scontrol; and not __fish_seen_subcommand_from abort all cancel_reboot cluster completing create details delete errnumstr exit help hold holdu hide listpids notify oneliner pidinfo ping quiet quit reconfigure release requeue requeuehold resume show suspend top takeover uhold update verbose version wait_job" -s F -l future -d 'Report information about nodes in "FUTURE" state.'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand scontrol; and not __fish_seen_subcommand_from abort all cancel_reboot cluster completing create details delete errnumstr exit help hold holdu hide listpids notify oneliner pidinfo ping quiet quit reconfigure release requeue requeuehold resume show suspend top takeover uhold update verbose version wait_job" -s h -l help -l usage -d 'Equivalent to "help" command'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand scontrol; and not __fish_seen_subcommand_from abort all cancel_reboot cluster completing create details delete errnumstr exit help hold holdu hide listpids notify oneliner pidinfo ping quiet quit reconfigure release requeue requeuehold resume show suspend top takeover uhold update verbose version wait_job" -l hide -d 'Equivalent to "hide" command'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand scontrol; and not __fish_seen_subcommand_from abort all cancel_reboot cluster completing create details delete errnumstr exit help hold holdu hide listpids notify oneliner pidinfo ping quiet quit reconfigure release requeue requeuehold resume show suspend top takeover uhold update verbose version wait_job" -l local -d 'Report information only about jobs on the local cluster. Overrides --federation.'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand scontrol; and not __fish_seen_subcommand_from abort all cancel_reboot cluster completing create details delete errnumstr exit help hold holdu hide listpids notify oneliner pidinfo ping quiet quit reconfigure release requeue requeuehold resume show suspend top takeover uhold update verbose version wait_job" -s o -l oneliner -d 'Equivalent to "oneliner" command'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand scontrol; and not __fish_seen_subcommand_from abort all cancel_reboot cluster completing create details delete errnumstr exit help hold holdu hide listpids notify oneliner pidinfo ping quiet quit reconfigure release requeue requeuehold resume show suspend top takeover uhold update verbose version wait_job" -s Q -l quiet -d 'Equivalent to "quiet" command'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand scontrol; and not __fish_seen_subcommand_from abort all cancel_reboot cluster completing create details delete errnumstr exit help hold holdu hide listpids notify oneliner pidinfo ping quiet quit reconfigure release requeue requeuehold resume show suspend top takeover uhold update verbose version wait_job" -l sibling -d 'Report information about all sibling jobs on a federated cluster. Implies --federation option.'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand scontrol; and not __fish_seen_subcommand_from abort all cancel_reboot cluster completing create details delete errnumstr exit help hold holdu hide listpids notify oneliner pidinfo ping quiet quit reconfigure release requeue requeuehold resume show suspend top takeover uhold update verbose version wait_job" -s v -l verbose -d 'Equivalent to "verbose" command'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand scontrol; and not __fish_seen_subcommand_from abort all cancel_reboot cluster completing create details delete errnumstr exit help hold holdu hide listpids notify oneliner pidinfo ping quiet quit reconfigure release requeue requeuehold resume show suspend top takeover uhold update verbose version wait_job" -s V -l version -d 'Equivalent to "version" command'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand scontrol; and not __fish_seen_subcommand_from abort all cancel_reboot cluster completing create details delete errnumstr exit help hold holdu hide listpids notify oneliner pidinfo ping quiet quit reconfigure release requeue requeuehold resume show suspend top takeover uhold update verbose version wait_job" -f -a "abort" -d 'shutdown slurm controller immediately generating a core file. [bai-slurm: rejected with an error (not supported yet)]'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand scontrol; and not __fish_seen_subcommand_from abort all cancel_reboot cluster completing create details delete errnumstr exit help hold holdu hide listpids notify oneliner pidinfo ping quiet quit reconfigure release requeue requeuehold resume show suspend top takeover uhold update verbose version wait_job" -f -a "all" -d 'display information about all partitions, including hidden partitions.'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand scontrol; and not __fish_seen_subcommand_from abort all cancel_reboot cluster completing create details delete errnumstr exit help hold holdu hide listpids notify oneliner pidinfo ping quiet quit reconfigure release requeue requeuehold resume show suspend top takeover uhold update verbose version wait_job" -f -a "cancel_reboot" -d 'Cancel pending reboot on nodes. [bai-slurm: rejected with an error (not supported yet)]'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand scontrol; and not __fish_seen_subcommand_from abort all cancel_reboot cluster completing create details delete errnumstr exit help hold holdu hide listpids notify oneliner pidinfo ping quiet quit reconfigure release requeue requeuehold resume show suspend top takeover uhold update verbose version wait_job" -f -a "cluster" -d 'cluster to issue commands to. Default is current cluster. cluster with no name will reset to default. NOTE: SlurmDBD must be up. [bai-slurm: rejected with an error (not supported yet)]'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand scontrol; and not __fish_seen_subcommand_from abort all cancel_reboot cluster completing create details delete errnumstr exit help hold holdu hide listpids notify oneliner pidinfo ping quiet quit reconfigure release requeue requeuehold resume show suspend top takeover uhold update verbose version wait_job" -f -a "completing" -d 'display jobs in completing state along with their completing or down nodes [bai-slurm: rejected with an error (not supported yet)]'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand scontrol; and not __fish_seen_subcommand_from abort all cancel_reboot cluster completing create details delete errnumstr exit help hold holdu hide listpids notify oneliner pidinfo ping quiet quit reconfigure release requeue requeuehold resume show suspend top takeover uhold update verbose version wait_job" -f -a "create" -d 'create a new partition or reservation [bai-slurm: rejected with an error (not supported yet)]'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand scontrol; and not __fish_seen_subcommand_from abort all cancel_reboot cluster completing create details delete errnumstr exit help hold holdu hide listpids notify oneliner pidinfo ping quiet quit reconfigure release requeue requeuehold resume show suspend top takeover uhold update verbose version wait_job" -f -a "details" -d 'evokes additional details from the "show" command'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand scontrol; and not __fish_seen_subcommand_from abort all cancel_reboot cluster completing create details delete errnumstr exit help hold holdu hide listpids notify oneliner pidinfo ping quiet quit reconfigure release requeue requeuehold resume show suspend top takeover uhold update verbose version wait_job" -f -a "delete" -d 'delete the specified partition or reservation [bai-slurm: rejected with an error (not supported yet)]'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand scontrol; and not __fish_seen_subcommand_from abort all cancel_reboot cluster completing create details delete errnumstr exit help hold holdu hide listpids notify oneliner pidinfo ping quiet quit reconfigure release requeue requeuehold resume show suspend top takeover uhold update verbose version wait_job" -f -a "errnumstr" -d 'Given a Slurm error number, return a descriptive string. [bai-slurm: rejected with an error (not supported yet)]'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand scontrol; and not __fish_seen_subcommand_from abort all cancel_reboot cluster completing create details delete errnumstr exit help hold holdu hide listpids notify oneliner pidinfo ping quiet quit reconfigure release requeue requeuehold resume show suspend top takeover uhold update verbose version wait_job" -f -a "exit" -d 'terminate scontrol'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand scontrol; and not __fish_seen_subcommand_from abort all cancel_reboot cluster completing create details delete errnumstr exit help hold holdu hide listpids notify oneliner pidinfo ping quiet quit reconfigure release requeue requeuehold resume show suspend top takeover uhold update verbose version wait_job" -f -a "help" -d 'print this description of use.'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand scontrol; and not __fish_seen_subcommand_from abort all cancel_reboot cluster completing create details delete errnumstr exit help hold holdu hide listpids notify oneliner pidinfo ping quiet quit reconfigure release requeue requeuehold resume show suspend top takeover uhold update verbose version wait_job" -f -a "hold" -d 'prevent specified job from starting. <job_list> is either a space separate list of job IDs or job names'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand scontrol; and not __fish_seen_subcommand_from abort all cancel_reboot cluster completing create details delete errnumstr exit help hold holdu hide listpids notify oneliner pidinfo ping quiet quit reconfigure release requeue requeuehold resume show suspend top takeover uhold update verbose version wait_job" -f -a "holdu" -d 'place user hold on specified job (see hold)'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand scontrol; and not __fish_seen_subcommand_from abort all cancel_reboot cluster completing create details delete errnumstr exit help hold holdu hide listpids notify oneliner pidinfo ping quiet quit reconfigure release requeue requeuehold resume show suspend top takeover uhold update verbose version wait_job" -f -a "hide" -d 'do not display information about hidden partitions'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand scontrol; and not __fish_seen_subcommand_from abort all cancel_reboot cluster completing create details delete errnumstr exit help hold holdu hide listpids notify oneliner pidinfo ping quiet quit reconfigure release requeue requeuehold resume show suspend top takeover uhold update verbose version wait_job" -f -a "listpids" -d 'List pids associated with the given jobid, or all jobs if no id is given (This will only display the processes on the node which the scontrol is ran on, and only for those processes spawned by Slurm and their descendants) [bai-slurm: rejected with an error (not supported yet)]'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand scontrol; and not __fish_seen_subcommand_from abort all cancel_reboot cluster completing create details delete errnumstr exit help hold holdu hide listpids notify oneliner pidinfo ping quiet quit reconfigure release requeue requeuehold resume show suspend top takeover uhold update verbose version wait_job" -f -a "notify" -d 'send message to specified job'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand scontrol; and not __fish_seen_subcommand_from abort all cancel_reboot cluster completing create details delete errnumstr exit help hold holdu hide listpids notify oneliner pidinfo ping quiet quit reconfigure release requeue requeuehold resume show suspend top takeover uhold update verbose version wait_job" -f -a "oneliner" -d 'report output one record per line.'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand scontrol; and not __fish_seen_subcommand_from abort all cancel_reboot cluster completing create details delete errnumstr exit help hold holdu hide listpids notify oneliner pidinfo ping quiet quit reconfigure release requeue requeuehold resume show suspend top takeover uhold update verbose version wait_job" -f -a "pidinfo" -d 'return slurm job information for given pid. [bai-slurm: rejected with an error (not supported yet)]'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand scontrol; and not __fish_seen_subcommand_from abort all cancel_reboot cluster completing create details delete errnumstr exit help hold holdu hide listpids notify oneliner pidinfo ping quiet quit reconfigure release requeue requeuehold resume show suspend top takeover uhold update verbose version wait_job" -f -a "ping" -d 'print status of slurmctld daemons. [bai-slurm: rejected with an error (not supported yet)]'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand scontrol; and not __fish_seen_subcommand_from abort all cancel_reboot cluster completing create details delete errnumstr exit help hold holdu hide listpids notify oneliner pidinfo ping quiet quit reconfigure release requeue requeuehold resume show suspend top takeover uhold update verbose version wait_job" -f -a "quiet" -d 'print no messages other than error messages.'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand scontrol; and not __fish_seen_subcommand_from abort all cancel_reboot cluster completing create details delete errnumstr exit help hold holdu hide listpids notify oneliner pidinfo ping quiet quit reconfigure release requeue requeuehold resume show suspend top takeover uhold update verbose version wait_job" -f -a "quit" -d 'terminate this command.'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand scontrol; and not __fish_seen_subcommand_from abort all cancel_reboot cluster completing create details delete errnumstr exit help hold holdu hide listpids notify oneliner pidinfo ping quiet quit reconfigure release requeue requeuehold resume show suspend top takeover uhold update verbose version wait_job" -f -a "reconfigure" -d 're-read configuration files. [bai-slurm: rejected with an error (not supported yet)]'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand scontrol; and not __fish_seen_subcommand_from abort all cancel_reboot cluster completing create details delete errnumstr exit help hold holdu hide listpids notify oneliner pidinfo ping quiet quit reconfigure release requeue requeuehold resume show suspend top takeover uhold update verbose version wait_job" -f -a "release" -d 'permit specified job to start (see hold)'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand scontrol; and not __fish_seen_subcommand_from abort all cancel_reboot cluster completing create details delete errnumstr exit help hold holdu hide listpids notify oneliner pidinfo ping quiet quit reconfigure release requeue requeuehold resume show suspend top takeover uhold update verbose version wait_job" -f -a "requeue" -d 're-queue a batch job'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand scontrol; and not __fish_seen_subcommand_from abort all cancel_reboot cluster completing create details delete errnumstr exit help hold holdu hide listpids notify oneliner pidinfo ping quiet quit reconfigure release requeue requeuehold resume show suspend top takeover uhold update verbose version wait_job" -f -a "requeuehold" -d 're-queue and hold a batch'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand scontrol; and not __fish_seen_subcommand_from abort all cancel_reboot cluster completing create details delete errnumstr exit help hold holdu hide listpids notify oneliner pidinfo ping quiet quit reconfigure release requeue requeuehold resume show suspend top takeover uhold update verbose version wait_job" -f -a "resume" -d 'resume previously suspended job (see suspend) [bai-slurm: rejected with an error (not supported yet)]'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand scontrol; and not __fish_seen_subcommand_from abort all cancel_reboot cluster completing create details delete errnumstr exit help hold holdu hide listpids notify oneliner pidinfo ping quiet quit reconfigure release requeue requeuehold resume show suspend top takeover uhold update verbose version wait_job" -f -a "show" -d 'display state of identified entity, default is all records.'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand scontrol; and not __fish_seen_subcommand_from abort all cancel_reboot cluster completing create details delete errnumstr exit help hold holdu hide listpids notify oneliner pidinfo ping quiet quit reconfigure release requeue requeuehold resume show suspend top takeover uhold update verbose version wait_job" -f -a "suspend" -d 'susend specified job (see resume) [bai-slurm: rejected with an error (not supported yet)]'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand scontrol; and not __fish_seen_subcommand_from abort all cancel_reboot cluster completing create details delete errnumstr exit help hold holdu hide listpids notify oneliner pidinfo ping quiet quit reconfigure release requeue requeuehold resume show suspend top takeover uhold update verbose version wait_job" -f -a "top" -d 'Put specified job first in queue for user [bai-slurm: rejected with an error (not supported yet)]'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand scontrol; and not __fish_seen_subcommand_from abort all cancel_reboot cluster completing create details delete errnumstr exit help hold holdu hide listpids notify oneliner pidinfo ping quiet quit reconfigure release requeue requeuehold resume show suspend top takeover uhold update verbose version wait_job" -f -a "takeover" -d 'ask slurm backup controller to take over [bai-slurm: rejected with an error (not supported yet)]'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand scontrol; and not __fish_seen_subcommand_from abort all cancel_reboot cluster completing create details delete errnumstr exit help hold holdu hide listpids notify oneliner pidinfo ping quiet quit reconfigure release requeue requeuehold resume show suspend top takeover uhold update verbose version wait_job" -f -a "uhold" -d 'place user hold on specified job (see hold)'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand scontrol; and not __fish_seen_subcommand_from abort all cancel_reboot cluster completing create details delete errnumstr exit help hold holdu hide listpids notify oneliner pidinfo ping quiet quit reconfigure release requeue requeuehold resume show suspend top takeover uhold update verbose version wait_job" -f -a "update" -d 'update job, node, partition, reservation, or step'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand scontrol; and not __fish_seen_subcommand_from abort all cancel_reboot cluster completing create details delete errnumstr exit help hold holdu hide listpids notify oneliner pidinfo ping quiet quit reconfigure release requeue requeuehold resume show suspend top takeover uhold update verbose version wait_job" -f -a "verbose" -d 'enable detailed logging.'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand scontrol; and not __fish_seen_subcommand_from abort all cancel_reboot cluster completing create details delete errnumstr exit help hold holdu hide listpids notify oneliner pidinfo ping quiet quit reconfigure release requeue requeuehold resume show suspend top takeover uhold update verbose version wait_job" -f -a "version" -d 'display tool version number.'
complete -c bai-slurm -n "__fish_bai_slurm_using_subcommand scontrol; and not __fish_seen_subcommand_from abort all cancel_reboot cluster completing create details delete errnumstr exit help hold holdu hide listpids notify oneliner pidinfo ping quiet quit reconfigure release requeue requeuehold resume show suspend top takeover uhold update verbose version wait_job" -f -a "wait_job" -d 'wait until the nodes allocated to the job are booted and usable'
