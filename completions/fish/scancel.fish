complete -c scancel -s A -l account -d 'act only on jobs charging this account' -r
complete -c scancel -s M -l clusters -l cluster -d 'clusters to issue commands to. NOTE: SlurmDBD must be up.' -r
complete -c scancel -s n -l name -l jobname -d 'act only on jobs with this name' -r
complete -c scancel -s w -l nodelist -d 'act only on jobs on these nodes' -r
complete -c scancel -s p -l partition -d 'act only on jobs in this partition' -r
complete -c scancel -s q -l qos -d 'act only on jobs with this quality of service' -r
complete -c scancel -s R -l reservation -d 'act only on jobs with this reservation' -r
complete -c scancel -l sibling -d 'remove an active sibling job from a federated job' -r
complete -c scancel -s s -l signal -d 'signal to send to job, default is SIGKILL' -r
complete -c scancel -s t -l state -d 'act only on jobs in this state. Valid job states are PENDING, RUNNING and SUSPENDED' -r
complete -c scancel -s u -l user -d 'act only on jobs of this user' -r -f -a "(__fish_complete_users)"
complete -c scancel -l wckey -d 'act only on jobs with this workload charactization key' -r
complete -c scancel -s b -l batch -d 'signal batch shell for specified job'
complete -c scancel -l ctld -d 'send the request to the controller rather than to the nodes'
complete -c scancel -s f -l full -d 'signal batch shell and all steps for specified job'
complete -c scancel -l help -d 'show this help message'
complete -c scancel -s H -l hurry -d 'avoid burst buffer stage out'
complete -c scancel -s i -l interactive -d 'require response from user for each job'
complete -c scancel -l me -d 'only the jobs of the user who runs the command'
complete -c scancel -s Q -l quiet -d 'disable warnings'
complete -c scancel -l usage -d 'display brief usage message'
complete -c scancel -s v -l verbose -d 'verbosity level'
complete -c scancel -s V -l version -d 'output version information and exit'
# bai-slurm: job ids and partition names come from `bai-slurm __complete`.
complete -c scancel -s p -l partition -x -a '(bai-slurm __complete partitions 2>/dev/null)'
complete -c scancel -f -a '(bai-slurm __complete jobs 2>/dev/null)'
