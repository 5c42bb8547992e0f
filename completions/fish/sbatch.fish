complete -c sbatch -s A -l account -d 'charge job to specified account' -r
complete -c sbatch -l acctg-freq -d 'accounting and profiling sampling intervals. Supported datatypes: task=<interval> energy=<interval> network=<interval> filesystem=<interval> [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c sbatch -s a -l array -d 'job array index values' -r
complete -c sbatch -l batch -d 'node features the batch step needs [bai-slurm: rejected with an error (node features are not supported)]' -r
complete -c sbatch -s b -l begin -d 'defer job until HH:MM MM/DD/YY' -r
complete -c sbatch -l bb -d 'burst buffer specifications [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c sbatch -l bbf -d 'burst buffer specification file [bai-slurm: ignored with a warning (has no effect here)]' -r -F
complete -c sbatch -l cluster-constraint -d 'specify a list of cluster constraints [bai-slurm: ignored with a warning (has no meaning with one cluster)]' -r
complete -c sbatch -s D -l chdir -d 'set working directory for batch script' -r -f -a "(__fish_complete_directories)"
complete -c sbatch -l cluster -d 'the same as --clusters' -r
complete -c sbatch -s M -l clusters -d 'Comma separated list of clusters to issue commands to. Default is current cluster. Name of \'all\' will submit to run on all clusters. NOTE: SlurmDBD must up.' -r
complete -c sbatch -l comment -d 'arbitrary comment' -r
complete -c sbatch -l container -d 'Path to OCI container bundle [bai-slurm: rejected with an error (OCI bundles are not supported, use --container-image)]' -r
complete -c sbatch -l context -d 'SELinux context of the job [bai-slurm: rejected with an error (SELinux contexts are not supported)]' -r
complete -c sbatch -s C -l constraint -d 'specify a list of constraints' -r
complete -c sbatch -s S -l core-spec -d 'count of reserved cores [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c sbatch -l cores-per-socket -d 'number of cores per socket to allocate [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c sbatch -l cpu-freq -d 'requested cpu frequency (and governor) [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c sbatch -l cpus-per-gpu -d 'number of CPUs required per allocated GPU' -r
complete -c sbatch -s c -l cpus-per-task -d 'number of cpus required per task' -r
complete -c sbatch -l deadline -d 'remove the job if no ending possible before this deadline (start > (deadline - time[-min]))' -r
complete -c sbatch -l delay-boot -d 'delay boot for desired node features [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c sbatch -s d -l dependency -d 'defer job until condition on jobid is satisfied' -r
complete -c sbatch -s m -l distribution -d 'distribution method for processes to nodes (type = block|cyclic|arbitrary) [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c sbatch -s e -l error -d 'file for batch script\'s standard error' -r -F
complete -c sbatch -s x -l exclude -d 'exclude a specific list of hosts' -r
complete -c sbatch -l exclusive -d 'allocate nodes in exclusive mode when cpu consumable resource is enabled' -r
complete -c sbatch -l export -d 'specify environment variables to export' -r
complete -c sbatch -l export-file -d 'specify environment variables file or file descriptor to export' -r -F
complete -c sbatch -s B -l extra-node-info -d '--extra-node-info=S[:C[:T]] combine request of sockets per node, cores per socket and threads per core. Specify an asterisk (*) as a placeholder, a minimum value, or a min-max range. [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c sbatch -l get-user-env -d 'load environment from local cluster [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c sbatch -l gid -d 'group ID to run job as (user root only) [bai-slurm: rejected with an error (jobs always run as the submitting user)]' -r
complete -c sbatch -l gpu-bind -d 'task to gpu binding options [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c sbatch -l gpu-freq -d 'frequency and voltage of GPUs [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c sbatch -s G -l gpus -d 'count of GPUs required for the job' -r
complete -c sbatch -l gpus-per-node -d 'number of GPUs required per allocated node' -r
complete -c sbatch -l gpus-per-socket -d 'number of GPUs required per allocated socket [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c sbatch -l gpus-per-task -d 'number of GPUs required per spawned task' -r
complete -c sbatch -l gres -d 'required generic resources' -r
complete -c sbatch -l gres-flags -d 'flags related to GRES management [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c sbatch -l hint -d 'bind tasks according to application hints (compute_bound, memory_bound, multithread, nomultithread) [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c sbatch -s i -l input -d 'file for batch script\'s standard input' -r -F
complete -c sbatch -s J -l job-name -d 'name of job' -r
complete -c sbatch -l kill-on-invalid-dep -d 'yes|no: cancel the job if its dependency can never be met' -r
complete -c sbatch -s L -l licenses -d 'required license, comma separated' -r
complete -c sbatch -l mail-type -d 'notify on state change: BEGIN, END, FAIL or ALL [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c sbatch -l mail-user -d 'who to send email notification for job state changes [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c sbatch -l mcs-label -d 'mcs label if mcs plugin mcs/group is used [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c sbatch -l mem -d 'minimum amount of real memory' -r
complete -c sbatch -l mem-bind -d 'bind memory to locality domains [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c sbatch -l mem-per-cpu -d 'maximum amount of real memory per allocated cpu required by the job.' -r
complete -c sbatch -l mem-per-gpu -d 'real memory required per allocated GPU' -r
complete -c sbatch -l mincpus -d 'minimum number of logical processors (threads) per node' -r
complete -c sbatch -l network -d 'network resources the job needs [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c sbatch -l nice -d 'decrease scheduling priority by value' -r
complete -c sbatch -s k -l no-kill -d 'do not kill job on node failure [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c sbatch -s F -l nodefile -d 'request a specific list of hosts [bai-slurm: rejected with an error (node lists come from the platform)]' -r -F
complete -c sbatch -s w -l nodelist -d 'request a specific list of hosts' -r
complete -c sbatch -s N -l nodes -d 'number of nodes on which to run (N = min[-max])' -r
complete -c sbatch -s n -l ntasks -d 'number of tasks to run' -r
complete -c sbatch -l ntasks-per-core -d 'number of tasks to invoke on each core [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c sbatch -l ntasks-per-gpu -d 'number of tasks to invoke for each GPU [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c sbatch -l ntasks-per-node -d 'number of tasks to invoke on each node' -r
complete -c sbatch -l ntasks-per-socket -d 'number of tasks to invoke on each socket [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c sbatch -l ntasks-per-tres -d 'number of tasks to invoke for each GPU (or other trackable resource) [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c sbatch -l open-mode -d 'append|truncate: how to open the output and error files' -r
complete -c sbatch -s o -l output -d 'file for batch script\'s standard output' -r -F
complete -c sbatch -s p -l partition -d 'partition requested' -r
complete -c sbatch -l power -d 'power management options [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c sbatch -l prefer -d 'node features to prefer, but not require [bai-slurm: ignored with a warning (has no meaning without node features)]' -r
complete -c sbatch -l priority -d 'set the priority of the job to value' -r
complete -c sbatch -l profile -d 'enable acct_gather_profile for detailed data value is all or none or any combination of energy, lustre, network or task [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c sbatch -l propagate -d 'propagate all [or specific list of] rlimits' -r
complete -c sbatch -s q -l qos -d 'quality of service' -r
complete -c sbatch -l reservation -d 'allocate resources from named reservation' -r
complete -c sbatch -l signal -d 'send signal when time limit within time seconds' -r
complete -c sbatch -l sockets-per-node -d 'number of sockets per node to allocate [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c sbatch -l switches -d 'Optimum switches and max time to wait for optimum [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c sbatch -l tasks-per-node -d 'the same as --ntasks-per-node' -r
complete -c sbatch -l thread-spec -d 'count of reserved threads [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c sbatch -l threads-per-core -d 'number of threads per core to allocate [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c sbatch -s t -l time -d 'time limit' -r
complete -c sbatch -l time-min -d 'minimum time limit (if distinct)' -r
complete -c sbatch -l tmp -d 'minimum amount of temporary disk [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c sbatch -l uid -d 'user ID to run job as (user root only) [bai-slurm: rejected with an error (jobs always run as the submitting user)]' -r -f -a "(__fish_complete_users)"
complete -c sbatch -l wait-all-nodes -d '0|1: start the job only when all its nodes are ready [bai-slurm: ignored with a warning (has no effect here)]' -r
complete -c sbatch -l wckey -d 'wckey to run job under [bai-slurm: ignored with a warning (has nowhere to be accounted)]' -r
complete -c sbatch -l wrap -d 'string] wrap command string in a sh script and submit' -r
complete -c sbatch -l container-image -d '[pyxis] the image to run the job in (enroot URI or name)' -r
complete -c sbatch -l container-mounts -d '[pyxis] bind mounts: SRC:DST[:FLAGS][,SRC:DST...]' -r
complete -c sbatch -l container-workdir -d '[pyxis] working directory inside the container' -r -f -a "(__fish_complete_directories)"
complete -c sbatch -l container-name -d '[pyxis] name the container, to reuse it across steps' -r
complete -c sbatch -l container-save -d '[pyxis] save the container state to a squashfs file [bai-slurm: ignored with a warning (images are not saved back)]' -r
complete -c sbatch -l container-env -d '[pyxis] variables to pass into the container as they are [bai-slurm: honoured, the default (every exported variable already overrides the image\'s)]' -r
complete -c sbatch -l contiguous -d 'demand a contiguous range of nodes [bai-slurm: ignored with a warning (has no effect here)]'
complete -c sbatch -s h -l help -d 'show this help message'
complete -c sbatch -s H -l hold -d 'submit job in held state'
complete -c sbatch -l ignore-pbs -d 'Ignore #PBS and #BSUB options in the batch script'
complete -c sbatch -l no-requeue -d 'if set, do not permit the job to be requeued'
complete -c sbatch -s O -l overcommit -d 'overcommit resources [bai-slurm: ignored with a warning (has no effect here)]'
complete -c sbatch -s s -l oversubscribe -d 'over subscribe resources with other jobs [bai-slurm: ignored with a warning (has no effect here)]'
complete -c sbatch -l parsable -d 'outputs only the jobid and cluster name (if present), separated by semicolon, only on successful submission.'
complete -c sbatch -s Q -l quiet -d 'quiet mode (suppress informational messages)'
complete -c sbatch -l reboot -d 'reboot compute nodes before starting job [bai-slurm: ignored with a warning (has no effect here)]'
complete -c sbatch -l requeue -d 'if set, permit the job to be requeued'
complete -c sbatch -l spread-job -d 'spread job across as many nodes as possible [bai-slurm: ignored with a warning (has no effect here)]'
complete -c sbatch -l test-only -d 'validate the request and estimate when the job would start, without submitting it'
complete -c sbatch -l use-min-nodes -d 'if a range of node counts is given, prefer the smaller count [bai-slurm: ignored with a warning (has no effect here)]'
complete -c sbatch -s v -l verbose -d 'verbose mode (multiple -v\'s increase verbosity)'
complete -c sbatch -s V -l version -d 'output version information and exit'
complete -c sbatch -l usage -d 'display brief usage message'
complete -c sbatch -s W -l wait -d 'wait for completion of submitted job'
complete -c sbatch -l container-mount-home -d '[pyxis] bind mount the user\'s home directory [bai-slurm: ignored with a warning (mounts nothing by itself: the home directory is mounted only when it is on configured storage)]'
complete -c sbatch -l no-container-mount-home -d '[pyxis] do not bind mount the user\'s home directory [bai-slurm: ignored with a warning (mounts nothing away: the storage holding the working directory is mounted in any case)]'
complete -c sbatch -l container-remap-root -d '[pyxis] run as root inside the container [bai-slurm: ignored with a warning (jobs run as the submitting user)]'
complete -c sbatch -l no-container-remap-root -d '[pyxis] do not run as root inside the container [bai-slurm: honoured, the default (jobs run as the submitting user)]'
complete -c sbatch -l container-entrypoint -d '[pyxis] run the image\'s entrypoint [bai-slurm: ignored with a warning (the image entrypoint is not run)]'
complete -c sbatch -l no-container-entrypoint -d '[pyxis] do not run the image\'s entrypoint [bai-slurm: honoured, the default (the image entrypoint is not run)]'
complete -c sbatch -l container-writable -d '[pyxis] make the container file system writable [bai-slurm: honoured, the default (container file systems are writable)]'
complete -c sbatch -l container-readonly -d '[pyxis] make the container file system read-only [bai-slurm: ignored with a warning (container file systems are writable)]'
# bai-slurm: job ids and partition names come from `bai-slurm __complete`.
complete -c sbatch -s p -l partition -x -a '(bai-slurm __complete partitions 2>/dev/null)'
