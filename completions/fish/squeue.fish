complete -c squeue -s A -l accounts -d 'comma separated list of accounts to view, default is all accounts' -r
complete -c squeue -s O -l Format -d 'format specification' -r
complete -c squeue -s o -l format -d 'format specification' -r
complete -c squeue -s i -l iterate -d 'specify an interation period' -r
complete -c squeue -s j -l jobs -d 'comma separated list of jobs IDs to view, default is all' -r
complete -c squeue -s L -l licenses -d 'comma separated list of license names to view' -r
complete -c squeue -s M -l clusters -l cluster -d 'cluster to issue commands to. Default is current cluster. cluster with no name will reset to default. Implies --local.' -r
complete -c squeue -s n -l name -d 'comma separated list of job names to view' -r
complete -c squeue -s w -l nodelist -l node -l nodes -d 'list of nodes to view, default is all nodes' -r
complete -c squeue -s p -l partitions -d 'comma separated list of partitions to view, default is all partitions' -r
complete -c squeue -s q -l qos -d 'comma separated list of qos\'s to view, default is all qos\'s' -r
complete -c squeue -s R -l reservation -d 'reservation to view, default is all' -r
complete -c squeue -s S -l sort -d 'comma separated list of fields to sort on' -r
complete -c squeue -s s -l steps -d 'comma separated list of job steps to view, default is all' -r
complete -c squeue -s t -l states -d 'comma separated list of states to view, default is pending and running, \'--states=all\' reports all states' -r
complete -c squeue -s u -l user -l users -d 'comma separated list of users to view' -r -f -a "(__fish_complete_users)"
complete -c squeue -s U -d 'the same as -A (an old spelling)' -r
complete -c squeue -s a -l all -d 'display jobs in hidden partitions'
complete -c squeue -s r -l array -d 'display one job array element per line'
complete -c squeue -l array-unique -d 'display one unique pending job array element per line'
complete -c squeue -l federation -d 'Report federated information if a member of one'
complete -c squeue -l help -d 'show this help message'
complete -c squeue -l hide -d 'do not display jobs in hidden partitions'
complete -c squeue -l local -d 'Report information only about jobs on the local cluster. Overrides --federation.'
complete -c squeue -s l -l long -d 'long report'
complete -c squeue -l me -d 'only the jobs of the user who runs the command'
complete -c squeue -l noconvert -d 'don\'t convert units from their original type (e.g. 2048M won\'t be converted to 2G).'
complete -c squeue -s h -l noheader -d 'no headers on output'
complete -c squeue -s P -l priority -d 'list pending jobs once per partition, in priority order'
complete -c squeue -l sibling -l sib -d 'Report information about all sibling jobs on a federated cluster. Implies --federation.'
complete -c squeue -l start -d 'print expected start times of pending jobs'
complete -c squeue -l usage -d 'display a brief summary of squeue options'
complete -c squeue -s v -l verbose -d 'verbosity level'
complete -c squeue -s V -l version -d 'output version information and exit'
complete -c squeue -l json -d 'Produce JSON output'
complete -c squeue -l yaml -d 'Produce YAML output'
# bai-slurm: job ids and partition names come from `bai-slurm __complete`.
complete -c squeue -s p -l partitions -x -a '(bai-slurm __complete partitions 2>/dev/null)'
complete -c squeue -s j -l jobs -x -a '(bai-slurm __complete jobs 2>/dev/null)'
