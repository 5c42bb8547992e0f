complete -c srun -l accel-bind -d 'bind tasks to accelerators (g, m, n, v) [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c srun -s A -l account -d 'charge job to specified account' -r
complete -c srun -l acctg-freq -d 'accounting and profiling sampling intervals. Supported datatypes: task=<interval> energy=<interval> network=<interval> filesystem=<interval> [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c srun -l bcast -d 'Copy executable file to compute nodes [bai-slurm: ignored with a warning (has no effect here: programs are read where they are)]' -r
complete -c srun -l bcast-exclude -d 'Shared object directory paths to exclude [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c srun -s b -l begin -d 'defer job until HH:MM MM/DD/YY' -r
complete -c srun -l bb -d 'burst buffer specifications [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c srun -l bbf -d 'burst buffer specification file [bai-slurm: ignored with a warning (has no effect here)]' -r -F
complete -c srun -l cluster-constraint -d 'specify a list of cluster-constraints [bai-slurm: ignored with a warning (has no meaning with one cluster)]' -r
complete -c srun -s D -l chdir -d 'change remote current working directory' -r -f -a "(__fish_complete_directories)"
complete -c srun -l cluster -d 'the same as --clusters' -r
complete -c srun -s M -l clusters -d 'Comma separated list of clusters to issue commands to. Default is current cluster. Name of \'all\' will submit to run on all clusters. NOTE: SlurmDBD must up.' -r
complete -c srun -l comment -d 'arbitrary comment' -r
complete -c srun -l compress -d 'data compression library used with --bcast [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c srun -l container -d 'Path to OCI container bundle [bai-slurm: rejected with an error (OCI bundles are not supported, use --container-image)]' -r
complete -c srun -l context -d 'SELinux context of the job [bai-slurm: rejected with an error (SELinux contexts are not supported)]' -r
complete -c srun -s C -l constraint -d 'specify a list of constraints' -r
complete -c srun -s S -l core-spec -d 'count of reserved cores [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c srun -l cores-per-socket -d 'number of cores per socket to allocate [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c srun -l cpu-bind -d 'bind tasks to CPUs [bai-slurm: ignored with a warning (does nothing here: tasks are not bound to CPUs)]' -r
complete -c srun -l cpu_bind -d 'the same as --cpu-bind [bai-slurm: ignored with a warning (does nothing here: tasks are not bound to CPUs)]' -r
complete -c srun -l cpu-freq -d 'requested cpu frequency (and governor) [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c srun -l cpus-per-gpu -d 'number of CPUs required per allocated GPU' -r
complete -c srun -s c -l cpus-per-task -d 'number of cpus required per task' -r
complete -c srun -l deadline -d 'remove the job if no ending possible before this deadline (start > (deadline - time[-min]))' -r
complete -c srun -l delay-boot -d 'delay boot for desired node features [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c srun -s d -l dependency -d 'defer job until condition on jobid is satisfied' -r
complete -c srun -s m -l distribution -d 'distribution method for processes to nodes (type = block|cyclic|arbitrary)' -r
complete -c srun -l epilog -d 'run "program" after launching job step' -r -f -a "(__fish_complete_command)"
complete -c srun -s e -l error -d 'location of stderr redirection' -r -F
complete -c srun -s x -l exclude -d 'exclude a specific list of hosts' -r
complete -c srun -l exclusive -d 'for job allocation, this allocates nodes in in exclusive mode for job steps, this is equivalent to --exact' -r
complete -c srun -l export -d 'environment variables passed to launcher with optional values or NONE (pass no variables)' -r
complete -c srun -s B -l extra-node-info -d '--extra-node-info=S[:C[:T]] combine request of sockets per node, cores per socket and threads per core. Specify an asterisk (*) as a placeholder, a minimum value, or a min-max range. [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c srun -l gid -d 'group ID to run job as (user root only) [bai-slurm: rejected with an error (jobs always run as the submitting user)]' -r
complete -c srun -l gpu-bind -d 'task to gpu binding options [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c srun -l gpu-freq -d 'frequency and voltage of GPUs [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c srun -s G -l gpus -d 'count of GPUs required for the job' -r
complete -c srun -l gpus-per-node -d 'number of GPUs required per allocated node' -r
complete -c srun -l gpus-per-socket -d 'number of GPUs required per allocated socket [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c srun -l gpus-per-task -d 'number of GPUs required per spawned task' -r
complete -c srun -l gres -d 'required generic resources' -r
complete -c srun -l gres-flags -d 'flags related to GRES management [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c srun -l het-group -d 'hetjob component allocation(s) in which to launch application [bai-slurm: rejected with an error (heterogeneous jobs are not supported)]' -r
complete -c srun -l hint -d 'bind tasks according to application hints (compute_bound, memory_bound, multithread, nomultithread) [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c srun -s I -l immediate -d 'exit if resources not available in "secs"' -r
complete -c srun -s i -l input -d 'location of stdin redirection' -r -F
complete -c srun -l jobid -d 'run under already allocated job' -r
complete -c srun -s J -l job-name -d 'name of job' -r
complete -c srun -s K -l kill-on-bad-exit -d 'kill the job if any task terminates with a non-zero exit code' -r
complete -c srun -s L -l licenses -d 'required license, comma separated' -r
complete -c srun -l mail-type -d 'notify on state change: BEGIN, END, FAIL or ALL [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c srun -l mail-user -d 'who to send email notification for job state changes [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c srun -s T -l threads -d 'set srun launch fanout [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c srun -l mcs-label -d 'mcs label if mcs plugin mcs/group is used [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c srun -l mem -d 'minimum amount of real memory' -r
complete -c srun -l mem-bind -d 'bind memory to locality domains [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c srun -l mem-per-cpu -d 'maximum amount of real memory per allocated cpu required by the job.' -r
complete -c srun -l mem-per-gpu -d 'real memory required per allocated GPU' -r
complete -c srun -l mincpus -d 'minimum number of logical processors (threads) per node' -r
complete -c srun -l mpi -d 'type of MPI being used [bai-slurm: ignored with a warning (has no effect here: every step offers PMI-1 (MPICH\'s simple PMI), see docs/COMPAT.md)]' -r
complete -c srun -l msg-timeout -d 'seconds to wait for messages from the job step [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c srun -l network -d 'network resources the job needs [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c srun -l nice -d 'decrease scheduling priority by value' -r
complete -c srun -s k -l no-kill -d 'do not kill job on node failure [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c srun -s F -l nodefile -d 'request a specific list of hosts [bai-slurm: rejected with an error (node lists come from the platform)]' -r -F
complete -c srun -s w -l nodelist -d 'request a specific list of hosts' -r
complete -c srun -s N -l nodes -d 'number of nodes on which to run (N = min[-max])' -r
complete -c srun -s n -l ntasks -d 'number of tasks to run' -r
complete -c srun -l ntasks-per-core -d 'number of tasks to invoke on each core [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c srun -l ntasks-per-gpu -d 'number of tasks to invoke for each GPU [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c srun -l ntasks-per-node -d 'number of tasks to invoke on each node' -r
complete -c srun -l ntasks-per-socket -d 'number of tasks to invoke on each socket [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c srun -l ntasks-per-tres -d 'number of tasks to invoke for each GPU (or other trackable resource) [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c srun -l open-mode -d 'append|truncate: how to open the output and error files' -r
complete -c srun -s o -l output -d 'location of stdout redirection' -r -F
complete -c srun -l overlap -d 'Allow other steps to overlap this step [bai-slurm: ignored with a warning (has no effect here: steps share the job\'s CPUs)]' -r
complete -c srun -l pack-group -d 'the same as --het-group [bai-slurm: rejected with an error (heterogeneous jobs are not supported)]' -r
complete -c srun -s p -l partition -d 'partition requested' -r
complete -c srun -l power -d 'power management options [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c srun -l prefer -d 'node features to prefer, but not require [bai-slurm: ignored with a warning (has no meaning without node features)]' -r
complete -c srun -l priority -d 'set the priority of the job to value' -r
complete -c srun -l profile -d 'enable acct_gather_profile for detailed data value is all or none or any combination of energy, lustre, network or task [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c srun -l prolog -d 'run "program" before launching job step' -r -f -a "(__fish_complete_command)"
complete -c srun -l propagate -d 'propagate all [or specific list of] rlimits' -r
complete -c srun -s q -l qos -d 'quality of service' -r
complete -c srun -s r -l relative -d 'run job step relative to node n of allocation [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c srun -l reservation -d 'allocate resources from named reservation' -r
complete -c srun -l resv-ports -d 'reserve communication ports [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c srun -l send-libs -d 'autodetect and broadcast shared objects [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c srun -l signal -d 'send signal when time limit within time seconds' -r
complete -c srun -l slurmd-debug -d 'slurmd debug level [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c srun -l sockets-per-node -d 'number of sockets per node to allocate [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c srun -l switches -d 'Optimum switches and max time to wait for optimum [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c srun -l task-epilog -d 'run "program" after launching task' -r -f -a "(__fish_complete_command)"
complete -c srun -l task-prolog -d 'run "program" before launching task' -r -f -a "(__fish_complete_command)"
complete -c srun -l tasks-per-node -d 'the same as --ntasks-per-node' -r
complete -c srun -l thread-spec -d 'count of reserved threads [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c srun -l threads-per-core -d 'number of threads per core to allocate [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c srun -s t -l time -d 'time limit' -r
complete -c srun -l time-min -d 'minimum time limit (if distinct)' -r
complete -c srun -l tmp -d 'minimum amount of temporary disk [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c srun -l uid -d 'user ID to run job as (user root only) [bai-slurm: rejected with an error (jobs always run as the submitting user)]' -r -f -a "(__fish_complete_users)"
complete -c srun -s W -l wait -d 'seconds to wait after first task exits before killing job' -r
complete -c srun -l wckey -d 'wckey to run job under [bai-slurm: ignored with a warning (has nowhere to be accounted)]' -r
complete -c srun -l container-image -d '[pyxis] the image to run the job in (enroot URI or name)' -r
complete -c srun -l container-mounts -d '[pyxis] bind mounts: SRC:DST[:FLAGS][,SRC:DST...]' -r
complete -c srun -l container-workdir -d '[pyxis] working directory inside the container' -r -f -a "(__fish_complete_directories)"
complete -c srun -l container-name -d '[pyxis] name the container, to reuse it across steps' -r
complete -c srun -l container-save -d '[pyxis] save the container state to a squashfs file [bai-slurm: ignored with a warning (images are not saved back)]' -r
complete -c srun -l container-env -d '[pyxis] variables to pass into the container as they are [bai-slurm: honoured, the default (every exported variable already overrides the image\'s)]' -r
complete -c srun -l contiguous -d 'demand a contiguous range of nodes [bai-slurm: ignored with a warning (has no effect here)]'
complete -c srun -l debugger-test -d 'debugger test mode [bai-slurm: rejected with an error (it needs a Slurm controller)]'
complete -c srun -s X -l disable-status -d 'Disable Ctrl-C status feature'
complete -c srun -l exact -d 'use only the resources requested for the step (by default, all non-gres resources on each node in the allocation will be used in the step) [bai-slurm: ignored with a warning (has no effect here: steps share the job\'s CPUs)]'
complete -c srun -s h -l help -d 'show this help message'
complete -c srun -s H -l hold -d 'submit job in held state'
complete -c srun -l interactive -d 'run the step in interactive mode [bai-slurm: rejected with an error (it needs a Slurm controller)]'
complete -c srun -s l -l label -d 'prepend task number to lines of stdout/err'
complete -c srun -l multi-prog -d 'if set the program name specified is the configuration specification for multiple programs'
complete -c srun -s Z -l no-allocate -d 'don\'t allocate nodes (must supply -w) [bai-slurm: rejected with an error (it needs a Slurm controller)]'
complete -c srun -s O -l overcommit -d 'overcommit resources [bai-slurm: ignored with a warning (has no effect here)]'
complete -c srun -s s -l oversubscribe -d 'over-subscribe resources with other jobs [bai-slurm: ignored with a warning (has no effect here)]'
complete -c srun -s E -l preserve-env -d 'env vars for node and task counts override command-line flags [bai-slurm: ignored with a warning (is not implemented: step variables are always set)]'
complete -c srun -l pty -d 'run task zero in pseudo terminal'
complete -c srun -s Q -l quiet -d 'quiet mode (suppress informational messages)'
complete -c srun -l quit-on-interrupt -d 'quit on single Ctrl-C'
complete -c srun -l reboot -d 'reboot block before starting job [bai-slurm: ignored with a warning (has no effect here)]'
complete -c srun -l spread-job -d 'spread job across as many nodes as possible [bai-slurm: ignored with a warning (has no effect here)]'
complete -c srun -l test-only -d 'validate the request and estimate when the job would start, without submitting it'
complete -c srun -s u -l unbuffered -d 'do not line-buffer stdout/err'
complete -c srun -l use-min-nodes -d 'if a range of node counts is given, prefer the smaller count [bai-slurm: ignored with a warning (has no effect here)]'
complete -c srun -s v -l verbose -d 'verbose mode (multiple -v\'s increase verbosity)'
complete -c srun -s V -l version -d 'output version information and exit'
complete -c srun -l usage -d 'display brief usage message'
complete -c srun -l whole -d 'use whole nodes for the step, even when the step needs less [bai-slurm: ignored with a warning (has no effect here: steps share the job\'s CPUs)]'
complete -c srun -l container-mount-home -d '[pyxis] bind mount the user\'s home directory [bai-slurm: ignored with a warning (mounts nothing by itself: the home directory is mounted only when it is on configured storage)]'
complete -c srun -l no-container-mount-home -d '[pyxis] do not bind mount the user\'s home directory [bai-slurm: ignored with a warning (mounts nothing away: the storage holding the working directory is mounted in any case)]'
complete -c srun -l container-remap-root -d '[pyxis] run as root inside the container [bai-slurm: ignored with a warning (jobs run as the submitting user)]'
complete -c srun -l no-container-remap-root -d '[pyxis] do not run as root inside the container [bai-slurm: honoured, the default (jobs run as the submitting user)]'
complete -c srun -l container-entrypoint -d '[pyxis] run the image\'s entrypoint [bai-slurm: ignored with a warning (the image entrypoint is not run)]'
complete -c srun -l no-container-entrypoint -d '[pyxis] do not run the image\'s entrypoint [bai-slurm: honoured, the default (the image entrypoint is not run)]'
complete -c srun -l container-writable -d '[pyxis] make the container file system writable [bai-slurm: honoured, the default (container file systems are writable)]'
complete -c srun -l container-readonly -d '[pyxis] make the container file system read-only [bai-slurm: ignored with a warning (container file systems are writable)]'
# bai-slurm: job ids and partition names come from `bai-slurm __complete`.
complete -c srun -s p -l partition -x -a '(bai-slurm __complete partitions 2>/dev/null)'
